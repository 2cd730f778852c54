"""Power cuts, the way SQLite tests itself: a file layer that keeps unsynced writes apart.

kill -9 is not a power cut: the kernel's page cache survives it.  Here every file the store
opens goes through :class:`CrashVFS`, an apsw VFS that passes reads and writes on to the real
file (the page cache, as the running program sees it) and remembers, per file, what is
*durable*: the contents as of its last sync.  At a random write or sync the power goes:
from then on nothing reaches a file, and each file comes back as its durable contents plus,
for each write since its last sync, sector by sector (512 bytes, within what was written:
SQLite's "powersafe overwrite"), the old bytes, the new ones, or garbage; a truncate since the
last sync happens or not.  The shared-memory index (``-shm``) is memory and comes back empty.

How the product's store runs on it.  The product opens SQLite with the standard library's
``sqlite3``, whose file layer cannot be replaced from Python; apsw's can.  So the store
(``host.store.Store``, unchanged: its schema, its transactions, ``commit_action``, the black
box, the input log, backups) is given a *connector* (``Store(path, connector=...)``) that opens
the file through apsw on this VFS with the product's own pragmas (``host.store.PRAGMAS``:
WAL, ``synchronous=FULL``), and :class:`ApswConnection` presents apsw's connection with the
few ``sqlite3.Connection`` methods the store calls, turning apsw's errors into ``sqlite3``'s.
The SQL, its order, and the WAL protocol on the file are the product's; only the library
build differs (the WAL format and its sync points are the same).  After each cut the files
are opened the way ``quin serve`` starts (``_serving_store``: the standard library, a
damaged file salvaged), and every action a screen was shown as committed must be there.

Play is real: the web app (Flask's test client), the table, the referee and the virtual
board, driven by ``webplay.Driver`` with random legal actions.
"""

from __future__ import annotations

import io
import random
import sqlite3
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

import apsw

SECTOR = 512

class PowerCut(Exception):
    """The power went: nothing more reaches a file."""


@dataclass
class FileState:
    durable: bytearray  # what the file holds on the card: as of its last sync
    pending: list = field(default_factory=list)  # ("write", offset, data) / ("truncate", size) since then


class CrashVFS(apsw.VFS):
    """The default VFS, with the power cut at the ``crash_at``-th write or sync."""

    def __init__(self, name: str, rng: random.Random):
        self.name = name
        self.rng = rng
        self.files: dict[str, FileState] = {}
        self.ops = 0
        self.crash_at: int | None = None
        self.crashed: str | None = None  # "write" or "sync": what the power went during
        self.crashed_in: str | None = None  # "wal" or "database" (a checkpoint under way)
        self.images: dict[str, bytes] = {}
        self.stats = {"dropped": 0, "written": 0, "garbage": 0, "truncates_lost": 0}
        super().__init__(name, "")

    def state(self, path: str) -> FileState:
        if path not in self.files:
            try:
                data = Path(path).read_bytes()
            except FileNotFoundError:
                data = b""
            self.files[path] = FileState(bytearray(data))
        return self.files[path]

    def arm(self, crash_at: int) -> None:
        self.ops = 0
        self.crash_at = crash_at
        self.crashed = None
        self.crashed_in = None
        self.images = {}

    def tick(self, what: str, path: str | None = None) -> None:
        if self.crashed:
            raise PowerCut()
        self.ops += 1
        if self.crash_at is not None and self.ops >= self.crash_at:
            self.crashed = what
            self.crashed_in = "wal" if path and path.endswith("-wal") else "database" if path else "temporary"

    def cut(self) -> None:
        """The power goes now: what each file will hold when it comes back."""
        rng = self.rng
        for path, st in self.files.items():
            if path.endswith("-shm"):
                continue
            image = bytearray(st.durable)
            for op in st.pending:
                if op[0] == "truncate":
                    if rng.random() < 0.5:
                        del image[op[1]:]
                    else:
                        self.stats["truncates_lost"] += 1
                    continue
                _, offset, data = op
                for start in range(0, len(data), SECTOR):
                    chunk = data[start:start + SECTOR]
                    fate = rng.random()
                    if fate < 0.4:
                        self.stats["dropped"] += 1
                        continue
                    if fate < 0.85:
                        self.stats["written"] += 1
                    else:
                        self.stats["garbage"] += 1
                        chunk = rng.randbytes(len(chunk))
                    at = offset + start
                    if len(image) < at:
                        image.extend(b"\0" * (at - len(image)))
                    image[at:at + len(chunk)] = chunk
            self.images[path] = bytes(image)

    def reboot(self) -> None:
        """Put on the real files what survived the cut; the shared-memory index is gone."""
        for path, image in self.images.items():
            if Path(path).exists() or image:
                Path(path).write_bytes(image)
        for path in list(self.files):
            if path.endswith("-shm"):
                Path(path).unlink(missing_ok=True)
        self.files.clear()
        self.crash_at = None
        self.crashed = None

    def xOpen(self, name, flags):
        return CrashFile(self, name, flags)

    def xDelete(self, filename, syncdir):
        if self.crashed:
            return None  # the power is off: nothing is deleted
        self.files.pop(filename, None)
        return super().xDelete(filename, syncdir)


class CrashFile(apsw.VFSFile):
    def __init__(self, vfs: CrashVFS, name, flags):
        self.vfs = vfs
        path = name.filename() if isinstance(name, apsw.URIFilename) else name
        super().__init__("", name, flags)
        self.path = path
        self.st = vfs.state(path) if path else None  # a nameless temporary file is never durable

    def _io(self, what: str) -> None:
        try:
            self.vfs.tick(what, self.path)
        except PowerCut:
            raise apsw.IOError("power cut") from None

    def xWrite(self, data, offset):
        self._io("write")
        if self.st is not None:
            self.st.pending.append(("write", offset, bytes(data)))
        if self.vfs.crashed:  # this write was under way when the power went: it may be torn
            self.vfs.cut()
            raise apsw.IOError("power cut")
        return super().xWrite(data, offset)

    def xTruncate(self, size):
        self._io("write")
        if self.st is not None:
            self.st.pending.append(("truncate", size))
        if self.vfs.crashed:
            self.vfs.cut()
            raise apsw.IOError("power cut")
        return super().xTruncate(size)

    def xSync(self, flags):
        self._io("sync")
        if self.vfs.crashed:  # the power went before this sync was done
            self.vfs.cut()
            raise apsw.IOError("power cut")
        result = super().xSync(flags)
        st = self.st
        if st is not None:
            for op in st.pending:
                if op[0] == "truncate":
                    del st.durable[op[1]:]
                else:
                    _, offset, data = op
                    if len(st.durable) < offset:
                        st.durable.extend(b"\0" * (offset - len(st.durable)))
                    st.durable[offset:offset + len(data)] = data
            st.pending.clear()
        return result


# --- the store's connection on apsw -------------------------------------------------------------


class Row(tuple):
    """sqlite3.Row's manners: by index, by column name, keys()."""

    def __new__(cls, values, names):
        row = super().__new__(cls, values)
        row._names = names
        return row

    def __getitem__(self, key):
        if isinstance(key, str):
            return tuple.__getitem__(self, self._names.index(key))
        return tuple.__getitem__(self, key)

    def keys(self):
        return list(self._names)


class Cursor:
    def __init__(self, rows, lastrowid, rowcount):
        self._rows = rows
        self.lastrowid = lastrowid
        self.rowcount = rowcount

    def fetchone(self):
        return self._rows[0] if self._rows else None

    def fetchall(self):
        return list(self._rows)


def _as_sqlite3(exc: apsw.Error) -> sqlite3.Error:
    if isinstance(exc, (apsw.CorruptError, apsw.NotADBError)):
        return sqlite3.DatabaseError(str(exc))
    if isinstance(exc, apsw.ConstraintError):
        return sqlite3.IntegrityError(str(exc))
    return sqlite3.OperationalError(str(exc))


class ApswConnection:
    """The ``sqlite3.Connection`` methods the store calls, on an apsw connection."""

    def __init__(self, path: str, vfs: str, rewrite: dict | None = None, checkpoint_pages: int | None = None):
        self.rewrite = rewrite or {}  # the harness's own check: a store that does not sync must lose
        try:
            self.conn = apsw.Connection(path, vfs=vfs)
            self.conn.set_busy_timeout(10_000)
        except apsw.Error as exc:
            raise _as_sqlite3(exc) from None
        from host.store import PRAGMAS

        try:
            for pragma in PRAGMAS:  # the product's own settings
                self.execute(f"PRAGMA {pragma}")
            if checkpoint_pages:  # when SQLite checkpoints, not how: so that cuts land in checkpoints too
                self.execute(f"PRAGMA wal_autocheckpoint={checkpoint_pages}")
        except sqlite3.Error:
            self.close()
            raise

    def execute(self, sql: str, args: tuple = ()) -> Cursor:
        sql = self.rewrite.get(sql, sql)
        try:
            before = self.conn.total_changes()
            cur = self.conn.cursor()
            cur.execute(sql, args)
            names = None
            rows = []
            for values in cur:
                if names is None:
                    names = tuple(d[0] for d in cur.get_description())
                rows.append(Row(values, names))
            return Cursor(rows, self.conn.last_insert_rowid(), self.conn.total_changes() - before)
        except apsw.Error as exc:
            raise _as_sqlite3(exc) from None

    def executescript(self, script: str) -> None:
        try:
            self.conn.execute(script).fetchall()
        except apsw.Error as exc:
            raise _as_sqlite3(exc) from None

    def backup(self, dest: sqlite3.Connection) -> None:
        target = dest.execute("PRAGMA database_list").fetchone()[2]
        try:
            out = apsw.Connection(target)
            try:
                with out.backup("main", self.conn, "main") as b:
                    b.step()
            finally:
                out.close()
        except apsw.Error as exc:
            raise _as_sqlite3(exc) from None

    def close(self) -> None:
        try:
            self.conn.close(True)
        except apsw.Error:
            pass


# --- the run ------------------------------------------------------------------------------------


@dataclass
class Report:
    cuts: int = 0
    during_write: int = 0
    during_sync: int = 0
    during_checkpoint: int = 0  # the cut came while the database file itself was written or synced
    opened: int = 0  # cuts after which the store opened (salvage allowed)
    salvaged: int = 0  # of which salvaged
    shown: int = 0  # actions screens had been shown as committed (summed over cuts)
    lost: int = 0  # of those, missing from the store after the cut
    wrong: int = 0  # stored actions that are not what was played
    held: int = 0  # cuts where the store refused a commit first (the table held it unsaved)
    actions_played: int = 0
    games: int = 0
    sectors: dict = field(default_factory=dict)
    seconds_per_cut: list = field(default_factory=list)
    problems: list = field(default_factory=list)

    def to_json(self) -> dict:
        times = self.seconds_per_cut
        return {
            "cuts": self.cuts, "during_write": self.during_write, "during_sync": self.during_sync,
            "during_checkpoint": self.during_checkpoint,
            "store_opened": self.opened, "salvaged": self.salvaged,
            "actions_shown_as_committed": self.shown, "actions_lost": self.lost, "actions_wrong": self.wrong,
            "commits_held_unsaved": self.held, "actions_played": self.actions_played, "games": self.games,
            "sectors_at_cut": self.sectors,
            "median_seconds_per_cut": round(statistics.median(times), 4) if times else None,
            "problems": self.problems[:10],
        }


class Recorder:
    """The real broker, noting per game the actions the screens were last shown as committed
    (the table's log as it stood when the states went out: the public sees them redacted)."""

    def __init__(self):
        from host.web.events import Broker

        self.broker = Broker()
        self.table = None
        self.shown: dict[int, list] = {}

    def publish(self, states, notices=None):
        state = states["public"]
        view = state.get("view")
        if view and state.get("game") and "unsaved" not in state:
            n = sum(len(t["actions"]) for t in view["history"])
            log = self.table.game.log
            assert n == len(log), "a screen shows other actions than the table's game"
            self.shown[state["game"]] = [a.to_record() for _, _, a in log]
        return self.broker.publish(states, notices)

    def __getattr__(self, name):
        return getattr(self.broker, name)


def _play_until_the_cut(folder: Path, vfs: CrashVFS, rng: random.Random, report: Report, max_actions: int,
                        game_length: int, rewrite: dict | None, checkpoint_pages: int | None):
    """One boot of the table: resume, play random legal actions, until the power goes."""
    from engine.game import Game
    from engine.randplay import random_setup
    from host.store import DB_NAME, Store
    from host.session.table import Table
    from host.compose import create_app
    from host.web.sim import make_virtual_board
    from tests.support.webplay import Driver

    recorder = Recorder()
    store = table = None
    logs: dict[int, list] = {}
    try:
        store = Store(folder / DB_NAME, connector=lambda p: ApswConnection(str(p), vfs.name, rewrite, checkpoint_pages))
        board = make_virtual_board(manual=True)
        table = Table(store, recorder, board=board, settle=0.25, clock=board.clock, wall=board.clock)
        recorder.table = table
        table.occupied = board.occupied
        table.open()
        client = create_app({"TABLE": table, "TICK": 0}).test_client()
        driver = Driver(client, table)
        played = 0
        while played < max_actions:
            if table.game is None:  # a game in setup: both phones send a lineup
                driver.setup(random_setup(rng, "white"), random_setup(rng, "black"))
                report.games += 1
            elif driver.shadow is None:  # a resumed game: the towers stand as it does
                driver.shadow = Game(table.game.setups["white"], table.game.setups["black"], table.game.mode,
                                     table.game.vision, table.game.first)
                for _, _, a in table.game.log:
                    driver.shadow.push(a)
                driver.board(table.game.occupied())
                driver.wait(0.5)
            if table.game.is_over() or len(table.game.log) >= game_length:
                table.new_game()  # abandoned past game_length: the backup after it is made too
                driver.shadow = None
                continue
            logs[table.row.id] = table.game.log
            driver.play(rng.choice(driver.shadow.legal_actions()))
            played += 1
            report.actions_played += 1
            if table.unsaved is not None:
                report.held += 1
                break
    except Exception as exc:  # noqa: BLE001 - after the cut everything may fail; before it, nothing may
        if not vfs.crashed:
            if not rewrite:
                raise
            # The harness's own check runs a store that does not sync: what it leaves may break play.
            report.problems.append(f"play broke on a store that does not sync: {type(exc).__name__}")
        del exc
    finally:
        if table is not None and table.game is not None and table.row is not None:
            logs[table.row.id] = table.game.log
        if not vfs.crashed:  # nothing was written past the cut point: cut now (an idle table)
            vfs.crashed = "idle"
            vfs.cut()
        if store is not None:
            store.close()
    return recorder.shown, {gid: [a.to_record() for _, _, a in log] for gid, log in logs.items()}


def run(cuts: int, seed: int, folder: Path, max_ops: int = 150, max_actions: int = 40, game_length: int = 40,
        rewrite: dict | None = None, checkpoint_pages: int | None = 16) -> Report:
    """``cuts`` power cuts at random writes or syncs during real play; the report counts the losses.

    The power goes at a write or sync drawn from the first ``max_ops`` of each boot (or, if the
    boot plays ``max_actions`` first, when it is idle); a game is abandoned after ``game_length``
    actions (a new one starts: games, setups and backups are written too).  ``checkpoint_pages``:
    SQLite checkpoints the WAL into the database after that many pages (its default, 1,000, is
    never reached in a boot this short, so without it no cut would land in a checkpoint)."""
    import logging

    quiet = logging.getLogger("quin")
    was = quiet.level
    quiet.setLevel(logging.CRITICAL + 1)  # the store's one-line complaints at each cut are expected here
    try:
        return _run(cuts, seed, folder, max_ops, max_actions, game_length, rewrite, checkpoint_pages)
    finally:
        quiet.setLevel(was)


def _run(cuts, seed, folder, max_ops, max_actions, game_length, rewrite, checkpoint_pages) -> Report:
    from host.commands.serve_cmds import _serving_store
    from host.store import DB_NAME

    rng = random.Random(seed)
    vfs = CrashVFS(f"powercut-{seed}-{id(rng)}", rng)
    report = Report()
    folder.mkdir(parents=True, exist_ok=True)
    try:
        for _ in range(cuts):
            started = time.perf_counter()
            vfs.arm(rng.randint(1, max_ops))
            shown, played = _play_until_the_cut(folder, vfs, rng, report, max_actions, game_length, rewrite,
                                                checkpoint_pages)
            report.cuts += 1
            if vfs.crashed == "sync":
                report.during_sync += 1
            elif vfs.crashed == "write":
                report.during_write += 1
            if vfs.crashed_in == "database":
                report.during_checkpoint += 1
            vfs.reboot()
            out = io.StringIO()
            try:
                store = _serving_store(folder, out)  # as `quin serve` starts after the power is back
            except Exception as exc:  # noqa: BLE001
                report.problems.append(f"cut {report.cuts}: the store did not open: {exc}")
                break
            report.opened += 1
            if "the game store was damaged" in out.getvalue():
                report.salvaged += 1
            try:
                for gid, seen in shown.items():
                    n = len(seen)
                    report.shown += n
                    stored = [a for _, _, a in store.actions(gid)] if n else []
                    kept = sum(1 for a, b in zip(stored, seen) if a == b)
                    if kept < n:
                        report.lost += n - kept
                        report.problems.append(f"cut {report.cuts}: game {gid} showed {n} actions, kept {kept}")
                    # Beyond what was shown, only what the referee had decided (a commit under way at the cut).
                    if stored[n:] != played.get(gid, [])[n:len(stored)]:
                        report.wrong += 1
                        report.problems.append(f"cut {report.cuts}: game {gid} holds actions that were not played")
            finally:
                store.close()
            report.seconds_per_cut.append(time.perf_counter() - started)
    finally:
        vfs.unregister()
    report.sectors = dict(vfs.stats)
    return report
