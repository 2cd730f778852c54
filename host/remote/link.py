"""The board's link to the hub for a remote game: outbound HTTP and one SSE stream.

Nobody opens a port at home: the Pi connects out to the hub (``docs/remote-play.md``, its
Protocol).  :class:`Link` keeps, in a small file next to the board's store (``remote.json``,
written atomically, readable by its owner only: the seat token is a secret):

- the hub's address, the game's code, this board's side and its seat token, so a restart of
  ``quin serve`` rejoins the same game where the hub has it (the hub is the system of record);
- the **outbox**: this side's messages not yet acknowledged by the hub, in order (its lineup,
  its committed actions each with the ``seq`` it was played at, a rematch).  Each is sent until
  the hub answers it; a resend after a lost answer is answered the same by the hub and never
  applied twice.  An action the hub's state already shows as played is dropped unsent.

One thread reads the stream (``GET /api/remote/<code>/stream?token=``): each ``state`` event is
the whole state for this side; the link keeps the newest and hands it to ``on_state``.  A dropped
or silent stream is reopened with exponential backoff and jitter (:data:`BACKOFF`); meanwhile
:meth:`Link.paused` says "the hub is not reached: the game waits".  A second thread drains the
outbox, with the same backoff; an action waits while the hub's state says the game is paused,
and after a 423 until a newer state (the resume notice), never on a timer into the pause.

The link never holds the rival's lineup: it receives only what the hub sends this side's token.
"""

from __future__ import annotations

import http.client
import json
import logging
import os
import random
import secrets
import socket
import threading
import urllib.parse
from pathlib import Path
from typing import Callable

from host.clock import REAL, Clock
from host.hub.codes import parse_code
from host.hub.codes import show_code as shown_code

log = logging.getLogger("quin.remote")

FILE_NAME = "remote.json"
BACKOFF = (0.5, 30.0)  # first and longest wait before reconnecting or resending, seconds
TIMEOUT = 10.0  # seconds one request may take
STREAM_SILENCE = 40.0  # seconds without a byte (the hub sends keep-alives) before the stream is reopened
NOT_REACHED = "the hub is not reached: the game waits"
ENDED = ("over", "called_off")  # the hub's phases of a game that goes on no more (a rematch follows only "over")


class RemoteError(ValueError):
    """A remote game cannot be started or joined: one line for the user, naming the field."""


def normalize_code(code: object) -> str:
    """A game code as the hub keeps it (6 characters, no dash), from any case, with or without the dash."""
    if not isinstance(code, str):
        raise RemoteError("--remote: expected 'new' or a game code such as K7M-2QX")
    tidy = parse_code(code.strip())
    if tidy is None:
        shown = code if len(code) <= 20 else code[:20] + "..."
        raise RemoteError(f"--remote: {shown!r} is not a game code (6 letters or digits, such as K7M-2QX)")
    return tidy


def check_url(url: object) -> str:
    if not isinstance(url, str):
        raise RemoteError("--hub: expected the hub's http:// or https:// address")
    parts = urllib.parse.urlsplit(url.strip().rstrip("/"))
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise RemoteError(f"--hub: an http:// or https:// address is expected, not {url!r}")
    try:
        parts.port
    except ValueError:
        raise RemoteError(f"--hub: {url!r} has a port that is not a number") from None
    return url.strip().rstrip("/")


class HubAnswer(Exception):
    """The hub answered with an error: its status and its one line."""

    def __init__(self, status: int, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.retry_after = retry_after


class Reopen(OSError):
    """The stream is reopened: a new round began, and the hub may have swapped the sides (a stream
    opened before the rematch would go on with the side it was opened for)."""


class Unreached(Exception):
    """The hub could not be reached (refused, timed out, cut off)."""


def _connection(url: str, timeout: float) -> http.client.HTTPConnection:
    parts = urllib.parse.urlsplit(url)
    cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    return cls(parts.hostname, parts.port, timeout=timeout)


def request(url: str, method: str, path: str, body: dict | None = None, token: str | None = None,
            timeout: float = TIMEOUT) -> dict:
    """One request to the hub; the answer's JSON, HubAnswer for an error answer, Unreached otherwise."""
    headers = {"Accept": "application/json"}
    data = None
    if body is not None:
        data = json.dumps(body, separators=(",", ":")).encode()
        headers["Content-Type"] = "application/json"
    if token:
        headers["Authorization"] = f"Bearer {token}"
    base = urllib.parse.urlsplit(url).path.rstrip("/")
    conn = _connection(url, timeout)
    try:
        conn.request(method, base + path, body=data, headers=headers)
        resp = conn.getresponse()
        raw = resp.read()
    except (OSError, http.client.HTTPException) as exc:
        raise Unreached(str(exc) or type(exc).__name__) from None
    finally:
        conn.close()
    try:
        answer = json.loads(raw) if raw else {}
    except ValueError:
        answer = {}
    if resp.status >= 400:
        message = answer.get("error") if isinstance(answer, dict) else None
        retry = resp.getheader("Retry-After")
        try:
            retry_after = float(retry) if retry else None
        except ValueError:
            retry_after = None
        raise HubAnswer(resp.status, message or f"the hub answered {resp.status}", retry_after)
    if not isinstance(answer, dict):
        raise HubAnswer(resp.status, "the hub's answer is not an object")
    return answer


class LinkFile:
    """The link's durable part: ``{"hub", "code", "side", "token", "outbox": [...]}`` in one JSON file."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._lock = threading.Lock()

    def load(self) -> dict | None:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        data = json.loads(text)
        if not isinstance(data, dict) or not {"hub", "code", "side", "token"} <= set(data):
            raise RemoteError(f"{self.path.name}: not a remote game's link (hub, code, side and token expected)")
        data.setdefault("outbox", [])
        return data

    def save(self, data: dict) -> None:
        """Written whole, then renamed over the old file: a power cut leaves the old or the new one."""
        with self._lock:
            tmp = self.path.with_name(self.path.name + ".tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh, sort_keys=True, separators=(",", ":"))
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)

    def clear(self) -> None:
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass


def open_game(url: str, remote: str, *, side: str = "random", mode: str = "classic", name: str | None = None,
              first: str = "white", vision: bool = False, timeout: float = TIMEOUT) -> dict:
    """Create (``remote`` is "new") or join (a code) a game on the hub, as a board.

    Returns ``{"hub", "code", "side", "token"}``; RemoteError in one line when the code, the URL or
    the hub's answer will not do."""
    url = check_url(url)
    if side not in ("white", "black", "random"):
        raise RemoteError(f"--side: expected white, black or random, got {side!r}")
    if mode not in ("classic", "third_eye"):
        raise RemoteError(f"--mode: expected classic or third_eye, got {mode!r}")
    who = {"name": name or "Board", "kind": "board"}
    try:
        if remote == "new":
            body = {"mode": mode, "vision": vision, "side": side, "first": first, **who}
            answer = request(url, "POST", "/api/remote", body, timeout=timeout)
        else:
            code = normalize_code(remote)
            answer = join(url, code, who, timeout)
    except Unreached as exc:
        raise RemoteError(f"--hub: {url} cannot be reached ({exc})") from None
    except HubAnswer as exc:
        if exc.status == 404:
            if remote == "new":
                raise RemoteError(f"--hub: {url} is not a hub that plays remote games") from None
            raise RemoteError(f"--remote: the hub has no game {shown_code(normalize_code(remote))}") from None
        raise RemoteError(f"--remote: the hub refused: {exc.message}") from None
    try:
        code, got, token = normalize_code(answer["code"]), answer["side"], answer["token"]
    except (KeyError, RemoteError):
        raise RemoteError(f"--hub: {url} did not answer as a hub does (code, side and token expected)") from None
    if got not in ("white", "black") or not isinstance(token, str):
        raise RemoteError(f"--hub: {url} did not answer as a hub does (code, side and token expected)")
    return {"hub": url, "code": code, "side": got, "token": token}


JOIN_TRIES = (0.0, 0.5, 1.5)  # a join's attempts: wait before each (seconds)


def join(url: str, code: str, who: dict, timeout: float = TIMEOUT, tries=JOIN_TRIES, clock: Clock = REAL) -> dict:
    """Join a game, sending the join again with the same ``request`` id when the answer is lost
    (the hub answers a retried join with the same seat: docs/remote-play.md, "A retried join");
    Unreached if no answer came after every try."""
    body = {**who, "request": secrets.token_urlsafe(24)}
    lost: Unreached | None = None
    for wait in tries:
        if wait:
            clock.sleep(wait)
        try:
            return request(url, "POST", f"/api/remote/{code}/join", body, timeout=timeout)
        except Unreached as exc:
            lost = exc
    raise lost if lost is not None else Unreached("no attempt was made")


class Link:
    """One side's live link to a remote game on the hub.  Thread-safe."""

    def __init__(self, file: LinkFile, *, on_state: Callable[[dict], None] | None = None,
                 on_status: Callable[[], None] | None = None, backoff: tuple[float, float] = BACKOFF,
                 silence: float = STREAM_SILENCE, timeout: float = TIMEOUT, clock: Clock = REAL):
        """``clock`` (``host.clock``): the backoff's waits and when each state came; the service
        that plays the game hands its own (``RemoteSeat.attach``)."""
        data = file.load()
        if data is None:
            raise RemoteError(f"{file.path.name}: no remote game to resume")
        self.file = file
        self.hub: str = data["hub"]
        self.code: str = data["code"]
        self.side: str = data["side"]
        self._token: str = data["token"]
        self._outbox: list[dict] = list(data["outbox"])
        self.over: bool = bool(data.get("over"))  # the game was last seen over (``--remote new`` starts another)
        self.on_state = on_state
        self.on_status = on_status
        self.backoff = backoff
        self.silence = silence
        self.timeout = timeout
        self.state: dict | None = None  # the newest state the hub sent
        self.clock = clock
        self.state_at = 0.0  # when it came (clock.now()): an absence's countdown goes on from there
        self.connected = False  # whether the stream is open now
        self.problem: str | None = None  # the last answer the hub refused with (one line)
        self.received = 0  # states received
        self.raw: list[bytes] = []  # every byte of the stream as received (tests compare them), when record_raw
        self.record_raw = False
        self._lock = threading.RLock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._got_state = threading.Event()  # set by the first state the hub sends
        self._sock: socket.socket | None = None  # the stream's socket while it is read
        self._threads: list[threading.Thread] = []
        self._held_at: int | None = None  # ``received`` when the hub last answered 423: held until a newer state
        self.attempts = 0  # requests the outbox made (tests count them)

    @classmethod
    def create(cls, file: LinkFile, opened: dict, **kw) -> "Link":
        """A new link for a game just created or joined (``open_game``'s answer): saved first."""
        file.save({**opened, "outbox": []})
        return cls(file, **kw)

    # --- what the table reads --------------------------------------------------------------------

    @property
    def shown(self) -> str:
        return shown_code(self.code)

    def paused(self) -> str | None:
        """Why the game waits now, or None: the hub not reached, or the hub's own ``paused``."""
        if not self.connected:
            return NOT_REACHED
        state = self.state
        return state.get("paused") if state else None

    def pending(self) -> list[dict]:
        with self._lock:
            return [dict(m) for m in self._outbox]

    # --- lifecycle -------------------------------------------------------------------------------

    def wait_state(self, timeout: float) -> bool:
        """Wait (on the link's clock) for the hub's first state; True once one came."""
        return self.clock.wait(self._got_state, timeout) or self.state is not None

    def start(self) -> "Link":
        for target, name in ((self._read_stream, "quin-remote-stream"), (self._drain, "quin-remote-send")):
            t = threading.Thread(target=target, name=name, daemon=True)
            t.start()
            self._threads.append(t)
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._wake.set()
        sock = self._sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)  # the stream's read ends at once
            except OSError:
                pass
        for t in self._threads:
            t.join(timeout)

    def forget(self) -> None:
        """The game is left for good: the link's file goes (its token with it)."""
        self.stop()
        self.file.clear()

    # --- this side's messages: the outbox --------------------------------------------------------

    def save(self) -> None:
        with self._lock:
            self._save()

    def _save(self) -> None:
        self.file.save({"hub": self.hub, "code": self.code, "side": self.side, "token": self._token,
                        "outbox": self._outbox, "over": self.over})

    def _enqueue(self, message: dict) -> None:
        with self._lock:
            if message in self._outbox:
                return
            self._outbox.append(message)
            self._save()  # durable before the referee goes on
        self._wake.set()

    def send_setup(self, setup: dict) -> None:
        """This side's lineup (the record's setup form), for the hub."""
        self._enqueue({"route": "setup", "body": {"setup": setup}})

    def send_action(self, seq: int, action: dict) -> None:
        """This side's committed action (full record), played at the hub's ``seq``."""
        self._enqueue({"route": "action", "body": {"seq": seq, "action": action}})

    def send_rematch(self) -> None:
        self._enqueue({"route": "rematch", "body": {}})

    def send_resign(self) -> None:
        """This side resigns (the player confirmed it): the rival wins."""
        self._enqueue({"route": "resign", "body": {}})

    def send_claim(self) -> None:
        """This side claims the game its rival abandoned (the hub's ``abandon`` says it may)."""
        self._enqueue({"route": "claim", "body": {}})

    def send_call_off(self) -> None:
        """Call off the game not begun (its answer is the hub's next state: ``called_off``)."""
        self._enqueue({"route": "call-off", "body": {}})

    def reveal(self, body: dict) -> dict:
        """Ask the hub what a flash or a Classic Time reveals (blocking: call it off the table's
        lock).  HubAnswer or Unreached when it cannot say now."""
        return request(self.hub, "POST", f"/api/remote/{self.code}/reveal", body, self._token, self.timeout)

    def check(self, action: dict) -> dict:
        return request(self.hub, "POST", f"/api/remote/{self.code}/check", {"action": action}, self._token,
                       self.timeout)

    def _settled(self, message: dict, state: dict | None) -> bool:
        """Does the hub's state already show this message taken (so it need not be sent)?"""
        if state is None:
            return False
        if message["route"] == "action":
            return state.get("seq", -1) > message["body"]["seq"]
        if message["route"] == "setup":
            return bool((state.get("setups_in") or {}).get(self.side)) or state.get("phase") in ("playing",) + ENDED
        if message["route"] == "rematch":  # asked already, or the next game has begun
            return bool((state.get("rematch") or {}).get(self.side)) or state.get("phase") != "over"
        if message["route"] in ("resign", "claim"):  # the game is over (by this or anything else)
            return state.get("phase") in ENDED
        if message["route"] == "call-off":  # called off (by either side), or begun meanwhile (409 then)
            return state.get("phase") in ENDED + ("playing",)
        return False

    def _held(self, message: dict, state: dict | None) -> bool:
        """Must this message wait for the hub's resume notice?  An action waits while the newest state
        says the game is paused, or after a 423 until a newer state came (the stream tells when
        the game goes on: no retrying into a pause).  Setups, resignations, claims and rematches
        are answered while paused."""
        if message["route"] != "action":
            return False
        if self._held_at is not None:
            if self.received == self._held_at:
                return True
            self._held_at = None
        return bool(state and state.get("paused"))

    def _drain(self) -> None:
        delay = 0.0
        held = False
        while not self._stop.is_set():
            self.clock.wait(self._wake, None if held else delay if delay else 1.0)
            self._wake.clear()
            if self._stop.is_set():
                return
            delay = 0.0
            held = False
            while not self._stop.is_set():
                with self._lock:
                    if not self._outbox:
                        break
                    message = self._outbox[0]
                    state = self.state
                if self._settled(message, state):
                    self._done(message)
                    continue
                if self._held(message, state):
                    delay = 0.0  # woken by the next state (or the stream coming back), not by a timer
                    held = True
                    break
                try:
                    self.attempts += 1
                    request(self.hub, "POST", f"/api/remote/{self.code}/{message['route']}", message["body"],
                            self._token, self.timeout)
                except Unreached:
                    delay = self._next(delay)
                    break
                except HubAnswer as exc:
                    if exc.status == 423:  # paused: sent again when the stream says the game goes on
                        with self._lock:
                            self._held_at = self.received
                        held = True
                        break
                    if exc.status == 429 or exc.status >= 500:
                        delay = max(exc.retry_after or 0.0, self._next(delay))
                        break
                    # Refused for good (stale, taken, bad): said once, and the stream tells the truth.
                    self.problem = exc.message
                    log.warning("the hub refused this side's %s: %s", message["route"], exc.message)
                    self._done(message)
                    if self.on_status:
                        self.on_status()
                    continue
                self.problem = None
                self._done(message)

    def _done(self, message: dict) -> None:
        with self._lock:
            if self._outbox and self._outbox[0] == message:
                self._outbox.pop(0)
                self._save()

    def _next(self, delay: float) -> float:
        low, high = self.backoff
        return min(high, max(low, delay * 2)) * random.uniform(0.8, 1.2)

    # --- the stream ------------------------------------------------------------------------------

    def _read_stream(self) -> None:
        delay = 0.0
        while not self._stop.is_set():
            if delay:
                self.clock.wait(self._stop, delay)
                if self._stop.is_set():
                    break
            try:
                got = self._stream_once()
            except HubAnswer as exc:
                self.problem = exc.message
                log.warning("the hub refused the stream: %s", exc.message)
                got = False
            except Reopen as exc:
                log.info("%s", exc)
                got = True
            except (OSError, http.client.HTTPException, ValueError) as exc:
                if not self._stop.is_set():  # (stop() shuts the socket: not news)
                    log.info("the hub's stream ended: %s", exc)
                got = False
            if self.connected:
                self.connected = False
                self._status()
            delay = self.backoff[0] * random.uniform(0.8, 1.2) if got else self._next(delay)

    def _stream_once(self) -> bool:
        """Read one connection of the stream until it ends; True if any state came through."""
        base = urllib.parse.urlsplit(self.hub).path.rstrip("/")
        conn = _connection(self.hub, self.silence)
        got = False
        try:
            query = urllib.parse.urlencode({"token": self._token})
            conn.request("GET", f"{base}/api/remote/{self.code}/stream?{query}",
                         headers={"Accept": "text/event-stream", "Cache-Control": "no-cache"})
            # the socket itself, for stop(): once the response says it closes the connection,
            # getresponse() lets go of conn.sock while the response still reads from it
            self._sock = conn.sock
            if self._stop.is_set():
                return got
            resp = conn.getresponse()
            if resp.status != 200:
                raw = resp.read()
                try:
                    message = json.loads(raw).get("error")
                except (ValueError, AttributeError):
                    message = None
                raise HubAnswer(resp.status, message or f"the hub answered {resp.status}")
            event: dict = {"data": []}
            first = True
            while not self._stop.is_set():
                line = resp.readline(1 << 22)  # the body, chunked or not
                if not line:
                    return got
                if self.record_raw:
                    self.raw.append(line)
                if not self.connected:
                    self.connected = True
                    self._status()
                text = line.decode("utf-8").rstrip("\r\n")
                if text == "":
                    if event["data"] and event.get("event", "message") == "state":
                        state = json.loads("\n".join(event["data"]))
                        if not first and self.over and state.get("phase") not in ENDED:
                            # the next round: its states are taken only from a stream opened for it
                            raise Reopen("a new round: the stream is opened again for this token's side")
                        self._on_state(state)
                        first = False
                        got = True
                    event = {"data": []}
                elif text.startswith(":"):
                    continue
                else:
                    field, _, value = text.partition(":")
                    value = value[1:] if value.startswith(" ") else value
                    if field == "data":
                        event["data"].append(value)
                    elif field in ("event", "id"):
                        event[field] = value
            return got
        finally:
            self._sock = None
            conn.close()

    def _on_state(self, state: dict) -> None:
        with self._lock:
            self.state = state
            self.state_at = self.clock.now()
            self.received += 1
            over = state.get("phase") in ENDED
            if state.get("side") in ("white", "black") and state["side"] != self.side and not over:
                self.side = state["side"]  # a rematch swapped the sides (the same token)
                self._save()
            if over != self.over:
                self.over = over
                self._save()
        self._got_state.set()
        self._wake.set()  # the outbox may be settled, or the pause over
        if self.on_state:
            self.on_state(state)

    def _status(self) -> None:
        self._wake.set()
        if self.on_status:
            self.on_status()
