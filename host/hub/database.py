"""Whether this hub process reaches its database, said once, and answered at once.

:class:`Health` is told by the process's listening connection (its own connection to PostgreSQL,
which the server drops the moment it stops or restarts) and by any request whose database work
failed for want of the database (:func:`outage`): such a failure starts one :meth:`Health.probe`
(a fresh connection, ``SELECT 1``, within ``PROBE_WAIT``), and only a failed probe or a dropped
listening connection marks the database unreached.  Then every route that needs the database
answers 503 at once with one line (``ANSWER``) and ``Retry-After``, without waiting for a pooled
connection; the log says it once (and once again when it is back), never once per request and
never with a traceback.  A fresh connection (and the listening connection) is tried again every
``RETRY`` seconds; the first that connects marks it reached (the caller then renews its pool,
whose own reconnection waits grow to many seconds).

A failure of the database is told apart from a request that is wrong: PostgreSQL refusing a value
(:func:`refused_value`) is the request's fault (400), never 503; the hub checks what it stores
before it stores it (:mod:`host.hub.validate`), so that is a last defence, logged.
"""

from __future__ import annotations

import asyncio
import logging
import time

import psycopg
import psycopg_pool

from .store import schema

log = logging.getLogger("quin.hub")

ANSWER = "the hub's database is not reached: retry later"
BUSY = "the hub's database is busy: retry later"
RETRY_AFTER = 2  # seconds, the Retry-After of a 503
RETRY = 0.25  # seconds between attempts of the listening connection while the database is away
PROBE_WAIT = 1.0  # seconds a probe may take


def outage(exc: BaseException) -> bool:
    """Whether a failure is the database's (not reached, gone, no connection free), not the request's."""
    return isinstance(exc, (psycopg.OperationalError, psycopg.InterfaceError, OSError)) and not refused_value(exc)


def refused_value(exc: BaseException) -> bool:
    """Whether PostgreSQL refused a value of the request (a type, a NUL, a number out of range)."""
    return isinstance(exc, (psycopg.DataError, psycopg.errors.UntranslatableCharacter,
                            psycopg.errors.CharacterNotInRepertoire, UnicodeEncodeError))


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return (text.splitlines()[0] if text else type(exc).__name__)[:200]


class Health:
    """The database as this process last found it (``up``), changes logged once each."""

    def __init__(self, dsn: str, clock=time.monotonic):
        self.dsn = dsn
        self.clock = clock
        self.up = True
        self.since = clock()  # when ``up`` last changed
        self.changed = asyncio.Event()  # set at every change (tests and the pool's renewal wait on it)
        self._probe: asyncio.Task | None = None
        self._recovery: asyncio.Task | None = None
        self.on_back = None  # an async callable run when the database is reached again

    def lost(self, why: str) -> None:
        """The database is not reached (said once, until it is back)."""
        if not self.up:
            return
        self.up = False
        self.since = self.clock()
        log.warning("the hub's database is not reached (%s): answering 503 until it is back", why)
        self.changed.set()
        self.changed = asyncio.Event()
        if self._recovery is None or self._recovery.done():
            try:
                self._recovery = asyncio.get_running_loop().create_task(self._recover())
            except RuntimeError:  # no loop (a test of the bookkeeping alone)
                pass

    async def _recover(self) -> None:
        """Try a fresh connection every ``RETRY`` seconds until one reaches the database (the
        listening connection may say so first, or may never have lost its own connection)."""
        while not self.up:
            await asyncio.sleep(RETRY)
            if not self.up and await self.probe(quiet=True):
                await self.back()

    async def back(self) -> None:
        """The database is reached again (said once)."""
        if self.up:
            return
        away = self.clock() - self.since
        self.up = True
        self.since = self.clock()
        log.warning("the hub's database is reached again (after %.1f s)", away)
        if self.on_back is not None:
            try:
                await self.on_back()
            except Exception as exc:  # noqa: BLE001 - said, and the next failure probes again
                log.warning("the hub's database connections were not renewed: %s", first_line(exc))
        self.changed.set()
        self.changed = asyncio.Event()

    def failed(self, exc: BaseException) -> None:
        """A request's database work failed for the database (:func:`outage`): find out whether it
        is reached (one probe at a time), without waiting for the answer."""
        if not self.up or (self._probe is not None and not self._probe.done()):
            return
        self._probe = asyncio.get_running_loop().create_task(self.probe(exc))

    async def probe(self, exc: BaseException | None = None, quiet: bool = False) -> bool:
        """Whether a fresh connection reaches the database now (marks it lost if not, unless ``quiet``)."""
        try:
            conn = await asyncio.wait_for(psycopg.AsyncConnection.connect(
                self.dsn, autocommit=True, connect_timeout=max(1, int(PROBE_WAIT))), PROBE_WAIT)
            async with conn:
                await asyncio.wait_for(schema.ping(conn), PROBE_WAIT)
        except (psycopg.Error, OSError, asyncio.TimeoutError) as err:
            if not quiet:
                self.lost(first_line(err if exc is None or isinstance(exc, psycopg_pool.PoolTimeout) else exc))
            return False
        return True

    def said(self, exc: BaseException, what: str) -> None:
        """A background task's database work failed: an outage is said once (by a probe), anything
        else in one line with ``what`` failed."""
        if outage(exc):
            self.failed(exc)
        else:
            log.warning("%s: %s", what, first_line(exc))

    def answer(self, exc: BaseException) -> tuple[int, str]:
        """The status and one line to answer a request whose database work raised ``exc``."""
        if refused_value(exc):
            log.warning("PostgreSQL refused a value the hub's checks let through: %s", first_line(exc))
            return 400, "a value of the request cannot be kept (text with a NUL, a number out of range)"
        self.failed(exc)
        if isinstance(exc, psycopg_pool.PoolTimeout) and self.up:
            return 503, BUSY
        return 503, ANSWER


def quiet_pool_log() -> None:
    """psycopg's pool logs every failed connection attempt; the hub says an outage once itself."""
    logging.getLogger("psycopg.pool").setLevel(logging.CRITICAL)
