"""Refereeing a recorded ``quin-trace/1`` (``host.board.trace``): :func:`run_referee` feeds its
snapshots and inputs to a :class:`Referee`, ticking at its deadlines; :func:`referee_trace` referees
a whole trace from its header's setups (``quin referee --trace``, the simulator's tests, benchmarks).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Iterable

from host.board.trace import SnapshotLine, Trace

from .machine import Referee
from .notices import InputError


@dataclass
class RefereeRun:
    """What refereeing a trace gave: the referee, every notice, rejected inputs, and whether it finished."""

    referee: object
    notices: list
    rejected_inputs: list  # (line, t, player, reason)
    stuck: dict | None  # {"t": ..., "waiting_for": ...} when the referee was left waiting

    @property
    def complete(self) -> bool:
        return self.stuck is None


def run_referee(ref, events: Iterable, *, collect: bool = True) -> RefereeRun:
    """Feed events (SnapshotLine / InputLine, in time order) to a referee, ticking at its deadlines."""
    notices: list = []
    rejected: list = []
    said: dict = {}  # player -> [(line, t, input)] accepted for now, perhaps held and refused later

    def refusals(got: list) -> None:
        """A held word the referee refused once the board settled comes as a private ``rejected``
        notice naming the input, not as an exception: note it against the line that said it."""
        for n in got:
            if n.kind != "rejected" or "input" not in n.data:
                continue
            what = n.data["input"]
            mine = said.get(n.audience, [])
            # the earliest input of theirs it names (else their latest: a word the referee spelled
            # differently from the phone)
            at = next((i for i, m in enumerate(mine) if _input_key(m[2]) == _input_key(what)),
                      len(mine) - 1 if mine else None)
            line, t = (mine.pop(at)[:2]) if at is not None else (None, ref.now)
            rejected.append((line, t, n.audience, n.data["reason"]))

    def drain(until: float | None) -> None:
        guard = 0
        while True:
            due = ref.next_deadline()
            if due is None or (until is not None and due > until):
                return
            got = ref.tick(due)
            refusals(got)
            if collect:
                notices.extend(got)
            guard += 1
            if guard > 10000:  # pragma: no cover - a referee that never settles is a bug
                raise RuntimeError("the referee keeps asking to be woken at the same time")

    last_t = 0.0
    for event in events:
        drain(event.t)
        last_t = event.t
        if isinstance(event, SnapshotLine):
            got = ref.feed(event.snapshot())
        else:
            try:
                got = ref.input(event.player, event.input, event.t)
            except InputError as exc:
                rejected.append((event.line, event.t, event.player, str(exc)))
                continue
            mine = said.setdefault(event.player, [])
            mine.append((event.line, event.t, event.input))
            del mine[:-32]  # (only recent inputs can still be held)
        refusals(got)
        if collect:
            notices.extend(got)
    drain(None)
    stuck = None
    if not ref.game.is_over() and not ref.is_idle():
        stuck = {"t": max(last_t, ref.deb.last_change if ref.deb.last_change > -1 else 0.0),
                 "waiting_for": ref.stuck_reason()}
    return RefereeRun(ref, notices, rejected, stuck)


def _input_key(data: object) -> str:
    """An input as a ``rejected`` notice names it: "done", or the word's JSON (key order aside)."""
    if data == "done" or isinstance(data, dict) and data.get("type") == "done":
        return "done"
    return json.dumps(data, sort_keys=True)


def referee_trace(trace: Trace, **referee_options) -> RefereeRun:
    """Referee a whole trace from its header's setups."""
    ref = Referee(trace.header.new_game(), **referee_options)
    return run_referee(ref, trace.events)


__all__ = ["run_referee", "referee_trace", "RefereeRun"]
