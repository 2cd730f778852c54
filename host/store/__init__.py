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
import os
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from engine.board import WHITE
from engine.game import Game
from engine.pieces import Setup

from . import schema
from .schema import DB_NAME, PRAGMAS, SCHEMA, connect, connect_readonly, new_uuid  # noqa: F401
from .errors import StoreError, StoreWriteError, unreadable, unwritable
from .transaction import Transaction
from . import backups, check
from .backups import BACKUPS, latest_backup_hint, readable_backups  # noqa: F401
from .replay import Replay, replay_readable, replay_stored  # noqa: F401
from .records import INPUT_SUMMARY, STATUSES, GameRow, input_summary, parse_action_row, parse_snapshot_row  # noqa: F401

BLACKBOX_LIMIT = 5000  # snapshots kept in the black box (the oldest are dropped)
INPUTS_LIMIT = 10000  # inputs kept (the oldest are dropped)
# What the inputs and the black box can hold together on disk, rows at their largest with SQLite's
# page overhead (measured 7.6 MB: tests/host/store/test_store_bounds.py fills both past their caps).
DIAGNOSIS_BOUND = 10 * 1024 * 1024



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
        return Transaction(self._conn, self._lock, durable, self.path)

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
                (now, mode, int(vision), first, schema.new_uuid()),
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
        return replay_stored(self.game(game_id), lambda: self.actions(game_id))

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
        return backups.backup(self._conn, self._lock, self.path)


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
    bk = connect_readonly(backups[0]) if backups else None
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
        for seq, a in enumerate(actions, 1):
            parse_action_row(seq, a["action"])
    except (sqlite3.DatabaseError, StoreError):
        return False
    with dst._tx() as c:
        c.execute(f"INSERT INTO games({', '.join(row.keys())}) VALUES ({', '.join('?' * len(row.keys()))})", tuple(row))
        for table, rows in (("seats", seats), ("actions", actions), ("reveals", reveals), ("inputs", inputs)):
            for r in rows:  # by column name: an older store's inputs lack the newer columns
                names = r.keys()
                c.execute(f"INSERT INTO {table}({', '.join(names)}) VALUES ({', '.join('?' * len(names))})", tuple(r))
    if game.setups["white"] is not None and game.setups["black"] is not None:
        try:
            dst.load_game(game_id)
        except StoreError:
            with dst._tx() as c:
                for table in ("inputs", "reveals", "actions", "seats"):
                    c.execute(f"DELETE FROM {table} WHERE game_id = ?", (game_id,))
                c.execute("DELETE FROM games WHERE id = ?", (game_id,))
            return False
    return True
