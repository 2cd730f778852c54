"""What the board showed since a step began: the stable flips, in order, with their timing.

The debouncer (``host.referee.debounce``) turns raw readings into a stable occupancy; every
time a space's stable state flips, the referee appends a :class:`Flip` here.  The
board after the first ``k`` flips, the spaces touched by then, and the order in
which towers left and arrived are all the evidence an action is matched against
(``host.referee.matching``).  A step's evidence can be cut at ``k``: the first
part is one action, the rest the beginning of the next step.
"""

from __future__ import annotations

from dataclasses import dataclass

#: a tower is lifted before it is put down: how much sooner a placement may seem to start
#: than the lift it follows (one sensor scan and then some)
CAUSAL_SLACK = 0.03


@dataclass(frozen=True, slots=True)
class Flip:
    """A space's stable state flipped to ``on`` at ``at``; its raw change began at ``began``
    (the first edge of that lift or placement) and held from ``settled`` (its last edge)."""

    at: float
    space: int
    on: bool
    began: float
    settled: float


class Evidence:
    """The flips since a step's ``base`` occupancy."""

    __slots__ = ("base", "flips", "_boards", "_touched")

    def __init__(self, base: frozenset[int], flips: tuple[Flip, ...] | list[Flip] = ()):
        self.base = base
        self.flips: list[Flip] = []
        self._boards = [base]
        self._touched = [frozenset()]
        for f in flips:
            self.add(f)

    def __len__(self) -> int:
        return len(self.flips)

    def add(self, flip: Flip) -> None:
        self.flips.append(flip)
        self._boards.append(self._boards[-1] ^ {flip.space})
        self._touched.append(self._touched[-1] | {flip.space})

    def board(self, k: int | None = None) -> frozenset[int]:
        """The occupancy after the first ``k`` flips (all by default)."""
        return self._boards[len(self.flips) if k is None else k]

    def touched(self, k: int | None = None) -> frozenset[int]:
        return self._touched[len(self.flips) if k is None else k]

    def change(self, k: int | None = None) -> tuple[frozenset[int], frozenset[int]]:
        """(spaces emptied, spaces filled) since the base, after ``k`` flips."""
        b = self.board(k)
        return self.base - b, b - self.base

    def lifted_and_back(self, k: int | None = None) -> frozenset[int]:
        """Spaces whose tower was lifted and that hold a tower again: a tower picked up and put back,
        or two towers traded (a Memory Swap) -- what an action must explain."""
        b = self.board(k)
        return frozenset(s for s in self.touched(k) if s in self.base and s in b)

    def rested_in_passing(self, k: int, quiet: float) -> frozenset[int]:
        """Spaces empty at the base and again after ``k`` flips on which a tower stood at least
        ``quiet`` in between: by the referee's tolerance a placement, which an action must explain
        (a tower only passing over a space rests less).  The rest counts from when the tower
        arrived, as in ``disturbed_after``: a landing's bounces are part of it (a brisk next player
        may lift the tower 0.2 s after it touched down, 0.12 s after its last bounce)."""
        b = self.board(k)
        since: dict[int, float] = {}
        out = set()
        for f in self.flips[:k]:
            if f.space in self.base or f.space in b:
                continue
            if f.on:
                since[f.space] = f.began
            elif f.space in since and f.began - since.pop(f.space) >= quiet:
                out.add(f.space)
        return frozenset(out)

    def causal(self, carries, k: int | None = None) -> bool:
        """A tower is lifted before it is put down: each carried tower's lift from ``a`` began no
        later than the placement on ``b`` that holds it at the end (give or take the sensors)."""
        flips = self.flips[: len(self.flips) if k is None else k]
        for a, b in carries:
            lift = next((f.began for f in flips if f.space == a and not f.on), None)
            place = next((f.began for f in reversed(flips) if f.space == b and f.on), None)
            if lift is not None and place is not None and lift > place + CAUSAL_SLACK:
                return False
        return True

    def could_be_under_way(self, carries) -> bool:
        """Could an action carrying these towers be under way?  No tower may have arrived where one
        is carried to before that tower was lifted (a placement needs its lift first)."""
        for a, b in carries:
            place = next((f.began for f in reversed(self.flips) if f.space == b and f.on), None)
            if place is None:
                continue
            lift = next((f.began for f in self.flips if f.space == a and not f.on), None)
            if lift is None or lift > place + CAUSAL_SLACK:
                return False
        return True

    def rest(self, k: int, base: frozenset[int]) -> "Evidence":
        """The flips after the first ``k``, as the evidence of a step beginning at ``base``."""
        return Evidence(base, self.flips[k:])

    def disturbed_after(self, k: int, spaces, quiet: float) -> bool:
        """Did any of ``spaces`` flip again, after the first ``k`` flips, sooner than ``quiet`` after
        it had last settled?  (A tower resting a moment on a space during a slide is no placement.)"""
        settled = {}
        for f in self.flips[:k]:
            if f.space in spaces:
                # a tower put down rests from when it arrived (its bounces are its landing)
                settled[f.space] = f.began if f.on else f.settled
        for f in self.flips[k:]:
            if f.space in spaces and f.began < settled.get(f.space, float("-inf")) + quiet:
                return True
        return False


__all__ = ["Flip", "Evidence", "CAUSAL_SLACK"]
