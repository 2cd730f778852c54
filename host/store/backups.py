"""Backups of the store: SQLite's online backup into ``backups/`` beside it, the newest kept.

:func:`backup` runs after each finished (or abandoned) game and never fails its caller;
:func:`readable_backups` finds the ones that still open and pass SQLite's check (the salvage
takes a game the damaged file does not yield whole from the newest of them).
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from pathlib import Path

from host.clock import REAL, Clock

from .schema import connect_readonly

BACKUPS = 5  # backups kept in <data dir>/backups

log = logging.getLogger("quin.store")


def backup(conn, lock: threading.RLock, path: Path, clock: Clock = REAL) -> Path | None:
    """Copy the store at ``path`` (its connection ``conn``, under ``lock``) into ``backups/``; keep
    the newest :data:`BACKUPS`.  Never fails the caller: a backup that cannot be made is logged in
    one line."""
    folder = path.parent / "backups"
    # one reading of the clock for the whole name: read twice, a second could tick between the two and
    # the newest backup would sort before the others of that second (and be pruned, or not be salvaged from)
    now = clock.wall_ns()
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now // 10**9))
    target = folder / f"quin-{stamp}-{now % 10**9:09d}.sqlite3"
    try:
        folder.mkdir(exist_ok=True)
        dest = sqlite3.connect(str(target))
        try:
            with lock:
                conn.backup(dest)
        finally:
            dest.close()
        for old in sorted(folder.glob("quin-*.sqlite3"))[:-BACKUPS]:
            old.unlink()
        return target
    except (OSError, sqlite3.Error) as exc:
        log.warning("the store could not be backed up to %s: %s", folder, exc)
        return None


def latest_backup_hint(path: Path) -> str:
    """`` (the latest backup is ...)`` for a message about the store at ``path``, if there is one."""
    backups = sorted((path.parent / "backups").glob("quin-*.sqlite3"))
    return f" (the latest backup is {backups[-1]})" if backups else ""


def readable_backups(path: Path) -> list[Path]:
    """The backups beside the store at ``path`` that open and pass SQLite's check, newest first."""
    out = []
    for candidate in sorted((path.parent / "backups").glob("quin-*.sqlite3"), reverse=True):
        try:
            conn = connect_readonly(candidate)
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
