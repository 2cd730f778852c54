"""The referee at a brisk table (issue 17): words and towers on one clock, evidence read in
context, fast hands between turns.  Each test builds its position by hand and states what the
board and the phones did, to the hundredth of a second."""


import pytest

from tests.support.refplay import Play, classic, gravity, heavy, mv, questions, quick_lift, refused, third_eye

from engine.actions import Gravity, Reinforce, Resurrect, Swap, Time
from engine.board import parse_space
from host.referee import InputError

S = parse_space


# --- 1. words and towers on one clock ----------------------------------------------------------


def test_a_time_word_83_ms_after_the_resurrected_time_tower_lands_is_judged_once_it_settled():
    """Issue 17: refused "you have no Time tower on the board" for a Time tower resurrected 83 ms
    earlier.  Rulebook, Stacking Powers: "it is perfectly legal to use Time and Resurrect on the same
    turn, in either order"."""
    game = third_eye({"w35": "S", "b35": "p"}, totem=("white",))
    play = Play(game)
    play.say("white", {"type": "resurrect", "piece": "time"})
    play.board.place(S("b39"))
    play.feed()
    play.wait(0.03)  # the tower has landed 30 ms ago: not settled (a tower arriving holds 50 ms)
    got = play.say("white", {"type": "time"})  # no exception: held, not judged against the old board
    assert not [n for n in got if n.kind == "rejected"]
    play.wait(0.4)
    assert play.played() == [Resurrect("time", S("b39"))]
    assert any(n.kind == "time" and n.audience == "public" for n in play.notices)  # announced
    play.lift("b39", then=0.3)
    play.move("b35", "b37", then=0.6)
    assert play.played() == [Resurrect("time", S("b39")), Time(S("b39"), S("b35"), S("b37"))]
    assert not refused(play) and not questions(play)


def test_a_reinforce_word_while_the_time_tower_is_still_being_lifted_counts_for_what_follows():
    """The rulebook's Stacking Powers: Time, then a Reinforcement on the Gateway it left.  The
    reinforce word comes 40 ms into the Time tower's lift, before the sensors agree it is gone."""
    game = classic({"w39": "T", "w18": "M", "w19": "P", "w29": "V", "w49": "P", "w59": "R", "b35": "p"}, "black",
                   reserve={"white": ["A"]})
    game.push(mv("b35", "b33"))
    play = Play(game)
    gw = "w39"  # a Gateway: the Time tower's leaving empties the only one
    play.say("white", {"type": "time"})
    play.board.lift(S(gw))
    play.feed()
    play.wait(0.04)
    got = play.say("white", {"type": "reinforce", "pieces": ["artificial_light"]})
    assert not [n for n in got if n.kind == "rejected"]
    play.wait(0.3)
    play.move("b33", "b35", then=0.4)
    play.place(gw, then=0.6)
    assert play.played() == [Time(S(gw)), Reinforce(((S(gw), "artificial_light"),))]
    assert not refused(play) and not questions(play)


def test_a_word_said_on_a_settled_board_is_judged_at_once_and_refused_if_impossible():
    """The other side: nothing unsettled, nothing held; an impossible word is refused at once."""
    game = classic({"w35": "S", "b35": "s"})
    play = Play(game)
    with pytest.raises(InputError, match="no Time tower"):
        play.say("white", {"type": "time"})


def test_a_held_word_still_impossible_once_the_board_settled_is_refused_privately():
    game = classic({"w35": "S", "b35": "s"})
    play = Play(game)
    play.board.lift(S("w35"))
    play.feed()
    play.wait(0.02)
    bad = {"type": "choose", "action": mv("w35", "w35").to_record()}
    got = play.say("white", bad)  # judged only once the lift settled
    assert [n for n in got if n.kind == "rejected"] == []
    play.wait(0.3)
    (n,) = refused(play)
    assert n.audience == "white" and n.data["input"] == bad and n.data["reason"].startswith("choose")
    assert not [m for m in play.notices if m.kind == "rejected" and m.audience != "white"]


def test_nothing_is_committed_while_the_movers_word_is_held():
    """A Classic Memory Swap put back 20 ms before its word and the rival's lift at once: the word is
    judged before anything is committed, so the swap is not read as nothing and lost."""
    game = classic({"w18": "M", "w28": "V", "b35": "p"})
    play = Play(game)
    play.lift("w18", then=0.05)
    play.lift("w28", then=0.2)
    play.place("w18", then=0.05)
    play.board.place(S("w28"))
    play.feed()
    play.wait(0.02)
    play.say("white", {"type": "swap"})
    play.wait(0.2)
    play.move("b35", "b34", then=0.6)
    assert play.played() == [Swap(S("w18"), S("w28")), mv("b35", "b34")]
    assert not refused(play) and not questions(play)


# --- 2. evidence read in context ----------------------------------------------------------------


def bump(space, at, length=0.14):
    return [(at, space, False), (at + length, space, None)]


def swap_position():
    return classic({"w18": "M", "w28": "V", "b35": "p"})


def test_a_declared_memory_swaps_quick_lifts_are_seen_though_each_reads_empty_only_120_ms():
    """Issue 17: "a tower lifted for 200 to 250 ms bounces at both edges and reads steadily empty for
    less than the noise window, so a Memory Swap ... is lost or waits forever"."""
    game = swap_position()
    play = Play(game, step=0.005)
    play.say("white", {"type": "swap"})
    heavy(play, quick_lift("w18", 0.1) + quick_lift("w28", 0.15))
    play.wait(0.6)
    assert play.played() == [Swap(S("w18"), S("w28"))]
    assert not questions(play) and not refused(play)


def test_a_swap_word_racing_in_just_after_its_quick_lifts_still_finds_them():
    """The word comes 40 ms after the second tower is back (a word races the board by up to 200 ms):
    the quick lifts, missed by the full window, are read once the swap is expected."""
    game = swap_position()
    play = Play(game, step=0.005)
    heavy(play, quick_lift("w18", 0.1) + quick_lift("w28", 0.15))
    play.wait(0.04)
    play.say("white", {"type": "swap"})
    play.wait(0.6)
    assert play.played() == [Swap(S("w18"), S("w28"))]
    assert not questions(play) and not refused(play)


def test_the_same_quick_lifts_with_nothing_declared_are_nothing():
    """The other side: where nothing is expected the full window applies; the board never changed."""
    game = swap_position()
    play = Play(game, step=0.005)
    heavy(play, quick_lift("w18", 0.1) + quick_lift("w28", 0.15))
    play.wait(2.0)
    assert play.played() == [] and not questions(play)
    assert not [n for n in play.notices if n.kind == "waiting"]


def test_a_bump_on_a_declared_swaps_spaces_is_no_lift():
    """A neighbour knocked off its magnet for 140 ms, even where a lift is expected, is no lift: the
    declared swap is neither committed nor asked about."""
    game = swap_position()
    play = Play(game, step=0.005)
    play.say("white", {"type": "swap"})
    heavy(play, bump("w18", 0.1) + bump("w28", 0.12))
    play.wait(2.0)
    assert play.played() == [] and not questions(play)
    heavy(play, quick_lift("w18", 0.1) + quick_lift("w28", 0.15))
    play.wait(0.6)
    assert play.played() == [Swap(S("w18"), S("w28"))]


# --- 3. fast hands between turns -----------------------------------------------------------------


def two_swaps():
    """Third Eye, Black to move: two Memory Swaps (b38 with b18, b59 with b19) and then b28-b27."""
    from tests.support.refplay import find_position

    def pred(g):
        if not g.third_eye or g.to_move != "black":
            return None
        a, b, m = Swap(S("b38"), S("b18")), Swap(S("b59"), S("b19")), mv("b28", "b27")
        if a not in g.legal_actions():
            return None
        g.push(a)
        try:
            ok = b in g.legal_actions()
        finally:
            g.pop()
        return (a, b, m) if ok else None

    return find_position(pred, modes=("third_eye",))


def swap_on_board(play, m, o, gap=0.12):
    play.lift(m, then=gap)
    play.lift(o, then=gap)
    play.place(m, then=gap)
    play.place(o, then=0.0)


@pytest.mark.parametrize("done", [False, True])
@pytest.mark.parametrize("word_after", [0.02, 0.1, 0.3])
def test_several_swaps_in_a_third_eye_turn_are_each_read_with_or_without_done(done, word_after):
    """Issue 17: "Several Memory Swaps in one Third Eye turn without done between them: the second is
    dropped".  Actions of one turn 0.3 s apart, the second swap declared ``word_after`` the first's
    last placement (before the first is read, or after)."""
    game, (a, b, m) = two_swaps()
    play = Play(game)
    play.say("black", {"type": "swap"})
    swap_on_board(play, "b38", "b18")
    play.wait(word_after)
    if done:
        play.say("black", {"type": "done"})
    play.say("black", {"type": "swap"})
    play.wait(0.32 - word_after)
    swap_on_board(play, "b59", "b19")
    play.wait(0.1)
    if done:
        play.say("black", {"type": "done"})
    play.wait(0.3)
    play.move("b28", "b27", then=0.3)
    play.lift(sorted(n for n in game.occupied() if game.owner[game.state.board[n]] == "white")[0], then=0.4)
    assert play.played()[:3] == [a, b, m]
    assert not refused(play) and not questions(play)


@pytest.mark.parametrize("rest", [0.085, 0.3])
def test_a_flash_outcome_the_next_player_picks_up_85_ms_after_it_landed_stays_seen(rest):
    """Issue 17: "A placement followed at once by the next player's lift of the same tower ... is
    never seen".  A swap flash (spec 4: "the defender moves to the space where the attacker started
    that turn"); Black lifts the defender White put on w35 ``rest`` after it landed, to flash w36."""
    from engine.flash import SWAP

    game = classic({"w35": "M", "w34": "s", "w36": "P"})
    play = Play(game)
    play.lift("w35", then=0.1)
    play.lift("w34", then=0.6)
    flash = next(n for n in play.notices if n.kind == "flash").data
    assert flash["outcome"] == SWAP
    play.place("w34", then=0.2)
    play.place("w35", then=rest)  # Black's Shadow (the defender) lands on w35 ...
    play.lift("w35", then=0.1)  # ... and Black picks it up again at once
    play.lift("w36", then=0.6)
    assert play.played() == [mv("w35", "w34")]
    assert any(n.kind == "flash" and n.data["player"] == "black" for n in play.notices)
    assert not [n for n in play.notices if n.kind == "waiting" and n.audience == "public" and n.data.get("sensors")]


def test_a_tower_that_rests_85_ms_on_the_way_is_still_no_placement():
    """The other side: the mover's own tower resting 85 ms on w33 on its way to w32 is one move to
    w32, not a move to w33 and the rival's beginning."""
    game = classic({"w35": "S", "b35": "p"})
    play = Play(game)
    play.lift("w35", then=0.2)
    play.place("w33", then=0.085)
    play.lift("w33", then=0.1)
    play.place("w32", then=0.5)
    assert play.played() == [mv("w35", "w32")]


def test_a_time_declared_before_the_rival_rewinds_a_swap_at_once_splits_the_lifts():
    """White's Memory Swap; Black says "time" as it lands and, 0.13 s after the last put-back, lifts
    the same two towers to swap them back (Classic Time: "Undo your rival's last action"), then
    takes the Time tower off.  Four lifts and put-backs of w18 and w28: the swap, then the rewind,
    not one long swap and a Time that never comes."""
    game = classic({"w18": "M", "w28": "V", "b38": "t", "b35": "p"})
    play = Play(game)
    play.say("white", {"type": "swap"})
    play.lift("w18", then=0.15)
    play.lift("w28", then=0.2)
    play.place("w18", then=0.15)
    play.place("w28", then=0.05)
    play.say("black", {"type": "time"})
    play.wait(0.08)
    play.lift("w28", then=0.15)
    play.lift("w18", then=0.2)
    play.place("w28", then=0.15)
    play.place("w18", then=0.2)
    play.lift("b38", then=0.6)
    assert play.played() == [Swap(S("w18"), S("w28")), Time(S("b38"))]
    assert not questions(play) and not refused(play)


def test_the_rivals_lift_at_the_very_moment_the_movers_last_tower_leaves_is_the_next_step():
    """No noise, one scan: Black's flash target leaves (mutual destruction: the action is complete)
    in the same snapshot as White's hand lifts w35 to begin the next turn.  The two stable changes
    come together; the one Black's flash uses is read first (soak seed 10007)."""
    from engine.flash import MUTUAL

    game = classic({"b35": "s", "b34": "V", "w35": "P"}, "black")
    play = Play(game)
    play.lift("b35", then=0.2)
    play.board.lift(S("b34"))
    play.board.lift(S("w35"))  # w35 is a lower space number than b34
    play.feed()
    play.wait(0.4)
    play.place("w34", then=0.5)
    assert play.played() == [mv("b35", "b34"), mv("w35", "w34")]
    assert [n.data["outcome"] for n in play.notices if n.kind == "flash" and n.audience == "public"] == [MUTUAL]


def growing():
    """White (Third Eye): Voids on w35 (an anchor), w18 and w58."""
    return third_eye({"w35": "V", "w18": "V", "w58": "V", "b35": "s"})


def test_a_done_said_as_the_first_void_is_lifted_does_not_end_the_gravity():
    """A brisk hand's `done` for what came before (a swap's, 0.1 to 0.4 s after it) arrives 30 ms into
    the first Void's lift: it cannot say that a Gravity not yet on the board is over, so the second
    Void still counts (soak seeds 10020, 10021, 10031: a two-Void Gravity committed after one)."""
    game = growing()
    play = Play(game)
    play.lift("w18", then=0.03)
    play.say("white", {"type": "done"})
    play.wait(0.25)
    play.place("w34", then=0.4)
    play.move("w58", "w36", then=0.3)
    play.lift("b35", then=0.3)  # the rival starts
    assert play.played() == [gravity("w35", {"w18": "w34", "w58": "w36"})]


def test_a_done_said_once_the_void_is_down_still_ends_the_gravity_at_once():
    """The other side: `done` after the first Void landed ends the Gravity there."""
    game = growing()
    play = Play(game)
    play.move("w18", "w34", then=0.3)
    play.say("white", {"type": "done"})
    assert play.played() == [gravity("w35", {"w18": "w34"})]


def test_a_done_said_as_the_rival_lifts_a_void_ends_the_gravity_before_that_lift():
    """Soak seed 20109 (Third Eye, brisk): White's Void Gravity is on the board; Black said "time"
    for their turn; Black lifts White's Void on w24 to push it to w25 (Third Eye Time pushes a rival
    tower) and White's `done` arrives 80 ms into that lift.  The done ends the Gravity as the board
    stood: the push is Black's Time, not a second Void of White's Gravity (a wrong commit before:
    the push was folded into the Gravity, and Black's Time lost)."""
    game = third_eye({"w35": "V", "w18": "V", "w24": "V", "b38": "t", "b35": "s"})
    play = Play(game)
    play.move("w18", "w34", then=0.25)
    play.say("black", {"type": "time"})
    play.wait(0.2)
    play.lift("w24", then=0.08)
    play.say("white", {"type": "done"})
    play.wait(0.07)
    play.place("w25", then=0.25)
    play.lift("b38", then=0.6)
    first, time = play.played()
    # around w35 or around w24: both Voids pull w18 to w34, the same game (the referee names either)
    assert type(first) is Gravity and first.moves == ((S("w18"), S("w34")),) and first.void in (S("w35"), S("w24"))
    assert time == Time(S("b38"), S("w24"), S("w25"))
    assert not questions(play) and not refused(play)


def test_a_done_said_with_the_last_void_in_the_hand_keeps_that_void_in_the_gravity():
    """The other side: White lifts a second Void and says `done` before putting it down; nothing
    after it is the rival's, so the done is about the Gravity still in the hand: both Voids count."""
    game = third_eye({"w35": "V", "w18": "V", "w24": "V", "b38": "t", "b35": "s"})
    play = Play(game)
    play.move("w18", "w34", then=0.25)
    play.lift("w24", then=0.08)
    play.say("white", {"type": "done"})
    play.wait(0.07)
    play.place("w25", then=0.6)
    play.lift("b35", then=0.4)  # Black starts
    assert play.played() == [gravity("w35", {"w18": "w34", "w24": "w25"})]
    assert not questions(play) and not refused(play)


def landing(space, at, bounce=0.13):
    """A tower put down on ``space`` at ``at``, its reading bouncing for ``bounce`` s, then holding."""
    n = 7
    plan = [(at + bounce * i / (n - 1), space, i % 2 == 0) for i in range(n)]  # on, off, ..., on
    return plan + [(at + bounce + 0.005, space, None)]


def test_a_tower_flashed_by_the_next_player_as_soon_as_it_settled_stays_seen():
    """Issue 17: "a placement followed at once by the next player's lift of the same tower (0.24 s,
    with a bounce and a hover between) is never seen".  White's Shadow lands on w35 bouncing for
    130 ms; 125 ms after its last bounce (0.26 s after it touched down) Black lifts it to flash it
    from w34, then lifts the attacker.  Before, the move and Black's lifts were read as White's flash
    of w34 from w36 (the Shadow could), announced in public (soak seed 10034)."""
    game = classic({"w36": "S", "w34": "s", "b35": "p"})
    play = Play(game, step=0.005)
    play.lift("w36", then=0.25)
    play.board.place(S("w35"))
    heavy(play, landing("w35", 0.0))
    play.wait(0.12)
    play.lift("w35", then=0.1)
    play.lift("w34", then=0.6)
    flashes = [n.data for n in play.notices if n.kind == "flash" and n.audience == "public"]
    assert play.played() == [mv("w36", "w35")]
    assert [(f["player"], f["from"], f["at"]) for f in flashes] == [("black", "w34", "w35")]


def lifting(space, at, bounce=0.08):
    """A tower lifted from ``space`` at ``at``, its reading bouncing for ``bounce`` s, then empty."""
    n = 7
    plan = [(at + bounce * i / (n - 1), space, i % 2 == 1) for i in range(n)]  # off, on, ..., off
    return plan + [(at + bounce + 0.005, space, None)]


def test_a_tower_pushed_by_the_next_players_time_as_soon_as_it_settled_stays_where_it_landed():
    """Soak seed 20021 (Third Eye, heavy noise, brisk): White's Peripheral lands on w36 bouncing for
    80 ms; 0.20 s after it touched down (0.12 s after its last bounce) Black lifts it, the lift
    bouncing 80 ms too, says "time" 70 ms later and puts it down on w37 at once: a Third Eye Time
    pushes a rival tower.  The tower rested on w36 as long as a placement, counted from when it
    arrived as a placement's rest is everywhere (its bounces are its landing): White's move ends on
    w36.  (It landed beside another White tower, so for all Black knows it could be a Void Gravity's
    first Void: the move is not committed at Black's first lift.)  Before, it was read as White's
    move to w37, passing over w36, and Black's Time was lost."""
    game = third_eye({"w26": "P", "w35": "V", "w19": "t", "b35": "p"})
    play = Play(game, step=0.005)
    play.lift("w26", then=0.15)
    play.board.place(S("w36"))
    heavy(play, landing("w36", 0.0, bounce=0.08))
    play.wait(0.115)  # 0.20 s after the touch-down
    play.board.lift(S("w36"))
    heavy(play, lifting("w36", 0.0))
    play.wait(0.065)
    play.say("black", {"type": "time"})
    play.wait(0.005)
    play.board.place(S("w37"))
    heavy(play, landing("w37", 0.0, bounce=0.08))
    play.wait(0.22)
    play.lift("w19", then=0.6)
    assert play.played() == [mv("w26", "w36"), Time(S("w19"), S("w36"), S("w37"))]
    assert not questions(play) and not refused(play)


def _rest_then_flash():
    """White's tower slid over w35 rests there 114 ms (placed, not yet rested ``quiet``), then w35 and
    Black's w34 are lifted.  Two games fit: White's flash of w34 from w36, the tower resting a moment
    on the way (a relaxed trace, classic-heavy-swap), or White's move to w35 and Black's flash of it
    from w34, begun at once (issue 31, hasty soak seeds 530016 and 530025)."""
    game = classic({"w36": "S", "w34": "s", "b35": "p"})
    play = Play(game, step=0.005)
    play.lift("w36", then=0.2)
    play.place("w35", then=0.114)
    play.lift("w35", then=0.3)
    play.lift("w34", then=0.6)
    return play


def test_a_tower_resting_114_ms_on_its_way_into_a_flash_is_the_movers_flash_when_they_say_so():
    """The mover is asked, privately, before anything is announced; their answer "the flash" is
    announced as White's flash from w36 (the rulebook's flash: both towers revealed)."""
    play = _rest_then_flash()
    # nothing announced while the board may still tell them apart (the next player's flash goes on
    # with its outcome where its two towers were), nothing asked yet
    assert [n for n in play.notices if n.audience == "public" and n.kind == "flash"] == []
    assert questions(play) == []
    play.wait(1.1)  # the board still ``multi_settle`` (1.5 s) since the last lift settled: the mover is asked
    [q] = questions(play)
    assert q.audience == "white"
    assert {(o["from"], o["to"]) for o in q.data["options"]} == {("w36", "w34"), ("w36", "w35")}
    play.say("white", {"type": "choose", "action": mv("w36", "w34").to_record()})
    play.wait(0.3)
    flashes = [n.data for n in play.notices if n.kind == "flash" and n.audience == "public"]
    assert [(f["player"], f["from"], f["at"]) for f in flashes] == [("white", "w36", "w34")]
    assert play.played() == [] or play.played()[0] == mv("w36", "w34")


def test_the_next_player_lifting_the_movers_tower_as_it_landed_to_flash_it_is_their_flash_when_the_mover_says_so():
    """The other side: the mover answers "my move to w35"; the move is committed and what came after
    is Black's flash of w35 from w34, announced as Black's.  Without the question the board had
    announced White's flash of w34, then committed it when the flash's tower came back to w34: a
    wrong commit (hasty seed 530025)."""
    play = _rest_then_flash()
    play.wait(1.1)
    assert [n.audience for n in questions(play)] == ["white"]
    play.say("white", {"type": "choose", "action": mv("w36", "w35").to_record()})
    play.wait(0.3)
    assert play.played() == [mv("w36", "w35")]
    flashes = [n.data for n in play.notices if n.kind == "flash" and n.audience == "public"]
    assert [(f["player"], f["from"], f["at"]) for f in flashes] == [("black", "w34", "w35")]


def test_the_next_players_flash_of_the_tower_as_it_landed_is_settled_by_its_outcome_unasked():
    """The board tells them apart when it goes on: the outcome of Black's flash of w35 (two Shadows
    trade places: White's to w34, Black's to w35) put down where its two towers were.  White's flash
    of w34 from w36 would have left w36 filled and w35 empty.  Nothing was announced before, no one
    is asked: White's move to w35, then Black's flash."""
    play = _rest_then_flash()
    play.place("w34", then=0.1)
    play.place("w35", then=0.8)
    assert play.played() == [mv("w36", "w35"), mv("w34", "w35")]
    flashes = [n.data for n in play.notices if n.kind == "flash" and n.audience == "public"]
    assert [(f["player"], f["from"], f["at"]) for f in flashes] == [("black", "w34", "w35")]
    assert not questions(play) and not refused(play)


def test_a_word_said_once_the_rival_has_begun_counts_for_the_speakers_next_turn():
    """Issue 17: a word "counted for the player's earlier turn".  White's move is on the board; Black's
    Reinforcement touches b19; 2 ms later White taps "swap" (for their next turn, 0.3 s before they
    make it).  The swap word is kept for White's next turn, not spent on the move just played."""
    game = classic({"w18": "M", "w28": "V", "w35": "S", "b35": "p"}, reserve={"black": ["P"]})
    play = Play(game)
    play.lift("w35", then=0.2)
    play.place("w34", then=0.02)  # landed; not read yet (it must rest 0.14 s)
    play.say("black", {"type": "reinforce", "pieces": ["peripheral"]})
    play.board.place(S("b19"))
    play.feed()
    play.wait(0.002)
    play.say("white", {"type": "swap"})
    play.wait(0.5)
    assert play.played() == [mv("w35", "w34"), Reinforce(((S("b19"), "peripheral"),))]
    play.lift("w18", then=0.15)
    play.lift("w28", then=0.2)
    play.place("w18", then=0.15)
    play.place("w28", then=0.6)
    assert play.played()[2:] == [Swap(S("w18"), S("w28"))]
    assert not questions(play) and not refused(play)


def test_naming_an_earlier_action_of_ones_turn_after_it_ended_is_acknowledged():
    """A brisk player names an ambiguous action unprompted 0.2 to 1.5 s after it, by when their turn
    may be over: a Third Eye swap, then a move; the swap named once the rival is to move.
    It is acknowledged (it is recorded), not refused as out of turn."""
    game, (a, b, m) = two_swaps()
    play = Play(game)
    play.say("black", {"type": "swap"})
    swap_on_board(play, "b38", "b18")
    play.wait(0.3)
    play.move("b28", "b27", then=0.5)
    assert play.played() == [a, m] and game.to_move == "white"
    got = play.say("black", {"type": "choose", "action": a.to_record()})
    assert [(n.audience, n.kind) for n in got] == [("black", "instruction")]
    with pytest.raises(InputError, match="white's turn"):  # the other side: not an action of that turn
        play.say("black", {"type": "choose", "action": b.to_record()})


def two_time_towers():
    """A Third Eye position where White has two Time towers: two Powers of Time in one turn."""
    return third_eye({"w39": "T", "w38": "T", "b35": "p", "b25": "s"})


def test_a_second_time_word_said_while_the_first_push_lands_is_a_second_time_not_a_repeat():
    """Soak seed 10149 (Third Eye, brisk): the second "time" of a turn, tapped while the first
    Time's push was still landing, was dropped as a repeat, so the second push needed a one-option
    question.  A word said once the board has shown more since the first is a second Time."""
    play = Play(two_time_towers())
    play.say("white", {"type": "time"})
    play.wait(0.3)
    play.lift("w39", then=0.3)
    play.board.lift(S("b35"))
    play.feed()
    play.wait(0.2)
    play.board.place(S("b37"))
    play.feed()
    play.wait(0.03)  # the pushed tower landed 30 ms ago: the word is held, then judged
    play.say("white", {"type": "time"})
    play.wait(0.6)
    assert play.played() == [Time(S("w39"), S("b35"), S("b37"))]
    play.lift("w38", then=0.3)
    play.move("b25", "b27", then=0.6)
    assert play.played() == [Time(S("w39"), S("b35"), S("b37")), Time(S("w38"), S("b25"), S("b27"))]
    assert not refused(play) and not questions(play)


def test_a_time_word_repeated_before_the_board_shows_anything_is_one_time():
    """The other side: "time" tapped twice with nothing on the board between is one declaration;
    once that Time is played no second one is announced (the mover may just move on)."""
    play = Play(two_time_towers())
    play.say("white", {"type": "time"})
    play.wait(0.1)
    play.say("white", {"type": "time"})
    play.wait(0.3)
    play.lift("w39", then=0.3)
    play.move("b35", "b37", then=0.6)
    assert play.played() == [Time(S("w39"), S("b35"), S("b37"))]
    announced = [n for n in play.notices if n.kind == "time" and n.audience == "public" and not n.data.get("done")]
    assert len(announced) == 1
    assert not refused(play) and not questions(play)


def _reinforce_then_flash(word: bool):
    """White puts an Artificial Light from the reserve on the empty Gateway w39, its landing bouncing;
    6 ms later Black's hand is on White's w38 beside it (lifted, to flash it from w28), White taps
    `reinforce` 9 ms after the touch-down, and Black's attacker follows.  On the board, w39 filled and
    w38 emptied: White's tower sliding from w38 onto the Gateway makes the same two changes."""
    game = classic({"w38": "P", "w28": "p", "b35": "p"}, reserve={"white": ["A"]})
    play = Play(game, step=0.005)
    play.board.place(S("w39"))
    play.board.lift(S("w38"))
    plan = sorted(landing("w39", 0.0, bounce=0.06) + lifting("w38", 0.006, bounce=0.24))
    heavy(play, [p for p in plan if p[0] < 0.009])
    if word:
        got = play.say("white", {"type": "reinforce", "pieces": ["artificial_light"]})
        assert not [n for n in got if n.kind == "rejected"]
    heavy(play, [(t - 0.01, s, r) for t, s, r in plan if t >= 0.009])
    play.lift("w28", then=0.45)
    play.place("w38", then=0.8)
    return play


def test_a_reinforcement_said_as_it_landed_with_the_rival_at_once_on_the_tower_beside_it_is_the_reinforcement():
    """Hasty soak seed 720136 (Classic, medium noise): the two changes were read as White's slide
    w38-w39, the word left unused, a wrong commit.  The mover's own word names the reading (the rulebook's
    Reinforcement: "Bring in one of your Towers from your Zero Gravity board, and place it on one of
    your empty Gateways ... each one counts as a whole turn"), and what came after is Black's flash
    of w38 from w28."""
    play = _reinforce_then_flash(word=True)
    assert play.played()[:1] == [Reinforce(((S("w39"), "artificial_light"),))]
    flashes = [n.data for n in play.notices if n.kind == "flash" and n.audience == "public"]
    assert [(f["player"], f["from"], f["at"]) for f in flashes] == [("black", "w28", "w38")]
    assert not refused(play)


def test_the_same_changes_with_no_word_said_are_the_slide_onto_the_gateway():
    """The other side: no word, so no Reinforcement (its piece comes only from the mover's word):
    White's move w38-w39, then Black's move to the emptied w38."""
    play = _reinforce_then_flash(word=False)
    assert play.played()[:1] == [mv("w38", "w39")]
    assert not refused(play)


def _reinforce_beside_a_resurrection(word: bool):
    """White brings one Artificial Light onto the empty Gateway w59; 0.11 s later Black puts their
    resurrected Time tower on White's empty Gateway w49 and says so; White's `reinforce` (one
    Artificial Light) comes 0.28 s after White's placement, or never."""
    game = classic({"w38": "P", "b35": "p"}, reserve={"white": ["A", "A"]}, captured={"black": ["T"]})
    play = Play(game, step=0.005)
    play.place("w59", then=0.11)
    play.place("w49", then=0.066)
    play.say("black", {"type": "resurrect", "piece": "time"})
    play.wait(0.11)
    if word:
        play.say("white", {"type": "reinforce", "pieces": ["artificial_light"]})
    play.wait(1.6)
    return play


def test_a_reinforcement_of_one_light_is_not_held_for_a_second_the_word_rules_out():
    """Hasty soak seed 720081 (Third Eye, light noise): both Gateways filled could be White's
    Reinforcement of two Artificial Lights, so the reading of one was held for it, and the game
    stood ("clear b59").  White's word names one (the rulebook's Artificial Light: "bringing in as
    many Artificial Lights as you would like"; the word says how many): White's Reinforcement of
    w59, then Black's Resurrection on w49."""
    play = _reinforce_beside_a_resurrection(word=True)
    assert play.played() == [Reinforce(((S("w59"), "artificial_light"),)), Resurrect("time", S("w49"))]
    assert not refused(play) and not questions(play)


def test_without_the_word_nothing_of_the_reinforcement_is_committed():
    """The other side: no word, no piece to commit (it comes only from the mover's word)."""
    play = _reinforce_beside_a_resurrection(word=False)
    assert play.played() == []


def _lift_before_the_commit(put_back: bool):
    """Black's move lands on b33; 0.12 s after it touched down, before it is committed, White lifts
    w29 (bouncing 77 ms, then steadily empty 148 ms) and puts it down on w28; Black puts their
    resurrected Time tower on White's emptied Gateway w29 at once (or, the other side, nothing comes
    back to w29: a plain move, read as always)."""
    game = classic({"w29": "P", "b35": "p"}, "black", captured={"black": ["T"]})
    play = Play(game, step=0.005)
    play.move("b35", "b33", then=0.12)
    play.board.place(S("w28"))
    if not put_back:
        play.board.lift(S("w29"))
    edges = [0.0, 0.013, 0.026, 0.043, 0.048, 0.069, 0.077]
    plan = [(e, "w29", i % 2 == 1) for i, e in enumerate(edges)] + [(0.0, "w28", False)]
    plan += landing("w28", 0.124, bounce=0.08)
    plan += landing("w29", 0.225, bounce=0.07) if put_back else [(0.3, "w29", None)]
    heavy(play, plan)
    if put_back:
        play.say("black", {"type": "resurrect", "piece": "time"})
    play.wait(1.6)
    return play


def test_a_lift_begun_before_the_rivals_move_was_committed_is_found_when_a_tower_came_from_nowhere():
    """Hasty soak seed 720077 (Classic, heavy noise): White's lift of w29 began 88 ms before Black's
    move was committed and read steadily empty 148 ms only (a plain lift needs 150 ms), so White's
    tower on w28 came from nowhere and the game stood ("clear w28").  A lift that lasted ``off_delay``
    in all, as a bumped tower never does, counts when nothing else explains a placement: White's
    w29-w28, then Black's Resurrection on w29 (the rulebook: "Place the Tower on any one of your
    rival's empty Gateways")."""
    play = _lift_before_the_commit(put_back=True)
    assert play.played() == [mv("b35", "b33"), mv("w29", "w28"), Resurrect("time", S("w29"))]
    assert not refused(play) and not questions(play)


def test_the_same_move_with_its_lift_seen_whole_is_read_as_always():
    """The other side: the lift holds, nothing comes back: the plain move."""
    play = _lift_before_the_commit(put_back=False)
    assert play.played() == [mv("b35", "b33"), mv("w29", "w28")]
    assert not refused(play) and not questions(play)


def test_a_swapped_tower_lifted_as_it_landed_to_flash_it_is_no_flash_of_the_swapper():
    """Hasty soak seed 750005 (Classic, light noise): Black's Memory Swap b29-b49, its second tower
    put down on b49, lifted again 137 ms later by White and White's b47 lifted, to flash it.  Read as
    Black's flash of b47 from b49 (the swap's towers touched on the way), announced in public, then
    stuck.  As for a move's tower (``_rest_then_flash``): nothing announced while the board may tell;
    the outcome put down where White's flash's two towers were tells it (the rulebook's Memory Swap
    ends a Classic turn): the swap, then White's flash of b49 from b47."""
    game = classic({"b29": "m", "b49": "a", "b47": "S", "w35": "P"}, "black")
    play = Play(game, step=0.005)
    play.say("black", {"type": "swap"})
    play.lift("b29", then=0.26)
    play.lift("b49", then=0.39)
    play.place("b29", then=0.22)
    play.place("b49", then=0.137)
    play.lift("b49", then=0.226)
    play.lift("b47", then=0.3)
    assert [n for n in play.notices if n.audience == "public" and n.kind == "flash"] == []
    play.place("b49", then=0.8)
    assert play.played() == [Swap(S("b29"), S("b49")), mv("b47", "b49")]
    flashes = [n.data for n in play.notices if n.kind == "flash" and n.audience == "public"]
    assert [(f["player"], f["from"], f["at"]) for f in flashes] == [("white", "b47", "b49")]
    assert not refused(play) and not questions(play)


def test_a_quick_moves_tower_lifted_as_it_landed_to_flash_it_is_no_flash_of_the_mover():
    """Hasty soak seed 830082 (Classic, medium noise): White's quick move w19-w18 (its placement read
    stable 0.1 s before its lift, as a quick move's is), Black lifting w18 0.13 s after it landed,
    then Black's w12 to flash it.  Read as White's flash of w12 from w19 and announced in public,
    then stuck.  Nothing is announced while the board may tell; Black's outcome settles it."""
    game = classic({"w19": "S", "w12": "s", "b35": "p"})
    play = Play(game, step=0.005)
    play.board.lift(S("w19"))
    play.board.place(S("w18"))
    play.feed()
    play.wait(0.13)
    play.lift("w18", then=0.33)
    play.lift("w12", then=0.3)
    assert [n for n in play.notices if n.audience == "public" and n.kind == "flash"] == []
    play.place("w12", then=0.1)  # two Shadows trade places: White's to w12, Black's to w18
    play.place("w18", then=0.8)
    assert play.played() == [mv("w19", "w18"), mv("w12", "w18")]
    flashes = [n.data for n in play.notices if n.kind == "flash" and n.audience == "public"]
    assert [(f["player"], f["from"], f["at"]) for f in flashes] == [("black", "w12", "w18")]

