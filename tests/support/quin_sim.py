"""A simulated Quin board for tests: the real firmware logic on fake hardware, behind a pty.

``SimBoard`` is the physical world (sensor levels, towers, dead sensors);
``FakeHardware`` is the Pico's pins and ADC as quin_firmware sees them;
``PtyBoard`` runs the real ``quin_firmware.Firmware`` in a thread and exposes
it at a stable path (a symlink, like /dev/serial/by-id) that can be unplugged
and plugged back in.
"""

import fcntl
import os
import random
import sys
import termios
import threading
import time
import tty
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "firmware") not in sys.path:
    sys.path.insert(0, str(ROOT / "firmware"))

import quin_firmware  # noqa: E402  (the firmware module, run on CPython)

BASELINE = 30000
TOWER = 4000  # a tower raises the reading by this much (negative: lowers)
HALF = 32768
GROUND = 40


class SimBoard:
    """Sensor levels of a board: 99 spaces on channels 0..98, references on 99 and 100."""

    def __init__(self, channels=101, noise=0, seed=0, tower=TOWER):
        self.channels = channels
        self.noise = noise
        self.tower = tower
        self.rng = random.Random(seed)
        self.base = [BASELINE + 37 * (ch % 11) for ch in range(channels)]
        if channels > 100:
            self.base[99], self.base[100] = HALF, GROUND
        self.towers = set()
        self.dead = set()
        self.lock = threading.Lock()

    def value(self, ch):
        with self.lock:
            if ch in self.dead:
                return 0
            v = self.base[ch] + (self.tower if ch in self.towers else 0)
            if self.noise:
                v += self.rng.randint(-self.noise, self.noise)
        return max(0, min(65535, v))


class _EnablePin:
    """One multiplexer's enable line as quin_firmware drives it: active low (``value = False`` enables)."""

    def __init__(self, hw, mux):
        self.hw = hw
        self.mux = mux

    @property
    def value(self):
        return self.mux not in self.hw.enabled

    @value.setter
    def value(self, level):
        enabled = self.hw.enabled
        before = set(enabled)
        if level:
            enabled.discard(self.mux)
        else:
            enabled.add(self.mux)
        if enabled != before:
            if len(enabled) > 1:
                self.hw.contentions += 1  # two multiplexers driving the ADC at once
            self.hw.mux = next(iter(enabled)) if len(enabled) == 1 else None
            self.hw._switched()


class _Adc:
    """The ADC as quin_firmware reads it: ``value`` is one sample."""

    def __init__(self, hw):
        self.hw = hw

    @property
    def value(self):
        return self.hw.read_adc()


class FakeHardware:
    """The hardware interface of quin_firmware, with a realistic quirk: the first
    ADC sample after a multiplexer switch still shows the previous channel."""

    def __init__(self, board, realtime=False):
        self.board = board
        self.realtime = realtime
        self.sel = 0
        self.mux = None
        self.enabled = set()
        self.contentions = 0
        self.enable_pins = [_EnablePin(self, m) for m in range(7)]
        self.adc = _Adc(self)
        self.stale = None
        self.last_value = 65535
        self.switches = 0
        self.reads = 0
        self.shown = []
        self.now_us = 0

    def select(self, n):
        assert 0 <= n < 16
        if n != self.sel:
            self.sel = n
            self._switched()

    def enable(self, mux):
        """Enable multiplexer ``mux`` alone (None: none)."""
        assert mux is None or 0 <= mux < 7
        if mux != self.mux or len(self.enabled) > 1:
            self.enabled = set() if mux is None else {mux}
            self.mux = mux
            self._switched()

    def _switched(self):
        self.switches += 1
        self.stale = self.last_value

    def read_adc(self):
        self.reads += 1
        if self.mux is None:
            value = 0
        else:
            value = self.board.value(self.mux * 16 + self.sel)
        if self.stale is not None:
            stale, self.stale = self.stale, None
            self.last_value = value
            return stale
        self.last_value = value
        return value

    def show(self, buf):
        self.shown.append(bytes(buf))

    def monotonic_us(self):
        if self.realtime:
            return time.monotonic_ns() // 1000
        return self.now_us

    def sleep_us(self, n):
        if self.realtime:
            # the simulated firmware's real-time mode: it runs at the board's pace on purpose
            time.sleep(n / 1e6)
        else:
            self.now_us += n


class BufferPort:
    """A port for the firmware in memory: ``incoming`` is what the host sent."""

    def __init__(self):
        self.incoming = bytearray()
        self.written = bytearray()

    @property
    def in_waiting(self):
        return len(self.incoming)

    def read(self, n):
        data = bytes(self.incoming[:n])
        del self.incoming[:n]
        return data

    def write(self, data):
        self.written += data
        return len(data)


class _PtyPort:
    def __init__(self, fd, owner):
        self.fd = fd
        self.owner = owner

    @property
    def in_waiting(self):
        try:
            return int.from_bytes(fcntl.ioctl(self.fd, termios.FIONREAD, b"\0\0\0\0"), "little")
        except OSError:
            return 0

    def read(self, n):
        try:
            return os.read(self.fd, n)
        except OSError:
            return b""

    def write(self, data):
        if self.owner.drop_frames > 0:
            self.owner.drop_frames -= 1  # lost on the way: the sequence number moves on
            return len(data)
        try:
            return os.write(self.fd, data)
        except OSError:  # host not reading (buffer full) or unplugged: like usb_cdc's write timeout
            return 0


class PtyBoard:
    """The simulated firmware speaking the real protocol on a pty at ``path``."""

    def __init__(self, directory, board=None, settings=None, paused=False):
        self.path = str(Path(directory) / "quin-board")
        self.board = board or SimBoard()
        self.settings = dict({"rate_hz": 100, "leds": 99, "oversample": 2}, **(settings or {}))
        self.hw = FakeHardware(self.board, realtime=True)
        self.drop_frames = 0
        self.paused = paused  # a hung firmware: plugged in but silent (from the start if given)
        self.firmware = None
        self._fds = None
        self._thread = None
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._garbage = bytearray()  # bytes queued into the stream between frames

    def __enter__(self):
        self.plug()
        return self

    def __exit__(self, *exc):
        self.unplug()

    def plug(self):
        master, slave = os.openpty()
        tty.setraw(slave)
        flags = fcntl.fcntl(master, fcntl.F_GETFL)
        fcntl.fcntl(master, fcntl.F_SETFL, flags | os.O_NONBLOCK)
        self._fds = (master, slave)
        tmp = self.path + ".new"
        if os.path.lexists(tmp):
            os.unlink(tmp)
        os.symlink(os.ttyname(slave), tmp)
        os.replace(tmp, self.path)
        # a replug restarts the firmware, as on the real board
        self.firmware = quin_firmware.Firmware(self.hw, _PtyPort(master, self), self.settings)
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while not self._stop.is_set():
            if self.paused:
                # the firmware is paused (a board unplugged): it idles on the machine's time, as the Pico would
                time.sleep(0.01)
                continue
            with self._lock:
                if self._garbage:
                    self._flush_garbage()
                    continue
                self.firmware.step()

    def _flush_garbage(self):
        """Write queued garbage ahead of the next frame; wait for room when the host is slow."""
        try:
            written = os.write(self._fds[0], bytes(self._garbage))
        except BlockingIOError:
            written = 0
        except OSError:  # unplugged
            self._garbage.clear()
            return
        del self._garbage[:written]
        if self._garbage:
            # the serial port has no room: wait for the reader as a UART would
            time.sleep(0.001)

    def unplug(self):
        self._stop.set()
        if self._thread:
            self._thread.join(5)
        if self._fds:
            for fd in self._fds:
                try:
                    os.close(fd)
                except OSError:
                    pass
            self._fds = None
        if os.path.lexists(self.path):
            os.unlink(self.path)

    def garbage(self, data):
        """Put ``data`` on the wire between two frames (the board thread writes it)."""
        with self._lock:
            self._garbage += data
