"""The built-in ``time``, plus CircuitPython's ``monotonic_ns`` and ``monotonic`` (the Unix port lacks them).

MicroPython lets a file extend a built-in module: with sys.path emptied for a
moment, ``from time import *`` reaches the built-in one.
"""

import sys

_path = sys.path
sys.path = []
try:
    from time import *  # noqa: F403
    from time import ticks_diff, ticks_us
finally:
    sys.path = _path

_last = ticks_us()
_elapsed_us = 0


def monotonic_ns():
    """Nanoseconds since start; ticks_us wraps (every 2**30 us here), so the differences are summed."""
    global _last, _elapsed_us
    now = ticks_us()
    _elapsed_us += ticks_diff(now, _last)
    _last = now
    return _elapsed_us * 1000


def monotonic():
    return monotonic_ns() / 1e9
