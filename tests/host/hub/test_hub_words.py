"""The hub's pages in words, in Chromium: players, results, modes and statuses as the board's status
page says them; a game's moves in the status page's own move list; a replay that steps moves; every
page fitting a laptop (1366x768) and a phone (390x844) without scrolling sideways; axe-core with no
violation on any page."""

from axe_playwright_python.sync_playwright import Axe
from tests.support.hub_client import request
from tests.support.hubproc import wait_for
from playwright.sync_api import expect
from tests.support.wall_tables import NAMES, play, tables

SCREENS = [(1366, 768), (390, 844)]
RAW = ("third_eye", "first_sight", "light_captured", "? –", "– ?", "over:", "abandoned", "live")


def rewinds(view: dict) -> list[tuple[int, str]]:
    """(the turn undone, whose Time undid it) of every Power of Time that rewound, from the game's
    public view (the rulebook: Time undoes the rival's last action)."""
    by_turn = {t["turn"]: t for t in view["history"]}
    return [(e["turn"] - 1, by_turn[e["turn"]]["player"]) for e in view["events"]
            if e["type"] == "time" and e.get("outcome") == "rewound" and e["turn"] - 1 in by_turn]


def test_the_archive_and_a_game_speak_the_status_pages_words_and_the_replay_steps_moves(db, hubs, browser):
    dsn, _ = db
    hub = hubs()
    games = tables(dsn, hub.url, 6)
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(hub.url + "/archive")
    expect(page.locator("#rows tr")).to_have_count(6)
    rows = {r.locator("td").first.inner_text(): r.locator("td").all_inner_texts() for r in page.locator("#rows tr").all()}
    # live games' players by the names the wall shows; the practice opponent by that name
    assert rows["Table 1"] == ["Table 1", "Classic", f"{NAMES[0]} (White) – {NAMES[1]} (Black)", "Being played", "", ""]
    assert rows["Table 2"][2] == f"{NAMES[2]} (White) – practice opponent (Black)"
    assert rows["Table 3"][1] == "Third Eye"
    finished = rows["Table 5"]  # seed 19: Black's Light reaches First Sight
    assert finished[3:5] == ["Finished", "Black wins: Black's Light reaches First Sight"]
    text = page.inner_text("main")
    for raw in RAW:
        assert raw not in text, raw
    # the filters offer words and search by them
    page.select_option("select[name=mode]", label="Third Eye")
    page.click("button:text('Search')")
    expect(page.locator("#rows tr")).to_have_count(2)
    page.select_option("select[name=mode]", label="any mode")
    page.select_option("select[name=status]", label="Finished")
    page.click("button:text('Search')")
    expect(page.locator("#rows tr")).to_have_count(1)

    # the finished game, replayed: one step a move, the board's own move list
    game, views = play(19, 400)
    final = views[-1]
    turns = len(final["history"])
    page.goto(f"{hub.url}/games/{games[4]}")
    expect(page.locator("#pos")).to_have_text(f"Move {turns} of {turns}")
    expect(page.locator("#line")).to_have_text("Black wins: Black's Light reaches First Sight")
    expect(page.locator("#moves li")).to_have_count(turns)
    undone = rewinds(final)
    assert undone, "seed 19's game has a Time that rewinds"
    for turn, by in undone:  # "undone by White's Time", as the status page says it
        li = page.locator("#moves li").nth(turn - 1)
        expect(li).to_contain_text(f"undone by {by.capitalize()}'s Time")
        expect(li.locator("s.rewound")).to_have_count(1)
    page.click("#prev")
    expect(page.locator("#pos")).to_have_text(f"Move {turns - 1} of {turns}")
    expect(page.locator("#moves li")).to_have_count(turns - 1)
    page.click("#first")
    expect(page.locator("#pos")).to_contain_text("Before the first move")
    expect(page.locator("#prev")).to_be_disabled()
    page.keyboard.press("ArrowRight")
    expect(page.locator("#pos")).to_have_text(f"Move 1 of {turns}")
    # the board at move 1 is the game after its first turn
    first_turn = next(i for i, v in enumerate(views) if len(v["history"]) == 1 and
                      (i + 1 == len(views) or len(views[i + 1]["history"]) > 1))
    expect(page.locator("svg#board g.tower")).to_have_count(len(views[first_turn]["board"]))
    assert not errors, errors


def test_every_hub_page_fits_a_laptop_and_a_phone_and_axe_finds_nothing(db, hubs, browser):
    dsn, _ = db
    hub = hubs()
    games = tables(dsn, hub.url, 6)
    axe = Axe()
    paths = {"wall": "/", "archive": "/archive", "game": f"/games/{games[0]}", "replay": f"/games/{games[4]}",
             "leaderboard": "/leaderboard", "play": "/play"}
    ready = {"wall": "a.tbl svg.board g.tower", "archive": "#rows tr", "game": "#moves li", "replay": "#moves li",
             "leaderboard": "#count", "play": "#new-game"}
    found, wide = [], []
    for w, h in SCREENS:
        for name, path in paths.items():
            page = browser.new_page(viewport={"width": w, "height": h})
            page.goto(hub.url + path)
            page.locator(ready[name]).first.wait_for(state="attached")
            page.wait_for_timeout(300)  # one layout after the data
            width = page.evaluate("document.documentElement.scrollWidth")
            if width > w:
                wide.append((name, w, width))
            for v in axe.run(page).response["violations"]:
                found.append((name, w, v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3]))
            page.close()
    assert wide == [], wide
    assert found == [], found


def test_pages_say_in_words_that_the_database_is_away(db, hubs, browser, cluster):
    """While the hub's database is away (its routes answer 503), the game page and the leaderboard
    say so in a line, rather than "undefined" or an empty table; the archive too."""
    dsn, _ = db
    hub = hubs()
    games = tables(dsn, hub.url, 1)
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    away = "The hub cannot reach its database just now: reload this page in a moment."
    cluster.stop()
    try:
        wait_for(lambda: request(hub.url + "/api/health")[0] == 503, "the hub to say its database is away", 20)
        page.goto(f"{hub.url}/games/{games[0]}")
        expect(page.locator("#title")).to_have_text("This game cannot be shown now")
        expect(page.locator("#line")).to_have_text(away)
        page.goto(hub.url + "/leaderboard")
        expect(page.locator("#count")).to_have_text(away)
        page.goto(hub.url + "/archive")
        expect(page.locator("#count")).to_have_text(away)
        assert "undefined" not in page.inner_text("body")
    finally:
        cluster.start()
    wait_for(lambda: request(hub.url + "/api/health")[0] == 200, "the hub to reach its database again", 20)
    page.goto(f"{hub.url}/games/{games[0]}")
    expect(page.locator("#title")).to_contain_text("Table 1")
    assert not errors, errors


def test_the_leaderboard_ranks_only_players_with_a_rated_game(db, hubs, browser):
    """Players the hub knows who have played no rated game are not ranked ("1 Ann 0.0 0"): the board
    says there is no rated game yet; once one has a rated game, only they are listed, first."""
    import psycopg

    from tests.support.hubproc import quin

    dsn, _ = db
    for name in ("Ann", "Bob"):
        quin("hub", "add-player", name, "--db", dsn)
    hub = hubs()
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    page.goto(hub.url + "/leaderboard")
    expect(page.locator("#count")).to_contain_text("No rated game yet")
    expect(page.locator("#rows tr")).to_have_count(0)
    with psycopg.connect(dsn) as conn:  # Bob's first rated game, as the ratings would record it
        conn.execute("UPDATE hub_players SET games = 1, mu = 27.6, sigma = 7.2 WHERE name = 'Bob'")
    page.reload()
    expect(page.locator("#rows tr")).to_have_count(1)
    expect(page.locator("#rows tr").first).to_contain_text("Bob")
    expect(page.locator("#count")).to_have_text("")
