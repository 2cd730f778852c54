"""Server-Sent Events: one stream per audience (public, white, black).

A publication gives an audience an event only if something changed *for that
audience*: its state is different, or it has notices.  A question asked
privately to the mover, an answer, a rejected input: none of them sends the
public or the rival anything, so neither the count nor the timing of their
events tells them what happened at the mover's seat.  For the same reason each
audience has its own sequence of ids, without gaps.

Event ids never repeat across restarts: an id is ``epoch * ID_SPAN + n``,
where ``epoch`` (the table takes it from the store) grows by one at every
start and ``n`` counts that audience's events since.  An event's data is JSON:
``{"state": ..., "notices": [...]}``.

- On connect a client receives the current state (event ``state``, no
  notices).  A client that reconnects with ``Last-Event-ID`` receives the
  events it missed, if they are still in the audience's history; for any
  other id (older, from another start, junk) the current state.
- Keep-alive comments go out when a stream has been idle for ``keepalive``
  seconds, so proxies and the server do not drop it.
- A client may fall ``queue_size`` events behind; further behind it is
  disconnected, and its browser reconnects with ``Last-Event-ID`` and catches
  up.

A stream is a :class:`Subscription`.  The web server (``host.web.server``)
*attaches* a callback to it and writes each frame from its event loop; a
synchronous reader can instead iterate it (it then blocks between events).
Payloads are encoded once per audience, not once per client.
"""

from __future__ import annotations

import json
import queue
import threading
from collections import deque
from typing import Callable

AUDIENCES = ("public", "white", "black")
ID_SPAN = 10**9  # events per audience per start; an epoch's ids never reach the next epoch's

_CLOSE = object()


def encode(event_id: int, name: str, data: dict) -> bytes:
    body = json.dumps(data, separators=(",", ":"))
    return f"id: {event_id}\nevent: {name}\ndata: {body}\n\n".encode()


KEEPALIVE = b": keep-alive\n\n"


class Subscription:
    """One client's stream of one audience.

    Pull: iterate it (``next`` blocks until the next frame or a keep-alive).
    Push: ``attach(deliver, end)``; ``deliver(frame)`` is then called, under the
    broker's lock and from the publishing thread, for every frame, and ``end()``
    once when the broker ends the stream.  ``close()`` in both cases.
    """

    def __init__(self, broker: "Broker", audience: str, opening: bytes):
        self.broker = broker
        self.audience = audience
        self.opening = opening  # the retry line and the backlog (or the current state)
        self.queue: queue.Queue = queue.Queue(maxsize=broker.queue_size)
        self.closed = False
        self._deliver: Callable[[bytes], None] | None = None
        self._end: Callable[[], None] | None = None
        self._sent_opening = False

    # --- push --------------------------------------------------------------------------------

    def attach(self, deliver: Callable[[bytes], None], end: Callable[[], None]) -> bytes:
        """Switch to push; returns the opening bytes to write first (frames queued meanwhile included)."""
        with self.broker._lock:
            out = [self.opening]
            self._sent_opening = True
            while True:
                try:
                    item = self.queue.get_nowait()
                except queue.Empty:
                    break
                if item is _CLOSE:
                    end()
                    return b"".join(out)
                out.append(item)
            self._deliver, self._end = deliver, end
            if self.closed:
                end()
            return b"".join(out)

    # --- pull --------------------------------------------------------------------------------

    def __iter__(self):
        return self

    def __next__(self) -> bytes:
        if not self._sent_opening:
            self._sent_opening = True
            return self.opening
        while True:
            if self.closed and self.queue.empty():
                self.close()
                raise StopIteration
            try:
                item = self.queue.get(timeout=self.broker.keepalive)
            except queue.Empty:
                return KEEPALIVE
            if item is _CLOSE:
                self.close()
                raise StopIteration
            return item

    # --- both --------------------------------------------------------------------------------

    def _offer(self, frame: bytes) -> bool:
        """Hand a frame on (broker lock held); False if the client is too far behind."""
        if self._deliver is not None:
            self._deliver(frame)
            return True
        try:
            self.queue.put_nowait(frame)
            return True
        except queue.Full:
            return False

    def _ended(self) -> None:
        """The broker ends this stream (broker lock held)."""
        self.closed = True
        if self._end is not None:
            end, self._end, self._deliver = self._end, None, None
            end()
            return
        # Anything still queued is discarded, so the client's Last-Event-ID stays at the
        # last event it really received and a resume misses nothing.
        while True:
            try:
                self.queue.get_nowait()
            except queue.Empty:
                break
        self.queue.put_nowait(_CLOSE)

    def close(self) -> None:
        """The client is gone: forget it."""
        with self.broker._lock:
            self.closed = True
            self._deliver = self._end = None
            self.broker._clients[self.audience].discard(self)


class Broker:
    def __init__(
        self,
        history: int = 200,
        queue_size: int = 100,
        keepalive: float = 15.0,
        retry_ms: int = 1500,
        epoch: int = 0,
    ):
        self.keepalive = keepalive
        self.retry_ms = retry_ms
        self.queue_size = queue_size
        self._lock = threading.Lock()
        self._base = epoch * ID_SPAN
        self._seq: dict[str, int] = {a: self._base for a in AUDIENCES}
        self._history: dict[str, deque] = {a: deque(maxlen=history) for a in AUDIENCES}
        self._state: dict[str, dict] = {a: {} for a in AUDIENCES}
        self._clients: dict[str, set[Subscription]] = {a: set() for a in AUDIENCES}
        self._closed = False

    def set_epoch(self, epoch: int) -> None:
        """Number this start's events after every earlier start's (before anything is published)."""
        with self._lock:
            self._base = epoch * ID_SPAN
            self._seq = {a: self._base for a in AUDIENCES}
            for history in self._history.values():
                history.clear()

    def last_id(self, audience: str) -> int:
        return self._seq[audience]

    def publish(self, states: dict[str, dict], notices: dict[str, list] | None = None) -> dict[str, int]:
        """Send each audience its new state and notices, if anything changed for it.

        Returns the audiences that received an event, with its id.
        """
        notices = notices or {}
        sent: dict[str, int] = {}
        with self._lock:
            for audience in AUDIENCES:
                state = states[audience]
                news = notices.get(audience, [])
                if not news and state == self._state[audience]:
                    continue  # nothing happened that this audience may know of
                self._state[audience] = state
                self._seq[audience] += 1
                event_id = self._seq[audience]
                frame = encode(event_id, "update", {"state": state, "notices": news})
                self._history[audience].append((event_id, frame))
                for client in list(self._clients[audience]):
                    if not client._offer(frame):
                        self._end(client)  # too far behind: it resumes with Last-Event-ID
                sent[audience] = event_id
        return sent

    def current(self, audience: str) -> dict:
        with self._lock:
            return self._state[audience]

    def disconnect(self, audience: str) -> int:
        """End every stream of an audience (a seat was re-issued).  Returns how many."""
        with self._lock:
            clients = list(self._clients[audience])
            for client in clients:
                self._end(client)
        return len(clients)

    def _end(self, client: Subscription) -> None:
        self._clients[client.audience].discard(client)
        client._ended()

    def close(self) -> None:
        """End every stream (server shutdown); later streams end at once."""
        with self._lock:
            self._closed = True
            for audience in AUDIENCES:
                for client in list(self._clients[audience]):
                    self._end(client)

    def clients(self, audience: str | None = None) -> int:
        with self._lock:
            if audience is not None:
                return len(self._clients[audience])
            return sum(len(c) for c in self._clients.values())

    def stream(self, audience: str, last_event_id: str | None = None) -> Subscription:
        """A new client's stream: what it missed (or the current state), then live events."""
        if audience not in AUDIENCES:
            raise ValueError(f"unknown audience {audience!r}")
        with self._lock:
            opening = f"retry: {self.retry_ms}\n\n".encode() + b"".join(self._backlog(audience, last_event_id))
            client = Subscription(self, audience, opening)
            if self._closed:
                client._ended()
            else:
                self._clients[audience].add(client)
        return client

    def _backlog(self, audience: str, last_event_id: str | None) -> list[bytes]:
        history = self._history[audience]
        current = self._seq[audience]
        last = None
        if last_event_id and len(last_event_id) <= 20 and last_event_id.isascii() and last_event_id.isdigit():
            last = int(last_event_id)
        if last is not None and self._base <= last <= current:
            if last == current:
                return []
            if history and history[0][0] <= last + 1:
                return [frame for event_id, frame in history if event_id > last]
        return [encode(current, "state", {"state": self._state[audience], "notices": []})]
