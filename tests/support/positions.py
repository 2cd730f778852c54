"""Seeded positions for the opponent's tests: games after some uniformly random legal actions."""

from __future__ import annotations

import random

from engine.board import BLACK, WHITE
from engine.game import Game
from engine.randplay import random_setup


def random_positions(mode: str, count: int, seed: int = 0, least: int = 0, most: int = 220) -> list[Game]:
    """``count`` unfinished games, each after a seeded number (least..most) of random legal actions."""
    out = []
    i = seed
    while len(out) < count:
        rng = random.Random(i)
        i += 1
        game = Game(random_setup(rng, WHITE), random_setup(rng, BLACK), mode=mode, first=rng.choice((WHITE, BLACK)))
        for _ in range(rng.randint(least, most)):
            if game.is_over():
                break
            game.push(rng.choice(game.legal_actions()))
        if not game.is_over():
            out.append(game)
    return out
