"""The board's host page starts or joins a remote game as `quin serve --remote` does (issue 28:
"the host page starts or joins a remote game (code, side, name) as the command line does"), in
Chromium, against a real hub (in this process) on real PostgreSQL; and a restart of `quin serve`
without --remote goes on with a remote game not yet over instead of handing its rival's seat to a
phone."""

import time
from pathlib import Path

import pytest
from tests.support.player import RemotePlayer
from tests.support.waiting import wait_for
from playwright.sync_api import expect

from host.board.simboard import SimulatedBoard
from host.compose import Service
from host.store import Store
from tests.support.served import serve_once
from tests.support.webtools import running

SHOTS = Path("/tmp/shots/remoteend")
WAIT = 20_000


@pytest.fixture
def hub(clocked_hub):
    return clocked_hub


@pytest.fixture
def served(tmp_path, browser):
    """A service on a simulated board with its web app (as `quin serve` makes it), its host page open."""
    service = Service(Store(tmp_path / "quin.sqlite3"), board=SimulatedBoard((), clock=time.monotonic), settle=0.05)
    service.open()
    service.start(0.02)
    app = service.web()
    serving = running(app)
    base = serving.__enter__()
    ctx = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{base}/host/{service.table.host_key}")
    yield service, page, errors
    ctx.close()
    serving.__exit__(None, None, None)
    service.stop()


def _submit(page):
    page.click("#remote-go")
    page.click("dialog button.primary, dialog [value=ok], dialog button:has-text('Start'), dialog button:has-text('Join')")


def test_the_host_page_starts_a_remote_game_and_the_friend_joins_it(hub, served):
    SHOTS.mkdir(parents=True, exist_ok=True)
    service, page, errors = served
    table = service.table
    page.fill("#remote-hub", hub.url)
    page.fill("#remote-name", "Ann")
    page.select_option("#remote-side", "white")
    page.select_option("#remote-mode", "third_eye")
    page.screenshot(path=str(SHOTS / "host-remote-form.png"))
    _submit(page)
    expect(page.locator("#remote-now")).to_contain_text("you play White", timeout=WAIT)
    code = page.locator("#remote-now strong").inner_text()
    expect(page.locator("#host-note")).to_have_text(
        f"Remote game {code}: you play White. Give your friend the code {code}; scan your seat code with your phone.")
    assert table.session.remote and table.session.local == "white" and table.row.mode == "third_eye"
    assert set(table.phone_seats()) == {"white"}
    expect(page.locator('[data-seat="white"] .qr svg')).to_be_visible()
    expect(page.locator('[data-remote="black"]')).to_contain_text("Your friend, playing from afar")
    bob = RemotePlayer(hub.url)
    bob.join(code)
    bob.listen()
    try:
        wait_for(lambda: (table.session.hub or {}).get("names", {}).get("black") == "Bob", "the hub to say Bob joined")
        page.reload()
        expect(page.locator('[data-remote="black"]')).to_contain_text(f"Bob, playing from afar (remote game {code})")
        page.screenshot(path=str(SHOTS / "host-remote-started.png"))
        # a second remote game while this one is played is refused in one line
        r = page.evaluate("""async ([key, url]) => { const r = await fetch(`/api/host/${key}/remote`, {method: 'POST',
            headers: {'Content-Type': 'application/json', 'X-Host-Key': key},
            body: JSON.stringify({hub: url, game: 'new', name: 'Ann'})}); return [r.status, await r.json()]; }""",
                          [table.host_key, hub.url])
        assert r[0] == 400 and r[1]["error"] == f"remote: this table plays remote game {code} already"
        r = page.evaluate("""async (key) => { const r = await fetch(`/api/host/${key}/new`, {method: 'POST',
            headers: {'Content-Type': 'application/json', 'X-Host-Key': key}, body: '{}'});
            return [r.status, await r.json()]; }""", table.host_key)
        assert r[0] == 400 and r[1]["error"].startswith(f"new: this table plays remote game {code}")
        assert errors == []
    finally:
        bob.close()


def test_the_host_page_joins_with_a_code_and_says_a_bad_one_in_one_line(hub, served):
    service, page, errors = served
    table = service.table
    bob = RemotePlayer(hub.url)
    bob.create(side="white", mode="classic")
    page.fill("#remote-hub", hub.url)
    page.fill("#remote-name", "Ann")
    page.select_option("#remote-game-kind", "code")
    expect(page.locator("#remote-side")).to_be_hidden()
    page.fill("#remote-code", "ZZZ-ZZZ")
    _submit(page)
    expect(page.locator("#remote-error")).to_have_text("game: the hub has no game ZZZ-ZZZ", timeout=WAIT)
    assert not getattr(table.session, "remote", False)
    page.fill("#remote-code", bob.code.lower())
    _submit(page)
    expect(page.locator("#remote-now")).to_contain_text("you play Black", timeout=WAIT)
    assert table.session.remote and table.session.local == "black"
    expect(page.locator('[data-remote="white"]')).to_contain_text("Bob, playing from afar")
    assert errors == []


def test_a_restart_without_remote_goes_on_with_the_remote_game(hub, tmp_path):
    first = "\n".join(serve_once(tmp_path, "--remote", "new", "--hub", hub.url, "--side", "white", "--name", "Ann"))
    assert "remote game:" in first, first
    code = first.split("remote game:", 1)[1].split()[0]
    again = "\n".join(serve_once(tmp_path))
    assert f"remote game:   {code} on {hub.url}: you play White (resumed)" in again, again
    assert "black seat:    played by" in again or "black seat" not in again.split("remote game")[0]
