"""The rival's action played elsewhere, as the board side tells it (issue 28, items 1 and the brisk
hands): on the referee's manual clock (tests/support/refplay.py).

The false "Black moved out of turn" alarm of issue 28 had this cause: once the rival's action came,
the referee's public status said it was the board's player's move (``to_move`` of the game *after*
the plan) while the board still showed the rival's tower where it stood; the board's difference
from what the referee expected (lift the rival's tower here, place it there) then read, on every
screen, as the rival having moved out of turn.  The plan is the rival's turn until the board shows
it carried out."""


import pytest

from tests.support.refplay import Play

from engine.actions import Move, Swap
from engine.board import SPACE_NAMES as N, other, parse_space as S
from engine.game import Game
from engine.views import action_seen_by
from host.opponent.driver import plan_of
from host.referee import Phase

SETS = {"white": ("time", "void"), "black": ("time", "void")}

#: per side of this board: its own tower and move, the rival's tower and the rival's move
SIDES = {
    "white": {"mine": ("w35", "w36"), "rival": ("b35", "b34")},
    "black": {"mine": ("b35", "b34"), "rival": ("w35", "w34")},
}


def position(to_move: str) -> Game:
    board = {"w35": ("white", "shadow"), "b35": ("black", "shadow"), "w11": ("white", "light"),
             "b11": ("black", "light")}
    return Game.from_position(board, to_move, sets=SETS, turn=10)


def rival_played(local: str) -> tuple[Game, dict]:
    """The rival's move played elsewhere: the position after it and its public plan."""
    rival = other(local)
    frm, to = SIDES[local]["rival"]
    game = position(rival)
    action = Move(S(frm), S(to))
    mine = frozenset(N[s] for s in game.occupied() if game.owner[game.state.board[s]] == local)
    plan = plan_of(action, action_seen_by(game, action, rival, None), rival, mine)
    game.push(action)
    return game, plan


def follow_notices(play):
    return [n for n in play.notices if n.kind == "instruction" and n.data.get("for") == "follow"]


def corrections_said(play):
    """Instructions asking to put something right (the plan itself is not one)."""
    return [n for n in follow_notices(play) if n.data.get("instructions") and "plan" in n.data
            and n.data["instructions"] != [dict(n.data["plan"], do=n.data["plan"].get("do", "follow"))]]


@pytest.mark.parametrize("local", ["white", "black"])
def test_the_rivals_plan_is_the_rivals_turn_until_the_board_shows_it(local):
    rival = other(local)
    play = Play(position(rival), reads={local})
    turn = play.ref.public_status()["turn"]
    after, plan = rival_played(local)
    play.notices += play.ref.follow(after, plan)
    assert after.to_move == local  # the game after the plan is the board's player's move ...
    for _ in range(30):  # ... but while the board waits for the plan (3 s, nobody touching it)
        status = play.ref.public_status()
        assert status["to_move"] == rival and status["turn"] == turn and status["following"] == rival, status
        assert status["waiting_for"] == f"{rival}'s action, played from afar, to be carried out on the board"
        play.wait(0.1)
    assert corrections_said(play) == []  # no alarm nobody caused
    frm, to = SIDES[local]["rival"]
    play.lift(frm, then=0.2)
    assert play.ref.public_status()["to_move"] == rival  # half done is not done
    play.place(to, then=0.6)
    status = play.ref.public_status()
    assert play.ref.state is Phase.PLAY
    assert status["to_move"] == local and status["turn"] == after.turn and status["following"] is None
    assert status["waiting_for"] == f"{local} to play"
    done = follow_notices(play)[-1]
    assert done.data["done"] and done.data["text"] == f"done: the board shows the rival's action; {local} to play"


@pytest.mark.parametrize("gap", [0.02, 0.07, 0.14])
@pytest.mark.parametrize("local", ["white", "black"])
def test_brisk_hands_lift_their_own_tower_at_once_after_carrying_out_the_plan(local, gap):
    """Issue 28: "lifting one's own tower within 0.14 s of finishing the rival's move brings
    corrections until it is put back".  The board showed the plan done; the lift that follows is the
    board's player's next move, read as at one table."""
    rival = other(local)
    play = Play(position(rival), reads={local})
    after, plan = rival_played(local)
    play.notices += play.ref.follow(after, plan)
    frm, to = SIDES[local]["rival"]
    mine_from, mine_to = SIDES[local]["mine"]
    play.lift(frm, then=0.2)
    play.place(to, then=gap)  # the rival's tower down, and at once ...
    play.lift(mine_from, then=0.25)  # ... the board's player lifts their own
    assert play.ref.state is not Phase.FOLLOW
    assert play.ref.public_status()["to_move"] == local
    play.place(mine_to, then=0.8)
    assert corrections_said(play) == []
    assert not [n for n in play.notices if n.kind == "instruction" and n.data.get("instructions")
                and n.data.get("for") != "follow"]
    assert [(p, a) for _, p, a, _ in play.commits] == [(local, Move(S(mine_from), S(mine_to)))]


@pytest.mark.parametrize("local", ["white", "black"])
def test_a_lift_of_the_rivals_tower_at_once_after_the_plan_is_still_put_right(local):
    """The early end of a plan reads only what a move could be: the rival's tower lifted again at once
    and put on another space is the board differing from the game, and it is said."""
    rival = other(local)
    play = Play(position(rival), reads={local})
    after, plan = rival_played(local)
    play.notices += play.ref.follow(after, plan)
    frm, to = SIDES[local]["rival"]
    play.lift(frm, then=0.2)
    play.place(to, then=0.1)
    play.lift(to, then=0.2)
    play.place(frm, then=2.0)  # put back where it was: the rival's move undone on the board
    assert play.ref.state is Phase.PLAY and play.commits == []
    said = [n for n in play.notices if n.kind in ("instruction", "rejected") and n.data.get("instructions")]
    assert said, "the board differs from the game and nobody is told"
    assert any(i.get("from") == frm and i.get("to") == to for i in said[-1].data["instructions"]), said[-1].data


def test_a_plan_on_its_way_is_no_board_to_correct():
    """The rival's Memory Swap carried out by a slow hand: both towers held up for two seconds is the
    plan under way (the plan says what comes next), never "the board does not show the rival's
    action"; a tower put where the plan puts none is corrected, and once taken off again the plan
    is what the board needs again."""
    board = {"w35": ("white", "shadow"), "b35": ("black", "shadow"), "b36": ("black", "memory"),
             "w11": ("white", "light"), "b11": ("black", "light")}
    play = Play(Game.from_position(board, "black", sets=SETS, turn=10), reads={"white"})
    after = Game.from_position(board, "black", sets=SETS, turn=10)
    swap = Swap(S("b36"), S("b35"))
    plan = plan_of(swap, action_seen_by(after, swap, "black", None), "black", frozenset({"w35"}))
    after.push(swap)
    play.notices += play.ref.follow(after, plan)
    play.lift("b35", then=0.1)
    play.lift("b36", then=2.0)  # both up, held
    assert corrections_said(play) == []
    assert play.ref.public_status()["instructions"] == [dict(plan, do="swap")]
    play.place("b34", then=1.0)  # a tower where the plan puts none
    assert corrections_said(play), "a tower on b34 is not part of the plan: it is said"
    play.lift("b34", then=0.6)
    assert play.ref.public_status()["instructions"] == [dict(plan, do="swap")]  # the plan again
    play.place("b35", then=0.1)
    play.place("b36", then=0.6)
    assert play.ref.state is Phase.PLAY and play.ref.public_status()["to_move"] == "white"
