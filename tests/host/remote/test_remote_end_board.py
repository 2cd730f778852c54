"""Ending a remote game from the board's side, as its player would, in Chromium: the seat's
"Resign…" asks once more, then the hub ends the game and the status page says "Black wins: White
resigned"; the rival away shows a countdown on the seat and the status page, and once the hub's
(injected) clock says two minutes have passed the seat offers "Claim the game" or "Keep waiting".

The hub runs in this process (tests/support/inproc.py) for its clock, on real PostgreSQL; the
board is the simulated board under a real service and its web server; the rival speaks the hub's
API (player.py)."""

import random
import threading
import time
from pathlib import Path

import pytest
from tests.support.player import RemotePlayer
from playwright.sync_api import expect

from engine.randplay import random_setup
from host.board.simboard import SimulatedBoard
from host.compose import Service
from host.remote.service import RemoteSeat
from host.store import Store
from tests.support.waiting import wait_for

SHOTS = Path("/tmp/shots/remoteend")
WAIT = 20_000
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def hub(clocked_hub):
    return clocked_hub


def _ann_and_bob(hub, tmp_path, browser, bob_sends_lineup: bool):
    """Ann's board (White, a real service on the simulated board) in a remote game Bob (Black, the
    API) joined; Ann's lineup sent, and Bob's if ``bob_sends_lineup`` (then the board is set and the
    game in play, else it waits at the hub's setup); the seat and the status page open.  Yields
    (table, bob, phone, status, service, seat); no page may throw meanwhile."""
    from tests.support.webtools import running

    from host.compose import create_app

    seat = RemoteSeat(tmp_path, "new", hub.url, name="Ann", side="white", backoff=(0.05, 0.3))
    board = SimulatedBoard((), clock=time.monotonic)
    service = Service(Store(tmp_path / "quin.sqlite3"), board=board, settle=0.05, **seat.service_kwargs())
    table = service.table
    seat.attach(service, wait=5.0)
    service.start(0.02)
    bob = RemotePlayer(hub.url)
    bob.join(seat.link.code)
    bob.listen()
    table.submit_setup("white", random_setup(random.Random(1), "white").to_record())
    if bob_sends_lineup:
        bob.post("setup", {"setup": random_setup(random.Random(2), "black").to_record()})
        wait_for(lambda: table.phase == "playing" and table.ref is not None, what="the game to start")
        table.feed(board.set(table.ref.expected()))
        wait_for(lambda: table.ref.phase == "play", what="the board set")
    else:
        wait_for(lambda: (table.session.hub or {}).get("phase") == "setup"
                 and (table.session.hub.get("setups_in") or {}).get("white"), what="Ann's lineup at the hub")
    app = create_app({"TABLE": table, "DATA_DIR": str(tmp_path)})
    serving = running(app)
    base = serving.__enter__()
    contexts, errors = [], []

    def open_page(path, viewport):
        ctx = browser.new_context(viewport=viewport)
        contexts.append(ctx)
        page = ctx.new_page()
        page.on("pageerror", lambda e: errors.append(f"{path}: {e}"))
        page.goto(base + path)
        return page

    phone = open_page(f"/seat/{table.seats.tokens['white']}", PHONE)
    status = open_page("/", {"width": 1280, "height": 800})
    yield table, bob, phone, status, service, seat
    assert not errors, errors  # a page that threw stops drawing what came after
    for ctx in contexts:
        ctx.close()
    bob.close()
    serving.__exit__(None, None, None)
    service.stop()


@pytest.fixture
def table_at(hub, tmp_path, browser):
    """Ann's board (White) and Bob (Black, the API) playing; the seat and the status page open."""
    for table, bob, phone, status, service, _ in _ann_and_bob(hub, tmp_path, browser, bob_sends_lineup=True):
        yield table, bob, phone, status, service


def test_the_seat_resigns_after_asking_and_every_screen_says_the_result(table_at):
    SHOTS.mkdir(parents=True, exist_ok=True)
    table, bob, phone, status, service = table_at
    phone.click("#resign", timeout=WAIT)
    expect(phone.locator("#resign-question")).to_have_text(
        "Resign this game? Bob wins, and the game ends for both of you.")
    phone.screenshot(path=str(SHOTS / "seat-resign-confirm.png"))
    phone.click("#resign-no")
    expect(phone.locator("#resign")).to_be_visible()
    phone.click("#resign")
    phone.click("#resign-yes")
    wait_for(lambda: bob.states and bob.states[-1]["phase"] == "over", what="the hub's end")
    assert bob.states[-1]["record"]["termination"] == {"reason": "resignation", "winner": "black"}
    expect(phone.locator("#turn")).to_contain_text("Black wins: White resigned", timeout=WAIT)
    expect(status.locator("#turn")).to_contain_text("Black wins: White resigned", timeout=WAIT)
    expect(phone.locator("#remote-end")).to_be_hidden()
    phone.screenshot(path=str(SHOTS / "seat-resigned.png"))
    status.screenshot(path=str(SHOTS / "status-resigned.png"))
    row = service.store.game(table.row.id)
    assert row.status == "over" and row.result == {"status": "won", "winner": "black", "reason": "resignation"}
    assert service.store.record(row.id)["termination"] == {"reason": "resignation", "winner": "black"}


def test_an_answer_that_comes_after_the_end_does_not_draw_over_it(table_at, monkeypatch):
    """The phone's answer to "Yes, resign" (read before the hub ended the game) and the stream's end
    race to the page: held back here until the end is drawn, it must not draw "Your move" and
    "Resigning…" back over "Black wins" (it came last in one CI run)."""
    import host.remote.link as link_module

    table, bob, phone, status, service = table_at
    # the board's link tells the hub only once the phone's answer is read: that answer says
    # "Resigning" and the game still on, and the stream's end is sure to be newer than it
    read = threading.Event()
    send = link_module.request

    def request(hub, method, path, *args, **kw):
        if path.endswith("/resign"):
            read.wait(WAIT / 1000)
        return send(hub, method, path, *args, **kw)

    monkeypatch.setattr(link_module, "request", request)
    held = []

    def hold(route):
        held.append((route, route.fetch()))
        read.set()

    phone.route("**/remote-end", hold)
    phone.click("#resign", timeout=WAIT)
    phone.click("#resign-yes")
    # (the route's handler runs while Playwright waits: here, for the stream's end)
    expect(phone.locator("#turn")).to_contain_text("Black wins: White resigned", timeout=WAIT)
    expect(phone.locator("#remote-end")).to_be_hidden()
    route, answer = held[0]
    assert answer.json()["remote"]["resigning"] is True  # read before the hub's end
    route.fulfill(response=answer)
    phone.wait_for_function("() => window.QUIN_ANSWERS === 1")
    expect(phone.locator("#turn")).to_contain_text("Black wins: White resigned")
    expect(phone.locator("#remote-end")).to_be_hidden()


def test_an_absent_rival_counts_down_on_every_screen_then_the_seat_claims_the_game(table_at, hub):
    SHOTS.mkdir(parents=True, exist_ok=True)
    table, bob, phone, status, service = table_at
    bob.close()  # Bob's browser goes away
    expect(phone.locator("#remote-end .away-text")).to_have_text(
        "Bob is away. If not back in 2:00, you may claim the game.", timeout=WAIT)
    expect(status.locator("#remote-away")).to_have_text(
        "Paused: Bob (Black) is away. If not back in 2:00, White may claim the game.", timeout=WAIT)
    # the pause is said once on the status page: in that line, not again in the panel below it
    expect(status.locator("#now")).not_to_contain_text("away")
    expect(status.locator("#now")).not_to_contain_text("Paused")
    # and once on the phone: in the countdown's line, not again in the panel above it
    expect(phone.locator("#now")).not_to_contain_text("away")
    expect(phone.locator("#now")).not_to_contain_text("Paused")
    expect(phone.locator("#remote-claim")).to_have_count(0)
    phone.screenshot(path=str(SHOTS / "seat-away-countdown.png"))
    status.screenshot(path=str(SHOTS / "status-away-countdown.png"))
    hub.clock.advance(120)
    expect(phone.locator("#remote-claim")).to_be_visible(timeout=WAIT)
    expect(phone.locator("#remote-end .away-text")).to_have_text(
        "Bob has been away 2 minutes: claim the game (you win), or keep waiting.")
    expect(status.locator("#remote-away")).to_have_text(
        "Paused: Bob (Black) has been away 2 minutes: White may claim the game on their phone, or keep waiting.")
    expect(status.locator("#now")).not_to_contain_text("away")
    expect(phone.locator("#now")).not_to_contain_text("away")
    phone.screenshot(path=str(SHOTS / "seat-away-claimable.png"))
    phone.click("#remote-wait")
    expect(phone.locator("#remote-end .away-text")).to_have_text(
        "You are waiting for Bob to come back. You may still claim the game.")
    phone.click("#remote-claim")
    expect(phone.locator("#turn")).to_contain_text("White wins: Black left the game and White claimed it",
                                                   timeout=WAIT)
    expect(status.locator("#turn")).to_contain_text("White wins: Black left the game and White claimed it",
                                                    timeout=WAIT)
    expect(status.locator("#remote-away")).to_be_hidden()
    status.screenshot(path=str(SHOTS / "status-claimed.png"))
    row = service.store.game(table.row.id)
    assert row.status == "over" and row.result["reason"] == "abandonment"


@pytest.fixture
def setup_at(hub, tmp_path, browser):
    """Ann's board (White) in a remote game Bob joined and never sent a lineup for; the seat and the
    status page open."""
    yield from _ann_and_bob(hub, tmp_path, browser, bob_sends_lineup=False)


def test_a_game_whose_friend_never_sends_a_lineup_is_called_off_from_the_seat_after_asking(setup_at):
    """Issue 28: a remote game still in setup could not be ended.  The seat's "Call off this game…"
    asks once more; the hub calls it off; every screen says who did and that nobody wins; the table
    is free for another game (the store keeps it abandoned, the link's file says it is over)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    table, bob, phone, status, service, seat = setup_at
    expect(phone.locator("#resign")).to_have_count(0)  # nothing to resign before play
    phone.click("#call-off", timeout=WAIT)
    expect(phone.locator("#call-off-question")).to_have_text(
        "Call off this game? It has not begun: nobody wins, and Bob is told.")
    phone.screenshot(path=str(SHOTS / "seat-call-off-confirm.png"))
    phone.click("#call-off-no")
    expect(phone.locator("#call-off")).to_be_visible()
    assert (table.session.hub or {}).get("phase") == "setup"  # nothing was sent
    phone.click("#call-off")
    phone.click("#call-off-yes")
    wait_for(lambda: bob.states and bob.states[-1]["phase"] == "called_off", what="the hub's call-off")
    assert bob.states[-1]["called_off"] == "white"
    said = "Ann (White) called the game off before it began: nobody wins. Start another game from the host page."
    for page in (phone, status):
        expect(page.locator("#turn")).to_have_text("Called off", timeout=WAIT)
        expect(page.locator("#now")).to_contain_text(said, timeout=WAIT)
        # no game was played: no empty Zero Gravity or Moves panel is shown
        expect(page.locator("#zg")).to_be_hidden()
        expect(page.locator("#log")).to_be_hidden()
    expect(phone.locator("#remote-end")).to_be_hidden()
    phone.screenshot(path=str(SHOTS / "seat-called-off.png"))
    status.screenshot(path=str(SHOTS / "status-called-off.png"))
    assert table.phase == "over"
    assert service.store.game(table.row.id).status == "abandoned"
    wait_for(lambda: seat.link.over, what="the link's file to say the game is over")
    # the host page's New game gives the table back (two phones), as after any remote game's end
    r = status.evaluate("""async (key) => { const r = await fetch(`/api/host/${key}/new`, {method: 'POST',
        headers: {'Content-Type': 'application/json', 'X-Host-Key': key}, body: '{}'});
        return [r.status, await r.json()]; }""", table.host_key)
    assert r[0] == 200, r
    assert not getattr(table.session, "remote", False) and table.phase == "setup"
