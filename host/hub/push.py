"""The board's side of the hub: an outbox in the board's own store, drained by one thread.

``quin serve --hub URL --table-key K`` attaches a :class:`Pusher` to the table's public stream.
What it sends of a live game is exactly what the public status page receives: each frame of the
broker's ``public`` audience (its state and public notices), numbered per game (1, 2, ...), less the
``hub`` line the status page itself shows (the pusher's own reachability, not the game's).  Once a
game is over (or abandoned) its whole record follows, after its last event.  Hidden identities
reach the hub only in that record.

The referee is never slowed: the broker hands each frame to :meth:`Pusher._deliver`, which only
appends it to a list; the pusher's thread writes it to the outbox (``hub_outbox``, in the board's
SQLite file, written without waiting for the disk; the acknowledgement of each push waits for it, and
so carries every frame numbered before it there: a power cut loses at most frames not yet
acknowledged, and the board publishes its current state when it starts again) and pushes the oldest unacknowledged events, up to
:data:`BATCH` at a time (so a board that was cut off catches up in a few large pushes), retrying
with exponential backoff (``BACKOFF``, with jitter) for as long as it takes.  A push is idempotent
(the hub keeps one row per table, game UUID and number), so a push repeated after a lost answer
changes nothing.
"""

from __future__ import annotations

import http.client
import json
import logging
import random
import sqlite3
import threading
import time
import urllib.parse
from collections import deque

from . import frames

log = logging.getLogger("quin.hub.push")

BATCH = 200  # events in one push
BATCH_BYTES = 1024 * 1024  # and at most about this many bytes (the hub takes up to 4 MB)
BACKOFF = (0.5, 30.0)  # first and longest wait between failed pushes, seconds
TIMEOUT = 10.0  # seconds a push may take

OUTBOX = """
CREATE TABLE IF NOT EXISTS hub_outbox (
    id INTEGER PRIMARY KEY,
    game_uuid TEXT NOT NULL,
    seq INTEGER NOT NULL,
    data TEXT NOT NULL,
    UNIQUE (game_uuid, seq)
);
CREATE TABLE IF NOT EXISTS hub_numbered (
    game_uuid TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS hub_finals (
    game_uuid TEXT PRIMARY KEY,
    data TEXT NOT NULL,
    sent INTEGER NOT NULL DEFAULT 0
);
"""


class Outbox:
    """What the hub has not acknowledged yet, in the board's store (its own tables, its own lock)."""

    def __init__(self, store):
        self.store = store
        self._last: dict[str, tuple[str, dict]] = {}  # game uuid -> its last frame (text, parsed)
        with store._tx() as c:
            for statement in OUTBOX.split(";"):
                if statement.strip():
                    c.execute(statement)

    def add(self, game_uuid: str, frame: dict, full: bool = False) -> bool:
        """Number a public frame of a game and keep it; False if it repeats the game's last one.

        What is kept (and pushed) is the frame itself when it is the game's first, when ``full``
        (the first this pusher sends of a game since it started), every :data:`frames.KEYFRAME`
        events, or when its patch would not be smaller; otherwise ``{"patch": ...}``, the changes
        from the game's previous frame (host/hub/frames.py)."""
        data = json.dumps(frame, separators=(",", ":"))
        with self.store._tx(durable=False) as c:
            row = c.execute("SELECT seq, data FROM hub_numbered WHERE game_uuid = ?", (game_uuid,)).fetchone()
            if row is not None and row["data"] == data:
                return False
            seq = (row["seq"] if row else 0) + 1
            payload = data
            if row is not None and not full and seq % frames.KEYFRAME != 1:
                last = self._last.get(game_uuid)
                previous = last[1] if last is not None and last[0] == row["data"] else json.loads(row["data"])
                patch = json.dumps({"patch": frames.diff(previous, frame)}, separators=(",", ":"))
                if len(patch) < len(data):
                    payload = patch
            c.execute("INSERT INTO hub_outbox(game_uuid, seq, data) VALUES (?, ?, ?)", (game_uuid, seq, payload))
            c.execute("INSERT OR REPLACE INTO hub_numbered(game_uuid, seq, data) VALUES (?, ?, ?)",
                      (game_uuid, seq, data))
        self._last.pop(game_uuid, None)
        self._last[game_uuid] = (data, frame)
        if len(self._last) > 8:  # the games of this table now: one or two
            self._last.pop(next(iter(self._last)))
        return True

    def realign(self, game_uuid: str, hub_last: int) -> None:
        """The hub holds other frames than this board under some of its numbers (the board lost the
        record of a push the hub stored, a power cut): number on after the hub's, starting afresh
        with the whole newest frame (the frames numbered over the hub's are not sent)."""
        with self.store._tx() as c:
            row = c.execute("SELECT data FROM hub_numbered WHERE game_uuid = ?", (game_uuid,)).fetchone()
            c.execute("DELETE FROM hub_outbox WHERE game_uuid = ?", (game_uuid,))
            if row is not None:
                c.execute("INSERT INTO hub_outbox(game_uuid, seq, data) VALUES (?, ?, ?)",
                          (game_uuid, hub_last + 1, row["data"]))
                c.execute("UPDATE hub_numbered SET seq = ? WHERE game_uuid = ?", (hub_last + 1, game_uuid))

    def add_finals(self) -> int:
        """Queue the record of every game that is over (or abandoned) and had events pushed."""
        with self.store._lock:
            rows = self.store._conn.execute(
                "SELECT g.id, g.uuid FROM games g JOIN hub_numbered n ON n.game_uuid = g.uuid "
                "WHERE g.status IN ('over', 'abandoned') AND g.uuid NOT IN (SELECT game_uuid FROM hub_finals)"
            ).fetchall()
        for row in rows:
            final = self._final(row["id"])
            with self.store._tx(durable=False) as c:
                c.execute("INSERT OR IGNORE INTO hub_finals(game_uuid, data) VALUES (?, ?)",
                          (row["uuid"], json.dumps(final, separators=(",", ":"))))
        return len(rows)

    def _final(self, game_id: int) -> dict:
        from host.store import StoreError

        row = self.store.game(game_id)
        try:
            record = self.store.record(game_id)
        except StoreError:
            record = None  # never started, or no longer replays: the result alone
        return {"status": row.status if row.status in ("over", "abandoned") else "abandoned", "record": record,
                "result": row.result, "created": row.created, "finished": row.finished, "mode": row.mode}

    def batch(self, limit: int = BATCH) -> tuple[list[int], list[str], dict]:
        """(outbox ids, final game uuids, the push body) of the oldest unacknowledged."""
        with self.store._lock:
            rows = self.store._conn.execute(
                "SELECT id, game_uuid, seq, data FROM hub_outbox ORDER BY id LIMIT ?", (limit,)).fetchall()
            pending = {r[0] for r in self.store._conn.execute("SELECT DISTINCT game_uuid FROM hub_outbox")}
            finals = self.store._conn.execute(
                "SELECT game_uuid, data FROM hub_finals WHERE sent = 0 LIMIT 20").fetchall()
        size = 0
        for n, r in enumerate(rows):
            size += len(r["data"])
            if size > BATCH_BYTES and n:
                rows = rows[:n]
                break
        games: dict[str, dict] = {}
        for r in rows:
            games.setdefault(r["game_uuid"], {"uuid": r["game_uuid"], "events": []})["events"].append(
                {"seq": r["seq"], "data": json.loads(r["data"])})
        sent_finals = []
        for f in finals:
            # a record goes only after every event of its game, in the same push as the last ones
            if f["game_uuid"] in pending and not self._all_in(f["game_uuid"], rows):
                continue
            games.setdefault(f["game_uuid"], {"uuid": f["game_uuid"], "events": []})["final"] = json.loads(f["data"])
            sent_finals.append(f["game_uuid"])
        return [r["id"] for r in rows], sent_finals, {"board": self.store.table_id, "games": list(games.values())}

    def _all_in(self, game_uuid: str, rows) -> bool:
        with self.store._lock:
            left = self.store._conn.execute("SELECT COUNT(*) FROM hub_outbox WHERE game_uuid = ?",
                                            (game_uuid,)).fetchone()[0]
        return left == sum(1 for r in rows if r["game_uuid"] == game_uuid)

    def acknowledged(self, ids: list[int], finals: list[str]) -> None:
        # Durable, once per push: with it every frame numbered before is on disk too (the log is
        # written in order), so after a power cut the board never numbers a frame again with a
        # number the hub already holds.
        with self.store._tx() as c:
            c.executemany("DELETE FROM hub_outbox WHERE id = ?", [(i,) for i in ids])
            c.executemany("UPDATE hub_finals SET sent = 1 WHERE game_uuid = ?", [(u,) for u in finals])

    def pending(self) -> int:
        with self.store._lock:
            events = self.store._conn.execute("SELECT COUNT(*) FROM hub_outbox").fetchone()[0]
            finals = self.store._conn.execute("SELECT COUNT(*) FROM hub_finals WHERE sent = 0").fetchone()[0]
        return events + finals


class Pusher:
    """Sends the table's public frames and finished records to the hub, from a thread of its own."""

    AUDIENCE = "public"  # what the hub may see of a live game: the public stream, nothing else

    def __init__(self, table, url: str, key: str, backoff: tuple[float, float] = BACKOFF):
        parts = urllib.parse.urlsplit(url.rstrip("/"))
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"--hub: an http:// or https:// address is expected, not {url!r}")
        self.url = url.rstrip("/")
        self._parts = parts
        self.key = key
        self.table = table
        self.backoff = backoff
        self.outbox = Outbox(table.store)
        self._frames: deque[bytes] = deque()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._conn: http.client.HTTPConnection | None = None
        self._uuids: dict[int, str] = {}
        self._keyed: set[str] = set()  # games whose whole frame this pusher has sent since it started
        self._answer: dict = {}  # the hub's answer to the last push
        self.reached: bool | None = None  # None: not tried yet
        self.problem: str | None = None
        self.pushes = 0
        self.latencies: deque[float] = deque(maxlen=10000)  # seconds per successful push (the bench reads them)
        sub = table.broker.stream(self.AUDIENCE)
        self._frames.append(sub.attach(self._deliver, self._ended))
        self._sub = sub
        self._thread = threading.Thread(target=self._run, name="quin-hub-push", daemon=True)

    def start(self) -> "Pusher":
        self._set_status()
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout)
        self._sub.close()
        self._drain_frames()  # whatever arrived last is kept for the next start
        if self._conn is not None:
            self._conn.close()

    # --- the publishing thread: never waits ------------------------------------------------------

    def _deliver(self, frame: bytes) -> None:
        self._frames.append(frame)
        self._wake.set()

    def _ended(self) -> None:
        self._wake.set()

    # --- the pusher's thread ------------------------------------------------------------------------

    def _run(self) -> None:
        delay = 0.0
        while not self._stop.is_set():
            self._wake.wait(delay if delay else 1.0)
            self._wake.clear()
            if self._stop.is_set():
                break
            try:
                self._drain_frames()
                self.outbox.add_finals()
                delay = self._push_all()
            except sqlite3.Error as exc:  # the store cannot be written now: frames stay in memory
                log.warning("the hub outbox could not be written: %s", exc)
                delay = self.backoff[1]

    def _drain_frames(self) -> None:
        while self._frames:
            frame = self._frames[0]
            for data in _frame_data(frame):
                state = data.get("state")
                if not isinstance(state, dict):
                    continue
                game_uuid = self._uuid(state.get("game"))
                if game_uuid is None:
                    continue
                state = {k: v for k, v in state.items() if k != "hub"}
                if self.outbox.add(game_uuid, {"state": state, "notices": data.get("notices", [])},
                                   full=game_uuid not in self._keyed):
                    self._keyed.add(game_uuid)
            self._frames.popleft()

    def _uuid(self, game_id) -> str | None:
        if type(game_id) is not int:
            return None
        if game_id not in self._uuids:
            try:
                self._uuids[game_id] = self.table.store.game(game_id).uuid
            except Exception:  # noqa: BLE001 - a game the store no longer reads is not pushed
                return None
        return self._uuids[game_id]

    def _push_all(self) -> float:
        """Push until the outbox is empty; the wait before the next try (0: nothing left)."""
        failures = 0
        while not self._stop.is_set():
            ids, finals, body = self.outbox.batch()
            if not body["games"]:
                return 0.0
            problem = self._post(body)
            if problem is None:
                self.outbox.acknowledged(ids, finals)
                realign = self._answer.get("realign")
                if isinstance(realign, dict):
                    for game_uuid, hub_last in realign.items():
                        if isinstance(game_uuid, str) and type(hub_last) is int:
                            log.warning("the hub holds other frames of game %s up to %d: numbering on from there",
                                        game_uuid, hub_last)
                            self.outbox.realign(game_uuid, hub_last)
                failures = 0
                self._status(True, None)
                continue
            self._status(False, problem)
            failures += 1
            wait = min(self.backoff[1], self.backoff[0] * 2 ** (failures - 1)) * random.uniform(0.8, 1.2)
            if self._stop.wait(wait):
                break
            self._drain_frames()
            self.outbox.add_finals()
        return 0.0

    def _post(self, body: dict) -> str | None:
        """None if the hub took it, else why not (one line)."""
        data = json.dumps(body, separators=(",", ":")).encode()
        started = time.monotonic()
        for attempt in (1, 2):  # a kept-alive connection the hub closed meanwhile: once more, afresh
            reused = self._conn is not None
            try:
                if self._conn is None:
                    cls = http.client.HTTPSConnection if self._parts.scheme == "https" else http.client.HTTPConnection
                    self._conn = cls(self._parts.hostname, self._parts.port, timeout=TIMEOUT)
                self._conn.request("POST", self._parts.path + "/api/push", body=data, headers={
                    "Authorization": f"Bearer {self.key}", "Content-Type": "application/json"})
                resp = self._conn.getresponse()
                raw = resp.read()
                break
            except (OSError, http.client.HTTPException) as exc:
                if self._conn is not None:
                    self._conn.close()
                self._conn = None
                if not reused or attempt == 2:
                    return f"the hub at {self.url} is not reached ({exc.__class__.__name__}: {exc})"
        if resp.status == 200:
            try:
                self._answer = json.loads(raw)
            except ValueError:
                self._answer = {}
            if not isinstance(self._answer, dict):
                self._answer = {}
            self.pushes += 1
            self.latencies.append(time.monotonic() - started)
            return None
        try:
            why = json.loads(raw).get("error") or resp.reason
        except (ValueError, AttributeError):
            why = resp.reason
        return f"the hub refused the push ({resp.status}: {why})"

    def _status(self, reached: bool, problem: str | None) -> None:
        if reached != self.reached or (problem is None) != (self.problem is None):
            if problem:
                log.warning("%s; retrying", problem)
            elif self.reached is False:
                log.warning("the hub at %s is reached again", self.url)
            self.reached, self.problem = reached, problem
            self._set_status()

    def _set_status(self) -> None:
        """The status page's hub line (public: it says nothing of the game)."""
        if self.reached is None:
            message = f"connecting to the hub at {self.url}"
        elif self.reached:
            message = f"the hub at {self.url} is reached"
        else:
            message = f"{self.problem}; the games are kept and sent when it is reached"
        # Shown with the page's next update, never published on its own: a publication at a moment
        # of the pusher's choosing could show the referee between two commits (the moment a mover
        # is asked a private question), which the table never publishes.
        self.table.hub = {"url": self.url, "reached": bool(self.reached), "message": message}


def _frame_data(frame: bytes) -> list[dict]:
    """The data of each event in a chunk of the SSE stream."""
    out = []
    for line in frame.decode().split("\n"):
        if line.startswith("data: "):
            try:
                value = json.loads(line[6:])
            except ValueError:
                continue
            if isinstance(value, dict):
                out.append(value)
    return out
