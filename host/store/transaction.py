"""The store's write transactions: one IMMEDIATE transaction under the store's lock.

A durable one (``PRAGMA synchronous=FULL``, the default) returns only once its commit is on
disk; one that is not (the input log, the black box, the hub outbox) is carried there by the
next durable commit.  The power-cut test rewrites these very statements to check that it
notices a store that does not wait for the disk.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from .errors import StoreWriteError, unreadable, unwritable


class Transaction:
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
        if unreadable(exc):
            return exc
        where = unwritable(self.path, exc) if self.path is not None else str(exc)
        return StoreWriteError(where)

    def _restore(self) -> None:
        if not self.durable:
            try:
                self.conn.execute("PRAGMA synchronous=FULL")
            except sqlite3.Error:
                pass
