"""CircuitPython's ``time`` (9.x) on the Unix port: its documented names only, and ``monotonic_ns``
and ``monotonic``, which the Unix port lacks.

MicroPython lets a file stand in for a built-in module: with sys.path emptied for
a moment, ``import time`` inside this file reaches the built-in one.  The Unix
port's extras (ticks_us, sleep_ms, ...) stay out, as on the device; a test script
that wants them imports ``utime``.
"""

import sys

_path = sys.path
sys.path = []
try:
    import time as _builtin
finally:
    sys.path = _path

sleep = _builtin.sleep
time = _builtin.time
localtime = _builtin.localtime
mktime = _builtin.mktime

_last = _builtin.ticks_us()
_elapsed_us = 0


def monotonic_ns():
    """Nanoseconds since start; ticks_us wraps (every 2**30 us here), so the differences are summed."""
    global _last, _elapsed_us
    now = _builtin.ticks_us()
    _elapsed_us += _builtin.ticks_diff(now, _last)
    _last = now
    return _elapsed_us * 1000


def monotonic():
    return monotonic_ns() / 1e9
