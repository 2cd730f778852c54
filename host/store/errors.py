"""What the store says when it cannot do what was asked: one line, never a traceback.

:class:`StoreError`: an unknown game, a row that does not read, a record that no longer
replays, a file that is not a game store.  :class:`StoreWriteError`: the file refuses a write
(read-only, full, failing), with :func:`unwritable` naming what and why.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from engine.errors import QuinError


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


def unreadable(exc: sqlite3.Error) -> bool:
    """Does this error say the file is not a database (damage), rather than that it cannot be written?"""
    text = str(exc).lower()
    return "not a database" in text or "malformed" in text or "corrupt" in text
