"""The referee's last wrong commits (issue 31): every word belongs to the turn its speaker meant, a
Reinforcement's piece comes only from the player's word, a rival's flash begun while the mover's
tower still bounced, a question not passed over once the rival begins, a word that waits for good.

Each test builds its position by hand and states what the board and the phones did, to the 5 ms, on a
manual clock; each fix is pinned on both sides."""


import pytest

from tests.support.refplay import Play, classic, gravity, heavy, mv, questions, quick_lift, refused, swap, third_eye

from engine.actions import Reinforce, Time
from engine.board import parse_space
from host.referee import InputError
from host.referee import wording

S = parse_space


def land(play, space, bounce=True):
    """A tower put down on ``space`` now, its reading bouncing for 50 ms as it lands (heavy noise)."""
    s = S(space)
    play.board.stick(s, False)
    play.board.place(s)
    edges = [0.0, 0.01, 0.02, 0.035, 0.05] if bounce else [0.0]
    heavy(play, [(e, space, i % 2 == 0) for i, e in enumerate(edges)] + [(edges[-1] + 0.005, space, None)])


# --- 1. every word belongs to the turn its speaker meant ------------------------------------------


def swap_next():
    """Black to move (a Peripheral on b35); White's Memory on w18 may swap with the Void on w28."""
    return classic({"w18": "M", "w28": "V", "b35": "p"}, "black")


@pytest.mark.parametrize("after", [0.0, 0.05, 0.1, 0.15, 0.2, 0.3])
def test_the_next_players_swap_word_as_the_rivals_tower_lands_counts_for_their_turn(after):
    """Issue 31: "the rival's placement has bounced and touched down 0.1 to 0.2 s earlier, not yet
    settled, and the next player taps swap at once and lifts a tower".  White's quick lifts (each
    steadily empty for 120 ms, under the full window's 150 ms) begin 20 ms after the word, while
    Black's move still settles: read in the word's light once White's turn begins."""
    play = Play(swap_next(), step=0.005)
    play.lift("b35", then=0.2)
    land(play, "b34")  # touched down; its bounces end 55 ms later
    play.wait(after - 0.055) if after > 0.055 else None
    got = play.say("white", {"type": "swap"})
    assert [n.kind for n in got if n.audience == "white"] in (["instruction"], [])
    heavy(play, quick_lift("w18", 0.02) + quick_lift("w28", 0.07))
    play.wait(0.6)
    assert play.played() == [mv("b35", "b34"), swap("w18", "w28")]
    assert not refused(play) and not questions(play)


def void_step_next():
    """Third Eye, Black to move: Black's unrevealed tower on b35 may step to b34 beside another on b33
    (for all White can tell the first Void of a Gravity: read once White's hands touch the board, or
    after 1.5 s of stillness); White's Memory on w18 may swap with the tower on w28."""
    return third_eye({"w18": "M", "w28": "V", "w35": "P", "b35": "v", "b33": "v", "b43": "s", "b58": "t"}, "black")


@pytest.mark.parametrize("after", [0.0, 0.1, 0.2, 0.3])
def test_the_next_players_swap_said_and_done_while_the_rivals_move_may_still_grow_is_read(after):
    """The Third Eye shape of the soak's wrong commits: White's swap word and both quick lifts come
    and go while Black's move still waits (it could be a Gravity), so the lifts are over before
    White's turn begins.  The lifts after the word are read in its light then, not lost."""
    play = Play(void_step_next(), step=0.005)
    play.lift("b35", then=0.2)
    land(play, "b34")
    play.wait(after - 0.055) if after > 0.055 else None
    play.say("white", {"type": "swap"})
    heavy(play, quick_lift("w18", 0.02) + quick_lift("w28", 0.07))
    play.wait(2.0)
    assert play.played() == [mv("b35", "b34"), swap("w18", "w28")]
    assert not refused(play) and not questions(play)


def test_the_same_quick_lifts_with_no_word_are_nothing():
    """The other side: without the word, the same quick lifts where nothing is expected are never a
    lift (a bump or a hand straightening towers commits nothing)."""
    play = Play(swap_next(), step=0.005)
    play.lift("b35", then=0.2)
    land(play, "b34")
    heavy(play, quick_lift("w18", 0.07) + quick_lift("w28", 0.12))
    play.wait(1.5)
    assert play.played() == [mv("b35", "b34")]
    assert not questions(play)


def test_a_word_before_the_rival_has_moved_at_all_is_answered_as_today():
    """Said while Black has not touched the board: a choose is refused "it is black's turn" whatever
    it names; any other word is noted for White's turn."""
    play = Play(swap_next(), step=0.005)
    for action in (swap("w18", "w28"), mv("w18", "w11")):  # legal for White, and not
        with pytest.raises(InputError, match="^it is black's turn$"):
            play.say("white", {"type": "choose", "action": action.to_record()})
    got = play.say("white", {"type": "swap"})
    assert [(n.audience, n.kind, n.data["text"]) for n in got] == [("white", "instruction", wording.QUEUED)]
    play.move("b35", "b34", then=0.4)
    heavy(play, quick_lift("w18", 0.0) + quick_lift("w28", 0.05))
    play.wait(0.6)
    assert play.played() == [mv("b35", "b34"), swap("w18", "w28")]


def test_a_choose_as_the_rivals_tower_lands_is_kept_for_the_speakers_turn_and_judged_then():
    """A choose said 0.1 s after the rival's touch-down is not refused as "it is black's turn": it is
    noted, and judged once White's turn begins, against White's actions only."""
    play = Play(swap_next(), step=0.005)
    play.lift("b35", then=0.2)
    land(play, "b34")
    play.wait(0.045)
    got = play.say("white", {"type": "choose", "action": swap("w18", "w28").to_record()})
    assert [(n.audience, n.kind, n.data["text"]) for n in got] == [("white", "instruction", wording.QUEUED)]
    play.wait(0.3)
    assert play.played() == [mv("b35", "b34")]
    assert [w.action for w in play.ref.words["white"]] == [swap("w18", "w28")]
    heavy(play, quick_lift("w18", 0.0, held=0.3) + quick_lift("w28", 0.05, held=0.3))
    play.wait(0.6)
    assert play.played() == [mv("b35", "b34"), swap("w18", "w28")]
    assert not refused(play)


@pytest.mark.parametrize("after, kept", [(0.1, True), (0.3, True), (0.38, True), (0.42, False), (0.8, False)])
def test_a_choose_while_the_rivals_move_still_waits_is_kept_only_within_0_4_s_of_the_last_change(after, kept):
    """NEXT_WORD: Black's step that may be a Gravity waits 1.5 s of stillness; White's choose 0.1 to
    0.3 s after the touch-down is the brisk next player's, kept for their turn; once the board has
    been still 0.4 s it is refused as any choose during the rival's turn."""
    play = Play(void_step_next(), step=0.005)
    play.lift("b35", then=0.2)
    land(play, "b34", bounce=False)
    play.wait(after - 0.005)
    word = {"type": "choose", "action": swap("w18", "w28").to_record()}
    if kept:
        got = play.say("white", word)
        assert [(n.audience, n.data["text"]) for n in got] == [("white", wording.QUEUED)]
    else:
        with pytest.raises(InputError, match="^it is black's turn$"):
            play.say("white", word)
    assert play.played() == []


def test_a_choose_as_the_rivals_tower_lands_that_the_speaker_cannot_play_is_refused_to_them_alone():
    play = Play(swap_next(), step=0.005)
    play.lift("b35", then=0.2)
    land(play, "b34")
    play.wait(0.045)
    bad = {"type": "choose", "action": mv("w18", "w11").to_record()}  # w11 holds White's Light
    play.say("white", bad)
    play.wait(0.4)
    assert play.played() == [mv("b35", "b34")]
    (n,) = refused(play)
    assert n.audience == "white" and n.data["input"] == bad and n.data["reason"].startswith("choose")


def _rival_view(word):
    """Everything Black and the public see, at every scan, while Black's move lands, White says
    ``word`` (or nothing) 0.1 s after the touch-down, and Black's move is read; White's hands stay
    off the board.  Ends once White's turn has begun and its words were judged."""
    play = Play(swap_next(), step=0.005)
    seen = []

    def look():
        ref = play.ref
        seen.append((round(play.t, 3), ref.public_status(), ref.private_status("black"), sorted(ref.expected()),
                     [(n.audience, n.kind, n.data) for n in play.notices if n.audience != "white"]))

    play.lift("b35", then=0.2)
    land(play, "b34")
    for _ in range(9):
        play.wait(0.005)
        look()
    if word is not None:
        try:
            play.say("white", word)
        except InputError:
            pass
    for _ in range(120):
        play.wait(0.005)
        look()
    assert play.played() == [mv("b35", "b34")]
    return seen


def test_a_held_word_shows_nothing_to_the_rival_or_on_the_lights():
    """Hidden information: what White says for their turn while Black's tower lands -- a swap, a Time
    they have no tower for, a Reinforcement, an action they may play, one they may not -- changes
    nothing Black's phone, the status page or the LEDs (the public status) show, nor when."""
    words = [None, {"type": "swap"}, {"type": "time"}, {"type": "reinforce", "pieces": ["shadow"]},
             {"type": "choose", "action": swap("w18", "w28").to_record()},
             {"type": "choose", "action": mv("w18", "w11").to_record()}]
    views = [_rival_view(w) for w in words]
    for w, view in zip(words[1:], views[1:]):
        assert view == views[0], w


# --- 2. a Reinforcement's piece comes only from the player's word ----------------------------------


def reinforce_position():
    """White to move with a Reflector and an Artificial Light in reserve and one empty Gateway (w59);
    Black's Shadow on w58 may flash it at once (a Shadow captures both)."""
    return classic({"w19": "S", "w29": "V", "w39": "T", "w49": "P", "w18": "M", "b58": "S", "w58": "s"},
                   reserve={"white": ["R", "A"]})


@pytest.mark.parametrize("piece", ["reflector", "artificial_light"])
def test_a_reinforcement_flashed_as_it_still_bounces_is_committed_with_the_piece_said(piece):
    """Soak trace classic-heavy-reinforce-wrong-piece: Black lifted the reinforced tower 0.1 s after
    it touched down, to flash it; the reading was committed with the plainest piece, not the one
    said.  Both pieces, so the piece is the word's and nothing else's."""
    play = Play(reinforce_position(), step=0.005)
    play.say("white", {"type": "reinforce", "pieces": [piece]})
    land(play, "w59")
    play.wait(0.045)
    play.lift("w59", then=0.2)  # Black takes the reinforced tower off: captured
    play.lift("w58", then=0.2)
    play.place("w59", then=0.5)
    assert play.played() == [Reinforce(((S("w59"), piece),)), mv("w58", "w59")]
    assert not questions(play) and not refused(play)


def test_the_same_hurried_reinforcement_without_a_word_is_asked_about_not_guessed():
    play = Play(reinforce_position(), step=0.005)
    land(play, "w59")
    play.wait(0.045)
    play.lift("w59", then=0.2)
    play.lift("w58", then=0.2)
    play.place("w59", then=1.5)
    assert play.played() == []
    (q,) = questions(play)
    assert q.audience == "white" and q.data["text"] == wording.ASK_WHICH_TOWER
    play.say("white", {"type": "reinforce", "pieces": ["reflector"]})
    play.wait(0.3)
    assert play.played() == [Reinforce(((S("w59"), "reflector"),)), mv("w58", "w59")]


# --- 2. a rival's flash begun while the mover's tower still bounced --------------------------------


def flash_next():
    """Black to move: Black's Shadow on b35 may step to b33; White's Shadow on b43 (out of its reach)
    may then flash it along Ring 3 (a Shadow flashing a Shadow swaps: no space changes occupancy)."""
    return classic({"b35": "s", "b43": "S", "w35": "P"}, "black")


def bouncing_then_lifted(play):
    """Black's Shadow from b35 lands on b33, bounces, holds 60 ms and is lifted again, every edge
    within 0.1 s of the one before (one burst: the lift's first edge is the landing's)."""
    play.lift("b35", then=0.2)
    s = S("b33")
    play.board.stick(s, False)
    play.board.place(s)
    heavy(play, [(0.0, "b33", True), (0.01, "b33", False), (0.02, "b33", True), (0.07, "b33", False),
                 (0.08, "b33", True), (0.14, "b33", False), (0.15, "b33", True), (0.19, "b33", False)])
    return s


def test_a_rivals_swap_flash_begun_as_the_movers_tower_still_bounced_is_read_after_it():
    """Soak trace classic-heavy-move-misread: Black's tower bounced on b33 for 0.2 s and White lifted
    it at once (within one burst of the landing's edges) to swap-flash it from b43.  Read as Black's
    move with White's tower lifted and put back in the middle, White's flash was lost and every turn
    after it shifted; now Black's move, then White's flash."""
    play = Play(flash_next(), step=0.005)
    s = bouncing_then_lifted(play)
    play.wait(0.1)  # Black's Shadow in White's hand
    play.lift("b43", then=0.3)
    play.board.stick(s, None)
    play.board.lift(s)
    play.place("b43", then=0.3)  # Black's Shadow where White's came from
    play.place("b33", then=0.6)  # White's Shadow on b33
    assert play.played() == [mv("b35", "b33"), mv("b43", "b33")]
    assert not questions(play) and not refused(play)


def test_the_mover_settling_their_own_bouncing_tower_is_still_one_move():
    """The other side: the same bouncing landing lifted and put down again by Black's own hand (no
    action of White's follows): one move, and nothing of White's."""
    play = Play(flash_next(), step=0.005)
    s = bouncing_then_lifted(play)
    play.wait(0.1)  # in Black's own hand
    play.board.stick(s, None)
    play.feed()
    play.wait(0.8)
    assert play.played() == [mv("b35", "b33")]
    assert not questions(play)


# --- 2. an open question holds its board when the rival begins --------------------------------------


def two_memories():
    """Third Eye, White to move: Memories on w18 and w28 (a Memory swapping with a Memory: which one
    spent its swap is a question), a Peripheral on w35, Black's Shadow on b35."""
    return third_eye({"w18": "M", "w28": "M", "w35": "P", "b35": "s"})


def test_a_question_about_a_swap_stays_open_when_the_move_after_it_and_the_rivals_lift_come():
    """Soak trace third-eye-light-swap-word-while-rival-lands: White swapped two Memories (asked which
    one spent its swap), sent done, moved on, and Black began before White chose: the move was
    committed alone and the swap lost.  Now nothing is committed until the answer, then both."""
    play = Play(two_memories(), step=0.005)
    play.say("white", {"type": "swap"})
    play.lift("w18", then=0.1)
    play.lift("w28", then=0.2)
    play.place("w18", then=0.1)
    play.place("w28", then=0.4)
    (q,) = questions(play)
    got = play.say("white", {"type": "done"})  # not an answer: not refused, the question said again
    assert [(n.kind, n.data["options"]) for n in got] == [("question", q.data["options"])]
    play.move("w35", "w34", then=0.3)
    play.lift("b35", then=0.5)  # Black begins
    assert play.played() == []
    play.say("white", {"type": "choose", "action": swap("w28", "w18").to_record()})
    play.wait(0.1)
    assert play.played() == [swap("w28", "w18"), mv("w35", "w34")]
    assert not refused(play)


def test_a_swap_that_needs_no_question_is_committed_before_the_move_after_it():
    """The other side: a Memory swapping with a Void leaves one game: no question, swap then move."""
    play = Play(third_eye({"w18": "M", "w28": "V", "w35": "P", "b35": "s"}), step=0.005)
    play.say("white", {"type": "swap"})
    play.lift("w18", then=0.1)
    play.lift("w28", then=0.2)
    play.place("w18", then=0.1)
    play.place("w28", then=0.4)
    play.move("w35", "w34", then=0.3)
    play.lift("b35", then=0.5)
    assert play.played() == [swap("w18", "w28"), mv("w35", "w34")]
    assert not questions(play)


# --- 2. a word that waits for the rest of the turn never waits for good -----------------------------


def full_gateways():
    return classic({"w19": "S", "w29": "V", "w39": "T", "w49": "P", "w59": "R", "b35": "s"},
                   reserve={"white": ["A"]})


def test_a_word_waiting_for_the_turn_is_refused_once_the_board_is_back_as_it_was():
    """Soak trace classic-heavy-gateway-placement-stuck: "reinforce" said with every Gateway full while
    a tower was in the hand (noted "it counts once the board shows what you did before it"), then the
    tower put back: refused privately with the engine's reason once the board settled, not waited
    for with "place the tower on your empty Gateway" for good."""
    play = Play(full_gateways(), step=0.005)
    play.lift("w39", then=0.2)
    got = play.say("white", {"type": "reinforce", "pieces": ["artificial_light"]})
    assert [n.data["text"] for n in got if n.kind == "instruction"] == [wording.AFTER]
    play.place("w39", then=0.6)
    (n,) = refused(play)
    assert n.audience == "white" and "Gateways is empty" in n.data["reason"]
    assert play.ref.words["white"] == [] and play.ref.is_idle()


def test_a_word_waiting_for_the_turn_is_not_refused_while_the_tower_is_still_in_the_hand():
    play = Play(full_gateways(), step=0.005)
    play.lift("w39", then=0.2)
    play.say("white", {"type": "reinforce", "pieces": ["artificial_light"]})
    play.wait(1.0)
    assert not refused(play) and len(play.ref.words["white"]) == 1


# --- soak: a done said as the rival began, after a Gravity's last Void but one ---------------------


def last_voids():
    """Third Eye, White to move: Voids on w57 (the anchor), w44 and w55; Black's Shadow on w58, so
    that a Gravity pulling both (w44 to w47, w55 to w56) can grow no more; Black's Time tower on b29
    may push w55 back to w56."""
    return third_eye({"w57": "V", "w44": "V", "w55": "V", "w58": "s", "b29": "t", "b35": "p"})


def test_a_done_said_as_the_rival_lifts_the_movers_last_void_ends_the_gravity_before_it():
    """Soak seed 74176: White's Gravity pulled w44 to w47; Black, having said "time", lifted White's
    Void on w55 to push it; White's done came 60 ms into that lift.  The Gravity pulling both Voids
    could grow no more, so it was not checked against the done, and it was committed (a wrong
    game: Black's push folded into White's Gravity)."""
    play = Play(last_voids(), step=0.005)
    play.move("w44", "w47", then=0.2)
    play.say("black", {"type": "time"})
    play.lift("w55", then=0.06)
    play.say("white", {"type": "done"})
    play.wait(0.2)
    play.place("w56", then=0.3)
    play.lift("b29", then=0.6)
    assert play.played() == [gravity("w57", {"w44": "w47"}), Time(S("b29"), S("w55"), S("w56"))]
    assert not questions(play) and not refused(play)


def test_a_done_said_with_the_movers_own_last_void_in_the_hand_keeps_it_in_the_gravity():
    """The other side: White lifts their own last Void, says done while it is in the hand, and puts
    it beside the anchor: one Gravity pulling both."""
    play = Play(last_voids(), step=0.005)
    play.move("w44", "w47", then=0.2)
    play.lift("w55", then=0.06)
    play.say("white", {"type": "done"})
    play.wait(0.2)
    play.place("w56", then=0.6)
    assert play.played() == [gravity("w57", {"w44": "w47", "w55": "w56"})]
    assert not questions(play) and not refused(play)


def test_the_next_players_word_after_the_gravity_landed_ends_it_before_their_push():
    """Soak seeds 300499 and 300457: Black's Gravity landed; White said "time" 0.22 s later and pushed
    one of Black's Voids with it.  The push was read as more of Black's Gravity (a wrong commit).
    Here with colours turned: White's Gravity pulls w44 to w47; Black says "time" 0.2 s after it
    landed, then lifts White's Void on w55 and pushes it to w56 with the Time tower on b29.  The word
    said the Gravity was over (docs/referee.md, "Every word belongs to the turn its speaker meant")."""
    play = Play(last_voids(), step=0.005)
    play.move("w44", "w47", then=0.2)
    play.say("black", {"type": "time"})
    play.lift("w55", then=0.3)
    play.place("w56", then=0.3)
    play.lift("b29", then=0.6)
    assert play.played() == [gravity("w57", {"w44": "w47"}), Time(S("b29"), S("w55"), S("w56"))]
    assert not questions(play) and not refused(play)


def test_a_word_the_next_player_said_before_the_gravity_began_does_not_end_it():
    """The other side: Black says "time" before White has touched a tower (kept for Black's turn);
    White's Gravity then pulls both Voids, w44 to w47 and w55 to w56.  Nothing of the Gravity was on
    the board when the word came, so it ends nothing: one Gravity pulling both, once the board has
    been still as long as it would be without the word (before, the push that Black's word made
    possible was held open for ever: the board read as fitting nothing, which told of the word)."""
    play = Play(last_voids(), step=0.005)
    play.say("black", {"type": "time"})
    play.wait(0.3)
    play.move("w44", "w47", then=0.2)
    play.move("w55", "w56", then=2.0)  # the Gravity's multi_settle (1.5 s) of stillness ends it
    assert play.played() == [gravity("w57", {"w44": "w47", "w55": "w56"})]
    assert not questions(play) and not refused(play)


# --- soak: the next player's lift under 0.1 s after the rival's last landing bounce -----------------


def push_next():
    """Third Eye, White to move: White's Peripheral on w26 may step to w36 (or on to w37); Black's
    Time tower on w19 may push a White tower one space."""
    return third_eye({"w26": "P", "w35": "V", "w19": "t", "b35": "p"})


def landed_then_lifted(play, lift_after):
    """White's Peripheral from w26 lands on w36 bouncing for 60 ms (landed and holding 50 ms: a
    stable placement), and is lifted again ``lift_after`` s after it touched down, that lift bouncing
    80 ms: every edge within 0.1 s of the one before."""
    play.lift("w26", then=0.15)
    s = S("w36")
    play.board.place(s)
    heavy(play, [(0.01 * i, "w36", i % 2 == 0) for i in range(7)] + [(0.065, "w36", None)])
    play.wait(lift_after - 0.065)
    play.board.lift(s)
    heavy(play, [(0.08 * i / 6, "w36", i % 2 == 1) for i in range(7)] + [(0.085, "w36", None)])


def test_a_tower_lifted_for_a_time_push_under_0_1_s_after_its_last_bounce_stays_where_it_landed():
    """Soak seed 70008 (Third Eye, light noise, hasty): White's tower landed on w26 bouncing 62 ms,
    rested there, and Black lifted it 0.16 s after it touched down but only 98 ms after its last
    bounce, said "time" 43 ms into the lift and put it on w27 0.29 s after lifting it: a Time push.  The lift's first edge
    was within 0.1 s of the landing's last, so it was read as more flicker of the landing: the tower
    seemed to rest on w26 not at all, and White's move was committed to w27 (a wrong commit), Black's
    Time then waiting for good.  A change of a space whose placement was already seen is a new lift,
    however soon: the tower rested 155 ms from its arrival, a placement, as anywhere else."""
    play = Play(push_next(), step=0.005)
    landed_then_lifted(play, 0.155)  # 95 ms after the last bounce
    play.say("black", {"type": "time"})  # once the lift began: it is no word said before it
    play.wait(0.2)  # the tower in Black's hand, its lift read (150 ms), then put down
    play.board.place(S("w37"))
    heavy(play, [(0.01 * i, "w37", i % 2 == 0) for i in range(7)] + [(0.065, "w37", None)])
    play.wait(0.22)
    play.lift("w19", then=0.6)
    assert play.played() == [mv("w26", "w36"), Time(S("w19"), S("w36"), S("w37"))]
    assert not questions(play) and not refused(play)


def test_a_tower_resting_a_moment_on_its_way_bouncing_all_the_while_is_one_move():
    """The other side: White's own hand slides the same tower on, lifting it from w36 0.10 s after it
    touched down (under the ``quiet`` rest of a placement) and setting it on w37, nothing said by
    Black: one move to w37."""
    play = Play(push_next(), step=0.005)
    landed_then_lifted(play, 0.10)
    play.place("w37", then=0.8)
    assert play.played() == [mv("w26", "w37")]
    assert not questions(play) and not refused(play)


# --- hasty soak: the mover's Time said as their hand lifted the rival's tower -----------------------


def time_or_flash():
    """Classic, White to move: White's Void on w17 steps to w18; Black's Time tower on w28 may then
    rewind that move, or flash the Void on w18 (a Time tower on a Void: both leave the board)."""
    return classic({"w17": "V", "w28": "t", "b35": "p", "b58": "s"}, "white")


def test_the_movers_time_said_as_they_lift_the_rivals_tower_is_a_time_not_a_flash():
    """Hasty soak seed 520001 (Classic, medium noise): White moved w17-w18; Black lifted the Time
    tower on w28, then White's tower on w18 to rewind it, and tapped "time" 13 ms into that lift.  The
    board then showed both towers lifted: the flash of the Time tower on the Void, both destroyed, was
    read before the word and committed (a wrong commit; the word was kept for Black's next turn).  A
    declaration said while the mover's own lift was still under way is about that lift."""
    play = Play(time_or_flash(), step=0.005)
    play.move("w17", "w18", then=0.2)
    play.lift("w28", then=0.27)
    play.lift("w18", then=0.015)
    play.say("black", {"type": "time"})
    play.wait(0.3)
    play.place("w17", then=0.6)
    assert play.played()[:2] == [mv("w17", "w18"), Time(S("w28"))]
    assert not refused(play)


def test_the_same_lifts_without_a_word_are_the_flash():
    """The other side: the same two lifts and no word: the Time tower flashed the Void, both gone."""
    play = Play(time_or_flash(), step=0.005)
    play.move("w17", "w18", then=0.2)
    play.lift("w28", then=0.27)
    play.lift("w18", then=0.6)
    assert play.played() == [mv("w17", "w18"), mv("w28", "w18")]
    assert not refused(play)
