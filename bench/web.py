"""Live-update delivery through the real server: committed action -> event at 100 stream clients.

Starts `quin serve` (waitress, simulated board) on 127.0.0.1, joins both seats,
opens N concurrent SSE clients on the public stream, then plays plain moves on
the virtual board.  For every committed action, each client's arrival time is
compared with the moment the action was durable in the store (the
``committed_at`` the server stamps after the SQLite commit, on the same
clock).  Prints JSON: latency p50/p99/max in ms and the server's memory.

    python bench/web.py [--clients 100] [--moves 40]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.actions import Move  # noqa: E402
from engine.board import BLACK, SPACE_NAMES, WHITE  # noqa: E402
from engine.game import Game  # noqa: E402
from engine.randplay import random_setup  # noqa: E402

COMMITTED = re.compile(rb'"committed_at":([0-9.]+)')


def http(method: str, url: str, body=None, headers=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json", **(headers or {})})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def start_server(data_dir: str, threads: int):
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; from host.cli import main; sys.exit(main())", "serve",
         "--host", "127.0.0.1", "--port", "0", "--data-dir", data_dir, "--no-qr", "--show-links", "--threads", str(threads)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    return proc, read_urls(proc)


def read_urls(proc) -> dict:
    """The URLs a starting `quin serve` prints, by name ("status page", "white seat", ...)."""
    urls = {}
    while "black seat" not in urls:
        line = proc.stdout.readline()
        if not line:
            raise SystemExit(f"quin serve failed: {proc.stderr.read()}")
        if "http://" in line:
            name, _, url = line.strip().partition(":")
            urls[name.strip()] = url.strip().split()[0]
    return urls


def rss_kb(pid: int) -> dict:
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0])
    return out


class Client:
    def __init__(self):
        self.arrivals: dict[float, float] = {}  # committed_at -> arrival time
        self.ready = asyncio.Event()

    async def run(self, host: str, port: int, stop: asyncio.Event):
        reader, writer = await asyncio.open_connection(host, port, limit=1 << 24)
        writer.write(f"GET /events HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: text/event-stream\r\n\r\n".encode())
        await writer.drain()
        while (await reader.readline()) not in (b"\r\n", b""):
            pass  # response headers
        self.ready.set()
        try:
            while not stop.is_set():
                line = await reader.readline()
                if not line:
                    break
                if line.startswith(b"data:"):
                    now = time.time()
                    m = COMMITTED.search(line)
                    if m:
                        self.arrivals.setdefault(float(m.group(1)), now)
        finally:
            writer.close()


def percentile(values: list[float], p: float) -> float:
    values = sorted(values)
    k = min(len(values) - 1, max(0, round(p / 100 * (len(values) - 1))))
    return values[k]


async def bench(clients: int, moves: int, threads: int) -> dict:
    data_dir = tempfile.mkdtemp(prefix="quin-bench-")
    proc, urls = start_server(data_dir, threads)
    base = urls["status page"].rstrip("/")
    host, port = base.split("//")[1].split(":")
    try:
        rng = random.Random(7)
        setups = {WHITE: random_setup(rng, WHITE), BLACK: random_setup(rng, BLACK)}
        for player in (WHITE, BLACK):
            token = urls[f"{player} seat"].rsplit("/", 1)[1]
            http("POST", f"{base}/api/seat/{token}/setup", setups[player].to_record(), {"X-Seat-Token": token})
        http("POST", f"{base}/api/board/set", {"start": True})
        loop = asyncio.get_running_loop()
        while http("GET", f"{base}/api/state")["referee"]["phase"] != "play":
            await asyncio.sleep(0.05)
        first = http("GET", f"{base}/api/state")["first"]
        shadow = Game(setups[WHITE], setups[BLACK], first=first)

        stop = asyncio.Event()
        readers = [Client() for _ in range(clients)]
        tasks = [asyncio.create_task(c.run(host, int(port), stop)) for c in readers]
        await asyncio.wait_for(asyncio.gather(*(c.ready.wait() for c in readers)), 30)
        idle = rss_kb(proc.pid)

        commits: list[float] = []
        for _ in range(moves):
            plain = [a for a in shadow.legal_actions() if isinstance(a, Move) and shadow.tower_at(a.to) is None]
            if not plain or shadow.is_over():
                break
            move = rng.choice(plain)
            for space in (move.frm, move.to):
                await loop.run_in_executor(None, http, "POST", f"{base}/api/board/toggle", {"space": SPACE_NAMES[space]})
            shadow.push(move)
            # wait until every client has seen this commit
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                seen = [set(c.arrivals) for c in readers]
                new = set.intersection(*seen) - set(commits)
                if new:
                    commits.append(max(new))
                    break
                await asyncio.sleep(0.01)
            else:
                raise SystemExit("a commit did not reach every client within 10 s")
        loaded = rss_kb(proc.pid)
        stop.set()
        for t in tasks:
            t.cancel()
        latencies = [(c.arrivals[t] - t) * 1000 for c in readers for t in commits]
        state_bytes = len(json.dumps(http("GET", f"{base}/api/state")))
        return {
            "clients": clients,
            "commits": len(commits),
            "deliveries": len(latencies),
            "latency_ms": {
                "p50": round(percentile(latencies, 50), 2),
                "p99": round(percentile(latencies, 99), 2),
                "max": round(max(latencies), 2),
            },
            "goal_p99_ms": 100,
            "state_bytes": state_bytes,
            "server_rss_mb": {
                "with_clients_idle": round(idle["VmRSS"] / 1024, 1),
                "after_moves": round(loaded["VmRSS"] / 1024, 1),
                "peak": round(loaded["VmHWM"] / 1024, 1),
            },
            "server_threads": threads,
        }
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("--threads", type=int, default=150)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(bench(args.clients, args.moves, args.threads))))


if __name__ == "__main__":
    main()
