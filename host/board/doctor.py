"""`quin doctor`: check the link and every sensor; a report and a heat map.

The heat map shows, for every space, its reading and its *margin*: how many
noise sigmas separate the reading from the threshold it would have to cross
to change state (the 'on' threshold for an empty space, the 'off' one for an
occupied space).  A low margin means the space may flicker.

With a calibration, it also shows how far each space's baseline has drifted
since `quin calibrate` recorded it: the running service follows slow drift
and saves it back to the calibration file (host.board.calibration.DriftKeeper).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Sequence

from engine.board import SPACE_NAMES, draw

from host.board.drawing import board_svg
from host.board.calibration import (
    FULL_SCALE,
    NOISY,
    RAIL,
    STUCK_NOISE,
    Calibration,
    measure_levels,
    reference_faults,
    sensor_flags,
)
from host.board.channel_map import ChannelMap

MIN_RATE = 50.0
LOW_MARGIN = 3.0
BIG_DRIFT = 0.5  # a baseline that drifted more than half its tower change: time to recalibrate


@dataclass
class SpaceHealth:
    space: int
    reading: float
    noise: float
    margin: float | None  # None without calibration
    drift: float | None = None  # counts the baseline moved since calibration; None without calibration
    occupied: bool = False
    problems: list[str] = field(default_factory=list)


@dataclass
class Report:
    link: list[str]
    problems: list[str]
    spaces: list[SpaceHealth]
    references: dict[str, float]
    drift_saved: float = 0.0  # when the service last saved drift into the calibration (0: never)

    @property
    def ok(self) -> bool:
        return not self.problems


def examine(
    frames: Sequence[Sequence[int]],
    channel_map: ChannelMap,
    calibration: Calibration | None,
    *,
    port: str = "",
    seconds: float = 0.0,
    stats: dict | None = None,
    device: dict | None = None,
) -> Report:
    stats = stats or {}
    device = device or {}
    link = [f"port {port}: {len(frames)} raw frames in {seconds:.1f} s"]
    problems: list[str] = []
    rate = len(frames) / seconds if seconds > 0 else 0.0
    link.append(f"frame rate {rate:.1f}/s; lost {stats.get('lost', 0)}, CRC errors {stats.get('crc_errors', 0)}, "
                f"malformed {stats.get('malformed', 0)}, reconnects {stats.get('reconnects', 0)}")
    if device:
        fw = device.get("firmware", 0)
        link.append(
            f"firmware {fw // 10000}.{fw // 100 % 100}.{fw % 100}: {device.get('channels')} channels, "
            f"oversample {device.get('oversample')}, {device.get('leds')} LEDs, up {device.get('uptime_ms', 0) / 1000:.0f} s, "
            f"{device.get('bad_frames', 0)} bad frames from the host"
        )
    else:
        problems.append("the board did not answer a status request")
    if not frames:
        problems.append(f"no frames from the board at {port}: is the firmware installed and boot.py on the drive?")
        return Report(link, problems, [], {})
    if seconds > 0 and rate < MIN_RATE * 0.9:
        problems.append(f"frame rate {rate:.1f}/s is below {MIN_RATE:.0f}/s")
    if stats.get("crc_errors") or stats.get("malformed"):
        problems.append(f"{stats.get('crc_errors', 0) + stats.get('malformed', 0)} corrupted frames: check the USB cable")
    if stats.get("lost"):
        problems.append(f"{stats['lost']} frames lost")
    width = min(len(f) for f in frames)
    if width < channel_map.channels_needed:
        problems.append(f"raw frames carry {width} channels but the channel map needs {channel_map.channels_needed}")
        return Report(link, problems, [], {})
    levels = measure_levels(frames)
    refs = {name: levels[ch].mean for name, ch in channel_map.references.items()}
    problems += reference_faults(refs)
    for name, ch in channel_map.references.items():
        if levels[ch].noise > NOISY:
            problems.append(f"the {name} reference is noisy ({levels[ch].noise:.0f} counts rms): check the supply and decoupling")
    cal_flags = sensor_flags(calibration) if calibration else {}
    spaces = []
    for s, ch in enumerate(channel_map.space_channel):
        lv = levels[ch]
        health = SpaceHealth(s, lv.mean, lv.noise, None)
        if lv.mean < RAIL or lv.mean > FULL_SCALE - RAIL:
            health.problems.append("dead (reads at a rail)")
        elif lv.noise < STUCK_NOISE and len(frames) >= 20:
            health.problems.append("stuck (reading never changes)")
        if lv.noise > NOISY:
            health.problems.append(f"noisy ({lv.noise:.0f} counts rms)")
        if calibration:
            c = calibration.spaces[s]
            sign, on, off = c.thresholds()
            dev = (lv.mean - c.baseline) * sign if sign else abs(lv.mean - c.baseline)
            health.occupied = dev >= on
            gap = (dev - off) if health.occupied else (on - dev)
            health.margin = gap / max(lv.noise, 1.0)
            if health.margin < LOW_MARGIN:
                health.problems.append(f"margin {health.margin:.1f} sigma")
            health.problems += [f for f in cal_flags.get(s, []) if f not in ("stuck", "noisy")]
            health.drift = c.drift
            if c.placed is not None and abs(c.drift) > BIG_DRIFT * abs(c.delta):
                health.problems.append(f"drifted {c.drift:+.0f} counts since calibration, more than half its "
                                       "tower change: run `quin calibrate --baseline-only`")
        spaces.append(health)
        if health.problems:
            problems.append(f"{SPACE_NAMES[s]}: {', '.join(health.problems)}")
    if calibration is None:
        problems.append("no calibration: run `quin calibrate`")
    return Report(link, problems, spaces, refs, calibration.updated if calibration else 0.0)


def _reading_mark(h: SpaceHealth) -> str:
    return " !! " if any(p.startswith(("dead", "stuck")) for p in h.problems) else f"{h.reading / 1000:4.1f}"


def _margin_mark(h: SpaceHealth) -> str:
    if any(p.startswith(("dead", "stuck")) for p in h.problems):
        return " !! "
    if h.margin is None:
        return "  ? "
    m = h.margin
    text = ">99" if m > 99 else f"{max(m, 0):.0f}"
    return text + ("*" if h.occupied else " ")


def _drift_mark(h: SpaceHealth) -> str:
    if h.drift is None:
        return "  ? "
    d = round(h.drift)
    if d == 0:
        return "   0"
    return f"{d:+d}" if abs(d) < 1000 else f"{d / 1000:+.0f}k"


def drift_summary(report: Report, now: float | None = None) -> str:
    """One line: the largest drifts since calibration and when the service last saved them."""
    tracked = [h for h in report.spaces if h.drift is not None]
    if not tracked:
        return ""
    top = [h for h in sorted(tracked, key=lambda h: -abs(h.drift))[:3] if round(h.drift)]
    if report.drift_saved:
        age = max(0.0, (time.time() if now is None else now) - report.drift_saved)
        when = f"saved by the service {_age(age)} ago"
    else:
        when = "none saved yet"
    largest = ", ".join(f"{SPACE_NAMES[h.space]} {h.drift:+.0f}" for h in top)
    return f"Drift since calibration ({when}): " + (f"largest {largest} counts" if top else "none")


def _age(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.0f} h"
    return f"{seconds / 86400:.0f} days"


def terminal(report: Report) -> str:
    out = ["Link:"] + [f"  {line}" for line in report.link]
    if report.references:
        out.append("References: " + ", ".join(f"{k} {v:.0f}" for k, v in report.references.items()))
    if report.spaces:
        out.append("")
        out.append("Readings (thousands of counts; !! dead or stuck):")
        out.append(draw({h.space: _reading_mark(h) for h in report.spaces}))
        out.append("")
        out.append("Margins (noise sigmas to the next threshold; * occupied; ? uncalibrated):")
        out.append(draw({h.space: _margin_mark(h) for h in report.spaces}))
        summary = drift_summary(report)
        if summary:
            out.append("")
            out.append("Drift since calibration (counts each baseline moved; k: thousands):")
            out.append(draw({h.space: _drift_mark(h) for h in report.spaces}))
            out.append(summary)
    out.append("")
    if report.problems:
        out.append(f"{len(report.problems)} problem(s):")
        out += [f"  - {p}" for p in report.problems]
    else:
        out.append("All sensors and the link are healthy.")
    return "\n".join(out) + "\n"


def _colour(h: SpaceHealth) -> str:
    if any(p.startswith(("dead", "stuck")) for p in h.problems):
        return "#444444"
    if h.margin is None:
        return "#dddddd"
    m = h.margin
    if m < LOW_MARGIN:
        return "#e0533d"
    if m < 6:
        return "#f0a23b"
    if m < 10:
        return "#f4e36b"
    return "#7cc576"


def svg(report: Report) -> str:
    labels = {}
    fills = {}
    for h in report.spaces:
        margin = "?" if h.margin is None else (">99" if h.margin > 99 else f"{h.margin:.1f}")
        labels[h.space] = [f"{h.reading:.0f}", f"{margin}s" + (" *" if h.occupied else "")]
        fills[h.space] = _colour(h)
    legend = [
        "Reading (ADC counts) and margin in noise sigmas; * occupied. "
        "Red < 3, orange < 6, yellow < 10, green >= 10, grey dead/stuck.",
        (f"{len(report.problems)} problem(s): " + "; ".join(report.problems[:3])) if report.problems else "No problems.",
    ]
    return board_svg(labels, fills, title="Quin board: sensor heat map (quin doctor)", legend=legend)


