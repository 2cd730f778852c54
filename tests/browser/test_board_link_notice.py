"""What happened to the board's link, in one line on the status page and on both phones
(host/board/sources/serial_source.py SerialSource.status, published by quin serve's pump)."""

from playwright.sync_api import expect


def test_the_status_page_and_both_seats_say_what_happened_to_the_board(live):
    table = live.table
    pages = (live.status, live.white, live.black)
    # a problem while it lasts: shown as one
    table.set_source_status({"ok": False, "message": "board unplugged or unreachable at /dev/quin-board; reconnecting"})
    for page in pages:
        line = page.locator("#now li, #now p.line").filter(has_text="The board: board unplugged")
        expect(line).to_have_count(1, timeout=10000)
        expect(page.locator("#now")).to_have_class("now problem")
    # afterwards, for a while: what happened, as a plain notice (the board works)
    table.set_source_status({"ok": True, "message": "the board was unplugged for 3.2 s and is back; play goes on"})
    for page in pages:
        line = page.locator("#now li, #now p.line").filter(has_text="The board: the board was unplugged for 3.2 s")
        expect(line).to_have_count(1, timeout=10000)
        assert "problem" not in (page.locator("#now").get_attribute("class") or "")
    table.set_source_status(None)
    for page in pages:
        expect(page.locator("#now")).not_to_contain_text("The board:", timeout=10000)
    assert not live.errors
