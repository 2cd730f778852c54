"""The Quin board wire protocol: a sans-I/O codec shared by the host and the firmware.

One source of truth.  This very file runs on the Raspberry Pi (CPython) and on
the Pico (CircuitPython); ``quin firmware build`` writes the firmware's copy,
``firmware/quin_protocol.py``, from it.  So it uses only what both offer: no
dataclasses, no typing, no annotations, and of ``struct`` and ``binascii`` only
the functions CircuitPython documents (``struct`` there has no ``Struct`` class
and no ``error``; tests/firmware/test_circuitpython_api.py holds the list).
MicroPython's ``struct`` wraps out-of-range values silently where CPython's
raises, so the codec checks every range itself and both ends refuse the same
frames.

A frame on the wire is COBS-encoded and ends with a single 0x00 byte.  Decoded,
it is (all integers little-endian)::

    offset  size  field
    0       1     version (1)
    1       1     kind: RAW 1, OCCUPANCY 2, STATUS 3, LED 4, ACK 5, THRESHOLDS 6
    2       2     sequence number (uint16, wraps; one counter per sender)
    4       8     timestamp in microseconds (uint64, sender's clock)
    12      n     payload (depends on kind, see docs/protocol.md)
    12+n    4     CRC-32 (zlib polynomial) of bytes 0 .. 12+n-1

Use a :class:`Decoder` for incoming bytes::

    decoder = Decoder()
    decoder.feed(port.read(4096))
    while True:
        frame = decoder.next_frame()
        if frame is NEED_DATA:
            break
        handle(frame)

and :func:`encode` (or the ``raw_frame`` / ``led_frame`` ... helpers) for outgoing
frames.  Bad bytes never raise from the decoder: they are skipped, counted in
``decoder.stats`` and the decoder resynchronises at the next 0x00.
"""

import struct

try:
    from binascii import crc32 as _crc32
except ImportError:  # pragma: no cover - a small CircuitPython build without binascii (an RP2040 has it)
    _crc32 = None

VERSION = 1

RAW = 1
OCCUPANCY = 2
STATUS = 3
LED = 4
ACK = 5
THRESHOLDS = 6
KIND_NAMES = {RAW: "raw", OCCUPANCY: "occupancy", STATUS: "status", LED: "led", ACK: "ack",
              THRESHOLDS: "thresholds"}

# ACK result codes
ACK_OK = 0
ACK_BAD_PAYLOAD = 1
ACK_UNSUPPORTED = 2

#: fields of a STATUS report, in wire order (each a uint32)
STATUS_FIELDS = (
    "firmware",  # major * 10000 + minor * 100 + patch
    "channels",  # channels scanned per raw frame
    "rate_mhz",  # raw frame rate in millihertz (50 Hz = 50000)
    "oversample",  # ADC samples averaged per channel
    "frames_sent",
    "bad_frames",  # frames from the host that failed to decode
    "leds",  # LEDs fitted (0: none)
    "uptime_ms",
)

HEADER = "<BBHQ"  # version, kind, sequence number, timestamp (a format string: no struct.Struct on the device)
HEADER_SIZE = 12
CRC_SIZE = 4
MAX_CHANNELS = 255
OCCUPANCY_BYTES = 13  # 99 spaces, one bit each, space 0 in bit 0 of byte 0
SPACES = OCCUPANCY_BYTES * 8 - 5  # 99
THRESHOLD_ENTRY = "<BBBHHH"  # space, channel, sign + 1, baseline, on, off
THRESHOLD_SIZE = 9
MAX_FRAME = 1024  # longest encoded frame accepted, delimiter excluded
MAX_BUFFER = 16384  # bytes the decoder holds at most


class FrameError(ValueError):
    """A frame that cannot be encoded (bad field) or decoded (bad bytes)."""


class _Sentinel:
    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return self._name


#: returned by :meth:`Decoder.next_frame` when it needs more bytes
NEED_DATA = _Sentinel("NEED_DATA")


def _crc_table():
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0xEDB88320 if c & 1 else c >> 1
        table.append(c)
    return table


def crc32(data):
    """CRC-32 as zlib computes it (the C version wherever the platform has one)."""
    if _crc32 is not None:
        return _crc32(data) & 0xFFFFFFFF
    table = _TABLE  # pragma: no cover
    c = 0xFFFFFFFF  # pragma: no cover
    for b in data:  # pragma: no cover
        c = table[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF  # pragma: no cover


_TABLE = None if _crc32 is not None else _crc_table()


class Frame:
    """One frame: ``kind``, ``seq``, ``time_us`` and ``data``.

    ``data`` depends on the kind (always immutable, always plain ints):

    * RAW: tuple of readings, one uint16 per channel, channel 0 first
    * OCCUPANCY: tuple of occupied space ids, ascending
    * STATUS: ``()`` for a request, else a tuple of ints in ``STATUS_FIELDS`` order
    * LED: tuple of ``(space, r, g, b)``; every space not listed is dark
    * ACK: ``(kind acknowledged, its sequence number, result code)``
    * THRESHOLDS: ``(raw_period_ms, ((space, channel, sign, baseline, on, off), ...))``;
      period 0 and no entries: raw frames at the full rate
    """

    def __init__(self, kind, seq=0, time_us=0, data=()):
        self.kind = kind
        self.seq = seq
        self.time_us = time_us
        self.data = data

    def _key(self):
        return (self.kind, self.seq, self.time_us, self.data)

    def __eq__(self, other):
        return isinstance(other, Frame) and self._key() == other._key()

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return "Frame(%s, seq=%d, time_us=%d, data=%r)" % (
            KIND_NAMES.get(self.kind, str(self.kind)).upper(),
            self.seq,
            self.time_us,
            self.data,
        )

    def status(self):
        """A STATUS report as a dict of ``STATUS_FIELDS`` (empty for a request)."""
        return dict(zip(STATUS_FIELDS, self.data))


# --- COBS ----------------------------------------------------------------------


def cobs_encode(data):
    """Consistent Overhead Byte Stuffing: the result holds no 0x00 byte."""
    out = bytearray()
    start = 0
    n = len(data)
    while True:
        zero = data.find(b"\x00", start)
        end = n if zero < 0 else zero
        while end - start >= 254:
            out.append(0xFF)
            out += data[start : start + 254]
            start += 254
        out.append(end - start + 1)
        out += data[start:end]
        if zero < 0:
            return bytes(out)
        start = zero + 1


def cobs_decode(data):
    """Undo :func:`cobs_encode` (``data`` without its delimiter); FrameError if malformed."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise FrameError("zero byte inside a COBS block")
        j = i + code
        if j > n:
            raise FrameError("COBS block runs past the end of the frame")
        out += data[i + 1 : j]
        i = j
        if code < 0xFF and i < n:
            out.append(0)
    return bytes(out)


# --- payloads ------------------------------------------------------------------

_formats = {}


def _uint16s(n):
    fmt = _formats.get(n)
    if fmt is None:
        fmt = _formats[n] = "<%dH" % n
    return fmt


def _pack(fmt, values, top, message):
    """struct.pack(fmt, *values), each value checked to be an integer 0..top.

    ``top`` is one limit for all (checked with min/max, in C on the device: a
    Python loop over 101 readings would cost more than the packing) or one per
    value.  A float or a string fails in the comparisons or inside struct.pack,
    which raises struct.error on CPython and TypeError on MicroPython (where no
    struct.error exists): every failure becomes the FrameError.
    """
    try:
        if type(top) is int:
            bad = values and (min(values) < 0 or max(values) > top)
        else:
            bad = len(values) != len(top) or not all(0 <= v <= t for v, t in zip(values, top))
        if bad:
            raise ValueError(message)
        return struct.pack(fmt, *values)
    except Exception:
        raise FrameError(message)


def _payload(kind, data):
    if kind == RAW:
        n = len(data)
        if n > MAX_CHANNELS:
            raise FrameError("a raw frame holds at most %d channels, not %d" % (MAX_CHANNELS, n))
        return bytes((n,)) + _pack(_uint16s(n), data, 0xFFFF, "raw readings must be integers 0..65535")
    if kind == OCCUPANCY:
        bits = bytearray(OCCUPANCY_BYTES)
        for space in data:
            if not 0 <= space < OCCUPANCY_BYTES * 8 - 5:
                raise FrameError("no space %r on the board" % (space,))
            bits[space >> 3] |= 1 << (space & 7)
        return bytes(bits)
    if kind == STATUS:
        if len(data) not in (0, len(STATUS_FIELDS)):
            raise FrameError("a status frame has no fields (request) or %d" % len(STATUS_FIELDS))
        return _pack("<%dI" % len(data), data, 0xFFFFFFFF, "status fields must be integers 0..2**32-1")
    if kind == LED:
        if len(data) > 255:
            raise FrameError("at most 255 lit LEDs per frame")
        out = bytearray((len(data),))
        for entry in data:
            if len(entry) != 4 or not all(0 <= v <= 255 for v in entry):
                raise FrameError("an LED is (space, r, g, b) with values 0..255, not %r" % (entry,))
            out += bytes(entry)
        return bytes(out)
    if kind == ACK:
        return _pack("<BHB", data, (255, 0xFFFF, 255), "an ack is (kind, seq, code)")
    if kind == THRESHOLDS:
        message = "thresholds are (period_ms 0..65535, ((space, channel, sign, baseline, on, off), ...))"
        try:
            period, entries = data
        except Exception:
            raise FrameError(message)
        if len(entries) > SPACES:
            raise FrameError("at most %d thresholds per frame" % SPACES)
        out = bytearray(_pack("<HB", (period, len(entries)), 0xFFFF, message))
        for entry in entries:
            if len(entry) != 6 or entry[2] not in (-1, 0, 1):
                raise FrameError("a threshold is (space, channel, sign -1/0/1, baseline, on, off), not %r" % (entry,))
            e = (entry[0], entry[1], entry[2] + 1, entry[3], entry[4], entry[5])
            out += _pack(THRESHOLD_ENTRY, e, (SPACES - 1, 255, 2, 0xFFFF, 0xFFFF, 0xFFFF),
                         "a threshold is (space 0..98, channel 0..255, sign, baseline, on, off 0..65535)")
        return bytes(out)
    raise FrameError("unknown frame kind %r" % (kind,))


def _parse_payload(kind, p):
    n = len(p)
    if kind == RAW:
        if n < 1 or n != 1 + 2 * p[0]:
            raise FrameError("raw payload length does not match its channel count")
        return struct.unpack_from(_uint16s(p[0]), p, 1)
    if kind == OCCUPANCY:
        if n != OCCUPANCY_BYTES or p[-1] >> 3:
            raise FrameError("occupancy payload must be 13 bytes of 99 bits")
        spaces = []
        for i in range(OCCUPANCY_BYTES):
            byte = p[i]
            if byte:
                for bit in range(8):
                    if byte >> bit & 1:
                        spaces.append(i * 8 + bit)
        return tuple(spaces)
    if kind == STATUS:
        if n == 0:
            return ()
        if n != 4 * len(STATUS_FIELDS):
            raise FrameError("status payload has the wrong length")
        return struct.unpack("<%dI" % len(STATUS_FIELDS), p)
    if kind == LED:
        if n < 1 or n != 1 + 4 * p[0]:
            raise FrameError("LED payload length does not match its LED count")
        return tuple(tuple(p[i : i + 4]) for i in range(1, n, 4))
    if kind == ACK:
        if n != 4:
            raise FrameError("ack payload must be 4 bytes")
        return struct.unpack("<BHB", p)
    if kind == THRESHOLDS:
        if n < 3 or n != 3 + THRESHOLD_SIZE * p[2]:
            raise FrameError("thresholds payload length does not match its count")
        entries = []
        for i in range(3, n, THRESHOLD_SIZE):
            e = struct.unpack_from(THRESHOLD_ENTRY, p, i)
            if e[0] >= SPACES or e[2] > 2:
                raise FrameError("threshold for no space or with a bad sign")
            entries.append((e[0], e[1], e[2] - 1, e[3], e[4], e[5]))
        return (p[0] | p[1] << 8, tuple(entries))
    raise FrameError("unknown frame kind %d" % kind)


# --- frames ------------------------------------------------------------------------


def encode(frame):
    """The bytes on the wire for ``frame``, delimiter included.  FrameError on a bad field."""
    if not 0 <= frame.seq <= 0xFFFF:
        raise FrameError("sequence number must be 0..65535")
    if not 0 <= frame.time_us < 1 << 64:
        raise FrameError("timestamp must be 0..2**64-1 microseconds")
    payload = _payload(frame.kind, frame.data)  # first: it refuses an unknown kind before the header packs it
    body = struct.pack(HEADER, VERSION, frame.kind, frame.seq, frame.time_us) + payload
    body += struct.pack("<I", crc32(body))
    wire = cobs_encode(body)
    if len(wire) > MAX_FRAME:  # the receiver would drop it as garbage (e.g. more than 250 LEDs)
        raise FrameError("frame too long: %d bytes encoded, at most %d" % (len(wire), MAX_FRAME))
    return wire + b"\x00"


def decode_body(body):
    """Parse one COBS-decoded frame; FrameError says what is wrong with it."""
    if len(body) < HEADER_SIZE + CRC_SIZE:
        raise FrameError("frame too short")
    (crc,) = struct.unpack_from("<I", body, len(body) - CRC_SIZE)
    if crc32(body[:-CRC_SIZE]) != crc:
        raise FrameError("CRC mismatch")
    version, kind, seq, time_us = struct.unpack_from(HEADER, body, 0)
    if version != VERSION:
        raise FrameError("unsupported protocol version %d" % version)
    return Frame(kind, seq, time_us, _parse_payload(kind, body[HEADER_SIZE:-CRC_SIZE]))


def raw_frame(seq, time_us, readings):
    """``readings``: a list (or tuple) of ints, channel 0 first; encoded as it is, not copied
    (on the Pico the copy cost a tenth of a frame's time)."""
    return encode(Frame(RAW, seq, time_us, readings))


def occupancy_frame(seq, time_us, spaces):
    return encode(Frame(OCCUPANCY, seq, time_us, tuple(sorted(spaces))))


def status_request(seq, time_us=0):
    return encode(Frame(STATUS, seq, time_us, ()))


def status_frame(seq, time_us, fields):
    """``fields``: a dict with every name of STATUS_FIELDS."""
    return encode(Frame(STATUS, seq, time_us, tuple(fields[name] for name in STATUS_FIELDS)))


def led_frame(seq, time_us, leds):
    """``leds``: dict space -> (r, g, b); every other LED goes dark."""
    return encode(Frame(LED, seq, time_us, tuple((s,) + tuple(leds[s]) for s in sorted(leds))))


def ack_frame(seq, time_us, kind, acked_seq, code=ACK_OK):
    return encode(Frame(ACK, seq, time_us, (kind, acked_seq, code)))


def thresholds_frame(seq, time_us, period_ms, entries):
    """Ask the board to decide occupancy itself: ``entries`` (space, channel, sign, baseline, on, off),
    a raw frame every ``period_ms``.  ``thresholds_frame(seq, t, 0, ())``: full-rate raw frames again."""
    return encode(Frame(THRESHOLDS, seq, time_us, (period_ms, tuple(tuple(e) for e in entries))))



class Decoder:
    """Feed bytes, take frames.  Bounded memory; never raises on bad input.

    ``stats`` counts ``frames`` (good ones), ``crc_errors``, ``malformed``
    (bad COBS, length, version or kind), ``lost`` (gaps in the sequence
    numbers), ``restarts`` (sequence jumped backwards: the sender restarted)
    and ``skipped_bytes`` (dropped while resynchronising or on overflow).
    ``last_error`` describes the latest bad frame.
    """

    def __init__(self, max_buffer=MAX_BUFFER, synced=True):
        self._buf = b""
        self._pos = 0
        # unsynced: the bytes before the next delimiter are the tail of a frame
        # begun before we listened (a port opened mid-stream); drop them quietly
        self._synced = synced
        self._max_buffer = max_buffer
        self._last_seq = None
        self._last_time = 0
        self.last_error = ""
        self.stats = {
            "frames": 0,
            "crc_errors": 0,
            "malformed": 0,
            "lost": 0,
            "restarts": 0,
            "skipped_bytes": 0,
        }

    def feed(self, data):
        if not data:
            return
        buf = self._buf[self._pos :] + bytes(data)
        self._pos = 0
        if len(buf) > self._max_buffer:
            # keep the newest bytes; the cut frame is discarded at the next delimiter
            cut = len(buf) - self._max_buffer
            self.stats["skipped_bytes"] += cut
            buf = buf[cut:]
            self._synced = False
        self._buf = buf

    def buffered(self):
        """Bytes held, waiting for a delimiter."""
        return len(self._buf) - self._pos

    def reset_sequence(self):
        """Forget the last sequence number (e.g. after a reconnect)."""
        self._last_seq = None

    def next_frame(self):
        """The next good frame, or NEED_DATA."""
        buf = self._buf
        while True:
            end = buf.find(b"\x00", self._pos)
            if end < 0:
                pending = len(buf) - self._pos
                if pending > MAX_FRAME:  # no delimiter in sight: a frame this long is garbage
                    self.stats["skipped_bytes"] += pending
                    self._buf = b""
                    self._pos = 0
                    self._synced = False
                return NEED_DATA
            start = self._pos
            self._pos = end + 1
            if not self._synced:
                self._synced = True
                self.stats["skipped_bytes"] += end - start
                continue
            if end == start:
                continue  # empty frame: a spare delimiter
            if end - start > MAX_FRAME:
                self.stats["skipped_bytes"] += end - start
                self.stats["malformed"] += 1
                self.last_error = "frame too long"
                continue
            try:
                frame = decode_body(cobs_decode(buf[start:end]))
            except FrameError as exc:
                msg = str(exc)
                self.last_error = msg
                if msg == "CRC mismatch":
                    self.stats["crc_errors"] += 1
                else:
                    self.stats["malformed"] += 1
                continue
            self._count(frame.seq, frame.time_us)
            if self._pos >= len(buf):
                self._buf = b""
                self._pos = 0
            return frame

    def _count(self, seq, time_us):
        self.stats["frames"] += 1
        last = self._last_seq
        restarted = time_us < self._last_time  # the sender's clock went back: it restarted
        self._last_seq = seq
        self._last_time = time_us
        if last is not None:
            gap = (seq - last - 1) & 0xFFFF
            if restarted or gap >= 0x8000:
                self.stats["restarts"] += 1
            else:
                self.stats["lost"] += gap
