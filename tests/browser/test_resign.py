"""Resigning at one table, on the phone (issue 33, item 4): "Resign…" is asked once more ("No,
play on" changes nothing); once confirmed, every screen says who won and why."""

from playwright.sync_api import expect

from tests.support.scripted import BLACK, WHITE


def test_a_player_resigns_on_their_phone_after_being_asked_and_every_screen_says_so(live, artifacts):
    hands = live.hands
    hands.setup("white", WHITE)
    hands.setup("black", BLACK)
    hands.start()
    hands.move("w38", "w31")
    phone = live.black
    phone.click("#resign", timeout=10000)
    expect(phone.locator("#resign-question")).to_have_text(
        "Resign this game? White wins, and the game ends for both of you.")
    phone.screenshot(path=str(artifacts / "resign-confirm.png"))
    phone.click("#resign-no")
    expect(phone.locator("#resign")).to_be_visible()
    assert live.table.phase == "playing"  # nothing was sent
    phone.click("#resign")
    phone.click("#resign-yes")
    for name in ("status", "white", "black", "board"):
        expect(live.pages[name].locator("#turn")).to_contain_text("White wins: Black resigned", timeout=10000)
    for name in ("status", "white", "black"):
        expect(live.pages[name].locator("#result .winning")).to_have_text("The last move: White w38 → w31.")
    expect(phone.locator("#resign")).to_have_count(0)
    phone.screenshot(path=str(artifacts / "resign-done.png"))
    assert live.table.game.result.reason == "resignation" and not live.errors
