"""Salvaging a damaged store: every game that still reads and replays goes into a new store.

A game the damaged file does not yield whole (or a file SQLite cannot open at all) is taken from
the newest backup that reads, if it holds it; the settings (the table's identity, the host key)
and the black box come along; the damaged file is set aside beside the new one.
"""

from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

from host.clock import REAL

from .backups import readable_backups
from .errors import StoreError
from .games import Store
from .records import GameRow, parse_action_row, parse_snapshot_row
from .schema import connect_readonly


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
    aside = path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S', time.localtime(REAL.wall()))}")
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
