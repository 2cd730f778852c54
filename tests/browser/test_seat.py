"""The seat, a phone held in one hand (issue 11): setup in view, lineups one tap away, Black's side,
buttons that make sense now, refusals that clear and say what next, flash text that says whose tower."""

import json

from playwright.sync_api import expect

from tests.support.browsing import PHONE, body_text
from tests.support.scripted import BLACK, WHITE, wait_for


def in_view(page, selector) -> bool:
    box = page.locator(selector).bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"] and box["width"] > 0


def start_game(live):
    live.hands.setup("white", WHITE)
    live.hands.setup("black", BLACK)
    live.hands.start()
    expect(live.white.locator("#turn")).to_have_text("Your move", timeout=10000)


# --- defects -------------------------------------------------------------------------------------


def test_a_rejected_move_is_shown_once_to_the_mover_only_and_clears_when_the_game_moves_on(live):
    start_game(live)
    reason = "move w18-w14 is 4 spaces, but a Peripheral moves at most 3"  # piece names as everywhere (issue 22)
    live.hands.toggle("w18", "w14")  # White's Peripheral: one space too far
    expect(live.white.locator("#now")).to_contain_text("Not allowed: " + reason, timeout=10000)
    assert body_text(live.white).count(reason) == 1  # once, not twice
    expect(live.white.locator("#now")).to_contain_text("Move your tower from w14 to w18")
    for page in (live.black, live.status, live.board):
        assert reason not in body_text(page)  # a rejection tells only the mover why
    live.hands.toggle("w14", "w18")  # put it back
    live.hands.move("w38", "w31")
    live.hands.move("b18", "b17")
    expect(live.white.locator("#turn")).to_have_text("Your move", timeout=10000)
    assert "Not allowed" not in body_text(live.white)
    assert reason not in body_text(live.white)


def test_every_refusal_says_what_to_do_next(live):
    start_game(live)
    live.white.click('button[data-declare="done"]')  # nothing was done: Done is refused
    expect(live.white.locator("#now")).to_contain_text("Not allowed: the board does not show a finished action yet")
    expect(live.white.locator("#now")).to_contain_text("Finish your move on the board, then tap Done.")
    live.hands.move("w38", "w31")
    expect(live.white.locator("#turn")).to_have_text("Black to move", timeout=10000)
    expect(live.white.locator("#now")).to_be_hidden()


# --- the seat in setup ---------------------------------------------------------------------------


def test_setup_fits_a_phone_screen_tap_a_space_then_a_piece(live):
    page = live.white
    expect(page.locator("#turn")).to_have_text("Choose your lineup")
    for part in ("#board", "#spaces", "#palette", ".shortcuts", "#send-setup", "#clone", "#removed"):
        assert in_view(page, part), f"{part} is not in view on a 390x844 screen"
    assert page.evaluate("document.scrollingElement.scrollHeight") <= PHONE["height"] + 1
    expect(page.locator("#send-setup")).to_be_disabled()
    page.select_option("#clone", "void")
    page.select_option("#removed", "time")
    # The first empty space is chosen already; tapping pieces fills the spaces in turn.
    expect(page.locator('#spaces button[data-space="w18"]')).to_have_attribute("aria-pressed", "true")
    page.click('#palette button[data-piece="void"]')
    page.click('#palette button[data-piece="shadow"]')
    expect(page.locator('#spaces button[data-space="w18"]')).to_contain_text("Void")
    expect(page.locator('#spaces button[data-space="w28"]')).to_contain_text("Shadow")
    # Tap a space, then the piece for it; the board shows it there.
    page.click('#spaces button[data-space="w39"]')
    page.click('#palette button[data-piece="light"]')
    expect(page.locator('svg.board .tower[data-tower="w39"] use.face')).to_have_attribute("data-piece", "light")
    expect(page.locator('#palette button[data-piece="light"]')).to_be_disabled()  # only one Light
    page.click('#spaces button[data-space="w28"]')
    page.click('#palette button[data-piece=""]')  # Empty
    expect(page.locator('#spaces button[data-space="w28"]')).to_contain_text("w28")
    expect(page.locator("#bar-status")).to_contain_text("2 of 10 placed")


def test_a_player_names_themselves_with_the_lineup_and_everyone_sees_who_plays(live):
    page = live.white
    expect(page.locator("#who-name")).to_be_visible()
    expect(page.locator("#who-code")).to_be_hidden()  # this table pushes to no hub: no player code to give
    page.fill("#who-name", "Ann")
    page.click("#quick-start")
    page.click("#send-setup")
    wait_for(lambda: live.table.row.setups["white"] is not None, "white's setup")
    expect(live.status.locator("#now")).to_contain_text("White (Ann) is ready")
    expect(live.status.locator("#sub")).to_have_text("White moves first · Ann (White) – Black")
    expect(page.locator("#send-setup")).to_have_text("Sent ✓")
    page.fill("#who-name", "Ann B")  # a new name is a change to send
    expect(page.locator("#send-setup")).to_have_text("Send again")
    page.click("#send-setup")
    expect(live.status.locator("#now")).to_contain_text("White (Ann B) is ready")
    page.reload()  # the phone remembers the name for the next game
    expect(page.locator("#who-name")).to_have_value("Ann B")
    expect(page.locator("#send-setup")).to_have_text("Sent ✓")


def test_quick_start_is_the_rulebooks_and_one_tap_from_ready(live):
    page = live.white
    page.click("#quick-start")
    assert page.input_value("#clone") == "time" and page.input_value("#removed") == "void"
    # "Play your Shadows on the front row" (the rulebook's tip)
    expect(page.locator('#spaces button[data-space="w28"]')).to_contain_text("Shadow")
    expect(page.locator('#spaces button[data-space="w48"]')).to_contain_text("Shadow")
    expect(page.locator("#send-setup")).to_be_enabled()
    page.click("#send-setup")
    wait_for(lambda: live.table.row.setups["white"] is not None, "white's setup")
    setup = live.table.row.setups["white"]
    assert setup["clone"] == "time" and setup["removed"] == "void" and len(setup["lineup"]) == 10
    assert "light" in setup["lineup"].values()
    # No invented lineups under the rulebook's lost names.
    for name in ("Standard Rush", "Light Hunters", "Reflector Retreat"):
        assert name not in page.content()


def test_last_game_and_saved_lineups_follow_the_phone_to_either_colour(live):
    phone = live.white  # this phone plays White in game 1 and Black in game 2
    phone.select_option("#clone", WHITE["clone"])
    phone.select_option("#removed", WHITE["removed"])
    for space, piece in WHITE["lineup"].items():
        phone.click(f'#spaces button[data-space="{space}"]')
        phone.click(f'#palette button[data-piece="{piece}"]')
    phone.click("#saved-lineups")
    phone.click("#save-lineup")
    phone.fill("#lineup-name", "Shadows up the middle")
    phone.click('dialog [data-confirm="yes"]')
    expect(phone.locator("#sheet")).to_contain_text("Shadows up the middle")
    phone.click("#send-setup")
    expect(phone.locator("#send-setup")).to_have_text("Sent ✓")
    live.table.new_game()
    phone.goto(f"{live.base}/seat/{live.table.tokens['black']}")
    expect(phone.locator("#turn")).to_have_text("Choose your lineup")
    phone.click("#last-lineup")
    mirrored = {"b" + s[1:]: p for s, p in WHITE["lineup"].items()}
    for space, piece in mirrored.items():
        expect(phone.locator(f'#spaces button[data-space="{space}"]')).to_contain_text(piece.capitalize())
    assert phone.input_value("#clone") == WHITE["clone"]
    phone.click("#random-lineup")  # change it, then load the saved one back
    phone.click("#saved-lineups")
    phone.click('#sheet button[data-load="Shadows up the middle"]')
    phone.click("#send-setup")
    wait_for(lambda: live.table.row.setups["black"] is not None, "black's setup")
    assert live.table.row.setups["black"] == {"clone": WHITE["clone"], "removed": WHITE["removed"], "lineup": mirrored}


# --- the seat in play ------------------------------------------------------------------------------


def test_the_black_seat_is_drawn_from_blacks_side(live):
    start_game(live)
    cy = lambda page, space: float(page.locator(f'svg.board circle.space[data-space="{space}"]').get_attribute("cy"))  # noqa: E731
    assert cy(live.white, "w39") > 900 and cy(live.white, "b39") < 100
    assert cy(live.black, "b39") > 900 and cy(live.black, "w39") < 100  # Black's Gateways nearest Black
    cx = lambda page, space: float(page.locator(f'svg.board circle.space[data-space="{space}"]').get_attribute("cx"))  # noqa: E731
    assert cx(live.black, "b19") < cx(live.black, "b59")  # Sight Line 1 on Black's left
    assert cx(live.white, "w19") < cx(live.white, "w59")


def test_done_is_the_main_button_only_once_something_was_done(live):
    start_game(live)
    done = live.white.locator('button[data-declare="done"]')
    expect(done).not_to_have_class("primary")
    live.hands.toggle("w38")  # a tower in the hand
    expect(done).to_have_class("primary", timeout=10000)
    live.hands.toggle("w31")
    expect(live.white.locator("#turn")).to_have_text("Black to move", timeout=10000)
    expect(live.white.locator('button[data-declare="done"]')).to_have_count(0)  # not White's turn: no declarations


def test_declarations_are_disabled_while_a_flash_is_resolved_and_flash_text_says_whose_tower(live):
    from tests.support.scripted import to_first_flash

    to_first_flash(live.hands, rewind=False)  # White's Time still stands on w28
    assert live.table.state("white")["seat"]["declarations"]["time"] is True  # legal, but not now
    for key in ("time", "reinforce", "resurrect", "swap", "done"):
        expect(live.white.locator(f'button[data-declare="{key}"]')).to_be_disabled(timeout=10000)
    expect(live.white.locator("#now h3")).to_have_text("Your Shadow captures Black's Peripheral on b38")
    expect(live.white.locator("#now")).to_contain_text("Put your Shadow on b38.")
    expect(live.black.locator("#now h3")).to_have_text("White's Shadow captures your Peripheral on b38")
    expect(live.black.locator("#now")).to_contain_text("Put White's Shadow on b38.")
    expect(live.status.locator("#now h3")).to_have_text("White's Shadow captures Black's Peripheral on b38")
    # The board shows the flash: a burst on b38 and the attacker's arrow.
    for page in (live.white, live.black, live.status):
        expect(page.locator('svg.board [data-burst="b38"]')).to_have_count(1)
        expect(page.locator('svg.board [data-arrow="b35-b38"]')).to_have_count(1)


def test_flash_sentences_for_each_outcome_and_viewer(live):
    """The page builds each sentence from the referee's structured flash data and the viewer's colour."""
    page = live.status
    page.wait_for_function("typeof Quin === 'object'")
    swap = {"player": "black", "from": "b31", "at": "w31", "attacker": "shadow", "defender": "shadow", "outcome": "swap"}
    mutual = {"player": "white", "from": "w35", "at": "b35", "attacker": "time", "defender": "void",
              "outcome": "mutual_destruction"}
    said = page.evaluate("""([swap, mutual]) => ({
        swapBlack: Quin.flashText(swap, "black"),
        swapWhite: Quin.flashText(swap, "white"),
        swapMove: Quin.stepText({do: "move", from: "w31", to: "b31"}, {flash: swap}, "black", null),
        swapFill: Quin.stepText({do: "fill", space: "b31"}, {flash: swap}, "white", null),
        mutual: Quin.flashText(mutual, null),
        mutualClear: Quin.stepText({do: "clear", space: "b35"}, {flash: mutual}, "black", null),
    })""", [swap, mutual])
    assert said == {
        "swapBlack": "Your Shadow from b31 swaps with White's Shadow on w31",
        "swapWhite": "Black's Shadow from b31 swaps with your Shadow on w31",
        "swapMove": "move White's Shadow from w31 to b31",
        "swapFill": "put your Shadow on b31",
        "mutual": "White's Time and Black's Void destroy each other on b35",
        "mutualClear": "take your Void off b35: it goes to White's Zero Gravity",
    }


def test_one_toast_at_a_time_never_over_the_heading_and_the_result_stays(live):
    from tests.support.scripted import to_first_flash, to_the_end

    to_first_flash(live.hands)
    to_the_end(live.hands)
    for page in (live.white, live.black, live.status):
        expect(page.locator("#turn")).to_have_text("White wins: Black's Light is captured", timeout=10000)
        assert page.locator(".toast").count() <= 1
        toast = page.locator(".toast")
        if toast.count() and toast.is_visible():
            t, head = toast.bounding_box(), page.locator("#turn").bounding_box()
            bar = page.locator("header.bar").bounding_box()
            for other in (head, bar):
                assert t["y"] >= other["y"] + other["height"] or t["y"] + t["height"] <= other["y"], "a toast covers the heading"
    live.white.wait_for_timeout(8500)  # every toast has gone; the result has not
    for page in (live.white, live.status):
        expect(page.locator(".toast")).to_be_hidden()
        expect(page.locator("#turn")).to_have_text("White wins: Black's Light is captured")
    assert live.errors == []
    assert json.dumps(live.table.state(None)).count("Waiting for") == 0


def test_after_the_last_ready_the_phone_shows_every_green_space_and_says_to_set_up_the_board(live):
    """The phone of the player who taps Ready last: its drawing shows all twenty green spaces, as the status
    page and the virtual board do (the rival's by colour only, never a face), a footer about setting up the
    board, and no selection ring left from the lineup."""
    live.hands.setup("black", BLACK)
    page = live.white
    held = []  # the Ready's answer is held until the stream has said both are ready (as on a busy network)
    page.route("**/setup", lambda route: held.append(route))
    page.click("#quick-start")
    page.click("#send-setup")
    wait_for(lambda: bool(held) or page.wait_for_timeout(50), "the Ready to be sent")
    answer = held[0].fetch()  # the table takes it; the phone hears the new phase on the stream first ...
    expect(page.locator("#turn")).to_have_text("Set up the board", timeout=10000)
    held[0].fulfill(response=answer)  # ... and the Ready's answer after it
    # what the phone shows once it has handled that answer (read then, before any later redraw)
    shown = page.wait_for_function("""() => localStorage.getItem("quin.last") !== null && {
        bar: document.getElementById("bar-status").innerText,
        place: document.querySelectorAll("svg.board circle.mark-place").length,
        selected: document.querySelectorAll("svg.board .mark-selected").length }""", polling="raf").json_value()
    assert shown == {"bar": "Put the towers on the board; play begins when it matches.", "place": 20, "selected": 0}
    expect(live.status.locator("svg.board circle.mark-place")).to_have_count(20)
    # hidden information: no face of Black's is drawn on White's phone
    assert page.locator('svg.board .tower[data-tower^="b"] use.face').count() == 0


def test_a_flash_says_where_every_tower_that_leaves_the_board_goes(live):
    """Rulebook: a capture "removes the defending Tower to the attacker's Zero Gravity"; "Mutual destruction
    removes both Towers to the rival Zero Gravity boards".  Once a tower is off the board no step names it (the
    board senses no Zero Gravity), so the instruction says where it goes, on every screen."""
    page = live.status
    page.wait_for_function("typeof Quin === 'object'")
    capture = {"player": "black", "from": "b35", "at": "b34", "attacker": "light", "defender": "shadow",
               "outcome": "capture"}
    mutual = {"player": "white", "from": "w35", "at": "b35", "attacker": "time", "defender": "void",
              "outcome": "mutual_destruction"}
    said = page.evaluate("""([capture, mutual]) => {
        const lines = (f, todo, viewer) => Quin.needs({phase: "playing", referee: {flash: f, instructions: todo},
                                                       view: null, board: {}}, viewer, false).lines;
        return {
          lifted: lines(capture, [{do: "fill", space: "b34"}], null),
          liftedWhite: lines(capture, [{do: "fill", space: "b34"}], "white"),
          onBoard: lines(capture, [{do: "clear", space: "b34"}, {do: "fill", space: "b34"}], null),
          mutualLifted: lines(mutual, [], null).concat(lines(mutual, [{do: "clear", space: "b35"}], "black")),
        };
    }""", [capture, mutual])
    assert said == {
        "lifted": ["Put Black's Light on b34.", "Put White's Shadow on Black's Zero Gravity."],
        "liftedWhite": ["Put Black's Light on b34.", "Put your Shadow on Black's Zero Gravity."],
        "onBoard": ["Take White's Shadow off b34: it goes to Black's Zero Gravity.", "Put Black's Light on b34."],
        "mutualLifted": ["Put White's Time on Black's Zero Gravity.", "Put Black's Void on White's Zero Gravity.",
                         "Take your Void off b35: it goes to White's Zero Gravity.",
                         "Put White's Time on your Zero Gravity."],
    }


def test_the_reinforce_chooser_leaves_the_gateways_in_view_names_towers_and_cancels(live, tmp_path):
    """The chooser is a compact bar that covers none of White's Gateways (where the tower goes), names each
    piece as a tower ("Time tower", never a bare "Time" beside the bar's Power of Time), and has a Cancel."""
    start_game(live)
    for a, b in (("w38", "w37"), ("b18", "b17"), ("w39", "w38"), ("b17", "b16")):  # the Gateway w39 is free
        live.hands.move(a, b)
    page = live.white
    expect(page.locator("#turn")).to_have_text("Your move", timeout=10000)
    page.click('button[data-declare="reinforce"]')
    sheet = page.locator("#sheet")
    expect(sheet.locator("button[data-reinforce]").first).to_be_visible()
    page.screenshot(path=str(tmp_path / "reinforce.png"))
    labels = sheet.locator("button[data-reinforce]").all_inner_texts()
    assert labels and all(t.strip().endswith(("tower", "towers")) for t in labels), labels
    box = sheet.bounding_box()
    for gateway in ("w19", "w29", "w39", "w49", "w59"):
        g = page.locator(f'svg.board circle.hit[data-space="{gateway}"]').bounding_box()
        overlaps = not (g["y"] + g["height"] <= box["y"] or g["y"] >= box["y"] + box["height"]
                        or g["x"] + g["width"] <= box["x"] or g["x"] >= box["x"] + box["width"])
        assert not overlaps, f"the chooser covers the Gateway {gateway}"
    sheet.locator("button[data-cancel]").click()
    expect(sheet).to_be_hidden()
    expect(page.locator('button[data-declare="reinforce"]')).not_to_have_attribute("aria-pressed", "true")
