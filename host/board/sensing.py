"""The sensing interface: every board source yields timestamped occupancy snapshots.

A *source* is anything with ``read(timeout)`` returning the next
:class:`Snapshot` (or ``None`` when nothing arrived in time) and ``close()``.
Sources that can light LEDs also offer ``show(leds)``.  The referee never
knows which source it is fed by: the simulated board, a trace file, the
serial link to the Pico, the Pi's GPIO or Blinka all look the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Protocol, runtime_checkable

from engine.board import SPACE_NAMES, parse_space


@dataclass(frozen=True)
class Snapshot:
    """One reading of the whole board: which spaces read occupied at time ``t`` (seconds)."""

    t: float
    occupied: frozenset[int]

    @classmethod
    def from_names(cls, t: float, names: Iterable[str]) -> "Snapshot":
        return cls(float(t), frozenset(parse_space(n) for n in names))

    def names(self) -> list[str]:
        return sorted(SPACE_NAMES[s] for s in self.occupied)


@dataclass(frozen=True)
class SourceStatus:
    """Health of a source: ``ok`` False means the referee should tell the players."""

    ok: bool = True
    message: str = ""
    details: dict = field(default_factory=dict)


@runtime_checkable
class Source(Protocol):
    def read(self, timeout: float | None = None) -> Snapshot | None:
        """The next snapshot, or None if none arrived within ``timeout`` seconds."""

    def close(self) -> None:
        """Release the hardware."""


@runtime_checkable
class LedSink(Protocol):
    def show(self, leds: dict[int, tuple[int, int, int]]) -> None:
        """Light the given spaces in the given RGB colours; all others off."""
