"""Seeded random setups and random legal games, for tests, the simulator and benchmarks."""

from __future__ import annotations

import random

from .board import BLACK, PLAYERS, START_SPACES, WHITE
from .flash import CLASSIC
from .game import Game
from .pieces import ARTIFICIAL_LIGHT, CLONES, NOT_REMOVABLE, PIECES, Setup, make_setup, piece_set


def random_setup(rng: random.Random, player: str) -> Setup:
    clone = rng.choice(CLONES)
    removed = rng.choice([p for p in PIECES if p not in NOT_REMOVABLE])
    pool = [p for p, n in piece_set(clone, removed).items() for _ in range(n) if p != ARTIFICIAL_LIGHT]
    rng.shuffle(pool)
    return make_setup(player, clone, removed, dict(zip(START_SPACES[player], pool)))


def random_game(
    seed: int,
    mode: str = CLASSIC,
    max_actions: int = 300,
    vision: bool = False,
    first: str | None = None,
) -> Game:
    """A game of uniformly random legal actions, stopping at the end or after max_actions."""
    rng = random.Random(seed)
    game = Game(
        random_setup(rng, WHITE),
        random_setup(rng, BLACK),
        mode=mode,
        vision=vision,
        first=first or rng.choice(PLAYERS),
    )
    for _ in range(max_actions):
        if game.is_over():
            break
        game.push(rng.choice(game.legal_actions()))
    return game


__all__ = ["random_setup", "random_game", "WHITE", "BLACK"]
