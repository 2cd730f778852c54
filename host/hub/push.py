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

from host.store.outbox import Outbox

from . import frames

log = logging.getLogger("quin.hub.push")

BATCH = 200  # events in one push
BATCH_BYTES = 1024 * 1024  # and at most about this many bytes (the hub takes up to 4 MB)
BACKOFF = (0.5, 30.0)  # first and longest wait between failed pushes, seconds
TIMEOUT = 10.0  # seconds a push may take
CHECK_TIMEOUT = 3.0  # seconds a phone's setup waits for the hub to say whether it knows a player code
FINAL = (400, 422)  # a refusal naming a game's final with these is for good: the final is set aside

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
        self.outbox = Outbox(table.store, diff=frames.diff, keyframe=frames.KEYFRAME)
        self._frames: deque[bytes] = deque()
        self._draining = threading.Lock()  # one drain at a time: the pusher's thread, stop(), a caller
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
        self._codes: dict[str, str] = {}  # player codes the hub said it knows -> the hub's name
        table.hub_pusher = self

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
        with self._draining:  # two drains at once would number one frame twice (or pop one never kept)
            self._drain_frames_locked()

    def _drain_frames_locked(self) -> None:
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
            ids, finals, body = self.outbox.batch(BATCH, BATCH_BYTES)
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
            refused = self._refused_final(finals)
            if refused is not None:  # never retried: the same record would be refused for ever
                log.warning("the hub refused the record of game %s for good: %s; it is kept aside", *refused)
                self.outbox.refused(*refused)
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
        self._answer = {}
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
            self._answer = json.loads(raw)
            why = self._answer.get("error") or resp.reason
        except (ValueError, AttributeError):
            self._answer, why = {}, resp.reason
        self._answer = dict(self._answer, status=resp.status) if isinstance(self._answer, dict) else {}
        return f"the hub refused the push ({resp.status}: {why})"

    def _refused_final(self, finals: list[str]) -> tuple[str, str] | None:
        """(game, the hub's reason) if the hub refused the last push for good for a final it held."""
        answer = self._answer
        if answer.get("status") in FINAL and answer.get("final") is True and answer.get("game") in finals:
            return answer["game"], str(answer.get("error"))[:500]
        return None

    def check_code(self, code: str, timeout: float = CHECK_TIMEOUT) -> tuple[bool | None, str | None]:
        """Whether the hub knows a player code: (True, the hub's name for them), (False, None), or
        (None, None) when the hub does not answer now.  Called from a web request's thread (its own
        connection, a short timeout), never from the referee's."""
        if code in self._codes:
            return True, self._codes[code]
        cls = http.client.HTTPSConnection if self._parts.scheme == "https" else http.client.HTTPConnection
        conn = cls(self._parts.hostname, self._parts.port, timeout=timeout)
        try:
            conn.request("GET", self._parts.path + "/api/players/" + urllib.parse.quote(code),
                         headers={"Authorization": f"Bearer {self.key}"})
            resp = conn.getresponse()
            raw = resp.read()
        except (OSError, http.client.HTTPException):
            return None, None
        finally:
            conn.close()
        if resp.status == 404:
            return False, None
        if resp.status != 200:
            return None, None  # refused for another reason (a bad key, too many): not the code's fault
        try:
            name = json.loads(raw).get("name")
        except (ValueError, AttributeError):
            return None, None
        self._codes[code] = name if isinstance(name, str) else None
        return True, self._codes[code]

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
