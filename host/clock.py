"""The board-side service's one time source (issue 32, "One time source").

Every timer of the service reads time from one :class:`Clock`, built by the composition root
(``host.compose.Service``) and passed down: the board loop and the ticker, the table and its
sessions, the remote link's backoff and the session's absence countdown and ask-again, the push
to a hub, the practice opponent's thinking time, and the web server's keep-alives, trouble counter
and pauses.  Nothing else in those modules calls ``time.monotonic``/``time.time``/``time.sleep``
(``tests/host/test_one_clock.py`` reads the source to hold it so).

- :data:`REAL` (a :class:`Clock`): the machine's clocks.
- :class:`FakeClock`: a clock tests move by hand (``advance(dt)``); whatever sleeps or waits on
  it wakes when time passes its moment, at once and on no timer of the machine's.

A clock is callable (``clock()`` is ``clock.now()``), so it stands wherever a plain
``Callable[[], float]`` clock was taken before.  Standard library only.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import threading
import time

FAKE_POLL = 0.02  # real seconds a FakeClock waiter looks again at an event set by another thread


class Clock:
    """The real clock: monotonic time for timers, the wall clock for records."""

    def now(self) -> float:
        """Monotonic seconds: for durations and deadlines."""
        return time.monotonic()

    def __call__(self) -> float:
        return self.now()

    def wall(self) -> float:
        """Seconds since the epoch: for what is written down (records, timestamps)."""
        return time.time()

    def wall_ns(self) -> int:
        """``wall()`` in whole nanoseconds (names that must sort in the order they were made)."""
        return time.time_ns()

    def sleep(self, seconds: float) -> None:
        """Block this thread for ``seconds``."""
        if seconds > 0:
            time.sleep(seconds)

    def wait(self, event: threading.Event, timeout: float | None = None) -> bool:
        """``event.wait(timeout)`` on this clock: True once the event is set, False if time ran out."""
        return event.wait(timeout)

    def call_later(self, loop: asyncio.AbstractEventLoop, seconds: float, fn):
        """Run ``fn`` on ``loop`` after ``seconds``; returns a handle with ``cancel()``."""
        return loop.call_later(seconds, fn)

    async def asleep(self, seconds: float) -> None:
        """Sleep in a coroutine on the running loop."""
        await asyncio.sleep(seconds)


REAL = Clock()


class _Timer:
    def __init__(self, clock: "FakeClock", loop, fn):
        self.clock, self.loop, self.fn = clock, loop, fn
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class FakeClock(Clock):
    """A clock that moves only when advanced (tests).  Thread-safe.

    ``wall()`` is ``wall_start + now()`` (by default the same number: two runs of one game on a
    fake clock give the same bytes).  A thread in :meth:`sleep` wakes when the clock passes its
    moment; one in :meth:`wait` also when its event is set; a :meth:`call_later` callback is
    handed to its loop when the clock passes its moment.
    """

    def __init__(self, start: float = 0.0, wall_start: float = 0.0):
        self._now = float(start)
        self.wall_start = float(wall_start)
        self._cond = threading.Condition()
        self._timers: list = []  # (due, seq, _Timer)
        self._seq = itertools.count()
        self._waiting = 0  # threads in sleep() or a timed wait()

    def now(self) -> float:
        return self._now

    def wall(self) -> float:
        return self.wall_start + self._now

    def wall_ns(self) -> int:
        return round(self.wall() * 1e9)

    def waiting(self) -> int:
        """How many threads sleep or wait on this clock, and callbacks are due later: a test waits
        for the code under test to be parked on the clock before it advances it."""
        with self._cond:
            return self._waiting + sum(1 for _, _, t in self._timers if not t.cancelled)

    def advance(self, dt: float) -> float:
        """Move the clock ``dt`` seconds forward; wake whoever's moment has come.  Returns the new time."""
        if dt < 0:
            raise ValueError("time only moves forward")
        due = []
        with self._cond:
            self._now += dt
            now = self._now
            while self._timers and self._timers[0][0] <= now:
                due.append(heapq.heappop(self._timers)[2])
            self._cond.notify_all()
        for timer in due:
            if not timer.cancelled:
                try:
                    timer.loop.call_soon_threadsafe(timer.fn)
                except RuntimeError:  # its loop has ended
                    pass
        return now

    def sleep(self, seconds: float) -> None:
        with self._cond:
            until = self._now + max(0.0, seconds)
            self._waiting += 1
            try:
                while self._now < until:
                    self._cond.wait()
            finally:
                self._waiting -= 1

    def wait(self, event: threading.Event, timeout: float | None = None) -> bool:
        if timeout is None:
            return event.wait()
        with self._cond:
            until = self._now + max(0.0, timeout)
            self._waiting += 1
            try:
                while not event.is_set() and self._now < until:
                    # set() on another thread does not notify this condition: look again shortly
                    self._cond.wait(FAKE_POLL)
            finally:
                self._waiting -= 1
        return event.is_set()

    def call_later(self, loop, seconds: float, fn) -> _Timer:
        timer = _Timer(self, loop, fn)
        with self._cond:
            heapq.heappush(self._timers, (self._now + max(0.0, seconds), next(self._seq), timer))
        if seconds <= 0:
            self.advance(0.0)
        return timer

    async def asleep(self, seconds: float) -> None:
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        self.call_later(loop, seconds, lambda: done.done() or done.set_result(None))
        await done


def clock_of(obj, default: Clock = REAL) -> Clock:
    """``obj`` itself if it is a Clock, else ``obj.clock`` if that is one, else ``default``."""
    if isinstance(obj, Clock):
        return obj
    found = getattr(obj, "clock", None)
    return found if isinstance(found, Clock) else default
