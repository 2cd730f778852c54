"""How the opponent plays: it takes a win in front of it, stops the rival's, beats weaker levels.

Strength is checked with a few seeded games (every game is reproducible, so
these never flake); the 200-game tables are bench/opponent.py's job.  Nothing
here depends on timing.
"""

from __future__ import annotations

import pytest

from engine.actions import Move
from engine.board import BLACK, WHITE, parse_space
from engine.game import Game
from engine.pieces import make_setup
from engine.views import view
from host.opponent.match import play_game
from host.opponent.search import LEVELS, choose

S = parse_space

WHITE_SETUP = {"w19": "void", "w29": "reflector", "w39": "memory", "w49": "time", "w59": "void",
               "w18": "shadow", "w28": "shadow", "w38": "light", "w48": "peripheral", "w58": "void"}
BLACK_SETUP = {"b19": "void", "b29": "reflector", "b39": "memory", "b49": "time", "b59": "void",
               "b18": "shadow", "b28": "shadow", "b38": "light", "b48": "peripheral", "b58": "void"}


def new_game(mode="classic") -> Game:
    white = make_setup(WHITE, "time", "void", {S(k): v for k, v in WHITE_SETUP.items()})
    black = make_setup(BLACK, "time", "void", {S(k): v for k, v in BLACK_SETUP.items()})
    return Game(white, black, mode=mode)


def play(game: Game, *moves: str) -> None:
    for m in moves:
        a, b = m.split("-")
        game.push(Move(S(a), S(b)))


@pytest.mark.parametrize("level", [lv for lv, p in LEVELS.items() if p is not None and p.consider == 1.0])
def test_it_takes_first_sight_when_its_light_can_reach_it(level):
    """Rulebook: "Reach First Sight with your Light without getting caught"; the Light moves up to 2.

    (Levels 1 and 2 look at only a share of their moves, like beginners, and may miss it.)
    """
    game = new_game()
    play(game, "w38-w36", "b58-b57", "w36-w34", "b57-b56", "w34-w32", "b56-b55", "w32-w31", "b55-b54")
    assert choose(view(game, WHITE), level, seed=3) == Move(S("w31"), S("fs"))


@pytest.mark.parametrize("level", [3, 4, 5])
def test_it_stops_a_running_light_one_move_from_first_sight(level):
    """A Light one move from First Sight must be captured or blocked, or the game is lost.

    Black's tower on line 3 has run four times, two spaces each: the Light's
    pace ("Up to 2 spaces per turn").  White's Shadow waits on w11, three
    steps from b31 across the Iris.
    """
    game = new_game()
    play(game, "w18-w11", "b38-b36", "w58-w57", "b36-b34", "w57-w56", "b34-b32", "w56-w55", "b32-b31")
    action = choose(view(game, WHITE), level, seed=1)
    game.push(action)
    if game.is_over():
        assert game.result.winner == WHITE  # it captured the Light
        return
    wins = [a for a in game.legal_actions() if isinstance(a, Move) and a.to == S("fs")]
    assert not wins, f"{action} leaves the Light free to reach First Sight"


@pytest.mark.parametrize("mode", ["classic", "third_eye"])
def test_level_1_beats_random_play(mode):
    wins = sum(play_game(1, 0, mode, seed=s).winner == WHITE for s in range(3))
    wins += sum(play_game(0, 1, mode, seed=s).winner == BLACK for s in range(3))
    assert wins == 6


@pytest.mark.parametrize("mode", ["classic", "third_eye"])
def test_searching_the_reply_beats_one_move_greed(mode):
    """Level 3 looks at the rival's reply; level 1 does not: over eight seeded games it wins most."""
    wins = sum(play_game(3, 1, mode, seed=s).winner == WHITE for s in range(4))
    wins += sum(play_game(1, 3, mode, seed=s).winner == BLACK for s in range(4))
    assert wins >= 6
