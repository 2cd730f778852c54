"""One server per data folder: the folder's lock and its run record.

``quin serve`` holds an exclusive ``fcntl.flock`` on ``quin.lock`` in its data
folder for as long as it runs, and writes into that file a small JSON run
record ``{"pid", "host", "port", "data_dir", "started", "opponent", "board"}``.  A second server on
the same folder fails at once with one line naming the first one's pid and
port.  The kernel drops the lock when the process ends, however it ends
(kill -9 included), so a stale file never blocks a restart.

Commands that only read the store (``quin games``, ``quin export``, ``quin
links``, ``quin store check``, ``quin doctor``) take no lock: SQLite lets them
read while the server writes.  They ask :func:`running` who holds the folder.
Commands that rewrite the store while nobody may use it (``quin store
salvage``) hold the same exclusive lock as the server.

API::

    lock = hold(folder)                  # FolderBusy if another process holds it
    lock.publish(host, port, opponent, board)   # the run record, once the port is known
    lock.release()                       # (also on process exit)
    record = running(folder)             # RunRecord of the holder, or None
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from host.clock import REAL

LOCK_NAME = "quin.lock"


@dataclass(frozen=True)
class RunRecord:
    """Who holds a data folder: the server's pid, where it listens (port None: still starting)."""

    pid: int | None
    host: str | None
    port: int | None
    data_dir: str
    started: float | None = None
    opponent: str | None = None  # the seat the practice opponent plays (it has no phone link)
    board: str | None = None  # where the board is read ("sim": the virtual board, whose link `quin links` prints)

    def describe(self) -> str:
        pid = f"pid {self.pid}" if self.pid else "pid unknown"
        where = f"port {self.port}" if self.port else "still starting"
        return f"{pid}, {where}"


class FolderBusy(Exception):
    """The data folder is held by another process (``holder``: its run record)."""

    def __init__(self, folder: Path, holder: RunRecord):
        super().__init__(
            f"the data folder {folder} is in use by another quin serve ({holder.describe()}); "
            "stop it first, or give this one its own --data-dir"
        )
        self.folder = folder
        self.holder = holder


class FolderLock:
    """An exclusive hold on a data folder, with its run record."""

    def __init__(self, folder: Path, fd: int):
        self.folder = folder
        self._fd = fd
        self.record = RunRecord(os.getpid(), None, None, str(folder), REAL.wall())
        self._write()

    def publish(self, host: str, port: int, opponent: str | None = None, board: str | None = None) -> RunRecord:
        """Record where the server listens, which seat its opponent plays and its board (read by `quin links`,
        `quin doctor`)."""
        self.record = RunRecord(os.getpid(), host, port, str(self.folder), self.record.started, opponent, board)
        self._write()
        return self.record

    def _write(self) -> None:
        data = json.dumps(asdict(self.record)).encode()
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, data, 0)

    def release(self) -> None:
        if self._fd < 0:
            return
        try:
            os.ftruncate(self._fd, 0)
        finally:
            os.close(self._fd)  # closing drops the flock
            self._fd = -1

    def __enter__(self) -> "FolderLock":
        return self

    def __exit__(self, *exc) -> None:
        self.release()


def _open(folder: Path) -> int:
    return os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)


def _read(fd: int, folder: Path) -> RunRecord:
    try:
        data = json.loads(os.pread(fd, 4096, 0) or b"{}")
    except ValueError:
        data = {}
    if not isinstance(data, dict):
        data = {}

    def number(key):
        value = data.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None

    host = data.get("host") if isinstance(data.get("host"), str) else None
    started = data.get("started") if isinstance(data.get("started"), (int, float)) else None
    opponent = data.get("opponent") if data.get("opponent") in ("white", "black") else None
    board = data.get("board") if data.get("board") in ("sim", "serial", "gpio", "blinka") else None
    return RunRecord(number("pid"), host, number("port"), str(folder), started, opponent, board)


def hold(folder: str | Path) -> FolderLock:
    """Take the folder for this process, or raise FolderBusy naming who has it.  Never waits."""
    folder = Path(folder)
    fd = _open(folder)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            os.close(fd)
            raise
        holder = _read(fd, folder)
        os.close(fd)
        raise FolderBusy(folder, holder) from None
    return FolderLock(folder, fd)


def running(folder: str | Path) -> RunRecord | None:
    """The run record of the process holding ``folder`` (a running server), or None if nobody does."""
    folder = Path(folder)
    path = folder / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                return _read(fd, folder)
            raise
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)
