"""The store's schema, its migrations and its connections.

One file (:data:`DB_NAME` in the data directory) holds every game the table has played; see
:data:`SCHEMA` for its tables.  :func:`migrate` brings a store written by an older version up
to this schema (every game gets a UUID, the store its table's identity).  :func:`connect`
opens it with the settings that make a commit durable (:data:`PRAGMAS`).
"""

from __future__ import annotations

import sqlite3
import uuid as _uuid
from pathlib import Path

DB_NAME = "quin.sqlite3"


def new_uuid() -> str:
    """A new game's (or table's) identity: a random UUID, the same wherever the game is copied."""
    return str(_uuid.uuid4())

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    created REAL NOT NULL,
    mode TEXT NOT NULL,
    vision INTEGER NOT NULL,
    first TEXT NOT NULL,
    white_setup TEXT,
    black_setup TEXT,
    status TEXT NOT NULL,
    result TEXT,
    finished REAL,
    uuid TEXT
);
CREATE TABLE IF NOT EXISTS seats (
    game_id INTEGER NOT NULL REFERENCES games(id),
    player TEXT NOT NULL,
    token TEXT NOT NULL,
    issued REAL NOT NULL,
    PRIMARY KEY (game_id, player)
);
CREATE TABLE IF NOT EXISTS actions (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    turn INTEGER NOT NULL,
    player TEXT NOT NULL,
    action TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS reveals (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    event TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS inputs (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    player TEXT NOT NULL,
    data TEXT NOT NULL,
    accepted INTEGER NOT NULL,
    at REAL NOT NULL,
    repeats INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE IF NOT EXISTS seat_players (
    game_id INTEGER NOT NULL REFERENCES games(id),
    player TEXT NOT NULL,
    name TEXT,
    code TEXT,
    PRIMARY KEY (game_id, player)
);
CREATE TABLE IF NOT EXISTS blackbox (
    id INTEGER PRIMARY KEY,
    game_id INTEGER,
    t REAL NOT NULL,
    occupied TEXT NOT NULL
);
"""


# What makes a commit durable: WAL with a sync of the log at every commit (FULL), so a power cut
# loses no committed transaction.  The power-cut test (tests/host/store/test_store_powercut.py) runs
# these very pragmas and the store's own statements through a file layer that loses what was
# not synced.
PRAGMAS = ("journal_mode=WAL", "synchronous=FULL", "foreign_keys=ON")


def connect(path: str | Path) -> sqlite3.Connection:
    """A connection to the store with the settings every user of it needs."""
    conn = sqlite3.connect(str(path), timeout=10, check_same_thread=False, isolation_level=None)
    conn.row_factory = sqlite3.Row
    for pragma in PRAGMAS:
        conn.execute(f"PRAGMA {pragma}")
    return conn


def connect_readonly(path: Path) -> sqlite3.Connection:
    """A connection that cannot write (commands that only read, a backup being checked)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10, check_same_thread=False,
                           isolation_level=None)
    conn.row_factory = sqlite3.Row
    return conn


def migrate(conn, tx) -> None:
    """Bring a store written by an older version up to this schema.

    ``conn``: the store's connection; ``tx()``: a write transaction on it (the store's own)."""
    columns = {r[1] for r in conn.execute("PRAGMA table_info(inputs)").fetchall()}
    if "repeats" not in columns:
        conn.execute("ALTER TABLE inputs ADD COLUMN repeats INTEGER NOT NULL DEFAULT 1")
    # Game identity: every game a UUID, the store its table's identity (made once, kept by
    # backups, salvage and a copy of the file), so a hub can tell games of many boards apart.
    columns = {r[1] for r in conn.execute("PRAGMA table_info(games)").fetchall()}
    if "uuid" not in columns:
        conn.execute("ALTER TABLE games ADD COLUMN uuid TEXT")
    fill_uuids(tx)
    conn.execute("CREATE UNIQUE INDEX IF NOT EXISTS games_uuid ON games(uuid)")
    if conn.execute("SELECT 1 FROM meta WHERE key = 'table_id'").fetchone() is None:
        conn.execute("INSERT INTO meta(key, value) VALUES ('table_id', ?)", (new_uuid(),))


def fill_uuids(tx) -> int:
    """Give every game without an identity one (an older store's games); returns how many."""
    with tx() as c:
        ids = [r[0] for r in c.execute("SELECT id FROM games WHERE uuid IS NULL").fetchall()]
        for game_id in ids:
            c.execute("UPDATE games SET uuid = ? WHERE id = ?", (new_uuid(), game_id))
    return len(ids)
