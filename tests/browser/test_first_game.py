"""A first game that explains itself (issue 29, item 5): on the mover's phone, "Your move" says that moves
are made on the board, and a one-line tip says how to flash, use the Power of Time, swap or bring in a
Reinforcement the first time each is possible for that player -- through that turn, then never again on
that phone.  A tip names only the player's own towers (and the space of the rival tower a flash would
meet, which is public); no other screen shows one."""

from playwright.sync_api import expect

from tests.support.browsing import body_text
from tests.support.scripted import BLACK, WHITE, wait_for

MOVE_HERE = "Move one of your towers on the board: the referee sees it there."


def tips(page) -> dict[str, str]:
    return dict(page.evaluate("""() => [...document.querySelectorAll('#now p.tip')]
                                        .map((p) => [p.dataset.tip, p.textContent])"""))


def my_turn(live, page, player):
    expect(page.locator("#turn")).to_have_text("Your move", timeout=10000)
    wait_for(lambda: live.table.state(player)["seat"]["declarations"] is not None, "the declarations")
    expect(page.locator("#now")).to_contain_text(MOVE_HERE)


def test_your_move_says_where_and_each_first_time_gets_one_tip_then_none(live):
    hands = live.hands
    hands.setup("white", WHITE)
    hands.setup("black", BLACK)
    hands.start()
    white, black = live.white, live.black

    # Turn 1: White's Memory may swap (w59 with a tower on its side): the swap tip, and only it.
    my_turn(live, white, "white")
    d = live.table.state("white")["seat"]["declarations"]
    assert d["swap"] is True and d["time"] is False and d["flashes"] == [] and d["reinforce"] == []
    shown = tips(white)
    assert list(shown) == ["swap"]
    assert shown["swap"] == ("To swap with your Memory: tap Swap, then lift your Memory and the tower it trades "
                             "places with and put each on the other's space.")
    white.reload()  # the same turn on a reloaded page: still shown
    my_turn(live, white, "white")
    assert list(tips(white)) == ["swap"]
    for page in (black, live.status, live.board):
        assert "Tip" not in body_text(page) and MOVE_HERE not in body_text(page)

    hands.move("w38", "w31")          # 1. White's Shadow in
    expect(white.locator("#turn")).to_have_text("Black to move", timeout=10000)
    assert tips(white) == {} and MOVE_HERE not in body_text(white)  # not White's turn: nothing to say
    my_turn(live, black, "black")
    assert "swap" in tips(black)  # Black's own first swap: Black's phone keeps its own tips
    hands.move("b18", "b17")          # 2. Black's Void

    # Turn 3: Black has moved, so White's Time may rewind it: the Time tip; the swap tip was seen.
    my_turn(live, white, "white")
    assert list(tips(white)) == ["time"]
    assert tips(white)["time"] == ("To use the Power of Time: tap Time, then take your Time tower off the board; "
                                   "the screens then say what it rewinds.")
    hands.move("w31", "b35")          # 3. the Shadow crosses the Iris
    hands.move("b17", "b16")          # 4.

    # Turn 5: the Shadow on b35 may flash Black's tower on b38: the flash tip, with a pair to try.
    my_turn(live, white, "white")
    flashes = live.table.state("white")["seat"]["declarations"]["flashes"]
    assert {"from": "b35", "to": "b38"} in flashes
    flash = flashes[0]
    assert list(tips(white)) == ["flash"]
    assert tips(white)["flash"] == (f"To flash: lift your tower (for one, on {flash['from']}) and Black's tower it "
                                    f"moves onto ({flash['to']}); the flash then says who wins and where each goes.")
    for page in (black, live.status, live.board):
        assert "To flash" not in body_text(page)
    # A newcomer lifts their Shadow and holds it: past the referee's hold, their phone alone says to put it
    # back -- or, since it may flash from there, to lift the rival's tower too.
    hands.toggle("b35")
    expect(white.locator("#now")).to_contain_text("Put your tower back on b35.", timeout=15000)
    held = [f["to"] for f in flashes if f["from"] == "b35"]
    expect(white.locator("#now")).to_contain_text(f"Or, to flash: lift Black's tower on {' or '.join(held)} too.")
    for page in (black, live.status, live.board):
        assert "to flash" not in body_text(page) and "back on b35" not in body_text(page)
    hands.toggle("b38")
    wait_for(lambda: (hands.state()["referee"] or {}).get("flash"), "the flash on b38")
    expect(white.locator("#now h3")).to_have_text("Your Shadow captures Black's Peripheral on b38", timeout=10000)
    # the flash's steps alone, as on every other screen, with where the captured tower goes (it is off the board:
    # no step names it); what the phone was told while holding is gone
    expect(white.locator("#now li")).to_have_text(["Put your Shadow on b38.",
                                                   "Put Black's Peripheral on your Zero Gravity."])
    expect(live.board.locator("#now li")).to_have_text(["Put White's Shadow on b38.",
                                                        "Put Black's Peripheral on White's Zero Gravity."])
    expect(white.locator("#now")).not_to_contain_text(MOVE_HERE)
    hands.finish("b38")               # 5. the Shadow captures the Peripheral
    hands.move("b28", "b27")          # 6.

    # Turn 7: everything possible now was possible before: no tip.
    my_turn(live, white, "white")
    assert tips(white) == {}
    hands.move("w39", "w38")          # 7. the Light steps off its Gateway: w39 is empty
    hands.move("b27", "b26")          # 8.

    # Turn 9: an empty Gateway and Artificial Lights waiting in Zero Gravity: the Reinforcement tip.
    my_turn(live, white, "white")
    assert live.table.state("white")["seat"]["declarations"]["reinforce"]
    assert tips(white) == {"reinforce": "To bring in a Reinforcement: tap Reinforce, pick the tower, then put it "
                                        "on one of your empty Gateways (it ends your turn)."}
    assert not live.errors, live.errors


def test_the_setup_screen_shows_its_green_spaces(live):
    """"Put 20 towers on the green spaces": the phone and the status page draw them -- each tower still
    to place faint over its green space (its face, on its owner's phone), each one placed solid."""
    hands = live.hands
    hands.setup("white", WHITE)
    hands.setup("black", BLACK)
    for page in (live.white, live.status):
        expect(page.locator("#now")).to_contain_text("Put 20 towers on the green spaces.", timeout=10000)
        expect(page.locator("svg.board .mark-place")).to_have_count(20)
        expect(page.locator("svg.board .tower.pending")).to_have_count(20)
    expect(live.white.locator("#now")).to_contain_text("Each of your towers goes on the green space where its face "
                                                       "is drawn")
    # White's own faces are drawn where they go; Black's towers are faceless on White's phone.
    assert live.white.locator('svg.board [data-tower="w38"] [data-piece="shadow"]').count() == 1
    assert live.white.locator('svg.board [data-tower="b38"] [data-piece]').count() == 0
    hands.toggle("w38", "b18")
    for page in (live.white, live.status):
        expect(page.locator("#now")).to_contain_text("Put 18 towers on the green spaces.", timeout=10000)
        expect(page.locator("svg.board .mark-place")).to_have_count(18)
        expect(page.locator("svg.board .tower.pending")).to_have_count(18)
        for space in ("w38", "b18"):
            assert "pending" not in page.locator(f'svg.board [data-tower="{space}"]').get_attribute("class")
    assert live.black.locator("text=Each of your towers goes on the green space").count() == 1
    assert not live.errors, live.errors


def test_a_phone_whose_seat_was_given_away_says_so_plainly_and_offers_nothing_stale(live):
    """A seat is never handed over silently: the phone that held it says who may have it now and
    what to do, and shows nothing left to act on (not the last game's "Play again")."""
    from tests.support.scripted import to_first_flash, to_the_end
    from tests.support.webtools import post_json

    to_first_flash(live.hands)
    to_the_end(live.hands)  # White wins: its phone offers "Play again"
    expect(live.white.locator("#again")).to_be_visible(timeout=10000)
    expect(live.white.locator("#result")).to_be_visible()
    key = live.table.host_key
    status, body = post_json(f"{live.base}/api/host/{key}/reissue", {"player": "white"}, {"X-Host-Key": key})
    assert status == 200, body
    phone = live.white
    expect(phone.locator("#turn")).to_have_text("This seat link no longer works", timeout=10000)
    expect(phone.locator("#now")).to_have_text(
        "This phone no longer plays this seat: the host gave it to another phone, or to the practice opponent. "
        "Ask the host for the seat's new code (the host page shows it).")
    for part in ("#setup", "#play", "#result", "#sheet"):
        expect(phone.locator(part)).to_be_hidden()
    expect(phone.locator("#again")).to_be_hidden()
    expect(live.black.locator("#result")).to_be_visible()  # the other seat is as it was
