"""When two actions leave the same game (``Game.equivalent``, ``engine.effects.same_game_key``).

"The same game from here on" is checked against what it means, not against the key itself:
after two equivalent actions every continuation is legal after both and leads to the same
legal actions and outcomes; after two actions that are not equivalent some continuation tells
them apart.  Hand-written cases pin the rulings the referee leans on.
"""

from __future__ import annotations

import random
from collections import defaultdict

import pytest

from engine.actions import Gravity, Move, Reflect, Reinforce, Resurrect, Swap, Time
from engine.game import Game
from engine.randplay import random_game

from tests.support.engine_helpers import mv, position, reflect, reinforce, swap
from tests.support.third_eye_helpers import build, gravity

# --- rulings, by hand --------------------------------------------------------------------------


def test_a_move_and_a_reflection_with_the_same_footprint_are_the_same_game():
    """Spec 5: a Reflection sends the Light "to the space directly in front of or behind the
    Reflector"; when a plain move lands it there too, nothing later can tell them apart."""
    game = position({"w33": "R", "w35": "L", "b11": "l"})
    assert reflect("w33", "w35", "w34") in game.legal_actions() and mv("w35", "w34") in game.legal_actions()
    assert game.equivalent(reflect("w33", "w35", "w34"), mv("w35", "w34"))


def test_a_third_eye_void_step_is_the_same_game_as_a_one_void_gravity_doing_it():
    """Third Eye Void Gravity "move[s] as many other Voids as you want ... to open spaces adjacent to
    any 1 of your Voids"; the Classic Time record of the last action, which alone would tell a move
    from a Gravity, plays no part in Third Eye."""
    game = build({"w35": "V", "w37": "V", "b11": "l", "w11": "L"})
    g = gravity("w35", {"w37": "w36"})
    assert g in game.legal_actions()
    assert game.equivalent(mv("w37", "w36"), g)


def test_two_voids_of_one_gravity_landing_on_each_others_targets_are_the_same_game():
    game = build({"w35": "V", "w18": "V", "w59": "V", "b11": "l", "w11": "L"})
    a = gravity("w35", {"w18": "w34", "w59": "w36"})
    b = gravity("w35", {"w18": "w36", "w59": "w34"})
    assert game.equivalent(a, b)


def test_a_revealed_void_and_a_hidden_one_are_still_interchangeable():
    """Who knows what is never a rule: it changes no later legal action or outcome."""
    game = build({"w35": "V", "w18": "V", "w59": "V", "b11": "l", "w11": "L"})
    from engine.game import BOTH

    game.state.known[game.state.board[parse("w18")]] = BOTH
    assert game.equivalent(gravity("w35", {"w18": "w34", "w59": "w36"}),
                           gravity("w35", {"w18": "w36", "w59": "w34"}))


def parse(name):
    from engine.board import parse_space

    return parse_space(name)


def test_classic_memory_swapping_with_a_memory_is_one_game_either_way():
    """Classic Memory Swaps are unlimited: which of two Memories acted leaves nothing to tell."""
    game = position({"w35": "M", "w25": "M", "b11": "l"}, sets={"white": ("memory", "void"),
                                                                  "black": ("time", "void")})
    assert game.equivalent(swap("w35", "w25"), swap("w25", "w35"))


def test_third_eye_memory_swapping_with_a_memory_spends_the_acting_ones_swap():
    """Third Eye: "you can only Swap twice per game with each Memory piece"; spec 8: "When two
    Memories swap, only the acting one spends a swap"."""
    towers = {"w35": "M", "w25": "M", "b11": "l", "w11": "L"}
    game = build(towers)
    a, b = swap("w35", "w25"), swap("w25", "w35")
    assert not game.equivalent(a, b)
    g1, g2 = build(towers), build(towers)
    g1.push(a)
    g2.push(b)
    assert _distinguish(g1, g2, random.Random(3), walks=60, depth=12)


def test_reinforcing_different_pieces_on_one_gateway_are_different_games():
    game = position({"w35": "S", "b35": "l"}, reserve={"white": ["V", "T", "L"]})  # the Light waits too
    assert not game.equivalent(reinforce(w19="void"), reinforce(w19="time"))


# --- the property: equivalent exactly when no continuation tells them apart ---------------------


def _fresh(played: Game, k: int) -> Game:
    game = Game(played.setups["white"], played.setups["black"], played.mode, played.vision, played.first)
    for _, _, a in played.log[:k]:
        game.push(a)
    return game


def _same_footprint_pairs(game: Game):
    """Pairs of legal actions the sensors cannot tell apart: the same occupancy change and touches."""
    by = defaultdict(list)
    for a in game.legal_actions():
        e = game.board_effect(a)
        by[(e.emptied, e.filled, e.touched)].append(a)
    for group in by.values():
        for i in range(len(group)):
            for j in range(i + 1, len(group)):
                yield group[i], group[j]


def _identity(game: Game) -> dict:
    """Test-side: who stands where, as (owner, piece), for steering the search."""
    st = game.state
    return {s: (game.owner[t], game.piece[t]) for s, t in enumerate(st.board) if t >= 0}


def _distinguish(g1: Game, g2: Game, rng: random.Random, walks: int, depth: int) -> bool:
    """Search continuations applied to both games for one that is legal in one only, or ends
    differently.  Steered towards the towers that differ and towards Memory Swaps."""
    base1, base2 = len(g1.log), len(g2.log)
    try:
        for _ in range(walks):
            for _ in range(depth):
                l1, l2 = set(g1.legal_actions()), set(g2.legal_actions())
                if l1 != l2 or g1.result != g2.result:
                    return True
                if not l1:
                    break
                i1, i2 = _identity(g1), _identity(g2)
                hot = {s for s in set(i1) | set(i2) if i1.get(s) != i2.get(s)}
                choices = sorted(l1, key=str)
                steer = [a for a in choices if _spaces(a) & hot]
                swaps = [a for a in choices if type(a) is Swap]
                r = rng.random()
                pick = rng.choice(steer if steer and r < 0.6 else swaps if swaps and r < 0.8 else choices)
                g1.push(pick)
                g2.push(pick)
            while len(g1.log) > base1:
                g1.pop()
            while len(g2.log) > base2:
                g2.pop()
        return False
    finally:
        while len(g1.log) > base1:
            g1.pop()
        while len(g2.log) > base2:
            g2.pop()


def _spaces(a) -> set[int]:
    if isinstance(a, (Move, Reflect)):
        return {a.frm, a.to}
    if isinstance(a, Swap):
        return {a.memory, a.other}
    if isinstance(a, Gravity):
        return {s for m in a.moves for s in m}
    if isinstance(a, Time):
        return {a.at} | ({a.target} if a.target is not None else set())
    if isinstance(a, Reinforce):
        return {s for s, _ in a.placements}
    if isinstance(a, Resurrect):
        return {a.to}
    return set()


def _all_continuations_agree(g1: Game, g2: Game, rng: random.Random) -> None:
    l1, l2 = g1.legal_actions(), g2.legal_actions()
    assert set(l1) == set(l2)
    assert g1.result == g2.result
    for c in rng.sample(l1, min(len(l1), 25)):
        g1.push(c)
        g2.push(c)
        assert set(g1.legal_actions()) == set(g2.legal_actions()), c
        assert g1.result == g2.result
        g1.pop()
        g2.pop()
    assert not _distinguish(g1, g2, rng, walks=4, depth=8)


@pytest.mark.parametrize("mode", ["classic", "third_eye"])
def test_equivalent_exactly_when_every_continuation_agrees(mode):
    rng = random.Random(7 if mode == "classic" else 11)
    seen = {True: 0, False: 0}
    kinds = set()
    for seed in range(10):
        played = random_game(seed, mode, 150)
        for k in range(0, len(played.log), 9):
            game = _fresh(played, k)
            if game.is_over():
                continue
            pairs = list(_same_footprint_pairs(game))
            for a, b in rng.sample(pairs, min(len(pairs), 2)):
                same = game.equivalent(a, b)
                assert same == game.equivalent(b, a)
                g1, g2 = _fresh(game, len(game.log)), _fresh(game, len(game.log))
                g1.push(a)
                g2.push(b)
                if same:
                    _all_continuations_agree(g1, g2, rng)
                else:
                    assert _distinguish(g1, g2, rng, walks=60, depth=12), (mode, seed, k, str(a), str(b))
                seen[same] += 1
                kinds.add((type(a).__name__, type(b).__name__, same))
    assert seen[True] >= 10 and seen[False] >= 10, (seen, kinds)


def test_same_game_classes_group_legal_actions():
    game = build({"w35": "V", "w37": "V", "w18": "V", "b11": "l", "w11": "L"})
    legal = game.legal_actions()
    classes = game.same_game_classes(legal)
    assert sum(len(c) for c in classes) == len(legal)
    (step,) = [c for c in classes if mv("w37", "w36") in c]
    # the step and every Gravity that pulls just that Void onto w36 (the anchor w35 is the only
    # Void next to w36), and nothing else
    assert set(step) == {mv("w37", "w36"), gravity("w35", {"w37": "w36"})}, [str(a) for a in step]
