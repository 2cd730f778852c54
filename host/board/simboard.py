"""A simulated board: an in-process :class:`host.board.sensing.Source` driven by code.

Tests, the simulator and the web page's virtual board move towers on it:
``lift(space)``, ``place(space)``, ``toggle(space)``, ``set(occupied)``.  It has
its own clock: by default a manual one that only moves when told
(``advance(dt)``: a ``host.clock.FakeClock``), so tests never sleep;
``SimulatedBoard(clock=host.clock.REAL)`` runs in real time.  Every method is thread-safe (the web page's request threads
and the referee's reader may share one board).
"""

from __future__ import annotations

import threading
from typing import Callable, Iterable

from engine.board import SPACES, parse_space
from host.board.sensing import Snapshot
from host.clock import FakeClock


class ManualClock(FakeClock):
    """A clock that moves only when advanced (``host.clock.FakeClock``): ``clock()`` reads it."""


def _space(space: int | str) -> int:
    if isinstance(space, str):
        return parse_space(space)
    if isinstance(space, int) and space in SPACES:
        return space
    raise ValueError(f"unknown space {space!r}")


class SimulatedBoard:
    """Which of the 99 spaces hold a tower, changed by code; a Source for the referee.

    ``read(timeout)`` returns the current snapshot when the board changed since
    the last read (or, with ``poll=True``, every time, like a sensor scanned at a
    fixed rate).  With a real clock, an unchanged board makes ``read`` wait up to
    ``timeout`` for a change; polling waits one scan period (``1/rate`` s) between
    readings unless the board changes sooner.
    """

    def __init__(
        self,
        occupied: Iterable[int | str] = (),
        clock: Callable[[], float] | None = None,
        poll: bool = False,
        rate: float = 100.0,
    ):
        if rate <= 0:
            raise ValueError("rate: scans per second must be positive")
        self._cond = threading.Condition()
        self._occupied = frozenset(_space(s) for s in occupied)
        self.clock = clock if clock is not None else ManualClock()
        self.poll = poll
        self.period = 1.0 / rate
        self._changed = True
        self._closed = False
        self.stuck: dict[int, bool] = {}  # space -> reading it is stuck at (sensor fault)

    # --- moving towers ---------------------------------------------------------------

    def _set(self, occupied: frozenset[int]) -> Snapshot:
        with self._cond:
            self._occupied = occupied
            self._changed = True
            self._cond.notify_all()
            return self._snapshot()

    def lift(self, space: int | str) -> Snapshot:
        """Lift the tower standing on ``space``; ValueError if it is empty."""
        s = _space(space)
        with self._cond:
            if s not in self._occupied:
                raise ValueError(f"there is no tower to lift on space {s}")
            return self._set(self._occupied - {s})

    def place(self, space: int | str) -> Snapshot:
        """Place a tower on ``space``; ValueError if one stands there."""
        s = _space(space)
        with self._cond:
            if s in self._occupied:
                raise ValueError(f"space {s} already holds a tower")
            return self._set(self._occupied | {s})

    def move(self, frm: int | str, to: int | str) -> Snapshot:
        self.lift(frm)
        return self.place(to)

    def toggle(self, space: int | str) -> Snapshot:
        """Lift the tower on ``space``, or place one there."""
        s = _space(space)
        with self._cond:
            return self._set(self._occupied ^ {s})

    def set(self, occupied: Iterable[int | str]) -> Snapshot:
        """Set the whole occupancy at once."""
        return self._set(frozenset(_space(s) for s in occupied))

    def stick(self, space: int | str, reading: bool | None) -> Snapshot:
        """Make a sensor read ``reading`` whatever stands there (None: heal it)."""
        s = _space(space)
        with self._cond:
            if reading is None:
                self.stuck.pop(s, None)
            else:
                self.stuck[s] = bool(reading)
            self._changed = True
            self._cond.notify_all()
            return self._snapshot()

    def advance(self, dt: float) -> float:
        """Move the manual clock forward (ValueError with a real clock)."""
        if not isinstance(self.clock, FakeClock):
            raise ValueError("this board runs on a real clock")
        return self.clock.advance(dt)

    # --- reading ---------------------------------------------------------------------

    @property
    def occupied(self) -> frozenset[int]:
        """Where towers stand (the truth, before any stuck sensor)."""
        return self._occupied

    def _snapshot(self) -> Snapshot:
        occ = set(self._occupied)
        for s, reading in self.stuck.items():
            if reading:
                occ.add(s)
            else:
                occ.discard(s)
        return Snapshot(float(self.clock()), frozenset(occ))

    def snapshot(self) -> Snapshot:
        """What the sensors read now."""
        with self._cond:
            return self._snapshot()

    def read(self, timeout: float | None = None) -> Snapshot | None:
        with self._cond:
            if self._closed:
                return None
            manual = isinstance(self.clock, FakeClock)
            if self.poll and not manual and not self._changed:
                wait = self.period if timeout is None else min(self.period, timeout)
                self._cond.wait(wait)  # a scan period, or less if the board changes
                if self._closed:
                    return None
            elif not (self._changed or self.poll):
                if manual or timeout == 0:
                    return None
                self._cond.wait(timeout)
                if not self._changed or self._closed:
                    return None
            self._changed = False
            return self._snapshot()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()


__all__ = ["SimulatedBoard", "ManualClock"]
