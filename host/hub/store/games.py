"""The archive of the boards' games: tables by key, games and their public events, finals, the index.

What the hub holds of a live game is exactly what the board's public status page showed (each
event a public frame, or a patch of the one before: host/hub/frames.py); hidden identities arrive
only with the finished record.  A remote game's frames are archived here too, under the table
``remote`` (host/hub/remote.py makes them).  Each change ends with a notification on
``schema.CHANNEL`` (``<game id>:<seq>:<status>``), sent when the caller's transaction commits.
"""

from __future__ import annotations

import json

from .schema import CHANNEL

# A push of new events of one known live game of the pushing table, in one statement: it changes
# nothing (no row) unless the game is the table's, live, and its last event still the one the
# events were checked against (``at``: the hub checked them on its frame in memory).  The events
# are inserted in the order pushed (the database's bytes must not depend on a join's order).  No
# notification: the hub tells the other processes of a tick's pushes together (notify_games).
FAST_GAME = """
WITH g AS (UPDATE hub_games SET last_seq = %s, mode = COALESCE(mode, %s)
           WHERE uuid = %s AND table_id = %s AND status = 'live' AND last_seq = %s RETURNING id),
ins AS (INSERT INTO hub_events(game_id, seq, data) SELECT g.id, e.seq, e.data FROM g,
        unnest(%b::int[], %b::text[]) WITH ORDINALITY AS e(seq, data, n) ORDER BY e.n ON CONFLICT DO NOTHING)
SELECT id FROM g
"""
FAST_EVENT = """
WITH g AS (UPDATE hub_games SET last_seq = %s, mode = COALESCE(mode, %s)
           WHERE uuid = %s AND table_id = %s AND status = 'live' AND last_seq = %s RETURNING id),
ins AS (INSERT INTO hub_events(game_id, seq, data) SELECT g.id, %s, %s FROM g ON CONFLICT DO NOTHING)
SELECT id FROM g
"""  # the same for one event (the usual push): no arrays
NOT_PATCH = "left(data, 9) <> '{\"patch\":'"  # SQL: an event that is a whole frame
FIND = "SELECT uuid::text, id, table_id, status, last_seq FROM hub_games WHERE uuid = ANY(%s::uuid[])"
# a game as the pages and the read formats give it (game_for_archive), by position
GAME = ("SELECT g.id, g.uuid, t.name, g.status, g.last_seq, g.mode, g.created, g.finished, g.result, "
        "g.record, COALESCE(pw.name, g.white_name), COALESCE(pb.name, g.black_name), "
        "g.white IS NOT NULL, g.black IS NOT NULL FROM hub_games g JOIN hub_tables t ON t.id = g.table_id "
        "LEFT JOIN hub_players pw ON pw.id = g.white LEFT JOIN hub_players pb ON pb.id = g.black "
        "WHERE g.uuid = %s")


def _json(value):
    return None if value is None else json.dumps(value)


# --- tables -----------------------------------------------------------------------------------------


async def table_for_key(conn, key_hash: str) -> tuple[int, str] | None:
    """(id, name) of the table whose key has this hash, or None."""
    row = await (await conn.execute("SELECT id, name FROM hub_tables WHERE key_hash = %s", (key_hash,))).fetchone()
    return None if row is None else (row[0], row[1])


async def learn_board(conn, table_id: int, board: str) -> None:
    """The board's own table identity, kept at its first push (never changed after)."""
    await conn.execute("UPDATE hub_tables SET board = %s WHERE id = %s AND board IS NULL", (board, table_id))


async def remote_table(conn, name: str, key_hash: str) -> int:
    """The id of the table named ``name`` (remote games'), made with ``key_hash`` if it is missing."""
    await conn.execute("INSERT INTO hub_tables(name, key_hash) VALUES (%s, %s) ON CONFLICT (name) DO NOTHING",
                       (name, key_hash))
    r = await (await conn.execute("SELECT id FROM hub_tables WHERE name = %s", (name,))).fetchone()
    return r[0]


# --- a push -----------------------------------------------------------------------------------------


async def record_push_fast(conn, table_id: int, games: list) -> bool:
    """The usual push: new events of known live games of the table, each checked against the game's
    last event ``at`` (``games``: [(uuid, at, mode or None, [(seq, data text), ...]), ...], each
    game's events in the order pushed, numbered after ``at``).  Whether it was stored: all of it,
    or nothing if any game is not the table's, not live, or has moved on past ``at``.  One
    statement for one game; several games in one transaction."""

    async def one(uuid, at, mode, events) -> bool:
        top = max(s for s, _ in events)
        if len(events) == 1:
            cur = await conn.execute(FAST_EVENT, (top, mode, uuid, table_id, at, events[0][0], events[0][1]))
        else:
            cur = await conn.execute(FAST_GAME, (top, mode, uuid, table_id, at, [s for s, _ in events],
                                                 [d for _, d in events]))
        return await cur.fetchone() is not None

    if len(games) == 1:
        return await one(*games[0])
    try:
        async with conn.transaction():
            for game in games:
                if not await one(*game):
                    raise _NotStored
    except _NotStored:
        return False
    return True


class _NotStored(Exception):
    """A game of a push stored in one transaction did not fit: the transaction is undone."""


async def games_to_check(conn, table_id: int, uuids: list[str]) -> tuple[list, int]:
    """What a push is checked against: (uuid, id, table id, status, mode, last seq, record, result,
    white name, black name) of each of its games the hub holds, and how many of the table's games
    are live."""
    rows = await (await conn.execute(
        "SELECT uuid::text, id, table_id, status, mode, last_seq, record, result, white_name, black_name "
        "FROM hub_games WHERE uuid = ANY(%s::uuid[])", (uuids,))).fetchall()
    live = (await (await conn.execute(
        "SELECT count(*) FROM hub_games WHERE table_id = %s AND status = 'live'", (table_id,))).fetchone())[0]
    return rows, live


async def find_games(conn, uuids: list[str]) -> dict[str, list]:
    """{uuid: [id, table id, status, last seq]} of the games the hub holds among ``uuids``."""
    return {r[0]: list(r[1:]) for r in await (await conn.execute(FIND, (uuids,))).fetchall()}


async def add_game(conn, table_id: int, uuid: str) -> None:
    """A new live game of the table (nothing if another push made it meanwhile)."""
    await conn.execute("INSERT INTO hub_games(table_id, uuid) VALUES (%s, %s) ON CONFLICT (uuid) DO NOTHING",
                       (table_id, uuid))


async def held_events(conn, game_id: int, seqs: list[int]) -> dict[int, str]:
    """{seq: data text} of the game's events the hub holds among ``seqs``."""
    return dict(await (await conn.execute(
        "SELECT seq, data FROM hub_events WHERE game_id = %s AND seq = ANY(%s)", (game_id, seqs))).fetchall())


async def add_events(conn, inserts: list[tuple[int, int, str]]) -> None:
    """Events (game id, seq, data text), those the hub holds already left as they are."""
    await conn.execute(
        "INSERT INTO hub_events(game_id, seq, data) SELECT * FROM unnest(%b::bigint[], %b::int[], "
        "%b::text[]) ON CONFLICT DO NOTHING",  # %b: arrays in binary, no quoting of JSON in Python
        ([g for g, _, _ in inserts], [s for _, s, _ in inserts], [d for _, _, d in inserts]))


async def move_on(conn, tops: dict[int, tuple[int, str | None]]) -> None:
    """Each game's last event ({id: (last seq, mode pushed)}), never lowered (a push of the same game
    taken by another process meanwhile may have stored more); a mode is kept once known."""
    await conn.execute(
        "UPDATE hub_games g SET last_seq = GREATEST(g.last_seq, v.top), mode = COALESCE(g.mode, v.mode) FROM "
        "unnest(%s::bigint[], %s::int[], %s::text[]) AS v(id, top, mode) WHERE g.id = v.id",
        (list(tops), [t for t, _ in tops.values()], [m for _, m in tops.values()]))


async def notify_games(conn, notes: list[str]) -> None:
    """Tell every hub process that these games moved on (``<id>:<seq>:<status>`` each)."""
    await conn.execute("SELECT pg_notify(%s, n) FROM unnest(%b::text[]) AS n", (CHANNEL, notes))


async def notify_game(conn, game_id: int, seq: int, status: str) -> None:
    await conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"{game_id}:{seq}:{status}"))


async def rated_twin(conn, game_id: int, record) -> bool:
    """Whether another game of the archive has the same record and was rated."""
    return (await (await conn.execute(
        "SELECT 1 FROM hub_games WHERE id <> %s AND record IS NOT NULL AND md5(record::text) = "
        "md5(%s::jsonb::text) AND (white IS NOT NULL OR black IS NOT NULL) LIMIT 1",
        (game_id, _json(record)))).fetchone()) is not None


async def keep_final(conn, game_id: int, final: dict, ids: dict, names: dict) -> None:
    """A game's end: its status, record, result, times, mode, rated players' ids and given names."""
    await conn.execute(
        "UPDATE hub_games SET status = %s, record = %s, result = %s, created = %s, finished = %s, "
        "mode = COALESCE(%s, mode), white = %s, black = %s, white_name = %s, black_name = %s WHERE id = %s",
        (final["status"], _json(final.get("record")), _json(final.get("result")), final.get("created"),
         final.get("finished"), final.get("mode"), ids["white"], ids["black"], names["white"], names["black"],
         game_id))


# --- a remote game archived (host/hub/remote.py) ---------------------------------------------------


async def start_remote_game(conn, table_id: int, uuid: str, mode: str, frame: str) -> int:
    """A remote game's archive: a new live game with its first frame (``frame``: JSON text); its id."""
    r = await (await conn.execute(
        "INSERT INTO hub_games(table_id, uuid, mode, last_seq) VALUES (%s, %s, %s, 1) RETURNING id",
        (table_id, uuid, mode))).fetchone()
    await conn.execute("INSERT INTO hub_events(game_id, seq, data) VALUES (%s, 1, %s)", (r[0], frame))
    await notify_game(conn, r[0], 1, "live")
    return r[0]


async def add_remote_event(conn, game_id: int, seq: int, data: str) -> None:
    """A remote game's next archived event (``data``: JSON text), its last seq moved on."""
    await conn.execute("INSERT INTO hub_events(game_id, seq, data) VALUES (%s, %s, %s)", (game_id, seq, data))
    await conn.execute("UPDATE hub_games SET last_seq = %s WHERE id = %s", (seq, game_id))


# --- reading -----------------------------------------------------------------------------------------


async def live_or_held(conn, held: list[int]) -> list[tuple[int, int, str]]:
    """(id, last seq, status) of every live game and of the games ``held`` (a process's in memory)."""
    return await (await conn.execute(
        "SELECT id, last_seq, status FROM hub_games WHERE status = 'live' OR id = ANY(%s)", (held,))).fetchall()


async def game_from_newest_frame(conn, game_id: int, whole) -> tuple[tuple | None, list]:
    """(uuid, table name, status) of a game, and its events (seq, data text) from its newest whole
    frame on; every event instead if the first of those is not ``whole(data text)`` (a bad frame
    stored before the hub checked what it stores: issue 30).  (None, []) if there is no such game."""
    row = await (await conn.execute(
        "SELECT g.uuid, t.name, g.status FROM hub_games g JOIN hub_tables t ON t.id = g.table_id "
        "WHERE g.id = %s", (game_id,))).fetchone()
    rows = [] if row is None else await (await conn.execute(
        "SELECT seq, data FROM hub_events WHERE game_id = %s AND seq >= COALESCE((SELECT max(seq) "
        f"FROM hub_events WHERE game_id = %s AND {NOT_PATCH}), 1) ORDER BY seq",
        (game_id, game_id))).fetchall()
    if rows and row is not None and not whole(rows[0][1]):
        rows = await (await conn.execute(
            "SELECT seq, data FROM hub_events WHERE game_id = %s ORDER BY seq", (game_id,))).fetchall()
    return row, rows


async def events_after(conn, cursors: dict[int, int]) -> tuple[list[tuple[int, int, str]], dict[int, str]]:
    """The events of each game after its cursor ({id: seq}) as (id, seq, data text) in order, and
    each game's status now."""
    ids = list(cursors)
    rows = await (await conn.execute(
        "SELECT e.game_id, e.seq, e.data FROM unnest(%s::bigint[], %s::int[]) AS w(g, s) "
        "JOIN hub_events e ON e.game_id = w.g AND e.seq > w.s ORDER BY e.game_id, e.seq",
        (ids, [cursors[g] for g in ids]))).fetchall()
    statuses = dict(await (await conn.execute("SELECT id, status FROM hub_games WHERE id = ANY(%s)",
                                              (ids,))).fetchall())
    return rows, statuses


async def newest_of_each_table(conn) -> list[int]:
    """The id of every table's newest game (the wall's)."""
    rows = await (await conn.execute(
        "SELECT DISTINCT ON (g.table_id) g.id FROM hub_games g ORDER BY g.table_id, g.id DESC")).fetchall()
    return [game_id for (game_id,) in rows]


async def events_for_frames(conn, game_id: int, after: int, limit: int) -> list[tuple[int, str]]:
    """(seq, data text) of the game's events from its newest whole frame at or before ``after + 1``,
    at most ``limit``."""
    return await (await conn.execute(
        "SELECT seq, data FROM hub_events WHERE game_id = %s AND seq >= COALESCE((SELECT max(seq) "
        f"FROM hub_events WHERE game_id = %s AND seq <= %s AND {NOT_PATCH}), 1) ORDER BY seq LIMIT %s",
        (game_id, game_id, after + 1, limit))).fetchall()


async def game_for_archive(conn, uuid: str):
    """A game as the pages and read formats give it: (id, uuid, table, status, last seq, mode,
    created, finished, result, record, white's name, black's name, white rated, black rated), or None."""
    return await (await conn.execute(GAME, (uuid,))).fetchone()


async def ids_of(conn, uuids: list[str]) -> list[tuple[int, str]]:
    """(id, uuid) of the games the hub holds among ``uuids``."""
    return await (await conn.execute("SELECT id, uuid FROM hub_games WHERE uuid = ANY(%s::uuid[])",
                                     (uuids,))).fetchall()


def _like(text: str) -> str:
    """Text searched for as it is: LIKE's own wildcards escaped."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


async def index(conn, table=None, mode=None, status=None, result=None, player=None, day=None, since=None,
                before=None, limit: int = 200) -> list[tuple]:
    """The archive's games, newest first, that match every filter given: the table's name, mode,
    status, winner, a player's name (a part of it, any case), finished on the ``day`` starting then,
    finished at ``since`` or later, finished ``before`` (times: seconds).  Each (uuid, table, status,
    last seq, mode, created, finished, result, white's name, black's name, white rated, black rated)."""
    where, params = ["TRUE"], []
    for given, clause, values in (
            (table, "t.name = %s", [table]), (mode, "g.mode = %s", [mode]), (status, "g.status = %s", [status]),
            (result, "g.result->>'winner' = %s", [result]),
            (player, "(COALESCE(pw.name, g.white_name) ILIKE %s OR COALESCE(pb.name, g.black_name) ILIKE %s)",
             [f"%{_like(player or '')}%"] * 2),
            (day is not None, "g.finished >= %s AND g.finished < %s", [day, (day or 0) + 86400]),
            (since is not None, "g.finished >= %s", [since]), (before is not None, "g.finished < %s", [before])):
        if given:
            where.append(clause)
            params += values
    return await (await conn.execute(
        "SELECT g.uuid, t.name, g.status, g.last_seq, g.mode, g.created, g.finished, g.result, "
        "COALESCE(pw.name, g.white_name), COALESCE(pb.name, g.black_name), g.white IS NOT NULL, "
        "g.black IS NOT NULL FROM hub_games g JOIN hub_tables t ON t.id = g.table_id "
        "LEFT JOIN hub_players pw ON pw.id = g.white LEFT JOIN hub_players pb ON pb.id = g.black "
        f"WHERE {' AND '.join(where)} ORDER BY g.id DESC LIMIT {int(limit)}", params)).fetchall()
