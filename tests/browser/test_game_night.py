"""Game night (issue 22): what a table of friends trips over, on a phone (390x844) and on a TV.

Each test looks at the pages at both sizes (``at_both_sizes``) and leaves its screenshots in
artifacts/screens/night-*.png.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.support.browsing import PHONE, TV, body_text
from tests.support.scripted import BLACK, WHITE, Hands, wait_for

from host.web.sim import board_key

SIZES = {"phone": PHONE, "tv": TV}


def at_both_sizes(page, artifacts, name, check=None):
    """Run ``check(page, size_name)`` at phone and TV size, with a screenshot of each."""
    folder = artifacts / "screens"
    folder.mkdir(exist_ok=True)
    natural = page.viewport_size
    for size_name, size in SIZES.items():
        page.set_viewport_size(size)
        page.wait_for_timeout(120)
        if check is not None:
            check(page, size_name)
        page.screenshot(path=str(folder / f"night-{name}-{size_name}.png"))
    page.set_viewport_size(natural)


def visible_text(page, selector) -> str:
    loc = page.locator(selector)
    expect(loc).to_be_visible()
    return loc.inner_text()


# --- 1. the practice opponent's move on every screen -------------------------------------------


class Robot:
    """A live server whose Black is the practice opponent; its decisions are scripted by the test
    (prefer a flash onto White's tower, else the first plain move), so the pages can be checked
    on a known move.  The pages under test only watch."""

    def __init__(self, browser, base, table):
        self.browser = browser
        self.base = base
        self.table = table
        self.hands = Hands(base, {"white": table.tokens["white"]}, board_key(table.host_key))
        self.errors: list[str] = []
        self.contexts = []

    def open(self, path, viewport):
        ctx = self.browser.new_context(viewport=viewport)
        self.contexts.append(ctx)
        page = ctx.new_page()
        page.on("pageerror", lambda e: self.errors.append(f"{path}: {e}"))
        page.goto(self.base + path)
        return page


@pytest.fixture
def robot(browser, tmp_path, monkeypatch):
    from engine.actions import Move
    from engine.board import SPACE_NAMES as N
    from engine.pieces import Setup
    from host.opponent import driver
    from host.opponent.driver import TableOpponent
    from host.board.simboard import SimulatedBoard
    from host.store import Store
    from host.session.table import Table
    from host.compose import create_app, start_ticker
    from host.web.events import Broker
    from tests.support.webtools import running

    holder = {}

    def scripted(seen, level, seed):
        game = holder["table"].game
        moves = [a for a in game.legal_actions() if type(a) is Move]
        white = set(game.towers_of("white"))
        onto = [a for a in moves if game.tower_at(a.to) in white]
        near = [a for a in moves if (N[a.frm], N[a.to]) == ("b38", "b36")]  # its Peripheral, 2 spaces
        return (onto or near or sorted(moves, key=lambda a: (a.frm, a.to)))[0]

    monkeypatch.setattr(driver, "choose", scripted)
    monkeypatch.setattr(driver, "choose_setup", lambda side, level, rng: Setup.from_record(side, BLACK))
    board = SimulatedBoard()
    opponent = TableOpponent("black", 1, seed=3, min_think=0.2)
    table = Table(Store(tmp_path / "quin.sqlite3"), Broker(keepalive=5), board=board, opponent=opponent)
    holder["table"] = table
    table.occupied = board.occupied
    table.open("classic")
    start_ticker(table, 0.05)
    app = create_app({"TABLE": table, "DATA_DIR": str(tmp_path)})
    with running(app, threads=24) as base:
        r = Robot(browser, base, table)
        try:
            yield r
        finally:
            for ctx in r.contexts:
                ctx.close()


def test_the_opponents_move_and_its_flash_show_on_every_screen_the_person_looks_at(robot, artifacts):
    status = robot.open("/", TV)
    phone = robot.open(f"/seat/{robot.table.tokens['white']}", PHONE)
    sim = robot.open("/board", TV)
    for page in (status, phone, sim):
        expect(page.locator("#conn")).to_have_text("live", timeout=10000)
    # Setup: Black has no phone; nobody is told it is ready "on their phone".
    expect(status.locator("#now")).to_contain_text("Black is the practice opponent: its lineup is chosen")
    assert "Black is ready on their phone" not in body_text(status)
    expect(sim.locator("#now")).to_contain_text("Black is the practice opponent")
    at_both_sizes(status, artifacts, "1-opponent-setup-status")

    robot.hands.setup("white", WHITE)
    expect(status.locator("#now")).to_contain_text("Black's towers need no faces", timeout=10000)
    robot.hands.start()
    robot.hands.move("w38", "w31")  # White's Shadow in; Black (the opponent) to move

    # Black's plain move: on the status page, the virtual board and White's phone, with its marks.
    plan = wait_for(lambda: (robot.hands.state()["opponent"] or {}).get("plan"), "the opponent's plan")
    assert not plan.get("flash"), plan
    words = f"Move Black's tower on {plan['from']} to {plan['to']}"
    for page in (status, sim, phone):
        expect(page.locator("#now")).to_contain_text(words, timeout=10000)
    assert "The board matches the game." not in body_text(sim)
    expect(phone.locator("#bar-status")).to_have_text("Make Black's move on the board, as shown above.")

    def plan_marked(page, size):
        assert visible_text(page, "#now").count(words) == 1
        expect(page.locator(f'[data-mark="{plan["from"]}"].mark-lift')).to_have_count(1)
        expect(page.locator(f'[data-mark="{plan["to"]}"].mark-place')).to_have_count(1)
        expect(page.locator(f'[data-arrow="{plan["from"]}-{plan["to"]}"].arrow-plan')).to_have_count(1)

    at_both_sizes(status, artifacts, "1-opponent-move-status", plan_marked)
    at_both_sizes(sim, artifacts, "1-opponent-move-board", plan_marked)
    at_both_sizes(phone, artifacts, "1-opponent-move-phone", plan_marked)
    # Half done: the tower is up; the red ring goes, the green one stays.
    robot.hands.toggle(plan["from"])
    expect(sim.locator(f'[data-mark="{plan["from"]}"].mark-lift')).to_have_count(0, timeout=10000)
    expect(sim.locator(f'[data-mark="{plan["to"]}"].mark-place')).to_have_count(1)
    n = robot.hands.actions()
    robot.hands.toggle(plan["to"])
    wait_for(lambda: robot.hands.actions() > n, "the opponent's move to be committed")

    # White's Shadow goes next to Black's towers; Black's next move is a flash onto it.
    robot.hands.move("w31", "b35")
    plan = wait_for(lambda: (robot.hands.state()["opponent"] or {}).get("plan"), "the opponent's plan")
    assert plan.get("flash") and plan["to"] == "b35", plan
    assert sorted(plan["lift"]) == sorted([plan["from"], "b35"]) and plan["place"] == [], plan
    for page, whose in ((status, "White's"), (sim, "White's"), (phone, "your")):
        expect(page.locator("#now h3")).to_have_text("Flash coming on b35", timeout=10000)
        expect(page.locator("#now")).to_contain_text(f"Black's tower on {plan['from']} flashes {whose} tower on b35")
        expect(page.locator("#now")).to_contain_text("Lift both towers")
        expect(page.locator("#now")).to_have_class("now flash")

    def flash_marked(page, size):
        # No green "+" on the person's own tower: both towers are to be lifted.
        expect(page.locator('[data-mark="b35"].mark-lift')).to_have_count(1)
        expect(page.locator('[data-mark="b35"].mark-place')).to_have_count(0)
        expect(page.locator('[data-burst="b35"]')).to_have_count(1)
        expect(page.locator("#now h3")).to_be_in_viewport()

    at_both_sizes(status, artifacts, "1-opponent-flash-status", flash_marked)
    at_both_sizes(sim, artifacts, "1-opponent-flash-board", flash_marked)
    at_both_sizes(phone, artifacts, "1-opponent-flash-phone", flash_marked)
    # The LEDs light both towers red.
    from engine.board import parse_space

    assert robot.table.leds.get(parse_space("b35")) == (255, 0, 0)
    robot.hands.flash(plan["from"], "b35")
    for page in (status, sim, phone):
        expect(page.locator("#now h3")).not_to_have_text("Flash coming on b35", timeout=10000)
    assert robot.errors == []


def test_starting_the_opponent_over_a_game_two_people_play_asks_first(tmp_path):
    """`quin serve --opponent black` over a game in progress silently took Black's seat (its phone
    then said a new game had started).  Not in a terminal it now refuses in one line and says how;
    --take-over hands the seat over."""
    from tests.support.served import Served, url_of
    from tests.support.webtools import get_json

    data = tmp_path / "data"
    served = Served(data)
    try:
        lines = served.until("black seat:")
        white, black = url_of(lines, "white seat"), url_of(lines, "black seat")
        base = white.split("/seat/")[0]
        board = url_of(lines, "virtual board").rsplit("/", 1)[1]  # the board key, printed with the seats
        hands = Hands(base, {"white": white.rsplit("/", 1)[1], "black": black.rsplit("/", 1)[1]}, board)
        hands.setup("white", WHITE)
        hands.setup("black", BLACK)
        assert get_json(base + "/api/state")[1]["phase"] == "playing"
    finally:
        served.stop()
    refused = Served(data, "--opponent", "black")
    try:
        assert refused.proc.wait(30) == 2
        err = refused.proc.stderr.read()
        assert "game 1 is being played by two people" in err and "--take-over" in err, err
        assert err.count("\n") == 1, err  # one line, no traceback
    finally:
        refused.stop()
    taken = Served(data, "--opponent", "black", "--take-over")
    try:
        lines = taken.until("black seat:")
        assert any("game 1 (classic): playing" in line for line in lines), lines
        assert any("played by the practice opponent" in line for line in lines), lines
    finally:
        taken.stop()


# --- 2. a seat follows the table from game to game ---------------------------------------------


def test_a_new_game_carries_both_phones_to_it_on_the_same_links(live, artifacts):
    """Every new game killed both seat links: the old page said "This seat link no longer works" and
    the players scanned new codes for each game of the evening."""
    from tests.support.scripted import to_the_end, to_first_flash

    tokens = dict(live.table.tokens)
    for page in live.pages.values():
        expect(page.locator("#conn")).to_have_text("live", timeout=10000)
    to_first_flash(live.hands)
    to_the_end(live.hands)
    expect(live.white.locator("#turn")).to_have_text("White wins: Black's Light is captured", timeout=10000)
    host = live.open(f"/host/{live.table.host_key}", PHONE)
    white_link = host.locator('[data-seat="white"] a').get_attribute("href")
    host.click("#new-game")
    dialog = host.locator("dialog")
    expect(dialog).to_contain_text("The phones stay seated")
    assert "abandoned" not in dialog.inner_text()  # the game is over: nothing is abandoned
    host.click('dialog [data-confirm="yes"]')
    expect(host.locator("#game-title")).to_have_text("Game 2: choosing lineups")
    expect(host.locator("#host-note")).to_contain_text("the codes stay the same")
    assert host.locator('[data-seat="white"] a').get_attribute("href") == white_link
    assert live.table.tokens == tokens
    for player in ("white", "black"):
        page = live.pages[player]
        # Carried to game 2 without a reload or a new code: still live, choosing a lineup.
        expect(page.locator("#turn")).to_have_text("Choose your lineup", timeout=10000)
        expect(page.locator("#conn")).to_have_text("live")
        expect(page.locator("#send-setup")).to_have_text("Ready")
        assert "no longer works" not in body_text(page)
        assert page.evaluate("location.pathname") == f"/seat/{tokens[player]}"

        def fresh(page, size):
            expect(page.locator("#setup")).to_be_visible()
            expect(page.locator("#spaces button.empty")).to_have_count(10)
        at_both_sizes(page, artifacts, f"2-carried-to-game-2-{player}", fresh)
    # The carried phones play game 2.
    live.white.click("#quick-start")
    live.white.click("#send-setup")
    expect(live.white.locator("#send-setup")).to_have_text("Sent ✓")
    wait_for(lambda: live.table.row.id == 2 and live.table.row.setups["white"] is not None, "white's setup in game 2")
    expect(live.black.locator("#sub")).to_have_text("White is ready", timeout=10000)
    at_both_sizes(host, artifacts, "2-host-after-new-game")
    assert live.errors == []


# --- 3. moving out of turn ------------------------------------------------------------------------


def test_a_move_out_of_turn_is_said_once_on_every_screen_naming_who_and_what_to_put_back(live, artifacts):
    """The phone of the player who moved out of turn said nothing, the other was told to fix their
    rival's tower, and the status page added "...or finish the move"."""
    live.hands.setup("white", WHITE)
    live.hands.setup("black", BLACK)
    live.hands.start()
    live.hands.move("w38", "w31")
    expect(live.black.locator("#turn")).to_have_text("Your move", timeout=10000)
    live.hands.toggle("w18", "w17")  # White moves again: Black is to move
    said = {
        "white": ("You moved out of turn", "It is Black's move. Put it right: move your tower from w17 back to w18."),
        "black": ("White moved out of turn", "It is your move. White puts it right: move White's tower from w17 back to w18."),
        "status": ("White moved out of turn", "It is Black's move. Put it back: move White's tower from w17 back to w18."),
        "board": ("White moved out of turn", "It is Black's move. Put it back: move White's tower from w17 back to w18."),
    }
    for name, (title, line) in said.items():
        page = live.pages[name]
        expect(page.locator("#now h3")).to_have_text(title, timeout=10000)
        expect(page.locator("#now")).to_contain_text(line)

        def once(page, size, line=line):
            text = body_text(page)
            assert text.count("w17 back to w18") == 1, text  # said once
            assert "finish the move" not in text and "Put it right: Move" not in text, text
            expect(page.locator("#now h3")).to_be_in_viewport()
            expect(page.locator('[data-mark="w17"].mark-lift')).to_have_count(1)
            expect(page.locator('[data-mark="w18"].mark-place')).to_have_count(1)
        at_both_sizes(page, artifacts, f"3-out-of-turn-{name}", once)
    # Put back: every screen says nothing more of it, and Black plays on.
    live.hands.toggle("w17", "w18")
    for page in live.pages.values():
        expect(page.locator("#now")).not_to_contain_text("out of turn", timeout=10000)
    live.hands.move("b18", "b17")
    assert live.errors == []


def test_lifting_a_rival_tower_for_a_flash_is_not_called_out_of_turn(live):
    live.hands.setup("white", WHITE)
    live.hands.setup("black", BLACK)
    live.hands.start()
    live.hands.move("w38", "w31")
    live.hands.move("b18", "b17")
    live.hands.move("w31", "b35")
    live.hands.move("b17", "b16")
    live.hands.toggle("b38")  # White lifts the tower its Shadow will flash, first, and waits
    live.status.wait_for_timeout(2500)
    for page in live.pages.values():
        assert "out of turn" not in body_text(page)
    live.hands.toggle("b35")  # then lifts its Shadow: the flash
    expect(live.status.locator("#turn")).to_have_text("Flash on b38", timeout=10000)


# --- 4. the phone board, readable --------------------------------------------------------------

MIN_BOARD_PX = 11  # a space's name, at arm's length
MIN_TEXT_PX = 12   # any other text

SMALL_TEXT = """(args) => {
  const [minBoard, minText] = args;
  const out = [];
  const shown = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0 && el.checkVisibility(); };
  for (const t of document.querySelectorAll("svg.board text")) {
    if (!shown(t)) continue;
    const px = parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a;
    if (px < minBoard - 0.01) out.push(`board ${t.textContent}: ${px.toFixed(1)}px`);
  }
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode, el = node.parentElement;
    if (!node.textContent.trim() || !el || el.closest("svg") || el.closest(".sr") || !shown(el)) continue;
    const px = parseFloat(getComputedStyle(el).fontSize);
    if (px < minText) out.push(`${el.tagName.toLowerCase()}.${el.className} "${node.textContent.trim().slice(0, 30)}": ${px}px`);
  }
  return out;
}"""


def small_text(page) -> list[str]:
    return page.evaluate(SMALL_TEXT, [MIN_BOARD_PX, MIN_TEXT_PX])


def axe_bad(page) -> list:
    from axe_playwright_python.sync_playwright import Axe

    result = Axe().run(page)
    return [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3]) for v in result.response["violations"]
            if v["impact"] in ("serious", "critical")]


def test_the_phone_board_names_its_spaces_legibly_and_finds_the_named_ones_at_a_glance(live, artifacts):
    """Space labels were about 6 px tall on a phone, tower discs about 20 px and over their own labels,
    and an instruction's "b35" was hard to find."""
    from tests.support.scripted import to_first_flash

    to_first_flash(live.hands)  # the flash on b38: White's phone names b35 and b38
    phone = live.white
    expect(phone.locator("#now h3")).to_contain_text("captures", timeout=10000)
    named = sorted(phone.locator("#board [data-callout]").evaluate_all("els => els.map((e) => e.dataset.callout)"))
    marked = sorted(phone.locator("#board .mark-lift, #board .mark-place").evaluate_all(
        "els => els.map((e) => e.dataset.mark)"))
    assert named == marked and named, (named, marked)

    def legible(page, size):
        assert small_text(page) == [], small_text(page)
        for space in named:  # each named space is labelled large, on screen, at once
            expect(page.locator(f'#board [data-callout="{space}"] text')).to_have_text(space)
            expect(page.locator(f'#board [data-callout="{space}"]')).to_be_in_viewport()
        assert axe_bad(page) == []

    at_both_sizes(phone, artifacts, "4-phone-board-named", legible)
    # A close look: every space's name legible, the towers large.
    phone.set_viewport_size(PHONE)
    phone.click("#zoom")
    expect(phone.locator("#zoom")).to_have_text("Whole board")

    def close_look(page, size):
        assert small_text(page) == [], small_text(page)
        expect(page.locator('#board [data-label="b38"]')).to_be_visible()
        # the page redraws the board after a resize: measure the disc once it is drawn again
        tower = page.locator('#board [data-tower="b35"] circle')
        expect(tower).to_be_visible()
        disc = tower.bounding_box()
        if size == "phone":
            assert disc["width"] >= 30, disc  # a tower is a thumb's width, not 15 px
        for space in named:
            expect(page.locator(f'#board [data-callout="{space}"]')).to_be_in_viewport()

    at_both_sizes(phone, artifacts, "4-phone-board-zoomed", close_look)
    phone.click("#zoom")
    expect(phone.locator("#zoom")).to_contain_text("Zoom in")
    for name in ("status", "board"):
        at_both_sizes(live.pages[name], artifacts, f"4-{name}-labels",
                      lambda page, size: (assert_empty(small_text(page)), expect(page.locator("#board [data-callout]").first).to_be_visible()))
    assert live.errors == []


def assert_empty(found):
    assert found == [], found


# --- 5. Zero Gravity says what is what ------------------------------------------------------------


def test_zero_gravity_labels_captured_towers_and_names_each_piece_once_per_line(live, artifacts):
    """"6 waiting to come in [Peripheral][Time][Void]": the chips were captured rival towers under a
    visually hidden label, and on phones some pieces appeared twice in one card."""
    from tests.support.scripted import to_first_flash

    to_first_flash(live.hands)
    live.hands.finish("b38")  # White's Shadow captures Black's Peripheral; White's Time tower sits in Black's
    expect(live.status.locator("#turn")).to_have_text("Black to move", timeout=10000)
    pieces = ["Light", "Shadow", "Artificial Light", "Reflector", "Memory", "Time", "Peripheral", "Void"]

    def clear(page, size):
        for block in page.locator("#zg .zg").all():
            expect(block.locator(".zg-name")).to_be_visible()
            for line in block.locator(".zg-line").all():
                text = line.inner_text()
                for piece in pieces:
                    others = text.replace("Artificial Light", "") if piece == "Light" else text
                    assert others.count(piece) <= 1, text  # each piece once, "×2" for two
        white = page.locator('#zg [data-zg="white"]')
        # The captured towers are labelled as such, visibly, and are not "waiting to come in".
        expect(white.locator(".zg-line", has=page.locator(".chip"))).to_contain_text("Captured from Black:")
        expect(white.locator(".chip")).to_have_text(["Peripheral"])
        expect(white.locator(".zg-wait")).not_to_contain_text("Peripheral")
        black = page.locator('#zg [data-zg="black"]')
        expect(black.locator(".zg-line", has=page.locator(".chip"))).to_contain_text("Captured from White:")
        expect(black.locator(".chip")).to_have_text(["Time"])
        page.locator("#zg").scroll_into_view_if_needed()

    at_both_sizes(live.status, artifacts, "5-zero-gravity-status", clear)
    at_both_sizes(live.white, artifacts, "5-zero-gravity-white", clear)
    expect(live.white.locator('#zg [data-zg="white"] .zg-name')).to_have_text("Your Zero Gravity")
    expect(live.white.locator('#zg [data-zg="white"] .zg-wait')).to_contain_text("Waiting to come in: 7 (Artificial Light ×4")
    assert live.errors == []


# --- 6. smaller things ----------------------------------------------------------------------------


def test_quin_export_refuses_a_game_still_being_played_unless_forced(tmp_path):
    import json
    import subprocess

    from tests.support.browsing import ROOT
    from tests.support.quin_cmd import QUIN

    from host.compose import create_app

    app = create_app({"DATA_DIR": str(tmp_path), "TICK": 0})
    table = app.extensions["quin.table"]
    client = app.test_client()
    for player, setup in (("white", WHITE), ("black", BLACK)):
        token = table.tokens[player]
        assert client.post(f"/api/seat/{token}/setup", json=setup, headers={"X-Seat-Token": token}).status_code == 200
    assert table.phase == "playing"
    table.store.close()
    cmd = [*QUIN, "export", "1", "--data-dir", str(tmp_path)]
    refused = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and refused.stdout == "", refused
    assert refused.stderr == ("quin: game 1 is still being played: its record holds both players' hidden lineups; "
                              "add --force to write it anyway\n"), refused.stderr
    forced = subprocess.run(cmd + ["--force"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert forced.returncode == 0, forced.stderr
    assert json.loads(forced.stdout)["format"] == "quin-record/1"


def test_quin_serve_in_the_background_says_where_the_seat_codes_are(tmp_path):
    from tests.support.served import Served

    served = Served(tmp_path / "data")  # with --show-links: the codes are printed, the steps say so plainly
    try:
        text = "\n".join(served.until("Stop with Ctrl-C"))
        assert "Each player scans their own seat code with their phone" in text
    finally:
        served.stop()
    import subprocess

    from tests.support.browsing import ROOT
    from tests.support.quin_cmd import QUIN

    proc = subprocess.Popen([*QUIN, "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", str(tmp_path / "data"),
                             "--no-qr"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    background = Served.__new__(Served)
    background.proc = proc
    import queue
    import threading

    background.lines = queue.Queue()
    threading.Thread(target=background._read, daemon=True).start()
    try:
        text = "\n".join(background.until("Stop with Ctrl-C"))
        assert "/seat/" not in text  # not a terminal: no secrets in a log
        assert "Each player scans their own seat code (`quin links`, run in a terminal, prints the codes)" in text
    finally:
        background.stop()


def test_printed_links_carry_the_address_for_phones_that_cannot_resolve_the_name():
    import io

    from host.commands.serve_cmds import print_links

    out = io.StringIO()
    print_links(out, "http://quin.local:8000", "KEY", {"white": "W", "black": "B"}, qr=False,
                by_address="http://192.168.1.20:8000")
    lines = out.getvalue().splitlines()
    assert lines == [
        "  host page:     http://quin.local:8000/host/KEY",
        "    by address:  http://192.168.1.20:8000/host/KEY",
        "  white seat:    http://quin.local:8000/seat/W",
        "    by address:  http://192.168.1.20:8000/seat/W",
        "  black seat:    http://quin.local:8000/seat/B",
        "    by address:  http://192.168.1.20:8000/seat/B",
    ]


def boxes_meet(a, b) -> bool:
    return not (a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
                or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"])


def test_a_toast_covers_neither_the_sheet_nor_the_lists(live, artifacts):
    phone = live.white
    phone.click("#quick-start")
    phone.click("#saved-lineups")
    phone.click("#save-lineup")
    phone.click('dialog [data-confirm="yes"]')
    toast = phone.locator("#toast")
    expect(toast).to_contain_text("on this phone")

    def clear(page, size):
        expect(page.locator("#sheet")).to_be_visible()
        page.evaluate("Quin.toast('Saved “Lineup 1” on this phone.', '', 4000)")  # the same toast, shown again
        assert not boxes_meet(toast.bounding_box(), page.locator("#sheet").bounding_box())
        assert not boxes_meet(toast.bounding_box(), page.locator(".actionbar").bounding_box())

    at_both_sizes(phone, artifacts, "6-toast-and-sheet", clear)
    # In play: a flash's toast sits in the page, over none of the lists either.
    from tests.support.scripted import to_first_flash

    to_first_flash(live.hands)
    live.hands.finish("b38")
    page = live.black
    expect(page.locator("#toast")).to_contain_text("captures", timeout=10000)
    said = page.locator("#toast").inner_text()

    def in_page(page, size):
        page.evaluate("(t) => Quin.toast(t, 'flash', 8000)", said)
        t = page.locator("#toast").bounding_box()
        for part in ("#zg", "#log", "#now", ".actionbar", "#board"):
            if page.locator(part).is_visible():
                assert not boxes_meet(t, page.locator(part).bounding_box()), part

    at_both_sizes(page, artifacts, "6-toast-in-play", in_page)


def test_the_history_fits_a_phone_and_the_status_page_fits_a_tv(live, artifacts):
    status = live.status

    def fits(page, size):
        width, height = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
        assert width <= page.viewport_size["width"], (size, width)
        if size == "tv":
            assert height <= page.viewport_size["height"], (size, height)  # no scrolling on the TV

    expect(status.locator("#conn")).to_have_text("live", timeout=10000)
    at_both_sizes(status, artifacts, "6-status-setup", fits)
    live.hands.setup("white", WHITE)
    live.hands.setup("black", BLACK)
    live.hands.start()
    live.hands.move("w38", "w31")
    expect(status.locator("#turn")).to_have_text("Black to move", timeout=10000)
    at_both_sizes(status, artifacts, "6-status-playing", fits)
    live.table.new_game()
    history = live.open("/history", PHONE)
    expect(history.locator("#games tr")).to_have_count(2)

    def links_on_screen(page, size):
        fits(page, "phone")
        for link in page.locator('#games a[href^="/history/"]').all():
            expect(link).to_be_in_viewport()

    at_both_sizes(history, artifacts, "6-history", links_on_screen)


def test_setting_out_the_lineups_is_an_instruction_not_an_alarm_and_piece_names_are_capitalised(live, artifacts):
    live.hands.setup("white", WHITE)
    live.hands.setup("black", BLACK)
    phone = live.white
    expect(phone.locator("#now h3")).to_have_text("Put your lineup on the board", timeout=10000)

    def calm(page, size):
        assert "problem" not in page.locator("#now").get_attribute("class")
        assert page.locator('#now [role="alert"]').count() == 0

    at_both_sizes(phone, artifacts, "6-setup-instruction", calm)
    live.hands.start()
    live.hands.toggle("w18", "w14")  # White's Peripheral: one space too far
    expect(phone.locator("#now")).to_contain_text("but a Peripheral moves at most 3", timeout=10000)
    assert "a peripheral" not in body_text(phone)


# --- 7. a game that ends well ----------------------------------------------------------------------


def test_the_end_reveals_every_tower_shows_the_winning_move_and_offers_play_again_and_the_replay(live, artifacts):
    """The phones said "The game is over." and nothing else, the status page kept every identity
    hidden, and the host page said "an unfinished game is abandoned" after a finished one."""
    from tests.support.scripted import to_first_flash, to_the_end

    to_first_flash(live.hands)
    to_the_end(live.hands)
    towers = len(live.hands.state()["view"]["board"])
    flash = {"status": "White's Shadow captures Black's Light", "white": "Your Shadow captures Black's Light",
             "black": "White's Shadow captures your Light"}
    for name in flash:
        winning = f"The winning move: White b38 → b39 ({flash[name]} on b39)."
        page = live.pages[name]
        expect(page.locator("#turn")).to_have_text("White wins: Black's Light is captured", timeout=10000)

        def ended(page, size, name=name, winning=winning):
            end = page.locator("#result")
            expect(end).to_contain_text(winning)
            expect(end).to_contain_text("Every tower is shown now")
            # Every tower on the board shows its face, to everyone.
            expect(page.locator("#board .tower use.face")).to_have_count(towers)
            expect(end.locator("a.replay-link")).to_have_attribute("href", "/history/1")
            if name == "status":
                expect(end).to_contain_text("Play again: both players tap Play again on their phones (Black moves first).")
                if size == "tv":  # the whole end on the TV, without scrolling
                    height = page.evaluate("document.documentElement.scrollHeight")
                    assert height <= TV["height"], height
                    expect(end).to_be_in_viewport(ratio=1)
            else:
                expect(page.locator("#again")).to_be_visible()
                expect(page.locator("#again")).to_have_text("Play again")
                expect(page.locator("#again")).to_be_in_viewport()
                assert "The game is over." not in body_text(page)

        at_both_sizes(page, artifacts, f"7-end-{name}", ended)
    # The host page, after a finished game: nothing is abandoned, and the loser is offered the first move.
    host = live.open(f"/host/{live.table.host_key}", PHONE)
    assert host.locator("#first").input_value() == "black"
    # Play again: White asks, Black is told, Black agrees: both phones are carried to game 2, Black first.
    live.white.click("#again")
    expect(live.white.locator("#again")).to_have_text("Asked ✓")
    expect(live.black.locator("#result")).to_contain_text("White asked to play again; waiting for you (Black moves first).")
    expect(live.status.locator("#result")).to_contain_text("White asked to play again; waiting for Black")
    at_both_sizes(live.black, artifacts, "7-asked-black")
    live.black.click("#again")
    for page in (live.white, live.black):
        expect(page.locator("#turn")).to_have_text("Choose your lineup", timeout=10000)
    state = live.hands.state()
    assert state["game"] == 2 and state["first"] == "black" and state["phase"] == "setup"
    expect(live.status.locator("#sub")).to_have_text("Black moves first")
    # The replay link of the finished game.
    replay = live.open("/history/1", PHONE)
    expect(replay.locator("#summary")).to_contain_text("White wins: Black's Light is captured")
    assert live.errors == []


def test_play_again_is_refused_while_the_game_is_on(live):
    live.hands.setup("white", WHITE)
    live.hands.setup("black", BLACK)
    from tests.support.webtools import post_json

    token = live.table.tokens["white"]
    status, body = post_json(f"{live.base}/api/seat/{token}/again", {}, {"X-Seat-Token": token})
    assert status == 400 and body["error"] == "the game is not over: play again once it has ended"
    assert live.table.row.id == 1
    status, body = post_json(f"{live.base}/api/seat/{token}/again", {}, {})
    assert status == 403


def test_the_replay_shows_the_game_at_a_glance_with_its_turning_points_linked_to_their_moments(live, artifacts):
    from tests.support.scripted import to_first_flash, to_the_end
    from tests.support.webtools import get_json

    to_first_flash(live.hands)
    # While the game is on, the replay holds no estimate (it would need the hidden identities).
    body = get_json(f"{live.base}/api/games/1")[1]
    assert "turning_points" not in body and all("white_chance" not in f for f in body["frames"])
    to_the_end(live.hands)
    body = get_json(f"{live.base}/api/games/1")[1]
    chances = [f["white_chance"] for f in body["frames"]]
    assert chances[-1] == 1.0 and all(0 <= c <= 1 for c in chances)  # White won
    turning = body["turning_points"]
    assert turning and all(abs(t["white_after"] - t["white_before"]) >= 0.2 for t in turning), turning
    page = live.open("/history/1", PHONE)
    expect(page.locator("#step-label")).to_have_text("Start")

    def glance(page, size):
        chart = page.locator("#chart")
        expect(chart).to_be_visible()
        expect(chart.locator("polygon")).to_have_count(4)  # each side on the board and in Zero Gravity
        expect(chart.locator("polyline.chance")).to_have_count(1)
        expect(chart.locator("a[data-turning]")).to_have_count(len(turning))
        expect(page.locator("#turning a")).to_have_count(len(turning))
        assert small_text(page) == [], small_text(page)
        assert axe_bad(page) == []

    at_both_sizes(page, artifacts, "7-replay-glance", glance)
    # Each turning point is a link to that moment.
    last = turning[-1]
    page.locator("#turning a").last.click()
    expect(page.locator("#step-label")).to_contain_text(f"Step {last['step']} of {len(chances) - 1}")
    assert page.evaluate("location.hash") == f"#step={last['step']}"
    x = float(page.locator("#chart-now").get_attribute("x1"))
    dot = float(page.locator(f'#chart a[data-turning="{last["step"]}"] circle').get_attribute("cx"))
    assert abs(x - dot) < 0.01
    page.locator("#chart a[data-turning]").first.click()
    expect(page.locator("#step-label")).to_contain_text(f"Step {turning[0]['step']} of")
    at_both_sizes(page, artifacts, "7-replay-turning-point")
    assert live.errors == []


def test_play_again_against_the_practice_opponent_takes_one_tap_and_the_loser_moves_first(tmp_path):
    """The table's rule, without a browser: against the opponent only the person's phone is asked."""
    from engine.actions import Move
    from engine.board import parse_space
    from host.opponent.driver import TableOpponent
    from host.board.simboard import SimulatedBoard
    from host.store import Store
    from host.session.table import Table, TableError
    from host.web.events import Broker

    table = Table(Store(tmp_path / "quin.sqlite3"), Broker(), board=SimulatedBoard())
    table.open("classic")
    table.submit_setup("white", WHITE)
    table.submit_setup("black", BLACK)
    with pytest.raises(TableError, match="the game is not over"):
        table.play_again("white")
    for a, b in [("w38", "w31"), ("b18", "b17"), ("w31", "b35"), ("b17", "b16"), ("b35", "b38"), ("b28", "b27"),
                 ("b38", "b39")]:
        table.game.push(Move(parse_space(a), parse_space(b)))  # the game's moves (the referee is not under test)
    assert table.phase == "over"
    # Two people: the rematch waits for both, then Black (the loser) moves first.
    public = table.state(None)
    assert public["revealed"] and public["again"] == {"asked": [], "first": "black", "needs": ["black", "white"]}
    assert all(t["piece"] for t in public["view"]["board"])  # every identity, to everyone
    assert table.play_again("white") is None and table.state("black")["again"]["asked"] == ["white"]
    assert table.row.id == 1
    # Against the opponent (Black here), the person's one tap starts it; the opponent sets up at once.
    table.opponent = TableOpponent("black", 0, seed=1, threaded=False, min_think=0)
    table.rematch.clear()
    assert table.state(None)["again"]["needs"] == ["white"]
    assert table.play_again("white") == 2
    assert table.row.first == "black" and table.row.mode == "classic"
    assert table.row.setups["black"] is not None and table.row.setups["white"] is None
    assert "revealed" not in table.state(None) and "again" not in table.state(None)
