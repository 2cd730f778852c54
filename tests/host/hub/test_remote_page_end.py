"""The /play page in Chromium ends a game as a person would: "Resign…" asks once more before it
resigns, and a rival away shows a countdown that, once the hub's (injected) clock says the time
is up, offers "Claim the game" or "Keep waiting".  The hub runs in this process for its clock, on
the tests' real PostgreSQL; the rival speaks the hub's API (tests/support/remote_client.py)."""

import random
from pathlib import Path

import pytest
from tests.support.inproc import fast_hub
from playwright.sync_api import expect
from tests.support.remote_client import create, join

from engine.randplay import random_setup

SHOTS = Path("/tmp/shots/remoteend")
WAIT = 20_000


@pytest.fixture
def hub(db):
    h = fast_hub(db[0])
    yield h
    h.stop()


def _playing(hub, browser):
    """Bob (the API) starts a game as black; Ann joins it on the page as white; both lineups in."""
    bob = create(hub.url, side="black", name="Bob", kind="browser")
    sb = bob.stream()
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{hub.url}/play/{bob.code}")
    page.fill("#join-form input[name=name]", "Ann")
    page.click("#join-this")
    page.wait_for_selector("body[data-phase=setup]", timeout=WAIT)
    page.click("#random-lineup")
    page.click("#send-setup")
    bob.post("setup", {"setup": random_setup(random.Random(4), "black").to_record()})
    page.wait_for_selector("body[data-phase=playing]", timeout=WAIT)
    sb.wait(lambda x: x["phase"] == "playing" and x["present"]["white"], "play")
    return bob, sb, page, ctx, errors


def test_resigning_on_the_page_asks_first_then_ends_the_game(hub, browser):
    SHOTS.mkdir(parents=True, exist_ok=True)
    bob, sb, page, ctx, errors = _playing(hub, browser)
    try:
        page.click("#resign")
        expect(page.locator("#resign-question")).to_have_text(
            "Resign this game? Bob wins, and the game ends for both of you.")
        page.screenshot(path=str(SHOTS / "play-resign-confirm.png"))
        page.click("#resign-no")  # changed their mind: nothing sent
        expect(page.locator("#resign-confirm")).to_be_hidden()
        assert sb.last["phase"] == "playing"
        page.click("#resign")
        page.click("#resign-yes")
        page.wait_for_selector("body[data-phase=over]", timeout=WAIT)
        expect(page.locator("#turn")).to_have_text("Black wins: White resigned")
        expect(page.locator("#end-result")).to_contain_text("Black wins: White resigned")
        expect(page.locator("#ending")).to_be_hidden()
        page.screenshot(path=str(SHOTS / "play-resigned.png"))
        over = sb.wait(lambda x: x["phase"] == "over", "Bob sees the end")
        assert over["record"]["termination"] == {"reason": "resignation", "winner": "black"}
        assert errors == []
    finally:
        sb.close()
        ctx.close()


def test_an_absent_rival_counts_down_then_the_page_offers_claim_or_wait(hub, browser):
    SHOTS.mkdir(parents=True, exist_ok=True)
    bob, sb, page, ctx, errors = _playing(hub, browser)
    try:
        sb.close()  # Bob's browser goes away
        expect(page.locator("#paused")).to_contain_text("Bob's browser is away", timeout=WAIT)
        expect(page.locator("#away-text")).to_contain_text(
            "Bob's browser is away. If it is not back in 2:00, you may claim the game.", timeout=WAIT)
        expect(page.locator("#claim")).to_be_hidden()
        page.screenshot(path=str(SHOTS / "play-away-countdown.png"))
        hub.clock.advance(120)  # the hub's clock: two minutes on
        expect(page.locator("#claim")).to_be_visible(timeout=WAIT)
        expect(page.locator("#away-text")).to_have_text(
            "Bob's browser has been away 2 minutes: claim the game (you win), or keep waiting.")
        page.screenshot(path=str(SHOTS / "play-away-claimable.png"))
        page.click("#keep-waiting")
        expect(page.locator("#away-text")).to_have_text(
            "You are waiting for Bob's browser to come back. You may still claim the game.")
        expect(page.locator("#keep-waiting")).to_be_hidden()
        page.click("#claim")
        page.wait_for_selector("body[data-phase=over]", timeout=WAIT)
        expect(page.locator("#turn")).to_have_text("White wins: Black left the game and White claimed it")
        expect(page.locator("#away")).to_be_hidden()
        page.screenshot(path=str(SHOTS / "play-claimed.png"))
        assert errors == []
    finally:
        ctx.close()


def test_a_game_whose_friend_never_sends_a_lineup_is_called_off_on_the_page_after_asking(hub, browser):
    """Issue 28: a game in setup could not be ended.  Ann (the page) joined Bob's game; Bob never
    sends a lineup; "Call off this game…" asks once more, then the hub calls it off for both."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    bob = create(hub.url, side="black", name="Bob", kind="browser")
    sb = bob.stream()
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(f"{hub.url}/play/{bob.code}")
        page.fill("#join-form input[name=name]", "Ann")
        page.click("#join-this")
        page.wait_for_selector("body[data-phase=setup]", timeout=WAIT)
        expect(page.locator("#ending")).to_be_hidden()  # nothing to resign before play
        page.click("#call-off")
        expect(page.locator("#call-off-question")).to_have_text(
            "Call off this game? It has not begun: nobody wins, and Bob is told.")
        page.screenshot(path=str(SHOTS / "play-call-off-confirm.png"))
        page.click("#call-off-no")  # changed their mind: nothing sent
        expect(page.locator("#call-off-confirm")).to_be_hidden()
        assert sb.last["phase"] == "setup"
        page.click("#call-off")
        page.click("#call-off-yes")
        page.wait_for_selector("body[data-phase=called_off]", timeout=WAIT)
        expect(page.locator("#turn")).to_have_text("Called off")
        expect(page.locator("#called-off")).to_have_text(
            "You called the game off before it began: nobody wins. Start another game from New game.")
        expect(page.locator("#calling-off")).to_be_hidden()
        st = sb.wait(lambda x: x["phase"] == "called_off", "Bob told")
        assert st["called_off"] == "white"
        page.screenshot(path=str(SHOTS / "play-called-off.png"))
        assert not errors, errors
    finally:
        ctx.close()
        sb.close()
