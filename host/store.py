"""The game store: SQLite in WAL mode, durable before anything is announced.

One file (``quin.sqlite3`` in the data directory) holds every game the table
has played:

- ``games``: mode, Vision, first player, both setups (once given), status
  (``setup``, ``playing``, ``over``, ``abandoned``) and the result;
- ``seats``: the seat tokens of each game (a re-issued seat revokes the old one);
- ``actions``: every committed action in order, in the record form;
- ``reveals``: the public facts each action produced (flashes, Time);
- ``inputs``: what each player sent from their phone;
- ``seat_players``: the name each player gave on their phone at setup, and the hub's player code
  if they gave one (neither is a hidden identity; the code is shown to nobody but its seat);
- ``blackbox``: a bounded ring of raw sensor snapshots, for diagnosing a
  disputed move after the fact.

:meth:`Store.commit_action` is the referee's ``on_commit`` callback: it
returns only once the action is on disk (``synchronous=FULL``), so a game
killed at any moment comes back with every action the players were told of.
:func:`resume` rebuilds a game from its stored actions through the engine.

The store is shared by the referee thread and the web threads: one connection
guarded by a lock.  Read-only pages open their own connection per request
(:func:`connect`).

Bounded by size: every input is kept as a bounded summary: whole if its JSON
is at most :data:`INPUT_SUMMARY` bytes, else its type and size only; the same
input sent again by the same player is stored once (its row counts the
repeats).  The newest :data:`INPUTS_LIMIT` input rows are kept and the black
box keeps :data:`BLACKBOX_LIMIT` snapshots (a 99-space snapshot is under
0.4 KB).  So the inputs and the black box never hold more than
:data:`DIAGNOSIS_BOUND` bytes together, whatever the phones send (tested by
trying to exceed it).  Both are written without waiting for the disk (they are
for diagnosis; the next action's durable commit carries them there).

A store that cannot be written (a read-only file, WAL or folder, a full or
failing card) raises :class:`StoreWriteError` naming what could not be written;
:meth:`Store.writable_problem` says so before anything is served.

A damaged store is reported, never a traceback: :meth:`Store.problems` says in
one line each what ``PRAGMA quick_check`` and the rows found; a row that does
not read (bad JSON, a space that does not exist) marks its game as damaged
(:attr:`GameRow.damage`) and every intact game is still served.
:func:`salvage` copies every readable game into a new store and sets the
damaged file aside; :meth:`Store.backup` keeps the last :data:`BACKUPS` copies
(SQLite's online backup) in ``backups/``, one after each finished game.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
import uuid as _uuid
from dataclasses import dataclass, field
from pathlib import Path

from engine.actions import Action, action_from_record
from engine.board import PLAYERS, SPACES, WHITE
from engine.errors import QuinError
from engine.flash import MODES
from engine.game import Game
from engine.pieces import Setup

DB_NAME = "quin.sqlite3"
BLACKBOX_LIMIT = 5000  # snapshots kept in the black box (the oldest are dropped)
INPUTS_LIMIT = 10000  # inputs kept (the oldest are dropped)
INPUT_SUMMARY = 512  # bytes of an input that are kept whole (a longer one is kept as its type and size)
# What the inputs and the black box can hold together on disk, rows at their largest with SQLite's
# page overhead (measured 7.6 MB: tests/host/test_store_bounds.py fills both past their caps).
DIAGNOSIS_BOUND = 10 * 1024 * 1024
BACKUPS = 5  # backups kept in <data dir>/backups
STATUSES = ("setup", "playing", "over", "abandoned")

log = logging.getLogger("quin.store")


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
# loses no committed transaction.  The power-cut test (tests/host/test_store_powercut.py) runs
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


@dataclass(frozen=True)
class GameRow:
    id: int
    created: float
    mode: str
    vision: bool
    first: str
    setups: dict[str, dict | None]
    status: str
    result: dict | None
    finished: float | None
    damage: str | None = None  # what of this game's row does not read ("white setup"), if anything
    uuid: str | None = None  # the game's identity wherever it is copied (None: a read-only older store)

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> "GameRow":
        """A game's row, read strictly: what does not read is named in ``damage``, never raised."""
        damage: list[str] = []

        def obj(column: str, what: str) -> dict | None:
            text = row[column]
            if text is None:
                return None
            try:
                value = json.loads(text) if isinstance(text, (str, bytes)) else None
            except (ValueError, RecursionError):
                value = None
            if not isinstance(value, dict):
                damage.append(what)
                return None
            return value

        def number(column: str, what: str, optional: bool = False) -> float | None:
            value = row[column]
            if value is None and optional:
                return None
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return float(value)
            damage.append(what)
            return 0.0 if not optional else None

        mode, first, status = row["mode"], row["first"], row["status"]
        if mode not in MODES:
            damage.append("mode")
        if first not in PLAYERS:
            damage.append("first player")
        if status not in STATUSES:
            damage.append("status")
        setups = {"white": obj("white_setup", "white setup"), "black": obj("black_setup", "black setup")}
        return cls(
            id=row["id"],
            created=number("created", "date"),
            mode=mode if mode in MODES else "classic",
            vision=row["vision"] in (1, True),
            first=first if first in PLAYERS else WHITE,
            setups=setups,
            status=status if status in STATUSES else "abandoned",
            result=obj("result", "result"),
            finished=number("finished", "finishing date", optional=True),
            damage=" and ".join(damage) or None,
            uuid=row["uuid"] if "uuid" in row.keys() and isinstance(row["uuid"], str) else None,
        )

    def check(self) -> None:
        """StoreError if the row is damaged."""
        if self.damage:
            raise StoreError(f"game {self.id} is damaged in the store (its {self.damage} does not read): "
                             "run `quin store check`", self.damage)


def parse_action_row(seq: int, text: object) -> dict:
    """A stored action's record form; StoreError naming the action if it does not read."""
    try:
        data = json.loads(text) if isinstance(text, (str, bytes)) else None
    except (ValueError, RecursionError):
        data = None
    if not isinstance(data, dict):
        raise StoreError(f"action {seq} does not read", f"action {seq}")
    return data


def parse_snapshot_row(text: object) -> list[int] | None:
    """A black-box row's occupied spaces, or None if it names anything but spaces."""
    try:
        data = json.loads(text) if isinstance(text, (str, bytes)) else None
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, list) or not all(type(s) is int and s in SPACES for s in data):
        return None
    return data


class StoreError(QuinError):
    """The store cannot do what was asked (unknown game, a record that no longer replays).

    ``where`` names the place without any detail of the game (``"action 4"``,
    ``"the setups"``): the message itself may name hidden pieces.
    """

    def __init__(self, message: str, where: str = ""):
        super().__init__(message)
        self.where = where


class StoreWriteError(sqlite3.OperationalError):
    """The store could not be written (read-only, full, failing): what, and why, in one line.

    ``where``: what could not be written and why (:func:`unwritable`), without the preamble."""

    def __init__(self, where: str):
        super().__init__(f"the game store could not be written: {where}")
        self.where = where


def unwritable(path: Path, exc: BaseException) -> str:
    """What of the store at ``path`` cannot be written, and why, in one line."""
    reason = str(exc) or type(exc).__name__
    folder = path.parent
    for what in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        if what.exists() and not os.access(what, os.W_OK):
            return f"{what} is read-only ({reason})"
    if not os.access(folder, os.W_OK):
        return f"the folder {folder} is read-only ({reason})"
    return f"{path} ({reason})"


class Store:
    """The game store.  Thread-safe: one connection, one lock."""

    def __init__(self, path: str | Path, blackbox_limit: int = BLACKBOX_LIMIT, readonly: bool = False,
                 connector=None):
        """Open (or create) the store.  StoreError in one line if the file is not a usable store.

        ``readonly``: for commands that only read (no file is created or changed).
        ``notices`` lists what the caller should tell the user (an empty file started afresh).
        ``connector(path)``: a connection like :func:`connect`'s (the power-cut test's file layer).
        A file SQLite cannot read raises StoreError with ``where == "the file"``; one it cannot
        write, StoreWriteError.
        """
        self.path = Path(path)
        self.blackbox_limit = blackbox_limit
        self.readonly = readonly
        self.notices: list[str] = []
        self._last_input: dict[tuple[int, str], tuple[int, str, int]] = {}
        self._lock = threading.RLock()
        self._last_snapshot: frozenset[int] | None = None
        if readonly:
            if not self.path.exists():
                raise StoreError(f"there is no game store at {self.path}")
            self._conn = _connect_readonly(self.path)
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.exists() and self.path.stat().st_size == 0:
            self.notices.append(
                f"the game store {self.path} was an empty file (0 bytes), so any games it held are lost: "
                f"a new store was started{_latest_backup_hint(self.path)}"
            )
        conn = None
        try:
            conn = (connector or connect)(self.path)
            conn.executescript(SCHEMA)
            self._conn = conn
            self._migrate()
        except sqlite3.Error as exc:
            if conn is not None:
                conn.close()  # nothing left open behind a store that did not open
            self._refuse(exc)

    def _refuse(self, exc: sqlite3.Error) -> None:
        """Why the store did not open: StoreWriteError, or StoreError (``where``: "the file")."""
        if isinstance(exc, sqlite3.OperationalError) and not _unreadable(exc):
            raise StoreWriteError(unwritable(self.path, exc)) from None
        if isinstance(exc, sqlite3.DatabaseError):
            raise StoreError(f"the game store {self.path} is damaged ({exc}): run `quin store salvage`",
                             "the file") from None
        raise exc

    def _migrate(self) -> None:
        """Bring a store written by an older version up to this schema."""
        columns = {r[1] for r in self._conn.execute("PRAGMA table_info(inputs)").fetchall()}
        if "repeats" not in columns:
            self._conn.execute("ALTER TABLE inputs ADD COLUMN repeats INTEGER NOT NULL DEFAULT 1")
        # Game identity: every game a UUID, the store its table's identity (made once, kept by
        # backups, salvage and a copy of the file), so a hub can tell games of many boards apart.
        columns = {r[1] for r in self._conn.execute("PRAGMA table_info(games)").fetchall()}
        if "uuid" not in columns:
            self._conn.execute("ALTER TABLE games ADD COLUMN uuid TEXT")
        self.fill_uuids()
        self._conn.execute("CREATE UNIQUE INDEX IF NOT EXISTS games_uuid ON games(uuid)")
        if self._conn.execute("SELECT 1 FROM meta WHERE key = 'table_id'").fetchone() is None:
            self._conn.execute("INSERT INTO meta(key, value) VALUES ('table_id', ?)", (new_uuid(),))

    def fill_uuids(self) -> int:
        """Give every game without an identity one (an older store's games); returns how many."""
        with self._tx() as c:
            ids = [r[0] for r in c.execute("SELECT id FROM games WHERE uuid IS NULL").fetchall()]
            for game_id in ids:
                c.execute("UPDATE games SET uuid = ? WHERE id = ?", (new_uuid(), game_id))
        return len(ids)

    @property
    def table_id(self) -> str | None:
        """This data folder's table identity (a UUID made once; None in a read-only older store)."""
        return self.meta("table_id")

    def writable_problem(self) -> str | None:
        """None if a durable write goes through now, else what cannot be written and why (one line)."""
        try:
            with self._tx() as c:
                c.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('written', ?)", (repr(time.time()),))
        except StoreWriteError as exc:
            return exc.where
        except sqlite3.Error as exc:
            return unwritable(self.path, exc)
        return None

    @classmethod
    def in_dir(cls, data_dir: str | Path, **kw) -> "Store":
        return cls(Path(data_dir) / DB_NAME, **kw)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    # --- small helpers ---------------------------------------------------------------------

    def _tx(self, durable: bool = True):
        """A write transaction; ``durable=False`` (the input log, the black box: diagnosis, not the
        game) commits without waiting for the disk; the next durable commit carries it there.
        StoreWriteError if it could not be written."""
        return _Transaction(self._conn, self._lock, durable, self.path)

    def meta(self, key: str, default: str | None = None) -> str | None:
        with self._lock:
            row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row["value"] if row else default

    def set_meta(self, key: str, value: str) -> None:
        with self._tx() as c:
            c.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    def next_epoch(self) -> int:
        """A number larger than at any earlier call on this store (one per server start)."""
        with self._tx() as c:
            row = c.execute("SELECT value FROM meta WHERE key = 'epoch'").fetchone()
            epoch = (int(row["value"]) if row and str(row["value"]).isdigit() else 0) + 1
            c.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('epoch', ?)", (str(epoch),))
        return epoch

    # --- games -------------------------------------------------------------------------------

    def new_game(self, mode: str, vision: bool, first: str, seats: dict[str, str]) -> int:
        """A game waiting for both setups, with its two seat tokens."""
        now = time.time()
        with self._tx() as c:
            cur = c.execute(
                "INSERT INTO games(created, mode, vision, first, status, uuid) VALUES (?, ?, ?, ?, 'setup', ?)",
                (now, mode, int(vision), first, new_uuid()),
            )
            game_id = cur.lastrowid
            for player, token in seats.items():
                c.execute(
                    "INSERT INTO seats(game_id, player, token, issued) VALUES (?, ?, ?, ?)",
                    (game_id, player, token, now),
                )
        return game_id

    def game(self, game_id: int) -> GameRow:
        if not 0 < game_id < 2**63:
            raise StoreError(f"no game {game_id}")
        with self._lock:
            row = self._conn.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise StoreError(f"no game {game_id}")
        return GameRow.from_row(row)

    def games(self) -> list[GameRow]:
        """Every game, newest first; a damaged row comes back with its ``damage`` named."""
        with self._lock:
            rows = self._conn.execute("SELECT * FROM games ORDER BY id DESC").fetchall()
        return [GameRow.from_row(r) for r in rows]

    def action_counts(self) -> dict[int, int]:
        with self._lock:
            rows = self._conn.execute("SELECT game_id, COUNT(*) AS n FROM actions GROUP BY game_id").fetchall()
        return {r["game_id"]: r["n"] for r in rows}

    def open_game(self) -> GameRow | None:
        """The most recent game still in setup or being played, if any."""
        with self._lock:
            row = self._conn.execute(
                "SELECT * FROM games WHERE status IN ('setup', 'playing') ORDER BY id DESC LIMIT 1"
            ).fetchone()
        return GameRow.from_row(row) if row else None

    def save_setup(self, game_id: int, player: str, setup: Setup | None) -> None:
        column = "white_setup" if player == WHITE else "black_setup"
        value = json.dumps(setup.to_record()) if setup is not None else None
        with self._tx() as c:
            c.execute(f"UPDATE games SET {column} = ? WHERE id = ?", (value, game_id))

    def save_player(self, game_id: int, player: str, name: str | None, code: str | None) -> None:
        """Who sits at ``player``'s seat in this game, as they said on their phone (both may be None)."""
        with self._tx() as c:
            c.execute("INSERT OR REPLACE INTO seat_players(game_id, player, name, code) VALUES (?, ?, ?, ?)",
                      (game_id, player, name, code))

    def players(self, game_id: int) -> dict[str, dict]:
        """{player: {"name", "code"}} of the seats that named someone (a store without the table: {})."""
        with self._lock:
            try:
                rows = self._conn.execute("SELECT player, name, code FROM seat_players WHERE game_id = ?",
                                          (game_id,)).fetchall()
            except sqlite3.OperationalError:  # a read-only older store
                return {}
        return {r["player"]: {"name": r["name"], "code": r["code"]} for r in rows
                if r["player"] in PLAYERS and (r["name"] or r["code"])}

    def start_game(self, game_id: int) -> None:
        with self._tx() as c:
            c.execute("UPDATE games SET status = 'playing' WHERE id = ?", (game_id,))

    def abandon(self, game_id: int) -> None:
        with self._tx() as c:
            cur = c.execute(
                "UPDATE games SET status = 'abandoned', finished = ? WHERE id = ? AND status IN ('setup', 'playing')",
                (time.time(), game_id),
            )
        if cur.rowcount:
            self.backup()

    # --- seats -------------------------------------------------------------------------------

    def seats(self, game_id: int) -> dict[str, str]:
        with self._lock:
            rows = self._conn.execute("SELECT player, token FROM seats WHERE game_id = ?", (game_id,)).fetchall()
        return {r["player"]: r["token"] for r in rows}

    def reissue_seat(self, game_id: int, player: str, token: str) -> None:
        with self._tx() as c:
            c.execute(
                "INSERT OR REPLACE INTO seats(game_id, player, token, issued) VALUES (?, ?, ?, ?)",
                (game_id, player, token, time.time()),
            )

    # --- actions: durable before they are announced -------------------------------------------

    def commit_action(self, game_id: int, game: Game) -> None:
        """Make the game's log durable: call after each action, before telling anyone.

        Normally this appends the one new action (and the flashes or Time it
        caused).  If the log was rewound (an undone action), the stored rows
        beyond the common prefix are replaced, so the store always equals
        ``game.log`` when this returns.
        """
        now = time.time()
        log = game.log
        with self._tx() as c:
            have = c.execute("SELECT COUNT(*) FROM actions WHERE game_id = ?", (game_id,)).fetchone()[0]
            if have == len(log) - 1:  # the usual case: one new action
                start = have
            else:
                stored = c.execute(
                    "SELECT action FROM actions WHERE game_id = ? ORDER BY seq", (game_id,)
                ).fetchall()
                start = 0
                while (
                    start < min(len(stored), len(log))
                    and json.loads(stored[start]["action"]) == log[start][2].to_record()
                ):
                    start += 1
                c.execute("DELETE FROM actions WHERE game_id = ? AND seq > ?", (game_id, start))
                c.execute("DELETE FROM reveals WHERE game_id = ?", (game_id,))
            for seq in range(start, len(log)):
                turn, player, action = log[seq]
                c.execute(
                    "INSERT INTO actions(game_id, seq, turn, player, action, at) VALUES (?, ?, ?, ?, ?, ?)",
                    (game_id, seq + 1, turn, player, json.dumps(action.to_record()), now),
                )
            events = c.execute("SELECT COUNT(*) FROM reveals WHERE game_id = ?", (game_id,)).fetchone()[0]
            for seq in range(events, len(game.events)):
                c.execute(
                    "INSERT INTO reveals(game_id, seq, event) VALUES (?, ?, ?)",
                    (game_id, seq + 1, json.dumps(game.events[seq].to_json())),
                )
            finished = game.result is not None
            if finished:
                c.execute(
                    "UPDATE games SET status = 'over', result = ?, finished = ? WHERE id = ?",
                    (json.dumps(game.result.to_json()), now, game_id),
                )
        if finished:
            self.backup()

    def actions(self, game_id: int) -> list[tuple[int, str, dict]]:
        """The stored actions of a game: (turn, player, record form), in order.

        StoreError (``where``: ``"action N"``) at the first row that does not read.
        """
        with self._lock:
            rows = self._conn.execute(
                "SELECT turn, player, action FROM actions WHERE game_id = ? ORDER BY seq", (game_id,)
            ).fetchall()
        return [(r["turn"], r["player"], parse_action_row(seq, r["action"])) for seq, r in enumerate(rows, 1)]

    def reveals(self, game_id: int) -> list[dict]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT event FROM reveals WHERE game_id = ? ORDER BY seq", (game_id,)
            ).fetchall()
        return [json.loads(r["event"]) for r in rows]

    # --- inputs and the black box ------------------------------------------------------------

    def record_input(self, game_id: int, player: str, data: object, accepted: bool) -> None:
        """Log a player's input as a bounded summary; the same input again from the same player
        (say one word sent over and over) adds to its row's count instead of a new row."""
        text = input_summary(data)
        key = (game_id, player)
        last = self._last_input.get(key)
        with self._tx(durable=False) as c:
            if last is not None and last[1:] == (text, int(accepted)):
                cur = c.execute("UPDATE inputs SET repeats = repeats + 1, at = ? WHERE id = ?", (time.time(), last[0]))
                if cur.rowcount:
                    return
            cur = c.execute(
                "INSERT INTO inputs(game_id, player, data, accepted, at) VALUES (?, ?, ?, ?, ?)",
                (game_id, player, text, int(accepted), time.time()),
            )
            c.execute("DELETE FROM inputs WHERE id <= ?", (cur.lastrowid - INPUTS_LIMIT,))
            self._last_input[key] = (cur.lastrowid, text, int(accepted))

    def inputs(self, game_id: int) -> list[dict]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT player, data, accepted, at, repeats FROM inputs WHERE game_id = ? ORDER BY id", (game_id,)
            ).fetchall()
        out = []
        for r in rows:
            try:
                data = json.loads(r["data"])
            except (TypeError, ValueError, RecursionError):
                continue  # a damaged row: the log is for diagnosis, the game does not depend on it
            out.append({"player": r["player"], "data": data, "accepted": bool(r["accepted"]), "at": r["at"],
                        "repeats": r["repeats"] if isinstance(r["repeats"], int) else 1})
        return out

    def record_snapshot(self, game_id: int | None, t: float, occupied: frozenset[int]) -> bool:
        """Keep a raw snapshot in the black box if the occupancy changed.  True if kept."""
        if occupied == self._last_snapshot:
            return False
        with self._tx(durable=False) as c:
            cur = c.execute(
                "INSERT INTO blackbox(game_id, t, occupied) VALUES (?, ?, ?)",
                (game_id, t, json.dumps(sorted(occupied))),
            )
            c.execute("DELETE FROM blackbox WHERE id <= ?", (cur.lastrowid - self.blackbox_limit,))
        self._last_snapshot = occupied  # only once kept: a refused one is tried again
        return True

    def blackbox(self, limit: int = 100) -> list[dict]:
        """The most recent readable snapshots, oldest first (a damaged row is passed over)."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT game_id, t, occupied FROM blackbox ORDER BY id DESC LIMIT ?", (limit,)
            ).fetchall()
        out = []
        for r in reversed(rows):
            occupied = parse_snapshot_row(r["occupied"])
            if occupied is not None and isinstance(r["t"], (int, float)):
                out.append({"game": r["game_id"], "t": r["t"], "occupied": occupied})
        return out

    # --- rebuilding games ---------------------------------------------------------------------

    def load_game(self, game_id: int) -> Game:
        """Rebuild a game by replaying its stored actions through the engine."""
        row = self.game(game_id)
        row.check()
        if row.setups["white"] is None or row.setups["black"] is None:
            raise StoreError(f"game {game_id} has not started (setups missing)")
        try:
            setups = {p: Setup.from_record(p, row.setups[p]) for p in PLAYERS}
            game = Game(setups["white"], setups["black"], row.mode, row.vision, row.first)
        except QuinError as exc:
            raise StoreError(f"game {game_id}: stored setup no longer valid: {exc}", "the setups") from None
        try:
            stored = self.actions(game_id)
        except StoreError as exc:
            raise StoreError(f"game {game_id} is damaged in the store: its {exc}: run `quin store check`",
                             exc.where) from None
        for seq, (turn, player, data) in enumerate(stored, 1):
            try:
                action: Action = action_from_record(data)
                if player != game.to_move or turn != game.turn:
                    raise StoreError(f"stored as turn {turn} by {player}, but it is turn {game.turn}, {game.to_move} to move")
                game.push(action)
            except QuinError as exc:
                raise StoreError(f"game {game_id}, action {seq}: {exc}", f"action {seq}") from None
        return game

    def record(self, game_id: int) -> dict:
        """The ``quin-record/1`` record of a game (finished or not); StoreError if it never started."""
        from engine.record import to_record

        row = self.game(game_id)
        row.check()
        if row.setups["white"] is None or row.setups["black"] is None:
            raise StoreError(f"game {game_id} never started (the setups were not both given): there is no record")
        return to_record(self.load_game(game_id))


    # --- checking, backing up -------------------------------------------------------------------

    def problems(self, replay: bool = True) -> list[str]:
        """What is damaged, one line each (empty: the store is sound).  ``replay``: replay every game."""
        out: list[str] = []
        try:
            with self._lock:
                found = [r[0] for r in self._conn.execute("PRAGMA quick_check(20)").fetchall()]
            if found != ["ok"]:
                out.append(f"the file's structure is damaged: {'; '.join(map(str, found[:3]))}")
            games = self.games()
        except sqlite3.DatabaseError as exc:
            return out + [f"the file does not read as a game store ({exc})"]
        for g in games:
            if g.damage:
                out.append(f"game {g.id}: its {g.damage} does not read")
                continue
            try:
                self.actions(g.id)
                if replay and g.setups["white"] is not None and g.setups["black"] is not None:
                    self.load_game(g.id)
            except StoreError as exc:
                # never the engine's words: they may name hidden pieces
                out.append(f"game {g.id}: its stored {exc.where or 'data'} no longer replays")
            except sqlite3.DatabaseError as exc:
                out.append(f"game {g.id}: its actions do not read ({exc})")
        try:
            with self._lock:
                rows = self._conn.execute("SELECT occupied FROM blackbox").fetchall()
            bad = sum(parse_snapshot_row(r[0]) is None for r in rows)
            if bad:
                out.append(f"the black box: {bad} snapshot(s) do not read (they are passed over)")
        except sqlite3.DatabaseError as exc:
            out.append(f"the black box does not read ({exc})")
        return out

    def structure_ok(self) -> bool:
        """PRAGMA quick_check finds the file sound."""
        try:
            with self._lock:
                return [r[0] for r in self._conn.execute("PRAGMA quick_check(1)").fetchall()] == ["ok"]
        except sqlite3.DatabaseError:
            return False

    def backup(self) -> Path | None:
        """Copy the store (SQLite's online backup) into ``backups/``; keep the newest :data:`BACKUPS`.

        Never fails the caller: a backup that cannot be made is logged in one line.
        """
        if self.readonly:
            return None
        folder = self.path.parent / "backups"
        target = folder / f"quin-{time.strftime('%Y%m%d-%H%M%S')}-{time.time_ns() % 10**9:09d}.sqlite3"
        try:
            folder.mkdir(exist_ok=True)
            dest = sqlite3.connect(str(target))
            try:
                with self._lock:
                    self._conn.backup(dest)
            finally:
                dest.close()
            for old in sorted(folder.glob("quin-*.sqlite3"))[:-BACKUPS]:
                old.unlink()
            return target
        except (OSError, sqlite3.Error) as exc:
            log.warning("the store could not be backed up to %s: %s", folder, exc)
            return None


def input_summary(data: object) -> str:
    """What is kept of an input: its JSON if at most INPUT_SUMMARY bytes, else its type and size."""
    text = json.dumps(data)
    if len(text) <= INPUT_SUMMARY:
        return text
    kind = data.get("type") if isinstance(data, dict) else None
    return json.dumps({"summary": True, "bytes": len(text),
                       "type": kind if isinstance(kind, str) and len(kind) <= 32 else None})


def _unreadable(exc: sqlite3.Error) -> bool:
    """Does this error say the file is not a database (damage), rather than that it cannot be written?"""
    text = str(exc).lower()
    return "not a database" in text or "malformed" in text or "corrupt" in text


def _connect_readonly(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10, check_same_thread=False,
                           isolation_level=None)
    conn.row_factory = sqlite3.Row
    return conn


def _latest_backup_hint(path: Path) -> str:
    backups = sorted((path.parent / "backups").glob("quin-*.sqlite3"))
    return f" (the latest backup is {backups[-1]})" if backups else ""


@dataclass
class Salvage:
    kept: list[int]  # every game in the new store
    lost: list[int]  # games the damaged file names that no source held whole
    aside: Path  # the damaged file, set aside
    from_file: list[int] = field(default_factory=list)  # copied from the damaged file
    from_backup: list[int] = field(default_factory=list)  # copied from the backup (the file did not yield them)
    backup: Path | None = None  # the backup used, if any game came from it

    def describe(self) -> str:
        """One line: how many games were kept, which came from where, which are lost."""
        parts = [f"{len(self.kept)} game(s) copied into a new store"]
        if self.from_backup:
            parts.append(f"game(s) {_ids(self.from_file) or 'none'} from the damaged file, "
                         f"game(s) {_ids(self.from_backup)} from the backup {self.backup}")
        if self.lost:
            parts.append(f"game(s) {_ids(self.lost)} could not be read")
        return "; ".join(parts) + f"; the damaged file is kept as {self.aside}"


def _ids(ids: list[int]) -> str:
    return ", ".join(map(str, ids))


def readable_backups(path: Path) -> list[Path]:
    """The backups beside the store at ``path`` that open and pass SQLite's check, newest first."""
    out = []
    for candidate in sorted((path.parent / "backups").glob("quin-*.sqlite3"), reverse=True):
        try:
            conn = _connect_readonly(candidate)
            try:
                ok = [r[0] for r in conn.execute("PRAGMA quick_check(1)").fetchall()] == ["ok"]
                conn.execute("SELECT COUNT(*) FROM games").fetchone()
            finally:
                conn.close()
        except sqlite3.Error:
            continue
        if ok:
            out.append(candidate)
    return out


def salvage(path: str | Path) -> Salvage:
    """Copy every game that still reads and replays into a new store; set the damaged file aside.

    A game the damaged file does not yield whole (or a file SQLite cannot open at all) is taken
    from the newest backup that reads, if it holds it.  The caller holds the data folder (no
    server may use the store meanwhile).
    """
    path = Path(path)
    fresh = path.with_name(path.name + ".salvaging")
    for leftover in (fresh, Path(f"{fresh}-wal"), Path(f"{fresh}-shm")):
        leftover.unlink(missing_ok=True)
    src = sqlite3.connect(str(path), timeout=10)
    src.row_factory = sqlite3.Row
    backups = readable_backups(path)
    bk = _connect_readonly(backups[0]) if backups else None
    result = Salvage([], [], path, backup=None)
    dst = Store(fresh)
    try:
        sources = [src] + ([bk] if bk is not None else [])
        for conn in reversed(sources):  # the file's settings (the host key) win over the backup's
            for row in _readable(conn, "SELECT key, value FROM meta"):
                if row["key"] not in ("epoch", "written"):
                    dst.set_meta(row["key"], str(row["value"]))
        epoch = max([int(r["value"]) for conn in sources
                     for r in _readable(conn, "SELECT value FROM meta WHERE key = 'epoch'")
                     if str(r["value"]).isdigit()] or [0])
        dst.set_meta("epoch", str(epoch))  # stream ids keep growing across the salvage
        in_file = _game_ids(src)
        in_backup = _game_ids(bk) if bk is not None else []
        for game_id in sorted(set(in_file) | set(in_backup)):
            if game_id in in_file and _copy_game(src, dst, game_id):
                result.from_file.append(game_id)
            elif game_id in in_backup and _copy_game(bk, dst, game_id):
                result.from_backup.append(game_id)
            elif game_id in in_file:
                result.lost.append(game_id)
        result.kept = sorted(result.from_file + result.from_backup)
        dst.fill_uuids()  # games from an older file get their identity here
        if result.from_backup:
            result.backup = backups[0]
        for conn in sources:
            rows = [r for r in _readable(conn, "SELECT id, game_id, t, occupied FROM blackbox ORDER BY id")
                    if parse_snapshot_row(r["occupied"]) is not None and isinstance(r["t"], (int, float))]
            if rows:
                with dst._tx() as c:
                    for r in rows:
                        c.execute("INSERT INTO blackbox(id, game_id, t, occupied) VALUES (?, ?, ?, ?)", tuple(r))
                break
    finally:
        src.close()
        if bk is not None:
            bk.close()
        dst.close()
    aside = path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
    os.replace(path, aside)
    for suffix in ("-wal", "-shm"):
        side = Path(f"{path}{suffix}")
        if side.exists():
            os.replace(side, Path(f"{aside}{suffix}"))
    os.replace(fresh, path)
    for suffix in ("-wal", "-shm"):
        Path(f"{fresh}{suffix}").unlink(missing_ok=True)
    _sync_folder(path.parent)  # the renames reach the card before anything is written to the new store
    result.aside = aside
    return result


def _sync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # a file system that cannot sync a folder: the renames are still made
    finally:
        os.close(fd)


def _readable(conn, sql: str, args: tuple = ()) -> list:
    if conn is None:
        return []
    try:
        return conn.execute(sql, args).fetchall()
    except sqlite3.DatabaseError:
        return []


def _game_ids(conn: sqlite3.Connection) -> list[int]:
    ids = [r[0] for r in _readable(conn, "SELECT id FROM games ORDER BY id")]
    if ids:
        return ids
    # The table does not read as a whole: look for each game number the actions mention.
    top = _readable(conn, "SELECT MAX(game_id) FROM actions") or [(0,)]
    return [i for i in range(1, (top[0][0] or 0) + 1) if _readable(conn, "SELECT id FROM games WHERE id = ?", (i,))]


def _copy_game(src: sqlite3.Connection, dst: Store, game_id: int) -> bool:
    """Copy one game if every row of it reads and it replays; False if not."""
    try:
        row = src.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
        game = GameRow.from_row(row)
        if game.damage:
            return False
        seats = src.execute("SELECT * FROM seats WHERE game_id = ?", (game_id,)).fetchall()
        actions = src.execute("SELECT * FROM actions WHERE game_id = ? ORDER BY seq", (game_id,)).fetchall()
        reveals = src.execute("SELECT * FROM reveals WHERE game_id = ? ORDER BY seq", (game_id,)).fetchall()
        inputs = _readable(src, "SELECT * FROM inputs WHERE game_id = ? ORDER BY id", (game_id,))
        players = _readable(src, "SELECT * FROM seat_players WHERE game_id = ?", (game_id,))  # an older store: none
        for seq, a in enumerate(actions, 1):
            parse_action_row(seq, a["action"])
    except (sqlite3.DatabaseError, StoreError):
        return False
    with dst._tx() as c:
        c.execute(f"INSERT INTO games({', '.join(row.keys())}) VALUES ({', '.join('?' * len(row.keys()))})", tuple(row))
        for table, rows in (("seats", seats), ("actions", actions), ("reveals", reveals), ("inputs", inputs),
                            ("seat_players", players)):
            for r in rows:  # by column name: an older store's inputs lack the newer columns
                names = r.keys()
                c.execute(f"INSERT INTO {table}({', '.join(names)}) VALUES ({', '.join('?' * len(names))})", tuple(r))
    if game.setups["white"] is not None and game.setups["black"] is not None:
        try:
            dst.load_game(game_id)
        except StoreError:
            with dst._tx() as c:
                for table in ("seat_players", "inputs", "reveals", "actions", "seats"):
                    c.execute(f"DELETE FROM {table} WHERE game_id = ?", (game_id,))
                c.execute("DELETE FROM games WHERE id = ?", (game_id,))
            return False
    return True


class _Transaction:
    """``with store._tx() as c``: one IMMEDIATE transaction under the store's lock.

    A write the file refuses (read-only, full, an I/O error) leaves as :class:`StoreWriteError`."""

    def __init__(self, conn, lock: threading.RLock, durable: bool = True, path: Path | None = None):
        self.conn = conn
        self.lock = lock
        self.durable = durable
        self.path = path

    def __enter__(self):
        self.lock.acquire()
        try:
            self.conn.execute("PRAGMA synchronous=FULL" if self.durable else "PRAGMA synchronous=NORMAL")
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            self._restore()
            self.lock.release()
            raise self._unwritten(exc) from None
        except BaseException:
            self._restore()
            self.lock.release()
            raise
        return self.conn

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            if exc_type is None:
                try:
                    self.conn.execute("COMMIT")
                except sqlite3.OperationalError as failed:
                    self._rollback()
                    raise self._unwritten(failed) from None
            else:
                self._rollback()
                if isinstance(exc, sqlite3.OperationalError) and not isinstance(exc, StoreWriteError):
                    raise self._unwritten(exc) from None
        finally:
            self._restore()
            self.lock.release()

    def _rollback(self) -> None:
        try:
            self.conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass  # no transaction left to roll back (SQLite ended it on the error)

    def _unwritten(self, exc: sqlite3.OperationalError) -> BaseException:
        if _unreadable(exc):
            return exc
        where = unwritable(self.path, exc) if self.path is not None else str(exc)
        return StoreWriteError(where)

    def _restore(self) -> None:
        if not self.durable:
            try:
                self.conn.execute("PRAGMA synchronous=FULL")
            except sqlite3.Error:
                pass
