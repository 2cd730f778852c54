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
import copy
import datetime as dt
import io
import json
import logging
import time
import zipfile
from collections import deque
from pathlib import Path

import orjson
import psycopg
from psycopg_pool import AsyncConnectionPool
from tornado import iostream, web

from . import database, finals, frames, guard, ratings, remote, validate, words
from .base import STREAM_RETRY, Base, Limiter, _quiet
from .remote import Remote
from .store import games as stored
from .store import players, schema
from .store.pushes import PushWriter
from .validate import UUID, Events

log = logging.getLogger("quin.hub")

MAX_PUSH = 4 * 1024 * 1024  # bytes in one push (or any request's body: 413 beyond)
PUSH_WAIT = 2.0  # seconds a push waits for a database connection before it is answered 503 (retried)
DB_WAIT = 1.0  # seconds any other request waits for one (then 503: a route answers within a second)
WAKE_BATCH = 0.005  # seconds of notifications read in one query
NOTE_EVENTS = 7000  # characters of events a notification carries (PostgreSQL's limit is 8000 bytes)
RECENT = 256  # events of a game each process keeps in memory for its streams
HERE = Path(__file__).parent
LIVE = 8  # games of one table in play at once (a board plays one; an outbox that was offline, a few)
FILTERS = ("table", "mode", "status", "result", "player", "date", "from", "to")  # of the index and the export
EXPORT_MAX = 10000  # games in one export


class Channel:
    """One game as this process knows it: its newest public frame (rebuilt from the events), its
    newest few events already written as SSE (one serialization shared by every stream), the
    streams of this process that follow it, and the events not yet written to them (written
    together at the next tick: :meth:`flush`)."""

    def __init__(self, game_id: int, uuid: str, table: str):
        self.game_id, self.uuid, self.table = game_id, uuid, table
        self.cursor = 0  # the highest seq applied
        self.state: dict | None = None  # the public frame at ``cursor``
        self.status = "live"
        self.recent: deque[tuple[int, bytes]] = deque(maxlen=RECENT)  # (seq, its SSE event)
        self.subscribers: set = set()  # this process's open streams of the game (Stream handlers)
        self._snapshot: tuple[int, bytes] | None = None
        self.unsent: list[bytes] = []  # events fed since the last flush, as SSE
        self.flushed = 0  # the cursor at the last flush: what every stream that was there then has

    def feed(self, rows, parsed: dict | None = None) -> bytes:
        """Apply events (seq, data text) in order; those at or before ``cursor`` are skipped
        (``parsed``: the data of some already parsed, by seq, given up to the channel).  The SSE
        bytes of what was new (b"" if nothing)."""
        out = []
        for seq, text in rows:
            if seq <= self.cursor:
                continue
            data = parsed.get(seq) if parsed else None
            if data is None:
                data = _stored(text)
            if data is None:  # stored before the hub checked what it stores: never handed on
                if self.uuid:  # (a game's channel, not a replay's reading)
                    log.warning("game %s: event %d is not a frame the hub takes: skipped", self.uuid, seq)
                self.cursor = seq
                continue
            if frames.is_patch(data):
                if self.state is None or seq != self.cursor + 1:
                    bad = True  # a patch of a frame this process does not have
                else:
                    try:
                        frames.apply(self.state, data["patch"], in_place=True, fresh=True)
                        bad = False
                    except ValueError:
                        bad = True
                if bad:  # never pass on a patch that does not fit: the spectators get the frame as it is here
                    log.warning("game %s: event %d does not follow on from event %d", self.uuid, seq, self.cursor)
                    if self.state is None:
                        self.cursor = seq
                        continue
                    text = json.dumps(self.state, separators=(",", ":"))
            else:
                self.state = data
            self.cursor = seq
            event = b"id: %d\nevent: update\ndata: %s\n\n" % (seq, text.encode())
            self.recent.append((seq, event))
            out.append(event)
        return b"".join(out)

    def snapshot(self) -> bytes:
        """The newest frame whole, as the event numbered ``cursor``."""
        if self.state is None:
            return b""
        if self._snapshot is None or self._snapshot[0] != self.cursor:
            self._snapshot = (self.cursor, b"id: %d\nevent: update\ndata: %s\n\n" % (
                self.cursor, validate.compact(self.state).encode()))
        return self._snapshot[1]

    def after(self, seq: int | None) -> bytes:
        """What a stream that has event ``seq`` (None: nothing) needs to be up to date: the events
        after it from memory, or else the newest frame whole."""
        if seq is not None and seq >= self.cursor:
            return b""
        if seq is not None and self.recent and self.recent[0][0] <= seq + 1:
            return b"".join(e for s, e in self.recent if s > seq)
        return self.snapshot()

    def flush(self) -> None:
        """The events fed since the last flush, to every stream in one write each; a stream that
        started since (it was given what it lacked up to its ``seq``) gets only what it lacks."""
        blob = b"".join(self.unsent)
        self.unsent.clear()
        top = self.cursor
        for sub in list(self.subscribers):
            if sub.seq < top:
                sub.send(blob if sub.seq == self.flushed else self.after(sub.seq))
                sub.seq = top
        self.flushed = top


def _stored(text: str) -> dict | None:
    """An event's data as the database holds it, or None if it is not one the hub takes now
    (a push stored before every push was checked: it must not stop a reader)."""
    try:
        data = validate.parse(text, "event")
        validate.event(data, "event", checked=True)
    except (ValueError, TypeError, RecursionError):
        return None
    return data


def _board_event(card: dict) -> bytes:
    """A wall's card whole, as an event."""
    return b"event: board\ndata: %s\n\n" % validate.compact(card).encode()


def wall_card(state: dict | None) -> dict | None:
    """What the wall draws of a frame: all of it but the history, of which the last turn only."""
    if not isinstance(state, dict):
        return state
    st = state.get("state")
    if isinstance(st, dict) and isinstance(st.get("view"), dict) and isinstance(st["view"].get("history"), list):
        view = dict(st["view"], history=st["view"]["history"][-1:])
        return dict(state, state=dict(st, view=view))
    return state


class Hub:
    def __init__(self, dsn: str, pool_size: int = 8, poll: float = 2.0, keepalive: float = 15.0,
                 push_rate: float = 50.0, stream_cap: int = 64, stream_rate: float = 10.0, wall_tick: float = 0.2,
                 presence_renew: float = 5.0, presence_lapse: float = 15.0, remote_rate: float = 20.0,
                 join_rate: float = 1.0, abandon_after: float = 120.0, clock=time.time, note_tick: float = 0.05,
                 stream_tick: float = 0.05):
        self.dsn = dsn
        # a connection idle for a second is checked as it is lent (after PostgreSQL restarts, a request
        # gets a dead one only if it was used in the last second; a push then fails and is retried)
        self._used: dict[int, float] = {}
        self.pool_size = pool_size
        self.pool = self._new_pool()
        self._old_pools: set[asyncio.Task] = set()
        self.writer = PushWriter(dsn)  # the usual pushes' own connection (host/hub/store/pushes.py)
        self.db = database.Health(dsn)  # whether the database is reached (routes answer 503 at once if not)
        self.db.on_back = self._renew_pool
        self.poll = poll
        self.keepalive = keepalive
        self.wall_tick = wall_tick
        self.note_tick = note_tick
        self.stream_tick = stream_tick
        self._unsent: dict[int, Channel] = {}  # games with events not yet written to their streams
        self._unsent_due = asyncio.Event()
        self._notes: dict[int, list] = {}  # game id -> [its last seq, its events' texts or None, their characters]
        self._note_status: dict[int, str] = {}  # (of the games in _notes)
        self._notes_due = asyncio.Event()
        self.channels: dict[int, Channel] = {}
        self._ids: dict[str, int] = {}  # uuid -> game id, of the games in ``channels``
        self._loading: dict[int, asyncio.Future] = {}
        self.wall_version = 0
        self.wall: dict[int, int] = {}  # game id on the wall -> the wall version its card last changed at
        self.wall_subscribers: set = set()
        self._wall_sent = 0  # the wall version the wall's streams have
        # game id -> its card as last sent, and as an event (None: not written until a new wall asks)
        self._wall_cards: dict[int, tuple[dict, bytes | None]] = {}
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
        self._boards: set[int] = set()  # tables whose board identity is known to be stored
        self._wall_seen: dict[int, tuple[int, str]] = {}  # game id -> (seq, status) on the wall
        self._wall_games: dict[str, int] = {}  # table -> its game on the wall
        self._pending: dict[int, tuple[int, str]] = {}  # games to read again (NOTIFY): their seq, status
        self._pending_set = asyncio.Event()
        self._tasks: list[asyncio.Task] = []
        self.closing = asyncio.Event()
        self.remote = Remote(self, renew=presence_renew, lapse=presence_lapse, rate=remote_rate, join_rate=join_rate,
                             abandon_after=abandon_after, clock=clock)

    # --- life ---------------------------------------------------------------------------------

    async def _check(self, conn) -> None:
        if time.monotonic() - self._used.get(id(conn), 0.0) > 1.0:
            await schema.ping(conn)

    def _new_pool(self) -> AsyncConnectionPool:
        return AsyncConnectionPool(self.dsn, min_size=min(4, self.pool_size), max_size=self.pool_size, open=False,
                                   timeout=DB_WAIT, kwargs={"autocommit": True, "connect_timeout": 2},
                                   check=self._check, reset=self._reset)

    async def _renew_pool(self) -> None:
        """A fresh pool once the database is back (the old one's connections are dead, and its own
        reconnection waits have grown to many seconds); the old one is closed as its loans end."""
        old, self.pool = self.pool, self._new_pool()
        await self.pool.open(wait=False)
        task = asyncio.create_task(old.close(timeout=5))
        self._old_pools.add(task)
        task.add_done_callback(self._old_pools.discard)

    async def _reset(self, conn) -> None:
        if len(self._used) > 1000:
            self._used.clear()
        self._used[id(conn)] = time.monotonic()

    async def start(self) -> None:
        database.quiet_pool_log()
        await self.pool.open(wait=True, timeout=30)
        async with self.pool.connection() as conn:
            await schema.ensure_async(conn)
        await self._load_wall()
        self._tasks = [asyncio.create_task(t) for t in (self._listen(), self._poller(), self._waker(),
                                                         self._wall_sender(), self._keepalive(), self._notes_sender(),
                                                         self._stream_sender(),
                                                         *self.remote.tasks())]

    async def stop(self) -> None:
        self.closing.set()
        for sub in [*self.wall_subscribers, *(s for ch in self.channels.values() for s in ch.subscribers),
                    *(s for subs in self.remote.subs.values() for s in subs)]:
            sub.end()
        await self.remote.close()
        await self.writer.close()
        for t in self._tasks:
            t.cancel()
        await self.pool.close()

    async def _listen(self) -> None:
        while not self.closing.is_set():
            try:
                async with await psycopg.AsyncConnection.connect(self.dsn, autocommit=True, connect_timeout=2) as conn:
                    await schema.listen(conn)
                    self.listening = True
                    await self.db.back()
                    try:
                        await self.catch_up()  # whatever was pushed while not listening
                    except (psycopg.Error, OSError) as exc:  # (the poller catches up too)
                        self.db.failed(exc)
                    for game_id in list(self.remote.subs):
                        self.remote.notified(f"{game_id}:")
                    async for note in conn.notifies():
                        if note.channel == schema.REMOTE_CHANNEL:
                            self.remote.notified(note.payload)
                            continue
                        head, _, data = note.payload.partition("\n")
                        game_id, _, rest = head.partition(":")
                        seq, _, status = rest.partition(":")
                        if not game_id.isdigit():
                            continue
                        seq = int(seq) if seq.isdigit() else 1 << 31
                        ch = self.channels.get(int(game_id))
                        if ch is not None and ch.cursor >= seq and ch.status == status:
                            continue  # (this process's own push, handed on already)
                        if data and ch is not None and int(game_id) not in self._pending:
                            texts = data.split("\n")  # the events themselves came with it, up to seq
                            if seq - len(texts) == ch.cursor:
                                self.deliver(ch, list(zip(range(ch.cursor + 1, seq + 1), texts)), status)
                                continue
                        if seq > self._pending.get(int(game_id), (-1, ""))[0]:
                            self._pending[int(game_id)] = (seq, status)
                        self._pending_set.set()
            except (psycopg.Error, OSError) as exc:  # said once (and once when it is back)
                self.db.lost(database.first_line(exc))
            self.listening = False
            await asyncio.sleep(database.RETRY)

    async def _waker(self) -> None:
        """Reads the woken games' new events, all of those woken meanwhile in one query."""
        while not self.closing.is_set():
            await self._pending_set.wait()
            await asyncio.sleep(WAKE_BATCH)  # the notifications of the next few ms read together
            self._pending_set.clear()
            pending, self._pending = self._pending, {}
            games = set()
            for game_id, (seq, status) in pending.items():
                ch = self.channels.get(game_id)
                if ch is None or ch.cursor < seq or ch.status != status:  # else: the push came here
                    games.add(game_id)
            if not games:
                continue
            try:
                await self.wake(games)
            except (psycopg.Error, OSError):
                for game_id in games:  # read again once the database is back (catch_up also finds them)
                    self._pending.setdefault(game_id, (1 << 31, ""))
                await asyncio.sleep(0.5)
                self._pending_set.set()

    async def _poller(self) -> None:
        while not self.closing.is_set():
            await asyncio.sleep(self.poll)
            for game_id, ch in list(self.channels.items()):
                if not ch.subscribers and ch.status != "live" and game_id not in self.wall:
                    del self.channels[game_id]  # finished, off the wall, unwatched: read again if asked
                    self._ids.pop(ch.uuid, None)
            try:
                await self.catch_up()
            except (psycopg.Error, OSError):
                pass

    async def _wall_sender(self) -> None:
        """The wall's streams get the boards that changed, together, at most every ``wall_tick``."""
        while not self.closing.is_set():
            await asyncio.sleep(self.wall_tick)
            if self.wall_version == self._wall_sent:
                continue
            blob = self._wall_tick()
            for sub in list(self.wall_subscribers):
                sub.send(blob)

    async def _stream_sender(self) -> None:
        """The games' streams get their new events at once, and then at most every
        ``stream_tick``: all those that came meanwhile in one write to each stream (a process
        writes to thousands, and a write costs about the same whatever it carries)."""
        while not self.closing.is_set():
            await self._unsent_due.wait()
            self._unsent_due.clear()
            unsent, self._unsent = self._unsent, {}
            for ch in unsent.values():
                ch.flush()
            await asyncio.sleep(self.stream_tick)

    def _wall_tick(self) -> bytes:
        """The cards changed since the last tick: a card new to the wall whole (``board``), else
        a patch of the card as last sent (``patch``: its table and the operations)."""
        out = []
        for game_id in list(self._wall_cards):
            if game_id not in self.wall:  # its table's newer game took its place
                del self._wall_cards[game_id]
        for version, game_id in sorted((v, g) for g, v in self.wall.items() if v > self._wall_sent):
            ch = self.channels.get(game_id)
            if ch is None or ch.state is None:
                continue
            # drawn once a tick, however many events the game had since the last (its frame now)
            try:  # a copy (the channel's frame changes in place), through orjson: a few times faster
                card = orjson.loads(orjson.dumps({"game": ch.uuid, "table": ch.table, "seq": ch.cursor,
                                                  "status": ch.status, "data": wall_card(ch.state)}))
                before = self._wall_cards.get(game_id)
                if before is not None:
                    out.append(b"event: patch\ndata: %s\n\n" % validate.compact(
                        {"table": card["table"], "patch": frames.diff(before[0], card)}).encode())
                    self._wall_cards[game_id] = (card, None)  # (the card whole is written when a wall asks)
                else:
                    self._wall_cards[game_id] = (card, _board_event(card))
                    out.append(self._wall_cards[game_id][1])
            except (ValueError, TypeError, RecursionError) as exc:  # one table's card never stops the wall
                log.warning("game %s is not drawn on the wall: %s", ch.uuid, database.first_line(exc))
                continue
        self._wall_sent = self.wall_version
        return b"".join(out)

    def wall_now(self) -> bytes:
        """Every card whole, as the wall's streams last got them (the next tick's patches follow)."""
        out = []
        for game_id, (card, event) in self._wall_cards.items():
            if event is None:
                event = _board_event(card)
                self._wall_cards[game_id] = (card, event)
            out.append(event)
        return b"".join(out)

    async def _keepalive(self) -> None:
        while not self.closing.is_set():
            await asyncio.sleep(self.keepalive)
            for sub in [*self.wall_subscribers, *(s for ch in self.channels.values() for s in ch.subscribers)]:
                sub.send(b": keep-alive\n\n")

    async def catch_up(self) -> None:
        """Wake every game whose events moved on without this process hearing of it."""
        async with self.pool.connection() as conn:
            rows = await stored.live_or_held(conn, list(self.channels))
        stale = set()
        for game_id, last, status in rows:
            ch = self.channels.get(game_id)
            if ch is None or last > ch.cursor or ch.status != status or self._wall_seen.get(game_id, (0, ""))[1] != status:
                stale.add(game_id)
        if stale:
            await self.wake(stale)

    # --- reading the events ---------------------------------------------------------------------

    async def channel(self, game_id: int) -> Channel | None:
        """The game in memory (read from its newest whole frame on if it was not)."""
        ch = self.channels.get(game_id)
        if ch is not None:
            return ch
        loading = self._loading.get(game_id)
        if loading is not None:
            return await asyncio.shield(loading)
        loading = self._loading[game_id] = asyncio.get_running_loop().create_future()
        try:
            async with self.pool.connection() as conn:
                # from the newest whole frame; every event if a bad frame is stored there (issue 30)
                row, rows = await stored.game_from_newest_frame(conn, game_id, lambda text: _stored(text) is not None)
            ch = None
            if row is not None:
                ch = Channel(game_id, str(row[0]), row[1])
                ch.status = row[2]
                ch.feed(rows)
                ch.flushed = ch.cursor  # (streams start from it)
                self.channels[game_id] = ch
                self._ids[ch.uuid] = game_id
                self._put_wall(ch)
            loading.set_result(ch)
            return ch
        except BaseException as exc:
            loading.set_exception(exc)
            loading.exception()  # retrieved: whoever waits on it gets it
            raise
        finally:
            del self._loading[game_id]

    async def wake(self, game_ids) -> None:
        """Read the games' new events (one query for all), hand them to their streams and the wall."""
        game_ids = set(game_ids)
        known = {g: self.channels[g] for g in game_ids if g in self.channels}
        for g in game_ids - set(known):
            await self.channel(g)  # read from its newest whole frame: up to date
        if not known:
            return
        async with self.pool.connection() as conn:
            rows, statuses = await stored.events_after(conn, {g: ch.cursor for g, ch in known.items()})
        new: dict[int, list] = {}
        for g, s, d in rows:
            new.setdefault(g, []).append((s, d))
        for g, ch in known.items():
            self.deliver(ch, new.get(g, ()), statuses.get(g, ch.status))

    def deliver(self, ch: Channel, rows, status: str, parsed: dict | None = None) -> None:
        blob = ch.feed(rows, parsed)
        changed = status != ch.status
        ch.status = status
        if blob:
            ch.unsent.append(blob)
            self._unsent[ch.game_id] = ch
            self._unsent_due.set()
        if blob or changed or ch.game_id not in self._wall_seen:
            self._put_wall(ch)

    def _put_wall(self, ch: Channel) -> None:
        """Mark the game's card changed (drawn at the next tick, from the game's frame then)."""
        if ch.state is None or self._wall_seen.get(ch.game_id) == (ch.cursor, ch.status):
            return
        other = self._wall_games.get(ch.table)
        if other is not None and other != ch.game_id:  # the wall shows each table's newest game
            if other > ch.game_id:  # an older game's late wake replaces nothing
                self._wall_seen[ch.game_id] = (ch.cursor, ch.status)
                return
            self.wall.pop(other, None)
        self._wall_games[ch.table] = ch.game_id
        self.wall_version += 1
        self.wall[ch.game_id] = self.wall_version
        self._wall_seen[ch.game_id] = (ch.cursor, ch.status)

    async def _load_wall(self) -> None:
        """Every table's newest game (live or just finished) on the wall."""
        async with self.pool.connection() as conn:
            newest = await stored.newest_of_each_table(conn)
        for game_id in newest:
            try:
                await self.channel(game_id)
            except (ValueError, TypeError, KeyError, RecursionError) as exc:  # one game never stops a start
                log.warning("game %d is not on the wall: %s", game_id, database.first_line(exc))

    async def frames(self, game_id: int, after: int, limit: int = 500) -> list[tuple[int, str]]:
        """The game's public frames after ``after`` (whole, as the board's status page showed them),
        rebuilt from the stored events from the newest whole frame at or before ``after + 1``."""
        async with self.pool.connection() as conn:
            rows = await stored.events_for_frames(conn, game_id, after, after + 1 + limit + frames.KEYFRAME)
        ch = Channel(game_id, "", "")
        out = []
        for seq, text in rows:
            if ch.feed([(seq, text)]) and seq > after:
                out.append((seq, json.dumps(ch.state, separators=(",", ":"))))
                if len(out) >= limit:
                    break
        return out

    async def newest(self, game_id: int, last: int) -> dict | None:
        ch = self.channels.get(game_id)
        if ch is not None and ch.cursor == last:
            return ch.state
        rows = await self.frames(game_id, last - 1, 1) if last else []
        return json.loads(rows[0][1]) if rows else None

    # --- pushes -------------------------------------------------------------------------------

    async def table_of(self, key: str) -> tuple[int, str] | None:
        digest = schema.hash_key(key)
        if digest in self.keys:
            return self.keys[digest]
        async with self.pool.connection() as conn:
            row = await stored.table_for_key(conn, digest)
        if row is not None:
            self.keys[digest] = row
        return self.keys.get(digest)

    async def push(self, table_id: int, raw: bytes) -> dict:
        """Store a board's push (its body, as sent) in one transaction, in a few round trips
        whatever its size, once all of it is checked (host/hub/validate.py, and each finished game
        replayed: host/hub/finals.py); validate.Invalid or PermissionError in one line.  The answer:
        ``{"acked": {uuid: the hub's last event of the game}}``, and ``"realign": {uuid: last}`` for
        a game of which the hub holds other events than the board under the numbers it pushed
        again (the board numbers on)."""
        board, checked = validate.push(raw)
        usual = (all(final is None and events for _, events, final in checked)
                 and (table_id in self._boards or not isinstance(board, str)))
        if usual:  # checked against the frames in memory: one statement in all (if they are the database's)
            at = self._checked_here(checked)
            if at is not None:
                answer = await self._push_fast(table_id, checked, at)
                if answer is not None:
                    return answer
        rated = await self._check_games(table_id, checked)
        acked: dict[str, int] = {}
        realign: dict[str, int] = {}
        fed = []
        async with self.pool.connection(timeout=PUSH_WAIT) as conn:
            async with conn.transaction():
                if isinstance(board, str) and UUID.match(board) and table_id not in self._boards:
                    await stored.learn_board(conn, table_id, board)
                    self._boards.add(table_id)
                # select first: an INSERT that conflicts would still use up a number of the
                # sequence, and the database would then depend on how the pushes were batched
                uuids = list(dict.fromkeys(u for u, _, _ in checked))
                found = await stored.find_games(conn, uuids)
                for uuid in uuids:
                    if uuid not in found:
                        await stored.add_game(conn, table_id, uuid)
                if len(found) < len(uuids):
                    found = await stored.find_games(conn, uuids)
                inserts: list[tuple[int, int, str]] = []
                tops: dict[int, tuple[int, str | None]] = {}
                for uuid, events, final in checked:
                    game_id, owner, status, last = found[uuid]
                    if owner != table_id:
                        raise PermissionError(f"game {uuid} belongs to another table")
                    if events and min(s for s, _ in events) <= last:  # sent again: is it what the hub holds?
                        held = await stored.held_events(conn, game_id, [s for s, _ in events if s <= last])
                        if any(held.get(s, d) != d for s, d in events):
                            realign[uuid] = last
                            events = Events()
                    if events:
                        inserts += [(game_id, s, d) for s, d in events]
                        top = max(s for s, _ in events)
                        if top > last:
                            tops[game_id] = (top, events.mode)
                            found[uuid][3] = top
                            fed.append((game_id, events))
                if inserts:
                    await stored.add_events(conn, inserts)
                if tops:
                    await stored.move_on(conn, tops)
                notes = []
                unrated = {}
                for uuid, events, final in checked:
                    game_id, _, status, last = found[uuid]
                    if final is not None and status == "live":
                        why = await self._finish(conn, game_id, final, rated.get(uuid))
                        if why:
                            unrated[uuid] = why
                        status = found[uuid][2] = final["status"]
                    acked[uuid] = last
                    notes.append(f"{game_id}:{last}:{status}")
                await stored.notify_games(conn, list(dict.fromkeys(notes)))
        # this process's own spectators need not wait for the notification
        for game_id, events in fed:
            ch = self.channels.get(game_id)
            if ch is not None and sorted(events)[0][0] <= ch.cursor + 1:
                status = next(v[2] for v in found.values() if v[0] == game_id)
                self.deliver(ch, sorted(events), status, events.parsed)
        for uuid, events, final in checked:
            ch = self.channels.get(found[uuid][0])
            if ch is not None and final is not None and ch.status != found[uuid][2] and ch.cursor >= found[uuid][3]:
                self.deliver(ch, (), found[uuid][2])
        return {"acked": acked, **({"realign": realign} if realign else {}), **({"unrated": unrated} if unrated else {})}

    async def _base(self, game_id: int, last: int):
        """The game's public frame numbered ``last`` as the hub holds it (None: none)."""
        if not last:
            return None
        ch = self.channels.get(game_id)
        if ch is not None and ch.cursor == last:
            return copy.deepcopy(ch.state)
        rows = await self.frames(game_id, last - 1, 1)
        return json.loads(rows[0][1]) if rows and rows[0][0] == last else None

    async def _check_games(self, table_id: int, checked) -> dict[str, bool]:
        """Every game of a push checked against what the hub holds, before anything is stored
        (validate.Invalid naming it otherwise): each new event's patch applied to the frame before
        it (400 if it does not fit); no new event for a game that is over, no final other than the
        one kept (409); at most ``LIVE`` games of the table in play (429); each final of a game in
        play replayed and compared with what its frames showed (host/hub/finals.py).  Whether each
        final may rate its players: only when the table pushed the game's frames and the last of
        them shows the turns of the record (finals.agrees)."""
        uuids = [u for u, _, _ in checked]
        async with self.pool.connection(timeout=PUSH_WAIT) as conn:
            rows, live = await stored.games_to_check(conn, table_id, uuids)
        known = {r[0]: r[1:] for r in rows}
        starting = sum(1 for u, _, final in checked if u not in known and final is None)
        ending = sum(1 for u, _, final in checked if final is not None and known.get(u, (0, 0, ""))[2] == "live")
        if starting and live + starting - ending > LIVE:
            raise validate.Invalid(f"games: table {self._table_name(table_id)} has {live} games in play and may have "
                                   f"at most {LIVE} at once", status=429)
        rated: dict[str, bool] = {}
        for i, (uuid, events, final) in enumerate(checked):
            game_id, owner, status, mode, last, record, result, white, black = known.get(
                uuid, (None, table_id, "live", None, 0, None, None, None, None))
            if owner != table_id:
                continue  # another table's: refused when stored
            new = sorted((s, d) for s, d in events if s > last)
            if status != "live":
                if new:
                    raise validate.Invalid(f"games[{i}].events: game {uuid} is over: no event is taken after its end",
                                           status=409, game=uuid)
                if final is not None and _kept(final) != _kept({
                        "status": status, "record": record, "result": result, "mode": final.get("mode") and mode,
                        "players": {"white": {"name": white}, "black": {"name": black}}}):
                    raise validate.Invalid(f"games[{i}].final: game {uuid} is over and kept with another final; "
                                           "a game's final is kept once", status=409, game=uuid, final=True)
                continue
            frame = None
            if new and frames.is_patch(events.parsed[new[0][0]]) or (final is not None and not new):
                frame = await self._base(game_id, last) if game_id is not None else None
            at = last
            for s, _ in new:
                data = events.parsed[s]
                j = next(n for n, (q, _) in enumerate(events) if q == s)
                if frames.is_patch(data):
                    try:
                        if frame is None or s != at + 1:
                            raise ValueError(f"it does not follow on from a frame (event {s - 1} is not held)")
                        frame = frames.apply(frame, data["patch"])
                        if not isinstance(frame, dict):
                            raise ValueError("it would make the frame something other than an object")
                    except ValueError as exc:
                        raise validate.Invalid(f"games[{i}].events[{j}].data.patch: {exc}: nothing of the push is kept",
                                               game=uuid) from None
                else:
                    frame = data
                at = s
            if final is None:
                continue
            names = None
            state = frame.get("state") if isinstance(frame, dict) else None
            if isinstance(state, dict) and isinstance(state.get("players"), dict):
                names = state["players"]
            history = await asyncio.get_running_loop().run_in_executor(
                None, finals.check, final, f"games[{i}].final", uuid, mode or events.mode, names)
            rated[uuid] = finals.agrees(history, frame)
        return rated

    def _table_name(self, table_id: int) -> str:
        return next((name for t, name in self.keys.values() if t == table_id), str(table_id))

    def _checked_here(self, checked) -> dict[str, int] | None:
        """What :meth:`_check_games` finds of a push of new events of live games, found without the
        database: each game's new events checked against its frame in memory ({uuid: the seq of
        that frame}: the push is stored only if that is still the game's last event in the
        database, so the check is the one _check_games would have made).  None if any game is not
        in memory, not live here, or any event is not new or does not fit (the push then goes
        _check_games's way, which answers what is wrong)."""
        at: dict[str, int] = {}
        changes: list = []
        try:
            for uuid, events, _ in checked:
                ch = self.channels.get(self._ids.get(uuid, -1))
                if ch is None or ch.status != "live" or ch.state is None:
                    return None
                new = sorted(events)
                if new[0][0] <= ch.cursor:
                    return None
                frame, last, placed = ch.state, ch.cursor, set()
                for seq, _ in new:  # each patch tried on the frame itself, undone below: no copy
                    data = events.parsed[seq]
                    if not frames.is_patch(data):
                        frame = data
                    elif seq != last + 1 or not frames.trial(frame, data["patch"], changes, placed):
                        return None
                    last = seq
                at[uuid] = ch.cursor
        finally:
            frames.undo(changes)
        return at

    async def _push_fast(self, table_id: int, checked, at: dict[str, int]) -> dict | None:
        """The usual push (new events of this table's live games, checked on their frames in memory:
        ``at``, each game's last event they were checked against, which it must still be) in one
        statement, one round trip; None, having changed nothing, if the push is not that.  The other
        processes hear of it with the tick's other pushes (:meth:`_notes_sender`)."""
        if len(checked) == 1:  # (a board plays one game at a time) on the writer's connection, in groups
            uuid, events, _ = checked[0]
            if not await self.writer.store(table_id, uuid, at[uuid], events.mode, list(events)):
                return None
        else:
            games = [(uuid, at[uuid], events.mode, list(events)) for uuid, events, _ in checked]
            async with self.pool.connection(timeout=PUSH_WAIT) as conn:
                if not await stored.record_push_fast(conn, table_id, games):
                    return None
        acked = {}
        for uuid, events, _ in checked:  # each game of the push had events, all stored
            new = sorted(events)
            acked[uuid] = new[-1][0]
            ch = self.channels.get(self._ids.get(uuid, -1))  # this process's own spectators need not wait
            if ch is not None:
                self._note(ch.game_id, new, "live")
                if new[0][0] <= ch.cursor + 1:
                    self.deliver(ch, new, "live", events.parsed)
        return {"acked": acked}

    def _note(self, game_id: int, events: list, status: str) -> None:
        """Tell the other processes, at the next tick, that the game moved on by these (seq, data
        text), in order: the note carries them while they are few, small and follow on from one
        another (they then need not read them back), else only the game's last seq and status."""
        note = self._notes.get(game_id)
        if note is None:  # [its last seq, its events' texts (None: left out), their characters]
            note = self._notes[game_id] = [events[0][0] - 1, [], 0]
        for seq, text in events:
            if note[1] is not None and (seq != note[0] + 1 or note[2] + len(text) >= NOTE_EVENTS):
                note[1] = None
            if note[1] is not None:
                note[1].append(text)
                note[2] += len(text)
            note[0] = max(note[0], seq)
        self._note_status[game_id] = status
        self._notes_due.set()

    async def _notes_sender(self) -> None:
        """Every process hears, at most every ``note_tick``, of the games the pushes this process
        stored moved on (one statement, one notification per game, as a push in its transaction
        sends them): a notification lost (a process stopped before its tick) is made up for by the
        other processes' every-``poll`` check."""
        while not self.closing.is_set():
            await self._notes_due.wait()
            self._notes_due.clear()
            notes, self._notes = self._notes, {}
            status, self._note_status = self._note_status, {}
            out = []
            for game_id, (last, texts, _) in notes.items():
                head = f"{game_id}:{last}:{status[game_id]}"
                out.append(head + "\n" + "\n".join(texts) if texts else head)
            try:
                async with self.pool.connection(timeout=PUSH_WAIT) as conn:
                    await stored.notify_games(conn, out)
            except (psycopg.Error, OSError, asyncio.TimeoutError) as exc:  # the others' poll finds them
                log.debug("notifications not sent: %s", exc)
            await asyncio.sleep(self.note_tick)

    async def _finish(self, conn, game_id: int, final: dict, agrees: bool | None = True,
                      pushed: bool = True) -> str | None:
        """Keep a game's final, and rate its players when ``agrees`` (its record is the game the
        table's frames showed) and, for a final a table ``pushed``, no game of the archive has the
        same record rated already; why it is not rated, if it is not (its players are then kept by
        name only: "rated": false).  A remote game's final is the hub's own (``pushed`` False): it
        saw every action, so two games that happen to be played alike are each rated."""
        players = final.get("players") or {}
        ids = {}
        for colour in ("white", "black"):
            ids[colour] = await ratings.player_id(conn, players.get(colour))
        why = None
        if final["status"] == "over" and (ids["white"] or ids["black"]):
            if not agrees:
                why = "not rated: the table did not push the frames of this game's turns"
            elif pushed and await stored.rated_twin(conn, game_id, final.get("record")):
                why = "not rated: the archive holds this record rated already"
            if why:
                ids = {"white": None, "black": None}
        names = {c: (players.get(c) or {}).get("name") if isinstance(players.get(c), dict) else None
                 for c in ("white", "black")}
        await stored.keep_final(conn, game_id, final, ids, names)
        if final["status"] == "over" and ids["white"] and ids["black"] and ids["white"] != ids["black"]:
            await ratings.rate(conn, ids["white"], ids["black"], (final.get("result") or {}).get("winner"))
        return why

    # --- reading for spectators ------------------------------------------------------------------

    async def game(self, uuid: str):
        if not UUID.match(uuid):
            return None
        async with self.pool.connection() as conn:
            return await stored.game_for_archive(conn, uuid)

    async def index(self, args: dict, limit: int = 200) -> list[dict]:
        day = _day(args["date"], "date") if args.get("date") else None
        since = _day(args["from"], "from") if args.get("from") else None  # a tournament's days: from and to,
        before = _day(args["to"], "to") + 86400 if args.get("to") else None  # both included (UTC)
        async with self.pool.connection() as conn:
            rows = await stored.index(conn, table=args.get("table"), mode=args.get("mode"), status=args.get("status"),
                                      result=args.get("result"), player=args.get("player"), day=day, since=since,
                                      before=before, limit=limit)
        return [{"uuid": str(r[0]), "table": r[1], "status": r[2], "events": r[3], "mode": r[4], "created": r[5],
                 "finished": r[6], "result": r[7], "players": {"white": r[8], "black": r[9]},
                 "rated": {"white": r[10], "black": r[11]}, "url": f"/api/games/{r[0]}"} for r in rows]


def _kept(final: dict) -> str:
    """What of a final must be the same when it is sent again (status, record, result, mode, names)."""
    players = final.get("players") if isinstance(final.get("players"), dict) else {}
    names = {c: (players.get(c) or {}).get("name") if isinstance(players.get(c), dict) else None
             for c in ("white", "black")}
    return json.dumps([final.get("status"), final.get("record"), final.get("result"), final.get("mode"), names],
                      sort_keys=True)


def _day(text: str, field: str) -> float:
    """The start of a day (UTC) as a time; ValueError naming the field."""
    try:
        return dt.datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=dt.timezone.utc).timestamp()
    except ValueError:
        raise ValueError(f"{field}: YYYY-MM-DD expected") from None


# --- HTTP -------------------------------------------------------------------------------------------


class Push(Base):
    async def post(self):
        auth = self.request.headers.get("Authorization", "")
        if not auth.startswith("Bearer "):
            return self.fail(401, "a table's key is needed (Authorization: Bearer <key>)")
        wait = self.hub.address_limit.wait(self.request.remote_ip)
        if wait:
            return self.too_many("too many pushes from this address", wait)
        key = auth[7:].strip()
        table = await self.hub.table_of(key)
        if table is None:
            # Which board is wrong, for the organiser: the key's first characters (never the whole key) and the address.
            log.warning("push refused: unknown table key %s… from %s (check that board's --table-key against "
                        "`quin hub add-table`)", key[:7].encode("ascii", "replace").decode() or "(empty)",
                        self.request.remote_ip)
            return self.fail(403, "unknown table key")
        wait = self.hub.push_limit.wait(str(table[0]))
        if wait:
            return self.too_many("too many pushes for this table", wait)
        try:
            answer = await self.hub.push(table[0], self.request.body)
        except validate.Invalid as exc:  # final: a board sends it again only changed (a final: set aside)
            if exc.status == 429:  # too many games in play: a board retries once one has ended
                self.set_header("Retry-After", "30")
            return self.fail(exc.status, str(exc), game=exc.game, final=exc.final)
        except PermissionError as exc:
            return self.fail(403, str(exc))
        self.json({"ok": True, "table": table[1], **answer})


class Health(Base):
    needs_database = False  # it says so itself: 503 and why

    async def get(self):
        db = self.hub.db.up
        if db:
            try:
                async with self.hub.pool.connection(timeout=DB_WAIT) as conn:
                    await schema.ping(conn)
            except (psycopg.Error, OSError) as exc:
                self.hub.db.failed(exc)
                db = False
        if not db:
            self.quiet_log = True
            self.set_header("Retry-After", str(database.RETRY_AFTER))
            self.set_status(503)
        self.json({"ok": db, "database": db, **({} if db else {"error": database.ANSWER}),
                   "listening": self.hub.listening,
                   "streams": sum(self.hub.streams.values()), "games_in_memory": len(self.hub.channels),
                   "wall": len(self.hub.wall)})


class Index(Base):
    async def get(self):
        args = {k: self.get_argument(k, "")[:64] for k in FILTERS}
        try:
            games = await words.fill(self.hub, await self.hub.index(args))  # live names as the wall shows them
            self.json({"format": "quin-hub-index/1", "games": games})
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
            if not (after.isascii() and after.isdigit() and len(after) < 10):
                return self.fail(400, f"after: the number of an event (0 to 999999999) is expected, not {after[:20]!r}")
            after = int(after)
            rows = await self.hub.frames(row[0], after)
            return self.json({"game": str(row[1]), "events": [{"seq": s, "data": json.loads(d)} for s, d in rows]})
        out = _game_json(row)
        out["state"] = await self.hub.newest(row[0], row[4])
        self.json(words.complete(out, out["state"]))


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
            name = await players.name_of(conn, code)
        if name is None:
            return self.fail(404, f"no player with the code {code}")
        self.json({"code": code, "name": name})


class Players(Base):
    async def get(self):
        async with self.hub.pool.connection() as conn:
            self.json({"players": await ratings.leaderboard(conn)})


class Stream(Base):
    """SSE.  A game's stream: ids are its event numbers.  A stream starts (or resumes, with
    Last-Event-ID, at any process) with what it lacks: the events after its last one if this process
    still has them in memory, or else the game's newest frame whole; then each event as it comes,
    whole or a patch of the one before (host/hub/frames.py).  The wall: every table's newest game,
    its frame without the history but the last turn (``board``: the card whole; ``patch``: a table's
    card changed, as a patch of the one before), every ``wall_tick`` at most (no ids: a reconnecting
    wall gets them all whole).

    Events are written to the streams as they arrive (one serialization for all, no task woken per
    stream); a stream whose spectator does not read is closed once far behind (it resumes)."""

    MAX_BEHIND = 256 * 1024  # bytes written but not yet taken by the spectator (thousands of streams per process)
    seq = 0  # a game's stream: the game's last event it has been given

    @property
    def needs_database(self) -> bool:
        return bool(self.path_args)  # a game's stream reads it; the wall's is in memory

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
            if ch is None:
                return self.fail(404, "no such game")
            if ch.cursor < row[4]:
                await self.hub.wake([row[0]])
        self.hub.streams[address] = self.hub.streams.get(address, 0) + 1
        self._ended = asyncio.get_running_loop().create_future()
        self.set_header("Content-Type", "text/event-stream")
        self.set_header("Cache-Control", "no-cache")
        self.set_header("X-Accel-Buffering", "no")
        subscribers = self.hub.wall_subscribers if ch is None else ch.subscribers
        try:
            # what it lacks, then subscribed at once (no await between): no event falls in between
            if ch is None:
                first = self.hub.wall_now()
            else:
                last = self.request.headers.get("Last-Event-ID", "")
                first = ch.after(int(last) if last.isdigit() and len(last) < 10 else None)
                self.seq = ch.cursor  # what it has now: the next tick writes it what follows
            subscribers.add(self)
            self.write(b"retry: 1500\n\n" + first)
            self.flush().add_done_callback(_quiet)  # the headers, then every event by send()
            if not self.hub.closing.is_set():
                await self._ended
        finally:
            subscribers.discard(self)
            self.hub.streams[address] -= 1

    def send(self, blob: bytes) -> None:
        if self._ended.done() or not blob:  # (an empty chunk would end a chunked response)
            return
        conn = self.request.connection
        stream = conn.stream
        if stream.closed():
            return self.end()
        if stream._total_write_index - stream._total_write_done_index > self.MAX_BEHIND:
            stream.close()  # a spectator that does not read: it reconnects and resumes
            return self.end()
        chunked = getattr(conn, "_chunking_output", None)
        if (stream.writing() or type(stream) is not iostream.IOStream or chunked is None
                or getattr(conn, "_expected_content_remaining", 0) is not None):
            conn.write(blob).add_done_callback(_quiet)  # after what waits (the headers went first)
            return
        # Nothing waits: written to the socket itself, as tornado would write it (its chunk where it
        # chunks, RFC 9112 7.1), without the future, callback and buffer of a write (a process writes
        # every event to thousands of streams); what the socket does not take goes tornado's way.
        data = b"%x\r\n%s\r\n" % (len(blob), blob) if chunked else blob
        try:
            sent = stream.socket.send(data)
        except (BlockingIOError, InterruptedError):
            sent = 0
        except OSError:
            stream.close()  # the spectator is gone (the connection's close ends the stream)
            return self.end()
        if sent < len(data):
            stream.write(data[sent:]).add_done_callback(_quiet)

    def end(self) -> None:
        if not self._ended.done():
            self._ended.set_result(None)

    def on_connection_close(self):
        if hasattr(self, "_ended"):
            self.end()


class Layout(Base):
    """``/api/layout``: the board's drawing data, the very layout the board's own pages draw from
    (host.web.layout), so the wall draws each board with the status page's code (quin.js)."""

    needs_database = False

    def get(self):
        from host.web.layout import layout

        self.set_header("Cache-Control", "max-age=3600")
        self.json(layout())


class Page(Base):
    needs_database = False

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
        (r"/play", Page, {"name": "play"}),  # remote play in a browser (docs/remote-play.md)
        (r"/play/([0-9A-Za-z-]{6,7})", Page, {"name": "play"}),
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
        *remote.routes(),  # remote play (docs/remote-play.md)
    ], hub=hub, compress_response=False, log_function=remote.access_log)


async def serve(dsn: str, host: str, port: int, pool_size: int = 8, ready=None, until: asyncio.Event | None = None,
                stream_cap: int = 64, push_rate: float = 50.0, stream_rate: float = 10.0,
                connection_cap: int | None = None, idle_timeout: float = 20.0, body_timeout: float = 60.0,
                **remote) -> None:
    """``remote``: presence_renew, presence_lapse, remote_rate, join_rate, abandon_after, clock (see Hub).  The connections
    (host/hub/guard.py): at most ``connection_cap`` per address (default: 256, and never fewer than
    the streams one address may open and 16 more), ``idle_timeout`` seconds idle or sending headers,
    ``body_timeout`` seconds sending a body."""
    hub = Hub(dsn, pool_size=pool_size, stream_cap=stream_cap, push_rate=push_rate, stream_rate=stream_rate, **remote)
    await hub.start()
    cap = connection_cap if connection_cap is not None else max(256, stream_cap + 16)
    server = guard.Server(make_app(hub), per_address=cap, max_body=MAX_PUSH, idle=idle_timeout,
                          body_timeout=body_timeout)
    sockets = __import__("tornado.netutil", fromlist=["bind_sockets"]).bind_sockets(port, host)
    server.add_sockets(sockets)
    if ready is not None:
        ready(sockets[0].getsockname()[1])
    try:
        await (until or asyncio.Event()).wait()
    finally:
        server.stop()
        await hub.stop()
