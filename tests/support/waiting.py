"""Waiting on a condition: the one polling loop of the tests that watch something happen on another
thread or in another process (a board's service, a hub, a browser's server).

``wait_for(pred, what, timeout)`` asks ``pred`` until it answers something true, and returns that
answer; after ``timeout`` seconds it fails naming ``what``.  The timeout is only ever reached when
something is broken.  A family of tests with a timeout of its own (the hub's, whose conditions are
requests to the hub, are asked less often) makes its ``wait_for`` with ``waiter``."""

from __future__ import annotations

import time


def wait_for(pred, what: str = "a condition", timeout: float = 20.0, every: float = 0.01):
    deadline = time.monotonic() + timeout
    while True:
        value = pred()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what} ({timeout:g} s)")
        time.sleep(every)  # the one poll: the condition lives on another thread or process, with no event of ours


def waiter(timeout: float, every: float = 0.01):
    """``wait_for`` with another default timeout and pace."""

    def wait(pred, what: str = "a condition", timeout: float = timeout):
        return wait_for(pred, what, timeout, every)

    return wait
