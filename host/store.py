"""The game store: SQLite in WAL mode, durable before anything is announced.

One file (``quin.sqlite3`` in the data directory) holds every game the table
has played:

- ``games``: mode, Vision, first player, both setups (once given), status
  (``setup``, ``playing``, ``over``, ``abandoned``) and the result;
- ``seats``: the seat tokens of each game (a re-issued seat revokes the old one);
- ``actions``: every committed action in order, in the record form;
- ``reveals``: the public facts each action produced (flashes, Time);
- ``inputs``: what each player sent from their phone;
- ``blackbox``: a bounded ring of raw sensor snapshots, for diagnosing a
  disputed move after the fact.

:meth:`Store.commit_action` is the referee's ``on_commit`` callback: it
returns only once the action is on disk (``synchronous=FULL``), so a game
killed at any moment comes back with every action the players were told of.
:func:`resume` rebuilds a game from its stored actions through the engine.

The store is shared by the referee thread and the web threads: one connection
guarded by a lock.  Read-only pages open their own connection per request
(:func:`connect`).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from engine.actions import Action, action_from_record
from engine.board import PLAYERS, WHITE
from engine.errors import QuinError
from engine.game import Game
from engine.pieces import Setup

DB_NAME = "quin.sqlite3"
BLACKBOX_LIMIT = 5000  # snapshots kept in the black box (the oldest are dropped)

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
    finished REAL
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
    at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS blackbox (
    id INTEGER PRIMARY KEY,
    game_id INTEGER,
    t REAL NOT NULL,
    occupied TEXT NOT NULL
);
"""


def connect(path: str | Path) -> sqlite3.Connection:
    """A connection to the store with the settings every user of it needs."""
    conn = sqlite3.connect(str(path), timeout=10, check_same_thread=False, isolation_level=None)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA foreign_keys=ON")
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

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> "GameRow":
        return cls(
            id=row["id"],
            created=row["created"],
            mode=row["mode"],
            vision=bool(row["vision"]),
            first=row["first"],
            setups={
                "white": json.loads(row["white_setup"]) if row["white_setup"] else None,
                "black": json.loads(row["black_setup"]) if row["black_setup"] else None,
            },
            status=row["status"],
            result=json.loads(row["result"]) if row["result"] else None,
            finished=row["finished"],
        )


class StoreError(QuinError):
    """The store cannot do what was asked (unknown game, a record that no longer replays).

    ``where`` names the place without any detail of the game (``"action 4"``,
    ``"the setups"``): the message itself may name hidden pieces.
    """

    def __init__(self, message: str, where: str = ""):
        super().__init__(message)
        self.where = where


class Store:
    """The game store.  Thread-safe: one connection, one lock."""

    def __init__(self, path: str | Path, blackbox_limit: int = BLACKBOX_LIMIT):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.blackbox_limit = blackbox_limit
        self._lock = threading.RLock()
        self._conn = connect(self.path)
        self._conn.executescript(SCHEMA)
        self._last_snapshot: frozenset[int] | None = None

    @classmethod
    def in_dir(cls, data_dir: str | Path, **kw) -> "Store":
        return cls(Path(data_dir) / DB_NAME, **kw)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    # --- small helpers ---------------------------------------------------------------------

    def _tx(self):
        return _Transaction(self._conn, self._lock)

    def meta(self, key: str, default: str | None = None) -> str | None:
        with self._lock:
            row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row["value"] if row else default

    def set_meta(self, key: str, value: str) -> None:
        with self._tx() as c:
            c.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    # --- games -------------------------------------------------------------------------------

    def new_game(self, mode: str, vision: bool, first: str, seats: dict[str, str]) -> int:
        """A game waiting for both setups, with its two seat tokens."""
        now = time.time()
        with self._tx() as c:
            cur = c.execute(
                "INSERT INTO games(created, mode, vision, first, status) VALUES (?, ?, ?, ?, 'setup')",
                (now, mode, int(vision), first),
            )
            game_id = cur.lastrowid
            for player, token in seats.items():
                c.execute(
                    "INSERT INTO seats(game_id, player, token, issued) VALUES (?, ?, ?, ?)",
                    (game_id, player, token, now),
                )
        return game_id

    def game(self, game_id: int) -> GameRow:
        with self._lock:
            row = self._conn.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise StoreError(f"no game {game_id}")
        return GameRow.from_row(row)

    def games(self) -> list[GameRow]:
        with self._lock:
            rows = self._conn.execute("SELECT * FROM games ORDER BY id DESC").fetchall()
        return [GameRow.from_row(r) for r in rows]

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

    def start_game(self, game_id: int) -> None:
        with self._tx() as c:
            c.execute("UPDATE games SET status = 'playing' WHERE id = ?", (game_id,))

    def abandon(self, game_id: int) -> None:
        with self._tx() as c:
            c.execute(
                "UPDATE games SET status = 'abandoned', finished = ? WHERE id = ? AND status IN ('setup', 'playing')",
                (time.time(), game_id),
            )

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
            if game.result is not None:
                c.execute(
                    "UPDATE games SET status = 'over', result = ?, finished = ? WHERE id = ?",
                    (json.dumps(game.result.to_json()), now, game_id),
                )

    def actions(self, game_id: int) -> list[tuple[int, str, dict]]:
        """The stored actions of a game: (turn, player, record form), in order."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT turn, player, action FROM actions WHERE game_id = ? ORDER BY seq", (game_id,)
            ).fetchall()
        return [(r["turn"], r["player"], json.loads(r["action"])) for r in rows]

    def reveals(self, game_id: int) -> list[dict]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT event FROM reveals WHERE game_id = ? ORDER BY seq", (game_id,)
            ).fetchall()
        return [json.loads(r["event"]) for r in rows]

    # --- inputs and the black box ------------------------------------------------------------

    def record_input(self, game_id: int, player: str, data: object, accepted: bool) -> None:
        with self._tx() as c:
            c.execute(
                "INSERT INTO inputs(game_id, player, data, accepted, at) VALUES (?, ?, ?, ?, ?)",
                (game_id, player, json.dumps(data), int(accepted), time.time()),
            )

    def inputs(self, game_id: int) -> list[dict]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT player, data, accepted, at FROM inputs WHERE game_id = ? ORDER BY id", (game_id,)
            ).fetchall()
        return [
            {"player": r["player"], "data": json.loads(r["data"]), "accepted": bool(r["accepted"]), "at": r["at"]}
            for r in rows
        ]

    def record_snapshot(self, game_id: int | None, t: float, occupied: frozenset[int]) -> bool:
        """Keep a raw snapshot in the black box if the occupancy changed.  True if kept."""
        if occupied == self._last_snapshot:
            return False
        self._last_snapshot = occupied
        with self._tx() as c:
            cur = c.execute(
                "INSERT INTO blackbox(game_id, t, occupied) VALUES (?, ?, ?)",
                (game_id, t, json.dumps(sorted(occupied))),
            )
            c.execute("DELETE FROM blackbox WHERE id <= ?", (cur.lastrowid - self.blackbox_limit,))
        return True

    def blackbox(self, limit: int = 100) -> list[dict]:
        """The most recent snapshots, oldest first."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT game_id, t, occupied FROM blackbox ORDER BY id DESC LIMIT ?", (limit,)
            ).fetchall()
        return [{"game": r["game_id"], "t": r["t"], "occupied": json.loads(r["occupied"])} for r in reversed(rows)]

    # --- rebuilding games ---------------------------------------------------------------------

    def load_game(self, game_id: int) -> Game:
        """Rebuild a game by replaying its stored actions through the engine."""
        row = self.game(game_id)
        if row.setups["white"] is None or row.setups["black"] is None:
            raise StoreError(f"game {game_id} has not started (setups missing)")
        try:
            setups = {p: Setup.from_record(p, row.setups[p]) for p in PLAYERS}
            game = Game(setups["white"], setups["black"], row.mode, row.vision, row.first)
        except QuinError as exc:
            raise StoreError(f"game {game_id}: stored setup no longer valid: {exc}", "the setups") from None
        for seq, (turn, player, data) in enumerate(self.actions(game_id), 1):
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
        if row.setups["white"] is None or row.setups["black"] is None:
            raise StoreError(f"game {game_id} never started (the setups were not both given): there is no record")
        return to_record(self.load_game(game_id))


class _Transaction:
    """``with store._tx() as c``: one IMMEDIATE transaction under the store's lock."""

    def __init__(self, conn: sqlite3.Connection, lock: threading.RLock):
        self.conn = conn
        self.lock = lock

    def __enter__(self) -> sqlite3.Connection:
        self.lock.acquire()
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except BaseException:
            self.lock.release()
            raise
        return self.conn

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            self.conn.execute("ROLLBACK" if exc_type else "COMMIT")
        finally:
            self.lock.release()
