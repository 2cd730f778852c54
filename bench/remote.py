"""Remote play latency, on loopback: from the remote player's action POST to the plan appearing in
this board's public state.  Prints JSON.

    nice python bench/remote.py [--rounds 60]

A real `quin hub serve` on a throwaway PostgreSQL cluster (the tests' ``pg.Cluster``), this board's
service in this process (the simulated board, the local player's moves fed as snapshots), and a
scripted remote player speaking the HTTP API.  Each round the local player moves (read from the
board, sent to the hub); then the remote player POSTs a plain move and we stamp, interleaved in the
same round:

- ``post_to_plan``: the POST sent -> the board's public stream (the broker's ``public`` audience, what
  the status page receives) carries the plan;
- ``post_to_link``: the POST sent -> this board's link received the hub's state (the hub and the
  network alone: the peer the board's own part is measured against);
- ``post_to_rival_stream``: the POST sent -> the remote player's own stream shows the action (the
  hub's fan-out to a browser, the same hop for the other side);
- ``board_part``: post_to_plan - post_to_link, per round.

Medians and p99 over the rounds, in milliseconds.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.pg import Cluster  # noqa: E402
from tests.support.hubproc import HubProcess  # noqa: E402
from tests.support.player import RemotePlayer  # noqa: E402

from engine.randplay import random_setup  # noqa: E402
from host.board.simboard import SimulatedBoard  # noqa: E402
from host.compose import Service  # noqa: E402
from host.remote.service import RemoteSeat  # noqa: E402
from host.store import Store  # noqa: E402


def wait_for(pred, timeout=20.0, what="a condition"):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return
        time.sleep(0.002)
    raise TimeoutError(f"timed out waiting for {what}")


def pct(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q / 100 * (len(s) - 1))))]


def summary(values):
    ms = [v * 1000 for v in values]
    return {"n": len(ms), "p50_ms": round(statistics.median(ms), 2), "p99_ms": round(pct(ms, 99), 2),
            "min_ms": round(min(ms), 2), "max_ms": round(max(ms), 2)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    cluster = Cluster()
    hub = None
    service = None
    try:
        dsn = cluster.new_database("bench_remote")
        hub = HubProcess(dsn, "--remote-rate", "1000", "--join-rate", "100")
        folder = Path(tempfile.mkdtemp(prefix="quin-remote-bench-"))
        seat = RemoteSeat(folder, "new", hub.url, side="white", name="Ann", backoff=(0.05, 0.5))
        board = SimulatedBoard(clock=time.monotonic)
        service = Service(Store(folder / "quin.sqlite3"), board=board, settle=0.05, **seat.service_kwargs())
        table = service.table
        seat.attach(service, wait=5.0)
        service.start(0.01)
        link = seat.link

        plan_at: list[float] = []
        link_at: list[tuple[int, float]] = []
        sub = service.broker.stream("public")

        def deliver(frame: bytes) -> None:
            if b'"plan"' in frame:
                plan_at.append(time.perf_counter())

        sub.attach(deliver, lambda: None)
        inner = link.on_state

        def on_state(state):
            link_at.append((state["seq"], time.perf_counter()))
            inner(state)

        link.on_state = on_state

        bob = RemotePlayer(hub.url)
        bob.join(link.code)
        bob.listen()
        wait_for(lambda: link.state is not None and link.paused() is None, what="both present")
        table.submit_setup("white", random_setup(rng, "white").to_record())
        wait_for(lambda: link.state["setups_in"]["white"], what="Ann's lineup")
        bob.post("setup", {"setup": random_setup(rng, "black").to_record()})
        wait_for(lambda: table.phase == "playing" and table.ref is not None, what="play")
        board_feed = table.feed
        board_feed(board.set(table.ref.expected()))
        wait_for(lambda: table.ref.phase == "play", what="the board set")

        def plain(legal, view):
            occupied = {t["space"] for t in view["board"]}
            moves = [a for a in legal if a["type"] == "move" and a["to"] not in occupied]
            return rng.choice(moves) if moves else None

        samples = {"post_to_plan": [], "post_to_link": [], "post_to_rival_stream": [], "board_part": []}
        for _ in range(args.rounds):
            wait_for(lambda: link.state["legal"], what="white's turn")
            a = plain(link.state["legal"], link.state["view"])
            if a is None:
                break
            board_feed(board.lift(a["from"]))
            time.sleep(0.06)
            board_feed(board.place(a["to"]))
            bs = bob.wait(lambda s: s["legal"] is not None and s["phase"] == "playing")
            b = plain(bs["legal"], bs["view"])
            if b is None:
                break
            seq = bs["seq"]
            n_plan, n_bob = len(plan_at), len(bob.states)
            t0 = time.perf_counter()
            status, _ = bob.post("action", {"seq": seq, "action": b})
            assert status == 200
            wait_for(lambda: len(plan_at) > n_plan, what="the plan")
            wait_for(lambda: any(s >= seq + 1 for s, _ in link_at), what="the link's state")
            wait_for(lambda: any(s["seq"] >= seq + 1 for s in bob.states[n_bob:]), what="Bob's stream")
            t_plan = plan_at[n_plan]
            t_link = next(t for s, t in link_at if s >= seq + 1)
            with bob.cond:
                t_bob = next(s.get("_t", None) for s in bob.states[n_bob:] if s["seq"] >= seq + 1)
            samples["post_to_plan"].append(t_plan - t0)
            samples["post_to_link"].append(t_link - t0)
            samples["board_part"].append(t_plan - t_link)
            if t_bob is not None:
                samples["post_to_rival_stream"].append(t_bob - t0)
            board_feed(board.lift(b["from"]))
            time.sleep(0.06)
            board_feed(board.place(b["to"]))
            wait_for(lambda: table.ref.phase == "play" and table.game.to_move == "white"
                     and table.state()["opponent"].get("plan") is None, what="the plan carried out")
        bob.close()
        out = {"bench": "remote", "loopback": True, "rounds": len(samples["post_to_plan"]),
               **{k: summary(v) for k, v in samples.items() if v}}
        print(json.dumps(out, indent=2))
        return 0
    finally:
        if service is not None:
            service.stop()
        if hub is not None:
            hub.stop()
        cluster.close()


if __name__ == "__main__":
    sys.exit(main())
