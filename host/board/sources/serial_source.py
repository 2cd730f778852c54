"""The Pico over USB serial: a self-healing link and a sensing Source on top of it.

:class:`SerialLink` owns the port.  It opens it exclusively, reads with short
timeouts, feeds the sans-I/O decoder, and when the cable is pulled it closes
the port and retries with exponential back-off (0.1 s doubling to 2 s) until
the board is back; it then re-sends the last LED frame so the lights come back
too.  :class:`SerialSource` turns its raw frames into :class:`Snapshot` s with
the calibration and reports faults through :meth:`SerialSource.status`.

Once calibrated, :class:`SerialSource` hands the board its thresholds (a
THRESHOLDS frame, docs/protocol.md): the Pico then decides occupancy itself and
sends an occupancy frame the scan a space changes (and every scan for a moment
after), plus a raw frame twice a second for drift tracking and health, instead
of 60-100 raw frames a second for the Pi to decode.  The link re-sends the
thresholds (and the LEDs) whenever the board comes back: after an unplug, and
after the firmware restarted (its clock went back), so play carries on by itself.
"""

from __future__ import annotations

import glob
import os
import threading
import time
from typing import Callable

import serial

from host.board import protocol
from host.board.calibration import Calibration, DriftKeeper, OccupancyTracker
from host.board.channel_map import ChannelMap
from host.board.sensing import Snapshot, SourceStatus
from host.board.sources.raw import RawConverter
from engine.board import SPACE_NAMES

#: the udev rule in hardware/99-quin.rules makes this link to the Pico's data port
STABLE_NAME = "/dev/quin-board"
BY_ID_PATTERNS = (
    "/dev/serial/by-id/*CircuitPython*-if02",
    "/dev/serial/by-id/*Pico*-if02",
)
FAULT_AFTER = 1.0  # seconds without a frame before the link is reported faulty
RAW_PERIOD_MS = 500  # with thresholds on the board: a raw frame this often, for drift and health
HEARTBEAT_QUIET = 1.0  # seconds after a change from which an unchanged occupancy frame is no news
RESEND_AFTER = 1.0  # seconds without the board acknowledging its thresholds before sending them again
CONFIG_TRIES = 3  # times they are sent before the host takes the board for one that cannot (until it restarts)
DRIFT_RESEND = 8.0  # counts a baseline must drift before the board gets the new thresholds
DRIFT_RESEND_EVERY = 2.0  # seconds between two such updates at most
NOTICE_FOR = 10.0  # seconds the status says what happened to the link after it is well again


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
        self._config: bytes | None = None  # the last THRESHOLDS frame, re-sent when the board comes back
        self._config_seq = -1
        self._config_sent = 0.0
        self._config_tries = 0
        self.config_acked = False  # the board reports as the last THRESHOLDS frame asked
        self.config_error = ""
        self._restarts_seen = 0
        self.decoder = protocol.Decoder(synced=False)
        self._syncing: bytes | None = None
        self.last_frame_at: float | None = None
        self.opened_at: float | None = None
        self.restarted_at: float | None = None  # when the firmware was last seen starting again
        self.dropped_at: float | None = None  # when the port last went away
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
        self._board_is_back()
        return True

    def _board_is_back(self) -> None:
        """The board (re)started or was plugged in again: it knows nothing of us; tell it again."""
        if self._last_led is not None:
            self._write(self._last_led)
        if self._config is not None:
            self._send_config()

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
        self.dropped_at = self._clock()

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
                if self.decoder.stats["restarts"] != self._restarts_seen:  # its clock went back
                    self._restarts_seen = self.decoder.stats["restarts"]
                    self.restarted_at = self.last_frame_at
                    self._board_is_back()
                self._note(frame)
                return frame
            if (self._config is not None and not self.config_acked and not self.config_error
                    and self._port is not None and self._clock() - self._config_sent > RESEND_AFTER):
                if self._config_tries >= CONFIG_TRIES:
                    # an older firmware drops a frame kind it does not know: raw frames it is, decided here
                    self.config_error = "unanswered"
                else:
                    self._send_config(again=True)  # lost on the way (or the board was busy): again
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
            kind, seq, code = frame.data
            if kind == protocol.THRESHOLDS and seq == self._config_seq:
                self.config_acked = code == protocol.ACK_OK
                # refused (an older firmware): raw frames at full rate go on, decided here; no retry until it restarts
                self.config_error = "" if self.config_acked else "refused"

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

    def set_thresholds(self, period_ms: int, entries) -> None:
        """Ask the board to decide occupancy (period > 0) or to send raw frames at full rate (0).
        Remembered: sent again until acknowledged, and whenever the board comes back."""
        self._config_seq = self.next_seq()
        self._config = protocol.thresholds_frame(self._config_seq, 0, period_ms, entries)
        self._send_config()

    def full_rate(self) -> None:
        """Raw frames every scan (`quin calibrate`, `quin doctor`), whatever a service asked for before."""
        self.set_thresholds(0, ())

    def _send_config(self, again: bool = False) -> None:
        self.config_acked = False
        self.config_error = ""
        self._config_tries = self._config_tries + 1 if again else 1
        self._config_sent = self._clock()
        if self._config is not None:
            self.send(self._config)

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

    With ``board_decides`` (the default) the board gets the calibration's thresholds and its
    occupancy frames become Snapshots (the heartbeat ones only near a change); until it
    acknowledges them, or without it, each raw frame (50 Hz or more) becomes one Snapshot.
    ``t`` is the host's monotonic clock at receipt.  ``status()`` is not ok while the board is
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
        board_decides: bool = True,
        raw_period_ms: int = RAW_PERIOD_MS,
    ):
        self.link = link
        self.calibration = calibration
        self.channel_map = channel_map
        self.board_decides = board_decides
        self.raw_period_ms = raw_period_ms
        tracker = None
        if board_decides:  # drift from a raw frame every raw_period_ms, at about the pace of 60 Hz frames
            rate = 1000.0 / raw_period_ms
            tracker = OccupancyTracker(calibration, drift_every=1, stable_frames=max(2, round(250 * rate / 60)),
                                       drift_rate=0.05 * (60 / 25) / rate)
        self.converter = RawConverter(calibration, channel_map, keeper, tracker)
        self.fault_after = fault_after
        self._clock = clock
        self._sent_baselines: list[float] = []
        self._thresholds_at = float("-inf")
        self._last_occupied: frozenset[int] | None = None
        self._changed_at = float("-inf")
        self._gone: tuple[str, float] | None = None  # (unplugged|silent, since when) while away
        self._back: tuple[str, float, float] | None = None  # (how, for how long, back when)
        self._bad_seen: tuple[int, int] | None = None  # (bad frames, stray bytes) at the last look
        self._reconnects_seen = 0
        self._bad_at: float | None = None
        if not link.connected:
            link._try_open()
        if board_decides:
            self._send_thresholds()

    def thresholds(self) -> list[tuple[int, int, int, int, int, int]]:
        """What the board needs to decide like the host: (space, channel, sign, baseline, on, off)."""
        clamp = lambda v: max(0, min(0xFFFF, int(round(v))))  # noqa: E731
        out = []
        for s, c in enumerate(self.calibration.spaces):
            sign, on, off = c.thresholds()
            out.append((s, c.channel, sign, clamp(self.converter.tracker.baseline[s]), clamp(on), clamp(off)))
        return out

    def _send_thresholds(self) -> None:
        self._sent_baselines = list(self.converter.tracker.baseline)
        self._thresholds_at = self._clock()
        self.link.set_thresholds(self.raw_period_ms, self.thresholds())

    def _drifted(self) -> None:
        """Baselines drifted far enough since the board got them: send the new ones (not too often)."""
        base = self.converter.tracker.baseline
        if self._clock() - self._thresholds_at < DRIFT_RESEND_EVERY:
            return
        if max((abs(a - b) for a, b in zip(base, self._sent_baselines)), default=0.0) >= DRIFT_RESEND:
            self._send_thresholds()

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
        if frame.kind == protocol.OCCUPANCY:  # the board decided, with our thresholds
            if not (self.board_decides and self.link.config_acked):
                return None  # decided with thresholds we did not give it (yet): not ours to trust
            self.converter.tracker.note_occupied(frame.data)
            occupied = self.converter.alive(frozenset(frame.data))
            now = self._clock()
            if occupied != self._last_occupied:
                self._last_occupied, self._changed_at = occupied, now
            elif now - self._changed_at > HEARTBEAT_QUIET:
                return None  # the slow heartbeat, long after the last change: nothing for the referee
            return Snapshot(now, occupied)
        if frame.kind != protocol.RAW:
            return None
        if self.board_decides and self.link.config_acked:
            # the slow stream beside the occupancy frames: drift, dead sensors, references
            self.converter.convert(frame.data, check_every=1)
            self._drifted()
            return None
        occupied = self.converter.convert(frame.data)  # full-rate raw: we decide
        if occupied is None:
            return None
        now = self._clock()
        if occupied != self._last_occupied:  # what the referee saw last, whoever decided it
            self._last_occupied, self._changed_at = occupied, now
        return Snapshot(now, occupied)

    def show(self, leds: dict[int, tuple[int, int, int]]) -> None:
        self.link.show(leds)

    def status(self) -> SourceStatus:
        """Not ok while the board is unreachable or silent.  For NOTICE_FOR seconds after it came back,
        restarted or sent corrupted frames, ok with a notice (``details["notice"]``): one line each
        saying what happened, for the status page and the phones."""
        link = self.link
        details = {"port": link.port_name, **link.stats()}
        now = self._clock()
        problems = []
        notices = []
        silence = link.silence()
        if not link.connected:
            problems.append(f"board unplugged or unreachable at {link.port_name} ({link.last_error}); reconnecting")
            self._gone = ("unplugged", link.dropped_at if link.dropped_at is not None else now)
        elif silence is not None and silence > self.fault_after:
            problems.append(f"no frames from the board for {silence:.1f} s; waiting for it")
            if self._gone is None:
                self._gone = ("silent", now - silence)
        else:
            notices = self._notices(now, details)
        problems += self.converter.problems()
        details["board_decides"] = link.config_acked
        if self.converter.dead:
            details["dead"] = [SPACE_NAMES[s] for s in self.converter.dead]
        if problems:
            return SourceStatus(False, "; ".join(problems), details)
        if notices:
            return SourceStatus(True, "; ".join(notices), dict(details, notice=True))
        return SourceStatus(True, "board ok", details)

    def _notices(self, now: float, details: dict) -> list[str]:
        """What happened lately to a link that is well now."""
        out = []
        if self._gone is not None:  # it is back
            how, since = self._gone
            self._gone = None
            back = self.link.opened_at if how == "unplugged" and self.link.opened_at else now
            self._back = (how, max(0.0, back - since), now)
        if self._back is not None:
            how, lasted, at = self._back
            if now - at < NOTICE_FOR:
                out.append(f"the board was {how} for {lasted:.1f} s and is back; play goes on")
            else:
                self._back = None
        restarted = self.link.restarted_at
        if restarted is not None and now - restarted < NOTICE_FOR:
            out.append("the board's firmware restarted; it has its thresholds and lights back and play goes on")
        # corrupted frames, and stray bytes outside any frame (but not the tail of a frame cut by a reconnect)
        bad = (details.get("crc_errors", 0) + details.get("malformed", 0), details.get("skipped_bytes", 0))
        seen, self._bad_seen = self._bad_seen, bad
        reconnects, self._reconnects_seen = self._reconnects_seen, details.get("reconnects", 0)
        if seen is not None and (bad[0] > seen[0] or (bad[1] > seen[1] and reconnects == self._reconnects_seen)):
            self._bad_at = now
        if self._bad_at is not None and now - self._bad_at < NOTICE_FOR:
            out.append(f"corrupted data from the board ({bad[0]} bad frames, {bad[1]} stray bytes so far; dropped, "
                       "nothing was taken from them): check the USB cable")
        return out

    def close(self) -> None:
        self.converter.close()
        if self.board_decides and self.link.connected:
            self.link.full_rate()  # leave the board as it powers up, for `quin doctor` and the next host
        self.link.close()
