"""The physical board: which tower stands where, and the raw Hall readings hands make.

Every operation schedules raw toggles on the :class:`~host.simulate.machine.Machine` from a
start time and returns when its last toggle happens.  Noise is drawn here, within the bounds
of :mod:`host.simulate.timing`: flicker on every lift and placement, hovers before a
placement, slides over the spaces on the way, neighbours bumped off their magnets.
"""

from __future__ import annotations

import random

from .machine import Machine, at
from .timing import (
    BUMP,
    FLICKER_WINDOW,
    HOVER,
    HOVER_GAP,
    LATE_EDGE,
    PULSE,
    SLIDE_DWELL,
    SLIDE_GAP,
    Noise,
)
from .truth import ADJACENT


class Table:
    def __init__(self, machine: Machine, rng: random.Random, noise: Noise, late_edge: float = 0.0):
        self.machine = machine
        self.rng = rng
        self.noise = noise
        self.late_edge = late_edge  # this share of the edges bounce once more near the end of the window
        self.lift_start: dict[int, float] = {}  # space -> when its last lift began
        # (space, touch-down, action) of the last placement the hands made for an action
        self.last_place: tuple[int, float, int] | None = None
        self.at: dict[int, int] = {}  # space -> the tower standing on it
        self.free_at: dict[int, float] = {}  # space -> when its sensor is no longer being disturbed
        self.index = -1  # the action being played (tags every toggle)
        self.latest = 0.0  # the last toggle the hands (not a bump) have scheduled
        self.first_touch: float | None = None  # the first toggle the hands made since it was last cleared

    def _toggle(self, t: float, space: int, reading: bool, tag: str) -> float:
        t = self.machine.toggle(t, space, reading, tag, self.index)
        if tag != "bump" and t > self.latest:
            self.latest = t
        if tag not in ("bump", "stuck", "heal") and (self.first_touch is None or t < self.first_touch):
            self.first_touch = t
        return t

    def _flicker(self, t: float, space: int, final: bool) -> float:
        """The reading bounces n times (noise.flicker) within FLICKER_WINDOW of ``t``, then holds
        ``final``: the window is cut into n slots, each holding one short pulse.  With
        ``late_edge`` (brisk hands under heavy noise: half the edges; hasty: three in four) the last
        bounce comes late in the window (LATE_EDGE), so the steady reading begins up to 80 ms after
        the edge."""
        rng = self.rng
        lo, hi = self.noise.flicker
        n = rng.randint(lo, hi)
        end = t
        slot = (FLICKER_WINDOW - 0.004) / n if n else 0.0
        late = self.late_edge > 0 and n > 0 and rng.random() < self.late_edge
        for i in range(n):
            begin = 0.002 + i * slot
            if late and i == n - 1:
                a = at(t + rng.uniform(max(begin, LATE_EDGE[0]), LATE_EDGE[1]))
                limit = FLICKER_WINDOW - 0.0005
            else:
                a = at(t + begin + rng.uniform(0.0005, slot / 2))
                limit = begin + slot - 0.0005
            length = min(rng.uniform(*PULSE), limit - (a - t))
            b = at(a + max(length, 0.0005))
            self._toggle(a, space, not final, "flicker")
            end = self._toggle(b, space, final, "flicker")
        return end

    def ready(self, space: int, t: float) -> float:
        """The earliest time from ``t`` at which a hand may work on ``space`` (a bump is over)."""
        return max(t, self.free_at.get(space, -1.0) + 0.005)

    def lift(self, space: int, t: float, hover_back: bool = False) -> tuple[int, float]:
        """Lift the tower on ``space`` at ``t``: (the tower, when the reading holds).  With
        ``hover_back`` the rising tower may dip back into the sensor's range once (a hover)."""
        t = self.ready(space, t)
        tower = self.at.pop(space)
        self.lift_start[space] = t
        self._toggle(t, space, False, "lift")
        end = self._flicker(t, space, False)
        if hover_back and self.rng.random() < self.noise.hover:
            on = at(end + self.rng.uniform(*HOVER_GAP))
            self._toggle(on, space, True, "hover")
            end = self._toggle(on + self.rng.uniform(*HOVER), space, False, "hover")
        self.free_at[space] = end
        return tower, end

    def place(self, space: int, tower: int, t: float, hover: bool = True) -> tuple[float, float]:
        """Put ``tower`` on ``space`` at about ``t``: (the moment it touches down, when the reading holds)."""
        assert space not in self.at, space
        rng = self.rng
        t = self.ready(space, t)
        if hover and rng.random() < self.noise.hover:
            self._toggle(t, space, True, "hover")
            t = self._toggle(t + rng.uniform(*HOVER), space, False, "hover")
            t = at(t + rng.uniform(*HOVER_GAP))
        self.at[space] = tower
        down = self._toggle(t, space, True, "place")
        end = self._flicker(down, space, True)
        self.free_at[space] = end
        if self.index >= 0:
            self.last_place = (space, down, self.index)
        return down, end

    def slide(self, frm: int, path: list[int], to: int, t: float) -> tuple[float, float]:
        """Slide the tower on ``frm`` over ``path`` onto ``to``: (touch-down on ``to``, end)."""
        rng = self.rng
        tower, cursor = self.lift(frm, t)  # the tower leaves the sensor's range, then travels
        for s in path:
            cursor = at(cursor + rng.uniform(*SLIDE_GAP))
            if s in self.at:
                continue  # over a tower (a Slingshot): its space reads already
            self._toggle(cursor, s, True, "slide")
            cursor = self._toggle(cursor + rng.uniform(*SLIDE_DWELL), s, False, "slide")
            self.free_at[s] = cursor
        return self.place(to, tower, cursor + rng.uniform(*SLIDE_GAP), hover=False)

    def bump(self, t: float, avoid: set[int]) -> int | None:
        """A tower next to ``avoid`` knocked off its magnet for BUMP, from about ``t``."""
        rng = self.rng
        near = sorted({n for s in avoid for n in ADJACENT[s]} - avoid)
        choices = [s for s in near if s in self.at and self.free_at.get(s, -1.0) < t - 0.01]
        if not choices:
            return None
        s = rng.choice(choices)
        t = at(max(t, self.machine.now))
        length = rng.uniform(*BUMP)
        self._toggle(t, s, False, "bump")
        if rng.random() < 0.5:  # a wobble on the way back
            mid = at(t + length * rng.uniform(0.3, 0.7))
            self._toggle(mid, s, True, "bump")
            self._toggle(mid + 0.004, s, False, "bump")
        self.free_at[s] = self._toggle(t + length, s, True, "bump")
        return s

    def stuck(self, space: int, reading: bool, t: float, duration: float) -> float:
        """The sensor of ``space`` reads ``reading`` for ``duration`` whatever stands there."""
        self._toggle(t, space, reading, "stuck")
        end = self._toggle(t + duration, space, space in self.at, "heal")
        self.free_at[space] = end
        return end
