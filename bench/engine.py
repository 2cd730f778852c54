"""Engine benchmark: legal action generation, positions and random games per second.

Prints JSON.  Compares actions generated per second against python-chess's
legal moves generated per second on the same machine, in the same run
(python-chess is a benchmark-only dependency).

    python bench/engine.py [--seconds 2]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from engine.flash import CLASSIC, MODES  # noqa: E402
from engine.game import Game  # noqa: E402
from engine.randplay import random_game  # noqa: E402


def midgame_positions(mode: str, count: int = 40) -> list[Game]:
    """Fixed midgame positions: seeded random games stopped after 20..80 actions."""
    positions = []
    seed = 0
    while len(positions) < count:
        rng = random.Random(seed)
        game = random_game(seed, mode, max_actions=rng.randint(20, 80))
        seed += 1
        if not game.is_over():
            positions.append(game)
    return positions


def timed(fn, seconds: float) -> tuple[int, float]:
    """Call fn() until ``seconds`` have passed; returns (summed result, elapsed)."""
    total = 0
    start = time.perf_counter()
    while True:
        total += fn()
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return total, elapsed


def bench_mode(mode: str, seconds: float) -> dict:
    positions = midgame_positions(mode)

    def generate_all() -> int:
        n = 0
        for g in positions:
            g._legal_cache = None  # measure generation, not the per-state cache
            n += len(g.legal_actions())
        return n

    actions, elapsed = timed(generate_all, seconds)
    rounds, elapsed_p = timed(lambda: (generate_all(), len(positions))[1], seconds)

    seeds = iter(range(10**9))

    def one_game() -> int:
        random_game(next(seeds), mode, max_actions=400)
        return 1

    games, elapsed_g = timed(one_game, seconds)
    return {
        "positions": len(positions),
        "mean_legal_actions": round(generate_all() / len(positions), 1),
        "actions_per_second": round(actions / elapsed),
        "positions_per_second": round(rounds / elapsed_p),
        "random_games_per_second": round(games / elapsed_g, 2),
    }


def bench_chess(seconds: float) -> dict | None:
    try:
        import chess
    except ImportError:
        return None
    rng = random.Random(1)
    boards = []
    while len(boards) < 40:
        b = chess.Board()
        for _ in range(rng.randint(10, 40)):
            moves = list(b.legal_moves)
            if not moves:
                break
            b.push(rng.choice(moves))
        if not b.is_game_over():
            boards.append(b)

    def generate_all() -> int:
        return sum(len(list(b.legal_moves)) for b in boards)

    moves, elapsed = timed(generate_all, seconds)
    return {
        "version": chess.__version__,
        "positions": len(boards),
        "legal_moves_per_second": round(moves / elapsed),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    args = parser.parse_args()
    result = {"python": platform.python_version(), "machine": platform.machine()}
    for mode in MODES:
        result[mode] = bench_mode(mode, args.seconds)
    chess_result = bench_chess(args.seconds)
    result["python_chess"] = chess_result
    if chess_result:
        for mode in MODES:
            result[mode]["ratio_to_python_chess"] = round(
                result[mode]["actions_per_second"] / chess_result["legal_moves_per_second"], 2
            )
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
