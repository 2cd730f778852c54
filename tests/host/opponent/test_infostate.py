"""The opponent's information state: rebuilt from a player's view, it must match what the rules say.

The oracle is the engine (the real game's identities and legal actions); the
code under test sees only ``engine.views.view``.
"""

from __future__ import annotations

import json
import random

import pytest

from engine.actions import Gravity, Move, Time
from engine.board import BLACK, WHITE, parse_space
from engine.flash import CLASSIC, THIRD_EYE
from engine.game import Game
from engine.pieces import ARTIFICIAL_LIGHT, SHADOW, VOID, make_setup
from engine.randplay import random_setup
from engine.views import knows, view
from host.opponent.infostate import BOARD, info_state
from host.opponent.worlds import Sampler, build_game

from tests.support.positions import random_positions

S = parse_space


@pytest.mark.parametrize("mode", [CLASSIC, THIRD_EYE])
def test_every_sampled_world_offers_exactly_the_real_legal_actions(mode):
    """The mover's legal actions depend only on what the mover knows, so every world has the same ones."""
    for game in random_positions(mode, 40, seed=100):
        info = info_state(view(game, game.to_move))
        assert info.from_history, "the public history replays onto the view's board"
        sampler = Sampler(info)
        real = set(game.legal_actions())
        for k in range(3):
            world, _ = build_game(info, sampler.sample(random.Random(k)))
            assert set(world.legal_actions()) == real


@pytest.mark.parametrize("mode", [CLASSIC, THIRD_EYE])
def test_deductions_never_exclude_the_truth(mode):
    """What the opponent infers about a hidden rival tower always admits what the tower really is."""
    checked = 0
    for game in random_positions(mode, 40, seed=300):
        for me in (WHITE, BLACK):
            info = info_state(view(game, me))
            for t in info.tokens:
                if t.where == BOARD and t.owner != me and t.piece is None:
                    true = game.piece[game.state.board[t.space]]
                    assert true in t.allowed
                    checked += 1
    assert checked > 200


@pytest.mark.parametrize("mode", [CLASSIC, THIRD_EYE])
def test_sampled_worlds_agree_with_everything_revealed(mode):
    for game in random_positions(mode, 15, seed=500):
        me = game.to_move
        info = info_state(view(game, me))
        sampler = Sampler(info)
        for k in range(4):
            world, tower_of = build_game(info, sampler.sample(random.Random(k)))
            for i, tok in enumerate(info.tokens):
                if tok.where != BOARD:
                    continue
                wt = tower_of[i]
                real = game.state.board[tok.space]
                assert world.owner[wt] == game.owner[real]
                if knows(game, me, real):
                    assert world.piece[wt] == game.piece[real]
                else:
                    assert world.piece[wt] in tok.allowed


def _setups():
    white = make_setup(WHITE, "time", "void", {
        S("w19"): "void", S("w29"): "reflector", S("w39"): "memory", S("w49"): "time", S("w59"): "void",
        S("w18"): "shadow", S("w28"): "shadow", S("w38"): "light", S("w48"): "peripheral", S("w58"): "void"})
    black = make_setup(BLACK, "void", "peripheral", {
        S("b19"): "void", S("b29"): "reflector", S("b39"): "memory", S("b49"): "time", S("b59"): "void",
        S("b18"): "shadow", S("b28"): "shadow", S("b38"): "light", S("b48"): "void", S("b58"): "void"})
    return white, black


def _rival_token(game, me, space):
    info = info_state(view(game, me))
    return next(t for t in info.tokens if t.where == BOARD and t.space == S(space))


def test_a_start_tower_is_never_an_artificial_light():
    """Rulebook: "The only rule of setup is that Artificial Light can't come in at the start"."""
    game = Game(*_setups())
    tok = _rival_token(game, BLACK, "w48")
    assert ARTIFICIAL_LIGHT not in tok.allowed and len(tok.allowed) == 7


def test_a_four_space_move_is_a_shadow():
    """Moves per turn (spec 2): only the Shadow moves more than 3 (Artificial Light 5 only once accelerated)."""
    game = Game(*_setups())
    game.push(Move(S("w28"), S("w24")))
    assert _rival_token(game, BLACK, "w24").allowed == {SHADOW}


def test_a_one_space_move_admits_every_piece_and_a_move_along_the_horizon_a_peripheral():
    game = Game(*_setups())
    game.push(Move(S("w58"), S("w57")))
    assert len(_rival_token(game, BLACK, "w57").allowed) == 7


def test_a_rewound_move_was_not_a_shadow():
    """Rulebook: "If it's not a Shadow, the Power succeeds"; so a rewind says the mover was no Shadow."""
    game = Game(*_setups())
    game.push(Move(S("w48"), S("w46")))
    game.push(Time(S("b49")))
    assert game.events[-1].outcome == "rewound"
    game.push(Move(S("b48"), S("b47")))
    tok = _rival_token(game, BLACK, "w48")
    assert SHADOW not in tok.allowed


def test_void_gravity_moves_only_voids():
    """Third Eye: "Use the Power of Void Gravity to move as many other Voids as you want"."""
    white, black = _setups()
    game = Game(white, black, mode=THIRD_EYE)
    game.push(Move(S("w58"), S("w57")))
    game.push(Move(S("b58"), S("b57")))
    gravity = next(a for a in game.legal_actions() if isinstance(a, Gravity) and len(a.moves) == 1
                   and a.moves[0][0] == S("w19"))
    game.push(gravity)
    moved_to = gravity.moves[0][1]
    info = info_state(view(game, BLACK))
    tok = next(t for t in info.tokens if t.where == BOARD and t.space == moved_to)
    assert tok.allowed == {VOID}


def test_the_opponent_needs_only_the_view_data():
    """The search never receives a Game: the view survives a JSON round trip unchanged in meaning."""
    from host.opponent.search import choose

    for game in random_positions(CLASSIC, 3, seed=900) + random_positions(THIRD_EYE, 3, seed=900):
        v = view(game, game.to_move)
        assert choose(json.loads(json.dumps(v)), 2, seed=5) == choose(v, 2, seed=5)
        with pytest.raises(ValueError):
            choose(view(game, None), 2)


@pytest.mark.parametrize("mode", [CLASSIC, THIRD_EYE])
def test_the_search_games_push_and_pop_like_the_engine(mode):
    """SearchGame skips the legality check and keeps legal actions across pop: same states, same actions."""
    from host.opponent.worlds import SearchGame

    for seed in range(6):
        rng = random.Random(seed)
        white, black = random_setup(rng, WHITE), random_setup(rng, BLACK)
        plain, fast = Game(white, black, mode=mode), SearchGame(white, black, mode=mode)
        for _ in range(150):
            if plain.is_over():
                break
            assert plain.legal_actions() == fast.legal_actions()
            action = rng.choice(plain.legal_actions())
            plain.push(action)
            fast.push(action)
            if rng.random() < 0.3:  # a search's try-and-take-back
                assert plain.pop() == fast.pop() == action
                assert plain.legal_actions() == fast.legal_actions()
                plain.push(action)
                fast.push(action)
            assert plain.state.key() == fast.state.key()
