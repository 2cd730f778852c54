"""Per-space debounce: raw sensor snapshots in, a stable occupancy out.

Hall sensors flicker while a tower is lifted or placed, a tower slid across
the board brushes the spaces it passes, a neighbouring tower bumped off its
magnet reads empty for a moment.  A space's stable state follows its raw
reading only once that reading has held for a while:

- ``on_delay`` (default 50 ms) for a tower arriving: a tower slid over a space
  or a hovering hand reads for less than that;
- ``off_delay`` (default 150 ms) for a tower leaving: a tower bumped off its
  magnet for under 150 ms never reads as lifted.

Where the referee expects a tower to be lifted (a declared Memory Swap, an announced Time
and its rewind, a flash's outcome) it names those spaces in :attr:`Debouncer.expect`; a lift
there counts on less: the reading steadily empty for ``EXPECT_STEADY`` (40 ms) and the lift,
bounces included, going on for ``off_delay`` (from its first edge to now, or to the first edge
of the put-back).  A bumped tower is off its magnet for under ``off_delay`` in all, so it never
counts even there; a quick lift and put-back (held 200 ms, bouncing up to 80 ms at each edge, so
steadily empty for as little as 40 ms) does.  See docs/referee.md, "Evidence read in context".

Raw edges on one space less than ``BURST_GAP`` apart are one lift or placement (its flicker),
unless the space's stable state flipped since the last of them: a change already reported is over,
and the next edge begins a new one (:attr:`Debouncer.began`).

The board-level settle window lives in the referee, which asks
:attr:`Debouncer.last_change` (the time of the last raw change anywhere) and
:attr:`Debouncer.pending` (spaces whose raw reading differs from the stable one).

Sans-I/O: times come with the snapshots; nothing here sleeps or reads a clock.
"""

from __future__ import annotations

EPS = 1e-6  # float slack when comparing times against deadlines
BURST_GAP = 0.1  # raw edges on one space closer than this are one lift or placement (its flicker)
#: where a lift is expected: the reading must be steadily empty this long (a bounce lasts < 15 ms)
EXPECT_STEADY = 0.04
#: how long each space's raw edges are kept, to find a quick lift once it is expected (a word late)
HISTORY = 3.0


class Debouncer:
    """Stable occupancy from raw snapshots.  Times are seconds, non-decreasing."""

    __slots__ = ("on_delay", "off_delay", "raw", "stable", "since", "began", "pending", "last_change", "now",
                 "expect", "meta", "history", "reported", "on_acc", "cut")

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
        self.expect: frozenset[int] = frozenset()  # spaces where a lift is expected (set by the referee)
        self.meta: dict[int, tuple[float, float]] = {}  # space -> (began, settled) of a lift seen late
        self.history: dict[int, list[tuple[float, bool]]] = {}  # space -> its recent raw edges (t, on)
        self.reported: dict[int, float] = {}  # space -> when its stable state last flipped
        # space -> how long its reading has been on in the current burst, its bounces' short gaps left
        # out (a landing cut short, below)
        self.on_acc: dict[int, float] = {}
        self.cut: dict[int, float] = {}  # space -> when a landing cut short went off (it counts if it stays off)

    def _off_due(self, s: int) -> float:
        """When a stable tower whose reading is empty flips off if the reading holds."""
        if s in self.expect:
            return max(self.since[s] + EXPECT_STEADY, self.began.get(s, self.since[s]) + self.off_delay)
        return self.since[s] + self.off_delay

    def feed(self, t: float, occupied: frozenset[int]) -> frozenset[int]:
        """A raw snapshot at time ``t``; returns the spaces whose stable state flipped."""
        if t < self.now:
            t = self.now  # a source's clock stepping back is treated as "no time passed"
        changed = occupied ^ self.raw
        late: set[int] = set()
        held = frozenset()
        if changed and self.pending:
            # A reading that held its whole window up to this snapshot counts, even if no tick came
            # at the very moment it was due (a busy Pi, snapshots sent only on change): the change at
            # ``t`` ends it, it does not undo it.
            held = self.advance(t)
        if changed:
            self.raw = occupied
            self.last_change = t
            since = self.since
            stable = self.stable
            pending = self.pending
            began = self.began
            expect = self.expect
            history = self.history
            for s in changed:
                edges = history.setdefault(s, [])
                edges.append((t, s in occupied))
                while edges[0][0] < t - HISTORY:
                    edges.pop(0)
                last = since.get(s, float("-inf"))
                # a change of a space whose last one was already reported (its stable state flipped)
                # is a new lift or placement however soon it comes: the next player lifting a
                # tower 0.1 s after its last landing bounce begins a lift, not more of the landing
                fresh = self.reported.get(s, float("-inf")) >= last
                if (s in expect and s in occupied and s in stable and t - last >= EXPECT_STEADY - EPS
                        and t - began.get(s, last) >= self.off_delay - EPS):
                    # A quick lift where one is expected, put back already: it counts (its edges
                    # bounced, its steady reading was short, but it lasted as long as a lift must).
                    late.add(s)
                    self.meta[s] = (began.get(s, last), last)
                    stable = self.stable = stable - {s}
                if t - last > BURST_GAP or fresh:
                    began[s] = t  # a new lift or placement starts (flicker belongs to it)
                    self.on_acc[s] = 0.0
                elif s in occupied:
                    self.cut.pop(s, None)  # only a bounce
                    if t - last >= EXPECT_STEADY - EPS:
                        self.on_acc[s] = 0.0  # off long enough to be a hand bobbing over it, not a bounce
                elif s not in stable:
                    # Perhaps a landing cut short (``_landed``): its reading on for ``on_delay`` in all.
                    acc = self.on_acc.get(s, 0.0) + (t - last)
                    self.on_acc[s] = acc
                    if acc >= self.on_delay - EPS:
                        self.cut[s] = t
                since[s] = t
                if (s in occupied) != (s in stable):
                    pending.add(s)
                else:
                    pending.discard(s)
        flipped = self.advance(t)
        if held:
            flipped = flipped | held
        return flipped | late if late else flipped

    def _landed(self, t: float) -> frozenset[int]:
        """Landings cut short, due by ``t``: a tower that bounced as it touched down and was lifted
        again before its reading held ``on_delay`` at a stretch, though it read on that long in all
        (its bounces' gaps under EXPECT_STEADY), and has now read empty EXPECT_STEADY: it was put
        down, and is lifted again.  It counts as placed now; its lift goes on as any other (off once
        it lasted ``off_delay``).  Before, such a tower was never seen placed (hasty soak seeds 420013
        and 520001: the next player lifted it 0.1 to 0.16 s after it touched down, for a Time, and the
        move was read to where the Time then took it).  A placement whose bounce merely came back on
        is read as before, 50 ms at a stretch after its last bounce."""
        due = [s for s, off in self.cut.items() if t >= off + EXPECT_STEADY - EPS]
        if not due:
            return frozenset()
        for s in due:
            off = self.cut.pop(s)
            self.on_acc[s] = 0.0
            if s in self.raw or s in self.stable:
                continue
            self.began[s] = off  # the lift began when it went off (the touch-down is the placement's)
            self.stable = self.stable | {s}
            self.reported[s] = t
            self.pending.add(s)  # the lift: off once its reading held off_delay (from its last edge)
        return frozenset(s for s in due if s in self.stable)

    def advance(self, t: float) -> frozenset[int]:
        """Let time pass to ``t``; returns the spaces whose stable state flipped."""
        if t > self.now:
            self.now = t
        if self.cut:
            landed = self._landed(t)
            if landed:
                return landed | self.advance(t)
        if not self.pending:
            return frozenset()
        raw = self.raw
        flipped = [
            s
            for s in self.pending
            if (t - self.since[s] >= self.on_delay - EPS if s in raw else t >= self._off_due(s) - EPS)
        ]
        if not flipped:
            return frozenset()
        out = frozenset(flipped)
        for s in out:
            self.reported[s] = t
        self.pending.difference_update(out)
        self.stable = self.stable ^ out
        return out

    def quick_lift(self, s: int, after: float) -> tuple[float, float, float, float] | None:
        """A lift and put-back on ``s`` since ``after`` that the full window missed but that counts
        where a lift is expected (as ``expect`` reads it): (lift began, steady from, put back began,
        put back settled), or None.  For a word that comes just after the towers it is about."""
        if s not in self.stable or s not in self.raw or s in self.pending:
            return None
        edges = [e for e in self.history.get(s, ()) if e[0] > after]
        on, last, lift_began = True, after, None
        for i, (t, now_on) in enumerate(edges):
            if not now_on and on and (lift_began is None or t - last > BURST_GAP):
                lift_began = t
            if now_on and not on and lift_began is not None and t - last >= EXPECT_STEADY - EPS \
                    and t - lift_began >= self.off_delay - EPS:
                settled = t
                for u, _ in edges[i + 1:]:
                    if u - settled > BURST_GAP:
                        break
                    settled = u
                return lift_began, last, t, settled
            on, last = now_on, t
        return None

    def next_due(self) -> float | None:
        """When the next pending space will flip if its reading holds, or None."""
        cut = min((off + EXPECT_STEADY for off in self.cut.values()), default=None)
        if not self.pending:
            return cut
        raw = self.raw
        due = min(self.since[s] + self.on_delay if s in raw else self._off_due(s) for s in self.pending)
        return due if cut is None else min(due, cut)

    def settled(self) -> bool:
        return not self.pending and not self.cut
