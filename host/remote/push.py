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
with exponential backoff (``BACKOFF``: from half a second, doubling, to a minute; with jitter) for as
long as it takes.

What the link is doing is said as it is (:class:`Link`), on the status page (``hub``, published at
once: only that line changes, so a change tells nobody anything of the game) and by ``quin serve``
(one line each time it changes): reached; the hub refuses this table key; no hub at that address;
that address answers but is not a Quin hub (a wrong path); or the hub cannot take the games now.  A push is idempotent
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
import urllib.parse
from collections import deque

from host.clock import REAL, Clock
from host.hub import frames
from host.store.outbox import Outbox

log = logging.getLogger("quin.hub.push")

BATCH = 200  # events in one push
BATCH_BYTES = 1024 * 1024  # and at most about this many bytes (the hub takes up to 4 MB)
BACKOFF = (0.5, 60.0)  # first and longest wait between failed pushes, seconds
TIMEOUT = 10.0  # seconds a push may take
CHECK_TIMEOUT = 3.0  # seconds a phone's setup waits for the hub to say whether it knows a player code
FINAL = (400, 409, 422)  # a refusal naming a game's final with these is for good: the final is set aside

class Link:
    """What the link to the hub is doing, in words a club's organiser can act on (one line each).
    ``state`` names the case for the pages and the tests; ``message`` is the line shown."""

    CONNECTING = "connecting"
    REACHED = "reached"
    KEY = "key refused"  # the hub answers and refuses this table key
    ABSENT = "no hub"  # nothing answers at that address
    NOT_HUB = "not a hub"  # something answers there, and it is not a Quin hub (a wrong path, another server)
    TROUBLE = "hub trouble"  # the hub answers and cannot take the games now (its database, too many pushes)

    # The public status page's short line for each case (players read it, not the organiser: no options,
    # no commands); the full ``message`` goes to the terminal and the host page.
    PUBLIC = {
        CONNECTING: "Connecting to the club's hub.",
        REACHED: "Connected to the club's hub: the games go there.",
        KEY: "Not connected to the club's hub: the hub refuses this table's key — ask the organiser. "
             "The games are kept.",
        ABSENT: "Not connected to the club's hub: no hub answers at its address — ask the organiser. "
                "The games are kept.",
        NOT_HUB: "Not connected to the club's hub: its address is not a Quin hub's — ask the organiser. "
                 "The games are kept.",
        TROUBLE: "The club's hub cannot take the games now: they are kept and sent once it can.",
    }

    def __init__(self, state: str, message: str):
        self.state, self.message = state, message

    @property
    def public(self) -> str:
        return self.PUBLIC[self.state]

    @classmethod
    def connecting(cls, url: str) -> "Link":
        return cls(cls.CONNECTING, f"connecting to the club's hub at {url}")

    @classmethod
    def reached(cls, url: str) -> "Link":
        return cls(cls.REACHED, f"reached: the club's hub at {url} takes this table's games")

    @classmethod
    def unreached(cls, url: str, exc: BaseException) -> "Link":
        if isinstance(exc, TimeoutError):
            why = "nothing answered in time"
        elif isinstance(exc, ConnectionRefusedError):
            why = "nothing listens there"
        elif isinstance(exc, OSError) and exc.__class__.__name__ == "gaierror":
            why = "that name is not known on this network"
        else:
            why = f"{exc.__class__.__name__}: {exc}" if str(exc) else exc.__class__.__name__
        return cls(cls.ABSENT, f"no hub at {url} ({why}): check the address and that `quin hub serve` "
                               "runs there")

    @classmethod
    def answered(cls, url: str, status: int, raw: bytes) -> "Link | None":
        """The hub's answer to a push: None if it took it, else why not."""
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        why = body.get("error") if isinstance(body, dict) and isinstance(body.get("error"), str) else None
        if status == 200 and isinstance(body, dict) and body.get("ok") is True:
            return None
        if why is None or status in (404, 405) or status == 200:
            # An answer that is not a Quin hub's (a web page, a wrong path under the right server)
            return cls(cls.NOT_HUB, f"{url} answers, but not as a Quin hub (HTTP {status}): check the address, "
                                    "its path too (the hub's own address, as `quin hub serve` printed it)")
        if status == 401 or (status == 403 and "key" in why):
            return cls(cls.KEY, f"the club's hub at {url} refuses this table key: check --table-key against "
                                "the key `quin hub add-table` printed for this table")
        return cls(cls.TROUBLE, f"the club's hub at {url} cannot take the games now ({status}: {why[:120]})")


class Pusher:
    """Sends the table's public frames and finished records to the hub, from a thread of its own."""

    AUDIENCE = "public"  # what the hub may see of a live game: the public stream, nothing else

    def __init__(self, table, url: str, key: str, backoff: tuple[float, float] = BACKOFF,
                 wait=None, jitter=None, clock: Clock = REAL):
        """``wait(seconds)`` sleeps between failed pushes and returns True if the pusher was stopped
        meanwhile (default: the stop event's wait on ``clock``); ``jitter()`` the factor each wait is
        scaled by (default 0.8 to 1.2 at random).  ``clock`` (``host.clock``): the service's one time
        source (``Service.push_to`` passes it).  Tests pass their own: time on an injected clock."""
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
        self._phases: dict[int, str | None] = {}  # game id -> the phase its last numbered frame showed
        self._keyed: set[str] = set()  # games whose whole frame this pusher has sent since it started
        self._answer: dict = {}  # the hub's answer to the last push
        self.reached: bool | None = None  # None: not tried yet
        self.problem: str | None = None
        self.link = Link.connecting(self.url)
        self.clock = clock
        self._wait = wait if wait is not None else (lambda seconds: clock.wait(self._stop, seconds))
        self._jitter = jitter if jitter is not None else (lambda: random.uniform(0.8, 1.2))
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
            self.clock.wait(self._wake, delay if delay else 1.0)
            self._wake.clear()
            if self._stop.is_set():
                break
            try:
                self._drain_frames()
                self.outbox.add_finals(self._held())
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
                self._phases[state["game"]] = state.get("phase")
                state = {k: v for k, v in state.items() if k != "hub"}
                if self.outbox.add(game_uuid, {"state": state, "notices": data.get("notices", [])},
                                   full=game_uuid not in self._keyed):
                    self._keyed.add(game_uuid)
            self._frames.popleft()

    def _held(self) -> set[str]:
        """The table's game whose end the store holds but whose last frame (showing it over) has
        not been numbered yet: the store marks a game over (and backs itself up) before the frame
        that shows it is published, and a record sent before that frame would leave the hub's last
        live frame short of the record's turns, and the game unrated."""
        session = self.table.session
        row = session.row if session is not None else None
        if row is None or self._phases.get(row.id) == "over":
            return set()
        return {row.uuid}

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
                self._status(Link.reached(self.url))
                continue
            refused = self._refused_final(finals)
            if refused is not None:  # never retried: the same record would be refused for ever
                log.warning("the hub refused the record of game %s for good: %s; it is kept aside", *refused)
                self.outbox.refused(*refused)
                continue
            self._status(problem)
            failures += 1
            if self._wait(self.retry_wait(failures)):
                break
            self._drain_frames()
            self.outbox.add_finals(self._held())
        return 0.0

    def retry_wait(self, failures: int) -> float:
        """Seconds to wait after ``failures`` failed pushes in a row: from ``backoff[0]``, doubling,
        jittered, never more than ``backoff[1]`` (a minute)."""
        first, longest = self.backoff
        return min(longest, first * 2 ** min(failures - 1, 64) * self._jitter())

    def _post(self, body: dict) -> "Link | None":
        """None if the hub took it, else what the link is doing."""
        data = json.dumps(body, separators=(",", ":")).encode()
        self._answer = {}
        started = self.clock.now()
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
                    return Link.unreached(self.url, exc)
        try:
            answer = json.loads(raw)
        except ValueError:
            answer = {}
        if not isinstance(answer, dict):
            answer = {}
        problem = Link.answered(self.url, resp.status, raw)
        if problem is not None:
            self._answer = dict(answer, status=resp.status)  # read by _refused_final
            return problem
        self._answer = answer
        self.pushes += 1
        self.latencies.append(self.clock.now() - started)
        return None

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

    def _status(self, link: Link) -> None:
        """The link changed (or not): said once per change, in the log (``quin serve``'s terminal)
        and on the status page."""
        if (link.state, link.message) == (self.link.state, self.link.message):
            return
        reached = link.state == Link.REACHED
        if reached:
            log.warning("hub: %s", link.message)
        else:
            log.warning("hub: %s; the games are kept, and sent once it takes them (retrying, at least "
                        "once a minute)", link.message)
        self.link = link
        self.reached, self.problem = reached, None if reached else link.message
        self._set_status(publish=True)

    def _set_status(self, publish: bool = False) -> None:
        """The status page's hub line (public: it says nothing of the game)."""
        link = self.link
        message = link.message
        if link.state not in (Link.REACHED, Link.CONNECTING):
            message += "; the games are kept and sent once it takes them"
        hub = {"url": self.url, "reached": link.state == Link.REACHED, "state": link.state, "message": message,
               "public": link.public}
        if publish:
            # Published at once, alone: every screen's last state with this line changed, nothing
            # else (a fresh projection, at a moment of the pusher's choosing, could show the referee
            # between two commits, which the table never publishes).
            self.table.show_hub(hub)
        else:
            self.table.hub = hub


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
