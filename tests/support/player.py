"""A scripted remote player speaking the hub's HTTP API (docs/remote-play.md, Protocol) with the
standard library only: it creates or joins a game, sends its lineup and actions, and follows its
own stream.  It imports nothing from host/."""

from __future__ import annotations

import http.client
import json
import threading
import time
import urllib.parse


def call(url: str, method: str, path: str, body=None, token: str | None = None):
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=20)
    headers = {}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    if token:
        headers["Authorization"] = f"Bearer {token}"
    conn.request(method, path, body=data, headers=headers)
    resp = conn.getresponse()
    raw = resp.read()
    conn.close()
    try:
        return resp.status, json.loads(raw)
    except ValueError:
        return resp.status, raw


class RemotePlayer:
    """One side played over HTTP: ``states`` is every state its stream brought, newest last."""

    def __init__(self, url: str, name: str = "Bob"):
        self.url, self.name = url, name
        self.code = self.side = self.token = None
        self.states: list[dict] = []
        self.cond = threading.Condition()
        self._conn = None
        self._closed = False

    def create(self, **body):
        status, ans = call(self.url, "POST", "/api/remote", {"name": self.name, "kind": "browser", **body})
        assert status == 200, ans
        self.code, self.side, self.token = ans["code"], ans["side"], ans["token"]
        return ans

    def join(self, code: str):
        status, ans = call(self.url, "POST", f"/api/remote/{code}/join", {"name": self.name, "kind": "browser"})
        assert status == 200, ans
        self.code, self.side, self.token = ans["code"], ans["side"], ans["token"]
        return ans

    def post(self, route: str, body):
        return call(self.url, "POST", f"/api/remote/{self.code}/{route}", body, self.token)

    def listen(self):
        """Follow the stream, reconnecting as a browser's EventSource does, until ``close``.  Each
        listen has its own follower and stop: a follower of an earlier listen, closed while it
        waited to reconnect, never comes back as a second stream (the page was closed)."""
        self._closed = False
        stop = self._stop = threading.Event()
        threading.Thread(target=self._follow, args=(stop,), daemon=True).start()
        return self

    def _follow(self, stop: threading.Event):
        while not stop.is_set():
            try:
                self._listen(stop)
            except OSError:
                pass
            # a browser's EventSource waits a moment before it reconnects (at once if closed meanwhile)
            stop.wait(0.05)

    def _listen(self, stop: threading.Event):
        u = urllib.parse.urlsplit(self.url)
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
        self._conn = conn
        resp = None
        try:
            conn.request("GET", f"/api/remote/{self.code}/stream?token={self.token}")
            resp = conn.getresponse()
            if not stop.is_set():
                self._read(resp, stop)
        except OSError:
            return
        finally:
            # a page that goes away closes its connection: the socket itself, not only a shutdown
            # (close() may also have come while this connected)
            if resp is not None:
                resp.close()
            conn.close()

    def _read(self, resp, stop: threading.Event):
        data = []
        try:
            while True:
                line = resp.readline()
                if not line or stop.is_set():
                    return
                text = line.decode().rstrip("\n")
                if text.startswith("data:"):
                    data.append(text[5:].lstrip())
                elif text == "" and data:
                    state = json.loads("\n".join(data))
                    state["_t"] = time.perf_counter()  # when it arrived (the bench reads it)
                    with self.cond:
                        self.states.append(state)
                        self.cond.notify_all()
                    data = []
        except OSError:
            return

    def close(self):
        self._closed = True
        stop = getattr(self, "_stop", None)
        if stop is not None:
            stop.set()
        if self._conn is not None and self._conn.sock is not None:
            import socket
            try:
                self._conn.sock.shutdown(socket.SHUT_RDWR)  # the reader thread closes it (_listen)
            except OSError:
                pass

    def wait(self, pred, timeout: float = 20.0) -> dict:
        with self.cond:
            ok = self.cond.wait_for(lambda: self.states and pred(self.states[-1]), timeout)
            assert ok, f"the remote player waited in vain; last state: {self.states[-1] if self.states else None}"
            return self.states[-1]
