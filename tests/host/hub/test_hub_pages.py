"""The hub's pages in a real Chromium: the wall follows a live board, a game page shows its moves,
an archived game replays, the archive searches."""

from tests.support.hubproc import quin
from playwright.sync_api import expect
from tests.support.hubproc import wait_for
from tests.support.pushing_board import Board


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
        line = page.inner_text("a.tbl .now-line")
        assert line.startswith("Turn ") and "to move" in line, line
        # the board drawn small, once its layout is in (the drawing is checked in the next test)
        expect(page.locator("a.tbl svg.board g.tower")).not_to_have_count(0)
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
        # the export links take the same selection (a tournament: its days, its tables, a player)
        archive.fill("input[name=from]", "2000-01-01")
        archive.click("button")
        expect(archive.locator("#rows tr")).to_have_count(1)
        zipped = archive.get_attribute("#export-zip", "href")
        assert zipped.startswith("/api/export.zip?") and "from=2000-01-01" in zipped and "table=Table+7" in zipped
        lb = browser.new_page()
        lb.goto(hub.url + "/leaderboard")
        assert lb.inner_text("thead")
        assert not errors, errors
    finally:
        board.stop()


def flash_frames(seed_from=1):
    """Two public frames of a real game (engine views, as a board's status page gets them): the
    one before an action that made a flash, and the one after, whose last turn holds it."""
    import random

    from engine.game import Game
    from engine.randplay import random_setup
    from engine.views import view

    for seed in range(seed_from, seed_from + 200):
        rng = random.Random(seed)
        game = Game(random_setup(rng, "white"), random_setup(rng, "black"), "classic")
        before = view(game, None)
        while not game.is_over() and len(game.log) < 300:
            flashes = len(game.events)
            game.push(rng.choice(game.legal_actions()))
            after = view(game, None)
            new = [e for e in after["events"][flashes:] if e["type"] == "flash"]
            if new and after["history"] and new[-1]["turn"] == after["history"][-1]["turn"] and not game.is_over():
                state = lambda v: {"phase": "play", "mode": "classic", "view": v,  # noqa: E731
                                   "players": {"white": "Ann", "black": None}}
                return ({"state": state(before), "notices": []}, {"state": state(after), "notices": []}, new[-1]["at"],
                        after)
            before = after
    raise AssertionError("no game with a flash was found")


def test_the_wall_draws_each_board_with_the_boards_geometry_its_last_move_and_flashes(db, hubs, browser):
    """Each table on the wall is the board drawn small by the status page's own code (quin.js and
    the board's layout): its towers on their spaces, the last turn's arrows, a burst where a flash
    happened, and the table's card flashes."""
    import uuid

    from tests.support.hub_client import request

    dsn, _ = db
    key = quin("hub", "add-table", "Table 3", "--db", dsn).stdout.strip()
    quiet = quin("hub", "add-table", "Table 4", "--db", dsn).stdout.strip()
    hub = hubs()
    before, after, at, view = flash_frames()
    g, other = str(uuid.uuid4()), str(uuid.uuid4())
    assert request(hub.url + "/api/push", "POST", {"games": [{"uuid": g, "events": [{"seq": 1, "data": before}]}]},
                   key=key)[0] == 200
    assert request(hub.url + "/api/push", "POST", {"games": [{"uuid": other, "events": [{"seq": 1, "data": before}]}]},
                   key=quiet)[0] == 200
    layout = request(hub.url + "/api/layout")[1]
    errors = []
    page = browser.new_page(viewport={"width": 1600, "height": 900})
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("response", lambda r: errors.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.goto(hub.url + "/")
    card = page.locator(f"a.tbl[data-game='{g}']")
    expect(card.locator("svg.board circle.space")).to_have_count(len(layout["spaces"]))  # every space of the board
    assert card.locator("h2").inner_text() == "Table 3 · Classic"
    assert card.locator(".seat").all_inner_texts() == ["Ann (White)", "Black"]
    expect(card.locator("svg.board g.tower")).to_have_count(len(before["state"]["view"]["board"]))
    expect(card.locator("polygon.burst-flash")).to_have_count(0)
    # the flash arrives: a burst on its space, the last move says so, the card flashes
    assert request(hub.url + "/api/push", "POST", {"games": [{"uuid": g, "events": [{"seq": 2, "data": after}]}]},
                   key=key)[0] == 200
    expect(card.locator(f"polygon.burst-flash[data-burst='{at}']")).to_have_count(1)
    expect(card).to_have_class("tbl flashed flash")
    flash = [e for e in view["events"] if e["type"] == "flash"][-1]
    verb = {"capture": "captures", "swap": "swaps with"}.get(flash["outcome"], "destroy each other")
    said = card.locator(".last").inner_text()  # the status page's words for a flash (Quin.flashEventText)
    assert f" on {at}" in said and verb in said, said
    expect(card.locator(".last")).to_have_class("last flashed")
    towers = view["board"]
    expect(card.locator("svg.board g.tower")).to_have_count(len(towers))
    for t in towers:  # each tower where the board's geometry puts its space, in its owner's colour
        circle = card.locator(f"g.tower[data-tower='{t['space']}'] circle")
        x, y = layout["spaces"][t["space"]]
        assert (float(circle.get_attribute("cx")), float(circle.get_attribute("cy"))) == (x, y)
        assert t["owner"] in card.locator(f"g.tower[data-tower='{t['space']}']").get_attribute("class")
    last = view["history"][-1]
    moved = [a for a in last["actions"] if a["type"] in ("move", "reflect")]
    for a in moved:  # the last turn's moves as arrows
        expect(card.locator(f"path.arrow-last[data-arrow='{a['from']}-{a['to']}']")).to_have_count(1)
    # the other table's card did not flash
    assert "flash" not in page.locator(f"a.tbl[data-game='{other}']").get_attribute("class")
    # the game page draws the same board, large
    game = browser.new_page()
    game.on("pageerror", lambda e: errors.append(str(e)))
    game.goto(f"{hub.url}/games/{g}")
    expect(game.locator(f"svg#board polygon.burst-flash[data-burst='{at}']")).to_have_count(1)
    expect(game.locator("svg#board g.tower")).to_have_count(len(towers))
    assert "Ann (White)" in game.inner_text("#players")
    assert not errors, errors


def test_a_phone_at_a_hub_table_gives_a_player_code_and_hears_at_once_of_one_the_hub_does_not_know(
        db, hubs, browser, tmp_path):
    """The seat page in Chromium at a board pushing to a real hub: the player code field shows
    (it does not where there is no hub), an unknown code is one line on the phone and nothing is
    kept, a known one is sent with the name."""
    from tests.support.webtools import running

    from host.remote.push import Pusher
    from host.compose import create_app

    dsn, _ = db
    key = quin("hub", "add-table", "Table 9", "--db", dsn).stdout.strip()
    code = quin("hub", "add-player", "Ann", "--db", dsn).stdout.strip()
    hub = hubs()
    app = create_app({"DATA_DIR": str(tmp_path / "d"), "KEEPALIVE": 5})
    table = app.extensions["quin.table"]
    pusher = Pusher(table, hub.url, key, backoff=(0.05, 0.3)).start()
    table.refresh()  # as quin serve --hub does before serving
    errors = []
    try:
        with running(app) as base:
            ctx = browser.new_context(viewport={"width": 390, "height": 844})
            page = ctx.new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"{base}/seat/{table.tokens['white']}")
            expect(page.locator("#who-code")).to_be_visible()
            page.fill("#who-name", "Annie")
            page.fill("#who-code", "qp_0000beef")
            page.click("#quick-start")
            page.click("#send-setup")
            expect(page.locator("#now")).to_contain_text("Player code: the club's hub does not know qp_0000beef; "
                                                         "check it with whoever runs the hub, or leave it empty "
                                                         "to play unrated.")
            assert table.row.setups["white"] is None and table.store.players(table.row.id) == {}
            page.fill("#who-code", code.upper())  # typed in capitals: the same code
            expect(page.locator("#now")).to_be_hidden()  # the refusal clears once the code is changed
            page.click("#send-setup")
            expect(page.locator("#send-setup")).to_have_text("Sent ✓")
            assert table.store.players(table.row.id) == {"white": {"name": "Annie", "code": code}}
            ctx.close()
    finally:
        pusher.stop()
    assert not errors, errors
