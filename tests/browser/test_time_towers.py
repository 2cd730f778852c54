"""The Power of Time with two Time towers, played as a new user plays a first game (issue 17, item 4).

The rulebook's Quick Start for a first game: "remove a Void and replace it with a Clone of Time", and
"Play your Shadows on the front row".  White picks that lineup on the phone, with both Time towers on the
board; the towers are moved by tapping the virtual board and Time is declared by tapping the phone.  Every
screen must then say what to do next: take one of the Time towers off (where they stand only on the
mover's phone: naming both in public would reveal the one not used), then the rewind's move; each line
goes once it is done; the virtual board never asks to undo the rewind; whichever Time tower leaves is
the one used.
"""

from playwright.sync_api import expect

from tests.support.scripted import BLACK, wait_for

# White's lineup as a new user taps it: Time cloned, a Void removed, the Shadows on the front row,
# both Time towers on the board (w18 and w58).
LINEUP = {"w18": "time", "w28": "shadow", "w38": "peripheral", "w48": "shadow", "w58": "time",
          "w19": "void", "w29": "void", "w39": "light", "w49": "reflector", "w59": "memory"}

TAKE_MINE = "Take one of your Time towers (on w18 or w58) off the board and put it on Black's Zero Gravity."
TAKE_PUBLIC = "Take one of White's Time towers off the board and put it on Black's Zero Gravity."
TAKE_BLACK = "Take one of White's Time towers off the board and put it on your Zero Gravity."


def tap(page, space):
    """A tap on the virtual board (it lifts or places a tower)."""
    page.click(f'#board circle.hit[data-space="{space}"]')


def committed(live) -> int:
    view = live.hands.state()["view"]
    return sum(len(t["actions"]) for t in view["history"]) if view else 0


def test_two_time_towers_every_screen_says_what_to_do_and_whichever_leaves_is_used(live, artifacts):
    folder = artifacts / "time-towers"
    folder.mkdir(exist_ok=True)
    white, black, status, board = live.white, live.black, live.status, live.board

    def shoot(moment):
        for name, page in live.pages.items():
            page.screenshot(path=str(folder / f"{moment}-{name}.png"))

    for page in live.pages.values():
        expect(page.locator("#conn")).to_have_text("live", timeout=10000)
    # White's phone: the rulebook's quick start, then the towers where this player wants them.
    white.click("#quick-start")
    assert white.input_value("#clone") == "time" and white.input_value("#removed") == "void"
    for space in LINEUP:
        white.click(f'#spaces button[data-space="{space}"]')
        white.click('#palette button[data-piece=""]')
    for space, piece in LINEUP.items():
        white.click(f'#spaces button[data-space="{space}"]')
        white.click(f'#palette button[data-piece="{piece}"]')
    white.click("#send-setup")
    wait_for(lambda: live.table.row.setups["white"] is not None, "White's setup")
    assert live.table.row.setups["white"]["lineup"] == LINEUP
    live.hands.setup("black", BLACK)
    board.click("#place-start")
    expect(white.locator("#turn")).to_have_text("Your move", timeout=10000)

    tap(board, "w38")  # White's Peripheral one step
    tap(board, "w37")
    wait_for(lambda: committed(live) == 1, "White's move")
    tap(board, "b38")  # Black's Peripheral b38-b37
    tap(board, "b37")
    wait_for(lambda: committed(live) == 2, "Black's move")
    expect(white.locator("#turn")).to_have_text("Your move", timeout=10000)

    white.click('#declare button[data-declare="time"]')
    rewind = {"white": "Move Black's tower on b37 back to b38.", "black": "Move your tower on b37 back to b38.",
              "status": "Move Black's tower on b37 back to b38.", "board": "Move Black's tower on b37 back to b38."}
    take = {"white": TAKE_MINE, "black": TAKE_BLACK, "status": TAKE_PUBLIC, "board": TAKE_PUBLIC}
    for name, page in live.pages.items():
        now = page.locator("#now")
        expect(now).to_contain_text(take[name], timeout=10000)
        expect(now).to_contain_text(rewind[name])
        items = now.locator("li").all_inner_texts()
        assert items.index(take[name]) < items.index(rewind[name]), (name, items)  # the Time tower first
    for name in ("status", "board", "black"):  # the unused Time tower stays hidden
        assert "w18" not in live.pages[name].locator("#now").inner_text()
        assert "w58" not in live.pages[name].locator("#now").inner_text()
    # The phone marks both of its Time towers; the virtual board asks for the rewind, nothing else.
    expect(white.locator('svg.board circle.mark-time[data-mark="w18"]')).to_have_count(1)
    expect(white.locator('svg.board circle.mark-time[data-mark="w58"]')).to_have_count(1)
    expect(board.locator('#board circle.mark-lift')).to_have_count(1)
    expect(board.locator('#board circle.mark-lift[data-mark="b37"]')).to_have_count(1)
    expect(board.locator('#board circle.mark-place[data-mark="b38"]')).to_have_count(1)
    shoot("1-declared")

    tap(board, "b37")  # the rewind, first
    tap(board, "b38")
    for name, page in live.pages.items():
        now = page.locator("#now")
        expect(now).not_to_contain_text("b37 back to b38", timeout=10000)
        expect(now).to_contain_text(take[name])
    # The rewind in progress is never something to undo.
    board.wait_for_timeout(500)
    expect(board.locator("#board circle.mark-lift")).to_have_count(0)
    expect(board.locator("#board circle.mark-place")).to_have_count(0)
    said = board.locator("#now").inner_text() + board.locator("#diff").inner_text()
    assert "b37" not in said and "b38" not in said, said
    assert committed(live) == 2
    shoot("2-rewound")

    tap(board, "w58")  # whichever Time tower leaves is the one used
    wait_for(lambda: committed(live) == 3, "the Time")
    history = live.hands.state()["view"]["history"]
    assert history[-1]["player"] == "white" and history[-1]["actions"] == [{"type": "time", "at": "w58"}]
    expect(white.locator("#turn")).to_have_text("Your move", timeout=10000)
    for page in live.pages.values():
        expect(page.locator("#now")).not_to_contain_text("Time towers", timeout=10000)
    expect(board.locator("#board circle.mark-lift")).to_have_count(0)
    shoot("3-used")
    assert live.errors == []
