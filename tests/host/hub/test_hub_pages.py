"""The hub's pages in a real Chromium: the wall follows a live board, a game page shows its moves,
an archived game replays, the archive searches."""

from hubproc import quin
from playwright.sync_api import expect
from test_hub_push import Board, wait_for


def test_wall_game_page_replay_and_archive(db, hubs, browser, tmp_path):
    dsn, _ = db
    key = quin("hub", "add-table", "Table 7", "--db", dsn).stdout.strip()
    hub = hubs()
    board = Board(tmp_path / "b", hub.url, key, seed=5)
    errors = []
    try:
        board.play(actions=6)
        wait_for(board.drained, "the first pushes")
        page = browser.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(hub.url + "/")
        page.wait_for_selector("a.tbl h2:text('Table 7')")
        line = page.inner_text("a.tbl .line")
        assert "turn" in line
        towers = page.locator("a.tbl .grid span").count()
        assert towers > 0
        before = page.inner_text("a.tbl")
        board.play(actions=4)  # the same game goes on: the wall follows it live
        wait_for(board.drained, "more pushes")
        expect(page.locator("a.tbl")).not_to_have_text(before)
        uuid = board.table.row.uuid
        game = browser.new_page()
        game.on("pageerror", lambda e: errors.append(str(e)))
        game.goto(f"{hub.url}/games/{uuid}")
        expect(game.locator("#moves li").first).to_be_visible()
        assert "Table 7" in game.inner_text("#title")
        first = board.table.row.id
        board.table.new_game()  # abandoned: archived with its record
        wait_for(board.drained, "the record")
        game.goto(f"{hub.url}/games/{uuid}")
        game.wait_for_selector("#replay:not([hidden])")
        end = game.inner_text("#pos")
        game.click("#prev")
        assert game.inner_text("#pos") != end
        assert game.get_attribute("#record", "href") == f"/api/games/{uuid}/record"
        archive = browser.new_page()
        archive.goto(hub.url + "/archive")
        archive.wait_for_selector("#rows tr")
        archive.fill("input[name=table]", "nobody")
        archive.click("button")
        expect(archive.locator("#rows tr")).to_have_count(0)
        archive.fill("input[name=table]", "Table 7")
        archive.select_option("select[name=status]", "abandoned")
        archive.click("button")
        expect(archive.locator("#rows tr")).to_have_count(1)
        assert board.table.store.game(first).uuid in archive.inner_html("#rows")
        lb = browser.new_page()
        lb.goto(hub.url + "/leaderboard")
        assert lb.inner_text("thead")
        assert not errors, errors
    finally:
        board.stop()
