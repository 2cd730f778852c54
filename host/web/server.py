"""The web server: one event loop for every connection, a small thread pool for the app.

Why: a live page holds its stream open for as long as it is open.  Served by a
thread each (as a plain WSGI server does), a TV, a few phones and a curious
guest can take every thread and lock the referee's own requests out.  Here
(Tornado's HTTP/1.1 server and asyncio event loop):

- ``GET /events`` streams are served on the event loop itself: an open stream
  costs a socket and a few objects, no thread.  Frames come from the broker
  (``host.web.events``) and are written by the loop; a client that stops
  reading falls behind and is disconnected.
- Every other request is read by the loop (bounded: :data:`MAX_BODY`), then
  run by the Flask app on a bounded thread pool, so a request never waits
  behind a stream.
- Connections are capped per device (:func:`device`: an address, an IPv6
  /64; ``connections_per_client``, idle or not) and in all
  (``max_connections``, below the process's file limit with room to spare:
  :func:`raise_file_limit` lifts the soft limit to the hard one at start).
  The listening socket is read by the server's own accept loop
  (:class:`_Acceptor`): a connection over a cap is answered at once with a
  503 that says why and closed, before Tornado sees it, so a guest holding
  1,100 idle connections costs 64 file handles, not all of them.  When all
  are taken, a newcomer closes the connection idle longest (no request under
  way, no live page) rather than be refused, so idle connections from many
  addresses cannot lock the table out either.  If the process still runs out
  of files, the connections waiting are shed the same way (with a file handle
  kept in reserve) instead of spinning on them.
- Streams are capped per device (``streams_per_client``) and in all
  (``max_streams``, at most the connection cap less room for requests);
  beyond either a client gets a 503 that says why.
- Trouble (connections shed, files run out, accept errors) is logged in one
  line, at most once a minute, with counts (:class:`_Trouble`).
- A body over the limit gets a 413 without being kept (one up to
  :data:`DISCARD_LIMIT` is read and dropped, so the client sees the answer;
  a bigger one is answered at once and the connection closed).
- Nothing is logged per request: paths carry seat tokens.

:class:`WebServer` runs the loop in the calling thread (``quin serve``) or in a
thread of its own (tests, ``start_in_thread``); ``stop()`` ends every stream,
stops listening and returns within a second.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import errno
import io
import ipaddress
import json
import logging
import os
import resource
import socket
import sys
import threading
from urllib.parse import parse_qs, unquote_to_bytes, urlsplit

from tornado import httputil, netutil
from tornado.httpserver import HTTPServer
from tornado.iostream import IOStream

from host.clock import REAL, Clock

from .errors import MAX_BODY, too_large

DISCARD_LIMIT = 16 * 1024 * 1024  # an over-large body up to this size is read (and dropped) before the 413
STREAMS_PER_CLIENT = 16  # a browser keeps at most six connections to a server; a phone reconnects
MAX_STREAMS = 2000
MAX_CONNECTIONS = 4096  # in all, at most (each holds buffers); fewer when the file limit is lower
CONNECTIONS_PER_CLIENT = 64  # a browser opens at most six to a server; a page's streams count too
THREADS = 16
BACKLOG = 1024  # connections the kernel holds until accepted (a burst of them is taken, or shed, in batches)
RESERVED_FILES = 64  # file handles kept for the store, its backups, the board, mDNS, logs (plus 4 per thread)
TROUBLE_EVERY = 60.0  # seconds between two log lines about the same trouble
MAX_QUERY = 2048  # characters in a stream's query string
MAX_QUERY_FIELDS = 8  # fields in it: a page sends one or two

SECURITY_HEADERS = (
    ("Referrer-Policy", "no-referrer"),
    ("X-Content-Type-Options", "nosniff"),
    ("Cache-Control", "no-cache, no-store"),
)

log = logging.getLogger("quin.web")


class _OneLine(logging.Handler):
    """Tornado's and asyncio's warnings and errors: one line each, no traceback, no request detail,
    and each kind at most once a minute (a flood of failing connections must not flood the log)."""

    def emit(self, record: logging.LogRecord) -> None:
        kind = record.exc_info[0].__name__ if record.exc_info and record.exc_info[0] else None
        text = str(record.msg).splitlines()[0] if record.msg else record.levelname
        try:
            _LOGGED.note(f"{text.replace('%s', '…').replace('%r', '…')[:200]}{f' ({kind})' if kind else ''}")
        except Exception:  # noqa: BLE001 - a log line must never break the server
            pass


def _quiet_tornado() -> None:
    for name in ("tornado.access", "tornado.application", "tornado.general", "asyncio"):
        logger = logging.getLogger(name)
        logger.propagate = False
        logger.handlers[:] = [_OneLine(logging.WARNING)]
        logger.setLevel(logging.WARNING)
    logging.getLogger("tornado.access").setLevel(logging.CRITICAL + 1)  # never: paths hold tokens


def _json_error(status: int, message: str) -> tuple[int, list[tuple[str, str]], bytes]:
    body = json.dumps({"error": message, "status": status}).encode()
    return status, [("Content-Type", "application/json")], body


_REASONS = {200: "OK", 400: "Bad Request", 403: "Forbidden", 405: "Method Not Allowed",
            413: "Content Too Large", 500: "Internal Server Error", 503: "Service Unavailable"}


def device(address: str) -> str:
    """The device an address stands for, for the per-device caps: an IPv4 address, or an IPv6
    address's /64 (one device may take any number of addresses in its network's /64)."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address
    if ip.version == 6:
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def raise_file_limit() -> int:
    """Lift this process's soft limit on open files to its hard limit; the soft limit now in force."""
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (OSError, ValueError):  # pragma: no cover - no such limit here
        return 1024
    want = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 16)
    if soft != resource.RLIM_INFINITY and soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
            soft = want
        except (OSError, ValueError):  # a container may refuse: keep the soft limit
            pass
    return soft if soft != resource.RLIM_INFINITY else 1 << 16


def file_limit() -> int:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return soft if soft != resource.RLIM_INFINITY else 1 << 16


class _Trouble:
    """Trouble worth a log line, said at most once every TROUBLE_EVERY seconds, with counts.

    The first of a kind is said at once; what follows within the minute is counted and said in
    the next line.  Never a traceback: under a flood a traceback a connection writes megabytes a second.
    """

    def __init__(self, every: float = TROUBLE_EVERY, clock: Clock = REAL):
        self.every = every
        self.clock = clock
        self.counts: dict[str, int] = {}
        self.last = -every
        self.lines = 0

    def note(self, what: str) -> None:
        self.counts[what] = self.counts.get(what, 0) + 1
        self.flush()

    def flush(self, final: bool = False) -> None:
        now = self.clock()
        if not self.counts or (now - self.last < self.every and not final):
            return
        self.last = now
        text = "; ".join(f"{what} ({n}x)" if n > 1 else what for what, n in self.counts.items())
        self.counts = {}
        self.lines += 1
        _say(f"{text} (said at most once a minute)")


_LOGGED = _Trouble()  # what Tornado and asyncio log


def _say(text: str) -> None:
    try:
        sys.stderr.write(f"quin: web server: {text}\n")
        sys.stderr.flush()
    except Exception:  # noqa: BLE001 - a log line must never break the server
        pass


def _refusal(message: str) -> bytes:
    body = json.dumps({"error": message, "status": 503}).encode()
    head = ("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nRetry-After: 30\r\nConnection: close\r\n"
            + "".join(f"{k}: {v}\r\n" for k, v in SECURITY_HEADERS) + "\r\n")
    return head.encode() + body


class _CountedStream(IOStream):
    """A connection's stream that tells the server when its socket is closed (however that happens).

    ``busy``: a request is being answered on it; ``live``: it carries a live page.  A connection
    that is neither is idle, and the first to go when the server needs room (:meth:`WebServer.take`).
    """

    def __init__(self, sock, on_close, **kwargs):
        super().__init__(sock, **kwargs)
        self._on_close = on_close
        self.busy = False
        self.live = False

    def close_fd(self) -> None:
        try:
            super().close_fd()
        finally:
            done, self._on_close = self._on_close, None
            if done is not None:
                done()


class _Acceptor:
    """The listening socket, read on the event loop: every connection is counted, the excess shed."""

    BATCH = 64  # connections taken per wake-up, so a flood of them does not hold the loop

    def __init__(self, server: "WebServer", http: HTTPServer, sock: socket.socket):
        self.server = server
        self.http = http
        self.sock = sock
        self.loop = asyncio.get_running_loop()
        self.paused = False
        self.spare = self._spare()
        sock.setblocking(False)
        self.loop.add_reader(sock.fileno(), self.ready)

    @staticmethod
    def _spare() -> int | None:
        """A file handle held in reserve: given up to take (and refuse) a connection when files run out."""
        try:
            return os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return None

    def ready(self) -> None:
        for _ in range(self.BATCH):
            try:
                conn, address = self.sock.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                if exc.errno in (errno.ECONNABORTED, errno.EPROTO, errno.EPERM):
                    continue  # that one connection went away first
                if exc.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
                    self.out_of_files(exc)
                else:
                    self.server.trouble.note(f"accepting a connection failed: {exc.strerror or exc}")
                    self.pause(0.1)
                return
            self.server.take(self.http, conn, address)

    def out_of_files(self, exc: OSError) -> None:
        """No file handle for the connections waiting: shed them with the spare handle, and breathe."""
        self.server.trouble.note(f"out of file handles ({exc.strerror}): connections refused")
        for _ in range(self.BATCH):
            if self.spare is None:
                break
            os.close(self.spare)
            self.spare = None
            try:
                conn, _ = self.sock.accept()
            except OSError:
                self.spare = self._spare()
                break
            self.server.shed(conn, "the server is out of file handles: try again in a moment")
            self.spare = self._spare()
        self.pause(0.05)  # never spin on a socket that stays readable

    def pause(self, seconds: float) -> None:
        if self.paused:
            return
        self.paused = True
        self.loop.remove_reader(self.sock.fileno())

        def resume():
            self.paused = False
            if self.sock.fileno() >= 0:
                self.loop.add_reader(self.sock.fileno(), self.ready)

        # the machine's time, whatever the server's clock: a socket that stays readable must never hold the
        # loop, and a test's fake clock that nobody moves must never stop the server accepting
        REAL.call_later(self.loop, seconds, resume)

    def close(self) -> None:
        if not self.paused:
            self.loop.remove_reader(self.sock.fileno())
        self.paused = True
        self.sock.close()
        if self.spare is not None:
            os.close(self.spare)
            self.spare = None


class WebServer:
    """Serve a Flask app made by ``host.web.create_app`` (its table's broker gives the streams)."""

    def __init__(
        self,
        app,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        threads: int = THREADS,
        max_streams: int = MAX_STREAMS,
        streams_per_client: int = STREAMS_PER_CLIENT,
        connections_per_client: int = CONNECTIONS_PER_CLIENT,
        max_connections: int | None = None,
        clock: Clock = REAL,
    ):
        """``clock`` (``host.clock``): keep-alives and the trouble counter read it (``quin serve``
        passes its service's one time source; a test may pass a ``FakeClock`` and move it).  The
        acceptor's pause and the shutdown's grace guard the machine and stay on its time."""
        self.app = app
        self.clock = clock
        self.table = app.extensions["quin.table"]
        self.broker = self.table.broker
        self.host = host
        # Every connection is a file handle: stay below the limit, with room for the store and the rest.
        room = min(MAX_CONNECTIONS, max(16, file_limit() - RESERVED_FILES - 4 * threads))
        self.max_connections = min(max_connections, room) if max_connections else room
        self.connections_per_client = connections_per_client
        # Streams leave connections for the requests that change the game (and read it).
        self.max_streams = min(max_streams, max(1, self.max_connections - max(16, self.max_connections // 8)))
        self.streams_per_client = streams_per_client
        self.connections: dict[str, int] = {}
        self.open_connections = 0
        self.idle: dict[_CountedStream, None] = {}  # connections with nothing under way, idle longest first
        self.trouble = _Trouble(clock=clock)
        self.executor = concurrent.futures.ThreadPoolExecutor(max_workers=threads, thread_name_prefix="quin-web")
        _quiet_tornado()
        # SO_REUSEADDR (Tornado sets it): a restart binds at once, even with connections in TIME_WAIT.
        self.sockets = netutil.bind_sockets(port, host or None, backlog=BACKLOG,
                                            family=socket.AF_INET if host in ("", "0.0.0.0") else socket.AF_UNSPEC)
        self.port = self.sockets[0].getsockname()[1]
        self.streams: set[_Stream] = set()
        self.per_client: dict[str, int] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._pending: list = []
        self._pending_lock = threading.Lock()
        self._flush_scheduled = False
        self.inflight = 0  # app requests being answered (event loop thread)

    # --- running -------------------------------------------------------------------------------

    async def serve(self, until: asyncio.Event | None = None) -> None:
        """Serve until ``until`` is set (or :meth:`stop`), then shut down cleanly."""
        self.loop = asyncio.get_running_loop()
        self._stop = until or asyncio.Event()
        server = HTTPServer(
            _Router(self),
            idle_connection_timeout=75,  # an idle keep-alive connection; streams write keep-alives
            body_timeout=30,
            max_header_size=16 * 1024,
            max_body_size=DISCARD_LIMIT,
        )
        acceptors = [_Acceptor(self, server, sock) for sock in self.sockets]
        keepalive = asyncio.ensure_future(self._every(max(0.05, min(1.0, self.broker.keepalive / 3)), self._keepalive))
        trouble = asyncio.ensure_future(self._every(5.0, self._flush_trouble))  # what was counted is said within the minute
        self._ready.set()
        try:
            await self._stop.wait()
        finally:
            keepalive.cancel()
            trouble.cancel()
            for acceptor in acceptors:  # no new connections
                acceptor.close()
            for stream in list(self.streams):
                stream.end(close=True)
            # requests under way finish (a game change is kept whole), within half a second of the
            # machine's time: a test's fake clock that nobody moves must never hold a shutdown
            deadline = REAL.now() + 0.5
            while self.inflight and REAL.now() < deadline:
                await REAL.asleep(0.01)
            self.executor.shutdown(wait=False, cancel_futures=True)
            try:
                await asyncio.wait_for(server.close_all_connections(), 0.3)
            except (asyncio.TimeoutError, Exception):  # noqa: BLE001 - stopping regardless
                pass
            self._flush_trouble(final=True)

    async def _every(self, seconds: float, fn) -> None:
        """Call ``fn`` every ``seconds`` of the server's clock until cancelled (a failure is counted
        as trouble, and the timer goes on)."""
        while True:
            await self.clock.asleep(seconds)
            try:
                fn()
            except Exception as exc:  # noqa: BLE001 - a timer must outlive one bad call
                self.trouble.note(f"a timer failed: {type(exc).__name__}: {exc}")

    def _flush_trouble(self, final: bool = False) -> None:
        self.trouble.flush(final)
        _LOGGED.flush(final)

    def start_in_thread(self) -> "WebServer":
        """Serve from a thread of its own (tests); returns once listening."""

        def run():
            asyncio.run(self.serve())

        self._thread = threading.Thread(target=run, name="quin-web-loop", daemon=True)
        self._thread.start()
        self._ready.wait(10)
        return self

    def stop(self, timeout: float = 5) -> None:
        """Stop serving (from any thread)."""
        if self.loop is not None and self._stop is not None:
            try:
                self.loop.call_soon_threadsafe(self._stop.set)
            except RuntimeError:  # the loop has already ended
                pass
        if self._thread is not None:
            self._thread.join(timeout)

    # --- connections (event loop thread) ------------------------------------------------------------

    def take(self, http: HTTPServer, conn: socket.socket, address) -> None:
        """A new connection: served (counted until its socket closes), or shed with a 503."""
        client = device(address[0] if isinstance(address, tuple) and address else "")
        if self.open_connections >= self.max_connections and self.connections.get(client, 0) < self.connections_per_client:
            idlest = next((c for c in self.idle if not c.writing()), None)  # an answer still going out stays
            if idlest is not None:
                self.trouble.note(f"idle connections closed to make room: the server had {self.max_connections} "
                                  "open, its limit")
                idlest.close()  # its count goes at once (close_fd)
        if self.open_connections >= self.max_connections:
            self.trouble.note(f"connections refused: the server has {self.max_connections} open, its limit")
            self.shed(conn, f"the server has {self.max_connections} connections open, its limit: "
                            "try again in a moment")
            return
        if self.connections.get(client, 0) >= self.connections_per_client:
            self.trouble.note(f"connections refused: one address had {self.connections_per_client} open, "
                              "the limit for one device")
            self.shed(conn, f"this device already has {self.connections_per_client} connections open to the "
                            "server, the limit for one device: close some pages and reload")
            return
        self.open_connections += 1
        self.connections[client] = self.connections.get(client, 0) + 1

        def closed():
            self.idle.pop(stream, None)
            self.open_connections -= 1
            left = self.connections.get(client, 1) - 1
            if left > 0:
                self.connections[client] = left
            else:
                self.connections.pop(client, None)

        stream = None
        try:
            stream = _CountedStream(conn, closed, max_buffer_size=http.max_buffer_size,
                                    read_chunk_size=http.read_chunk_size)
        except Exception:  # noqa: BLE001 - the socket went bad at once
            closed()
            conn.close()
            return
        self.idle[stream] = None
        http.handle_stream(stream, address)

    def busy(self, stream, busy: bool) -> None:
        """A request starts (or is answered) on a connection: it is not idle (or idle again, newest)."""
        if not isinstance(stream, _CountedStream) or stream.closed():
            return
        stream.busy = busy
        self.idle.pop(stream, None)
        if not busy and not stream.live:
            self.idle[stream] = None

    def shed(self, conn: socket.socket, message: str) -> None:
        """Answer a connection we will not serve with a 503 saying why, and close it (never blocks)."""
        try:
            conn.setblocking(False)
            try:
                conn.recv(65536)  # a request already sent: read, so closing does not reset the answer
            except OSError:
                pass
            conn.send(_refusal(message))
            conn.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        finally:
            conn.close()

    # --- streams (event loop thread) ----------------------------------------------------------------

    def admit(self, client: str) -> str | None:
        """Why a new stream from ``client`` is refused (a 503), or None."""
        if len(self.streams) >= self.max_streams:
            return f"the server has {self.max_streams} live pages open, its limit: close some and reload"
        if self.per_client.get(client, 0) >= self.streams_per_client:
            return (f"this device already has {self.streams_per_client} live pages open, the limit for one "
                    "device: close some and reload")
        return None

    def added(self, stream: "_Stream") -> None:
        self.streams.add(stream)
        self.per_client[stream.client] = self.per_client.get(stream.client, 0) + 1

    def removed(self, stream: "_Stream") -> None:
        if stream in self.streams:
            self.streams.discard(stream)
            left = self.per_client.get(stream.client, 1) - 1
            if left > 0:
                self.per_client[stream.client] = left
            else:
                self.per_client.pop(stream.client, None)

    def offer(self, stream: "_Stream", frame: bytes | None) -> None:
        """From the publishing thread: queue a frame (None: the end) for the loop to write."""
        with self._pending_lock:
            self._pending.append((stream, frame))
            if self._flush_scheduled:
                return
            self._flush_scheduled = True
        try:
            self.loop.call_soon_threadsafe(self._flush)
        except RuntimeError:  # the loop has ended: the server is stopping
            pass

    def _flush(self) -> None:
        with self._pending_lock:
            pending, self._pending = self._pending, []
            self._flush_scheduled = False
        framed: dict[int, bytes] = {}  # each frame as an HTTP/1.1 chunk, made once for all its streams
        for stream, frame in pending:
            if frame is None:
                stream.end()
            else:
                chunk = framed.get(id(frame))
                if chunk is None:
                    chunk = framed[id(frame)] = b"%x\r\n%s\r\n" % (len(frame), frame)
                stream.write(frame, chunk)

    def _keepalive(self) -> None:
        now = self.clock.now()
        for stream in list(self.streams):
            if now - stream.last_write >= self.broker.keepalive:
                stream.write(b": keep-alive\n\n")


class _Router(httputil.HTTPServerConnectionDelegate):
    def __init__(self, server: WebServer):
        self.server = server

    def start_request(self, server_conn, request_conn) -> httputil.HTTPMessageDelegate:
        return _Request(self.server, request_conn)


class _Request(httputil.HTTPMessageDelegate):
    """One request: a stream (served here, on the loop) or an app request (run on the pool)."""

    def __init__(self, server: WebServer, conn):
        self.server = server
        self.conn = conn
        self.client = getattr(conn.context, "remote_ip", "") or ""
        self.body: list[bytes] = []
        self.size = 0
        self.too_large = False
        self.answered = False
        self.gone = False
        self.start_line = None
        self.headers = None

    # --- reading ------------------------------------------------------------------------------------

    def headers_received(self, start_line, headers):
        self.start_line, self.headers = start_line, headers
        self.server.busy(getattr(self.conn, "stream", None), True)
        length = headers.get("Content-Length")
        if length is not None and length.isdigit() and len(length) < 20 and int(length) > MAX_BODY:
            self.too_large = True
            if int(length) > DISCARD_LIMIT or headers.get("Expect", "").lower() == "100-continue":
                # Answer now and close: nobody reads 16 MB to say no.
                self.conn.set_max_body_size(int(length))
                self._refuse_too_large(close=True)  # Tornado closes once sent: the body was not read
        return None

    def data_received(self, chunk: bytes):
        if self.too_large:
            return None
        self.size += len(chunk)
        if self.size > MAX_BODY:
            self.too_large = True
            self.body = []
        else:
            self.body.append(chunk)
        return None

    def on_connection_close(self) -> None:
        self.gone = True

    def finish(self) -> None:
        if self.answered:
            return
        if self.too_large:
            self._refuse_too_large()
            return
        target = self.start_line.path
        path = urlsplit(target).path if "://" in target[:16] else target.split("?", 1)[0]
        if path == "/events":
            _Stream.open(self)
            return
        asyncio.ensure_future(self._run_app())

    def _refuse_too_large(self, close: bool = False) -> None:
        self.respond(*_json_error(413, too_large().message), close=close)

    # --- answering ----------------------------------------------------------------------------------

    def respond(self, status: int, headers: list[tuple[str, str]], body: bytes, reason: str | None = None,
                close: bool = False) -> None:
        if self.answered:
            return
        self.answered = True
        out = httputil.HTTPHeaders()
        for key, value in headers:
            out.add(key, value)
        for key, value in SECURITY_HEADERS:
            if key not in out:
                out[key] = value
        head = self.start_line is not None and self.start_line.method == "HEAD"
        if status not in (204, 304) and "Content-Length" not in out:
            out["Content-Length"] = str(len(body))
        if close:
            out["Connection"] = "close"
        try:
            self.conn.write_headers(
                httputil.ResponseStartLine("HTTP/1.1", status, reason or _REASONS.get(status, "Unknown")),
                out,
                b"" if head else body,
            )
            self.conn.finish()
        except Exception:  # noqa: BLE001 - a client gone or a header the app should not have made
            self.conn.close()
        self.server.busy(getattr(self.conn, "stream", None), False)

    async def _run_app(self) -> None:
        environ = self._environ()
        if environ is None:
            self.respond(*_json_error(400, "malformed request target"), close=True)
            return
        self.server.inflight += 1
        try:
            status, headers, body = await asyncio.get_running_loop().run_in_executor(
                self.server.executor, _call_app, self.server.app, environ
            )
        except (RuntimeError, concurrent.futures.CancelledError):  # the pool has shut down: stopping
            self.conn.close()
            return
        finally:
            self.server.inflight -= 1
        if self.gone:
            return
        code, _, reason = status.partition(" ")
        self.respond(int(code), headers, body, reason or None)

    def _environ(self) -> dict | None:
        target = self.start_line.path
        if "://" in target[:16]:
            parts = urlsplit(target)
            path, query = parts.path or "/", parts.query
        else:
            path, _, query = target.partition("?")
        if not path.startswith("/"):
            return None
        host, port = self.server.host or "0.0.0.0", str(self.server.port)
        environ = {
            "REQUEST_METHOD": self.start_line.method,
            "SCRIPT_NAME": "",
            "PATH_INFO": unquote_to_bytes(path).decode("latin-1"),
            "QUERY_STRING": query,
            "REMOTE_ADDR": self.client,
            "SERVER_NAME": host,
            "SERVER_PORT": port,
            "SERVER_PROTOCOL": self.start_line.version,
            "wsgi.version": (1, 0),
            "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(b"".join(self.body)),
            "wsgi.errors": io.StringIO(),
            "wsgi.multithread": True,
            "wsgi.multiprocess": False,
            "wsgi.run_once": False,
            "CONTENT_LENGTH": str(self.size),
        }
        for name in set(self.headers):
            if "_" in name:
                continue  # X_Seat_Token must not pass for X-Seat-Token
            value = ", ".join(self.headers.get_list(name))
            key = name.upper().replace("-", "_")
            if key == "CONTENT_TYPE":
                environ["CONTENT_TYPE"] = value
            elif key != "CONTENT_LENGTH":
                environ["HTTP_" + key] = value
        return environ


def _stream_args(query: str) -> dict | None:
    """A stream's query fields, or None when there are too many or the query is too long (a 400)."""
    if len(query) >= MAX_QUERY:
        return None
    try:
        return parse_qs(query, keep_blank_values=True, max_num_fields=MAX_QUERY_FIELDS)
    except ValueError:  # more than MAX_QUERY_FIELDS fields
        return None


def _call_app(app, environ) -> tuple[str, list, bytes]:
    """Run the WSGI app (on a pool thread) and collect its whole answer."""
    answer: dict = {}
    chunks: list[bytes] = []

    def start_response(status, headers, exc_info=None):
        answer["status"], answer["headers"] = status, list(headers)
        return chunks.append

    try:
        result = app(environ, start_response)
        try:
            for chunk in result:
                chunks.append(chunk)
        finally:
            if hasattr(result, "close"):
                result.close()
        return answer["status"], answer["headers"], b"".join(chunks)
    except Exception as exc:  # noqa: BLE001 - the app handles its own errors; this is the last net
        log.error("internal error %s outside the app's handlers", type(exc).__name__)
        status, headers, body = _json_error(500, "internal error: the game is safe; please try again")
        return "500 Internal Server Error", headers, body


class _Stream:
    """A live stream on the event loop: written frame by frame, ended by the broker or the client."""

    def __init__(self, request: _Request, audience: str):
        self.server = request.server
        self.conn = request.conn
        self.client = device(request.client)
        self.audience = audience
        self.subscription = None
        self.unflushed = 0
        self.last_write = self.server.clock.now()
        self.ended = False

    @classmethod
    def open(cls, request: _Request) -> None:
        server = request.server
        if request.start_line.method not in ("GET", "HEAD"):
            request.respond(*_json_error(405, "the live stream is read with GET"))
            return
        query = urlsplit(request.start_line.path).query
        args = _stream_args(query)
        if args is None:
            request.respond(*_json_error(400, f"the live stream takes at most {MAX_QUERY_FIELDS} query fields "
                                              f"in {MAX_QUERY // 1024} KB (seat, last_event_id)"))
            return
        audience = "public"
        if "seat" in args:
            player = server.table.seat_of(args["seat"][0])
            if player is None:
                request.respond(*_json_error(403, "unknown or revoked seat token"))
                return
            audience = player
        refused = server.admit(device(request.client))
        if refused:
            status, headers, body = _json_error(503, refused)
            request.respond(status, headers + [("Retry-After", "30")], body)
            return
        if request.start_line.method == "HEAD":
            request.respond(200, [("Content-Type", "text/event-stream")], b"")
            return
        last = request.headers.get("Last-Event-ID") or (args.get("last_event_id") or [None])[0]
        stream = cls(request, audience)
        request.answered = True
        counted = getattr(request.conn, "stream", None)
        if isinstance(counted, _CountedStream):
            counted.live = True  # a live page is never closed to make room
        server.added(stream)
        request.conn.set_close_callback(stream.gone)
        headers = httputil.HTTPHeaders()
        headers["Content-Type"] = "text/event-stream"
        headers["X-Accel-Buffering"] = "no"
        for key, value in SECURITY_HEADERS:
            headers[key] = value
        subscription = server.broker.stream(audience, last)
        stream.subscription = subscription
        try:
            request.conn.write_headers(httputil.ResponseStartLine("HTTP/1.1", 200, "OK"), headers)
        except Exception:  # noqa: BLE001 - the client left already
            stream.gone()
            return
        opening = subscription.attach(lambda frame: server.offer(stream, frame), lambda: server.offer(stream, None))
        stream.write(opening)

    def write(self, data: bytes, framed: bytes | None = None) -> None:
        """Write ``data`` (``framed``: the same as an HTTP/1.1 chunk, made once for every stream of a frame).

        A move goes to every live page at once: when nothing is waiting to go out on a connection
        (the usual case), the chunk is sent straight to its socket, without Tornado's two futures per
        write (a third of the time a move took to answer with 800 pages open); else it is queued
        behind what waits, and counted.
        """
        if self.ended:
            return
        if self.unflushed >= self.server.broker.queue_size:
            self.end(close=True)  # too far behind: its browser resumes with Last-Event-ID
            return
        self.last_write = self.server.clock.now()
        stream = getattr(self.conn, "stream", None)
        if getattr(self.conn, "_chunking_output", None) is True and stream is not None and not stream.closed():
            chunk = framed if framed is not None else b"%x\r\n%s\r\n" % (len(data), data)
            sent = 0
            if not stream.writing() and stream.socket is not None:
                try:
                    sent = stream.socket.send(chunk)
                except (BlockingIOError, InterruptedError):
                    sent = 0
                except OSError:
                    self.gone()
                    return
            if sent < len(chunk):
                self.unflushed += 1
                try:
                    future = stream.write(chunk[sent:] if sent else chunk)
                except Exception:  # noqa: BLE001 - closed meanwhile
                    self.gone()
                    return
                future.add_done_callback(self._written)
            return
        self.unflushed += 1
        future = self.conn.write(data)
        future.add_done_callback(self._written)

    def _written(self, future) -> None:
        self.unflushed -= 1
        if future.exception() is not None:
            self.gone()

    def end(self, close: bool = False) -> None:
        """End the stream: the browser reconnects (a re-issued seat gets a 403 then)."""
        if self.ended:
            return
        self.ended = True
        self.server.removed(self)
        if self.subscription is not None:
            self.subscription.close()
        try:
            if close:
                self.conn.close()
            else:
                self.conn.finish()
        except Exception:  # noqa: BLE001 - the connection is already gone
            self.conn.close()

    def gone(self) -> None:
        """The client closed the connection."""
        self.end(close=True)
