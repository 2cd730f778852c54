"""From raw Hall readings to occupied spaces: calibration, thresholds, drift and health.

Every playable space already holds a magnet, so each linear sensor has its own
resting level (the *baseline*).  A tower's magnetic base moves the reading up
or down by its own amount (the *placed* level).  A space reads occupied once
the reading has gone 60 % of the way from baseline to placed level and empty
again once it falls back below 40 %: the gap is the hysteresis that keeps a
noisy sensor from flickering.

``quin calibrate`` records the levels (:func:`measure_levels`,
:class:`PlacedRecorder`), :class:`Calibration` stores them in the data
directory, :class:`OccupancyTracker` turns raw frames into occupancy and
follows slow baseline drift on spaces that have stayed empty,
:class:`DriftKeeper` saves the drifted baselines back (each space remembers
its drift since calibration) so a restart keeps them, and
:func:`sensor_flags` / :func:`reference_faults` say which sensors to distrust.

Readings are the firmware's uint16 ADC values (0..65535 for 0..3.3 V).
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Sequence

from engine.board import SPACE_IDS, SPACE_NAMES

from host.board.channel_map import REF_GROUND, REF_HALF, ChannelMap, default_map

FULL_SCALE = 65535
ON_FRACTION = 0.6  # become occupied past 60 % of the way to the placed level
OFF_FRACTION = 0.4  # become empty again below 40 %
UNCALIBRATED_DELTA = 3000  # counts (~150 mV) a tower must move an uncalibrated space, either way
MIN_DELTA = 400  # counts (~20 mV): a tower change smaller than this is weak whatever the noise
MIN_MARGIN = 5.0  # a tower change must clear the threshold by this many noise sigmas
NOISY = 250.0  # counts rms (~12 mV) of noise on an empty space: a noisy sensor
STUCK_NOISE = 0.5  # counts rms: an oversampled ADC always wobbles more than this
RAIL = 650  # counts (~1 % of full scale) from either rail: sensor dead, shorted or unplugged
HALF_TOLERANCE = 2000  # the half-supply reference must read 32768 +- this
GROUND_LIMIT = 1000  # the ground reference must read below this
CALIBRATION_FILE = "calibration.json"
PREVIOUS_FILE = "calibration.previous.json"  # the file as it was before the last save
FORMAT = 1
DRIFT_SAVE_EVERY = 60.0  # seconds: the service saves drifted baselines at most this often
DRIFT_SAVE_CHANGE = 25.0  # counts (~1.3 mV) a baseline must have moved since the last save


class CalibrationError(ValueError):
    pass


@dataclass(frozen=True)
class Level:
    """Mean and standard deviation of one channel over a recording."""

    mean: float
    noise: float


def measure_levels(frames: Sequence[Sequence[int]]) -> list[Level]:
    """Per-channel mean and noise (standard deviation) over raw frames."""
    if not frames:
        raise CalibrationError("no frames recorded")
    n = len(frames)
    width = min(len(f) for f in frames)
    levels = []
    for ch in range(width):
        values = [f[ch] for f in frames]
        mean = sum(values) / n
        var = sum((v - mean) ** 2 for v in values) / n
        levels.append(Level(mean, math.sqrt(var)))
    return levels


@dataclass(frozen=True)
class SpaceCalibration:
    channel: int
    baseline: float
    noise: float
    placed: float | None = None  # None: no tower level recorded
    drift: float = 0.0  # how far the baseline has moved since `quin calibrate` recorded it (counts)

    @property
    def calibrated_baseline(self) -> float:
        return self.baseline - self.drift

    @property
    def delta(self) -> float:
        return 0.0 if self.placed is None else self.placed - self.baseline

    @property
    def margin(self) -> float:
        """How many noise sigmas the nearer threshold lies from either level."""
        if self.placed is None:
            return 0.0
        gap = abs(self.delta) * min(ON_FRACTION, 1 - ON_FRACTION, OFF_FRACTION, 1 - OFF_FRACTION)
        return gap / max(self.noise, 1.0)

    def thresholds(self) -> tuple[int, float, float]:
        """(sign, on, off): occupied when sign*(r - baseline) >= on, empty again below off.

        sign 0 means the direction is unknown (uncalibrated): |r - baseline| is used.
        """
        if self.placed is None or self.delta == 0:
            return 0, float(UNCALIBRATED_DELTA), UNCALIBRATED_DELTA * OFF_FRACTION / ON_FRACTION
        d = abs(self.delta)
        return (1 if self.delta > 0 else -1), d * ON_FRACTION, d * OFF_FRACTION


@dataclass(frozen=True)
class Calibration:
    spaces: tuple[SpaceCalibration, ...]
    references: dict[str, Level] = field(default_factory=dict)
    created: float = 0.0  # when `quin calibrate` recorded it
    updated: float = 0.0  # when drifted baselines were last saved into it (0: never)

    @classmethod
    def from_baseline(cls, levels: Sequence[Level], channel_map: ChannelMap | None = None) -> "Calibration":
        cmap = channel_map or default_map()
        if len(levels) < cmap.channels_needed:
            raise CalibrationError(
                f"raw frames carry {len(levels)} channels but the channel map needs {cmap.channels_needed}"
            )
        spaces = tuple(
            SpaceCalibration(ch, levels[ch].mean, levels[ch].noise) for ch in cmap.space_channel
        )
        refs = {name: levels[ch] for name, ch in cmap.references.items()}
        return cls(spaces, refs, time.time())

    def with_placed(self, placed: dict[int, float]) -> "Calibration":
        spaces = list(self.spaces)
        for s, level in placed.items():
            spaces[s] = replace(spaces[s], placed=float(level))
        return replace(self, spaces=tuple(spaces))

    # --- storage ---

    def to_json(self) -> dict:
        return {
            "format": FORMAT,
            "created": self.created,
            "updated": self.updated,
            "spaces": {
                SPACE_NAMES[s]: {
                    "channel": c.channel,
                    "baseline": round(c.baseline, 2),
                    "noise": round(c.noise, 3),
                    "placed": None if c.placed is None else round(c.placed, 2),
                    "drift": round(c.drift, 2),
                }
                for s, c in enumerate(self.spaces)
            },
            "references": {k: {"mean": round(v.mean, 2), "noise": round(v.noise, 3)} for k, v in self.references.items()},
        }

    @classmethod
    def from_json(cls, data: dict, origin: str = "calibration") -> "Calibration":
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise CalibrationError(f"{origin}: not a calibration file of format {FORMAT}")
        raw = data.get("spaces")
        if not isinstance(raw, dict):
            raise CalibrationError(f"{origin}: no spaces")
        spaces: list[SpaceCalibration | None] = [None] * len(SPACE_NAMES)
        for name, entry in raw.items():
            if name not in SPACE_IDS:
                raise CalibrationError(f"{origin}: unknown space {name!r}")
            try:
                placed = entry.get("placed")
                spaces[SPACE_IDS[name]] = SpaceCalibration(
                    int(entry["channel"]),
                    float(entry["baseline"]),
                    float(entry["noise"]),
                    None if placed is None else float(placed),
                    float(entry.get("drift", 0.0)),
                )
            except (KeyError, TypeError, ValueError, AttributeError):
                raise CalibrationError(f"{origin}: space {name} has a bad or missing field") from None
        missing = [SPACE_NAMES[s] for s, c in enumerate(spaces) if c is None]
        if missing:
            raise CalibrationError(f"{origin}: space {missing[0]} is missing")
        try:
            refs = {k: Level(float(v["mean"]), float(v["noise"])) for k, v in data.get("references", {}).items()}
        except (KeyError, TypeError, ValueError, AttributeError):
            raise CalibrationError(f"{origin}: a reference channel has a bad field") from None
        try:
            created, updated = float(data.get("created", 0.0)), float(data.get("updated", 0.0))
        except (TypeError, ValueError):
            raise CalibrationError(f"{origin}: a bad 'created' or 'updated' time") from None
        return cls(tuple(spaces), refs, created, updated)  # type: ignore[arg-type]

    def save(self, path: str | Path) -> Path:
        """Write atomically (never a half-written file), keeping the file it replaces as
        calibration.previous.json beside it; return the path (the data directory's:
        ``host.system.config.calibration_file``)."""
        path = Path(path)
        text = json.dumps(self.to_json(), indent=1, sort_keys=True) + "\n"
        try:
            old = path.read_bytes()
        except FileNotFoundError:
            old = None
        if old is not None:
            _write_atomic(path.with_name(PREVIOUS_FILE), old)
        _write_atomic(path, text.encode("utf-8"))
        return path


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def load(path: str | Path) -> Calibration:
    """The calibration at ``path`` (the data directory's: ``host.system.config.calibration_file``)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CalibrationError(f"no calibration at {path}: run `quin calibrate` first") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise CalibrationError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    return Calibration.from_json(data, str(path))


# --- health ---------------------------------------------------------------------


def sensor_flags(cal: Calibration) -> dict[int, list[str]]:
    """Per space, what is wrong with its sensor: weak, stuck, noisy, uncalibrated."""
    flags: dict[int, list[str]] = {}
    for s, c in enumerate(cal.spaces):
        found = []
        if c.baseline < RAIL or c.baseline > FULL_SCALE - RAIL:
            found.append("stuck")  # at a rail: dead, shorted or unplugged
        elif c.noise < STUCK_NOISE:
            found.append("stuck")  # never moves at all
        if c.noise > NOISY:
            found.append("noisy")
        if c.placed is None:
            found.append("uncalibrated")
        elif abs(c.delta) < MIN_DELTA or c.margin < MIN_MARGIN:
            found.append("weak")
        if found:
            flags[s] = found
    return flags


def reference_faults(refs: dict[str, float]) -> list[str]:
    """What is wrong with the reference channels, given their readings (empty list: fine)."""
    faults = []
    half = refs.get(REF_HALF)
    if half is None:
        faults.append("the half-supply reference channel is not read")
    elif abs(half - 32768) > HALF_TOLERANCE:
        faults.append(f"the half-supply reference reads {half:.0f}, expected 32768 +- {HALF_TOLERANCE}")
    ground = refs.get(REF_GROUND)
    if ground is None:
        faults.append("the ground reference channel is not read")
    elif ground > GROUND_LIMIT:
        faults.append(f"the ground reference reads {ground:.0f}, expected below {GROUND_LIMIT}")
    return faults


def describe_flags(flags: dict[int, list[str]]) -> list[str]:
    return [f"{SPACE_NAMES[s]}: {', '.join(f)}" for s, f in sorted(flags.items())]


# --- calibrating the placed level ----------------------------------------------------


class PlacedRecorder:
    """Records each space's placed-tower level as a builder moves a tower around.

    A space is recorded once its reading has stood at least ``min_delta`` away
    from the baseline (and well clear of its noise) for ``hold`` consecutive
    frames without wandering more than ``tolerance``; the level is the mean
    over those frames.
    """

    def __init__(self, cal: Calibration, hold: int = 10, min_delta: float = MIN_DELTA, tolerance: float = 300.0):
        self.cal = cal
        self.hold = hold
        self.min_delta = min_delta
        self.tolerance = tolerance
        self.placed: dict[int, float] = {}
        self._runs: dict[int, list[int]] = {}

    @property
    def remaining(self) -> list[int]:
        return [s for s in range(len(self.cal.spaces)) if s not in self.placed]

    def feed(self, readings: Sequence[int]) -> list[int]:
        """Take one raw frame; return the spaces newly recorded by it."""
        new = []
        for s, c in enumerate(self.cal.spaces):
            if s in self.placed:
                continue
            r = readings[c.channel]
            if abs(r - c.baseline) < max(self.min_delta, 8 * c.noise):
                self._runs.pop(s, None)
                continue
            run = self._runs.setdefault(s, [])
            run.append(r)
            if max(run) - min(run) > self.tolerance:
                del run[:-1]
            if len(run) >= self.hold:
                self.placed[s] = sum(run) / len(run)
                del self._runs[s]
                new.append(s)
        return new


# --- live conversion ------------------------------------------------------------------


class OccupancyTracker:
    """Raw frames in, occupied spaces out, with hysteresis and baseline drift tracking.

    Drift: every ``drift_every`` frames, each space that has read empty for at
    least ``stable_frames`` frames and sits in the inner half of its empty band
    moves its baseline ``drift_rate`` of the way toward the current reading
    (and its placed level by the same amount).  Temperature and supply changes
    are slow; a tower is not, so a tower never gets absorbed into the baseline.
    """

    def __init__(
        self,
        cal: Calibration,
        drift_every: int = 25,
        stable_frames: int = 250,
        drift_rate: float = 0.05,
    ):
        self.cal = cal
        self.drift_every = drift_every
        self.stable_frames = stable_frames
        self.drift_rate = drift_rate
        n = len(cal.spaces)
        self.baseline = [c.baseline for c in cal.spaces]
        self._occ = [False] * n
        self._last_occupied = [-(10**9)] * n
        self._frames = 0
        self._rebuild()

    def _rebuild(self) -> None:
        params = []
        for s, c in enumerate(self.cal.spaces):
            sign, on, off = c.thresholds()
            params.append((s, c.channel, self.baseline[s], sign, on, off))
        self._params = params

    @property
    def occupied(self) -> frozenset[int]:
        return frozenset(s for s, o in enumerate(self._occ) if o)

    def update(self, readings: Sequence[int]) -> frozenset[int]:
        occ = self._occ
        n = self._frames = self._frames + 1
        last = self._last_occupied
        for s, ch, base, sign, on, off in self._params:
            d = (readings[ch] - base) * sign if sign else abs(readings[ch] - base)
            now = d >= (off if occ[s] else on)
            occ[s] = now
            if now:
                last[s] = n
        if n % self.drift_every == 0:
            self._drift(readings)
        return frozenset([s for s, o in enumerate(occ) if o])

    def _drift(self, readings: Sequence[int]) -> None:
        n = self._frames
        moved = False
        for s, ch, base, sign, on, off in self._params:
            if n - self._last_occupied[s] < self.stable_frames:
                continue
            r = readings[ch]
            if abs(r - base) > off / 2:
                continue  # not clearly empty: leave it alone
            new = base + (r - base) * self.drift_rate
            if new != base:
                self.baseline[s] = new
                moved = True
        if moved:
            self._rebuild()

    def note_occupied(self, spaces) -> None:
        """The board said these spaces are occupied now (it decides occupancy itself): no drift there."""
        n = self._frames
        for s in spaces:
            self._last_occupied[s] = n

    def drift(self) -> dict[int, float]:
        """How far each space's baseline has moved since calibration (counts)."""
        return {s: self.baseline[s] - c.baseline for s, c in enumerate(self.cal.spaces)}

    def calibration(self) -> Calibration:
        """The calibration with the drifted baselines (placed levels moved alike), to save.
        Each space's ``drift`` adds this run's shift to what it had drifted before."""
        spaces = []
        for s, c in enumerate(self.cal.spaces):
            shift = self.baseline[s] - c.baseline
            placed = None if c.placed is None else c.placed + shift
            spaces.append(replace(c, baseline=self.baseline[s], placed=placed, drift=c.drift + shift))
        return replace(self.cal, spaces=tuple(spaces), updated=time.time())


class DriftKeeper:
    """Saves a tracker's drifted baselines back to the calibration file, so a restart keeps them.

    :meth:`offer` (every frame) saves at most once every ``every`` seconds and
    only when some baseline has moved ``min_change`` counts since the last
    save: an SD card is not written for noise.  :meth:`flush` (at shutdown)
    saves any change.  A failed save never stops the game: it is reported on
    standard error (the journal) once, and tried again later.
    """

    def __init__(self, path: str | Path, every: float = DRIFT_SAVE_EVERY,
                 min_change: float = DRIFT_SAVE_CHANGE, clock=time.monotonic):
        self.path = Path(path)
        self.every = every
        self.min_change = min_change
        self._clock = clock
        self._last = clock()
        self._saved: list[float] | None = None
        self.saves = 0
        self.error = ""

    def offer(self, tracker: "OccupancyTracker") -> None:
        if self._clock() - self._last < self.every:
            return
        self._last = self._clock()
        if self._moved(tracker) >= self.min_change:
            self._save(tracker)

    def flush(self, tracker: "OccupancyTracker") -> None:
        if self._moved(tracker) > 0:
            self._save(tracker)

    def _moved(self, tracker: "OccupancyTracker") -> float:
        saved = self._saved or [c.baseline for c in tracker.cal.spaces]
        return max((abs(a - b) for a, b in zip(tracker.baseline, saved)), default=0.0)

    def _save(self, tracker: "OccupancyTracker") -> None:
        try:
            tracker.calibration().save(self.path)
        except OSError as exc:
            if not self.error:
                print(f"quin: cannot save the calibration drift to {self.path}: {exc.strerror or exc}",
                      file=sys.stderr, flush=True)
            self.error = str(exc)
            return
        self.error = ""
        self._saved = list(tracker.baseline)
        self.saves += 1


def reference_readings(readings: Sequence[int], channel_map: ChannelMap) -> dict[str, float]:
    return {name: float(readings[ch]) for name, ch in channel_map.references.items() if ch < len(readings)}


def dead_sensors(readings: Sequence[int], cal: Calibration) -> list[int]:
    """Spaces whose sensor reads at a rail right now (unplugged, shorted or dead)."""
    return [
        s for s, c in enumerate(cal.spaces)
        if c.channel < len(readings) and (readings[c.channel] < RAIL or readings[c.channel] > FULL_SCALE - RAIL)
    ]

