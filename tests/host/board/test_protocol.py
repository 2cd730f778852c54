"""The wire codec: round trips, split fixtures, resynchronisation, property tests."""

import os
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from host.board import protocol as p
from host.board.protocol import NEED_DATA, Decoder, Frame, FrameError

FIXTURES = [
    Frame(p.RAW, 0, 0, tuple(range(0, 101 * 600, 600))),
    Frame(p.RAW, 65535, 2**64 - 1, (0, 0, 0, 65535, 256)),
    Frame(p.RAW, 3, 17, ()),
    Frame(p.OCCUPANCY, 4, 1_000_000, (0, 7, 8, 50, 98)),
    Frame(p.OCCUPANCY, 5, 1_000_001, ()),
    Frame(p.STATUS, 6, 2, ()),
    Frame(p.STATUS, 7, 3, tuple(range(1, len(p.STATUS_FIELDS) + 1))),
    Frame(p.LED, 8, 4, ((0, 255, 0, 0), (98, 1, 2, 3))),
    Frame(p.LED, 9, 5, ()),
    Frame(p.ACK, 10, 6, (p.LED, 8, p.ACK_OK)),
]


def drain(decoder):
    frames = []
    while True:
        frame = decoder.next_frame()
        if frame is NEED_DATA:
            return frames
        frames.append(frame)


@pytest.mark.parametrize("frame", FIXTURES, ids=repr)
def test_round_trip(frame):
    wire = p.encode(frame)
    assert wire.endswith(b"\x00") and b"\x00" not in wire[:-1]
    d = Decoder()
    d.feed(wire)
    assert drain(d) == [frame]
    assert d.stats["frames"] == 1


def test_helpers_build_the_same_frames():
    assert p.raw_frame(1, 2, [3, 4]) == p.encode(Frame(p.RAW, 1, 2, (3, 4)))
    assert p.led_frame(1, 2, {5: (1, 2, 3), 0: (9, 9, 9)}) == p.encode(
        Frame(p.LED, 1, 2, ((0, 9, 9, 9), (5, 1, 2, 3)))
    )
    assert p.occupancy_frame(1, 2, {9, 3}) == p.encode(Frame(p.OCCUPANCY, 1, 2, (3, 9)))
    fields = dict(zip(p.STATUS_FIELDS, range(10, 30)))
    d = Decoder()
    d.feed(p.status_frame(1, 2, fields) + p.ack_frame(2, 3, p.LED, 7, p.ACK_BAD_PAYLOAD))
    status, ack = drain(d)
    assert status.status() == fields
    assert ack.data == (p.LED, 7, p.ACK_BAD_PAYLOAD)


def test_header_layout_is_as_documented():
    frame = Frame(p.RAW, 0x1234, 0x0102030405060708, (0xABCD,))
    body = p.cobs_decode(p.encode(frame)[:-1])
    assert body[0] == p.VERSION and body[1] == p.RAW
    assert body[2:4] == b"\x34\x12"
    assert body[4:12] == bytes([8, 7, 6, 5, 4, 3, 2, 1])
    assert body[12:15] == b"\x01\xcd\xab"
    assert struct.unpack("<I", body[-4:])[0] == p.crc32(body[:-4])


def test_every_split_offset_of_the_whole_fixture_stream():
    stream = b"".join(p.encode(f) for f in FIXTURES)
    for cut in range(len(stream) + 1):
        d = Decoder()
        d.feed(stream[:cut])
        got = drain(d)
        d.feed(stream[cut:])
        got += drain(d)
        assert got == FIXTURES, cut


def test_byte_by_byte():
    d = Decoder()
    got = []
    for b in b"".join(p.encode(f) for f in FIXTURES):
        d.feed(bytes([b]))
        got += drain(d)
    assert got == FIXTURES


@pytest.mark.parametrize("n", [0, 1, 253, 254, 255, 508, 509, 600])
def test_cobs_long_runs(n):
    for data in (b"\x01" * n, b"\x01" * n + b"\x00", b"\x00" + b"\x07" * n, b"\x00" * n):
        enc = p.cobs_encode(data)
        assert b"\x00" not in enc
        assert p.cobs_decode(enc) == data


def test_resync_after_garbage_and_counts():
    d = Decoder()
    good = [p.raw_frame(i, i, [i] * 5) for i in range(4)]
    d.feed(good[0] + b"\x13\x37garbage\x00" + good[1])
    d.feed(b"\xff" * 40 + b"\x00" + good[2])
    got = drain(d)
    assert [f.seq for f in got] == [0, 1, 2]
    assert d.stats["crc_errors"] + d.stats["malformed"] == 2


def test_corrupted_frame_is_dropped_never_returned():
    wire = bytearray(p.raw_frame(1, 1, [100, 200, 300]))
    wire[6] ^= 0x40
    d = Decoder()
    d.feed(bytes(wire) + p.raw_frame(2, 2, [1]))
    assert [f.seq for f in drain(d)] == [2]
    assert d.stats["crc_errors"] + d.stats["malformed"] == 1
    assert d.last_error


def test_lost_frames_are_counted_by_sequence_number_across_wrap():
    d = Decoder()
    # 65535, 0, 1 lost; 4, 5, 6 lost
    for n, seq in enumerate((65533, 65534, 2, 3, 7)):
        d.feed(p.raw_frame(seq, 1000 + n, [0]))
    drain(d)
    assert d.stats["lost"] == 6


def test_sender_restart_is_not_counted_as_loss():
    d = Decoder()
    d.feed(p.raw_frame(40000, 5_000_000, [0]) + p.raw_frame(0, 10, [0]) + p.raw_frame(1, 20, [0]))
    drain(d)
    assert d.stats["lost"] == 0 and d.stats["restarts"] == 1


def test_unsynced_decoder_drops_a_partial_first_frame_quietly():
    wire = p.raw_frame(1, 1, [5, 6]) + p.raw_frame(2, 2, [7])
    d = Decoder(synced=False)
    d.feed(wire[5:])
    assert [f.seq for f in drain(d)] == [2]
    assert d.stats["crc_errors"] == d.stats["malformed"] == 0


def test_memory_stays_bounded_without_delimiters():
    d = Decoder()
    for _ in range(100):
        d.feed(b"\x01" * 4096)
        assert d.next_frame() is NEED_DATA
        assert d.buffered() <= p.MAX_FRAME + 4096
    d.feed(b"\x00" + p.raw_frame(1, 1, [1]))
    assert [f.seq for f in drain(d)] == [1]


def test_memory_bounded_when_fed_without_reading():
    d = Decoder()
    for _ in range(100):
        d.feed(os.urandom(1000))
    assert d.buffered() <= p.MAX_BUFFER
    d.feed(b"\x00" + p.raw_frame(1, 1, [1]))
    assert drain(d)[-1].seq == 1


@pytest.mark.parametrize(
    "frame",
    [
        Frame(p.RAW, 0, 0, (70000,)),
        Frame(p.RAW, 0, 0, (-1,)),
        Frame(p.RAW, 0, 0, (0,) * 256),
        Frame(p.RAW, 70000, 0, ()),
        Frame(p.RAW, 0, -5, ()),
        Frame(p.OCCUPANCY, 0, 0, (99,)),
        Frame(p.STATUS, 0, 0, (1, 2)),
        Frame(p.LED, 0, 0, ((1, 2, 3),)),
        Frame(p.LED, 0, 0, ((1, 2, 3, 256),)),
        Frame(p.ACK, 0, 0, (1,)),
        Frame(99, 0, 0, ()),
    ],
    ids=repr,
)
def test_encode_rejects_bad_fields(frame):
    with pytest.raises(FrameError):
        p.encode(frame)


def test_unknown_version_and_kind_are_malformed():
    for version, kind in ((2, p.RAW), (1, 42)):
        body = struct.pack(p.HEADER, version, kind, 1, 1) + b"\x00"
        body += struct.pack("<I", p.crc32(body))
        d = Decoder()
        d.feed(p.cobs_encode(body) + b"\x00")
        assert drain(d) == []
        assert d.stats["malformed"] == 1


# --- property tests ---------------------------------------------------------------

frames = st.one_of(
    st.builds(Frame, st.just(p.RAW), st.integers(0, 65535), st.integers(0, 2**64 - 1),
              st.lists(st.integers(0, 65535), max_size=120).map(tuple)),
    st.builds(Frame, st.just(p.OCCUPANCY), st.integers(0, 65535), st.integers(0, 2**40),
              st.sets(st.integers(0, 98)).map(lambda s: tuple(sorted(s)))),
    st.builds(Frame, st.just(p.LED), st.integers(0, 65535), st.integers(0, 2**40),
              st.lists(st.tuples(*[st.integers(0, 255)] * 4), max_size=99).map(tuple)),
)
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(st.lists(frames, min_size=1, max_size=5), st.data())
def test_property_round_trip_with_random_chunking(fs, data):
    stream = b"".join(p.encode(f) for f in fs)
    d = Decoder()
    got = []
    i = 0
    while i < len(stream):
        n = data.draw(st.integers(1, 64))
        d.feed(stream[i : i + n])
        got += drain(d)
        i += n
    assert got == fs


@FAST
@given(st.binary(max_size=3000))
def test_property_random_bytes_never_crash_nor_forge_frames(blob):
    d = Decoder()
    d.feed(blob)
    for frame in drain(d):
        # anything accepted must re-encode to a CRC-valid frame found in the input
        assert p.encode(frame)[:-1] in blob


@FAST
@given(st.lists(frames, min_size=1, max_size=4), st.data())
def test_property_corruption_never_yields_a_frame_with_a_wrong_crc(fs, data):
    stream = bytearray(b"".join(p.encode(f) for f in fs))
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(stream) - 1))
        stream[i] = data.draw(st.integers(0, 255))
    d = Decoder()
    d.feed(bytes(stream))
    got = drain(d)
    for frame in got:
        assert frame in fs  # corrupted frames are dropped, never altered
    assert d.stats["frames"] == len(got)
