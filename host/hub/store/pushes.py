"""The usual push stored through a connection of its own, several boards' pushes in one statement.

A hub process takes most of its pushes as the usual kind: new events of one live game it holds in
memory, checked there against the game's frame (``Hub._checked_here``).  Through psycopg and its
pool such a push's one statement cost the process about as much CPU as the rest of the push
together (a pooled connection lent and given back, the statement's parameters adapted, the socket
added to and taken off the event loop for each wait).  :class:`PushWriter` sends it on one
connection held for it, straight through libpq (psycopg's ``pgconn``): the socket is watched for as
long as the connection lives, the statement is prepared once, its parameters are text it makes
itself.  And it commits in groups: while one statement is in flight, the pushes that arrive wait,
and go together in the next (one statement, one commit for all of them); each push is answered
once the statement that holds it has committed, as every push is.

Each push in a statement is stored whole or not at all, whatever the others do: its game is moved
on only if it is the pushing table's, live, and its last event still the one the push was checked
against, and only the events of the games moved on are inserted.  One that is not stored (or a
statement that fails, or a connection lost) is reported as such, having changed nothing, and the
hub takes that push the usual way (host/hub/server.py: checked against the database, in its own
transaction), which answers what is wrong, or 503 if the database is away.
"""

from __future__ import annotations

import asyncio
import json
import logging

import psycopg
from psycopg import pq

log = logging.getLogger("quin.hub")

NAME = b"quin_fast_pushes"
# $1 the games (UUIDs), $2 the last event each push was checked against, $3 each push's last event,
# $4 the pushing tables, $5 the modes its whole frames give (JSON: a list of text or null), all by
# push; $6 the push of each event (its number from 1), $7 its seq, $8 its data: JSON texts, which
# never hold a line break, one a line.  The events are inserted in the order pushed.
FAST_PUSHES = """
WITH p AS (SELECT * FROM unnest(string_to_array($1, ',')::uuid[], string_to_array($2, ',')::int[],
                                string_to_array($3, ',')::int[], string_to_array($4, ',')::bigint[],
                                (SELECT array_agg(m ORDER BY k) FROM json_array_elements_text($5::json)
                                 WITH ORDINALITY AS x(m, k)))
           WITH ORDINALITY AS p(uuid, at, top, table_id, mode, i)),
g AS (UPDATE hub_games h SET last_seq = p.top, mode = COALESCE(h.mode, p.mode) FROM p
      WHERE h.uuid = p.uuid AND h.table_id = p.table_id AND h.status = 'live' AND h.last_seq = p.at
      RETURNING p.i, h.id),
e AS (SELECT * FROM unnest(string_to_array($6, ',')::int[], string_to_array($7, ',')::int[],
                           string_to_array($8, E'\\n')) WITH ORDINALITY AS e(i, seq, data, n)),
ins AS (INSERT INTO hub_events(game_id, seq, data) SELECT g.id, e.seq, e.data FROM g JOIN e USING (i)
        ORDER BY e.n ON CONFLICT DO NOTHING)
SELECT i FROM g
"""
# The same for a statement of one push of one event (the usual push of a hub that keeps up, about
# a third cheaper for PostgreSQL than the arrays): $1 the game, $2 its last event checked, $3 the
# event's seq, $4 the table, $5 the mode, $6 the data.
ONE = b"quin_fast_push"
FAST_PUSH = """
WITH g AS (UPDATE hub_games SET last_seq = $3, mode = COALESCE(mode, $5)
           WHERE uuid = $1 AND table_id = $4 AND status = 'live' AND last_seq = $2 RETURNING id),
ins AS (INSERT INTO hub_events(game_id, seq, data) SELECT g.id, $3, $6 FROM g ON CONFLICT DO NOTHING)
SELECT 1 FROM g
"""
MOST = 200  # pushes in one statement


class PushWriter:
    """One connection of a hub process that stores the usual pushes (see the module's doc)."""

    def __init__(self, dsn: str):
        self.dsn = dsn
        self._conn: psycopg.AsyncConnection | None = None
        self._pg: pq.abc.PGconn | None = None
        self._fd = -1
        self._encoding = "utf-8"
        self._connecting: asyncio.Future | None = None
        self._waiting: list[tuple[tuple, asyncio.Future]] = []  # pushes for the next statement
        self._flying: list[tuple[tuple, asyncio.Future]] | None = None  # those of the statement in flight
        self._result: pq.abc.PGresult | None = None
        self.closed = False
        self.statements = 0  # sent (how many pushes each held: ``pushes`` / ``statements``)
        self.pushes = 0

    async def store(self, table_id: int, uuid: str, at: int, mode: str | None, events: list[tuple[int, str]]) -> bool:
        """Store a push of new events of one game (``events``: (seq, data text), in the order pushed,
        numbered after ``at``) if the game is the table's, live, and ``at`` is still its last event:
        whether it was (False: nothing was changed, for whatever reason)."""
        if self.closed:
            return False
        future = asyncio.get_running_loop().create_future()
        self._waiting.append(((table_id, uuid, at, max(s for s, _ in events), mode, events), future))
        if self._pg is None:
            if self._connecting is None:
                self._connecting = asyncio.ensure_future(self._connect())
        elif self._flying is None:
            self._send()
        return await future

    async def _connect(self) -> None:
        try:
            conn = await psycopg.AsyncConnection.connect(self.dsn, autocommit=True, connect_timeout=2)
            try:
                await conn.execute(f"PREPARE {NAME.decode()} (text, text, text, text, text, text, text, text) AS "
                                   + FAST_PUSHES)
                await conn.execute(f"PREPARE {ONE.decode()} (uuid, int, int, bigint, text, text) AS " + FAST_PUSH)
                pg = conn.pgconn
                pg.nonblocking = 1
                asyncio.get_running_loop().add_reader(pg.socket, self._readable)
            except BaseException:
                await conn.close()
                raise
        except (psycopg.Error, OSError) as exc:
            log.debug("the push writer is not connected: %s", exc)
            self._connecting = None
            self._fail(self._waiting)  # taken the usual way (which says what is wrong)
            self._waiting = []
            return
        self._connecting = None
        if self.closed:
            asyncio.get_running_loop().remove_reader(pg.socket)
            await conn.close()
            return
        self._conn, self._pg, self._fd = conn, pg, pg.socket
        self._encoding = conn.info.encoding  # (the texts are JSON, ASCII; a mode may not be)
        if self._waiting:
            self._send()

    def _send(self) -> None:
        batch, self._waiting = self._waiting[:MOST], self._waiting[MOST:]
        pushes = [p for p, _ in batch]
        if len(pushes) == 1 and len(pushes[0][5]) == 1:
            table_id, uuid, at, top, mode, events = pushes[0]
            name = ONE
            params = [uuid, str(at), str(top), str(table_id), mode, events[0][1]]
        else:
            name = NAME
            params = [",".join(p[1] for p in pushes), ",".join(str(p[2]) for p in pushes),
                      ",".join(str(p[3]) for p in pushes), ",".join(str(p[0]) for p in pushes),
                      json.dumps([p[4] for p in pushes]),
                      ",".join(str(i) for i, p in enumerate(pushes, 1) for _ in p[5]),
                      ",".join(str(s) for p in pushes for s, _ in p[5]),
                      "\n".join(d for p in pushes for _, d in p[5])]
        self._flying, self._result = batch, None
        try:
            self._pg.send_query_prepared(name, [None if x is None else x.encode(self._encoding) for x in params])
            if self._pg.flush():  # (1: more to send when the socket takes it)
                asyncio.get_running_loop().add_writer(self._fd, self._writable)
        except psycopg.Error as exc:
            self._lost(exc)
            return
        self.statements += 1
        self.pushes += len(batch)

    def _writable(self) -> None:
        try:
            if not self._pg.flush():
                asyncio.get_running_loop().remove_writer(self._fd)
        except psycopg.Error as exc:
            self._lost(exc)

    def _readable(self) -> None:
        pg = self._pg
        if pg is None:
            return
        try:
            pg.consume_input()
            while not pg.is_busy():
                result = pg.get_result()
                if result is None:  # the statement is over (committed, or failed and undone)
                    if self._flying is None:
                        break
                    self._done()
                    continue
                if self._flying is not None and self._result is None:
                    self._result = result
            if pg.status != pq.ConnStatus.OK:
                raise psycopg.OperationalError("the connection is broken")
        except psycopg.Error as exc:
            self._lost(exc)

    def _done(self) -> None:
        batch, result = self._flying, self._result
        self._flying = self._result = None
        stored: set[int] = set()
        if result is not None and result.status == pq.ExecStatus.TUPLES_OK:
            stored = {int(result.get_value(n, 0)) for n in range(result.ntuples)}  # (ONE: 1 if stored)
        elif result is not None:
            log.warning("pushes not stored together (each is taken alone): %s",
                        (result.error_message or b"").decode("utf-8", "replace").strip()[:200])
        for i, (_, future) in enumerate(batch, 1):
            if not future.done():
                future.set_result(i in stored)
        if self._waiting:
            self._send()

    def _fail(self, batch) -> None:
        for _, future in batch or ():
            if not future.done():
                future.set_result(False)

    def _lost(self, exc: BaseException) -> None:
        """The connection is gone (the database restarted): what waited is taken the usual way; the
        next push connects again."""
        log.debug("the push writer's connection is lost: %s", exc)
        flying, waiting = self._flying, self._waiting
        self._flying, self._waiting, self._result = None, [], None
        self._drop()
        self._fail(flying)
        self._fail(waiting)

    def _drop(self) -> None:
        if self._pg is not None:
            loop = asyncio.get_running_loop()
            loop.remove_reader(self._fd)
            loop.remove_writer(self._fd)
        conn, self._conn, self._pg, self._fd = self._conn, None, None, -1
        if conn is not None:
            task = asyncio.ensure_future(conn.close())
            task.add_done_callback(lambda t: t.cancelled() or t.exception())

    async def close(self) -> None:
        self.closed = True
        self._fail(self._flying)
        self._fail(self._waiting)
        self._flying, self._waiting = None, []
        conn = self._conn
        if self._pg is not None:
            loop = asyncio.get_running_loop()
            loop.remove_reader(self._fd)
            loop.remove_writer(self._fd)
        self._conn, self._pg = None, None
        if conn is not None:
            await conn.close()
