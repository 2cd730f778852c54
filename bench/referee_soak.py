"""Soak the referee: many random games per mode and noise level through the physical-play
simulator; prints JSON with the games played and every one not reproduced exactly (the bar is zero).

``--pace brisk`` plays with players who start 0.7-1.3 s after the previous action (often
before the referee has committed it) and phones that retry an input refused as out of turn
once it is that player's turn.  There the record need not come out exactly (a refused
input can change what a player meant); what counts is "wrong": a commit whose resulting
state differs from the played game's.

Usage: python bench/referee_soak.py [--games N] [--max-actions N] [--start SEED] [--pace relaxed|brisk]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import host.simulate as simulate_module  # noqa: E402
from engine.game import Game  # noqa: E402
from engine.randplay import random_game  # noqa: E402
from engine.record import to_record  # noqa: E402
from host.referee import InputError, Referee  # noqa: E402
from host.simulate import LEVELS, simulate  # noqa: E402
from host.trace import SnapshotLine, referee_trace  # noqa: E402


def referee_with_retrying_phones(trace):
    ref = Referee(trace.header.new_game())
    waiting = []

    def retry(t):
        for item in list(waiting):
            if ref.phase == "play" and not ref.game.is_over() and ref.game.to_move == item.player:
                waiting.remove(item)
                try:
                    ref.input(item.player, item.input, max(t, ref.now))
                except InputError:
                    pass

    def drain(until):
        while (due := ref.next_deadline()) is not None and (until is None or due <= until):
            ref.tick(due)
            retry(due)

    for e in trace.events:
        drain(e.t)
        if isinstance(e, SnapshotLine):
            ref.feed(e.snapshot())
        else:
            try:
                ref.input(e.player, e.input, e.t)
            except InputError as exc:
                if "turn" in str(exc):
                    waiting.append(e)
        retry(e.t)
    drain(None)
    return ref


def first_difference(played, game):
    """(index, state differs?) of the first commit that is not the played action, or None."""
    got = [(p, a) for _, p, a in game.log]
    want = [(p, a) for _, p, a in played.log]
    for k, (a, b) in enumerate(zip(got, want)):
        if a != b:
            replay = Game(played.setups["white"], played.setups["black"], played.mode, played.vision, played.first)
            for _, _, action in played.log[:k]:
                replay.push(action)
            replay.push(a[1])
            mine = replay.state.key()
            replay.pop()
            replay.push(b[1])
            return k, mine != replay.state.key()
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description="referee soak over random simulated games")
    ap.add_argument("--games", type=int, default=200, help="games per mode and noise level")
    ap.add_argument("--max-actions", type=int, default=300)
    ap.add_argument("--start", type=int, default=10000, help="first seed")
    ap.add_argument("--pace", choices=("relaxed", "brisk"), default="relaxed")
    args = ap.parse_args(argv)
    brisk = args.pace == "brisk"
    if brisk:
        simulate_module.THINK = (0.7, 1.3)
    t0 = time.time()
    played_n = 0
    failures = []
    stuck = 0
    for mode in ("classic", "third_eye"):
        for noise in LEVELS:
            for seed in range(args.start, args.start + args.games):
                played = random_game(seed, mode, args.max_actions)
                trace = simulate(played, seed, noise)
                played_n += 1
                if brisk:
                    game = referee_with_retrying_phones(trace).game
                    diff = first_difference(played, game)
                    if diff is not None and diff[1]:
                        failures.append({"mode": mode, "noise": noise, "seed": seed, "action": diff[0],
                                         "wrong": True})
                    elif diff is None and len(game.log) < len(played.log):
                        stuck += 1
                    continue
                run = referee_trace(trace)
                got = to_record(run.referee.game)
                if run.stuck or got != to_record(played) or run.rejected_inputs:
                    failures.append({"mode": mode, "noise": noise, "seed": seed, "stuck": run.stuck,
                                     "committed": len(run.referee.game.log), "actions": len(played.log),
                                     "rejected_inputs": [r[3] for r in run.rejected_inputs][:3]})
    out = {"pace": args.pace, "games": played_n, "failures": failures, "seconds": round(time.time() - t0, 1)}
    if brisk:
        out["left_waiting"] = stuck
    print(json.dumps(out, indent=1))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
