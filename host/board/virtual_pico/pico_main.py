# The virtual Pico's power-up, run by MicroPython (never by CPython, never on a board).
#
# What CircuitPython does on a real Pico: run boot.py, bring up USB with the ports it
# enabled, run code.py.  Here the CircuitPython modules are the stand-ins in
# circuitpython/, the usb_cdc data port is a pty (the master end, fd QUIN_VPICO_DATA_FD:
# the host opens the other end like /dev/ttyACM1) and the ADC reads a simulated field
# of towers the harness (host/board/virtual_pico/__init__.py) sends down QUIN_VPICO_FIELD_FD.
# What the firmware writes to the LED chain goes back up QUIN_VPICO_REPORT_FD.
#
# Field messages, FIELD_SIZE bytes each: b"F", the noise (uint16 little-endian: each ADC
# sample adds uniform noise of +-noise counts), then the level of channels 0..111 (uint16).
# They are read into one preallocated buffer: the firmware has the 128K heap to itself.
# Reports, one line each: "L <hex of the GRB bytes>" whenever the LEDs change, and
# "R" once code.py is about to run.

import os
import random
import select
import sys

import analogio  # noqa: F401  (quin_wiring wires itself into it)
import neopixel_write
import quin_wiring
import usb_cdc

DATA_FD = int(os.getenv("QUIN_VPICO_DATA_FD"))
FIELD_FD = int(os.getenv("QUIN_VPICO_FIELD_FD"))
REPORT_FD = int(os.getenv("QUIN_VPICO_REPORT_FD"))
FIRMWARE = os.getenv("QUIN_VPICO_FIRMWARE")
CHANNELS = 112  # seven 16-channel multiplexers
POLL_EVERY = 64  # ADC samples between looks at the field pipe (about 8 a scan)

FIELD_SIZE = 3 + 2 * CHANNELS
levels = [0] * CHANNELS
noise = [0, 1]  # amplitude, 2 * amplitude + 1
_field_in = open(FIELD_FD, "rb")
_report = open(REPORT_FD, "wb")
_poller = select.poll()
_poller.register(FIELD_FD, select.POLLIN)
_fbuf = bytearray(FIELD_SIZE)
_fview = memoryview(_fbuf)
_have = [0]
_count = [0]


def _take_field():
    while _poller.poll(0):
        n = _field_in.readinto(_fview[_have[0] :])
        if n is None:  # nothing after all
            return
        if n == 0:  # the harness is gone: so is the board's power
            print("power off: the field pipe closed", file=sys.stderr)
            sys.exit(0)
        _have[0] += n
        if _have[0] == FIELD_SIZE:
            _have[0] = 0
            b = _fbuf
            if b[0] == 0x46:  # "F"
                n = b[1] | b[2] << 8
                noise[0] = n
                noise[1] = 2 * n + 1
                for ch in range(CHANNELS):
                    levels[ch] = b[3 + 2 * ch] | b[4 + 2 * ch] << 8


def field(channel):
    c = _count[0] + 1
    if c >= POLL_EVERY:
        c = 0
        _take_field()
    _count[0] = c
    v = levels[channel]
    if noise[0]:
        v += random.getrandbits(16) % noise[1] - noise[0]
        if v < 0:
            v = 0
        elif v > 65535:
            v = 65535
    return v


def _say(line):
    try:
        _report.write(line)
    except OSError as exc:
        print("power off: the report pipe closed", exc, file=sys.stderr)
        sys.exit(0)


_last_leds = [None]


def _neopixel_write(digitalinout, buf):
    if digitalinout.direction != "OUTPUT":
        raise ValueError("the pin must be an output")
    data = bytes(buf)
    if data != _last_leds[0]:
        _last_leds[0] = data
        _say(b"L " + data.hex().encode() + b"\n")


RX_FIFO = 1024  # bytes the USB CDC receive buffer holds; the host waits while it is full


class PtySerial:
    """usb_cdc.Serial on the pty's master end: what the host writes is read here, and back.

    Received bytes wait in a fixed buffer, like the USB stack's receive FIFO, so nothing
    here takes from the heap what the firmware would have on the device."""

    def __init__(self, fd):
        self._in = open(fd, "rb")
        self._out = open(fd, "wb")
        self._poll = select.poll()
        self._poll.register(fd, select.POLLIN)
        self._poll_out = select.poll()
        self._poll_out.register(fd, select.POLLOUT)
        self._buf = bytearray(RX_FIFO)
        self._view = memoryview(self._buf)
        self._n = 0
        self.timeout = 1.0
        self.write_timeout = None
        self.connected = True

    def _fill(self):
        while self._n < RX_FIFO and self._poll.poll(0):
            try:
                got = self._in.readinto(self._view[self._n :])
            except OSError:  # nobody holds the other end (EIO): nothing to read
                return
            if not got:
                return
            self._n += got

    @property
    def in_waiting(self):
        self._fill()
        return self._n

    @property
    def out_waiting(self):
        return 0

    def read(self, size=-1):
        self._fill()
        n = self._n if size < 0 or size > self._n else size
        out = bytes(self._view[:n])
        rest = self._n - n
        if rest:
            self._buf[:rest] = self._view[n : self._n]
        self._n = rest
        return out

    def write(self, buf):
        # like usb_cdc: wait up to write_timeout for the host to take the bytes, then give up
        done = 0
        n = len(buf)
        mv = memoryview(buf)
        wait_ms = -1 if self.write_timeout is None else int(self.write_timeout * 1000)
        while done < n:
            try:
                w = self._out.write(mv[done:])
            except OSError:
                w = None
            if w:
                done += w
                continue
            if not self._poll_out.poll(wait_ms):
                break
        return done

    def flush(self):
        pass

    def reset_input_buffer(self):
        self._fill()
        self._n = 0

    def reset_output_buffer(self):
        pass


def main():
    quin_wiring.install(field)
    neopixel_write.neopixel_write = _neopixel_write  # quin_hw looks it up at each call
    _take_field()
    os.chdir(FIRMWARE)
    exec(open("boot.py").read(), {"__name__": "__main__"})
    usb_cdc.reset()  # the ports boot.py enabled now exist
    if usb_cdc.data is not None:
        usb_cdc.data = PtySerial(DATA_FD)
    _say(b"R\n")
    exec(open("code.py").read(), {"__name__": "__main__"})


try:
    main()
except BaseException as exc:  # noqa: B036 - the board's last words, wherever they can go
    sys.print_exception(exc)
    raise
