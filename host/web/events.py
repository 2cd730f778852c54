"""Server-Sent Events: one stream per audience (public, white, black).

Every publication gives each audience one event, all with the same,
increasing id.  An event's data is JSON: ``{"state": ..., "notices": [...]}``,
where ``state`` is everything that audience may see now and ``notices`` are
what just happened for it (a flash, a question, an instruction).

- On connect a client receives the current state (event ``state``, no
  notices).  A client that reconnects with ``Last-Event-ID`` receives the
  events it missed, if they are still in the audience's history; otherwise the
  current state.
- Keep-alive comments go out when a stream has been idle for ``keepalive``
  seconds, so proxies and the server do not drop it.
- Each client has a bounded queue.  A client that falls that far behind is
  disconnected; its browser reconnects with ``Last-Event-ID`` and catches up.

Payloads are encoded once per audience, not once per client.
"""

from __future__ import annotations

import json
import queue
import threading
from collections import deque
from typing import Iterator

AUDIENCES = ("public", "white", "black")

_CLOSE = object()


def encode(event_id: int, name: str, data: dict) -> bytes:
    body = json.dumps(data, separators=(",", ":"))
    return f"id: {event_id}\nevent: {name}\ndata: {body}\n\n".encode()


class _Client:
    __slots__ = ("audience", "queue", "closed")

    def __init__(self, audience: str, size: int):
        self.audience = audience
        self.queue: queue.Queue = queue.Queue(maxsize=size)
        self.closed = False


class Broker:
    def __init__(self, history: int = 200, queue_size: int = 100, keepalive: float = 15.0, retry_ms: int = 1500):
        self.keepalive = keepalive
        self.retry_ms = retry_ms
        self.queue_size = queue_size
        self._lock = threading.Lock()
        self._id = 0
        self._history: dict[str, deque] = {a: deque(maxlen=history) for a in AUDIENCES}
        self._state: dict[str, dict] = {a: {} for a in AUDIENCES}
        self._clients: dict[str, set[_Client]] = {a: set() for a in AUDIENCES}
        self._closed = False

    @property
    def last_id(self) -> int:
        return self._id

    def publish(self, states: dict[str, dict], notices: dict[str, list] | None = None) -> int:
        """Send each audience its new state and notices; returns the event id."""
        notices = notices or {}
        with self._lock:
            self._id += 1
            event_id = self._id
            for audience in AUDIENCES:
                state = states[audience]
                self._state[audience] = state
                frame = encode(event_id, "update", {"state": state, "notices": notices.get(audience, [])})
                self._history[audience].append((event_id, frame))
                for client in list(self._clients[audience]):
                    self._offer(client, frame)
        return event_id

    def _offer(self, client: _Client, frame) -> None:
        if client.closed:
            return
        try:
            client.queue.put_nowait(frame)
        except queue.Full:
            # Too far behind: drop it; its browser reconnects with Last-Event-ID and catches up.
            self._close(client)

    def current(self, audience: str) -> dict:
        with self._lock:
            return self._state[audience]

    def disconnect(self, audience: str) -> int:
        """Close every stream of an audience (a seat was re-issued).  Returns how many."""
        with self._lock:
            clients = list(self._clients[audience])
            for client in clients:
                self._close(client)
        return len(clients)

    def _close(self, client: _Client) -> None:
        """End a client's stream.  Anything still queued is discarded, so the client's
        Last-Event-ID stays at the last event it really received and a resume misses nothing."""
        client.closed = True
        self._clients[client.audience].discard(client)
        while True:
            try:
                client.queue.get_nowait()
            except queue.Empty:
                break
        client.queue.put_nowait(_CLOSE)

    def close(self) -> None:
        """Close every stream (server shutdown)."""
        with self._lock:
            self._closed = True
            for audience in AUDIENCES:
                for client in list(self._clients[audience]):
                    self._close(client)

    def clients(self, audience: str | None = None) -> int:
        with self._lock:
            if audience is not None:
                return len(self._clients[audience])
            return sum(len(c) for c in self._clients.values())

    def stream(self, audience: str, last_event_id: str | None = None) -> Iterator[bytes]:
        """The byte stream of one client: what it missed (or the current state), then live events."""
        if audience not in AUDIENCES:
            raise ValueError(f"unknown audience {audience!r}")
        client = _Client(audience, self.queue_size)
        with self._lock:
            backlog = self._backlog(audience, last_event_id)
            if not self._closed:
                self._clients[audience].add(client)
            else:
                client.closed = True
        return self._run(client, backlog)

    def _backlog(self, audience: str, last_event_id: str | None) -> list[bytes]:
        history = self._history[audience]
        try:
            last = int(last_event_id) if last_event_id else None
        except ValueError:
            last = None
        if last is not None and last <= self._id:
            if last == self._id:
                return []
            if history and history[0][0] <= last + 1:
                return [frame for event_id, frame in history if event_id > last]
        return [encode(self._id, "state", {"state": self._state[audience], "notices": []})]

    def _run(self, client: _Client, backlog: list[bytes]) -> Iterator[bytes]:
        try:
            yield f"retry: {self.retry_ms}\n\n".encode() + b"".join(backlog)
            while not client.closed or not client.queue.empty():
                try:
                    item = client.queue.get(timeout=self.keepalive)
                except queue.Empty:
                    yield b": keep-alive\n\n"
                    continue
                if item is _CLOSE:
                    return
                yield item
        finally:
            with self._lock:
                client.closed = True
                self._clients[client.audience].discard(client)
