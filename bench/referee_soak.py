"""Soak the referee: many random games per mode and noise level through the physical-play
simulator; prints JSON with the games played and every one not reproduced exactly (the bar is zero).

Usage: python bench/referee_soak.py [--games N] [--max-actions N] [--start SEED]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.randplay import random_game  # noqa: E402
from engine.record import to_record  # noqa: E402
from host.simulate import LEVELS, simulate  # noqa: E402
from host.trace import referee_trace  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description="referee soak over random simulated games")
    ap.add_argument("--games", type=int, default=200, help="games per mode and noise level")
    ap.add_argument("--max-actions", type=int, default=300)
    ap.add_argument("--start", type=int, default=10000, help="first seed")
    args = ap.parse_args(argv)
    t0 = time.time()
    played_n = 0
    failures = []
    for mode in ("classic", "third_eye"):
        for noise in LEVELS:
            for seed in range(args.start, args.start + args.games):
                played = random_game(seed, mode, args.max_actions)
                run = referee_trace(simulate(played, seed, noise))
                played_n += 1
                got = to_record(run.referee.game)
                if run.stuck or got != to_record(played) or run.rejected_inputs:
                    failures.append({"mode": mode, "noise": noise, "seed": seed, "stuck": run.stuck,
                                     "committed": len(run.referee.game.log), "actions": len(played.log),
                                     "rejected_inputs": [r[3] for r in run.rejected_inputs][:3]})
    print(json.dumps({"games": played_n, "failures": failures, "seconds": round(time.time() - t0, 1)}, indent=1))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
