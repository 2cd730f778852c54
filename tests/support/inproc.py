"""A real hub (host.hub.server.serve, on the real PostgreSQL of the tests) run in this process on a
thread of its own, so that a test can inject its clock: remote play's absences are counted on it
(``abandon_after``), and a test moves it on instead of sleeping."""

from __future__ import annotations

import asyncio
import threading


class Clock:
    """The hub's clock for absences: it stands still until the test moves it on."""

    def __init__(self, now: float = 1_800_000_000.0):
        self.now = now
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            return self.now

    def advance(self, seconds: float) -> None:
        with self._lock:
            self.now += seconds


class InProcessHub:
    def __init__(self, dsn: str, clock: Clock, **options):
        from host.hub import server

        self.clock = clock
        self._ready = threading.Event()
        self._port = None
        self._loop = None
        self._until = None
        self._error = None

        def ready(port):
            self._port = port
            self._ready.set()

        async def main():
            self._loop = asyncio.get_running_loop()
            self._until = asyncio.Event()
            await server.serve(dsn, "127.0.0.1", 0, ready=ready, until=self._until, clock=clock, **options)

        def run():
            try:
                asyncio.run(main())
            except BaseException as exc:  # noqa: BLE001 - said by the constructor
                self._error = exc
                self._ready.set()

        self.thread = threading.Thread(target=run, name="in-process-hub", daemon=True)
        self.thread.start()
        if not self._ready.wait(60) or self._port is None:
            raise AssertionError(f"the in-process hub did not start: {self._error!r}")
        self.url = f"http://127.0.0.1:{self._port}"

    def stop(self) -> None:
        if self._loop is not None and self._until is not None:
            self._loop.call_soon_threadsafe(self._until.set)
        self.thread.join(30)


FAST = {"presence_renew": 0.3, "presence_lapse": 1.5, "remote_rate": 1000.0, "join_rate": 100.0}


def fast_hub(dsn: str) -> InProcessHub:
    """A hub whose presence lapses in 1.5 s and whose rate limits are out of a test's way, on a
    clock of its own that stands still until the test moves it (``hub.clock.advance``)."""
    return InProcessHub(dsn, Clock(), **FAST)
