"""A Pi wired directly to the multiplexers: CD74HC4067s and an MCP3008 over SPI, via Blinka.

For builders without a Pico: the seven multiplexers' select lines S0..S3 are
shared and driven by Pi GPIOs, their enables tied low, and each multiplexer's
SIG goes to its own MCP3008 channel (0..6).  Readings are 16-bit like the
Pico's, so the same calibration, channel map and doctor apply.

adafruit-blinka and adafruit-circuitpython-mcp3xxx (the ``blinka`` extra) are
imported only by :class:`BlinkaBus`; tests inject a fake bus.
"""

from __future__ import annotations

import time
from typing import Callable, Protocol

from host.board.calibration import Calibration, DriftKeeper
from host.board.channel_map import CHANNELS_PER_MUX, ChannelMap
from host.board.sources.pacing import ScanPacer
from host.board.sensing import Snapshot, SourceStatus
from host.board.sources.raw import RawConverter

DEFAULT_SELECT = ("D5", "D6", "D13", "D19")  # board pin names for S0..S3
DEFAULT_CS = "D8"  # SPI CE0


class MuxBus(Protocol):
    def select(self, n: int) -> None: ...
    def read(self, mux: int) -> int: ...
    def close(self) -> None: ...


class BlinkaBus:
    """The real bus: digitalio select lines and an MCP3008 on SPI0."""

    def __init__(self, select_pins=DEFAULT_SELECT, cs_pin=DEFAULT_CS):
        try:
            import board
            import busio
            import digitalio
            from adafruit_mcp3xxx import mcp3008
            from adafruit_mcp3xxx.analog_in import AnalogIn
        except (ImportError, RuntimeError, NotImplementedError) as exc:
            raise RuntimeError(
                f"Blinka is not usable here ({exc}): install quin-companion[blinka] on the Raspberry Pi"
            ) from None
        self._pins = []
        for name in select_pins:
            pin = digitalio.DigitalInOut(getattr(board, name))
            pin.direction = digitalio.Direction.OUTPUT
            pin.value = False
            self._pins.append(pin)
        self._spi = busio.SPI(clock=board.SCK, MISO=board.MISO, MOSI=board.MOSI)
        cs = digitalio.DigitalInOut(getattr(board, cs_pin))
        self._adc = mcp3008.MCP3008(self._spi, cs)
        self._inputs = [AnalogIn(self._adc, ch) for ch in range(7)]

    def select(self, n: int) -> None:
        for bit, pin in enumerate(self._pins):
            pin.value = bool(n >> bit & 1)

    def read(self, mux: int) -> int:
        return self._inputs[mux].value

    def close(self) -> None:
        for pin in self._pins:
            pin.deinit()
        self._spi.deinit()


class BlinkaSource:
    def __init__(
        self,
        calibration: Calibration,
        channel_map: ChannelMap,
        *,
        bus: MuxBus | None = None,
        oversample: int = 2,
        rate_hz: float = 50.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        keeper: DriftKeeper | None = None,
    ):
        self.bus = bus if bus is not None else BlinkaBus()
        self.channels = channel_map.channels_needed
        self.oversample = oversample
        self.converter = RawConverter(calibration, channel_map, keeper)
        self._pacer = ScanPacer(rate_hz, clock, sleep)
        self.period = self._pacer.period
        self._clock = clock
        self.muxes = (self.channels + CHANNELS_PER_MUX - 1) // CHANNELS_PER_MUX

    def scan(self) -> list[int]:
        readings = [0] * self.channels
        n = self.oversample
        for sel in range(CHANNELS_PER_MUX):
            self.bus.select(sel)
            for mux in range(self.muxes):
                index = mux * CHANNELS_PER_MUX + sel
                if index >= self.channels:
                    continue
                self.bus.read(mux)  # the first conversion after a switch sees the old channel
                readings[index] = sum(self.bus.read(mux) for _ in range(n)) // n
        return readings

    def read(self, timeout: float | None = None) -> Snapshot | None:
        if not self._pacer.wait(timeout):
            return None
        occupied = self.converter.convert(self.scan())
        return Snapshot(self._clock(), occupied or frozenset())

    def status(self) -> SourceStatus:
        problems = self.converter.problems()
        return SourceStatus(not problems, "; ".join(problems) or "board ok", {})

    def close(self) -> None:
        self.converter.close()
        self.bus.close()
