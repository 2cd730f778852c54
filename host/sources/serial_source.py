"""The Pico over USB serial: a self-healing link and a sensing Source on top of it.

:class:`SerialLink` owns the port.  It opens it exclusively, reads with short
timeouts, feeds the sans-I/O decoder, and when the cable is pulled it closes
the port and retries with exponential back-off (0.1 s doubling to 2 s) until
the board is back; it then re-sends the last LED frame so the lights come back
too.  :class:`SerialSource` turns its raw frames into :class:`Snapshot` s with
the calibration and reports faults through :meth:`SerialSource.status`.
"""

from __future__ import annotations

import glob
import os
import threading
import time
from typing import Callable

import serial

from host import protocol
from host.calibration import Calibration, DriftKeeper
from host.channel_map import ChannelMap
from host.sensing import Snapshot, SourceStatus
from host.sources.raw import RawConverter
from engine.board import SPACE_NAMES

#: the udev rule in hardware/99-quin.rules makes this link to the Pico's data port
STABLE_NAME = "/dev/quin-board"
BY_ID_PATTERNS = (
    "/dev/serial/by-id/*CircuitPython*-if02",
    "/dev/serial/by-id/*Pico*-if02",
)
FAULT_AFTER = 1.0  # seconds without a frame before the link is reported faulty


class LinkError(Exception):
    """The board cannot be reached (one line, for the user)."""


def find_port() -> str | None:
    """The board's port: $QUIN_SERIAL_PORT, the udev name, else a by-id name; None if none."""
    env = os.environ.get("QUIN_SERIAL_PORT")
    if env:
        return env
    if os.path.exists(STABLE_NAME):
        return STABLE_NAME
    for pattern in BY_ID_PATTERNS:
        found = sorted(glob.glob(pattern))
        if found:
            return found[0]
    return None


def open_serial(url: str) -> serial.SerialBase:
    """Open exclusively (a second program gets a clear error), with short read timeouts."""
    return serial.serial_for_url(url, baudrate=115200, timeout=0.05, write_timeout=0.5, exclusive=True)


class SerialLink:
    def __init__(
        self,
        port: str,
        *,
        opener: Callable[[str], serial.SerialBase] = open_serial,
        clock: Callable[[], float] = time.monotonic,
        backoff: tuple[float, float] = (0.1, 2.0),
    ):
        self.port_name = port
        self._opener = opener
        self._clock = clock
        self._backoff_min, self._backoff_max = backoff
        self._backoff = self._backoff_min
        self._port: serial.SerialBase | None = None
        self._lock = threading.Lock()
        self._next_attempt = 0.0
        self._seq = 0
        self._last_led: bytes | None = None
        self.decoder = protocol.Decoder(synced=False)
        self._syncing: bytes | None = None
        self.last_frame_at: float | None = None
        self.opened_at: float | None = None
        self.reconnects = 0
        self.last_error = ""
        self.device_status: dict = {}
        self.acks: list[tuple[int, int, int]] = []

    # --- connection ---

    @property
    def connected(self) -> bool:
        return self._port is not None

    def open(self) -> None:
        """Open now, or raise LinkError saying why."""
        if not self._try_open():
            raise LinkError(f"cannot open the board at {self.port_name}: {self.last_error}")

    def _try_open(self) -> bool:
        try:
            port = self._opener(self.port_name)
        except (serial.SerialException, OSError, ValueError) as exc:
            self.last_error = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            self._next_attempt = self._clock() + self._backoff
            self._backoff = min(self._backoff * 2, self._backoff_max)
            return False
        with self._lock:
            self._port = port
        if self.opened_at is not None:
            self.reconnects += 1
        self.opened_at = self._clock()
        self.decoder = _carry_stats(self.decoder, protocol.Decoder(synced=True))
        self._syncing = b""  # bytes before the first delimiter since opening (None: in sync)
        if self._last_led is not None:
            self._write(self._last_led)
        return True

    def _drop(self, exc: Exception) -> None:
        self.last_error = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        with self._lock:
            port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except Exception:  # noqa: BLE001 - the device is gone; closing is best effort
                pass
        self._backoff = self._backoff_min
        self._next_attempt = self._clock() + self._backoff

    def close(self) -> None:
        with self._lock:
            port, self._port = self._port, None
        if port is not None:
            port.close()
        self.opened_at = None

    # --- frames ---

    def next_frame(self, timeout: float | None = None) -> protocol.Frame | None:
        """The next good frame, or None after ``timeout`` seconds (None: wait for ever)."""
        deadline = None if timeout is None else self._clock() + timeout
        while True:
            frame = self.decoder.next_frame()
            if frame is not protocol.NEED_DATA:
                self.last_frame_at = self._clock()
                self._backoff = self._backoff_min
                self._note(frame)
                return frame
            remaining = None if deadline is None else deadline - self._clock()
            if remaining is not None and remaining <= 0:
                return None
            self._pump(0.05 if remaining is None else min(remaining, 0.05))

    def _pump(self, wait: float) -> None:
        port = self._port
        if port is None:
            delay = self._next_attempt - self._clock()
            if delay > 0:
                time.sleep(min(delay, wait))
                return
            self._try_open()
            return
        try:
            data = port.read(max(1, min(port.in_waiting, 4096)))
        except (serial.SerialException, OSError, TypeError, AttributeError) as exc:
            # pyserial raises SerialException on unplug; a closed fd can surface as the others
            self._drop(exc)
            return
        if data:
            self._feed(data)

    def _feed(self, data: bytes) -> None:
        """Feed the decoder; just after opening, find the first frame boundary without losing a frame.

        The bytes before the first delimiter are either the tail of a frame sent before the port
        was opened (dropped) or, if the port opened between two frames, a whole frame (kept: it
        may be the answer to a request sent at once, such as a status request).
        """
        if self._syncing is None:
            self.decoder.feed(data)
            return
        head = self._syncing + data
        end = head.find(b"\x00")
        if end < 0:
            if len(head) > protocol.MAX_FRAME:  # no delimiter in sight: garbage
                self.decoder.stats["skipped_bytes"] += len(head)
                head = b""
            self._syncing = head
            return
        self._syncing = None
        if end and not _whole_frame(head[:end]):
            self.decoder.stats["skipped_bytes"] += end
            head = head[end:]
        self.decoder.feed(head)

    def _note(self, frame: protocol.Frame) -> None:
        if frame.kind == protocol.STATUS and frame.data:
            self.device_status = frame.status()
        elif frame.kind == protocol.ACK:
            self.acks = (self.acks + [frame.data])[-16:]

    def send(self, wire: bytes, *, remember_led: bool = False) -> bool:
        """Send an encoded frame.  A leading 0x00 ends whatever partial frame the
        board may hold (e.g. from before its reset), so this one always gets through."""
        wire = b"\x00" + wire
        if remember_led:
            self._last_led = wire
        return self._write(wire)

    def _write(self, wire: bytes) -> bool:
        with self._lock:
            port = self._port
            if port is None:
                return False
            try:
                port.write(wire)
                return True
            except (serial.SerialException, OSError) as exc:
                failure = exc
        self._drop(failure)
        return False

    def next_seq(self) -> int:
        self._seq = (self._seq + 1) & 0xFFFF
        return self._seq

    def request_status(self) -> None:
        self.send(protocol.status_request(self.next_seq(), _now_us()))

    def show(self, leds: dict[int, tuple[int, int, int]]) -> None:
        self.send(protocol.led_frame(self.next_seq(), _now_us(), leds), remember_led=True)

    def silence(self) -> float | None:
        """Seconds since the last frame (or since opening); None if never opened."""
        ref = self.last_frame_at if self.last_frame_at is not None else self.opened_at
        return None if ref is None else self._clock() - ref

    def stats(self) -> dict:
        return dict(self.decoder.stats, reconnects=self.reconnects)


def _whole_frame(body: bytes) -> bool:
    """Do these bytes (before a delimiter) decode as a frame with a good CRC?"""
    try:
        protocol.decode_body(protocol.cobs_decode(body))
        return True
    except Exception:  # noqa: BLE001 - protocol.FrameError and whatever a tail of garbage raises
        return False


def _carry_stats(old: protocol.Decoder, new: protocol.Decoder) -> protocol.Decoder:
    for key, value in old.stats.items():
        new.stats[key] = value
    return new


def _now_us() -> int:
    return time.monotonic_ns() // 1000


class SerialSource:
    """A sensing Source and LedSink over a :class:`SerialLink`.

    Each raw frame (50 Hz or more) becomes one Snapshot; ``t`` is the host's
    monotonic clock at receipt.  ``status()`` is not ok while the board is
    unplugged, silent for more than a second, its reference channels are off,
    or a sensor reads at a rail (dead).  With a ``keeper``, the baselines'
    drift is saved back to the calibration file now and then and at close.
    """

    def __init__(
        self,
        link: SerialLink,
        calibration: Calibration,
        channel_map: ChannelMap,
        *,
        fault_after: float = FAULT_AFTER,
        clock: Callable[[], float] = time.monotonic,
        keeper: DriftKeeper | None = None,
    ):
        self.link = link
        self.calibration = calibration
        self.channel_map = channel_map
        self.converter = RawConverter(calibration, channel_map, keeper)
        self.fault_after = fault_after
        self._clock = clock
        if not link.connected:
            link._try_open()

    def read(self, timeout: float | None = None) -> Snapshot | None:
        deadline = None if timeout is None else self._clock() + timeout
        while True:
            remaining = None if deadline is None else max(0.0, deadline - self._clock())
            frame = self.link.next_frame(remaining)
            if frame is None:
                return None
            snap = self._snapshot(frame)
            if snap is not None:
                return snap

    def _snapshot(self, frame: protocol.Frame) -> Snapshot | None:
        if frame.kind == protocol.OCCUPANCY:
            return Snapshot(self._clock(), frozenset(frame.data))
        if frame.kind != protocol.RAW:
            return None
        occupied = self.converter.convert(frame.data)
        return None if occupied is None else Snapshot(self._clock(), occupied)

    def show(self, leds: dict[int, tuple[int, int, int]]) -> None:
        self.link.show(leds)

    def status(self) -> SourceStatus:
        details = {"port": self.link.port_name, **self.link.stats()}
        problems = []
        silence = self.link.silence()
        if not self.link.connected:
            problems.append(f"board unplugged or unreachable at {self.link.port_name} ({self.link.last_error}); reconnecting")
        elif silence is not None and silence > self.fault_after:
            problems.append(f"no frames from the board for {silence:.1f} s")
        problems += self.converter.problems()
        if self.converter.dead:
            details["dead"] = [SPACE_NAMES[s] for s in self.converter.dead]
        return SourceStatus(not problems, "; ".join(problems) or "board ok", details)

    def close(self) -> None:
        self.converter.close()
        self.link.close()
