"""The closed loop: players and a referee in one timeline.

:func:`run_closed_loop` takes any referee with the documented interface (docs/referee.md)
as a parameter, duck typed: ``feed(snapshot)``, ``tick(now)``, ``input(player, data, now)``
(raising a ``ValueError`` subclass on refusal), ``next_deadline()`` and
``private_status(player)``.  It ticks the referee exactly at its deadlines, as a replay of
the trace does, hands every notice to the players, and records the snapshots and inputs
exactly as sent: the run, written as ``quin-trace/1``, referees again to the same result.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.board import PLAYERS
from host.board.trace import SnapshotLine, Trace

from .players import Hands

# A referee that keeps asking to be woken at the same instant, or a run that goes on for
# hours of game time after the players are done, is a referee bug: stop and say so.
MAX_SAME_DEADLINE = 10000
MAX_IDLE = 120.0  # seconds of game time past the players' last event


@dataclass
class LoopRun:
    hands: Hands
    referee: object
    trace: Trace
    notices: list = field(default_factory=list)  # (t, Notice), in order
    refused: list = field(default_factory=list)  # (t, player, input, reason)
    phones: dict = field(default_factory=dict)  # each player's private status when the run ended
    halted: str | None = None  # why the loop stopped early, if it did

    @property
    def report(self) -> dict:
        return self.hands.report()


def run_closed_loop(hands: Hands, referee) -> LoopRun:
    """Play ``hands`` against ``referee`` until the players are done and the referee is quiet."""
    notices: list = []
    refused: list = []
    halted = None
    same, last_due = 0, None
    last_event = 0.0

    def tell(got, now: float) -> None:
        if got:
            notices.extend((now, n) for n in got)
            hands.hear(got, now)

    while True:
        th = hands.next_time()
        tr = referee.next_deadline()
        if th is None and tr is None:
            break
        if tr is not None and (th is None or tr <= th):
            if th is None and tr > last_event + MAX_IDLE:
                halted = f"the referee still wanted to be woken at t={tr:.3f} s, long after the players stopped"
                break
            same = same + 1 if tr == last_due else 0
            last_due = tr
            if same > MAX_SAME_DEADLINE:
                halted = f"the referee kept asking to be woken at t={tr:.3f} s"
                break
            tell(referee.tick(tr), tr)
            continue
        for event in hands.step():
            # A replay ticks every deadline up to an event before feeding it: so do we.
            while (due := referee.next_deadline()) is not None and due <= event.t:
                tell(referee.tick(due), due)
            last_event = event.t
            if isinstance(event, SnapshotLine):
                tell(referee.feed(event.snapshot()), event.t)
            else:
                try:
                    got = referee.input(event.player, event.input, event.t)
                except ValueError as exc:  # the referee's refusal (InputError is a ValueError)
                    refused.append((event.t, event.player, event.input, str(exc)))
                    hands.refused(event, str(exc))
                    continue
                tell(got, event.t)
    phones = {}
    status = getattr(referee, "private_status", None)
    if status is not None:
        phones = {p: status(p) for p in PLAYERS}
    return LoopRun(hands, referee, hands.trace(), notices, refused, phones, halted)


__all__ = ["run_closed_loop", "LoopRun"]
