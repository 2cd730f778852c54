"""A move the store refuses (issue 18): every page says "the game could not be saved", nobody is
shown the move, and once the store takes it again the notice goes and the move is shown; nobody
replays it.  Real server, real Chromium."""

from playwright.sync_api import expect

from tests.support.browsing import body_text
from tests.support.scripted import BLACK, WHITE


def test_the_status_page_phones_and_board_say_the_game_could_not_be_saved_until_it_is(live):
    store = live.table.store
    live.hands.setup("white", WHITE)
    live.hands.setup("black", BLACK)
    live.hands.start()
    expect(live.status.locator("#turn")).to_have_text("White to move", timeout=10000)
    # The store refuses to record actions (SQLite itself refuses the insert, as a failing card would).
    with store._lock:
        store._conn.execute("CREATE TEMP TRIGGER refuse BEFORE INSERT ON actions "
                            "BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END")
    live.hands.toggle("w38", "w31")  # White moves: the referee decides it, the store refuses it
    for name, page in live.pages.items():
        banner = page.locator("#unsaved")
        expect(banner).to_contain_text("the game could not be saved: disk I/O error", timeout=10000)
        expect(banner).to_have_attribute("role", "alert")
    expect(live.status.locator("#turn")).to_have_text("White to move")  # nobody was shown the move
    assert "w31" not in live.status.locator("#log").inner_text()
    assert live.table.store.actions(live.table.row.id) == []
    with store._lock:
        store._conn.execute("DROP TRIGGER refuse")
    for name, page in live.pages.items():
        expect(page.locator("#unsaved")).to_have_count(0, timeout=10000)
    expect(live.status.locator("#turn")).to_have_text("Black to move", timeout=10000)
    assert [a["type"] for _, _, a in store.actions(live.table.row.id)] == ["move"]
    assert "could not be saved" not in body_text(live.status)
    assert not live.errors, live.errors
