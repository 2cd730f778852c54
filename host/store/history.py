"""The games as the history pages read them: a connection of its own per request.

Read-only pages (the history, the replay viewer, the record download) do not share the
referee's connection: each request opens a :class:`History` on the data folder (the Flask
tutorial's pattern) and closes it when done.  A damaged game is listed with its damage named
and replayed as far as it reads (:meth:`~.reader.Reader.replayed`).
"""

from __future__ import annotations

import threading
from pathlib import Path

from .reader import Reader
from .records import GameRow
from .schema import DB_NAME, connect


class History(Reader):
    """The store's reads on a connection of their own (one web request's)."""

    def __init__(self, data_dir: str | Path):
        self._conn = connect(Path(data_dir) / DB_NAME)
        self._lock = threading.RLock()

    def close(self) -> None:
        self._conn.close()

    def summaries(self) -> list[tuple[GameRow, int]]:
        """Every game, newest first, with its number of stored actions."""
        counts = self.action_counts()
        return [(row, counts.get(row.id, 0)) for row in self.games()]
