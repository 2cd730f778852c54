"""The store itself: one SQLite connection and one lock, shared by the referee thread and the web
threads, and every write made as a game is played.

:meth:`Store.commit_action` is the referee's ``on_commit`` callback: it returns only once the
action is on disk (``synchronous=FULL``), so a game killed at any moment comes back with every
action the players were told of; :meth:`Store.load_game` rebuilds it (:mod:`.replay`).

Bounded by size: every input is kept as a bounded summary (:func:`.records.input_summary`); the
same input sent again by the same player is stored once (its row counts the repeats).  The newest
:data:`INPUTS_LIMIT` input rows are kept and the black box keeps :data:`BLACKBOX_LIMIT` snapshots
(a 99-space snapshot is under 0.4 KB).  So the inputs and the black box never hold more than
:data:`DIAGNOSIS_BOUND` bytes together, whatever the phones send (tested by trying to exceed it).
Both are written without waiting for the disk (they are for diagnosis; the next action's durable
commit carries them there).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

from engine.board import WHITE
from engine.game import Game
from engine.pieces import Setup
from host.clock import REAL, Clock

from . import backups, check, schema
from .backups import latest_backup_hint
from .errors import StoreError, StoreWriteError, unreadable, unwritable
from .reader import CLOCKS_KEY, CONTROL_KEY, Reader
from .records import input_summary
from .schema import DB_NAME, SCHEMA, connect, connect_readonly
from .transaction import Transaction

BLACKBOX_LIMIT = 5000  # snapshots kept in the black box (the oldest are dropped)
INPUTS_LIMIT = 10000  # inputs kept (the oldest are dropped)
# What the inputs and the black box can hold together on disk, rows at their largest with SQLite's
# page overhead (measured 7.6 MB: tests/host/store/test_store_bounds.py fills both past their caps).
DIAGNOSIS_BOUND = 10 * 1024 * 1024


class Store(Reader):
    """The game store.  Thread-safe: one connection, one lock."""

    def __init__(self, path: str | Path, blackbox_limit: int = BLACKBOX_LIMIT, readonly: bool = False,
                 connector=None, clock: Clock = REAL):
        """Open (or create) the store.  StoreError in one line if the file is not a usable store.

        ``readonly``: for commands that only read (no file is created or changed).
        ``notices`` lists what the caller should tell the user (an empty file started afresh).
        ``connector(path)``: a connection like :func:`connect`'s (the power-cut test's file layer).
        ``clock`` (``host.clock``): its ``wall()`` stamps the rows and names the backups.
        A file SQLite cannot read raises StoreError with ``where == "the file"``; one it cannot
        write, StoreWriteError.
        """
        self.path = Path(path)
        self.clock = clock
        self.blackbox_limit = blackbox_limit
        self.readonly = readonly
        self.notices: list[str] = []
        self._last_input: dict[tuple[int, str], tuple[int, str, int]] = {}
        self._lock = threading.RLock()
        self._last_snapshot: frozenset[int] | None = None
        if readonly:
            if not self.path.exists():
                raise StoreError(f"there is no game store at {self.path}")
            self._conn = connect_readonly(self.path)
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.exists() and self.path.stat().st_size == 0:
            self.notices.append(
                f"the game store {self.path} was an empty file (0 bytes), so any games it held are lost: "
                f"a new store was started{latest_backup_hint(self.path)}"
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
        if isinstance(exc, sqlite3.OperationalError) and not unreadable(exc):
            raise StoreWriteError(unwritable(self.path, exc)) from None
        if isinstance(exc, sqlite3.DatabaseError):
            raise StoreError(f"the game store {self.path} is damaged ({exc}): run `quin store salvage`",
                             "the file") from None
        raise exc

    def _migrate(self) -> None:
        """Bring a store written by an older version up to this schema."""
        schema.migrate(self._conn, self._tx)

    def fill_uuids(self) -> int:
        """Give every game without an identity one (an older store's games); returns how many."""
        return schema.fill_uuids(self._tx)

    def writable_problem(self) -> str | None:
        """None if a durable write goes through now, else what cannot be written and why (one line)."""
        try:
            with self._tx() as c:
                c.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('written', ?)", (repr(self.clock.wall()),))
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
        return Transaction(self._conn, self._lock, durable, self.path)

    def set_meta(self, key: str, value: str) -> None:
        with self._tx() as c:
            c.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    def set_control(self, game_id: int, text: str) -> None:
        """A new game's time control (``25+10``; host.match.clock): read back by :meth:`control`."""
        self.set_meta(CONTROL_KEY.format(game_id), text)

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
        now = self.clock.wall()
        with self._tx() as c:
            cur = c.execute(
                "INSERT INTO games(created, mode, vision, first, status, uuid) VALUES (?, ?, ?, ?, 'setup', ?)",
                (now, mode, int(vision), first, schema.new_uuid()),
            )
            game_id = cur.lastrowid
            for player, token in seats.items():
                c.execute(
                    "INSERT INTO seats(game_id, player, token, issued) VALUES (?, ?, ?, ?)",
                    (game_id, player, token, now),
                )
        return game_id

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

    def start_game(self, game_id: int) -> None:
        with self._tx() as c:
            c.execute("UPDATE games SET status = 'playing' WHERE id = ?", (game_id,))

    def abandon(self, game_id: int) -> None:
        with self._tx() as c:
            cur = c.execute(
                "UPDATE games SET status = 'abandoned', finished = ? WHERE id = ? AND status IN ('setup', 'playing')",
                (self.clock.wall(), game_id),
            )
        if cur.rowcount:
            self.backup()

    # --- seats -------------------------------------------------------------------------------

    def reissue_seat(self, game_id: int, player: str, token: str) -> None:
        with self._tx() as c:
            c.execute(
                "INSERT OR REPLACE INTO seats(game_id, player, token, issued) VALUES (?, ?, ?, ?)",
                (game_id, player, token, self.clock.wall()),
            )

    # --- actions: durable before they are announced -------------------------------------------

    def commit_action(self, game_id: int, game: Game, clock: dict | None = None) -> None:
        """Make the game's log durable: call after each action, before telling anyone.

        Normally this appends the one new action (and the flashes or Time it
        caused).  If the log was rewound (an undone action), the stored rows
        beyond the common prefix are replaced, so the store always equals
        ``game.log`` when this returns.
        """
        now = self.clock.wall()
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
            if clock is not None:  # the game clocks as they stand after it (host.match.clock's saved())
                c.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                          (CLOCKS_KEY.format(game_id), json.dumps(clock)))
            finished = game.result is not None
            if finished:
                c.execute(
                    "UPDATE games SET status = 'over', result = ?, finished = ? WHERE id = ?",
                    (json.dumps(game.result.to_json()), now, game_id),
                )
        if finished:
            self.backup()

    # --- inputs and the black box ------------------------------------------------------------

    def record_input(self, game_id: int, player: str, data: object, accepted: bool) -> None:
        """Log a player's input as a bounded summary; the same input again from the same player
        (say one word sent over and over) adds to its row's count instead of a new row."""
        text = input_summary(data)
        key = (game_id, player)
        last = self._last_input.get(key)
        with self._tx(durable=False) as c:
            if last is not None and last[1:] == (text, int(accepted)):
                cur = c.execute("UPDATE inputs SET repeats = repeats + 1, at = ? WHERE id = ?", (self.clock.wall(), last[0]))
                if cur.rowcount:
                    return
            cur = c.execute(
                "INSERT INTO inputs(game_id, player, data, accepted, at) VALUES (?, ?, ?, ?, ?)",
                (game_id, player, text, int(accepted), self.clock.wall()),
            )
            c.execute("DELETE FROM inputs WHERE id <= ?", (cur.lastrowid - INPUTS_LIMIT,))
            self._last_input[key] = (cur.lastrowid, text, int(accepted))

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

    # --- checking, backing up -------------------------------------------------------------------

    def problems(self, replay: bool = True) -> list[str]:
        """What is damaged, one line each (empty: the store is sound).  ``replay``: replay every game."""
        return check.problems(self, replay)

    def structure_ok(self) -> bool:
        """PRAGMA quick_check finds the file sound."""
        return check.structure_ok(self)

    def backup(self) -> Path | None:
        """Copy the store (SQLite's online backup) into ``backups/``; keep the newest :data:`BACKUPS`.

        Never fails the caller: a backup that cannot be made is logged in one line.
        """
        if self.readonly:
            return None
        return backups.backup(self._conn, self._lock, self.path, self.clock)
