"""Scan pacing for sources that poll their hardware at a fixed rate."""

from __future__ import annotations

from typing import Callable


class ScanPacer:
    """Keeps a polled source to ``rate_hz`` scans a second on an injected clock and sleep."""

    def __init__(self, rate_hz: float, clock: Callable[[], float], sleep: Callable[[float], None]):
        self.period = 1.0 / rate_hz
        self._clock = clock
        self._sleep = sleep
        self._next = clock()

    def wait(self, timeout: float | None) -> bool:
        """Sleep until the next scan is due: True to scan now, False if ``timeout`` ran out first."""
        wait = self._next - self._clock()
        if wait > 0:
            if timeout is not None and wait > timeout:
                self._sleep(timeout)
                return False
            self._sleep(wait)
        self._next = max(self._next + self.period, self._clock())
        return True
