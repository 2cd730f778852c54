"""A remote-play client for the hub's tests: a seat (its token) and its state stream, read by a
thread of its own (standard library only; nothing of host/ is imported: the hub is checked from
outside, through its HTTP API, as the Pi and the browser page use it)."""

from __future__ import annotations

import http.client
import json
import threading
import time
import urllib.parse

from client import request


class Stream:
    """An open ``/api/remote/<code>/stream``: every message kept, raw and parsed, in order."""

    def __init__(self, base: str, code: str, token: str):
        u = urllib.parse.urlsplit(base)
        self.conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
        self.conn.request("GET", f"/api/remote/{code}/stream?token={urllib.parse.quote(token)}",
                          headers={"Accept": "text/event-stream"})
        self.resp = self.conn.getresponse()
        self.status = self.resp.status
        self.raw: list[bytes] = []  # each message's bytes as received
        self.states: list[dict] = []
        self.cond = threading.Condition()
        self.ended = False
        if self.status == 200:
            self.thread = threading.Thread(target=self._read, daemon=True)
            self.thread.start()

    def _read(self) -> None:
        lines: list[bytes] = []
        try:
            while True:
                line = self.resp.fp.readline()
                if not line:
                    break
                if line == b"\n":
                    if any(x.startswith(b"data: ") for x in lines):
                        blob = b"".join(lines)
                        data = json.loads(b"".join(x[6:] for x in lines if x.startswith(b"data: ")))
                        with self.cond:
                            self.raw.append(blob)
                            self.states.append(data)
                            self.cond.notify_all()
                    lines = []
                elif not line.startswith(b":"):
                    lines.append(line)
        except (OSError, ValueError):
            pass
        with self.cond:
            self.ended = True
            self.cond.notify_all()

    @property
    def last(self) -> dict | None:
        with self.cond:
            return self.states[-1] if self.states else None

    def wait(self, predicate, what: str = "a state", timeout: float = 30) -> dict:
        """The first state (from the newest back... no: the newest state) satisfying predicate."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                if self.states and predicate(self.states[-1]):
                    return self.states[-1]
                left = deadline - time.monotonic()
                if left <= 0 or self.ended:
                    raise AssertionError(f"timed out waiting for {what}; last state: "
                                         f"{json.dumps(self.states[-1] if self.states else None)[:600]}")
                self.cond.wait(min(left, 1.0))

    def close(self) -> None:
        try:
            self.conn.sock.shutdown(2)
        except (OSError, AttributeError):
            pass
        self.conn.close()


class Seat:
    def __init__(self, base: str, answer: dict):
        self.base = base
        self.code = answer["code"]
        self.side = answer["side"]
        self.token = answer["token"]

    def post(self, what: str, body=None, with_headers: bool = False):
        return request(f"{self.base}/api/remote/{self.code}/{what}", "POST", body if body is not None else {},
                       key=self.token, with_headers=with_headers)

    def stream(self, base: str | None = None) -> Stream:
        return Stream(base or self.base, self.code, self.token)


def create(base: str, **body) -> Seat:
    body = {"mode": "classic", "vision": False, "side": "white", "first": "white", "name": "Ann", "kind": "board",
            **body}
    status, answer = request(f"{base}/api/remote", "POST", body)
    assert status == 200, answer
    return Seat(base, answer)


def join(base: str, code: str, **body) -> Seat:
    body = {"name": "Bob", "kind": "browser", **body}
    status, answer = request(f"{base}/api/remote/{code}/join", "POST", body)
    assert status == 200, answer
    return Seat(base, answer)
