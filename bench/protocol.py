"""Benchmark the board protocol: raw frames decoded and turned into occupancy, per second.

Prints JSON.  A raw frame carries the 99 spaces plus the two reference
channels (101 readings), as the reference firmware sends them.
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from host.board import protocol  # noqa: E402
from host.board.calibration import Calibration, Level, OccupancyTracker  # noqa: E402

CHANNELS = 101
FRAME_RATE = 60  # the firmware's default raw frame rate


def make_stream(n: int, seed: int = 1) -> tuple[bytes, list[int]]:
    rng = random.Random(seed)
    base = [30000 + 37 * (ch % 11) for ch in range(CHANNELS)]
    towers = set(rng.sample(range(99), 30))
    out = []
    for i in range(n):
        if i % 50 == 0:  # a tower moves now and then
            towers ^= {rng.randrange(99)}
        readings = [b + rng.randint(-40, 40) + (4000 if ch in towers else 0) for ch, b in enumerate(base)]
        out.append(protocol.raw_frame(i & 0xFFFF, i * 16667, readings))
    return b"".join(out), base


def main() -> None:
    n = 20000
    stream, base = make_stream(n)
    cal = Calibration.from_baseline([Level(b, 20.0) for b in base]).with_placed({s: base[s] + 4000 for s in range(99)})
    best = 0.0
    for _ in range(3):
        decoder = protocol.Decoder()
        tracker = OccupancyTracker(cal)
        chunk = 4096  # what one serial read returns at most
        frames = 0
        start = time.perf_counter()
        for i in range(0, len(stream), chunk):
            decoder.feed(stream[i : i + chunk])
            while True:
                frame = decoder.next_frame()
                if frame is protocol.NEED_DATA:
                    break
                tracker.update(frame.data)
                frames += 1
        elapsed = time.perf_counter() - start
        assert frames == n and decoder.stats["crc_errors"] == 0
        best = max(best, frames / elapsed)
    frame_bytes = len(stream) / n
    print(json.dumps({
        "benchmark": "protocol",
        "channels_per_frame": CHANNELS,
        "frames": n,
        "raw_frames_decoded_to_occupancy_per_second": round(best),
        "goal_per_second": 20000,
        "bytes_per_frame": round(frame_bytes, 1),
        "frame_rate_hz": FRAME_RATE,
        "bytes_per_second_at_frame_rate": round(frame_bytes * FRAME_RATE),
        "python": sys.version.split()[0],
    }, indent=1))


if __name__ == "__main__":
    main()
