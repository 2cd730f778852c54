"""Remote play on the hub (docs/remote-play.md), on loopback: how long from a player's action to the
new state on both players' streams, and the action's own answer.  Prints JSON.

    nice python bench/remote_hub.py [--games 6] [--mode classic]

Two real ``quin hub serve`` processes on a throwaway PostgreSQL.  A scripted client plays whole
random games in lockstep (each action sent once both streams show the state before it, as a
player taps only what the page shows), acting through the first process.  The games alternate,
interleaved in the same run, between both streams on the acting process (``same``) and both on the
other one (``other``: the state reaches them through PostgreSQL's NOTIFY), so the two are compared
under the same load.  Each action: ``answer`` (POST to its answer), ``streams`` (POST to the new
state on the slower of the two streams).  Medians and 99th percentiles in milliseconds.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.hubproc import HubProcess
from tests.support.pg import Cluster
from tests.support.remote_client import SIDES, start

from engine.randplay import random_setup

FAST = ("--presence-renew", "1", "--presence-lapse", "5", "--remote-rate", "1000", "--join-rate", "100")


def _pct(values, q):
    values = sorted(values)
    return round(values[min(len(values) - 1, int(q * len(values)))] * 1000, 1) if values else None


def one_game(acting, stream_url, mode, seed, cap):
    rng = random.Random(seed)
    setups = {s: random_setup(rng, s).to_record() for s in SIDES}
    seats, streams = start(acting.url, mode, setups["white"], setups["black"],
                           stream_base={"white": stream_url, "black": stream_url})
    answers, arrivals = [], []
    seq = max(streams[s].last["seq"] for s in SIDES)
    for _ in range(cap):
        states = {s: streams[s].wait(lambda x, q=seq: x["seq"] >= q) for s in SIDES}
        if states["white"]["phase"] == "over":
            break
        me = next(s for s in SIDES if states[s]["legal"] is not None)
        action = rng.choice(states[me]["legal"])
        t0 = time.monotonic()
        status, done = seats[me].post("action", {"seq": seq, "action": action})
        answers.append(time.monotonic() - t0)
        assert status == 200, done
        seq = done["seq"]
        seen = []
        for s in SIDES:
            streams[s].wait(lambda x, q=seq: x["seq"] >= q)
            with streams[s].cond:
                i = next(i for i, st in enumerate(streams[s].states) if st["seq"] >= seq)
                seen.append(streams[s].times[i])
        arrivals.append(max(seen) - t0)
    for s in streams.values():
        s.close()
    return answers, arrivals


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--mode", default="classic", choices=("classic", "third_eye"))
    ap.add_argument("--cap", type=int, default=200, help="actions per game at most")
    args = ap.parse_args()
    cluster = Cluster()
    dsn = cluster.new_database("bench_remote")
    hubs = [HubProcess(dsn, *FAST), HubProcess(dsn, *FAST)]
    out = {"mode": args.mode, "games": args.games, "load_before": os.getloadavg()[0]}
    try:
        got = {"same": ([], []), "other": ([], [])}
        for g in range(args.games):
            kind = "same" if g % 2 == 0 else "other"
            a, s = one_game(hubs[0], hubs[0 if kind == "same" else 1].url, args.mode, 100 + g, args.cap)
            got[kind][0].extend(a)
            got[kind][1].extend(s)
        for kind, (a, s) in got.items():
            out[kind] = {"actions": len(a), "answer_p50_ms": _pct(a, 0.5), "answer_p99_ms": _pct(a, 0.99),
                         "streams_p50_ms": _pct(s, 0.5), "streams_p99_ms": _pct(s, 0.99),
                         "streams_mean_ms": round(statistics.mean(s) * 1000, 1) if s else None}
        out["load_after"] = os.getloadavg()[0]
    finally:
        for h in hubs:
            h.stop()
        cluster.close()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
