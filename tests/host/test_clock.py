"""host/clock.py: the service's one time source, and the fake that tests move by hand."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from host.clock import REAL, Clock, FakeClock, clock_of
from tests.support.waiting import wait_for


def test_the_real_clock_reads_the_machine_and_is_callable():
    assert isinstance(REAL, Clock)
    before = time.monotonic()
    assert before <= REAL() <= REAL.now() <= time.monotonic()
    assert abs(REAL.wall() - time.time()) < 5
    assert abs(REAL.wall_ns() - time.time_ns()) < 5e9
    done = threading.Event()
    done.set()
    assert REAL.wait(done, 10) is True


def test_a_fake_clock_moves_only_forward_and_when_told():
    clock = FakeClock(1.0, wall_start=1000.0)
    assert clock() == clock.now() == 1.0 and clock.wall() == 1001.0
    assert clock.advance(0.25) == 1.25 and clock() == 1.25 and clock.wall() == 1001.25
    with pytest.raises(ValueError):
        clock.advance(-1)
    assert clock() == 1.25


def _parked(clock: FakeClock, target, *args):
    """Run ``target`` on a thread and return once it is waiting on the clock."""
    out: list = []
    thread = threading.Thread(target=lambda: out.append((target(*args), clock.now())), daemon=True)
    thread.start()
    wait_for(lambda: clock.waiting() == 1, "the thread to wait on the fake clock", 10)
    return thread, out


def test_a_sleeper_wakes_when_the_clock_passes_its_moment_and_not_before():
    clock = FakeClock()
    thread, out = _parked(clock, clock.sleep, 5.0)
    clock.advance(4.5)
    wait_for(lambda: clock.waiting() == 1, "the sleeper to sleep on", 10)
    assert out == [] and thread.is_alive()
    clock.advance(1.0)
    thread.join(10)
    assert out == [(None, 5.5)]
    assert clock.waiting() == 0


def test_a_waiter_wakes_on_its_event_at_once_or_on_its_timeout():
    clock = FakeClock()
    event = threading.Event()
    thread, out = _parked(clock, clock.wait, event, 30.0)
    event.set()  # no advance: the event alone ends the wait
    thread.join(10)
    assert out == [(True, 0.0)]
    event.clear()
    thread, out = _parked(clock, clock.wait, event, 30.0)
    clock.advance(30.0)
    thread.join(10)
    assert out == [(False, 30.0)]


def test_call_later_and_asleep_run_when_the_clock_passes_them():
    clock = FakeClock()
    fired: list = []

    async def main():
        loop = asyncio.get_running_loop()
        clock.call_later(loop, 2.0, lambda: fired.append(("timer", clock.now())))
        cancelled = clock.call_later(loop, 1.0, lambda: fired.append("cancelled"))
        cancelled.cancel()
        # advanced from another thread, as a test does while the server's loop runs
        threading.Thread(target=lambda: (wait_for(lambda: clock.waiting() == 2, "both timers", 10),
                                         clock.advance(1.5), clock.advance(1.0)), daemon=True).start()
        await clock.asleep(2.5)
        fired.append(("slept", clock.now()))

    # a loop of its own in a thread of its own: earlier tests in the same process (Playwright's sync
    # API) may have left an event loop running in the main thread, where asyncio.run refuses to start
    errors: list = []

    def run() -> None:
        try:
            asyncio.run(asyncio.wait_for(main(), 10))
        except BaseException as exc:  # noqa: BLE001 - raised again in the test's thread below
            errors.append(exc)

    runner = threading.Thread(target=run, daemon=True)
    runner.start()
    runner.join(15)
    assert not runner.is_alive(), "the loop did not finish"
    if errors:
        raise errors[0]
    assert fired == [("timer", 2.5), ("slept", 2.5)]


def test_clock_of_finds_the_clock_a_table_carries():
    fake = FakeClock()

    class Holder:
        clock = fake

    assert clock_of(fake) is fake and clock_of(Holder()) is fake
    assert clock_of(object()) is REAL and clock_of(time.monotonic) is REAL
