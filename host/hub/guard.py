"""The hub's connections, bounded before any route sees them.

:class:`Server` is tornado's HTTP server with:

- a cap of open connections per address (``per_address``): one more is answered ``429`` with
  ``Retry-After`` and closed, once its request's headers are in (or ``REFUSE_WAIT`` has passed);
- tornado's own timeouts: a connection idle between requests, or sending its request's headers,
  for ``idle`` seconds is closed (tornado uses one bound for both), and a body not sent within
  ``body_timeout`` seconds too;
- every request through :class:`Guard` first: a path with a NUL character (``%00``) is answered
  ``400``; a body over ``max_body`` bytes is answered ``413``, after it has been read and dropped
  (a client still sending a body it is refused would otherwise see its connection reset rather
  than the answer), or at once, closing the connection, when the client announced more than
  ``DRAIN_MAX`` bytes or waits for ``100 Continue``.
"""

from __future__ import annotations

import asyncio
import json
import urllib.parse

from tornado import httpserver, httputil, iostream

DRAIN_MAX = 64 * 1024 * 1024  # bytes of a refused body read and dropped before its 413, at most
REFUSE_WAIT = 2.0  # seconds a connection over the cap may take to send its request's headers


def _answer(request_conn, status: int, message: str, extra: dict | None = None) -> None:
    body = json.dumps({"error": message}).encode()
    headers = httputil.HTTPHeaders({"Content-Type": "application/json", "Content-Length": str(len(body)),
                                    "X-Content-Type-Options": "nosniff", **(extra or {})})
    request_conn.write_headers(httputil.ResponseStartLine("HTTP/1.1", status, httputil.responses[status]),
                               headers, body)
    request_conn.finish()


class _Guarded(httputil.HTTPMessageDelegate):
    """One request: refused here (NUL in its path, a body too large), or handed to the application."""

    def __init__(self, start, request_conn, max_body: int):
        self.start, self.conn, self.max_body = start, request_conn, max_body
        self.inner: httputil.HTTPMessageDelegate | None = None
        self.refused: tuple[int, str] | None = None
        self.answered = False
        self.size = 0

    def _refuse_now(self) -> None:
        if not self.answered:
            self.answered = True
            _answer(self.conn, *self.refused, {"Connection": "close"} if self.refused[0] == 413 else None)

    def headers_received(self, start_line, headers):
        path = start_line.path.partition("?")[0]
        if "\x00" in urllib.parse.unquote(path, errors="replace"):
            self.refused = (400, "path: a NUL character is not part of any address of the hub")
            return None
        length = headers.get("Content-Length", "")
        try:
            announced = int(length.split(",")[0]) if length else 0
        except ValueError:
            announced = 0  # tornado answers that itself (400)
        if announced > self.max_body:
            self.refused = (413, f"body: at most {self.max_body} bytes ({announced} sent)")
            if announced > DRAIN_MAX or headers.get("Expect", "").lower() == "100-continue":
                self._refuse_now()  # not worth reading (or not sent until told to): closed after
            return None
        self.inner = self.start()
        return self.inner.headers_received(start_line, headers)

    def data_received(self, chunk):
        self.size += len(chunk)
        if self.refused is None and self.size > self.max_body:  # a chunked body that grew too large
            self.refused = (413, f"body: at most {self.max_body} bytes")
            if self.inner is not None:
                self.inner.on_connection_close()  # the application forgets what it was given
                self.inner = None
        if self.refused is not None:
            if self.size > DRAIN_MAX:
                self._refuse_now()
            return None
        return self.inner.data_received(chunk)

    def finish(self):
        if self.refused is not None:
            self._refuse_now()
            return
        self.inner.finish()

    def on_connection_close(self):
        if self.inner is not None:
            self.inner.on_connection_close()


class Guard(httputil.HTTPServerConnectionDelegate):
    """The application behind :class:`_Guarded` requests."""

    def __init__(self, app, max_body: int):
        self.app, self.max_body = app, max_body

    def start_request(self, server_conn, request_conn):
        return _Guarded(lambda: self.app.start_request(server_conn, request_conn), request_conn, self.max_body)

    def on_close(self, server_conn):
        self.app.on_close(server_conn)


def _address(address) -> str:
    return address[0] if isinstance(address, tuple) and address else ""


class Server(httpserver.HTTPServer):
    """tornado's HTTPServer with a cap of connections per address and every request guarded."""

    def initialize(self, request_callback, per_address: int = 256, max_body: int = 4 * 1024 * 1024,
                   idle: float = 20.0, body_timeout: float = 60.0, **kwargs):
        self.per_address = per_address
        self.open: dict[str, int] = {}  # open connections per address
        self._refusing: set[asyncio.Task] = set()
        # tornado's own body limit out of the way: Guard answers 413 (tornado's would reset the client)
        super().initialize(Guard(request_callback, max_body), max_body_size=1 << 62, idle_connection_timeout=idle,
                           body_timeout=body_timeout, max_header_size=64 * 1024, **kwargs)

    def handle_stream(self, stream, address):
        ip = _address(address)
        if self.open.get(ip, 0) >= self.per_address:
            task = asyncio.ensure_future(_too_many(stream))
            self._refusing.add(task)
            task.add_done_callback(self._refusing.discard)
            return
        self.open[ip] = self.open.get(ip, 0) + 1
        super().handle_stream(stream, address)

    def on_close(self, server_conn):
        ip = _address(server_conn.context.address)
        left = self.open.get(ip, 1) - 1
        if left > 0:
            self.open[ip] = left
        else:
            self.open.pop(ip, None)
        super().on_close(server_conn)


async def _too_many(stream: iostream.IOStream) -> None:
    body = json.dumps({"error": "too many connections from this address; retry after 5 s"}).encode()
    try:
        try:  # its request first: closing on unread bytes would reset the connection, answer unread
            await asyncio.wait_for(stream.read_until_regex(b"\r?\n\r?\n", max_bytes=64 * 1024), REFUSE_WAIT)
        except (asyncio.TimeoutError, iostream.StreamClosedError, iostream.UnsatisfiableReadError):
            pass
        if not stream.closed():
            await stream.write(b"HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\n"
                               b"Retry-After: 5\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
    except iostream.StreamClosedError:
        pass
    finally:
        stream.close()
