"""Opponent benchmark: strength of each level against the one below (and against random), and decision times.

Prints JSON.  Every pairing plays ``--games`` games, split evenly between the
two modes and, within a mode, between the colours (the stronger level is White
in half of them).  A draw (turn limit or two passes) is not a win.  Decision
times are per action decided, pooled per level over every game it played, on
this machine; run it niced on a shared machine:

    nice -n 10 python bench/opponent.py [--games 200] [--jobs 2]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from engine.flash import MODES  # noqa: E402
from host.opponent.match import TURN_LIMIT, play_game  # noqa: E402

PAIRINGS = ((1, 0), (2, 1), (3, 2), (4, 3), (5, 4), (5, 0))
GOALS = {(1, 0): 0.90, (5, 0): 0.99}  # every other pairing: 0.60
TIME_GOALS_MS = {3: 1000.0, 5: 5000.0}  # p99 per decision


def _one(task: tuple) -> dict:
    strong, weak, mode, seed, strong_white = task
    white, black = (strong, weak) if strong_white else (weak, strong)
    r = play_game(white, black, mode, seed=seed, turn_limit=TURN_LIMIT)
    side = "white" if strong_white else "black"
    rival = "black" if strong_white else "white"
    outcome = "draw" if r.winner is None else ("win" if r.winner == side else "loss")
    return {"pairing": (strong, weak), "mode": mode, "outcome": outcome, "turns": r.turns,
            "times": {strong: r.times[side], weak: r.times[rival]}, "strong_white": strong_white}


def _quantiles(values: list[float]) -> dict:
    if not values:
        return {"decisions": 0}
    v = sorted(values)
    pick = lambda q: round(v[min(len(v) - 1, int(q * len(v)))] * 1000, 2)  # noqa: E731
    return {"decisions": len(v), "p50_ms": pick(0.5), "p90_ms": pick(0.9), "p99_ms": pick(0.99),
            "max_ms": round(v[-1] * 1000, 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200, help="games per pairing, over both modes and colours")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--pairings", default=",".join(f"{a}:{b}" for a, b in PAIRINGS),
                        help="strong:weak pairs, comma-separated (default: each level against the one below, 5:0)")
    args = parser.parse_args(argv)
    pairings = [tuple(int(x) for x in p.split(":")) for p in args.pairings.split(",") if p]
    per_mode = max(2, args.games // len(MODES))
    tasks = []
    for strong, weak in pairings:
        for mode in MODES:
            for i in range(per_mode):
                tasks.append((strong, weak, mode, args.seed * 1_000_003 + 7919 * strong + 104729 * weak + i, i % 2 == 0))
    started = time.time()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        games = list(pool.map(_one, tasks, chunksize=1))
    elapsed = time.time() - started

    table = []
    times: dict[int, list[float]] = {}
    times_by_mode: dict[tuple[int, str], list[float]] = {}
    for strong, weak in pairings:
        row = {"strong": strong, "weak": weak, "goal": GOALS.get((strong, weak), 0.60)}
        total = {"win": 0, "loss": 0, "draw": 0}
        for mode in MODES:
            mine = [g for g in games if g["pairing"] == (strong, weak) and g["mode"] == mode]
            counts = {k: sum(1 for g in mine if g["outcome"] == k) for k in total}
            as_white = [g for g in mine if g["strong_white"]]
            counts["wins_as_white"] = sum(1 for g in as_white if g["outcome"] == "win")
            counts["wins_as_black"] = counts["win"] - counts["wins_as_white"]
            counts["games"] = len(mine)
            counts["win_rate"] = round(counts["win"] / len(mine), 3) if mine else None
            counts["turns_p50"] = sorted(g["turns"] for g in mine)[len(mine) // 2] if mine else None
            row[mode] = counts
            for k in total:
                total[k] += counts[k]
        n = sum(total.values())
        row["games"] = n
        row.update(total)
        row["win_rate"] = round(total["win"] / n, 3) if n else None
        row["meets_goal"] = row["win_rate"] is not None and row["win_rate"] >= row["goal"]
        table.append(row)
    for g in games:
        for level, ts in g["times"].items():
            level = int(level)
            times.setdefault(level, []).extend(ts)
            times_by_mode.setdefault((level, g["mode"]), []).extend(ts)
    decision = {}
    for level in sorted(times):
        entry = _quantiles(times[level])
        entry["by_mode"] = {m: _quantiles(times_by_mode.get((level, m), [])) for m in MODES}
        goal = TIME_GOALS_MS.get(level)
        if goal is not None:
            entry["p99_goal_ms"] = goal
            entry["meets_goal"] = entry.get("p99_ms", 0) <= goal
        decision[str(level)] = entry
    out = {
        "benchmark": "opponent",
        "machine": {"python": platform.python_version(), "platform": platform.platform(),
                    "cpus": os.cpu_count(), "nice": os.nice(0), "jobs": args.jobs},
        "games_per_pairing": per_mode * len(MODES),
        "turn_limit": TURN_LIMIT,
        "elapsed_s": round(elapsed, 1),
        "strength": table,
        "decision_time": decision,
    }
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
