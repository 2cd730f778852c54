"""The firmware on a real MicroPython interpreter (tests/support/mpy.py), with a CircuitPython-sized heap.

Frames cross between the interpreters both ways on seeded random data: what the
firmware's copy of the codec encodes under MicroPython decodes on the host (CPython)
to the data it was given, and what the host encodes decodes in the firmware.  The
expected values are the random data itself, never the codec's own output.
"""

import json
import random

from tests.support import mpy
import pytest

from host.board import protocol as p

STATUS_LEN = len(p.STATUS_FIELDS)


def test_firmware_modules_import_under_micropython():
    # the crash this guards against: AttributeError: module 'struct' has no attribute 'Struct'
    out = mpy.run("import quin_protocol, quin_firmware; print(quin_protocol.VERSION)").stdout
    assert out.strip() == b"1"


# --- seeded random frames -----------------------------------------------------------------


def _reading(rng):
    # bias towards bytes that stress COBS (0x00) and the ends of the range
    return rng.choice((0, 1, 255, 256, 0xFF00, 65535, rng.randrange(65536), rng.randrange(65536)))


def random_frames(seed, count):
    """``count`` frames as plain lists [kind, seq, time_us, data], every kind and edge."""
    rng = random.Random(seed)
    frames = []
    for i in range(count):
        kind = (p.RAW, p.OCCUPANCY, p.STATUS, p.LED, p.ACK)[i % 5]
        seq = rng.choice((0, 65535, rng.randrange(65536)))
        t = rng.choice((0, 2**64 - 1, rng.randrange(2**64), rng.randrange(2**40)))
        if kind == p.RAW:
            n = rng.choice((0, 1, 101, 255, rng.randrange(256)))
            data = [_reading(rng) for _ in range(n)]
        elif kind == p.OCCUPANCY:
            data = sorted(rng.sample(range(99), rng.randrange(100)))
        elif kind == p.STATUS:
            data = [] if rng.random() < 0.3 else [rng.choice((0, 2**32 - 1, rng.randrange(2**32))) for _ in range(STATUS_LEN)]
        elif kind == p.LED:
            spaces = sorted(rng.sample(range(256), rng.choice((0, 1, 99, 250, rng.randrange(251)))))
            data = [[s, rng.randrange(256), rng.randrange(256), rng.randrange(256)] for s in spaces]
        else:
            data = [rng.randrange(256), rng.randrange(65536), rng.randrange(256)]
        frames.append([kind, seq, t, data])
    return frames


def as_lists(frame):
    """A decoded Frame in the plain-list shape random_frames makes."""
    data = frame.data
    if frame.kind == p.LED:
        data = [list(e) for e in data]
    return [frame.kind, frame.seq, frame.time_us, list(data)]


# the scripts read and write a line at a time: the test's data must not crowd the 128K heap
ENCODE_IN_FIRMWARE = """
import binascii, gc, json, quin_protocol as p
for line in open("frames.jsonl"):
    w = data = None
    gc.collect()  # the last frame's lists go before this one's are parsed (64-bit objects are twice the device's)
    kind, seq, t, data = json.loads(line)
    if kind == p.RAW:
        w = p.raw_frame(seq, t, data)
    elif kind == p.OCCUPANCY:
        w = p.occupancy_frame(seq, t, data)
    elif kind == p.STATUS:
        w = p.status_frame(seq, t, dict(zip(p.STATUS_FIELDS, data))) if data else p.status_request(seq, t)
    elif kind == p.LED:
        if len(data) <= 99:  # the board's chain: through led_frame's dict
            w = p.led_frame(seq, t, dict((e[0], e[1:]) for e in data))
        else:  # 250 entries as a dict of slices beside the parsed lists overflow a 64-bit 128K heap
            w = p.encode(p.Frame(kind, seq, t, tuple(tuple(e) for e in data)))
    else:
        w = p.ack_frame(seq, t, data[0], data[1], data[2])
    print(binascii.hexlify(w).decode())
"""


@pytest.mark.parametrize("seed", [1, 2])
def test_frames_the_firmware_encodes_decode_on_the_host(tmp_path, seed):
    frames = random_frames(seed, 250)
    (tmp_path / "frames.jsonl").write_text("".join(json.dumps(f) + "\n" for f in frames))
    wires = [bytes.fromhex(h.decode()) for h in mpy.run(ENCODE_IN_FIRMWARE, cwd=tmp_path).stdout.split()]
    decoder = p.Decoder()
    got = []
    for wire in wires:
        assert b"\x00" not in wire[:-1] and wire[-1:] == b"\x00"
        decoder.feed(wire)
        frame = decoder.next_frame()
        assert frame is not p.NEED_DATA, decoder.last_error
        got.append(as_lists(frame))
        assert wire == _host_wire(*got[-1])  # byte for byte what the host sends for the same frame
    assert got == frames
    assert decoder.stats["crc_errors"] == decoder.stats["malformed"] == 0


DECODE_IN_FIRMWARE = """
import json, quin_protocol as p
stream = open("stream.bin", "rb")
d = p.Decoder(synced=False)
for line in open("chunks.txt"):
    d.feed(stream.read(int(line)))
    while True:
        f = d.next_frame()
        if f is p.NEED_DATA:
            break
        print(f.kind, f.seq, f.time_us, end="")  # a number at a time: no big string on the heap
        for e in f.data:
            if f.kind == p.LED:
                for v in e:
                    print("", v, end="")
            else:
                print("", e, end="")
        print()
print(json.dumps({"stats": d.stats, "buffered": d.buffered()}))
"""


def parse_printed(line):
    """A frame the decode script printed, in the plain-list shape random_frames makes."""
    kind, seq, t, *values = (int(v) for v in line.split())
    data = [values[i : i + 4] for i in range(0, len(values), 4)] if kind == p.LED else values
    return [kind, seq, t, data]


def _host_wire(kind, seq, t, data):
    if kind == p.LED:
        data = [tuple(e) for e in data]
    return p.encode(p.Frame(kind, seq, t, tuple(data)))


@pytest.mark.parametrize("seed", [3, 4])
def test_frames_the_host_encodes_decode_in_the_firmware(tmp_path, seed):
    rng = random.Random(seed)
    frames = random_frames(seed, 250)
    stream = bytearray(rng.randbytes(40))  # the tail of something sent before the firmware listened
    good, corrupted, garbage = [], 0, 0
    for frame in frames:
        wire = _host_wire(*frame)
        roll = rng.random()
        if roll < 0.1:  # a byte flipped on the way: dropped and counted, the next frame still arrives
            i = rng.randrange(len(wire) - 1)
            bad = bytearray(wire)
            bad[i] = bad[i] ^ (1 << rng.randrange(8)) or 1  # stays non-zero: COBS-valid framing
            stream += b"\x00" + bad
            corrupted += 1
        elif roll < 0.15:  # line noise between frames
            stream += b"\x00" + bytes(rng.randrange(1, 256) for _ in range(rng.randrange(1, 30))) + b"\x00"
            garbage += 1
        stream += b"\x00" + wire  # the host's leading delimiter
        good.append(frame)
    chunks = []
    left = len(stream)
    while left:
        chunks.append(min(left, rng.choice((1, 2, 7, 64, 300, 1500))))
        left -= chunks[-1]
    (tmp_path / "stream.bin").write_bytes(stream)
    (tmp_path / "chunks.txt").write_text("".join("%d\n" % c for c in chunks))
    *lines, last = mpy.run(DECODE_IN_FIRMWARE, cwd=tmp_path).stdout.splitlines()
    assert [parse_printed(line) for line in lines] == good
    result = json.loads(last)
    stats = result["stats"]
    assert stats["frames"] == len(good)
    assert stats["crc_errors"] + stats["malformed"] >= corrupted  # each flipped frame, and garbage that looked like one
    assert stats["crc_errors"] + stats["malformed"] <= corrupted + garbage
    assert result["buffered"] == 0
    # and the host's decoder, fed the same chunks, agrees on every counter
    host = p.Decoder(synced=False)
    pos = 0
    for size in chunks:
        host.feed(bytes(stream[pos : pos + size]))
        pos += size
        while host.next_frame() is not p.NEED_DATA:
            pass
    assert host.stats == stats


REFUSE_IN_FIRMWARE = """
import json, quin_protocol as p
for line in open("bad.jsonl"):
    kind, seq, t, data = json.loads(line)
    try:
        p.encode(p.Frame(kind, seq, t, tuple(tuple(e) if type(e) is list else e for e in data)))
        print("encoded")
    except p.FrameError as exc:
        print(str(exc))
"""

BAD_FRAMES = [
    [p.RAW, 0, 0, [70000]],  # MicroPython's struct would wrap it to 4464
    [p.RAW, 0, 0, [-1]],
    [p.RAW, 0, 0, [1.5]],
    [p.RAW, 0, 0, ["a"]],
    [p.RAW, 0, 0, [0] * 256],
    [p.RAW, 65536, 0, [1]],
    [p.RAW, -1, 0, [1]],
    [p.RAW, 0, 2**64, [1]],
    [p.STATUS, 0, 0, [2**32] + [0] * (STATUS_LEN - 1)],
    [p.STATUS, 0, 0, [0] * (STATUS_LEN - 1)],  # too few: MicroPython's struct.pack would not notice
    [p.ACK, 0, 0, [256, 0, 0]],
    [p.ACK, 0, 0, [4, 65536, 0]],
    [p.ACK, 0, 0, [4, 1]],
    [p.ACK, 0, 0, [4, 1, 0, 0]],
    [p.LED, 0, 0, [[0, 1, 2, 256]]],
    [p.LED, 0, 0, [[0, 1, 2]]],
    [p.LED, 0, 0, [[s, 1, 2, 3] for s in range(251)]],  # 1026 bytes encoded: no receiver takes it
    [p.OCCUPANCY, 0, 0, [99]],
    [300, 0, 0, []],
    [42, 0, 0, []],
]


def test_firmware_and_host_refuse_the_same_frames_with_the_same_words(tmp_path):
    (tmp_path / "bad.jsonl").write_text("".join(json.dumps(f) + "\n" for f in BAD_FRAMES))
    in_firmware = mpy.run(REFUSE_IN_FIRMWARE, cwd=tmp_path).stdout.decode().splitlines()
    on_host = []
    for kind, seq, t, data in BAD_FRAMES:
        with pytest.raises(p.FrameError) as exc:
            p.encode(p.Frame(kind, seq, t, tuple(tuple(e) if isinstance(e, list) else e for e in data)))
        on_host.append(str(exc.value))
    assert in_firmware == on_host


# --- the whole firmware: boot.py and code.py on the CircuitPython stand-ins -----------------

RUN_CODE_PY = """
import binascii, gc, sys
import analogio, digitalio, neopixel_write, usb_cdc, quin_wiring
import quin_protocol

FIRMWARE = sys.argv[1] if len(sys.argv) > 1 else "%(firmware)s"
STEPS = %(steps)d


class Done(Exception):
    pass


readings = [0] * 101
field_lines = open("field.txt")
deliveries = open("host.txt")
pending = deliveries.readline().split()


def next_field():
    values = field_lines.readline().split()
    for ch in range(101):
        readings[ch] = int(values[ch])


class HostPort(usb_cdc.Serial):
    # the data port with the host's frames arriving between raw frames, on a timeline
    def __init__(self):
        super().__init__()
        self.raw = 0

    def write(self, buf):
        global pending
        print("OUT", binascii.hexlify(buf).decode())  # to the host at once: nothing piles up on the heap
        n = len(buf)
        if quin_protocol.cobs_decode(bytes(buf[:-1]))[1] == quin_protocol.RAW:
            self.raw += 1
            while pending and int(pending[0]) == self.raw:
                self.incoming.extend(binascii.unhexlify(pending[1]))
                pending = deliveries.readline().split()
            if self.raw == STEPS:
                raise Done()
            next_field()
        return n


quin_wiring.install(readings)
exec(open(FIRMWARE + "/boot.py").read())
usb_cdc.reset()  # boot.py runs at reset: the data port exists only after it
port = usb_cdc.data = HostPort()
next_field()
try:
    exec(open(FIRMWARE + "/code.py").read(), {"__name__": "__main__"})
except Done:
    pass
gc.collect()
for pin, buf in neopixel_write.written:
    print("LEDS", pin, binascii.hexlify(buf).decode())
print("COUNTS", analogio.reads, digitalio.writes, quin_wiring.contentions, gc.mem_free())
"""


def test_code_py_runs_on_the_pico_standins_and_talks_to_the_host(tmp_path):
    rng = random.Random(5)
    steps = 60
    # a field that changes every scan: per-channel values, towers coming and going
    fields = [[rng.randrange(65536) for _ in range(101)] for _ in range(steps)]
    (tmp_path / "field.txt").write_text("".join(" ".join(map(str, f)) + "\n" for f in fields))
    (tmp_path / "quin_settings.py").write_text(
        'SETTINGS = {"leds": 99, "brightness": 255, "rate_hz": 1000, "oversample": 4}\n'
    )
    leds_a = {s: (rng.randrange(256), rng.randrange(256), rng.randrange(256)) for s in rng.sample(range(99), 30)}
    leds_b = {0: (255, 0, 0), 98: (0, 0, 255), 120: (1, 1, 1)}  # 120: beyond the chain
    deliveries = [
        (3, p.led_frame(100, 0, leds_a)),
        (5, b"\x13\x37garbage\x00" + p.status_request(101)),  # line noise, then a request
        (9, p.led_frame(102, 0, leds_b)[:40]),  # split across two scans
        (10, p.led_frame(102, 0, leds_b)[40:]),
        (20, p.status_request(103)),
    ]
    (tmp_path / "host.txt").write_text("".join("%d %s\n" % (k, (b"\x00" + w).hex()) for k, w in deliveries))
    script = RUN_CODE_PY % {"firmware": mpy.FIRMWARE, "steps": steps}
    out = mpy.run(script, cwd=tmp_path, path=(mpy.STANDINS, mpy.FIRMWARE, tmp_path)).stdout.decode().splitlines()
    lines = {}
    for line in out:
        key, _, rest = line.partition(" ")
        lines.setdefault(key, []).append(rest)

    decoder = p.Decoder()
    for wire in lines["OUT"]:
        decoder.feed(bytes.fromhex(wire))
    frames = []
    while (f := decoder.next_frame()) is not p.NEED_DATA:
        frames.append(f)
    assert decoder.stats["crc_errors"] == decoder.stats["malformed"] == decoder.stats["lost"] == 0
    assert [f.seq for f in frames] == list(range(len(frames)))

    raw = [f for f in frames if f.kind == p.RAW]
    assert [list(f.data) for f in raw] == fields  # every channel, each scan, the stale first sample discarded
    assert all(b.time_us > a.time_us for a, b in zip(raw, raw[1:]))

    acks = [f.data for f in frames if f.kind == p.ACK]
    assert acks == [(p.LED, 100, p.ACK_OK), (p.LED, 102, p.ACK_BAD_PAYLOAD)]
    statuses = [f.status() for f in frames if f.kind == p.STATUS]
    assert len(statuses) == 2
    assert statuses[0]["bad_frames"] == 1  # the garbage
    assert statuses[1]["channels"] == 101 and statuses[1]["oversample"] == 4 and statuses[1]["leds"] == 99
    assert statuses[1]["firmware"] == 10100 and statuses[1]["rate_mhz"] == 1000000
    assert statuses[0]["frames_sent"] == 5 + 1  # raw frames 1..5 and the first ack: answered in the scan it arrived after
    assert statuses[1]["frames_sent"] == 20 + 3  # raw frames 1..20, two acks and the first status

    shown = [bytes.fromhex(rest.split()[1]) for rest in lines["LEDS"]]
    assert [rest.split()[0] for rest in lines["LEDS"]] == ["GP22"] * 3
    assert shown[0] == bytes(3 * 99)  # dark at start
    expect = bytearray(3 * 99)
    for s, (r, g, b) in leds_a.items():
        expect[3 * s : 3 * s + 3] = bytes((g, r, b))  # WS2812 order
    assert shown[1] == expect
    assert shown[2] == bytes((0, 255, 0)) + bytes(3 * 97) + bytes((0, 0, 255))

    reads, writes, contentions, free = map(int, lines["COUNTS"][0].split())
    assert reads == steps * 101 * (1 + 4)  # one discarded sample and four averaged per channel
    assert contentions == 0  # never two multiplexers on the ADC at once


COUNT_CALLS = """
import analogio, digitalio, quin_wiring
import quin_firmware, quin_hw


class Port:
    in_waiting = 0

    def write(self, buf):
        return len(buf)


quin_wiring.install(lambda ch: 30000 + ch)
hw = quin_hw.PicoHardware(leds=0)
fw = quin_firmware.Firmware(hw, Port(), {"rate_hz": 1000000})
fw.step()
reads, writes = analogio.reads, digitalio.writes
fw.step()
print(analogio.reads - reads, digitalio.writes - writes, quin_wiring.contentions)
"""


def test_a_scan_makes_the_hardware_calls_docs_hardware_md_counts():
    # the device-cost estimate rests on these counts: one discarded and four averaged samples per
    # channel, two enable writes per channel and one select line per select change (Gray code)
    samples, writes, contentions = map(int, mpy.run(COUNT_CALLS).stdout.split())
    assert (samples, writes, contentions) == (101 * 5, 101 * 2 + 16, 0)
    text = (mpy.ROOT / "docs" / "hardware.md").read_text()
    assert "that is %d ADC samples and %d pin writes" % (samples, writes) in " ".join(text.split())
