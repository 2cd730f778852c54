"""Live-update delivery through the real server: committed action -> event at 100 stream clients;
and the pages' weight and time to first render.

Starts `quin serve` (waitress, simulated board) on 127.0.0.1, joins both seats,
opens N concurrent SSE clients on the public stream, then plays plain moves on
the virtual board.  For every committed action, each client's arrival time is
compared with the moment the action was durable in the store (the
``committed_at`` the server stamps after the SQLite commit, on the same
clock).  Prints JSON: latency p50/p99/max in ms and the server's memory.

Pages (``--part pages``, also part of the default ``all``, under ``"pages"``):
each page's HTML + JS + CSS in bytes (what the browser fetches before it can
draw; the board layout JSON is counted apart), and, in the system Chromium
over loopback, its first contentful paint and the moment the live state is
first drawn, medians of interleaved loads, next to a peer: the plain error
page (the same header and stylesheet, no script of its own).

    python bench/web.py [--part all|latency|pages] [--clients 100] [--moves 40] [--loads 9]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
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


def stop_server(proc) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


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
        stop_server(proc)


# --- the pages: weight and time to first render ------------------------------------------------

PAGE_LIMIT_KB = 150
ASSET = re.compile(rb'<(?:script[^>]*\ssrc|link[^>]*rel="stylesheet"[^>]*\shref)="([^"]+)"')


def fetch_bytes(url: str) -> bytes:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.read()
    except urllib.error.HTTPError as exc:  # the error page is a page too
        return exc.read()


def page_weight(base: str, path: str) -> dict:
    html = fetch_bytes(base + path)
    js = css = 0
    for src in ASSET.findall(html):
        body = fetch_bytes(base + src.decode())
        if src.endswith(b".css"):
            css += len(body)
        else:
            js += len(body)
    total = len(html) + js + css
    return {"html": len(html), "js": js, "css": css, "total_kb": round(total / 1024, 1),
            "under_limit": total <= PAGE_LIMIT_KB * 1024}


def first_render(base: str, pages: dict, loads: int) -> dict:
    """Median first contentful paint and first live render (ms) per page, loads interleaved."""
    from playwright.sync_api import sync_playwright

    times: dict = {name: {"fcp": [], "live": []} for name in pages}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
        try:
            for _ in range(loads):
                for name, path in pages.items():
                    ctx = browser.new_context(viewport={"width": 1280, "height": 800})  # a cold cache each load
                    page = ctx.new_page()
                    page.goto(base + path, wait_until="load")
                    page.wait_for_function("performance.getEntriesByName('first-contentful-paint').length > 0")
                    times[name]["fcp"].append(page.evaluate(
                        "performance.getEntriesByName('first-contentful-paint')[0].startTime"))
                    if name != "peer (error page)":
                        page.wait_for_function("window.QUIN_RENDERED !== undefined || window.QUIN_STATIC", timeout=10000)
                        times[name]["live"].append(page.evaluate("window.QUIN_RENDERED || null"))
                    ctx.close()
        finally:
            browser.close()
    med = lambda xs: round(statistics.median(xs), 1) if xs and None not in xs else None  # noqa: E731
    return {name: {"first_contentful_paint_ms": med(t["fcp"]), "first_live_render_ms": med(t["live"])}
            for name, t in times.items()}


def bench_pages(loads: int) -> dict:
    data_dir = tempfile.mkdtemp(prefix="quin-bench-pages-")
    proc, urls = start_server(data_dir, 24)
    base = urls["status page"].rstrip("/")
    try:
        path = lambda url: "/" + url.split("/", 3)[3]  # noqa: E731
        pages = {
            "status": "/",
            "seat": path(urls["white seat"]),
            "virtual board": "/board",
            "history": "/history",
            "host": path(urls["host page"]),
        }
        weights = {name: page_weight(base, p) for name, p in pages.items()}
        layout = len(fetch_bytes(base + "/api/layout"))
        live = {name: p for name, p in pages.items() if name in ("status", "seat", "virtual board")}
        render = first_render(base, {**live, "peer (error page)": "/no-such-page"}, loads)
        return {"weight_bytes": weights, "layout_json_bytes": layout, "limit_kb": PAGE_LIMIT_KB,
                "all_under_limit": all(w["under_limit"] for w in weights.values()),
                "framework": None, "loads_per_page": loads, "render_loopback": render}
    finally:
        stop_server(proc)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("all", "latency", "pages"), default="all")
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("--threads", type=int, default=150)
    parser.add_argument("--loads", type=int, default=9, help="page loads per page for the render times")
    args = parser.parse_args()
    out: dict = {}
    if args.part in ("all", "latency"):
        out.update(asyncio.run(bench(args.clients, args.moves, args.threads)))
    if args.part in ("all", "pages"):
        out["pages"] = bench_pages(args.loads)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
