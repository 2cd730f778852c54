"""``quin hub serve``: the hub's HTTP server (tornado) on PostgreSQL (psycopg 3 and its pool).

No process keeps state another needs: every push is one transaction on the database that ends with
``pg_notify``; every process LISTENs and, when woken (or every ``poll`` seconds, in case a
notification was lost while its listening connection was down), reads the new events from the
events table and hands them to its own streams.  A stream that resumes with ``Last-Event-ID`` (the
game's event number) catches up from the table, so a spectator may reconnect to any process.

Routes (spectators read only; pushes need a table's key)::

    GET  /                          the wall: every live table, small boards
    GET  /games/<uuid>              one game: live, or its replay once archived
    GET  /archive                   the archive with search
    GET  /leaderboard               players and ratings
    GET  /api/games                 index of games (JSON; filters: table, mode, status, result, date, player)
    GET  /api/games/<uuid>          one game (JSON): its newest public state, and its record once over
    GET  /api/games/<uuid>/events   its public events (JSON), for a replay
    GET  /api/games/<uuid>/record   its quin-record/1 (404 until it is over)
    GET  /api/export                bulk export of records (filters as the index)
    GET  /api/players               the leaderboard (JSON)
    GET  /api/stream/wall           SSE: each live game's newest state
    GET  /api/stream/games/<uuid>   SSE: a game's events; resume with Last-Event-ID
    POST /api/push                  a board's events and finished records (Authorization: Bearer <key>)
    GET  /api/health                this process and its database
"""

from __future__ import annotations

import asyncio
import datetime as dt
import io
import json
import logging
import re
import time
import zipfile
from collections import deque
from pathlib import Path

import psycopg
from psycopg_pool import AsyncConnectionPool
from tornado import httpserver, iostream, web

from . import ratings, schema

log = logging.getLogger("quin.hub")

MAX_PUSH = 4 * 1024 * 1024  # bytes in one push
MAX_EVENTS = 500  # events in one push
MAX_EVENT = 256 * 1024  # bytes in one event (a public state with a long game's history)
STREAM_RETRY = 5  # seconds a client over its open streams is asked to wait
RECENT = 256  # events of a game each process keeps in memory for its streams
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
HERE = Path(__file__).parent
FILTERS = ("table", "mode", "status", "result", "player", "date", "from", "to")  # of the index and the export
EXPORT_MAX = 10000  # games in one export


class Limiter:
    """A token bucket per name (a key, an address): ``rate`` per second, bursts of ``burst``."""

    def __init__(self, rate: float, burst: float):
        self.rate, self.burst = rate, burst
        self._buckets: dict[str, tuple[float, float]] = {}

    def allow(self, name: str) -> bool:
        now = time.monotonic()
        tokens, at = self._buckets.get(name, (self.burst, now))
        tokens = min(self.burst, tokens + (now - at) * self.rate)
        if tokens < 1:
            self._buckets[name] = (tokens, now)
            return False
        self._buckets[name] = (tokens - 1, now)
        if len(self._buckets) > 10000:  # forget the oldest names
            for old in list(self._buckets)[:5000]:
                del self._buckets[old]
        return True

    def wait(self, name: str) -> float:
        """0 if ``name`` may go now (and counts it), else the seconds until it may (for Retry-After)."""
        if self.allow(name):
            return 0.0
        tokens, _ = self._buckets[name]
        return max(0.001, (1 - tokens) / self.rate)


class Channel:
    """One game's events as this process knows them: the newest few, and a wake-up for its streams."""

    def __init__(self, game_id: int, uuid: str, table: str):
        self.game_id, self.uuid, self.table = game_id, uuid, table
        self.cursor = 0  # the highest seq read from the database
        self.recent: deque[tuple[int, str]] = deque(maxlen=RECENT)
        self.changed = asyncio.Event()
        self.lock = asyncio.Lock()
        self.watchers = 0  # this process's open streams of the game

    def frames_after(self, seq: int) -> list[tuple[int, str]] | None:
        """The events after ``seq`` from memory, or None if memory does not reach back that far."""
        if seq >= self.cursor:
            return []
        if not self.recent or self.recent[0][0] > seq + 1:
            return None
        return [(s, d) for s, d in self.recent if s > seq]


class Hub:
    def __init__(self, dsn: str, pool_size: int = 8, poll: float = 2.0, keepalive: float = 15.0,
                 push_rate: float = 50.0, stream_cap: int = 64, stream_rate: float = 10.0):
        self.dsn = dsn
        # each connection checked as it is lent: after PostgreSQL restarts, no request gets a dead one
        self.pool = AsyncConnectionPool(dsn, min_size=1, max_size=pool_size, open=False,
                                        kwargs={"autocommit": True}, check=AsyncConnectionPool.check_connection)
        self.poll = poll
        self.keepalive = keepalive
        self.channels: dict[int, Channel] = {}
        self.wall_version = 0
        self.wall: dict[int, tuple[int, bytes]] = {}  # game id -> (version, frame)
        self.wall_changed = asyncio.Event()
        self.listening = False
        self.push_limit = Limiter(push_rate, push_rate * 4)
        self.address_limit = Limiter(push_rate * 4, push_rate * 16)
        self.stream_limit = Limiter(stream_rate, stream_rate * 4)  # streams opened per address
        self.code_limit = Limiter(1.0, 10.0)  # player code checks per table key
        self.code_address_limit = Limiter(2.0, 20.0)  # and per address
        self.export_limit = Limiter(0.5, 3.0)  # bulk exports per address (each reads up to EXPORT_MAX records)
        self.stream_cap = stream_cap
        self.streams: dict[str, int] = {}  # open streams per address
        self.keys: dict[str, tuple[int, str]] = {}  # key hash -> (table id, name)
        self._wall_seen: dict[int, tuple[int, str]] = {}  # game id -> (seq, status) on the wall
        self._wall_tables: dict[int, tuple[int, int, str]] = {}  # game id on the wall -> its table
        self._tasks: list[asyncio.Task] = []
        self.closing = asyncio.Event()

    # --- life ---------------------------------------------------------------------------------

    async def start(self) -> None:
        await self.pool.open(wait=True, timeout=30)
        async with self.pool.connection() as conn:
            await schema.ensure_async(conn)
        await self._load_wall()
        self._tasks = [asyncio.create_task(self._listen()), asyncio.create_task(self._poller())]

    async def stop(self) -> None:
        self.closing.set()
        self.wall_changed.set()
        for ch in self.channels.values():
            ch.changed.set()
        for t in self._tasks:
            t.cancel()
        await self.pool.close()

    async def _listen(self) -> None:
        while not self.closing.is_set():
            try:
                async with await psycopg.AsyncConnection.connect(self.dsn, autocommit=True) as conn:
                    await conn.execute(f"LISTEN {schema.CHANNEL}")
                    self.listening = True
                    await self.catch_up()  # whatever was pushed while not listening
                    async for note in conn.notifies():
                        game_id, _, _ = note.payload.partition(":")
                        if game_id.isdigit():
                            asyncio.create_task(self.wake(int(game_id)))
            except (psycopg.Error, OSError) as exc:
                log.warning("the hub's database is not reached (%s); retrying", str(exc).splitlines()[0] if str(exc) else exc)
            self.listening = False
            await asyncio.sleep(1)

    async def _poller(self) -> None:
        while not self.closing.is_set():
            await asyncio.sleep(self.poll)
            for game_id, ch in list(self.channels.items()):
                seen = self._wall_seen.get(game_id)
                if ch.watchers == 0 and seen is not None and seen[1] != "live" and game_id not in self.wall:
                    del self.channels[game_id]  # finished, off the wall, unwatched: read again if asked
            try:
                await self.catch_up()
            except (psycopg.Error, OSError):
                pass

    async def catch_up(self) -> None:
        """Wake every game whose events moved on without this process hearing of it."""
        async with self.pool.connection() as conn:
            rows = await (await conn.execute(
                "SELECT id, last_seq, status FROM hub_games WHERE status = 'live' OR id = ANY(%s)",
                (list(self.channels),))).fetchall()
        for game_id, last, status in rows:
            ch = self.channels.get(game_id)
            if ch is None or last > ch.cursor or self._wall_seen.get(game_id, (0, ""))[1] != status:
                await self.wake(game_id)

    # --- reading the events ---------------------------------------------------------------------

    async def channel(self, game_id: int) -> Channel | None:
        ch = self.channels.get(game_id)
        if ch is not None:
            return ch
        async with self.pool.connection() as conn:
            row = await (await conn.execute(
                "SELECT g.uuid, t.name, g.last_seq FROM hub_games g JOIN hub_tables t ON t.id = g.table_id "
                "WHERE g.id = %s", (game_id,))).fetchone()
        if row is None:
            return None
        ch = self.channels.setdefault(game_id, Channel(game_id, str(row[0]), row[1]))
        if ch.cursor == 0:
            ch.cursor = max(0, row[2] - RECENT)
        return ch

    async def wake(self, game_id: int) -> None:
        """Read a game's new events into memory; wake its streams and the wall."""
        ch = await self.channel(game_id)
        if ch is None:
            return
        async with ch.lock:
            async with self.pool.connection() as conn:
                while True:
                    rows = await (await conn.execute(
                        "SELECT seq, data FROM hub_events WHERE game_id = %s AND seq > %s ORDER BY seq LIMIT 500",
                        (game_id, ch.cursor))).fetchall()
                    if not rows:
                        break
                    ch.recent.extend(rows)
                    ch.cursor = rows[-1][0]
                status = await (await conn.execute("SELECT status FROM hub_games WHERE id = %s",
                                                   (game_id,))).fetchone()
        status = status[0] if status else "live"
        if ch.recent and self._wall_seen.get(game_id) != (ch.cursor, status):
            self._wall_put(ch, ch.recent[-1][1], status)
        ch.changed.set()
        ch.changed = asyncio.Event()

    def _wall_put(self, ch: Channel, data: str, status: str) -> None:
        for game_id, (_, _, table) in list(self._wall_tables.items()):
            if table == ch.table and game_id != ch.game_id:  # the wall shows each table's newest game
                if game_id > ch.game_id:  # an older game's late wake (wakes run concurrently) replaces nothing
                    self._wall_seen[ch.game_id] = (ch.cursor, status)
                    return
                self.wall.pop(game_id, None)
                del self._wall_tables[game_id]
        self._wall_tables[ch.game_id] = (0, 0, ch.table)
        self.wall_version += 1
        body = json.dumps({"game": ch.uuid, "table": ch.table, "seq": ch.cursor, "status": status,
                           "data": json.loads(data)}, separators=(",", ":"))
        self.wall[ch.game_id] = (self.wall_version, f"event: board\ndata: {body}\n\n".encode())
        self._wall_seen[ch.game_id] = (ch.cursor, status)
        self.wall_changed.set()
        self.wall_changed = asyncio.Event()

    async def _load_wall(self) -> None:
        """Every table's newest game (live or just finished) on the wall."""
        async with self.pool.connection() as conn:
            rows = await (await conn.execute(
                "SELECT DISTINCT ON (g.table_id) g.id FROM hub_games g ORDER BY g.table_id, g.id DESC")).fetchall()
        for (game_id,) in rows:
            await self.wake(game_id)

    async def events(self, game_id: int, after: int, limit: int = 500) -> list[tuple[int, str]]:
        async with self.pool.connection() as conn:
            return await (await conn.execute(
                "SELECT seq, data FROM hub_events WHERE game_id = %s AND seq > %s ORDER BY seq LIMIT %s",
                (game_id, after, limit))).fetchall()

    # --- pushes -------------------------------------------------------------------------------

    async def table_of(self, key: str) -> tuple[int, str] | None:
        digest = schema.hash_key(key)
        if digest in self.keys:
            return self.keys[digest]
        async with self.pool.connection() as conn:
            row = await (await conn.execute("SELECT id, name FROM hub_tables WHERE key_hash = %s",
                                            (digest,))).fetchone()
        if row is not None:
            self.keys[digest] = (row[0], row[1])
        return self.keys.get(digest)

    async def push(self, table_id: int, body: dict) -> dict:
        """Store a board's push in one transaction; ValueError/PermissionError in one line."""
        games = body.get("games")
        if not isinstance(games, list) or not games:
            raise ValueError("games: a list of games is expected")
        if sum(len(g.get("events") or []) for g in games if isinstance(g, dict)) > MAX_EVENTS:
            raise ValueError(f"events: at most {MAX_EVENTS} in one push")
        checked = [_check_game(g, i) for i, g in enumerate(games)]
        board = body.get("board")
        out: dict[str, int] = {}
        async with self.pool.connection() as conn:
            async with conn.transaction():
                if isinstance(board, str) and UUID.match(board):
                    await conn.execute("UPDATE hub_tables SET board = %s WHERE id = %s AND board IS NULL",
                                       (board, table_id))
                for uuid, events, final in checked:
                    # select first: an INSERT that conflicts would still use up a number of the
                    # sequence, and the database would then depend on how the pushes were batched
                    find = "SELECT id, table_id, status, last_seq FROM hub_games WHERE uuid = %s"
                    row = await (await conn.execute(find, (uuid,))).fetchone()
                    if row is None:
                        await conn.execute("INSERT INTO hub_games(table_id, uuid) VALUES (%s, %s) "
                                           "ON CONFLICT (uuid) DO NOTHING", (table_id, uuid))
                        row = await (await conn.execute(find, (uuid,))).fetchone()
                    game_id, owner, status, last = row
                    if owner != table_id:
                        raise PermissionError(f"game {uuid} belongs to another table")
                    if events:
                        async with conn.cursor() as cur:
                            await cur.executemany(
                                "INSERT INTO hub_events(game_id, seq, data) VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
                                [(game_id, s, d) for s, d in events])
                        top = max(s for s, _ in events)
                        if top > last:
                            await conn.execute("UPDATE hub_games SET last_seq = %s, mode = COALESCE(mode, %s) "
                                               "WHERE id = %s", (top, _mode(events[-1][1]), game_id))
                            last = top
                    if final is not None and status == "live":
                        await self._finish(conn, game_id, final)
                    out[uuid] = last
                    await conn.execute("SELECT pg_notify(%s, %s)", (schema.CHANNEL, f"{game_id}:{last}"))
        return out

    async def _finish(self, conn, game_id: int, final: dict) -> None:
        players = final.get("players") or {}
        ids = {}
        for colour in ("white", "black"):
            ids[colour] = await ratings.player_id(conn, players.get(colour))
        names = {c: (players.get(c) or {}).get("name") if isinstance(players.get(c), dict) else None
                 for c in ("white", "black")}
        await conn.execute(
            "UPDATE hub_games SET status = %s, record = %s, result = %s, created = %s, finished = %s, "
            "mode = COALESCE(%s, mode), white = %s, black = %s, white_name = %s, black_name = %s WHERE id = %s",
            (final["status"], _json(final.get("record")), _json(final.get("result")), final.get("created"),
             final.get("finished"), final.get("mode"), ids["white"], ids["black"], names["white"], names["black"],
             game_id))
        if final["status"] == "over" and ids["white"] and ids["black"] and ids["white"] != ids["black"]:
            await ratings.rate(conn, ids["white"], ids["black"], (final.get("result") or {}).get("winner"))

    # --- reading for spectators ------------------------------------------------------------------

    async def game(self, uuid: str):
        if not UUID.match(uuid):
            return None
        async with self.pool.connection() as conn:
            return await (await conn.execute(
                "SELECT g.id, g.uuid, t.name, g.status, g.last_seq, g.mode, g.created, g.finished, g.result, "
                "g.record, COALESCE(pw.name, g.white_name), COALESCE(pb.name, g.black_name), "
                "g.white IS NOT NULL, g.black IS NOT NULL FROM hub_games g JOIN hub_tables t ON t.id = g.table_id "
                "LEFT JOIN hub_players pw ON pw.id = g.white LEFT JOIN hub_players pb ON pb.id = g.black "
                "WHERE g.uuid = %s", (uuid,))).fetchone()

    async def index(self, args: dict, limit: int = 200) -> list[dict]:
        where, params = ["TRUE"], []
        if args.get("table"):
            where.append("t.name = %s")
            params.append(args["table"])
        if args.get("mode"):
            where.append("g.mode = %s")
            params.append(args["mode"])
        if args.get("status"):
            where.append("g.status = %s")
            params.append(args["status"])
        if args.get("result"):
            where.append("g.result->>'winner' = %s")
            params.append(args["result"])
        if args.get("player"):
            where.append("(COALESCE(pw.name, g.white_name) ILIKE %s OR COALESCE(pb.name, g.black_name) ILIKE %s)")
            params += [f"%{_like(args['player'])}%"] * 2
        if args.get("date"):
            day = _day(args["date"], "date")
            where.append("g.finished >= %s AND g.finished < %s")
            params += [day, day + 86400]
        if args.get("from"):  # a tournament's days: from and to, both included (UTC)
            where.append("g.finished >= %s")
            params.append(_day(args["from"], "from"))
        if args.get("to"):
            where.append("g.finished < %s")
            params.append(_day(args["to"], "to") + 86400)
        async with self.pool.connection() as conn:
            rows = await (await conn.execute(
                "SELECT g.uuid, t.name, g.status, g.last_seq, g.mode, g.created, g.finished, g.result, "
                "COALESCE(pw.name, g.white_name), COALESCE(pb.name, g.black_name), g.white IS NOT NULL, "
                "g.black IS NOT NULL FROM hub_games g JOIN hub_tables t ON t.id = g.table_id "
                "LEFT JOIN hub_players pw ON pw.id = g.white LEFT JOIN hub_players pb ON pb.id = g.black "
                f"WHERE {' AND '.join(where)} ORDER BY g.id DESC LIMIT {int(limit)}", params)).fetchall()
        return [{"uuid": str(r[0]), "table": r[1], "status": r[2], "events": r[3], "mode": r[4], "created": r[5],
                 "finished": r[6], "result": r[7], "players": {"white": r[8], "black": r[9]},
                 "rated": {"white": r[10], "black": r[11]}, "url": f"/api/games/{r[0]}"} for r in rows]


def _day(text: str, field: str) -> float:
    """The start of a day (UTC) as a time; ValueError naming the field."""
    try:
        return dt.datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=dt.timezone.utc).timestamp()
    except ValueError:
        raise ValueError(f"{field}: YYYY-MM-DD expected") from None


def _like(text: str) -> str:
    """Text searched for as it is: LIKE's own wildcards escaped."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _json(value):
    return None if value is None else json.dumps(value)


def _mode(data: str) -> str | None:
    try:
        mode = json.loads(data).get("state", {}).get("mode")
    except (ValueError, AttributeError):
        return None
    return mode if isinstance(mode, str) else None


def _check_game(g: object, i: int):
    """(uuid, [(seq, data text)], final or None) of one pushed game; ValueError naming the field."""
    if not isinstance(g, dict):
        raise ValueError(f"games[{i}]: an object is expected")
    uuid = g.get("uuid")
    if not isinstance(uuid, str) or not UUID.match(uuid):
        raise ValueError(f"games[{i}].uuid: a UUID is expected")
    events = []
    for j, e in enumerate(g.get("events") or []):
        if not isinstance(e, dict) or type(e.get("seq")) is not int or not 0 < e["seq"] < 2**31:
            raise ValueError(f"games[{i}].events[{j}].seq: a positive number is expected")
        if not isinstance(e.get("data"), dict):
            raise ValueError(f"games[{i}].events[{j}].data: an object is expected")
        text = json.dumps(e["data"], separators=(",", ":"))
        if len(text) > MAX_EVENT:
            raise ValueError(f"games[{i}].events[{j}].data: at most {MAX_EVENT} bytes")
        events.append((e["seq"], text))
    final = g.get("final")
    if final is not None:
        if not isinstance(final, dict) or final.get("status") not in ("over", "abandoned"):
            raise ValueError(f"games[{i}].final.status: over or abandoned is expected")
        for field in ("created", "finished"):
            if final.get(field) is not None and not isinstance(final[field], (int, float)):
                raise ValueError(f"games[{i}].final.{field}: a time is expected")
        if final.get("record") is not None and not isinstance(final["record"], dict):
            raise ValueError(f"games[{i}].final.record: an object is expected")
        players = final.get("players")
        if players is not None and not isinstance(players, dict):
            raise ValueError(f"games[{i}].final.players: an object is expected")
        for colour, who in (players or {}).items():
            where = f"games[{i}].final.players.{colour}"
            if colour not in ("white", "black"):
                raise ValueError(f"games[{i}].final.players: white and black are expected, not {colour[:20]!r}")
            if who is not None and not isinstance(who, dict):
                raise ValueError(f"{where}: an object with name and code is expected")
            for field in ("name", "code"):
                value = (who or {}).get(field)
                if value is not None and (not isinstance(value, str) or len(value) > 64):
                    raise ValueError(f"{where}.{field}: text of at most 64 characters is expected")
    return uuid, events, final


# --- HTTP -------------------------------------------------------------------------------------------


class Base(web.RequestHandler):
    @property
    def hub(self) -> Hub:
        return self.application.settings["hub"]

    def set_default_headers(self):
        self.set_header("X-Content-Type-Options", "nosniff")
        self.set_header("Referrer-Policy", "no-referrer")

    def write_error(self, status_code, **kw):
        self.finish({"error": self._reason})

    def fail(self, status: int, message: str) -> None:
        self.set_status(status, reason=message.splitlines()[0][:200].replace("\r", ""))
        self.finish({"error": message})

    def too_many(self, message: str, wait: float) -> None:
        """429 with Retry-After (whole seconds, at least 1) and the same in the body."""
        seconds = max(1, int(wait + 0.999))
        self.set_header("Retry-After", str(seconds))
        self.fail(429, f"{message}; retry after {seconds} s")

    def json(self, value) -> None:
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(value, separators=(",", ":"), default=str))


class Push(Base):
    async def post(self):
        auth = self.request.headers.get("Authorization", "")
        if not auth.startswith("Bearer "):
            return self.fail(401, "a table's key is needed (Authorization: Bearer <key>)")
        wait = self.hub.address_limit.wait(self.request.remote_ip)
        if wait:
            return self.too_many("too many pushes from this address", wait)
        table = await self.hub.table_of(auth[7:].strip())
        if table is None:
            return self.fail(403, "unknown table key")
        wait = self.hub.push_limit.wait(str(table[0]))
        if wait:
            return self.too_many("too many pushes for this table", wait)
        try:
            body = json.loads(self.request.body)
        except ValueError:
            return self.fail(400, "the push is not JSON")
        if not isinstance(body, dict):
            return self.fail(400, "the push is not a JSON object")
        try:
            acked = await self.hub.push(table[0], body)
        except ValueError as exc:
            return self.fail(400, str(exc))
        except PermissionError as exc:
            return self.fail(403, str(exc))
        except psycopg.Error as exc:
            return self.fail(503, f"the hub's database is not reached ({type(exc).__name__})")
        self.json({"ok": True, "table": table[1], "acked": acked})


class Health(Base):
    async def get(self):
        try:
            async with self.hub.pool.connection(timeout=2) as conn:
                await conn.execute("SELECT 1")
            db = True
        except Exception:  # noqa: BLE001 - any failure means the database is not reached
            db = False
        self.json({"ok": db, "database": db, "listening": self.hub.listening,
                   "streams": sum(self.hub.streams.values()), "games_in_memory": len(self.hub.channels),
                   "wall": len(self.hub.wall)})


class Index(Base):
    async def get(self):
        args = {k: self.get_argument(k, "")[:64] for k in FILTERS}
        try:
            self.json({"format": "quin-hub-index/1", "games": await self.hub.index(args)})
        except ValueError as exc:
            self.fail(400, str(exc))


def _game_json(row, events: int | None = None) -> dict:
    return {"uuid": str(row[1]), "table": row[2], "status": row[3], "events": row[4], "mode": row[5],
            "created": row[6], "finished": row[7], "result": row[8],
            "players": {"white": row[10], "black": row[11]}, "rated": {"white": row[12], "black": row[13]},
            "record": row[9]}


class GameJSON(Base):
    async def get(self, uuid, what=None):
        row = await self.hub.game(uuid)
        if row is None:
            return self.fail(404, "no such game")
        if what == "record":
            if row[9] is None:
                return self.fail(404, "the game is not over: its record is published when it ends")
            self.set_header("Content-Disposition", f'attachment; filename="quin-{uuid}.json"')
            return self.json(row[9])
        if what == "events":
            after = self.get_argument("after", "0")
            after = int(after) if after.isdigit() and len(after) < 10 else 0
            rows = await self.hub.events(row[0], after)
            return self.json({"game": str(row[1]), "events": [{"seq": s, "data": json.loads(d)} for s, d in rows]})
        out = _game_json(row)
        last = await self.hub.events(row[0], row[4] - 1, 1) if row[4] else []
        out["state"] = json.loads(last[0][1]) if last else None
        self.json(out)


class Export(Base):
    """The finished games matching the index's filters (a tournament: ``from``/``to``, ``table``,
    ``player``...): ``/api/export`` one JSON file (``quin-hub-export/1``: each game's index entry
    with its record); ``/api/export.zip`` a zip of ``index.json`` (``quin-hub-index/1``) and one
    ``games/<uuid>.json`` per game, each a ``quin-record/1`` file as `quin replay` reads it."""

    async def get(self, zipped=None):
        args = {k: self.get_argument(k, "")[:64] for k in FILTERS if k != "status"}
        args["status"] = "over"
        try:
            for field in ("date", "from", "to"):
                if args[field]:
                    _day(args[field], field)
        except ValueError as exc:
            return self.fail(400, str(exc))
        wait = self.hub.export_limit.wait(self.request.remote_ip)
        if wait:
            return self.too_many("too many exports from this address", wait)
        try:
            games = await self.hub.index(args, limit=EXPORT_MAX)
        except ValueError as exc:
            return self.fail(400, str(exc))
        out = []
        for g in games:
            row = await self.hub.game(g["uuid"])
            out.append(dict(g, record=row[9]))
        if not zipped:
            self.set_header("Content-Disposition", 'attachment; filename="quin-games.json"')
            return self.json({"format": "quin-hub-export/1", "games": out})
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
            index = [dict(g, file=f"games/{g['uuid']}.json") for g in games]
            z.writestr("index.json", json.dumps({"format": "quin-hub-index/1", "games": index}, indent=1, default=str))
            for g in out:
                if g["record"] is not None:
                    z.writestr(f"games/{g['uuid']}.json", json.dumps(g["record"], indent=1))
        self.set_header("Content-Type", "application/zip")
        self.set_header("Content-Disposition", 'attachment; filename="quin-games.zip"')
        self.finish(buffer.getvalue())


class PlayerCode(Base):
    """``GET /api/players/<code>`` for boards only (a table's key): whether the hub knows a player
    code, so a phone hears at setup that its code is mistyped.  200 with the hub's name for it, or
    404.  Limited per key and per address (a few a second): a code cannot be found by guessing."""

    async def get(self, code):
        auth = self.request.headers.get("Authorization", "")
        if not auth.startswith("Bearer "):
            return self.fail(401, "a table's key is needed (Authorization: Bearer <key>)")
        wait = self.hub.code_address_limit.wait(self.request.remote_ip)
        if wait:
            return self.too_many("too many player code checks from this address", wait)
        table = await self.hub.table_of(auth[7:].strip())
        if table is None:
            return self.fail(403, "unknown table key")
        wait = self.hub.code_limit.wait(str(table[0]))
        if wait:
            return self.too_many("too many player code checks for this table", wait)
        async with self.hub.pool.connection() as conn:
            row = await (await conn.execute("SELECT name FROM hub_players WHERE code = %s", (code,))).fetchone()
        if row is None:
            return self.fail(404, f"no player with the code {code}")
        self.json({"code": code, "name": row[0]})


class Players(Base):
    async def get(self):
        async with self.hub.pool.connection() as conn:
            self.json({"players": await ratings.leaderboard(conn)})


class Stream(Base):
    """SSE.  A game's stream: its events (ids = its event numbers; resume by Last-Event-ID).
    The wall: every live game's newest state (no ids: a reconnecting wall gets them all again)."""

    async def get(self, uuid=None):
        address = self.request.remote_ip
        if self.hub.streams.get(address, 0) >= self.hub.stream_cap:
            return self.too_many("too many streams open from this address", STREAM_RETRY)
        wait = self.hub.stream_limit.wait(address)
        if wait:
            return self.too_many("too many streams opened from this address", wait)
        ch = None
        if uuid is not None:
            row = await self.hub.game(uuid)
            if row is None:
                return self.fail(404, "no such game")
            ch = await self.hub.channel(row[0])
            if ch.cursor < row[4]:
                await self.hub.wake(row[0])
        self.hub.streams[address] = self.hub.streams.get(address, 0) + 1
        self.set_header("Content-Type", "text/event-stream")
        self.set_header("Cache-Control", "no-cache")
        self.set_header("X-Accel-Buffering", "no")
        try:
            self.write(b"retry: 1500\n\n")
            if ch is None:
                await self._wall()
            else:
                ch.watchers += 1
                try:
                    await self._game(ch)
                finally:
                    ch.watchers -= 1
        except (iostream.StreamClosedError, asyncio.CancelledError):
            pass
        finally:
            self.hub.streams[address] -= 1

    async def _game(self, ch: Channel) -> None:
        last = self.request.headers.get("Last-Event-ID", "")
        sent = int(last) if last.isdigit() and len(last) < 10 else None
        if sent is None:  # a new spectator: the newest state first
            sent = max(0, ch.cursor - 1)
        while not self.hub.closing.is_set():
            changed = ch.changed
            frames = ch.frames_after(sent)
            if frames is None:
                frames = await self.hub.events(ch.game_id, sent)
            if frames:
                self.write(b"".join(f"id: {s}\nevent: update\ndata: {d}\n\n".encode() for s, d in frames))
                sent = frames[-1][0]
                await self.flush()
                continue
            await self._wait(changed)

    async def _wall(self) -> None:
        seen = 0
        while not self.hub.closing.is_set():
            changed = self.hub.wall_changed
            fresh = sorted((v, f) for v, f in self.hub.wall.values() if v > seen)
            if fresh:
                self.write(b"".join(f for _, f in fresh))
                seen = fresh[-1][0]
                await self.flush()
                continue
            await self._wait(changed)

    async def _wait(self, changed: asyncio.Event) -> None:
        try:
            await asyncio.wait_for(changed.wait(), self.hub.keepalive)
        except asyncio.TimeoutError:
            self.write(b": keep-alive\n\n")
            await self.flush()


class Layout(Base):
    """``/api/layout``: the board's drawing data, the very layout the board's own pages draw from
    (host.web.layout), so the wall draws each board with the status page's code (quin.js)."""

    def get(self):
        from host.web.layout import layout

        self.set_header("Cache-Control", "max-age=3600")
        self.json(layout())


class Page(Base):
    def initialize(self, name: str):
        self.name = name

    def get(self, uuid=None):
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'")
        self.finish((HERE / "pages" / f"{self.name}.html").read_bytes())


def make_app(hub: Hub) -> web.Application:
    g = r"([0-9a-f-]{36})"
    return web.Application([
        (r"/", Page, {"name": "wall"}),
        (r"/archive", Page, {"name": "archive"}),
        (r"/leaderboard", Page, {"name": "leaderboard"}),
        (rf"/games/{g}", Page, {"name": "game"}),
        (r"/api/push", Push),
        (r"/api/health", Health),
        (r"/api/games", Index),
        (rf"/api/games/{g}", GameJSON),
        (rf"/api/games/{g}/(record|events)", GameJSON),
        (r"/api/export(\.zip)?", Export),
        (r"/api/players", Players),
        (r"/api/players/(qp_[0-9a-f]{8})", PlayerCode),
        (r"/api/stream/wall", Stream),
        (rf"/api/stream/games/{g}", Stream),
        (r"/static/(.*)", web.StaticFileHandler, {"path": str(HERE / "pages")}),
        (r"/api/layout", Layout),
        # the board's drawing and its styles, shared with the board's status page (not copied)
        (r"/board/(quin\.js|quin\.css)", web.StaticFileHandler, {"path": str(HERE.parent / "web" / "static")}),
    ], hub=hub, compress_response=False)


async def serve(dsn: str, host: str, port: int, pool_size: int = 8, ready=None, until: asyncio.Event | None = None,
                stream_cap: int = 64, push_rate: float = 50.0, stream_rate: float = 10.0) -> None:
    hub = Hub(dsn, pool_size=pool_size, stream_cap=stream_cap, push_rate=push_rate, stream_rate=stream_rate)
    await hub.start()
    server = httpserver.HTTPServer(make_app(hub), max_body_size=MAX_PUSH, idle_connection_timeout=3600)
    sockets = __import__("tornado.netutil", fromlist=["bind_sockets"]).bind_sockets(port, host)
    server.add_sockets(sockets)
    if ready is not None:
        ready(sockets[0].getsockname()[1])
    try:
        await (until or asyncio.Event()).wait()
    finally:
        server.stop()
        await hub.stop()
