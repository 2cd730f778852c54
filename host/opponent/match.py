"""Opponents against each other: the harness behind `quin match` and bench/opponent.py.

The harness holds the real game (it is the table, not a player); each side
decides from ``engine.views.view(game, side)`` only.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from engine.board import BLACK, PLAYERS, WHITE
from engine.flash import CLASSIC
from engine.game import Game
from engine.views import view

from .lineup import choose_setup
from .search import choose

TURN_LIMIT = 200  # turns; a game still going then is a draw


@dataclass
class GameResult:
    winner: str | None  # "white", "black" or None (a draw)
    reason: str  # first_sight, light_captured, passes, turn_limit
    turns: int
    times: dict[str, list[float]] = field(default_factory=dict)  # seconds per decision, by side


def play_game(
    white: int,
    black: int,
    mode: str = CLASSIC,
    seed: int = 0,
    turn_limit: int = TURN_LIMIT,
    clock=time.perf_counter,
) -> GameResult:
    """One game between levels ``white`` and ``black``; seeded setups and decisions."""
    levels = {WHITE: white, BLACK: black}
    rng = random.Random(f"match:{seed}")
    setups = {p: choose_setup(p, levels[p], rng) for p in PLAYERS}
    game = Game(setups[WHITE], setups[BLACK], mode=mode, first=WHITE)
    seeds = {p: rng.randrange(1 << 30) for p in PLAYERS}
    times: dict[str, list[float]] = {WHITE: [], BLACK: []}
    while not game.is_over() and game.turn <= turn_limit:
        side = game.to_move
        start = clock()
        action = choose(view(game, side), levels[side], seeds[side])
        times[side].append(clock() - start)
        game.push(action)
    if game.result is None:
        return GameResult(None, "turn_limit", game.turn - 1, times)
    return GameResult(game.result.winner, game.result.reason, game.turn, times)
