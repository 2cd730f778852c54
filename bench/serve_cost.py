"""Pi-class cost of `quin serve` on the serial board: CPU share of one core, latency, resident memory.

Two `quin serve --board serial` run pinned to one core, each on its own virtual
Pico (host/board/virtual_pico: firmware/code.py under MicroPython with a 128K heap,
scanning at 100 Hz, its data port on a pty, its ADC on a simulated field of towers):

* ``decides``: as shipped: the board decides occupancy with the host's thresholds
  and sends changes at once, plus a raw frame every 500 ms for drift and health;
* ``raw``: ``QUIN_SERIAL_RAW=1``: the host decides from every raw frame (as before).

A third, `quin serve --board sim` (no serial board), is the peer.  Rounds alternate,
so every figure sees the same machine:

* idle: no page open, nobody moving; all three servers over the same window;
* play, each serial server in turn: 10 live pages (6 status pages, 2 per seat),
  each loaded as a browser would and holding its event stream, while the players'
  hands lift and place towers on its board as a refereed game goes on.  Latency:
  from the hand setting a tower down to the commit arriving on a status page's
  event stream (the referee's settle window included, the same in both).

CPU share = the process's CPU time (all its threads, from schedstat, in ns) over wall time.
Prints JSON: medians over the rounds, each round, peak RSS, and the goals (idle at
most 0.6 % of a core for the board deciding, play < 25 %, RSS < 80 MB).

    python bench/serve_cost.py [--rounds 5] [--seconds 10] [--core N]
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

from web import call_json as call  # noqa: E402
from web import memory_mb, read_urls  # noqa: E402

from engine.actions import Move  # noqa: E402
from engine.board import BLACK, WHITE  # noqa: E402
from engine.game import Game  # noqa: E402
from engine.randplay import random_setup  # noqa: E402
from host.board.calibration import Calibration, Level  # noqa: E402
from host.board.channel_map import default_map  # noqa: E402
from host.board.virtual_pico import Field, VirtualPico  # noqa: E402

GOALS = {"idle_cpu_share": 0.006, "play_cpu_share": 0.25, "rss_mb": 80}
MODES = ("decides", "raw")
PAGES = [("/", "/events")] * 6 + [("seat", "white")] * 2 + [("seat", "black")] * 2


def get(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read()


def cpu_seconds(pid):
    """CPU time of every thread of ``pid``, in seconds, to the nanosecond (/proc/PID/task/*/schedstat:
    the clock-tick counters of /proc/PID/stat are too coarse for a process using 0.5 % of a core)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):  # the thread ended meanwhile
            pass
    return total / 1e9


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


def calibration_for(field: Field) -> Calibration:
    """What `quin calibrate` records on this field: each space's resting and tower levels."""
    cmap = default_map()
    levels = [Level(0.0, 20.0)] * cmap.channels_needed
    for s, ch in field.space_channel.items():
        levels[ch] = Level(field.base[s], 20.0)
    for name, ch in field.refs.items():
        levels[ch] = Level(32768.0 if "half" in name else 40.0, 5.0)
    return Calibration.from_baseline(levels, cmap).with_placed({s: field.base[s] + field.tower for s in field.base})


def serve(args, core, env=None):
    return subprocess.Popen(
        [sys.executable, "-c", "import sys; from host.cli import main; sys.exit(main())", "serve",
         "--host", "127.0.0.1", "--port", "0", "--no-qr", "--show-links", *args],
        cwd=ROOT, env=dict(os.environ, **(env or {})), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: os.sched_setaffinity(0, {core}),
    )


class Rig:
    """One serial server, its virtual Pico and the game played on it."""

    def __init__(self, mode, tmp, core):
        self.mode = mode
        self.pico = VirtualPico(tmp / f"pico-{mode}", Field(noise=20, seed=11), settings={"rate_hz": 100})
        self.pico.plug()
        data = tmp / f"data-{mode}"
        data.mkdir()
        calibration_for(self.pico.field).save(data / "calibration.json")
        env = {"QUIN_DATA_DIR": str(data), "QUIN_SERIAL_RAW": "1" if mode == "raw" else "0"}
        self.proc = serve(["--board", "serial", "--serial-port", self.pico.path, "--data-dir", str(data)], core, env)
        self.rng = random.Random(5)

    def start_game(self):
        urls = read_urls(self.proc)
        self.base = urls["status page"].rstrip("/")
        self.tokens = {p: urls[f"{p} seat"].rsplit("/", 1)[1] for p in (WHITE, BLACK)}
        setups = {p: random_setup(self.rng, p) for p in (WHITE, BLACK)}
        for p in (WHITE, BLACK):
            call("POST", f"{self.base}/api/seat/{self.tokens[p]}/setup", setups[p].to_record(),
                 {"X-Seat-Token": self.tokens[p]})
        self.shadow = Game(setups[WHITE], setups[BLACK], first=call("GET", f"{self.base}/api/state")["first"])
        self.pico.field.set_towers(self.shadow.occupied())
        deadline = time.monotonic() + 60
        while (call("GET", f"{self.base}/api/state").get("referee") or {}).get("phase") != "play":
            if time.monotonic() > deadline:
                raise SystemExit(f"{self.mode}: the referee did not accept the set-up board")
            time.sleep(0.1)

    def play(self, seconds) -> tuple[float, int, list[float]]:
        """Play for ``seconds`` with 10 pages open: (CPU share, moves, latencies in ms)."""
        commits = []  # monotonic times the first status page saw a commit
        seen = threading.Condition()

        def on_commit():
            with seen:
                commits.append(time.monotonic())
                seen.notify_all()

        pages = [Page(self.base, kind, who, self.tokens, on_commit if i == 0 else lambda: None)
                 for i, (kind, who) in enumerate(PAGES)]
        latencies = []
        field = self.pico.field

        def referee_a_game(until):
            shadow = self.shadow
            while time.monotonic() < until and not shadow.is_over():
                plain = [a for a in shadow.legal_actions() if isinstance(a, Move) and shadow.tower_at(a.to) is None]
                if not plain:
                    break
                move = self.rng.choice(plain)
                field.lift(move.frm)
                time.sleep(0.3)  # a hand in the air
                with seen:
                    before = len(commits)
                placed = time.monotonic()
                field.place(move.to)
                shadow.push(move)
                with seen:
                    if not seen.wait_for(lambda: len(commits) > before, timeout=15):
                        raise SystemExit(f"{self.mode}: a move was not committed within 15 s")
                    latencies.append((commits[before] - placed) * 1000)
                time.sleep(0.5)  # the next player looks at the board

        share = measure([self.proc.pid], seconds, referee_a_game)[0]
        for page in pages:
            page.close()
        return share, len(latencies), latencies

    def close(self):
        stop(self.proc)
        self.pico.close()


def stop(proc):
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each idle and each play round")
    parser.add_argument("--core", type=int, default=None, help="the core quin serve is pinned to (default: the last)")
    args = parser.parse_args()
    cores = sorted(os.sched_getaffinity(0))
    core = cores[-1] if args.core is None else args.core
    if len(cores) > 1:  # the virtual Picos and the page clients stay off the servers' core
        os.sched_setaffinity(0, set(cores) - {core})

    tmp = Path(tempfile.mkdtemp(prefix="quin-serve-cost-"))
    rigs = {}
    peer = None
    try:
        for mode in MODES:
            rigs[mode] = Rig(mode, tmp, core)
        peer = serve(["--data-dir", str(tmp / "peer")], core)
        read_urls(peer)
        for rig in rigs.values():
            rig.start_game()
        time.sleep(1.0)
        result = run(rigs, peer.pid, args)
    finally:
        for rig in rigs.values():
            rig.close()
        if peer is not None:
            stop(peer)
    result["core"] = core
    print(json.dumps(result))


def run(rigs, peer_pid, args) -> dict:
    modes = list(rigs)
    idle = {m: [] for m in modes}
    peer, play, moves, latency = [], {m: [] for m in modes}, {m: [] for m in modes}, {m: [] for m in modes}
    for _ in range(args.rounds):
        shares = measure([rigs[m].proc.pid for m in modes] + [peer_pid], args.seconds,
                         lambda until: time.sleep(max(0.0, until - time.monotonic())))
        for m, share in zip(modes, shares):
            idle[m].append(share)
        peer.append(shares[-1])
        for m in modes:
            share, n, lat = rigs[m].play(args.seconds)
            play[m].append(share)
            moves[m].append(n)
            latency[m] += lat
    med = lambda xs: round(statistics.median(xs), 4) if xs else None  # noqa: E731
    result = {
        "board": "virtual Pico: firmware/code.py under MicroPython (128K heap), 100 Hz scans, over a pty",
        "pages_open_in_play": len(PAGES),
        "peer_sim_board_idle_cpu_share": med(peer),
        "peer_rounds": [round(x, 4) for x in peer],
    }
    for m in modes:
        mem = memory_mb(rigs[m].proc.pid)
        result[m] = {
            "idle_cpu_share": med(idle[m]),
            "play_cpu_share": med(play[m]),
            "commit_latency_ms_median": round(statistics.median(latency[m]), 1) if latency[m] else None,
            "commit_latency_ms_max": round(max(latency[m]), 1) if latency[m] else None,
            "idle_rounds": [round(x, 4) for x in idle[m]],
            "play_rounds": [round(x, 4) for x in play[m]],
            "moves_per_play_round": moves[m],
            "rss_mb": round(mem["VmRSS"], 1),
            "peak_rss_mb": round(mem["VmHWM"], 1),
        }
    ours = result["decides"]
    result["goals"] = GOALS
    result["within_goals"] = (ours["idle_cpu_share"] <= GOALS["idle_cpu_share"]
                              and ours["play_cpu_share"] < GOALS["play_cpu_share"]
                              and ours["peak_rss_mb"] < GOALS["rss_mb"])
    return result


def measure(pids, seconds, activity) -> list[float]:
    """CPU share of one core used by each of ``pids`` while ``activity(until)`` runs for ``seconds``."""
    start_cpu, start = [cpu_seconds(p) for p in pids], time.monotonic()
    activity(start + seconds)
    wall = time.monotonic() - start
    return [(cpu_seconds(p) - c) / wall for p, c in zip(pids, start_cpu)]


if __name__ == "__main__":
    main()
