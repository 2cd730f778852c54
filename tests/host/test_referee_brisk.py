"""The referee at a brisk table (issue 17): words and towers on one clock, evidence read in
context, fast hands between turns.  Each test builds its position by hand and states what the
board and the phones did, to the hundredth of a second."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))

from refplay import Play  # noqa: E402

from engine.actions import Move, Reinforce, Resurrect, Swap, Time  # noqa: E402
from engine.board import parse_space  # noqa: E402
from host.referee import InputError  # noqa: E402
from tests.engine.helpers import position  # noqa: E402
from tests.engine.te_helpers import build  # noqa: E402

S = parse_space
LIGHTS = {"w11": "L", "b11": "l"}


def _with_lights(towers: dict) -> dict:
    out = dict(towers)
    for space, letter in LIGHTS.items():
        if letter not in towers.values():
            out.setdefault(space, letter)
    return out


def classic(towers, to_move="white", **kw):
    return position(_with_lights(towers), to_move, **kw)


def third_eye(towers, to_move="white", **kw):
    return build(_with_lights(towers), to_move, **kw)


def mv(a, b):
    return Move(S(a), S(b))


def refused(play, player=None):
    """Words refused, raised or told later (a held word's refusal is a private 'rejected' notice)."""
    return [n for n in play.notices if n.kind == "rejected" and "input" in n.data
            and (player is None or n.audience == player)]


def questions(play):
    return [n for n in play.notices if n.kind == "question" and n.data["options"]]


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
