"""What every HTTP route of the hub stands on: :class:`Base` (the hub's handler: 503 while the
database is away, one-line errors, an access log that never names a query string), the
:class:`Limiter` of rates, and the pause a client over its open streams is asked to wait.

Both the board-facing routes (``host.hub.server``) and remote play's (``host.hub.remote``) are built
on it, so neither imports the other for it."""

from __future__ import annotations

import json
import logging
import time
from typing import TYPE_CHECKING

from tornado import web

from . import database

if TYPE_CHECKING:  # pragma: no cover
    from .server import Hub

log = logging.getLogger("quin.hub")

STREAM_RETRY = 5  # seconds a client over its open streams is asked to wait


class Limiter:
    """A token bucket per name (a key, an address): ``rate`` per second, bursts of ``burst``."""

    def __init__(self, rate: float, burst: float):
        self.rate, self.burst = rate, burst
        self._buckets: dict[str, tuple[float, float]] = {}

    def allow(self, name: str) -> bool:
        now = time.monotonic()
        tokens, at = self._buckets.get(name, (self.burst, now))
        tokens = min(self.burst, tokens + (now - at) * self.rate)
        if tokens < 1:
            self._buckets[name] = (tokens, now)
            return False
        self._buckets[name] = (tokens - 1, now)
        if len(self._buckets) > 10000:  # forget the oldest names
            for old in list(self._buckets)[:5000]:
                del self._buckets[old]
        return True

    def wait(self, name: str) -> float:
        """0 if ``name`` may go now (and counts it), else the seconds until it may (for Retry-After)."""
        if self.allow(name):
            return 0.0
        tokens, _ = self._buckets[name]
        return max(0.001, (1 - tokens) / self.rate)


class Base(web.RequestHandler):
    needs_database = True  # while the database is not reached, such a route answers 503 at once
    quiet_log = False  # the access log leaves this answer out (a 503 of an outage the log said once)

    @property
    def hub(self) -> Hub:
        return self.application.settings["hub"]

    def set_default_headers(self):
        self.set_header("X-Content-Type-Options", "nosniff")
        self.set_header("Referrer-Policy", "no-referrer")

    def prepare(self):
        if self.needs_database and not self.hub.db.up:
            self.quiet_log = True
            self.set_header("Retry-After", str(database.RETRY_AFTER))
            self.fail(503, database.ANSWER)

    def database_failed(self, exc: BaseException) -> None:
        """Answer a request whose database work raised ``exc``: 503 (retry) if the database is
        away or busy, 400 if PostgreSQL refused a value of it (host/hub/database.py)."""
        status, message = self.hub.db.answer(exc)
        if status == 503:
            self.quiet_log = True
            self.set_header("Retry-After", str(database.RETRY_AFTER))
        self.fail(status, message)

    def write_error(self, status_code, **kw):
        exc = kw.get("exc_info", (None, None, None))[1]
        if exc is not None and (database.outage(exc) or database.refused_value(exc)):
            return self.database_failed(exc)
        self.finish({"error": self._reason})

    def _request_summary(self) -> str:
        # never the query string (a remote stream's seat token travels in one): the path only
        return f"{self.request.method} {self.request.path} ({self.request.remote_ip})"

    def log_exception(self, typ, value, tb):
        if database.outage(value) or database.refused_value(value):
            return  # said by the answer (host/hub/database.py): once per outage, never a traceback
        if isinstance(value, web.HTTPError):
            if value.log_message:
                log.warning("%d %s: %s", value.status_code, self._request_summary(), value.log_message)
        else:  # tornado's own would add the request, its URI with it
            log.error("uncaught exception %s", self._request_summary(), exc_info=(typ, value, tb))

    def fail(self, status: int, message: str, **more) -> None:
        self.set_status(status, reason=message.splitlines()[0][:200].replace("\r", ""))
        self.finish({"error": message, **{k: v for k, v in more.items() if v}})

    def too_many(self, message: str, wait: float) -> None:
        """429 with Retry-After (whole seconds, at least 1) and the same in the body."""
        seconds = max(1, int(wait + 0.999))
        self.set_header("Retry-After", str(seconds))
        self.fail(429, f"{message}; retry after {seconds} s")

    def json(self, value) -> None:
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(value, separators=(",", ":"), default=str))


def _quiet(future) -> None:
    future.exception()  # a write to a closed stream: the stream ends by on_connection_close
