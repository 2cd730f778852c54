"""A small discrete-event machine: activities in time, raw sensor toggles, phone taps.

An *activity* is a generator (a person doing something).  It schedules raw sensor toggles
and phone inputs at times of its choosing (never in the past) and yields either a time to
sleep until, or an :class:`Await` (resume when a matching notice is heard, or at a timeout).
The machine hands out, in time order, one raw snapshot per instant the readings change and
the inputs, and is told the notices the referee sends back (:meth:`Machine.hear`).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import Any, Callable, Generator

from host.board.trace import InputLine, SnapshotLine

WAKE, TOGGLE, INPUT = 0, 1, 2
Activity = Generator[Any, Any, Any]


def at(t: float) -> float:
    """Times are kept to the microsecond, as a trace writes them: the run and its replay agree."""
    return round(t, 6)


@dataclass
class Await:
    """Resume when a heard notice satisfies ``match`` (the value sent is ``(t, notice)``), or at
    ``until`` (the value is None).  Notices heard since ``since`` count too (no race with a
    notice that arrived while the activity was on its way here)."""

    match: Callable[[Any], bool]
    until: float
    since: float


@dataclass(frozen=True)
class Toggle:
    t: float
    space: int
    reading: bool
    tag: str  # lift, place, flicker, hover, slide, bump, stuck, heal
    index: int  # the action it belongs to (-1: the setup)


class Machine:
    def __init__(self) -> None:
        self._heap: list[tuple[float, int, int, Any]] = []
        self._seq = 0
        self.now = 0.0
        self._acts: dict[int, Activity] = {}
        self._token: dict[int, int] = {}
        self._waiting: dict[int, Await] = {}
        self._next_id = 0
        self.raw: set[int] = set()
        self._shown: frozenset[int] = frozenset()
        self.toggles: list[Toggle] = []  # every raw toggle, in time order
        self.inputs: list[tuple[InputLine, int]] = []  # every input sent, with its action number
        self.heard: list[tuple[float, Any]] = []  # every notice heard, with its time

    # --- scheduling --------------------------------------------------------------------

    def _push(self, t: float, kind: int, payload: Any) -> None:
        t = at(t)
        if t < self.now - 1e-9:
            raise AssertionError(f"scheduled in the past: {t} < {self.now}")  # pragma: no cover
        self._seq += 1
        heapq.heappush(self._heap, (t, self._seq, kind, payload))

    def toggle(self, t: float, space: int, reading: bool, tag: str, index: int) -> float:
        self._push(t, TOGGLE, (space, reading, tag, index))
        return at(t)

    def say(self, t: float, player: str, data: dict, index: int) -> float:
        self._push(t, INPUT, (player, data, index))
        return at(t)

    def spawn(self, activity: Activity, t: float | None = None) -> None:
        aid = self._next_id
        self._next_id += 1
        self._acts[aid] = activity
        self._token[aid] = 0
        self._push(self.now if t is None else t, WAKE, (aid, 0, None))

    def _schedule(self, aid: int, t: float, value: Any = None) -> None:
        self._token[aid] += 1
        self._push(max(t, self.now), WAKE, (aid, self._token[aid], value))

    def _resume(self, aid: int, value: Any) -> None:
        act = self._acts[aid]
        try:
            request = act.send(value)
        except StopIteration:
            del self._acts[aid], self._token[aid]
            return
        if isinstance(request, Await):
            hit = None
            for t, notice in reversed(self.heard):  # the earliest match since ``since``
                if t < request.since - 1e-9:
                    break
                if request.match(notice):
                    hit = (t, notice)
            if hit is not None:
                self._schedule(aid, self.now, hit)
                return
            self._waiting[aid] = request
            self._schedule(aid, request.until, None)
        else:
            self._schedule(aid, float(request))

    # --- the outside -------------------------------------------------------------------

    def next_time(self) -> float | None:
        return self._heap[0][0] if self._heap else None

    def step(self) -> list:
        """Everything due at the next instant: its raw snapshot (if the readings changed) and inputs."""
        if not self._heap:
            return []
        now = self._heap[0][0]
        self.now = now
        inputs = []
        while self._heap and self._heap[0][0] == now:
            _, _, kind, payload = heapq.heappop(self._heap)
            if kind == WAKE:
                aid, token, value = payload
                if aid in self._acts and self._token[aid] == token:
                    self._waiting.pop(aid, None)
                    self._resume(aid, value)
            elif kind == TOGGLE:
                space, reading, tag, index = payload
                if reading:
                    self.raw.add(space)
                else:
                    self.raw.discard(space)
                self.toggles.append(Toggle(now, space, reading, tag, index))
            else:
                player, data, index = payload
                line = InputLine(now, player, data)
                self.inputs.append((line, index))
                inputs.append(line)
        out: list = []
        shown = frozenset(self.raw)
        if shown != self._shown:
            self._shown = shown
            out.append(SnapshotLine(now, shown))
        return out + inputs

    def hear(self, notice: Any, t: float) -> None:
        self.heard.append((t, notice))
        for aid, request in list(self._waiting.items()):
            if request.match(notice):
                del self._waiting[aid]
                self._schedule(aid, t, (t, notice))
