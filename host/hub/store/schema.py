"""The hub's PostgreSQL schema, its tables' keys, and the statements about the connection itself
(creating the schema, a table, checking a connection, listening for the hub's notifications).

What the hub holds of a live game is exactly what the board's public status page showed (the
``events``: each a public state with its public notices, numbered per game by the board); hidden
identities arrive only with the finished record (``games.record``).  No column records when the
hub received something: a hub's database is a function of what the boards pushed, in order.
"""

from __future__ import annotations

import hashlib
import secrets

CHANNEL = "quin_events"  # NOTIFY channel: payload "<game id>:<seq>"
REMOTE_CHANNEL = "quin_remote"  # NOTIFY channel of remote games: payload "<remote game id>:<seq>"

SCHEMA = """
CREATE TABLE IF NOT EXISTS hub_tables (
    id BIGSERIAL PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    key_hash TEXT NOT NULL UNIQUE,
    board TEXT  -- the board's own table identity (its store's table_id), learnt at its first push
);
CREATE TABLE IF NOT EXISTS hub_games (
    id BIGSERIAL PRIMARY KEY,
    table_id BIGINT NOT NULL REFERENCES hub_tables(id),
    uuid UUID NOT NULL UNIQUE,
    status TEXT NOT NULL DEFAULT 'live',  -- live, over, abandoned
    last_seq INTEGER NOT NULL DEFAULT 0,
    mode TEXT,
    created DOUBLE PRECISION,   -- from the final record only (the board's clock)
    finished DOUBLE PRECISION,  -- idem
    result JSONB,
    record JSONB,               -- quin-record/1, once the game is over (hidden identities: only now)
    white INTEGER REFERENCES hub_players(id),
    black INTEGER REFERENCES hub_players(id)
);
CREATE TABLE IF NOT EXISTS hub_events (
    game_id BIGINT NOT NULL REFERENCES hub_games(id),
    seq INTEGER NOT NULL CHECK (seq > 0),
    data TEXT NOT NULL,  -- {"state": ..., "notices": [...]}: a frame of the board's public stream
    PRIMARY KEY (game_id, seq)
);
CREATE INDEX IF NOT EXISTS hub_games_table ON hub_games(table_id, status);
-- the names the players gave on their phones (from the final record: a rated player is shown by
-- the name the hub has for their code, an unknown code or none by this name, unrated)
ALTER TABLE hub_games ADD COLUMN IF NOT EXISTS white_name TEXT;
ALTER TABLE hub_games ADD COLUMN IF NOT EXISTS black_name TEXT;
"""

# Remote play (docs/remote-play.md): the hub holds the true game of two players far apart.  Unlike
# the rest of the hub, these tables hold hidden identities (both setups): they are never sent to
# anyone but through engine.views.view for a side, and the finished record.
REMOTE = """
CREATE TABLE IF NOT EXISTS remote_games (
    id BIGSERIAL PRIMARY KEY,
    code TEXT NOT NULL UNIQUE,           -- 6 characters, without the dash
    mode TEXT NOT NULL,
    vision BOOLEAN NOT NULL,
    first TEXT NOT NULL,
    seq INTEGER NOT NULL DEFAULT 0,      -- every change but presence moves it on (actions, reveals, joins, ...)
    round INTEGER NOT NULL DEFAULT 1,    -- the game under this code (a rematch starts the next)
    phase TEXT NOT NULL DEFAULT 'waiting',  -- waiting, setup, playing, over
    seats JSONB NOT NULL,                -- {side: {"token": sha-256, "name", "kind", "player"} | null}
    setups JSONB NOT NULL DEFAULT '{}',  -- {side: the setup's record form}: hidden identities
    reveal JSONB,                        -- an announced reveal not yet played, and the actions it binds
    rematch JSONB NOT NULL DEFAULT '{}', -- {side: true}
    archive BIGINT REFERENCES hub_games(id),  -- this round's game in the hub's archive (once play starts)
    started DOUBLE PRECISION,            -- when this round's play started (the archive's created)
    away JSONB NOT NULL DEFAULT '{}'     -- {seat token hash: since when (the hub's clock, seconds)} of a
                                         -- seat with no stream open: how long it has been away
);
ALTER TABLE remote_games ADD COLUMN IF NOT EXISTS away JSONB NOT NULL DEFAULT '{}';
CREATE TABLE IF NOT EXISTS remote_tokens (
    token_hash TEXT PRIMARY KEY,         -- sha-256 of a seat token: the token itself is never stored
    game_id BIGINT NOT NULL REFERENCES remote_games(id)
);
CREATE TABLE IF NOT EXISTS remote_log (
    game_id BIGINT NOT NULL REFERENCES remote_games(id),
    seq INTEGER NOT NULL,                -- the game's seq after this entry
    round INTEGER NOT NULL,
    side TEXT NOT NULL,
    kind TEXT NOT NULL,                  -- action, reveal, end (a resignation, an abandoned game claimed)
    request JSONB NOT NULL,              -- the action (record form), or the reveal asked
    answer JSONB NOT NULL,               -- what the sender was answered (sent again to a retry)
    revealed JSONB NOT NULL DEFAULT '{}',  -- an action's: identities it made public, {space: piece}
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS remote_presence (
    game_id BIGINT NOT NULL REFERENCES remote_games(id),
    seat TEXT NOT NULL,                  -- the seat's token hash (its side changes with a rematch)
    holder TEXT NOT NULL,                -- the hub process holding a stream of the seat
    expires TIMESTAMPTZ NOT NULL,        -- renewed while the stream is open; lapsed: away
    PRIMARY KEY (game_id, seat, holder)
);
"""

PLAYERS = """
CREATE TABLE IF NOT EXISTS hub_players (
    id SERIAL PRIMARY KEY,
    code TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    mu DOUBLE PRECISION NOT NULL,
    sigma DOUBLE PRECISION NOT NULL,
    games INTEGER NOT NULL DEFAULT 0
);
"""


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def new_key() -> str:
    return "qt_" + secrets.token_urlsafe(24)


def ensure(conn) -> None:
    """Create whatever of the schema is missing (a psycopg connection; idempotent, race-safe)."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(7207)")  # two processes starting at once
        conn.execute(PLAYERS)
        conn.execute(SCHEMA)
        conn.execute(REMOTE)


async def ensure_async(conn) -> None:
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(7207)")
        await conn.execute(PLAYERS)
        await conn.execute(SCHEMA)
        await conn.execute(REMOTE)


def add_table(conn, name: str) -> str:
    """A new table and its key (only its hash is kept).  ValueError if the name is taken or empty."""
    name = name.strip()
    if not name or len(name) > 64 or not name.isprintable():
        raise ValueError("a table's name is 1 to 64 printable characters")
    key = new_key()
    ensure(conn)
    with conn.transaction():
        row = conn.execute("INSERT INTO hub_tables(name, key_hash) VALUES (%s, %s) ON CONFLICT (name) DO NOTHING "
                           "RETURNING id", (name, hash_key(key))).fetchone()
    if row is None:
        raise ValueError(f"there is already a table named {name!r}")
    return key


async def ping(conn) -> None:
    """A statement that proves the connection reaches the database (``SELECT 1``)."""
    await conn.execute("SELECT 1")


async def listen(conn) -> None:
    """Listen on this connection for the notifications of board and remote games."""
    await conn.execute(f"LISTEN {CHANNEL}")
    await conn.execute(f"LISTEN {REMOTE_CHANNEL}")
