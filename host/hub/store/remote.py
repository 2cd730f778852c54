"""Remote play's games (docs/remote-play.md): their rows, seat tokens, log, and the seats' presence.

Unlike the rest of the hub's store, ``remote_games.setups`` holds hidden identities (both lineups):
host/hub/remote.py sends nothing of them but through the engine's views.  A change of a game is one
transaction of the caller's on the game's row, locked first (:func:`lock_game`), that ends with
:func:`notify` (``<id>:<seq>`` on ``schema.REMOTE_CHANNEL``; presence says ``<id>:presence``).
"""

from __future__ import annotations

from psycopg.types.json import Jsonb

from .schema import REMOTE_CHANNEL

# a game's row, in this order (host.hub.remote.Row reads the values by position)
COLUMNS = ("id", "code", "mode", "vision", "first", "seq", "round", "phase", "seats", "setups", "reveal", "rematch",
           "archive", "started", "away")
ROW = ", ".join(COLUMNS)


async def notify(conn, game_id: int, what) -> None:
    """Tell every hub process that the game changed (``what``: its seq, or ``presence``)."""
    await conn.execute("SELECT pg_notify(%s, %s)", (REMOTE_CHANNEL, f"{game_id}:{what}"))


# --- a game's row -----------------------------------------------------------------------------------


async def lock_game(conn, code: str):
    """The game's row (COLUMNS) by its code, locked until the transaction ends; None if no such game."""
    return await (await conn.execute(f"SELECT {ROW} FROM remote_games WHERE code = %s FOR UPDATE",
                                     (code,))).fetchone()


async def game_by_code(conn, code: str):
    """The game's row (COLUMNS) by its code, unlocked; None if no such game."""
    return await (await conn.execute(f"SELECT {ROW} FROM remote_games WHERE code = %s", (code,))).fetchone()


async def read_game(conn, game_id: int):
    """The game's row (COLUMNS), then the seats (token hashes) with a stream open now, then its round's
    last action as {side, request, revealed} (or None); None if no such game."""
    return await (await conn.execute(
        f"SELECT {ROW}, ARRAY(SELECT DISTINCT seat FROM remote_presence p WHERE p.game_id = g.id AND "
        "p.expires > now()), (SELECT json_build_object('side', side, 'request', request, 'revealed', revealed) "
        "FROM remote_log l WHERE l.game_id = g.id AND l.round = g.round AND l.kind = 'action' "
        "ORDER BY seq DESC LIMIT 1) FROM remote_games g WHERE id = %s", (game_id,))).fetchone()


async def seats_by_code(conn, code: str):
    """(id, seats) of the game with this code, or None."""
    return await (await conn.execute("SELECT id, seats FROM remote_games WHERE code = %s", (code,))).fetchone()


async def moves(conn, game_id: int, round_: int, after: int, upto: int) -> list[tuple[str, dict]]:
    """(kind, request) of the round's actions and ends logged after seq ``after`` up to ``upto``, in order."""
    return await (await conn.execute(
        "SELECT kind, request FROM remote_log WHERE game_id = %s AND round = %s AND kind IN ('action', 'end') "
        "AND seq > %s AND seq <= %s ORDER BY seq", (game_id, round_, after, upto))).fetchall()


async def logged(conn, game_id: int, seq: int):
    """(side, kind, request, answer) of the change that made the game's ``seq``, or None."""
    return await (await conn.execute("SELECT side, kind, request, answer FROM remote_log WHERE game_id = %s AND "
                                     "seq = %s", (game_id, seq))).fetchone()


async def logged_end(conn, game_id: int, round_: int, request: dict):
    """(side, answer) of the round's end with this request (reason, winner), or None."""
    return await (await conn.execute(
        "SELECT side, answer FROM remote_log WHERE game_id = %s AND round = %s AND kind = 'end' "
        "AND request = %s", (game_id, round_, Jsonb(request)))).fetchone()


# --- changes ----------------------------------------------------------------------------------------


async def create_game(conn, code: str, mode: str, vision: bool, first: str, seats: dict, away: dict,
                      token_hash: str) -> int | None:
    """A new game under ``code`` with its first seat's token; its id, or None if the code is taken."""
    r = await (await conn.execute(
        "INSERT INTO remote_games(code, mode, vision, first, seats, away) VALUES (%s, %s, %s, %s, %s, %s) "
        "ON CONFLICT (code) DO NOTHING RETURNING id",
        (code, mode, vision, first, Jsonb(seats), Jsonb(away)))).fetchone()
    if r is None:
        return None
    await conn.execute("INSERT INTO remote_tokens(token_hash, game_id) VALUES (%s, %s)", (token_hash, r[0]))
    return r[0]


async def join_seat(conn, game_id: int, token_hash: str, seats: dict, away: dict) -> None:
    """The second seat taken (its token kept): setups are awaited, the game's seq moves on."""
    await conn.execute("INSERT INTO remote_tokens(token_hash, game_id) VALUES (%s, %s)", (token_hash, game_id))
    await conn.execute("UPDATE remote_games SET seats = %s, phase = 'setup', seq = seq + 1, away = away || %s "
                       "WHERE id = %s", (Jsonb(seats), Jsonb(away), game_id))


async def keep_setups(conn, game_id: int, setups: dict, phase: str, started, archive) -> None:
    """The setups sent so far (and, once both are in, play started and its archive's game)."""
    await conn.execute("UPDATE remote_games SET setups = %s, phase = %s, started = %s, archive = %s, "
                       "seq = seq + 1 WHERE id = %s", (Jsonb(setups), phase, started, archive, game_id))


async def record_change(conn, game_id: int, seq: int, round_: int, side: str, kind: str, request: dict,
                        answer: dict, revealed: dict, reveal: dict | None, phase: str) -> None:
    """A side's action, reveal or end logged as the game's ``seq`` with the answer it got and the
    identities it made public; the game's seq moved on, its announced ``reveal`` and ``phase`` set."""
    await conn.execute(
        "INSERT INTO remote_log(game_id, seq, round, side, kind, request, answer, revealed) VALUES "
        "(%s, %s, %s, %s, %s, %s, %s, %s)",
        (game_id, seq, round_, side, kind, Jsonb(request), Jsonb(answer), Jsonb(revealed)))
    await conn.execute("UPDATE remote_games SET seq = seq + 1, reveal = %s, phase = %s WHERE id = %s",
                       (None if reveal is None else Jsonb(reveal), phase, game_id))


async def rematch(conn, game_id: int, seats: dict) -> None:
    """The next round under the same code: the seats as given (swapped), everything of the last reset."""
    await conn.execute(
        "UPDATE remote_games SET seats = %s, setups = '{}', reveal = NULL, rematch = '{}', "
        "phase = 'setup', round = round + 1, archive = NULL, started = NULL, seq = seq + 1 "
        "WHERE id = %s", (Jsonb(seats), game_id))


async def ask_rematch(conn, game_id: int, asked: dict) -> None:
    """The sides that asked for a rematch so far."""
    await conn.execute("UPDATE remote_games SET rematch = %s, seq = seq + 1 WHERE id = %s", (Jsonb(asked), game_id))


# --- presence ---------------------------------------------------------------------------------------


async def present_seats(conn, game_id: int) -> list[str]:
    """The seats (token hashes) of the game with a stream open now (on any process)."""
    rows = await (await conn.execute("SELECT DISTINCT seat FROM remote_presence WHERE game_id = %s AND "
                                     "expires > now()", (game_id,))).fetchall()
    return [r[0] for r in rows]


async def renew(conn, holder: str, lapse: float, held: list[tuple[int, str]]) -> None:
    """The presence of the seats ``held`` (game id, seat) by this process renewed for ``lapse`` s."""
    # an upsert, not an update: a row that went missing (a leave racing an arrive, a
    # cleanup) comes back within one renewal while the stream is open
    await conn.execute(
        "INSERT INTO remote_presence(game_id, seat, holder, expires) "
        "SELECT h.g, h.s, %s, now() + make_interval(secs => %s) "
        "FROM unnest(%s::bigint[], %s::text[]) AS h(g, s) JOIN remote_games r ON r.id = h.g "
        "ON CONFLICT (game_id, seat, holder) DO UPDATE SET expires = EXCLUDED.expires",
        (holder, lapse, [g for g, _ in held], [s for _, s in held]))


async def arrive(conn, game_id: int, seat: str, holder: str, lapse: float) -> None:
    """A stream of the seat open on this process (``holder``) for ``lapse`` s: the seat is not away."""
    await conn.execute(
        "INSERT INTO remote_presence(game_id, seat, holder, expires) VALUES (%s, %s, %s, "
        "now() + make_interval(secs => %s)) ON CONFLICT (game_id, seat, holder) DO UPDATE SET "
        "expires = EXCLUDED.expires", (game_id, seat, holder, lapse))
    await conn.execute("UPDATE remote_games SET away = away - %s WHERE id = %s AND away ? %s",
                       (seat, game_id, seat))


async def leave(conn, game_id: int, seat: str, holder: str) -> None:
    """The seat's last stream on this process closed."""
    await conn.execute("DELETE FROM remote_presence WHERE game_id = %s AND seat = %s AND holder = %s",
                       (game_id, seat, holder))


async def leave_all(conn, holder: str) -> None:
    """This process stops: none of its streams is open any more."""
    await conn.execute("DELETE FROM remote_presence WHERE holder = %s", (holder,))


async def notify_presence(conn, game_ids: list[int]) -> None:
    """Tell every hub process that presence changed in these games."""
    await conn.execute("SELECT pg_notify(%s, g::text || ':presence') FROM unnest(%s::bigint[]) AS g",
                       (REMOTE_CHANNEL, game_ids))


async def mark_away(conn, game_id: int, seat: str, now: float) -> None:
    """The seat is away from ``now``, unless a stream of it is open (on any process) or it was already."""
    await conn.execute(
        "UPDATE remote_games SET away = away || jsonb_build_object(%s::text, %s::float8) WHERE id = %s "
        "AND NOT away ? %s AND NOT EXISTS (SELECT 1 FROM remote_presence WHERE game_id = %s AND seat = %s "
        "AND expires > now())", (seat, now, game_id, seat, game_id, seat))
