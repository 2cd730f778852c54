"""The hub while its database goes away and comes back (issue 30), measured.

    python bench/hub_outage.py [--rounds 3] [--down 3]

One `quin hub serve` process on a throwaway PostgreSQL cluster (the tests' own), one game stored.
Each round stops PostgreSQL (``pg_ctl stop -m fast``), asks the hub's routes that need the
database one after another for ``--down`` seconds, and starts PostgreSQL again.  Prints JSON:

- ``said_down_s``: from PostgreSQL stopped (pg_ctl returned) to the first 503 of /api/health;
- ``answer_ms``: how long each answer took while it was down (p50, p99, max), and the statuses;
- ``back_s``: from PostgreSQL started (pg_ctl returned) to the first push taken again (200);
- the hub's log: lines, tracebacks, and how many said the database was away or back.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.hub_client import request  # noqa: E402  (the tests' small client)
from tests.support.hubproc import HubProcess, quin  # noqa: E402
from tests.support.pg import Cluster  # noqa: E402  (the tests' throwaway cluster)


def percentile(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))] if values else 0.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--down", type=float, default=3.0, help="seconds PostgreSQL stays stopped each round")
    args = ap.parse_args()
    cluster = Cluster()
    log = Path(tempfile.mkdtemp(prefix="quin-outage-")) / "hub.log"
    hub = None
    try:
        dsn = cluster.new_database("outage")
        key = quin("hub", "add-table", "T", "--db", dsn).stdout.strip()
        hub = HubProcess(dsn, log=log)
        g = str(uuid.uuid4())
        frame = {"seq": 1, "data": {"state": {"phase": "playing", "mode": "classic"}, "notices": []}}
        assert request(hub.url + "/api/push", "POST", {"games": [{"uuid": g, "events": [frame]}]}, key=key)[0] == 200
        routes = [("GET", "/api/games"), ("GET", f"/api/games/{g}"), ("GET", f"/api/games/{g}/events"),
                  ("GET", "/api/players"), ("POST", "/api/push"), ("GET", "/api/health")]
        said, back, latencies, statuses = [], [], [], {}
        seq = 2
        for _ in range(args.rounds):
            cluster.stop()
            stopped = time.monotonic()
            while request(hub.url + "/api/health")[0] != 503:
                time.sleep(0.01)
            said.append(time.monotonic() - stopped)
            until = time.monotonic() + args.down
            while time.monotonic() < until:
                for method, path in routes:
                    body = {"games": [{"uuid": g, "events": [dict(frame, seq=seq)]}]} if method == "POST" else None
                    t = time.monotonic()
                    status = request(hub.url + path, method, body, key=key)[0]
                    latencies.append((time.monotonic() - t) * 1000)
                    statuses[status] = statuses.get(status, 0) + 1
            cluster.start()
            started = time.monotonic()
            while request(hub.url + "/api/push", "POST", {"games": [{"uuid": g, "events": [
                    dict(frame, seq=seq)]}]}, key=key)[0] != 200:
                time.sleep(0.01)
            back.append(time.monotonic() - started)
            seq += 1
        hub.stop()
        text = log.read_text()
        print(json.dumps({
            "rounds": args.rounds, "down_s": args.down,
            "said_down_s": [round(x, 3) for x in said],
            "answer_ms": {"p50": round(percentile(latencies, 50), 1), "p99": round(percentile(latencies, 99), 1),
                          "max": round(max(latencies), 1), "answers": len(latencies),
                          "statuses": {str(k): v for k, v in sorted(statuses.items())}},
            "back_s": [round(x, 3) for x in back],
            "log": {"lines": len(text.splitlines()), "tracebacks": text.count("Traceback"),
                    "said_away": text.count("the hub's database is not reached"),
                    "said_back": text.count("the hub's database is reached again")},
        }))
        return 0
    finally:
        if hub is not None:
            hub.stop()
        cluster.close()


if __name__ == "__main__":
    sys.exit(main())
