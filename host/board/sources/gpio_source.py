"""The digital variant: Hall switches read through a chain of 74HC165s by the Pi's GPIO.

For boards built without magnets in the spaces (magnets in the towers only),
a digital Hall switch under each space pulls its input low while a tower
stands there.  Thirteen 74HC165 shift registers (104 inputs) are chained;
the Pi latches them with /PL and clocks the bits out of the last register's
Q7.  Inputs 0..98 are the spaces in id order; input 102 is tied to 3.3 V and
103 to ground, so a broken chain (floating or shorted Q7) is detected.
Wiring: hardware/README.md.

``RPi.GPIO`` (or rpi-lgpio on a Pi 5, which provides the same module) is
imported only when a source is opened without an injected ``gpio``.
"""

from __future__ import annotations

import time
from typing import Callable

from engine.board import SPACE_NAMES
from host.board.sources.pacing import ScanPacer
from host.board.sensing import Snapshot, SourceStatus

INPUTS = 104
SENTINEL_HIGH = 102
SENTINEL_LOW = 103
DEFAULT_PINS = {"load": 17, "clock": 27, "data": 22}  # BCM numbers: /PL, CP, Q7


class GpioUnavailable(RuntimeError):
    pass


def _import_gpio():
    try:
        import RPi.GPIO as GPIO  # noqa: N814 - the library's own name
    except (ImportError, RuntimeError) as exc:
        raise GpioUnavailable(
            f"RPi.GPIO is not usable here ({exc}): on a Raspberry Pi install quin-companion[pi] "
            "(quin-companion[pi5] on a Pi 5)"
        ) from None
    return GPIO


class GpioSource:
    """A Source over the 74HC165 chain.  ``debounce``: scans a change must persist."""

    def __init__(
        self,
        pins: dict[str, int] | None = None,
        *,
        gpio=None,
        rate_hz: float = 100.0,
        debounce: int = 2,
        active_low: bool = True,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.pins = dict(DEFAULT_PINS, **(pins or {}))
        self.gpio = gpio if gpio is not None else _import_gpio()
        self._pacer = ScanPacer(rate_hz, clock, sleep)
        self.period = self._pacer.period
        self.debounce = debounce
        self.active_low = active_low
        self._clock = clock
        self._stable = frozenset()
        self._candidate = frozenset()
        self._count = 0
        self.chain_fault = ""
        g = self.gpio
        g.setmode(g.BCM)
        g.setup(self.pins["load"], g.OUT, initial=g.HIGH)
        g.setup(self.pins["clock"], g.OUT, initial=g.LOW)
        g.setup(self.pins["data"], g.IN)

    def scan(self) -> list[int]:
        """All 104 inputs, input 0 first (one pass: latch, then 104 clock pulses)."""
        g = self.gpio
        load, clk, data = self.pins["load"], self.pins["clock"], self.pins["data"]
        g.output(load, g.LOW)  # latch the parallel inputs
        g.output(load, g.HIGH)
        bits = []
        for _ in range(INPUTS):
            bits.append(1 if g.input(data) else 0)
            g.output(clk, g.HIGH)
            g.output(clk, g.LOW)
        # the last register's D7 comes out first: reverse into input order
        return bits[::-1]

    def read(self, timeout: float | None = None) -> Snapshot | None:
        if not self._pacer.wait(timeout):
            return None
        bits = self.scan()
        if bits[SENTINEL_HIGH] != 1 or bits[SENTINEL_LOW] != 0:
            self.chain_fault = (
                "74HC165 chain check failed (inputs 102/103 should read 1/0): check the Q7, /PL and CP wires"
            )
            return Snapshot(self._clock(), self._stable)
        self.chain_fault = ""
        on = 0 if self.active_low else 1
        occupied = frozenset(s for s in range(len(SPACE_NAMES)) if bits[s] == on)
        if occupied == self._stable:
            self._count = 0
        elif occupied == self._candidate:
            self._count += 1
            if self._count >= self.debounce:
                self._stable, self._count = occupied, 0
        else:
            self._candidate, self._count = occupied, 1
            if self.debounce <= 1:
                self._stable, self._count = occupied, 0
        return Snapshot(self._clock(), self._stable)

    def status(self) -> SourceStatus:
        if self.chain_fault:
            return SourceStatus(False, self.chain_fault, {"pins": self.pins})
        return SourceStatus(True, "GPIO chain ok", {"pins": self.pins})

    def close(self) -> None:
        self.gpio.cleanup([self.pins["load"], self.pins["clock"], self.pins["data"]])
