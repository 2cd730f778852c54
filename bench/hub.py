"""Hub benchmark (issue 20), on loopback: simulated tables playing brisk games and pushing to two hub
processes on one PostgreSQL, spectators streaming, and the fault drills.  Prints JSON.

    nice python bench/hub.py [--tables 200] [--streams 5000] [--seconds 60] [--faults --cut 300]

The pace is the simulator's brisk table (host/simulate/timing.py, PACES["brisk"]): a tower lifted
``think`` (0.2-0.5 s) after the previous turn's last change, or ``between`` (0.3-0.45 s) after the
previous action of the same turn (a Time and what follows it), held ``carry`` (0.2-0.5 s), committed on the put-down once the bounce is over (the
80 ms flicker window).  Each action shows three public frames on the status page (the lift, the
put-down, the commit with the new history): about 0.8 s per action, so **about 3.7 public frames a
second per table**, 740 a second for 200 tables.  Every frame is pushed as the status page shows it.

Each table is a real board store (SQLite, on /dev/shm: the board's own disk is not what is
measured) with its outbox and a real :class:`host.remote.push.Pusher`; the game is a seeded random
game played by the engine (the referee and sensing are not run: the hub's costs are measured).  Each
frame is stamped with the time it was published, so a spectator can tell the event-to-spectator
latency.  The work is spread over processes so that the bench is not its own bottleneck: the boards
in ``--board-procs`` processes, the spectators in ``--spectator-procs`` (asyncio, raw sockets, the
SSE read line by line), a small TCP proxy (as any HTTP proxy in front of the hub) spreading the
boards' connections over the two hub processes.  Spectators connect to the hub processes directly,
spread over both; one stream in ``--wall-every`` is the wall, the others follow one game each.

With ``--faults``: the second hub process is killed a third into the run (its spectators reconnect
to the first with their Last-Event-ID; the boards' connections through the proxy go to the first),
PostgreSQL is restarted a little later (the outboxes must drain after), and one board is cut off
for ``--cut`` seconds from then (it must catch up: every event it numbered is in the hub once,
none missing).  The run lasts at least until the cut board is back and drained.
"""

from __future__ import annotations

import argparse
import asyncio
import heapq
import json
import multiprocessing as mp
import os
import random
import re
import resource
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.pg import Cluster  # noqa: E402  (the tests' throwaway cluster)

THINK, BETWEEN, CARRY, SETTLE = (0.2, 0.5), (0.3, 0.45), (0.2, 0.5), 0.08  # host/simulate/timing.py, brisk
GAME_CAP = 150  # actions: a game longer than this is abandoned and a new one starts (brisk games are short)


# --- boards --------------------------------------------------------------------------------------


GAME_MARK, TIME_MARK = b'"game":987654321', b'"bench_t":123456789.125'  # stamped as each frame is sent


class PreGame:
    """A random game played by the engine before the run, as the public status page shows it: its
    opening frame, then three frames per action (the lift, the put-down, the commit with the new
    history), each the SSE bytes the table's broker hands its pusher (host.web.events.encode), with
    the game's number and the time it is sent left to stamp."""

    def __init__(self, rng: random.Random):
        from engine.board import BLACK, WHITE
        from engine.game import Game
        from engine.randplay import random_setup
        from engine.views import view
        from host.web.events import encode

        self.setups = {WHITE: random_setup(rng, WHITE), BLACK: random_setup(rng, BLACK)}
        game = Game(self.setups[WHITE], self.setups[BLACK], "classic")

        def frame(lift, place):
            v = view(game, None)
            state = {"phase": "over" if game.is_over() else "playing", "game": 987654321, "mode": "classic",
                     "board": {"occupied": sorted(t["space"] for t in v.get("board", [])), "lift": lift,
                               "place": place}, "view": v, "bench_t": 123456789.125}
            out = encode(0, "update", {"state": state, "notices": []})
            assert GAME_MARK in out and TIME_MARK in out
            return out

        self.opening = frame([], [])
        self.steps: list[tuple[bytes, bytes, bytes, bool]] = []  # lift, put-down, commit, same turn after
        while not game.is_over() and len(game.log) < GAME_CAP:
            action = rng.choice(game.legal_actions())
            spaces = [v for v in action.to_record().values() if isinstance(v, str) and v[:1] in "wb"
                      and v[1:].isdigit()] or ["w00"]
            lifted, placed = frame(spaces[:1], []), frame([], spaces[:1])
            before = game.to_move
            game.push(action)
            self.steps.append((lifted, placed, frame([], []), game.to_move == before))
        self.game = game  # as it ends: written to the table's store when it ends there


class SimTable:
    """What a Pusher needs of a table (its store, its broker, a status line), playing pre-generated
    games at the brisk pace: lift, put-down, commit, each handed to the pusher as the table's broker
    would hand it the public status page's frame, stamped with the time it is handed over.  The
    game is written to the table's store as a board writes it (its row and lineups when it starts,
    its actions once it ends, or is abandoned at GAME_CAP), so the pusher sends its record after
    its last frame."""

    def __init__(self, folder: Path, seed: int, games: list[PreGame]):
        from host.store import Store
        from host.web.events import Broker

        folder.mkdir(parents=True, exist_ok=True)
        self.store = Store(folder / "quin.sqlite3")
        self.broker = Broker()  # the pusher subscribes to it; the frames go to the pusher directly
        self.hub = None
        self.hub_pusher = None
        self.rng = random.Random(seed)
        self.games = games
        self.n = seed
        self.pre: PreGame | None = None

    def show_hub(self, hub: dict) -> None:
        """The pusher's line about the hub (a board's status page shows it; nothing reads it here)."""
        self.hub = hub

    def new_game(self):
        from engine.board import BLACK, WHITE

        self.pre = self.games[self.n % len(self.games)]
        self.n += 1
        self.id = self.store.new_game("classic", False, WHITE, {"white": "w", "black": "b"})
        for p in (WHITE, BLACK):
            self.store.save_setup(self.id, p, self.pre.setups[p])
        self.store.start_game(self.id)
        self.i = 0
        self.send(self.pre.opening)

    def send(self, frame: bytes):
        self.hub_pusher._deliver(frame.replace(GAME_MARK, b'"game":%d' % self.id)
                                 .replace(TIME_MARK, b'"bench_t":%r' % time.time()))

    def step(self, phase: str) -> float:
        """Do the next step; the seconds until the one after."""
        rng = self.rng
        if phase == "lift" and self.i >= len(self.pre.steps):
            if not self.pre.game.is_over():  # capped: abandoned, as the bench always did
                self.store.commit_action(self.id, self.pre.game)
                self.store.abandon(self.id)
            self.new_game()
        lifted, placed, committed, same_turn = self.pre.steps[self.i]
        if phase == "lift":
            self.send(lifted)
            return rng.uniform(*CARRY)
        if phase == "place":
            self.send(placed)
            return SETTLE
        self.i += 1
        if self.i == len(self.pre.steps) and self.pre.game.is_over():
            self.store.commit_action(self.id, self.pre.game)  # the game over: its record, then its last frame
        self.send(committed)
        return rng.uniform(*BETWEEN) if same_turn else rng.uniform(*THINK)


def board_worker(conn, folder: str, seeds: list[int], keys: list[str], url: str):
    """A process of boards: plays when told, cuts one off when told, reports when told to stop."""
    from host.remote.push import Pusher

    # The boards stand for other machines: here their many threads would take the CPU from the hub
    # processes (the scheduler shares it by thread), so they yield to them.
    os.nice(5)
    rng = random.Random(seeds[0])
    games = [PreGame(rng) for _ in range(min(len(seeds), 8))]  # played by the engine before the run
    tables = [SimTable(Path(folder) / f"t{s}", s, games) for s in seeds]
    pushers = [Pusher(t, url, k, backoff=(0.2, 2.0)) for t, k in zip(tables, keys)]
    refused = [0]
    for p in pushers:  # count the pushes the hub refused (a 503 when its pool is exhausted): retried
        def post(body, p=p, real=p._post):
            problem = real(body)
            refused[0] += problem is not None
            return problem
        p._post = post
        p.start()
    for t in tables:
        t.new_game()
    stop = threading.Event()
    playing = threading.Event()

    def play():
        order = {"lift": "place", "place": "commit", "commit": "lift"}
        rng = random.Random(seeds[0])
        now = time.monotonic()
        heap = [(now + rng.uniform(0, 1), i, "lift") for i in range(len(tables))]
        heapq.heapify(heap)
        while not stop.is_set():
            when, i, phase = heap[0]
            wait = when - time.monotonic()
            if wait > 0:
                stop.wait(wait)
                continue
            heapq.heapreplace(heap, (when + tables[i].step(phase), i, order[phase]))

    conn.send("ready")
    player = threading.Thread(target=play, daemon=True)
    while True:
        cmd = conn.recv()
        if cmd[0] == "play":
            playing.set()
            player.start()
        elif cmd[0] == "clear":
            for p in pushers:
                p.latencies.clear()
            refused[0] = 0
        elif cmd[0] == "cut":  # the last board's pushes go nowhere until "uncut"
            cut = pushers[-1]
            cut._real, cut._parts, cut._conn = cut._parts, urllib.parse.urlsplit("http://127.0.0.1:9"), None
        elif cmd[0] == "uncut":
            cut = pushers[-1]
            cut._parts, cut._conn = cut._real, None
        elif cmd[0] == "pending":  # of the boards not cut off
            conn.send(sum(p.outbox.pending() + len(p._frames) for p in pushers if not hasattr(p, "_real")
                          or p._parts is p._real))
        elif cmd[0] == "pending_cut":
            conn.send(pushers[-1].outbox.pending() + len(pushers[-1]._frames))
        elif cmd[0] == "cut_mark":  # the newest frame the cut board holds now
            pushers[-1]._drain_frames()
            conn.send(tables[-1].store._conn.execute("SELECT COALESCE(MAX(id), 0) FROM hub_outbox").fetchone()[0])
        elif cmd[0] == "cut_left":  # of those, how many the hub has not acknowledged yet
            conn.send(tables[-1].store._conn.execute("SELECT COUNT(*) FROM hub_outbox WHERE id <= ?",
                                                     (cmd[1],)).fetchone()[0])
        elif cmd[0] == "stop":
            stop.set()
            if playing.is_set():
                player.join()
            deadline = time.monotonic() + cmd[1]
            while time.monotonic() < deadline and any(p.outbox.pending() or p._frames for p in pushers):
                time.sleep(0.2)
            out = {"drained": not any(p.outbox.pending() or p._frames for p in pushers),
                   "pushes": [x for p in pushers for x in p.latencies],
                   "numbered": {uuid: seq for t in tables for uuid, seq in t.store._conn.execute(
                       "SELECT game_uuid, seq FROM hub_numbered").fetchall()},
                   "cut_table": seeds[-1], "cpu": resource.getrusage(resource.RUSAGE_SELF)[:2],
                   "refused": refused[0]}
            for p in pushers:
                p.stop()
            conn.send(out)
            return


# --- spectators ----------------------------------------------------------------------------------

STAMP = re.compile(rb'"bench_t"(?::|\],)([0-9.]+)')  # in a whole frame, or a patch's ["set",[...,"bench_t"],t]


class Reader:
    """One spectator's stream on a raw non-blocking socket (HTTP/1.0, so no chunking to undo)."""

    def __init__(self, hosts: list[tuple[str, int]], path: str):
        self.hosts, self.path = hosts, path
        self.wall = path.endswith("wall")
        self.turn = 0  # which process it tries (the next after each failure)
        self.last = b""  # the last event id it has (Last-Event-ID)
        self.sock: socket.socket | None = None
        self.connected_once = False

    def connect(self) -> socket.socket:
        host, port = self.hosts[self.turn % len(self.hosts)]
        sock = socket.socket()
        sock.setblocking(False)
        try:
            sock.connect((host, port))
        except BlockingIOError:
            pass
        self.sock, self.buf, self.head, self.fresh = sock, b"", True, True
        self.request = (f"GET {self.path} HTTP/1.0\r\nHost: x\r\nAccept: text/event-stream\r\n".encode()
                        + (b"Last-Event-ID: %s\r\n" % self.last if self.last else b"") + b"\r\n")
        return sock


def spectator_worker(conn, streams: list[tuple[list[tuple[str, int]], str]]):
    """A process of SSE streams read by one selector loop on raw sockets: each read takes what the
    socket holds; each complete event is timed as it arrives (the time it was stamped at the board
    against now: the event-to-spectator latency), and its id kept for a resume.  The first event
    of a connection brings it up to date (the newest frame whole, or the first missed while
    reconnecting): counted apart from the live ones (the wall: all its boards, its first second)."""
    stats = {"latencies": [], "wall": [], "events": 0, "reconnects": 0, "connected": 0, "resumed": [],
             "refused": 0}
    sel = selectors.DefaultSelector()
    sel.register(conn.fileno(), selectors.EVENT_READ, None)
    retry: list[tuple[float, int, Reader]] = []  # (when, tie, reader): reconnections due
    readers = [Reader(h, p) for h, p in streams]
    for n, r in enumerate(readers):
        heapq.heappush(retry, (time.monotonic() + n // 100 * 0.05, n, r))

    def fail(r: Reader) -> None:
        sel.unregister(r.sock)
        r.sock.close()
        stats["reconnects"] += 1
        r.turn += 1  # the next process
        heapq.heappush(retry, (time.monotonic() + 0.2 + random.random() * 0.3, id(r), r))

    def read(r: Reader) -> None:
        try:
            data = r.sock.recv(1 << 20)
        except BlockingIOError:
            return
        except OSError:
            return fail(r)
        now = time.time()
        if not data:
            return fail(r)
        buf = r.buf + data
        if r.head:
            if b"\r\n\r\n" not in buf:
                r.buf = buf
                return
            status, _, buf = buf.partition(b"\r\n\r\n")
            if b" 200 " not in status.split(b"\r\n", 1)[0]:
                stats["refused"] += 1
                return fail(r)
            r.head = False
            r.since = time.monotonic()
            if not r.connected_once:
                stats["connected"] += 1
                r.connected_once = True
        cut = buf.rfind(b"\n\n")
        if cut < 0:
            r.buf = buf
            return
        done, r.buf = buf[:cut], buf[cut + 2:]
        stats["events"] += done.count(b"\ndata: ") + done.startswith(b"data: ")
        at = done.rfind(b"id: ")
        if at >= 0 and (at == 0 or done[at - 1] == 10):
            r.last = done[at + 4:done.index(b"\n", at)]
        for m in STAMP.finditer(done):
            lat = now - float(m.group(1))
            if r.fresh:
                stats["resumed"].append(lat)
            else:
                (stats["wall"] if r.wall else stats["latencies"]).append(lat)
            r.fresh = r.wall and time.monotonic() - r.since < 1.0

    conn.send("ready")
    while True:
        wait = None
        now = time.monotonic()
        while retry and retry[0][0] <= now:
            r = heapq.heappop(retry)[2]
            r.sock = r.connect()
            sel.register(r.sock, selectors.EVENT_WRITE, r)
        if retry:
            wait = max(0.0, retry[0][0] - now)
        for key, events in sel.select(wait):
            r = key.data
            if r is None:  # a command
                cmd = conn.recv()
                if cmd == "stats":
                    conn.send({k: (len(v) if isinstance(v, list) else v) for k, v in stats.items()})
                elif cmd == "clear":
                    for k in ("latencies", "wall", "resumed"):
                        stats[k] = []
                elif cmd == "stop":
                    conn.send(dict(stats, cpu=resource.getrusage(resource.RUSAGE_SELF)[:2]))
                    return
            elif events & selectors.EVENT_WRITE:  # connected (or failed to)
                try:
                    r.sock.send(r.request)
                except OSError:
                    fail(r)
                    continue
                sel.modify(r.sock, selectors.EVENT_READ, r)
            else:
                read(r)


# --- a TCP proxy in front of the hub processes (the boards' pushes) -------------------------------


def proxy_worker(conn, backends: list[int]):
    async def pipe(r, w):
        try:
            while data := await r.read(65536):
                w.write(data)
                await w.drain()
        except (OSError, ConnectionError):
            pass
        finally:
            w.close()

    turn = [0]

    async def handle(cr, cw):
        for _ in range(len(backends)):
            port = backends[turn[0] % len(backends)]
            turn[0] += 1
            try:
                br, bw = await asyncio.open_connection("127.0.0.1", port)
                break
            except OSError:
                continue
        else:
            cw.close()
            return
        await asyncio.gather(pipe(cr, bw), pipe(br, cw))

    async def main():
        server = await asyncio.start_server(handle, "127.0.0.1", 0, backlog=1024)
        conn.send(server.sockets[0].getsockname()[1])
        await asyncio.get_running_loop().run_in_executor(None, conn.recv)

    asyncio.run(main())


# --- the hub processes ---------------------------------------------------------------------------


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def postgres_cpu_s(cluster: Cluster) -> float:
    """CPU seconds of the cluster's processes alive now (the postmaster's children)."""
    try:
        pid = int((cluster.data / "postmaster.pid").read_text().split()[0])
        kids = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
        return sum(cpu_s(int(p)) for p in [pid, *kids] if Path(f"/proc/{p}").exists())
    except (OSError, ValueError):
        return 0.0


class HubProc:
    def __init__(self, dsn: str, pool: int, profile: str | None = None, root: str | None = None):
        env = dict(os.environ, PYTHONPATH=str(root or ROOT))  # root: another checkout's hub (a peer)
        # run from that checkout: ``python -c`` puts the working folder first on sys.path, ahead of
        # PYTHONPATH, so a bench started in one checkout ran its own hub whatever --hub-root said
        code = "import sys; from host.cli import main; sys.exit(main())"
        if profile:  # the hub's own CPU, by function, written when it stops
            code = f"import cProfile; from host.cli import main; cProfile.run('main()', {profile!r})"
        self.proc = subprocess.Popen([sys.executable, "-c", code,
                                      "hub", "serve", "--db", dsn, "--port", "0", "--pool", str(pool),
                                      "--streams-per-address", "100000", "--push-rate", "10000",
                                      "--stream-rate", "100000"],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env,
                                     cwd=str(root or ROOT))
        line = self.proc.stdout.readline()
        self.port = int(line.split("http://127.0.0.1:")[1].split("/")[0])


class Probe:
    """The machine's own delay, beside the run: how late a 10 ms sleep of this (niced) process wakes."""

    def __init__(self):
        self.late: list[float] = []
        self.stop = threading.Event()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self):
        while not self.stop.is_set():
            t = time.monotonic()
            time.sleep(0.01)
            self.late.append(time.monotonic() - t - 0.01)
            time.sleep(0.04)


def say(what: str) -> None:
    print(f"bench {time.strftime('%H:%M:%S')}: {what}", file=sys.stderr, flush=True)


def pct(values, p):
    if not values:
        return None
    values = sorted(values)
    return round(values[min(len(values) - 1, int(len(values) * p))] * 1000, 1)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tables", type=int, default=20)
    ap.add_argument("--streams", type=int, default=300)
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--faults", action="store_true")
    ap.add_argument("--cut", type=float, default=300.0, help="seconds one board is cut off (--faults)")
    ap.add_argument("--board-procs", type=int, default=4)
    ap.add_argument("--spectator-procs", type=int, default=2)
    ap.add_argument("--wall-every", type=int, default=100, help="one stream in this many is the wall")
    ap.add_argument("--direct", action="store_true", help="boards push to a hub process each, not through the proxy")
    ap.add_argument("--profile-hub", help="write the first hub process's cProfile statistics to this file")
    ap.add_argument("--pool", type=int, default=6, help="database connections per hub process")
    ap.add_argument("--hub-root", help="run the hub processes from this checkout (a peer to compare with)")
    args = ap.parse_args()

    import psycopg

    from host.hub.store import schema

    ctx = mp.get_context("fork")
    cluster = Cluster()
    stores = Path(tempfile.mkdtemp(prefix="quin-hub-bench-", dir="/dev/shm" if Path("/dev/shm").is_dir() else None))
    out: dict = {"ran": {k: getattr(args, k) for k in ("tables", "streams", "seconds", "faults", "cut", "pool", "direct",
                                                        "hub_root")},
                 "asked": {"tables": 200, "streams": 5000, "push_p99_ms": 50, "event_to_spectator_p99_ms": 500},
                 "machine": {"cores": os.cpu_count(), "load_before": os.getloadavg()}}
    hubs, workers = [], []
    try:
        dsn = cluster.new_database("bench")
        with psycopg.connect(dsn, autocommit=True) as conn:
            schema.ensure(conn)
        keys = [None] * args.tables
        with psycopg.connect(dsn, autocommit=True) as conn:
            for i in range(args.tables):
                keys[i] = schema.add_table(conn, f"t{i}")
        # the workers are forked before any thread or connection exists in this process
        proxy_end, proxy_conn = ctx.Pipe()
        hubs = [HubProc(dsn, args.pool, args.profile_hub, args.hub_root), HubProc(dsn, args.pool, None, args.hub_root)]
        proxy = ctx.Process(target=proxy_worker, args=(proxy_conn, [h.port for h in hubs]), daemon=True)
        proxy.start()
        proxy_port = proxy_end.recv()
        boards = []
        per = -(-args.tables // args.board_procs)
        for b in range(args.board_procs):
            seeds = list(range(b * per, min(args.tables, (b + 1) * per)))
            if not seeds:
                continue
            end, child = ctx.Pipe()
            target = hubs[b % 2].port if args.direct else proxy_port
            p = ctx.Process(target=board_worker, args=(child, str(stores), seeds, [keys[s] for s in seeds],
                                                       f"http://127.0.0.1:{target}"), daemon=True)
            p.start()
            boards.append((p, end))
        for _, end in boards:
            assert end.recv() == "ready"
        say(f"{args.tables} boards ready")
        base_rss = [rss_kb(h.proc.pid) for h in hubs]
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with psycopg.connect(dsn) as conn:
                uuids = [str(r[0]) for r in conn.execute("SELECT uuid FROM hub_games ORDER BY id").fetchall()]
            if len(uuids) >= args.tables:
                break
            time.sleep(0.5)
        say(f"{len(uuids)} games at the hub")
        # spectators: stream n follows game n (or the wall), on process n % 2 first, the other after
        plan = []
        for n in range(args.streams):
            path = "/api/stream/wall" if n % args.wall_every == 0 else f"/api/stream/games/{uuids[n % len(uuids)]}"
            ports = [hubs[n % 2].port, hubs[1 - n % 2].port]
            plan.append(([("127.0.0.1", p) for p in ports], path))
        specs = []
        for s in range(args.spectator_procs):
            end, child = ctx.Pipe()
            p = ctx.Process(target=spectator_worker, args=(child, plan[s::args.spectator_procs]), daemon=True)
            p.start()
            specs.append((p, end))
        for _, end in specs:
            assert end.recv() == "ready"
        say(f"{len(specs)} spectator processes started")
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            connected = 0
            for _, end in specs:
                end.send("stats")
                connected += end.recv()["connected"]
            if connected >= args.streams:
                break
            time.sleep(1)
        out["streams_connected"] = connected
        say(f"{connected} streams connected")
        time.sleep(2)
        opened_rss = [rss_kb(h.proc.pid) for h in hubs]
        out["hub_kb_per_stream"] = round((sum(opened_rss) - sum(base_rss)) / max(1, args.streams), 1)
        out["hub_rss_mb"] = {"idle": [round(r / 1024, 1) for r in base_rss],
                             "streams_open": [round(r / 1024, 1) for r in opened_rss]}

        for _, end in specs:
            end.send("clear")
        cpu0 = {"hubs": [cpu_s(h.proc.pid) for h in hubs], "postgres": postgres_cpu_s(cluster),
                "boards": [cpu_s(p.pid) for p, _ in boards], "spectators": [cpu_s(p.pid) for p, _ in specs],
                "proxy": cpu_s(proxy.pid)}
        t0 = time.monotonic()
        for _, end in boards:
            end.send(("play",))
        time.sleep(3)  # every table under way before the latencies count
        for _, end in boards:
            end.send(("clear",))
        for _, end in specs:
            end.send("clear")
        t0 = time.monotonic()
        say("measuring")
        probe = Probe()
        faults = {}
        if args.faults:
            time.sleep(args.seconds / 3)
            before = sum_stats(specs, "reconnects")
            events_before = sum_stats(specs, "events")
            hub1_cpu = cpu_s(hubs[1].proc.pid)  # what it used is counted until it is killed
            hubs[1].proc.kill()
            hubs[1].proc.wait()
            say("the second hub process killed")
            time.sleep(5)
            faults["hub_killed"] = {"reconnects": sum_stats(specs, "reconnects") - before,
                                    "events_in_5s_after": sum_stats(specs, "events") - events_before,
                                    "streams_it_had": args.streams // 2}
            cut_end = boards[-1][1]
            cut_end.send(("cut",))
            cut_started = time.monotonic()
            say("a board cut off")
            time.sleep(5)
            pg_down = time.monotonic()
            cluster.restart()
            faults["postgres_restarted"] = {"seconds_down": round(time.monotonic() - pg_down, 2)}
            say("PostgreSQL restarted")
            drain_started = time.monotonic()
            while time.monotonic() - drain_started < 120:
                for _, end in boards:
                    end.send(("pending",))
                if sum(end.recv() for _, end in boards) < args.tables * 3:  # about the live frames in flight
                    break
                time.sleep(0.5)
            faults["postgres_restarted"]["outboxes_back_to_steady_s"] = round(time.monotonic() - drain_started, 2)
            time.sleep(max(0.0, args.cut - (time.monotonic() - cut_started)))
            cut_end.send(("pending_cut",))
            kept = cut_end.recv()
            cut_end.send(("cut_mark",))
            mark = cut_end.recv()
            cut_end.send(("uncut",))
            say(f"the board is back with {kept} frames kept")
            back = time.monotonic()
            while time.monotonic() - back < 300:  # every frame it kept while cut off acknowledged
                cut_end.send(("cut_left", mark))
                if cut_end.recv() == 0:
                    break
                time.sleep(0.2)
            faults["board_cut_off"] = {"seconds": round(back - cut_started, 1), "frames_kept_in_its_outbox": kept,
                                       "caught_up_in_s": round(time.monotonic() - back, 2)}
            time.sleep(5)
        rest = args.seconds - (time.monotonic() - t0)
        time.sleep(max(0.0, rest))
        elapsed = time.monotonic() - t0
        say("stopping")
        spect = []
        for _, end in specs:
            end.send("stop")
            spect.append(end.recv())
        results = []
        for _, end in boards:
            end.send(("stop", 120))
        for _, end in boards:
            results.append(end.recv())
        cpu1 = {"hubs": [cpu_s(h.proc.pid) if h.proc.poll() is None else hub1_cpu for h in hubs],
                "postgres": postgres_cpu_s(cluster), "boards": [r["cpu"][0] + r["cpu"][1] for r in results],
                "spectators": [s["cpu"][0] + s["cpu"][1] for s in spect], "proxy": cpu_s(proxy.pid)}
        out["seconds_measured"] = round(elapsed, 1)
        out["drained"] = all(r["drained"] for r in results)
        pushes = [x for r in results for x in r["pushes"]]
        out["pushes"] = len(pushes)
        out["pushes_refused"] = sum(r["refused"] for r in results)  # answered 503 etc.: retried after a backoff
        out["push_ms"] = {"p50": pct(pushes, 0.5), "p99": pct(pushes, 0.99), "max": pct(pushes, 1.0)}
        lat = [x for s in spect for x in s["latencies"]]
        wall = [x for s in spect for x in s["wall"]]
        resumed = [x for s in spect for x in s["resumed"]]
        out["event_to_spectator_ms"] = {"p50": pct(lat, 0.5), "p99": pct(lat, 0.99), "max": pct(lat, 1.0),
                                        "events": len(lat)}
        out["event_to_wall_ms"] = {"p50": pct(wall, 0.5), "p99": pct(wall, 0.99), "events": len(wall)}
        out["first_event_after_connecting_ms"] = {"p50": pct(resumed, 0.5), "p99": pct(resumed, 0.99),
                                                  "events": len(resumed)}
        probe.stop.set()
        out["machine"]["sleep_10ms_wakes_late_ms"] = {"p50": pct(probe.late, 0.5), "p99": pct(probe.late, 0.99)}
        out["stream_reconnects"] = sum(s["reconnects"] for s in spect)
        out["streams_refused"] = sum(s["refused"] for s in spect)
        # CPU seconds per second of the run, per part (1.0 = one core)
        span = time.monotonic() - t0 + 3
        out["cpu_cores_used"] = {
            "hubs": [round((b - a) / span, 2) for a, b in zip(cpu0["hubs"], cpu1["hubs"])],
            "postgres": round((cpu1["postgres"] - cpu0["postgres"]) / span, 2),
            "boards": round((sum(cpu1["boards"]) - sum(cpu0["boards"])) / span, 2),
            "spectators": round((sum(cpu1["spectators"]) - sum(cpu0["spectators"])) / span, 2),
            "proxy": round((cpu1["proxy"] - cpu0["proxy"]) / span, 2),
            "load_after": os.getloadavg()}
        numbered = {}
        for r in results:
            numbered.update(r["numbered"])
        with psycopg.connect(dsn) as conn:
            games = conn.execute("SELECT count(*) FROM hub_games").fetchone()[0]
            size = conn.execute("SELECT sum(pg_total_relation_size(c)) FROM unnest(ARRAY['hub_games','hub_events',"
                                "'hub_tables','hub_players']::regclass[]) c").fetchone()[0]
            events, patches, data_bytes = conn.execute(
                "SELECT count(*), count(*) FILTER (WHERE left(data, 9) = '{\"patch\":'), sum(length(data)) "
                "FROM hub_events").fetchone()
            held = dict((str(u), (n, last)) for u, n, last in conn.execute(
                "SELECT g.uuid, (SELECT count(*) FROM hub_events e WHERE e.game_id = g.id), g.last_seq "
                "FROM hub_games g").fetchall())
        # nothing lost or doubled: every event a board numbered is in the hub once, without gaps
        missing = sum(max(0, seq - held.get(u, (0, 0))[0]) for u, seq in numbered.items())
        out["events"] = {"numbered_at_boards": sum(numbered.values()), "held_by_hub": events,
                         "missing": missing, "games_with_gaps": sum(1 for n, last in held.values() if n != last),
                         "patches": patches, "bytes_per_event": round(data_bytes / max(1, events), 1)}
        out["games"] = games
        out["per_table_frames_per_s"] = round(sum(numbered.values()) / max(1, args.tables) / (elapsed + 3), 2)
        # what each part costs per public frame (CPU milliseconds): what a machine of its own would need
        frames_made = max(1, out["per_table_frames_per_s"] * args.tables)
        out["cpu_ms_per_frame"] = {k: (round(sum(v) * 1000 / frames_made, 2) if isinstance(v, list) else
                                       round(v * 1000 / frames_made, 2))
                                   for k, v in out["cpu_cores_used"].items() if k != "load_after"}
        out["db_kb_per_game"] = round(float(size) / 1024 / max(1, games), 1)
        out["db_kb_per_event"] = round(float(size) / 1024 / max(1, events), 2)
        out["faults"] = faults
        proxy_end.send("stop")
        print(json.dumps(out, indent=2), flush=True)
        return 0
    finally:
        for h in hubs:
            if h.proc.poll() is None:
                h.proc.terminate()
                try:
                    h.proc.wait(10)
                except subprocess.TimeoutExpired:
                    h.proc.kill()
        for p in mp.active_children():
            p.kill()
        cluster.close()
        shutil.rmtree(stores, ignore_errors=True)


def sum_stats(specs, key):
    total = 0
    for _, end in specs:
        end.send("stats")
        total += end.recv()[key]
    return total


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    code = main()
    sys.stdout.flush()
    os._exit(code)
