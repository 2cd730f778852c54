"""Error handling: a clear one-line message, JSON for the API, never a traceback."""

from __future__ import annotations

import logging
import sqlite3
import traceback

from flask import jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from engine.errors import bounded
from host.clock import REAL

log = logging.getLogger("quin.web")

MAX_BODY = 64 * 1024  # bytes in a request body; the largest real one (a setup) is under 1 KB


class _OncePerMinute(logging.Filter):
    """Each kind of error (its first line) is logged at most once a minute; the next line
    says how many were left out, so a guest repeating a failing request cannot flood the log."""

    EVERY = 60.0

    def __init__(self, clock=REAL):
        super().__init__()
        self.clock = clock
        self.seen: dict[str, tuple[float, int]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            key = record.getMessage().split("\n", 1)[0]  # "internal error KeyError at": the kind, not where
        except Exception:  # noqa: BLE001 - a record that does not format is its own kind
            key = str(record.msg)
        now = self.clock()
        last, skipped = self.seen.get(key, (None, 0))
        if last is not None and now - last < self.EVERY:
            self.seen[key] = (last, skipped + 1)
            return False
        self.seen[key] = (now, 0)
        if skipped:
            record.msg = f"{record.msg} ({skipped} more like it in the last minute, not logged)"
        return True


log.addFilter(_OncePerMinute())


class ApiError(Exception):
    """An error to answer with ``status`` and a message the user can act on."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def bad_request(message: str) -> ApiError:
    return ApiError(400, message)


def forbidden(message: str = "unknown or revoked seat token") -> ApiError:
    return ApiError(403, message)


def too_large() -> ApiError:
    """A body over MAX_BODY (``host.web.bodies`` reads one; ``host.web.server`` refuses it unread)."""
    return ApiError(413, f"the request body is too large: at most {MAX_BODY // 1024} KB")


def _wants_json() -> bool:
    path = request.path
    return path.startswith("/api/") or path.startswith("/events") or request.accept_mimetypes.best == "application/json"


def _respond(status: int, message: str):
    message = bounded(message)  # the last net: a message quotes values through engine.errors.quoted
    if _wants_json():
        return jsonify({"error": message, "status": status}), status
    return render_template("error.html", status=status, message=message), status


def register(app) -> None:
    @app.errorhandler(ApiError)
    def _api_error(exc: ApiError):
        return _respond(exc.status, exc.message)

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException):
        if exc.code == 413:
            return _respond(413, too_large().message)
        return _respond(exc.code or 500, exc.description or exc.name)

    @app.errorhandler(sqlite3.DatabaseError)
    def _store_error(exc: sqlite3.DatabaseError):
        from host.store import StoreWriteError

        if isinstance(exc, StoreWriteError):  # read-only, full or failing: nothing was changed
            log.error("the game store could not be written")
            return _respond(503, f"{exc}: nothing was changed; try again once it can be written")
        log.error("the game store does not read: %s", type(exc).__name__)
        return _respond(503, "the game store could not be read: try again; if this persists, "
                             "run `quin store check` on the server")

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception):
        # Log the type and where it happened: never the request path (it may hold a seat
        # token) nor the message (an engine message may name a hidden piece).
        where = "\n".join(f"  {f.filename}:{f.lineno} in {f.name}" for f in traceback.extract_tb(exc.__traceback__))
        log.error("internal error %s at\n%s", type(exc).__name__, where)
        return _respond(500, "internal error: the game is safe; please try again")
