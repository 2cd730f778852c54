"""Raw readings to snapshots, shared by every analog source (serial, Blinka)."""

from __future__ import annotations

from typing import Sequence

from engine.board import SPACE_NAMES

from host.board.calibration import (
    Calibration,
    DriftKeeper,
    OccupancyTracker,
    dead_sensors,
    reference_faults,
    reference_readings,
)
from host.board.channel_map import ChannelMap

CHECK_EVERY = 10  # frames between health checks of the sensors and references


class RawConverter:
    """``keeper``: saves the tracked drift back to the calibration file (the service passes one)."""

    def __init__(self, calibration: Calibration, channel_map: ChannelMap, keeper: DriftKeeper | None = None,
                 tracker: OccupancyTracker | None = None):
        self.calibration = calibration
        self.channel_map = channel_map
        self.tracker = tracker or OccupancyTracker(calibration)
        self.keeper = keeper
        self.dead: list[int] = []
        self.reference_faults: list[str] = []
        self.width_error = ""
        self._frames = 0

    def convert(self, readings: Sequence[int], check_every: int = CHECK_EVERY) -> frozenset[int] | None:
        """Occupied spaces, or None if the frame cannot be used (too few channels).

        The sensors and references are checked every ``check_every`` frames (1: a slow stream)."""
        if len(readings) < self.channel_map.channels_needed:
            self.width_error = (
                f"raw frames carry {len(readings)} channels but the channel map needs "
                f"{self.channel_map.channels_needed}"
            )
            return None
        self.width_error = ""
        self._frames += 1
        if check_every <= 1 or self._frames % check_every == 1:
            self.dead = dead_sensors(readings, self.calibration)
            self.reference_faults = reference_faults(reference_readings(readings, self.channel_map))
        occupied = self.tracker.update(readings)
        if self.keeper is not None:
            self.keeper.offer(self.tracker)
        return self.alive(occupied)

    def alive(self, occupied: frozenset[int]) -> frozenset[int]:
        """``occupied`` without the spaces whose sensor is dead: a dead sensor says nothing about its space."""
        return occupied - frozenset(self.dead) if self.dead else occupied

    def close(self) -> None:
        """Save the drift tracked since the last save (the source is closing)."""
        if self.keeper is not None:
            self.keeper.flush(self.tracker)

    def problems(self) -> list[str]:
        out = [self.width_error] if self.width_error else []
        out += self.reference_faults
        if self.dead:
            out.append("dead sensor (reads at a rail) under " + ", ".join(SPACE_NAMES[s] for s in self.dead))
        return out
