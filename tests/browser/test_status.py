"""The status page (a TV across the table) and the virtual board: icons, the last action and Time on the
board, short counts instead of lists, present tense, one way to say the result, confirmed board resets."""

import subprocess

from playwright.sync_api import expect

from tests.support.browsing import ROOT, TV, body_text
from tests.support.quin_cmd import QUIN
from tests.support.scripted import BLACK, WHITE, to_first_flash, to_the_end, wait_for


def test_setup_is_present_tense_and_the_board_is_a_short_count_not_a_list(live):
    status = live.status
    expect(status.locator("#turn")).to_have_text("Choosing lineups")
    expect(status.locator("#sub")).to_have_text("White moves first")
    expect(status.locator("#now")).to_contain_text("White is choosing a lineup on their phone.")
    live.hands.setup("white", WHITE)
    expect(status.locator("#now")).to_contain_text("White is ready")
    live.hands.setup("black", BLACK)
    for page in (status, live.board):
        expect(page.locator("#turn")).to_have_text("Set up the board", timeout=10000)
        expect(page.locator("#now")).to_contain_text("Put 20 towers on the green spaces.")
        expect(page.locator("svg.board circle.mark-place")).to_have_count(20)
        assert "put a tower on" not in body_text(page)  # no wall of twenty instructions
    live.hands.toggle("w19", "w29")
    expect(status.locator("#now")).to_contain_text("Put 18 towers on the green spaces.")
    live.hands.start()
    expect(status.locator("#turn")).to_have_text("White to move", timeout=10000)
    expect(status.locator("#now")).to_be_hidden()
    # An empty Zero Gravity reads as such: no "· reserve 7".
    zg = status.locator("#zg").inner_text()
    assert "reserve" not in zg and "White's Zero Gravity Waiting to come in: 7" in " ".join(zg.split())


def test_the_last_action_a_time_rewind_a_flash_and_the_result_are_drawn_on_the_board(live):
    status = live.status
    seen = {}

    def during_time():
        expect(status.locator("#turn")).to_have_text("White's Power of Time", timeout=10000)
        expect(status.locator("#now h3")).to_have_text("White's Time rewinds Black's last move")
        expect(status.locator("#now")).to_contain_text("Put White's Time tower from w28 on Black's Zero Gravity.")
        expect(status.locator("#now")).to_contain_text("Move Black's tower on b17 back to b18.")
        expect(status.locator('svg.board [data-arrow="b17-b18"].arrow-time')).to_have_count(1)
        expect(live.black.locator("#now")).to_contain_text("Move your tower on b17 back to b18.")
        seen["time"] = True

    live.hands.setup("white", WHITE)
    live.hands.setup("black", BLACK)
    live.hands.start()
    live.hands.move("w38", "w31")
    expect(status.locator('svg.board [data-arrow="w38-w31"].arrow-last')).to_have_count(1, timeout=10000)
    live.hands.move("b18", "b17")
    expect(status.locator('svg.board [data-arrow="b18-b17"]')).to_have_count(1, timeout=10000)
    expect(status.locator('svg.board [data-arrow="w38-w31"]')).to_have_count(0)
    status_, body = live.hands.declare("white", {"type": "time"})
    assert status_ == 200, body
    wait_for(lambda: (live.hands.state()["referee"] or {}).get("time"), "the Time announcement")
    during_time()
    live.hands.finish("w28", "b17", "b18")
    # The rewind: the Time tower's space tagged, the undone move drawn back, and struck through in the list.
    expect(status.locator('svg.board [data-tag="w28"]')).to_have_count(1, timeout=10000)
    expect(status.locator('svg.board [data-arrow="b17-b18"].arrow-time')).to_have_count(1)
    expect(status.locator("#log li").nth(1).locator("s.rewound")).to_have_text("b18 → b17")
    expect(status.locator("#log li").nth(1)).to_contain_text("undone by White's Time")
    expect(live.black.locator("#log li").nth(1)).to_contain_text("undone by White's Time")
    expect(live.white.locator("#log li").nth(1)).to_contain_text("undone by your Time")
    live.hands.move("w31", "b35")
    live.hands.move("b18", "b17")
    live.hands.flash("b35", "b38")
    expect(status.locator("#turn")).to_have_text("Flash on b38", timeout=10000)
    to_the_end(live.hands)
    expect(status.locator("#turn")).to_have_text("White wins: Black's Light is captured", timeout=10000)
    # Revealed towers show their faces with one icon per piece type.
    expect(status.locator('svg.board .tower.revealed[data-tower="b39"] use.face')).to_have_attribute("data-piece", "shadow")
    expect(status.locator('#zg .chip')).to_have_count(3)  # the captured Peripheral, the Light, and White's Time
    expect(status.locator('svg.board [data-burst="b39"]')).to_have_count(1)
    expect(status.locator("#legend svg.icon")).to_have_count(8)
    for page in live.pages.values():
        assert "Waiting for" not in body_text(page)
        assert "the game is over." not in body_text(page)
    assert seen == {"time": True}
    assert live.errors == []


def test_the_cli_and_the_pages_say_the_result_the_same_way(live, tmp_path):
    to_first_flash(live.hands)
    to_the_end(live.hands)
    said = "White wins: Black's Light is captured"
    expect(live.status.locator("#turn")).to_have_text(said, timeout=10000)
    data_dir = str(live.table.store.path.parent)
    games = subprocess.run([*QUIN, "games", "--data-dir", data_dir], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert said in games.stdout, games.stdout
    record = tmp_path / "game.json"
    out = subprocess.run([*QUIN, "export", "1", "--data-dir", data_dir, "-o", str(record)], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    replayed = subprocess.run([*QUIN, "replay", str(record)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert replayed.stdout.splitlines()[-1] == f"{said} (7 turns)"
    history = live.open("/history", TV)
    expect(history.locator("#games")).to_contain_text(said)
    replay = live.open("/history/1", TV)
    expect(replay.locator("#summary")).to_contain_text(said)


def test_resetting_the_virtual_board_mid_game_is_confirmed_and_the_status_page_says_what_it_needs(live):
    live.hands.setup("white", WHITE)
    live.hands.setup("black", BLACK)
    board = live.board
    board.click("#place-start")  # before the game starts: no question asked
    expect(live.status.locator("#turn")).to_have_text("White to move", timeout=10000)
    live.hands.move("w38", "w31")
    board.click("#clear-all")
    expect(board.locator("dialog")).to_contain_text("A game is in play")
    board.click('dialog [data-confirm="no"]')
    board.wait_for_timeout(300)
    assert len(live.hands.state()["board"]["occupied"]) == 20  # cancelled: nothing changed
    board.click("#clear-all")
    board.click('dialog [data-confirm="yes"]')
    # A difference that stays (not a move in progress) is shown after a few seconds.
    expect(live.status.locator("#now")).to_contain_text(
        "Put 20 towers on the green spaces to put the board back as the game stands.", timeout=15000)
    expect(live.status.locator("svg.board circle.mark-place")).to_have_count(20)
    board.click("#place-start")
    expect(board.locator("dialog")).to_contain_text("Set up both lineups")
    board.click('dialog [data-confirm="yes"]')
    # The starting spaces are filled again: w38 has a tower the game does not, w31 misses White's one.
    # On the board that is White's tower moved while Black is to move, and it is said so (issue 22.3).
    expect(live.status.locator("#now")).to_contain_text(
        "It is Black's move. Put it back: move White's tower from w38 back to w31.",
        timeout=15000)
    state = live.hands.state()
    assert state["board"]["lift"] == ["w38"] and state["board"]["place"] == ["w31"]
    expect(live.status.locator('svg.board circle.mark-lift[data-mark="w38"]')).to_have_count(1)


def test_a_failed_time_reads_as_failed_in_the_move_list(live):
    """Power of Time: "If it is a Shadow, the Power fails and nothing is rewound." The move list (status page,
    phones, hub) says the Time failed, from the public view's events, rather than listing it like one that worked."""
    from engine.record import load_record, replay
    from engine.views import view

    lineup = {"19": "void", "29": "memory", "39": "time", "49": "reflector", "59": "void",
              "18": "shadow", "28": "peripheral", "38": "light", "48": "peripheral", "58": "shadow"}
    mv = lambda a, b: {"type": "move", "from": a, "to": b}  # noqa: E731
    turns = [("white", [mv("w58", "w51")]), ("black", [mv("b58", "b51")]),
             ("white", [mv("w51", "b51")]),  # Shadow flashes Shadow: swap, so the last move moved a Shadow
             ("black", [{"type": "time", "at": "b39"}, mv("b38", "b37")])]
    game = replay(load_record({
        "format": "quin-record/1", "mode": "classic", "first": "white",
        "setup": {p: {"clone": "time", "removed": "void", "lineup": {p[0] + k: v for k, v in lineup.items()}}
                  for p in ("white", "black")},
        "turns": [{"player": p, "actions": a} for p, a in turns]}))
    assert game.events[-1].to_json() == {"type": "time", "turn": 4, "outcome": "failed"}
    page = live.status
    page.wait_for_function("typeof Quin === 'object'")
    lines = page.evaluate("""(view) => { const ol = document.createElement("ol"); Quin.renderLog(ol, view, null);
                                         return [...ol.querySelectorAll("li")].map((li) => li.innerText); }""",
                          view(game, None))
    assert lines[3] == "Black Time from b39 fails (a Shadow moved); b38 → b37"
    assert "fails" not in " ".join(lines[:3])


FITS = """() => {
  const H = window.innerHeight, W = window.innerWidth;
  const out = [];
  if (document.documentElement.scrollHeight > H + 1) out.push(`the page scrolls: ${document.documentElement.scrollHeight} > ${H}`);
  if (document.documentElement.scrollWidth > W + 1) out.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} > ${W}`);
  for (const sel of ["#turn", "#now", "#board", "#zg", "#log-title", "#legend", "#legend + p"]) {
    const el = document.querySelector(sel);
    if (!el || el.classList.contains("hidden")) continue;
    const r = el.getBoundingClientRect();
    if (r.bottom > H + 1 || r.right > W + 1) out.push(`${sel} is cut off: bottom ${Math.round(r.bottom)} of ${H}`);
  }
  const side = document.querySelector(".side");
  if (side.scrollHeight > side.clientHeight + 1) out.push(`the side column scrolls: ${side.scrollHeight} > ${side.clientHeight}`);
  return out;
}"""


def test_the_status_page_fits_a_tv_without_scrolling(live, tmp_path):
    """At 1280x720 and 1920x1080 every part of the status page is on the screen (the Pieces legend too): only
    the move list, once long, scrolls inside itself.  Checked in setup, during a Power of Time (a long
    instruction) and after a dozen moves."""
    import os

    shots = os.environ.get("SHOTS", str(tmp_path))  # SHOTS=/tmp/shots/NAME keeps them to look at
    os.makedirs(shots, exist_ok=True)
    pages = {size: live.open("/", {"width": size[0], "height": size[1]}) for size in ((1280, 720), (1920, 1080))}

    def check(moment):
        for (w, h), page in pages.items():
            expect(page.locator("#conn")).to_have_text("live")
            page.screenshot(path=f"{shots}/status-{w}x{h}-{moment}.png")
            assert page.evaluate(FITS) == [], (moment, w, h)

    live.hands.setup("white", WHITE)
    live.hands.setup("black", BLACK)
    for page in pages.values():
        expect(page.locator("#turn")).to_have_text("Set up the board", timeout=10000)
    check("setup")
    live.hands.start()
    live.hands.move("w38", "w31")
    live.hands.move("b18", "b17")
    status_, body = live.hands.declare("white", {"type": "time"})
    assert status_ == 200, body
    for page in pages.values():
        expect(page.locator("#turn")).to_have_text("White's Power of Time", timeout=10000)
    check("time")
    live.hands.finish("w28", "b17", "b18")
    for a, b in (("w31", "w32"), ("b18", "b17"), ("w32", "w33"), ("b17", "b16"), ("w33", "w34"), ("b16", "b15"),
                 ("w34", "w35"), ("b15", "b14"), ("w35", "w36")):
        live.hands.move(a, b)
    for page in pages.values():
        expect(page.locator("#log li")).to_have_count(11, timeout=10000)
    check("moves")


def test_a_flash_burst_never_covers_a_space_name(live, tmp_path):
    """The burst of a flash is painted under the towers and the space names, so "b38" and its neighbours' names
    stay readable through it (they were painted over)."""
    to_first_flash(live.hands)
    page = live.status
    expect(page.locator("#turn")).to_have_text("Flash on b38", timeout=10000)
    burst = page.locator('svg.board [data-burst="b38"]')
    expect(burst).to_have_count(1)
    under = page.evaluate("""() => {
        const burst = document.querySelector('svg.board [data-burst="b38"]');
        const near = ["b38", "b37", "b39"].map((s) => document.querySelector(`svg.board text[data-label="${s}"]`));
        const tower = document.querySelector('svg.board [data-tower="b39"]');
        // painted later = on top: each name and the tower come after the burst in the drawing's order
        return [...near, tower].every((el) => burst.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING);
    }""")
    assert under is True
    box = burst.bounding_box()
    page.screenshot(path=str(tmp_path / "burst.png"), clip={"x": box["x"] - 30, "y": box["y"] - 30,
                                                            "width": box["width"] + 60, "height": box["height"] + 60})
