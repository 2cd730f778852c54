"""1,000 simulated power cuts at random writes and syncs during real play (issue 18).

The store runs on a file layer that keeps unsynced writes apart and, at the cut, drops or tears
them (tests/support/powercut.py: an apsw VFS; why and how it stands in for the product's
sqlite3 connection is said there).  After each cut the store is opened as `quin serve` opens it
(salvage allowed, and counted) and every action a screen had shown as committed must be in it.

    python3 bench/powercut.py [--cuts 1000] [--seed 1] [--peer-cuts 200]      # prints JSON

A peer in the same run: the same play and cuts with the store's commits at
``synchronous=NORMAL`` (WAL's usual setting, which does not sync at commit): the losses it
shows are what the product's ``FULL`` buys, and that the harness can see a loss at all.

Needs apsw (the [test] extra).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support import powercut  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuts", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--peer-cuts", type=int, default=200, help="cuts for the synchronous=NORMAL peer (0: none)")
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="quin-powercut-") as folder:
        report = powercut.run(cuts=args.cuts, seed=args.seed, folder=Path(folder))
    out = {"bench": "powercut", "seed": args.seed, **report.to_json(),
           "seconds": round(time.perf_counter() - started, 1)}
    if args.peer_cuts:
        normal = {"PRAGMA synchronous=FULL": "PRAGMA synchronous=NORMAL"}
        with tempfile.TemporaryDirectory(prefix="quin-powercut-peer-") as folder:
            peer = powercut.run(cuts=args.peer_cuts, seed=args.seed, folder=Path(folder), rewrite=normal)
        out["peer_synchronous_normal"] = {k: v for k, v in peer.to_json().items()
                                          if k in ("cuts", "store_opened", "salvaged", "actions_shown_as_committed",
                                                   "actions_lost", "actions_wrong", "problems")}
    print(json.dumps(out, indent=1))
    return 0 if report.lost == 0 and report.wrong == 0 and report.opened == report.cuts else 1


if __name__ == "__main__":
    sys.exit(main())
