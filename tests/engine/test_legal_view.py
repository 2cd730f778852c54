"""The legal actions as a lazy view (``game.legal``, like python-chess's ``board.legal_moves``).

``action in game.legal`` (and ``game.is_legal``) checks one action without generating the
others; it must answer exactly as membership in the generated list would.  The property tests
compare the two on every candidate of many kinds (legal or not, well-formed or not) in the
positions of seeded random games of both modes, so the one-action checks and generation cannot
drift apart.
"""

from __future__ import annotations

import random
from itertools import combinations, permutations

import pytest

from engine.actions import PASS, Gravity, Move, Pass, Reflect, Reinforce, Resurrect, Swap, Time
from engine.board import GATEWAYS, GRAVITY_NEIGHBORS, HORIZON_REFLECT_TARGETS, PLAYERS, PUSH_PATHS, REFLECT_TARGETS, SPACES
from engine.game import Game, LegalActions
from engine.pieces import PIECES
from engine.randplay import random_setup
from engine.state import EMPTY

from tests.support.engine_helpers import WHITE, mv, new_game, position


def states(mode: str, seeds, every: int = 5, max_actions: int = 160):
    """Every ``every``-th state of seeded random games (the game is handed out at that state)."""
    for seed in seeds:
        rng = random.Random(seed)
        game = Game(random_setup(rng, "white"), random_setup(rng, "black"), mode=mode,
                    first=rng.choice(PLAYERS))
        for i in range(max_actions):
            if game.is_over():
                break
            if i % every == 0:
                yield game
            game.push(rng.choice(game.legal_actions()))
        yield game  # the last state, over or not


def candidates(game: Game, rng: random.Random):
    """Actions of every kind around the position: legal ones, near misses, and malformed ones."""
    st = game.state
    occupied = [s for s in SPACES if st.board[s] != EMPTY]
    some = occupied + rng.sample(range(len(SPACES)), 4)
    for a in some:
        for b in SPACES:
            yield Move(a, b)
    for r in occupied:
        near = REFLECT_TARGETS.get(r, ()) + HORIZON_REFLECT_TARGETS.get(r, ())
        for f in occupied:
            for t in near + (rng.randrange(99),):
                yield Reflect(r, f, t)
    for a in occupied:
        for b in occupied:
            yield Swap(a, b)
    for player in PLAYERS:
        gates = GATEWAYS[player]
        for g in gates:
            for p in PIECES:
                yield Reinforce(((g, p),))
                yield Resurrect(p, g)
        for k in (2, 3):
            for spaces in combinations(gates, k):
                yield Reinforce(tuple((g, "artificial_light") for g in spaces))
                yield Reinforce(tuple((g, "artificial_light") for g in reversed(spaces)))  # unsorted
                yield Reinforce(tuple((g, "void") for g in spaces))
    for a in occupied:
        yield Time(a)
        for ts in occupied:
            for owner in PLAYERS:
                for to in PUSH_PATHS.get((ts, owner), ())[:4]:
                    yield Time(a, ts, to)
    voids = [s for s in occupied if game.piece[st.board[s]] == "void"]
    for v in voids:
        spots = GRAVITY_NEIGHBORS[v]
        others = [s for s in voids if s != v] + [rng.choice(occupied)]
        for k in (1, 2):
            for sources in combinations(sorted(others), k):
                for dests in permutations(spots, k):
                    moves = tuple(zip(sources, dests))
                    yield Gravity(v, moves)
                    if k == 2:
                        yield Gravity(v, moves[::-1])  # unsorted
    yield PASS
    yield Pass()
    # malformed: names for ids, floats, lists for tuples, out of range, not an action at all
    yield Move("w38", "w37")
    yield Move(3.5, 4)
    yield Move(-1, 5)
    yield Move(5, 99)
    yield Reinforce([(GATEWAYS[st.to_move][0], "void")])
    yield Reinforce(())
    yield Reinforce(((GATEWAYS[st.to_move][0], ["void"]),))
    yield Resurrect(["void"], GATEWAYS[st.to_move][0])
    yield Resurrect("void", 2.5)
    yield Time(occupied[0], "b34", None)
    if voids:
        yield Gravity(voids[0], [(voids[-1], GRAVITY_NEIGHBORS[voids[0]][0])])
        yield Gravity(voids[0], ((voids[-1], 1.5),))
    yield "move w38-w37"
    yield None
    yield (3, 4)


@pytest.mark.parametrize("mode", ["classic", "third_eye"])
def test_membership_answers_as_the_generated_list_does(mode):
    rng = random.Random(7)
    checked = legal_seen = 0
    for game in states(mode, range(4)):
        legal = game.legal_actions()
        for a in legal:
            assert a in game.legal, a
        game._legal_cache = None  # answer from the one-action checks, not the generated list
        view = game.legal
        for a in candidates(game, rng):
            expected = a in legal
            got = a in view
            assert got is expected, (str(a), expected, game.why_illegal(a) if isinstance(a, (Move,)) else "")
            checked += 1
            legal_seen += expected
        assert game._legal_cache is None  # no check generated the whole list
    assert checked > 10_000 and legal_seen > 500


@pytest.mark.parametrize("mode", ["classic", "third_eye"])
def test_count_iteration_and_bool_follow_the_game(mode):
    for game in states(mode, range(2), every=11):
        view = game.legal
        assert isinstance(view, LegalActions)
        assert list(view) == game.legal_actions()
        assert view.count() == len(game.legal_actions())
        assert bool(view) is (not game.is_over()) is (view.count() > 0)
    game = new_game(mode=mode)
    view = game.legal
    before = list(view)
    game.push(mv("w18", "w17") if mode == "classic" else next(a for a in before if type(a) is Move))
    assert list(view) == game.legal_actions() != before  # the view follows the game
    game.pop()
    assert list(view) == before


def test_membership_does_not_generate_the_other_actions(monkeypatch):
    game = new_game(mode="third_eye")
    monkeypatch.setattr(Game, "_generate", lambda self: pytest.fail("generated every action"))
    assert mv("w18", "w17") in game.legal
    assert mv("w19", "w17") not in game.legal  # a Void moves 1, and w18 holds a Shadow
    game.push(mv("w18", "w17"))  # push checks the one action too
    assert game.to_move == "black"


def test_pass_is_in_the_view_exactly_when_nothing_ends_the_turn():
    """Spec 8: "Pass is legal exactly when no turn-ending action is legal at that moment (using Time
    or Resurrection to create one is not required)."  White's Light waits on Zero Gravity and Black
    fills White's Gateways: nothing ends White's turn, though the Totem could bring a tower back."""
    stuck = {"w19": "p", "w29": "p", "w39": "v", "w49": "v", "w59": "r", "b19": "l"}
    for game, passes in (
        (position(stuck, reserve={"white": ["L"]}), True),
        (position(stuck, reserve={"white": ["L"]}, totem_used=("white",)), True),
        (position({**stuck, "w38": "V"}, reserve={"white": ["L"]}), False),
        (position({"w38": "L", "b38": "l"}, WHITE), False),
    ):
        game._legal_cache = None
        assert (PASS in game.legal) is passes
        assert (Pass() in game.legal) is passes
        assert (PASS in game.legal_actions()) is passes
        assert (PASS in game.legal) is passes  # and from the generated list


def test_an_ended_game_has_nothing_legal():
    game = position({"w12": "L", "b38": "l"}, WHITE)
    game.push(mv("w12", "wi"))
    game.push(mv("b38", "b37"))
    game.push(mv("wi", "fs"))
    assert game.is_over()
    assert not game.legal and game.legal.count() == 0 and list(game.legal) == []
    assert PASS not in game.legal and mv("b37", "b36") not in game.legal


def test_generated_gravity_is_the_same_frozen_action_as_a_constructed_one():
    """Generation builds Void Gravity without the dataclass __init__ (engine/game.py); the objects
    must be indistinguishable from constructed ones: equal, same hash and repr, still frozen."""
    import dataclasses

    seen = 0
    for game in states("third_eye", range(2), every=9):
        for a in game.legal_actions():
            if type(a) is Gravity:
                made = Gravity(a.void, a.moves)
                assert a == made and hash(a) == hash(made) and repr(a) == repr(made)
                with pytest.raises(dataclasses.FrozenInstanceError):
                    a.void = 0
                seen += 1
    assert seen > 100
