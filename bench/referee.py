"""Referee speed on simulated games; prints JSON.

- snapshots_per_s: raw snapshots the referee takes per second, with the board
  scanned at ``--rate`` Hz (every scan is a snapshot, changed or not, as a
  real source delivers them), one core, simulator time excluded;
- decision_ms: the referee's own time per settled board (each evaluation of
  a settled board, commits and the next step's candidate index included;
  the settle window itself is waiting, not work): p50, p99, max;
- committing_decision_ms: the same, only for evaluations that committed an action;
- build_ms: building a step's candidate index (every legal action's board
  change), once per step: p50, p99, max;
- commit_latency_ms: from the last raw sensor change of the committed action's
  spaces to the commit, on the simulated clock: p50, p90, p99, max; and
  commit_latency_by_kind_ms (move, flash, gravity, swap, time, ...): p50, p99.

The games are played by the closed-loop hands model (``host.simulate``, written
apart from the referee) against the referee once; the trace they leave is then
fed again, scanned at ``--rate`` Hz, to a fresh referee that is timed.

Usage: python bench/referee.py [--games N] [--noise LEVEL] [--pace relaxed|brisk] [--rate HZ] [--max-actions N]
Goals: >= 20,000 snapshots/s and < 5 ms p99 per decision on one core (issue 4); a plain move
committed within 150 ms (p50) of its last sensor change (issue 9).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.randplay import random_game  # noqa: E402
from host.referee import Referee  # noqa: E402
from host.board.sensing import Snapshot  # noqa: E402
from host.simulate import simulate  # noqa: E402  (closed loop when given a referee)
from host.board.trace import InputLine, SnapshotLine  # noqa: E402


def pct(values, p):
    if not values:
        return None
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def scanned(events, rate):
    """The trace as a scanning source delivers it: a snapshot every 1/rate s, plus the inputs."""
    period = 1.0 / rate
    out = []
    current = frozenset()
    t = 0.0
    for e in events:
        while t + period < e.t:
            t += period
            out.append(Snapshot(t, current))
        if isinstance(e, SnapshotLine):
            current = e.occupied
            out.append(Snapshot(e.t, current))
            t = e.t
        else:
            out.append(e)
    for _ in range(int(3 * rate)):  # the board keeps being scanned after the last change
        t += period
        out.append(Snapshot(t, current))
    return out


def run_game(played, seed, noise, rate, pace):
    trace = simulate(played, seed, noise, pace=pace, referee=Referee)
    stream = scanned(trace.events, rate)
    ref = Referee(trace.header.new_game(), stats=True)
    n = 0
    spent = 0.0
    clock = time.perf_counter
    for item in stream:
        if isinstance(item, InputLine):
            t0 = clock()
            ref.input(item.player, item.input, item.t)
            spent += clock() - t0
            continue
        t0 = clock()
        ref.feed(item)
        spent += clock() - t0
        n += 1
    if len(ref.game.log) != len(played.log):
        raise SystemExit(f"seed {seed}: the referee did not read the whole game (see bench/referee_soak.py)")
    return n, spent, ref.stats


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=12, help="games per mode (default 12)")
    ap.add_argument("--noise", default="medium")
    ap.add_argument("--pace", default="relaxed", choices=("relaxed", "brisk"))
    ap.add_argument("--rate", type=float, default=100.0, help="board scan rate in Hz (default 100)")
    ap.add_argument("--max-actions", type=int, default=150)
    args = ap.parse_args(argv)
    snapshots = 0
    spent = 0.0
    decisions: list[float] = []
    builds: list[float] = []
    latency: list[float] = []
    commits: list[float] = []
    by_kind: dict[str, list[float]] = {}
    actions = 0
    for mode in ("classic", "third_eye"):
        for seed in range(args.games):
            played = random_game(seed, mode, args.max_actions)
            n, s, stats = run_game(played, seed, args.noise, args.rate, args.pace)
            snapshots += n
            spent += s
            decisions += stats["decisions"]
            builds += stats["builds"]
            latency += stats["latency"]
            commits += stats["commits"]
            for kind, dt in zip(stats["kinds"], stats["latency"]):
                by_kind.setdefault(f"{mode}/{kind}", []).append(dt)
            actions += len(played.log)

    def ms(values, ps):
        return {f"p{p}": round(pct(values, p) * 1000, 3) for p in ps} | {"max": round(max(values) * 1000, 3)}

    print(json.dumps({
        "games": 2 * args.games,
        "actions": actions,
        "noise": args.noise,
        "pace": args.pace,
        "scan_rate_hz": args.rate,
        "snapshots": snapshots,
        "snapshots_per_s": round(snapshots / spent),
        "decisions": len(decisions),
        "decision_ms": ms(decisions, (50, 99)),
        "committing_decision_ms": ms(commits, (50, 99)),
        "build_ms": ms(builds, (50, 99)),
        "commit_latency_ms": ms(latency, (50, 90, 99)),
        "commit_latency_by_kind_ms": {k: {"n": len(v)} | ms(v, (50, 99)) for k, v in sorted(by_kind.items())},
        "goal": {"snapshots_per_s": 20000, "decision_p99_ms": 5, "plain_move_commit_p50_ms": 150},
    }, indent=1))


if __name__ == "__main__":
    main()
