"""The GPIO (74HC165 chain) and Blinka (CD74HC4067 + MCP3008) sources against fakes of their hardware."""

import sys
import types

import pytest
from tests.support.quin_sim import TOWER, FakeHardware, SimBoard

from engine.board import SPACE_IDS
from host.board.calibration import Calibration, Level
from host.board.channel_map import default_map
from host.board.sources import gpio_source
from host.board.sources.blinka_source import BlinkaBus, BlinkaSource
from host.board.sources.gpio_source import GpioSource, GpioUnavailable


class FakeGPIO:
    """RPi.GPIO as the source uses it, wired to a simulated 74HC165 chain."""

    BCM, OUT, IN, HIGH, LOW = "BCM", "out", "in", 1, 0

    def __init__(self, pins=gpio_source.DEFAULT_PINS):
        self.pins = pins
        self.inputs = [1] * 104  # active-low switches: 1 = no magnet
        self.inputs[102], self.inputs[103] = 1, 0  # the sentinels
        self.level = {}
        self.latched = None
        self.pos = 103
        self.cleaned = None
        self.mode = None

    def setmode(self, mode):
        self.mode = mode

    def setup(self, pin, direction, initial=None):
        self.level[pin] = initial

    def output(self, pin, value):
        before = self.level.get(pin)
        self.level[pin] = value
        if pin == self.pins["load"] and value == self.LOW:
            self.latched = list(self.inputs)
            self.pos = 103
        if pin == self.pins["clock"] and before == self.LOW and value == self.HIGH:
            self.pos -= 1

    def input(self, pin):
        assert pin == self.pins["data"] and self.latched is not None
        return self.latched[self.pos] if self.pos >= 0 else 0

    def cleanup(self, pins):
        self.cleaned = pins


def gpio_rig(**kw):
    g = FakeGPIO()
    t = [0.0]
    src = GpioSource(gpio=g, clock=lambda: t[0], sleep=lambda d: t.__setitem__(0, t[0] + d), **kw)
    return g, src


def test_chain_reads_every_input_in_order():
    g, src = gpio_rig()
    g.inputs[0] = g.inputs[57] = g.inputs[98] = 0
    bits = src.scan()
    assert [i for i in range(99) if bits[i] == 0] == [0, 57, 98]
    assert g.mode == "BCM"


def test_towers_become_snapshots_after_debounce():
    g, src = gpio_rig(debounce=2)
    assert src.read(1).occupied == frozenset()
    g.inputs[SPACE_IDS["w35"]] = 0
    assert src.read(1).occupied == frozenset()  # one scan: could be a bounce
    assert src.read(1).names() == ["w35"]
    g.inputs[SPACE_IDS["w35"]] = 1
    src.read(1)
    assert src.read(1).occupied == frozenset()
    assert src.status().ok


def test_a_one_scan_glitch_is_ignored():
    g, src = gpio_rig(debounce=2)
    src.read(1)
    g.inputs[3] = 0
    src.read(1)
    g.inputs[3] = 1
    assert src.read(1).occupied == frozenset()
    assert src.read(1).occupied == frozenset()


def test_broken_chain_is_reported_and_keeps_the_last_good_state():
    g, src = gpio_rig(debounce=1)
    g.inputs[4] = 0
    assert src.read(1).occupied == {4}
    g.inputs = [1] * 104  # Q7 floating high: everything reads 1
    assert src.read(1).occupied == {4}
    status = src.status()
    assert not status.ok and "102/103" in status.message
    src.close()
    assert g.cleaned == [17, 27, 22]


def test_read_paces_and_times_out():
    g, src = gpio_rig()
    src.read(1)
    assert src.read(0.001) is None  # the next scan is due in 10 ms


def test_without_rpi_gpio_the_error_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "RPi", None)
    monkeypatch.setitem(sys.modules, "RPi.GPIO", None)
    with pytest.raises(GpioUnavailable, match=r"quin-companion\[pi\]"):
        GpioSource()


# --- Blinka ------------------------------------------------------------------------


class FakeBus:
    """Shared select lines, seven multiplexers into MCP3008 channels 0..6; stale first read."""

    def __init__(self, board):
        self.hw = FakeHardware(board)
        self.closed = False

    def select(self, n):
        self.hw.select(n)

    def read(self, mux):
        self.hw.enable(mux)
        return self.hw.read_adc()

    def close(self):
        self.closed = True


def blinka_rig():
    board = SimBoard()
    cal = Calibration.from_baseline([Level(v, 20.0) for v in board.base])
    cal = cal.with_placed({s: board.base[s] + TOWER for s in range(99)})
    t = [0.0]
    bus = FakeBus(board)
    src = BlinkaSource(cal, default_map(), bus=bus, clock=lambda: t[0], sleep=lambda d: t.__setitem__(0, t[0] + d))
    return board, bus, src


def test_blinka_scan_reads_every_channel_without_stale_samples():
    board, bus, src = blinka_rig()
    board.towers = {0, 50, 98}
    assert src.scan() == [board.value(ch) for ch in range(101)]


def test_blinka_source_reports_occupancy_and_faults():
    board, bus, src = blinka_rig()
    board.towers = {SPACE_IDS["bi"]}
    assert src.read(1).names() == ["bi"]
    assert src.status().ok
    board.dead = {SPACE_IDS["b59"]}
    board.base[100] = 9000  # ground reference lifted
    src.converter._frames = 0  # health is checked every few frames: check on the next
    src.read(1)
    status = src.status()
    assert "b59" in status.message and "ground reference" in status.message
    src.close()
    assert bus.closed


def test_blinka_bus_drives_pins_and_adc(monkeypatch):
    made = []

    class Pin:
        def __init__(self, p):
            self.p, self.value, self.direction = p, None, None
            made.append(self)

        def deinit(self):
            self.value = "deinit"

    mcp = types.ModuleType("adafruit_mcp3xxx.mcp3008")
    mcp.MCP3008 = lambda spi, cs: ("mcp", spi, cs)
    analog = types.ModuleType("adafruit_mcp3xxx.analog_in")
    analog.AnalogIn = lambda adc, ch: types.SimpleNamespace(value=1000 + ch)
    spi = types.SimpleNamespace(deinit=lambda: None)
    mods = {
        "board": types.SimpleNamespace(D5="D5", D6="D6", D13="D13", D19="D19", D8="D8", SCK=1, MISO=2, MOSI=3),
        "busio": types.SimpleNamespace(SPI=lambda **kw: spi),
        "digitalio": types.SimpleNamespace(DigitalInOut=Pin, Direction=types.SimpleNamespace(OUTPUT="out")),
        "adafruit_mcp3xxx": types.ModuleType("adafruit_mcp3xxx"),
        "adafruit_mcp3xxx.mcp3008": mcp,
        "adafruit_mcp3xxx.analog_in": analog,
    }
    for k, v in mods.items():
        monkeypatch.setitem(sys.modules, k, v)
    bus = BlinkaBus()
    bus.select(0b0110)
    assert [p.value for p in made[:4]] == [False, True, True, False]
    assert bus.read(6) == 1006
    bus.close()
    assert made[0].value == "deinit"
