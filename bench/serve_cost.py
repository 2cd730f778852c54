"""Pi-class cost of `quin serve` on the serial board: CPU share of one core and resident memory.

`quin serve --board serial` runs pinned to one core, reading 100 raw frames a
second from the simulated board (the real firmware logic, tests/support/quin_sim.py,
speaking the wire protocol over a pty).  Rounds alternate, so both figures see
the same machine:

* idle: no page open, nobody moving;
* play: 10 live pages (6 status pages, 2 per seat), each loaded as a browser
  would (page, scripts, state) and holding its event stream, while towers are
  lifted and placed on the board as a refereed game goes on.

CPU share = the process's user+system CPU time over wall time (all its threads).
A peer, `quin serve --board sim` (no serial board) on the same core, is
measured over the same idle windows: the difference is what reading the
board costs.  Prints JSON: medians over the rounds, each round, peak RSS, and
the goals (idle < 5 % of a core, play < 25 %, RSS < 80 MB).

    python bench/serve_cost.py [--rounds 3] [--seconds 8] [--core N]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "support"))
sys.path.insert(0, str(ROOT / "bench"))

from quin_sim import TOWER, PtyBoard, SimBoard  # noqa: E402
from web import call_json as call  # noqa: E402
from web import memory_mb, read_urls  # noqa: E402

from engine.actions import Move  # noqa: E402
from engine.board import BLACK, WHITE  # noqa: E402
from engine.game import Game  # noqa: E402
from engine.randplay import random_setup  # noqa: E402
from host.calibration import Calibration, Level  # noqa: E402

GOALS = {"idle_cpu_share": 0.05, "play_cpu_share": 0.25, "rss_mb": 80}
PAGES = [("/", "/events")] * 6 + [("seat", "white")] * 2 + [("seat", "black")] * 2
TICK = os.sysconf("SC_CLK_TCK")


def get(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read()


def cpu_seconds(pid):
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime


class Page:
    """One open page: loads what the browser loads, then holds and reads its event stream."""

    def __init__(self, base, kind, who, tokens, on_commit):
        self.base = base
        host = base.split("//", 1)[1]
        if kind == "seat":
            token = tokens[who]
            for path in (f"/seat/{token}", "/static/quin.css", "/static/quin.js", "/static/seat.js",
                         "/api/layout", f"/api/seat/{token}/state"):
                get(base + path)
            stream = f"/events?seat={token}"
        else:
            for path in ("/", "/static/quin.css", "/static/quin.js", "/static/status.js", "/api/layout", "/api/state"):
                get(base + path)
            stream = "/events"
        self.conn = http.client.HTTPConnection(host, timeout=30)
        self.conn.request("GET", stream, headers={"Accept": "text/event-stream"})
        self.sock = self.conn.sock  # the response takes it over: kept to hang up on the server
        self.response = self.conn.getresponse()
        self.on_commit = on_commit
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        try:
            for line in self.response:
                if line.startswith(b"data:") and b'"committed"' in line:
                    self.on_commit()
        except (OSError, ValueError, http.client.HTTPException):
            pass

    def close(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.thread.join(5)
        self.response.close()
        self.conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=8.0, help="length of each idle and each play round")
    parser.add_argument("--core", type=int, default=None, help="the core quin serve is pinned to (default: the last)")
    args = parser.parse_args()
    cores = sorted(os.sched_getaffinity(0))
    core = cores[-1] if args.core is None else args.core
    if len(cores) > 1:  # the simulated board and the page clients stay off the server's core
        os.sched_setaffinity(0, set(cores) - {core})

    tmp = Path(tempfile.mkdtemp(prefix="quin-serve-cost-"))
    data = tmp / "data"
    data.mkdir()
    model = SimBoard(noise=20, seed=11)
    Calibration.from_baseline([Level(v, 20.0) for v in model.base]).with_placed(
        {s: model.base[s] + TOWER for s in range(99)}).save(data / "calibration.json")
    with PtyBoard(tmp, model, settings={"rate_hz": 100}) as board:
        env = dict(os.environ, QUIN_DATA_DIR=str(data), QUIN_SERIAL_PORT=board.path)
        proc = subprocess.Popen(
            [sys.executable, "-c", "import sys; from host.cli import main; sys.exit(main())", "serve",
             "--board", "serial", "--host", "127.0.0.1", "--port", "0", "--data-dir", str(data), "--no-qr",
             "--show-links"],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            preexec_fn=lambda: os.sched_setaffinity(0, {core}),
        )
        peer = subprocess.Popen(
            [sys.executable, "-c", "import sys; from host.cli import main; sys.exit(main())", "serve",
             "--host", "127.0.0.1", "--port", "0", "--data-dir", str(tmp / "peer"), "--no-qr", "--show-links"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            preexec_fn=lambda: os.sched_setaffinity(0, {core}),
        )
        try:
            read_urls(peer)
            result = run(proc, peer.pid, board, args)
        finally:
            for server in (proc, peer):
                server.send_signal(signal.SIGTERM)
                try:
                    server.wait(15)
                except subprocess.TimeoutExpired:
                    server.kill()
    result["core"] = core
    print(json.dumps(result))


def run(proc, peer_pid, board, args) -> dict:
    urls = read_urls(proc)
    base = urls["status page"].rstrip("/")
    tokens = {p: urls[f"{p} seat"].rsplit("/", 1)[1] for p in (WHITE, BLACK)}
    rng = random.Random(5)
    setups = {p: random_setup(rng, p) for p in (WHITE, BLACK)}
    for p in (WHITE, BLACK):
        call("POST", f"{base}/api/seat/{tokens[p]}/setup", setups[p].to_record(), {"X-Seat-Token": tokens[p]})
    shadow = Game(setups[WHITE], setups[BLACK], first=call("GET", f"{base}/api/state")["first"])
    with board.board.lock:
        board.board.towers = set(shadow.occupied())
    deadline = time.monotonic() + 30
    while (call("GET", f"{base}/api/state").get("referee") or {}).get("phase") != "play":
        if time.monotonic() > deadline:
            raise SystemExit("the referee did not accept the set-up board")
        time.sleep(0.1)
    time.sleep(1.0)

    commits = threading.Semaphore(0)
    idle, peer, play, moves = [], [], [], []
    for _ in range(args.rounds):
        ours, theirs = measure([proc.pid, peer_pid], args.seconds,
                               lambda until: time.sleep(max(0.0, until - time.monotonic())))
        idle.append(ours)
        peer.append(theirs)
        # the first status page tells the players' hands when a move is committed
        pages = [Page(base, kind, who, tokens, commits.release if i == 0 else lambda: None)
                 for i, (kind, who) in enumerate(PAGES)]
        played = [0]

        def referee_a_game(until):
            while time.monotonic() < until and not shadow.is_over():
                plain = [a for a in shadow.legal_actions() if isinstance(a, Move) and shadow.tower_at(a.to) is None]
                if not plain:
                    break
                move = rng.choice(plain)
                with board.board.lock:
                    board.board.towers.discard(move.frm)
                time.sleep(0.3)  # a hand in the air
                with board.board.lock:
                    board.board.towers.add(move.to)
                shadow.push(move)
                if not commits.acquire(timeout=10):
                    raise SystemExit("a move was not committed within 10 s")
                played[0] += 1
                time.sleep(0.5)  # the next player looks at the board

        play.append(measure([proc.pid], args.seconds, referee_a_game)[0])
        moves.append(played[0])
        for page in pages:
            page.close()
        while commits.acquire(blocking=False):
            pass
    mem = memory_mb(proc.pid)
    result = {
        "board": "serial, simulated firmware over a pty, 100 Hz raw frames",
        "pages_open_in_play": len(PAGES),
        "idle_cpu_share": round(statistics.median(idle), 4),
        "play_cpu_share": round(statistics.median(play), 4),
        "peer_sim_board_idle_cpu_share": round(statistics.median(peer), 4),
        "idle_rounds": [round(x, 4) for x in idle],
        "play_rounds": [round(x, 4) for x in play],
        "moves_per_play_round": moves,
        "rss_mb": round(mem["VmRSS"], 1),
        "peak_rss_mb": round(mem["VmHWM"], 1),
        "goals": GOALS,
    }
    result["within_goals"] = (result["idle_cpu_share"] < GOALS["idle_cpu_share"]
                              and result["play_cpu_share"] < GOALS["play_cpu_share"]
                              and result["peak_rss_mb"] < GOALS["rss_mb"])
    return result


def measure(pids, seconds, activity) -> list[float]:
    """CPU share of one core used by each of ``pids`` while ``activity(until)`` runs for ``seconds``."""
    start_cpu, start = [cpu_seconds(p) for p in pids], time.monotonic()
    activity(start + seconds)
    wall = time.monotonic() - start
    return [(cpu_seconds(p) - c) / wall for p, c in zip(pids, start_cpu)]


if __name__ == "__main__":
    main()
