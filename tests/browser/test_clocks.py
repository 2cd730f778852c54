"""The board is the clock, on every screen (issue 33, item 3): with a time control, the status page
and both phones show both clocks, the same times (within 0.2 s: each page counts the running clock
down from the state it was sent), the running side marked, and the result when a flag falls."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import served
from tests.support.scripted import BLACK, WHITE, wait_for

PAGES = ("status", "white", "black", "board")  # the virtual board too


@pytest.fixture
def timed(browser, tmp_path):
    """A live table whose games have 15 s each and 2 s a turn."""
    yield from served(browser, tmp_path, CLOCK="0.25+2")


def seconds(text: str) -> float:
    if re.fullmatch(r"\d+\.\d", text):
        return float(text)
    parts = [int(x) for x in text.split(":")]
    return sum(v * 60 ** i for i, v in enumerate(reversed(parts)))


def shown(page) -> dict:
    """{side: (seconds shown, running?)} read at one moment in one page."""
    got = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('#clocks .clock')].map((c) =>
        [c.querySelector('.clock-time').dataset.clock, [c.querySelector('.clock-time').textContent,
                                                         c.classList.contains('running')]]))""")
    return {side: (seconds(text), running) for side, (text, running) in got.items()}


def agree(live) -> dict:
    """Every page shows both clocks, the same running side, and times within 0.2 s of each other."""
    views = {name: shown(live.pages[name]) for name in PAGES}
    for side in ("white", "black"):
        times = [v[side][0] for v in views.values()]
        assert max(times) - min(times) <= 1.2 if max(times) >= 10 else max(times) - min(times) <= 0.2, views
        assert len({v[side][1] for v in views.values()}) == 1, views
    return views["status"]


def test_every_screen_shows_both_clocks_agreeing_and_the_flag_ends_the_game(timed, artifacts):
    live = timed
    hands = live.hands
    hands.setup("white", WHITE)
    hands.setup("black", BLACK)
    hands.start()
    for name in PAGES:
        expect(live.pages[name].locator("#clocks .clock.running")).to_have_count(1, timeout=10000)
    wait_for(lambda: live.table.state(None).get("clock", {}).get("running") == "white", "White's clock running")
    first = agree(live)
    assert first["white"][1] and not first["black"][1]
    assert 10 < first["white"][0] <= 15 and first["black"][0] == 15
    hands.move("w38", "w31")  # White's Shadow in: Black's clock runs, White gained 2 s
    for name in PAGES:
        expect(live.pages[name].locator("#clocks .clock.black")).to_have_class(re.compile("running"), timeout=10000)
    after = agree(live)
    assert after["black"][1] and not after["white"][1]
    live.status.screenshot(path=str(artifacts / "clocks-status.png"))
    live.white.screenshot(path=str(artifacts / "clocks-white.png"))
    # Black lets their time run out: every screen says so
    wait_for(lambda: live.table.game.is_over(), "the flag", timeout=30)
    for name in PAGES:
        expect(live.pages[name].locator("#turn")).to_contain_text("White wins", timeout=30000)
        expect(live.pages[name].locator("#clocks .clock.black")).to_have_class(re.compile("flagged"))
        expect(live.pages[name].locator("#clocks .clock.black .clock-time")).to_have_text("0.0")
        # the last move won nothing: the flag did (the virtual board says no more than the headline)
        if name != "board":
            expect(live.pages[name].locator("#result .winning")).to_have_text("The last move: White w38 → w31.")
    assert live.table.game.result.reason == "time"
    live.black.screenshot(path=str(artifacts / "clocks-flag-black.png"))
    assert not live.errors


def test_the_host_page_starts_a_game_with_clocks_and_the_seats_show_them(browser, tmp_path, artifacts):
    """`quin serve` as a real process: the host page's Clocks choice starts the next game with that
    control (said on the terminal), every screen shows both clocks at their whole time, and a
    rematch keeps it."""
    from tests.support.browsing import PHONE, TV
    from tests.support.served import Served, url_of

    served = Served(tmp_path / "data")
    try:
        lines = served.until("Stop with Ctrl-C")
        host_url, white_url = url_of(lines, "host page"), url_of(lines, "white seat")
        ctx = browser.new_context(viewport=TV)
        host = ctx.new_page()
        host.goto(host_url)
        expect(host.locator("#clock")).to_have_value("none")
        host.select_option("#clock", "10+5")
        host.screenshot(path=str(artifacts / "clocks-host.png"))
        host.click("#new-game")
        host.click('dialog [data-confirm="yes"]')
        expect(host.locator("#host-note")).to_contain_text("New game 2")
        assert any("New game 2 (classic, white moves first, clocks 10+5)" in line for line in served.until("New game 2"))
        status = ctx.new_page()
        status.goto(host_url.split("/host/")[0] + "/")
        phone = browser.new_context(viewport=PHONE).new_page()
        phone.goto(white_url)
        for page in (status, phone):
            expect(page.locator("#clocks .clock-time")).to_have_text(["10:00", "10:00"], timeout=10000)
            expect(page.locator("#clocks .clock.running")).to_have_count(0)  # nobody's runs before play
        host.reload()
        expect(host.locator("#clock")).to_have_value("10+5")  # the next game keeps it unless changed
        phone.context.close()
        ctx.close()
    finally:
        served.stop()
