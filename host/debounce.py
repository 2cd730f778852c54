"""Per-space debounce: raw sensor snapshots in, a stable occupancy out.

Hall sensors flicker while a tower is lifted or placed, a tower slid across
the board brushes the spaces it passes, a neighbouring tower bumped off its
magnet reads empty for a moment.  A space's stable state follows its raw
reading only once that reading has held for a while:

- ``on_delay`` (default 50 ms) for a tower arriving: a tower slid over a space
  or a hovering hand reads for less than that;
- ``off_delay`` (default 150 ms) for a tower leaving: a tower bumped off its
  magnet for under 150 ms never reads as lifted.

The board-level settle window lives in the referee, which asks
:attr:`Debouncer.last_change` (the time of the last raw change anywhere) and
:attr:`Debouncer.pending` (spaces whose raw reading differs from the stable one).

Sans-I/O: times come with the snapshots; nothing here sleeps or reads a clock.
"""

from __future__ import annotations

EPS = 1e-6  # float slack when comparing times against deadlines
BURST_GAP = 0.1  # raw edges on one space closer than this are one lift or placement (its flicker)


class Debouncer:
    """Stable occupancy from raw snapshots.  Times are seconds, non-decreasing."""

    __slots__ = ("on_delay", "off_delay", "raw", "stable", "since", "began", "pending", "last_change", "now")

    def __init__(self, on_delay: float = 0.05, off_delay: float = 0.15, initial: frozenset[int] = frozenset()):
        if on_delay < 0 or off_delay < 0:
            raise ValueError("debounce delays must not be negative")
        self.on_delay = on_delay
        self.off_delay = off_delay
        self.raw: frozenset[int] = frozenset(initial)
        self.stable: frozenset[int] = frozenset(initial)
        self.since: dict[int, float] = {}  # space -> time of its last raw change
        self.began: dict[int, float] = {}  # space -> first raw change of its current burst of changes
        self.pending: set[int] = set()  # raw != stable
        self.last_change = float("-inf")  # last raw change anywhere
        self.now = float("-inf")

    def feed(self, t: float, occupied: frozenset[int]) -> frozenset[int]:
        """A raw snapshot at time ``t``; returns the spaces whose stable state flipped."""
        if t < self.now:
            t = self.now  # a source's clock stepping back is treated as "no time passed"
        changed = occupied ^ self.raw
        if changed:
            self.raw = occupied
            self.last_change = t
            since = self.since
            stable = self.stable
            pending = self.pending
            began = self.began
            for s in changed:
                if t - since.get(s, float("-inf")) > BURST_GAP:
                    began[s] = t  # a new lift or placement starts (flicker belongs to it)
                since[s] = t
                if (s in occupied) != (s in stable):
                    pending.add(s)
                else:
                    pending.discard(s)
        return self.advance(t)

    def advance(self, t: float) -> frozenset[int]:
        """Let time pass to ``t``; returns the spaces whose stable state flipped."""
        if t > self.now:
            self.now = t
        if not self.pending:
            return frozenset()
        raw = self.raw
        flipped = [
            s
            for s in self.pending
            if t - self.since[s] >= (self.on_delay if s in raw else self.off_delay) - EPS
        ]
        if not flipped:
            return frozenset()
        out = frozenset(flipped)
        self.pending.difference_update(out)
        self.stable = self.stable ^ out
        return out

    def next_due(self) -> float | None:
        """When the next pending space will flip if its reading holds, or None."""
        if not self.pending:
            return None
        raw = self.raw
        return min(self.since[s] + (self.on_delay if s in raw else self.off_delay) for s in self.pending)

    def settled(self) -> bool:
        return not self.pending
