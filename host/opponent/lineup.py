"""The opponent's own setup: clone, removed piece and lineup, with some variety.

Seeded.  The Light starts on the board most of the time, on a Sight Line that
reaches the Iris (1, 3 or 5), usually on Ring 8 so it can run; Shadows go to
the front row ("Play your Shadows on the front row, most games"); the rest are
shuffled.  Level 0 takes a uniformly random setup.
"""

from __future__ import annotations

import random

from engine.board import GATEWAYS, IRIS_LINES, LINE_OF, START_SPACES
from engine.pieces import ARTIFICIAL_LIGHT, LIGHT, SHADOW, TIME, VOID, MEMORY, Setup, make_setup, piece_set
from engine.randplay import random_setup

CLONE_WEIGHTS = {TIME: 4, VOID: 3, MEMORY: 2, ARTIFICIAL_LIGHT: 2}
REMOVED_WEIGHTS = {VOID: 4, ARTIFICIAL_LIGHT: 3, "peripheral": 2, "reflector": 2, TIME: 1, MEMORY: 1}


def choose_setup(player: str, level: int, rng: random.Random) -> Setup:
    """A setup for ``player``'s opponent at ``level``."""
    if level <= 0:
        return random_setup(rng, player)
    clone = rng.choices(list(CLONE_WEIGHTS), list(CLONE_WEIGHTS.values()))[0]
    removed = rng.choices(list(REMOVED_WEIGHTS), list(REMOVED_WEIGHTS.values()))[0]
    pool = [p for p, n in sorted(piece_set(clone, removed).items()) for _ in range(n) if p != ARTIFICIAL_LIGHT]
    rng.shuffle(pool)
    spaces = list(START_SPACES[player])
    front = [s for s in spaces if s not in GATEWAYS[player]]
    lineup: dict[int, str] = {}
    if rng.random() < 0.9:
        runs = [s for s in front if LINE_OF[s] in IRIS_LINES]
        home = rng.choice(runs) if rng.random() < 0.8 else rng.choice([s for s in spaces if LINE_OF[s] in IRIS_LINES])
        lineup[home] = LIGHT
    pool.remove(LIGHT)
    shadows = [p for p in pool if p == SHADOW]
    for p in shadows:
        free = [s for s in front if s not in lineup]
        if free and rng.random() < 0.8:
            lineup[rng.choice(free)] = p
            pool.remove(p)
    rest = [s for s in spaces if s not in lineup]
    for s, p in zip(rest, pool):
        lineup[s] = p
    return make_setup(player, clone, removed, lineup)
