"""`quin serve` as a real process: what it says at start-up, and a new game started from the host page
shows its new seat codes there and on the terminal."""

from playwright.sync_api import expect

from tests.support.browsing import TV
from tests.support.served import Served, url_of


def test_start_up_says_what_to_do_next_and_a_new_game_shows_its_codes_here_and_on_the_terminal(browser, tmp_path):
    served = Served(tmp_path / "data")
    try:
        lines = served.until("Stop with Ctrl-C")
        text = "\n".join(lines)
        assert "Put the status page on a screen" in text
        assert "Each player scans their own seat code" in text
        assert "The host page starts a new game" in text
        steps = [line for line in lines if line.strip()[:2] in ("1.", "2.", "3.")]
        assert len(steps) == 3  # three lines say what to do next
        host_url, white_url = url_of(lines, "host page"), url_of(lines, "white seat")
        ctx = browser.new_context(viewport=TV)
        page = ctx.new_page()
        page.goto(host_url)
        link = page.locator('[data-seat="white"] a')
        assert link.get_attribute("href") == white_url
        old_qr = page.locator('[data-seat="white"] .qr').inner_html()
        page.select_option("#mode", "third_eye")
        page.click("#new-game")
        page.click('dialog [data-confirm="yes"]')
        expect(page.locator("#game-title")).to_have_text("Game 2: choosing lineups")
        expect(page.locator("#host-note")).to_contain_text("New game 2")
        # A seat follows the table from game to game (issue 22): the same code, said on the terminal.
        assert link.get_attribute("href") == white_url and page.locator('[data-seat="white"] .qr').inner_html() == old_qr
        after = served.until("New game 2")
        assert any("New game 2 (third_eye" in line and "the seat links stay the same" in line for line in after), after
        seat = ctx.new_page()
        seat.goto(white_url)
        expect(seat.locator("#turn")).to_have_text("Choose your lineup")
        # Re-issuing a seat gives a new code; the old one no longer works.
        page.click('[data-reissue="white"]')
        page.click('dialog [data-confirm="yes"]')
        expect(page.locator("#host-note")).to_contain_text("White's seat has a new code")
        new_white = link.get_attribute("href")
        assert new_white != white_url
        assert url_of(served.until("black seat"), "white seat") == new_white
        assert seat.request.get(white_url).status == 403
        ctx.close()
    finally:
        served.stop()


def test_against_the_opponent_the_host_page_gives_a_code_for_the_human_seat_only(browser, tmp_path):
    served = Served(tmp_path / "data", "--opponent", "white", "--level", "0")
    try:
        lines = served.until("Stop with Ctrl-C")
        host_url, black_url = url_of(lines, "host page"), url_of(lines, "black seat")
        ctx = browser.new_context(viewport=TV)
        page = ctx.new_page()
        page.goto(host_url)
        expect(page.locator('[data-opponent="white"]')).to_contain_text("Played by the practice opponent (level 0)")
        assert page.locator('[data-seat="white"]').count() == 0 and page.locator(".qr").count() == 1
        link = page.locator('[data-seat="black"] a')
        assert link.get_attribute("href") == black_url
        page.click("#new-game")
        page.click('dialog [data-confirm="yes"]')
        # The seat follows the table (issue 22): the same code, the phone carried to game 2.
        expect(page.locator("#host-note")).to_have_text(
            "New game 2: the phone on your seat is carried to it; the code stays the same.")
        expect(page.locator("#error")).to_have_text("")
        assert link.get_attribute("href") == black_url
        after = served.until("New game 2")
        assert any("New game 2" in line and "the seat links stay the same" in line for line in after), after
        seat = ctx.new_page()
        seat.goto(black_url)
        expect(seat.locator("#turn")).to_have_text("Choose your lineup")
        ctx.close()
    finally:
        served.stop()
