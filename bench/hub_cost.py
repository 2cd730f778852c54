"""The hub's CPU per public frame, for a fixed amount of work (issue 20), on loopback.  Prints JSON.

    nice python bench/hub_cost.py [--games 50] [--streams 1250] [--frames 4000] [--hub-root PEER ...]

bench/hub.py measures latency under the full load, but there the hub's CPU per frame depends on
the latency itself: a board behind a busy hub sends several frames in one push, and the hub's
cost per frame falls as the pushes grow.  This bench fixes the work instead: ``--frames`` public
frames of ``--games`` live games (pre-generated brisk games, bench/hub.py's PreGame: the first
frame of a game whole, then patches of the one before, as a board's outbox makes them) are pushed
**one frame a push** (``--per-push N``: N frames of a game a push, as a board behind a busy hub
batches them), one push at a time, to the first of two hub processes, while ``--streams``
spectator streams (one in 100 the wall, the others one game each, spread over both processes) read
everything.  The CPU seconds each process used (from /proc), divided by the frames, is what one
frame costs there: taking the push, storing it, the notification, writing it to every stream.  It
depends little on how busy the machine is, so two checkouts' hubs can be compared on a shared
machine: ``--hub-root`` names checkouts to run the hub processes from (repeat it; "." is this one),
run interleaved ``--rounds`` times.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import selectors
import signal
import socket
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import hub as bench  # bench/hub.py: PreGame, HubProc, the cluster, CPU readers

from host.hub import frames
from host.hub.store import schema


def events_of(games: int, seed: int = 1) -> list[list[dict]]:
    """Each game's events as its board's outbox makes them (the first whole, then patches)."""
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        pre = bench.PreGame(rng)
        raw = [pre.opening] + [f for step in pre.steps for f in step[:3]]
        previous, events = None, []
        for n, frame in enumerate(raw, 1):
            text = frame.split(b"data: ", 1)[1].strip().decode().replace('"game":987654321', '"game":1')
            data = json.loads(text.replace('"bench_t":123456789.125', f'"bench_t":{n}.5'))
            events.append({"seq": n, "data": data if previous is None else {"patch": frames.diff(previous, data)}})
            previous = data
        out.append(events)
    return out


class Readers:
    """Spectator streams on raw sockets, read by one thread (what they read is counted, not parsed)."""

    def __init__(self, plan: list[tuple[int, str]]):
        self.sel = selectors.DefaultSelector()
        self.bytes = 0
        self.socks = []
        for port, path in plan:
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(f"GET {path} HTTP/1.0\r\nHost: x\r\n\r\n".encode())
            s.setblocking(False)
            self.sel.register(s, selectors.EVENT_READ)
            self.socks.append(s)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stop.is_set():
            for key, _ in self.sel.select(0.2):
                try:
                    data = key.fileobj.recv(1 << 20)
                except BlockingIOError:
                    continue
                self.bytes += len(data)

    def close(self):
        self.stop.set()
        self.thread.join()
        for s in self.socks:
            s.close()


def user_sys(pid: int) -> tuple[float, float]:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) / os.sysconf("SC_CLK_TCK"), int(fields[12]) / os.sysconf("SC_CLK_TCK")


def one_round(root: str | None, args, games: list[list[dict]], profile: str | None = None) -> dict:
    cluster = bench.Cluster()
    hubs = []
    try:
        dsn = cluster.new_database("cost")
        import psycopg

        with psycopg.connect(dsn, autocommit=True) as conn:
            schema.ensure(conn)
            keys = [schema.add_table(conn, f"t{i}") for i in range(len(games))]
        hubs = [bench.HubProc(dsn, 6, profile, root), bench.HubProc(dsn, 6, None, root)]
        conns = [http.client.HTTPConnection("127.0.0.1", hubs[0].port, timeout=30) for _ in games]
        uuids = [f"00000000-0000-4000-8000-{i:012d}" for i in range(len(games))]

        refused = [0]

        def push(i: int, *events: dict) -> None:
            body = json.dumps({"games": [{"uuid": uuids[i], "events": list(events)}]}, separators=(",", ":"))
            for _ in range(50):  # a 503 (no database connection free within 2 s: a starved machine) is
                conns[i].request("POST", "/api/push", body=body, headers={"Authorization": f"Bearer {keys[i]}"})
                resp = conns[i].getresponse()  # retried, as a board retries it
                resp.read()
                if resp.status != 503:
                    break
                refused[0] += 1
                time.sleep(0.2)
            assert resp.status == 200, resp.status

        for i, events in enumerate(games):  # each game's first frame, before the streams open
            push(i, events[0])
        plan = []
        for n in range(args.streams):
            path = "/api/stream/wall" if n % 100 == 0 else f"/api/stream/games/{uuids[n % len(games)]}"
            plan.append((hubs[n % 2].port, path))
        readers = Readers(plan)
        time.sleep(2)
        cpu0 = [bench.cpu_s(h.proc.pid) for h in hubs] + [bench.postgres_cpu_s(cluster)]
        us0 = [user_sys(h.proc.pid) for h in hubs]
        t0 = time.monotonic()
        sent, at = 0, [1] * len(games)
        while sent < args.frames:  # round robin over the games, --per-push frames a push
            for i, events in enumerate(games):
                if at[i] < len(events) and sent < args.frames:
                    batch = events[at[i]:at[i] + args.per_push]
                    push(i, *batch)
                    at[i] += len(batch)
                    sent += len(batch)
        elapsed = time.monotonic() - t0
        time.sleep(1)  # the last events reach the streams (and the wall's last tick)
        cpu1 = [bench.cpu_s(h.proc.pid) for h in hubs] + [bench.postgres_cpu_s(cluster)]
        us1 = [user_sys(h.proc.pid) for h in hubs]
        kernel = sum(b[1] - a[1] for a, b in zip(us0, us1)) / max(1e-9, sum(b[0] + b[1] - a[0] - a[1] for a, b in zip(us0, us1)))
        readers.close()
        used = [b - a for a, b in zip(cpu0, cpu1)]
        return {"hub": root or ".", "frames": sent, "seconds": round(elapsed, 1),
                "ms_per_frame": {"hub_taking_pushes": round(used[0] * 1000 / sent, 3),
                                 "hub_other": round(used[1] * 1000 / sent, 3),
                                 "hubs": round((used[0] + used[1]) * 1000 / sent, 3),
                                 "postgres": round(used[2] * 1000 / sent, 3)},
                "hubs_share_in_kernel": round(kernel, 2), "stream_bytes_read": readers.bytes, "load": os.getloadavg()[0],
                "pushes_refused_503": refused[0]}
    finally:
        for h in hubs:
            h.proc.terminate()
            h.proc.wait(10)
        cluster.close()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--streams", type=int, default=1250)
    ap.add_argument("--frames", type=int, default=4000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--per-push", type=int, default=1, help="frames of a game in one push (a board behind a busy hub batches)")
    ap.add_argument("--profile", help="cProfile the first round's process taking the pushes into this file")
    ap.add_argument("--hub-root", action="append", help="a checkout to run the hubs from (repeat; '.' is this one)")
    args = ap.parse_args()
    roots = [None if r == "." else r for r in (args.hub_root or ["."])]
    games = events_of(args.games)
    runs = []
    for n in range(args.rounds):
        for root in roots:  # interleaved
            runs.append(one_round(root, args, games, args.profile if not runs else None))
            print(f"hub_cost: {json.dumps(runs[-1])}", file=sys.stderr, flush=True)
    out = {"ran": {k: getattr(args, k) for k in ("games", "streams", "frames", "rounds", "per_push")},
           "runs": runs, "median_ms_per_frame": {}}
    for root in roots:
        mine = [r["ms_per_frame"] for r in runs if r["hub"] == (root or ".")]
        out["median_ms_per_frame"][root or "."] = {k: round(statistics.median(m[k] for m in mine), 3) for k in mine[0]}
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # the cluster and hub processes are torn down
    sys.exit(main())
