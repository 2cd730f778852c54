"""The firmware's scan and protocol logic, run on CPython against fake hardware."""

import sys
import types

import pytest
from tests.support.quin_sim import ROOT, BufferPort, FakeHardware, SimBoard

import quin_firmware
from host.board import protocol as p


def frames_of(data):
    d = p.Decoder()
    d.feed(bytes(data))
    out = []
    while (f := d.next_frame()) is not p.NEED_DATA:
        out.append(f)
    assert d.stats["crc_errors"] == d.stats["malformed"] == 0
    return out


def make(settings=None, board=None):
    board = board or SimBoard()
    hw = FakeHardware(board)
    port = BufferPort()
    fw = quin_firmware.Firmware(hw, port, dict({"leds": 99}, **(settings or {})))
    return board, hw, port, fw


@pytest.mark.parametrize("oversample", [1, 2, 3, 4, 5, 8])  # 4, the default, has a path of its own
def test_scan_reads_every_channel_discarding_the_stale_first_sample(oversample):
    board = SimBoard()
    board.towers = {5, 40}
    hw = FakeHardware(board)
    scanner = quin_firmware.Scanner(hw, 101, oversample)
    readings = scanner.scan()
    assert readings == [board.value(ch) for ch in range(101)]
    # one discarded sample plus the averaged ones per channel
    assert hw.reads == 101 * (1 + oversample)
    assert hw.mux is None and not hw.enabled  # every multiplexer disabled after the scan
    assert hw.contentions == 0  # never two on the ADC at once


def test_without_the_discard_the_stale_sample_would_show():
    # guard that the fake really models the quirk the discard exists for
    hw = FakeHardware(SimBoard())
    hw.enable(0)
    assert hw.read_adc() == 65535
    assert hw.read_adc() == SimBoard().value(0)


def test_select_lines_change_only_sixteen_times_a_scan():
    hw = FakeHardware(SimBoard())
    selects = []
    original = hw.select
    hw.select = lambda n: (selects.append(n), original(n))
    quin_firmware.Scanner(hw, 101, 1).scan()
    assert sorted(selects) == list(range(16))
    # in Gray code order: one select line flips at each change
    assert all(bin(a ^ b).count("1") == 1 for a, b in zip(selects, selects[1:]))


class _CountingBoard:
    """Each sample a new value (the sample's number times 7): shows how samples are combined."""

    def __init__(self):
        self.calls = 0
        self.channels = []

    def value(self, ch):
        self.calls += 1
        self.channels.append(ch)
        return 7 * self.calls


@pytest.mark.parametrize("oversample", [3, 4])
def test_each_reading_is_the_rounded_mean_of_the_samples_after_the_discarded_one(oversample):
    board = _CountingBoard()
    readings = quin_firmware.Scanner(FakeHardware(board), 101, oversample).scan()
    per = 1 + oversample
    for visit in range(101):
        ch = board.channels[visit * per]
        assert board.channels[visit * per : (visit + 1) * per] == [ch] * per  # one channel at a time
        samples = [7 * (visit * per + k + 1) for k in range(1, per)]  # the first is discarded
        assert readings[ch] == (sum(samples) + oversample // 2) // oversample


def test_oversampling_averages_noise():
    board = SimBoard(noise=400, seed=3)
    hw = FakeHardware(board)
    one = quin_firmware.Scanner(hw, 101, 1)
    many = quin_firmware.Scanner(hw, 101, 16)
    spread = lambda rs: max(r - b for r, b in zip(rs, board.base)) - min(r - b for r, b in zip(rs, board.base))
    assert spread(many.scan()[:99]) < spread(one.scan()[:99])


def test_step_sends_raw_frames_with_rising_sequence_and_keeps_the_pace():
    board, hw, port, fw = make({"rate_hz": 50})
    board.towers = {0}
    for _ in range(5):
        fw.step()
    raw = [f for f in frames_of(port.written) if f.kind == p.RAW]
    assert [f.seq for f in raw] == [0, 1, 2, 3, 4]
    assert len(raw[0].data) == 101
    assert raw[0].data[0] == board.value(0)
    assert raw[-1].time_us - raw[0].time_us == 4 * 20000  # 50 Hz on the fake clock


def test_led_frame_lights_ws2812_in_grb_order_and_is_acknowledged():
    board, hw, port, fw = make({"brightness": 255})
    port.incoming += b"\x00" + p.led_frame(7, 0, {0: (255, 10, 1), 98: (0, 0, 200)})
    fw.step()
    buf = hw.shown[-1]
    assert len(buf) == 3 * 99
    assert buf[0:3] == bytes([10, 255, 1])
    assert buf[3 * 98 : 3 * 99] == bytes([0, 0, 200])
    assert buf[3:6] == b"\x00\x00\x00"
    acks = [f for f in frames_of(port.written) if f.kind == p.ACK]
    assert acks[0].data == (p.LED, 7, p.ACK_OK)


def test_brightness_scales_colours():
    board, hw, port, fw = make({"brightness": 64})
    fw.show({1: (255, 0, 0)})
    assert hw.shown[-1][3:6] == bytes([0, 64, 0])


def test_led_beyond_the_chain_is_refused_but_the_rest_lit():
    board, hw, port, fw = make({"leds": 10})
    port.incoming += b"\x00" + p.led_frame(3, 0, {2: (1, 2, 3), 50: (9, 9, 9)})
    fw.step()
    assert hw.shown[-1][6:9] == bytes([2 * 64 // 255, 1 * 64 // 255, 3 * 64 // 255])
    ack = [f for f in frames_of(port.written) if f.kind == p.ACK][0]
    assert ack.data == (p.LED, 3, p.ACK_BAD_PAYLOAD)


def test_status_request_is_answered():
    board, hw, port, fw = make({"rate_hz": 60, "oversample": 3})
    fw.step()
    port.incoming += b"\x55\x00garbage\x00" + p.status_request(1)
    fw.step()
    status = [f for f in frames_of(port.written) if f.kind == p.STATUS][0].status()
    assert status["channels"] == 101 and status["rate_mhz"] == 60000 and status["oversample"] == 3
    assert status["frames_sent"] == 2 and status["leds"] == 99
    assert status["bad_frames"] == 1  # the garbage frame
    assert status["firmware"] == 10100


def test_unsupported_frame_is_acknowledged_as_such():
    board, hw, port, fw = make()
    port.incoming += b"\x00" + p.raw_frame(9, 0, [1, 2])
    fw.step()
    ack = [f for f in frames_of(port.written) if f.kind == p.ACK][0]
    assert ack.data == (p.RAW, 9, p.ACK_UNSUPPORTED)


def test_default_rate_is_at_least_50_hz():
    assert quin_firmware.DEFAULTS["rate_hz"] >= 50
    assert quin_firmware.DEFAULTS["channels"] == 101


def test_settings_file_overrides(monkeypatch):
    monkeypatch.setitem(sys.modules, "quin_settings", types.SimpleNamespace(SETTINGS={"leds": 99}))
    assert quin_firmware.load_settings()["leds"] == 99


# --- the Pico hardware module against fake CircuitPython modules ---------------------------


class _Pin:
    def __init__(self, name):
        self.name = name
        self.value = None
        self.direction = None


@pytest.fixture
def fake_circuitpython(monkeypatch):
    pins = {}

    def DigitalInOut(pin):
        pins[pin.name] = io = _Pin(pin.name)
        return io

    board = types.SimpleNamespace(**{f"GP{i}": types.SimpleNamespace(name=f"GP{i}") for i in range(29)})
    board.A0 = types.SimpleNamespace(name="A0")
    adc = types.SimpleNamespace(value=12345)
    written = []
    mods = {
        "board": board,
        "digitalio": types.SimpleNamespace(DigitalInOut=DigitalInOut, Direction=types.SimpleNamespace(OUTPUT="out")),
        "analogio": types.SimpleNamespace(AnalogIn=lambda pin: adc),
        "neopixel_write": types.SimpleNamespace(neopixel_write=lambda pin, buf: written.append((pin.name, bytes(buf)))),
        "usb_cdc": types.SimpleNamespace(data=types.SimpleNamespace(timeout=None, write_timeout=None)),
    }
    for name, mod in mods.items():
        monkeypatch.setitem(sys.modules, name, mod)
    monkeypatch.delitem(sys.modules, "quin_hw", raising=False)
    import quin_hw

    return quin_hw, pins, written, mods


def test_pico_hardware_drives_select_and_enable_lines(fake_circuitpython):
    quin_hw, pins, written, mods = fake_circuitpython
    hw = quin_hw.PicoHardware(leds=99)
    assert all(pins[p.name].value is True for p in quin_hw.ENABLE_PINS)  # all disabled at start
    hw.select(0b1010)
    assert [pins[p.name].value for p in quin_hw.SELECT_PINS] == [False, True, False, True]
    # the scanner drives the enable lines itself, in multiplexer order
    assert [pins[p.name] for p in quin_hw.ENABLE_PINS] == hw.enable_pins
    assert hw.adc.value == 12345
    hw.show(b"\x01\x02\x03")
    assert written == [("GP22", b"\x01\x02\x03")]
    port = quin_hw.data_port()
    assert port.timeout == 0


def test_pico_firmware_runs_on_the_fake_pins(fake_circuitpython):
    quin_hw, pins, written, mods = fake_circuitpython
    port = BufferPort()
    fw = quin_firmware.Firmware(quin_hw.PicoHardware(leds=0), port, {"leds": 0})
    fw.scanner.scan()
    assert frames_of(b"") == []
    fw.hw.sleep_us = lambda n: None
    fw.step()
    raw = frames_of(port.written)[0]
    assert raw.kind == p.RAW and set(raw.data) == {12345}


def test_data_port_missing_says_what_to_do(fake_circuitpython):
    quin_hw, pins, written, mods = fake_circuitpython
    mods["usb_cdc"].data = None
    with pytest.raises(RuntimeError, match="boot.py"):
        quin_hw.data_port()


def test_boot_enables_the_data_port():
    text = (ROOT / "firmware" / "boot.py").read_text()
    assert "usb_cdc.enable(console=True, data=True)" in text


# --- the board decides (THRESHOLDS, docs/protocol.md) ------------------------------------------


def deciding(period_ms=200, sign=1):
    board, hw, port, fw = make({"rate_hz": 100})
    entries = [(s, s, sign, board.base[s], 2400, 1600) for s in range(99)]
    port.incoming += b"\x00" + p.thresholds_frame(7, 0, period_ms, entries)
    fw.step()
    acks = [f.data for f in frames_of(port.written) if f.kind == p.ACK]
    assert acks == [(p.THRESHOLDS, 7, p.ACK_OK)]
    port.written.clear()
    return board, hw, port, fw


def run_for(fw, port, seconds):
    """Step for ``seconds`` of the board's clock (100 scans a second); the frames sent, with their scan."""
    out = []
    for i in range(round(seconds * 100)):
        port.written.clear()
        fw.step()
        out += [(i, f) for f in frames_of(port.written)]
    return out


def test_with_thresholds_a_change_is_sent_the_scan_it_happens_and_nothing_moving_is_quiet():
    board, hw, port, fw = deciding()
    quiet = run_for(fw, port, 2.0)
    # nothing moves: a raw frame and an occupancy frame every 200 ms, no more
    assert [f.kind for _, f in quiet].count(p.RAW) in (10, 11)
    assert all(f.data == () for _, f in quiet if f.kind == p.OCCUPANCY)
    board.towers = {5, 40}
    port.written.clear()
    fw.step()
    first = frames_of(port.written)
    assert first[0].kind == p.OCCUPANCY and first[0].data == (5, 40)  # at once
    # then every scan for a while (the host's debounce runs on them), then quiet again
    after = run_for(fw, port, 2.0)
    occ = [i for i, f in after if f.kind == p.OCCUPANCY]
    assert occ[:50] == list(range(50))
    assert len(occ) < 100
    assert all(f.data == (5, 40) for _, f in after if f.kind == p.OCCUPANCY)


def test_thresholds_keep_their_hysteresis_and_direction():
    board, hw, port, fw = deciding(sign=-1)
    board.tower = 4000  # the wrong way for sign -1: never a tower
    board.towers = {3}
    assert all(f.data == () for _, f in run_for(fw, port, 0.5) if f.kind == p.OCCUPANCY)
    board.tower = -2000  # between off (1600) and on (2400) below the baseline: not enough from empty
    assert all(f.data == () for _, f in run_for(fw, port, 0.5) if f.kind == p.OCCUPANCY)
    board.tower = -4000
    assert [f.data for _, f in run_for(fw, port, 0.5) if f.kind == p.OCCUPANCY][-1] == (3,)
    board.tower = -2000  # and enough to stay occupied
    assert [f.data for _, f in run_for(fw, port, 0.5) if f.kind == p.OCCUPANCY][-1] == (3,)
    # new baselines (drift) for the same spaces keep each one's state
    port.incoming += b"\x00" + p.thresholds_frame(8, 0, 200, [(s, s, -1, board.base[s] + 10, 2400, 1600) for s in range(99)])
    assert [f.data for _, f in run_for(fw, port, 0.5) if f.kind == p.OCCUPANCY][-1] == (3,)


def test_back_to_raw_frames_and_a_bad_channel_is_refused():
    board, hw, port, fw = deciding()
    port.incoming += b"\x00" + p.thresholds_frame(9, 0, 200, [(0, 120, 1, 30000, 2400, 1600)])  # channel 120: not scanned
    frames = [f for _, f in run_for(fw, port, 0.3)]
    assert (p.THRESHOLDS, 9, p.ACK_BAD_PAYLOAD) in [f.data for f in frames if f.kind == p.ACK]
    assert fw.entries is not None and len(fw.entries) == 99  # what it had
    port.incoming += b"\x00" + p.thresholds_frame(10, 0, 0, ())
    frames = [f for _, f in run_for(fw, port, 0.3)]
    kinds = [f.kind for f in frames]
    after = kinds[kinds.index(p.ACK) + 1 :]  # it reads the host between scans: from the next scan on
    assert after == [p.RAW] * 29
