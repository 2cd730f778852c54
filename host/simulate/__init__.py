"""The physical-play simulator: two people playing a recorded game on the board, with phones.

A model of hands written apart from the referee: it imports neither ``host.referee`` nor
``host.referee.debounce`` and consults nothing of theirs.  It knows the game the players play (the
engine) and the trace format (``host.board.trace``), and it hears what a referee tells the players.

- :mod:`.timing`   the noise levels, the paces and every physical bound, in one place;
- :mod:`.truth`    what an action does to the physical towers, from the engine's truth;
- :mod:`.oracle`   its own "same game from here on": a canonical form of a game state;
- :mod:`.machine`  a small discrete-event machine (activities, raw toggles, phone taps);
- :mod:`.table`    the physical board and the noise of hands and sensors;
- :mod:`.players`  :class:`Hands`: the two players, their hands and their phones;
- :mod:`.loop`     :func:`run_closed_loop`: players against any referee, recorded as a trace.

::

    hands = Hands(record, seed=7, noise="medium", pace="brisk")
    run = run_closed_loop(hands, Referee(hands.header.new_game()))
    write_trace(run.trace, fp); run.report  # questions, commits, latency, faults

:func:`simulate` with no referee makes a trace ahead of time (open loop: nobody listens, so
the players name beforehand any action the board cannot tell from another).
"""

from __future__ import annotations

from typing import Callable

from engine.game import Game
from engine.record import Record
from host.board.trace import Trace, TraceHeader

from .loop import LoopRun, run_closed_loop
from .oracle import canonical, canonical_after, outcomes, same_game
from .players import FAULTS, Hands
from .timing import ALL_PACES, LEVELS, NOISE, PACE_NAMES, PACES, Noise, Pace
from .truth import physical_effect


def simulate(record: Record | dict | Game, seed: int = 0, noise: str = "medium", faults: dict | None = None, *,
             pace: str = "relaxed", referee: Callable[[Game], object] | None = None) -> Trace:
    """A seeded trace of the game in ``record`` (a Record, its JSON, or a played Game).

    ``referee``: a factory ``game -> referee`` to play against (closed loop); without one the
    trace is made open loop."""
    hands = Hands(record, seed, noise, pace, faults, open_loop=referee is None)
    if referee is None:
        while hands.next_time() is not None:
            hands.step()
        return hands.trace()
    return run_closed_loop(hands, referee(hands.header.new_game())).trace


class Simulator:
    """Open-loop play of whole turns (the staged-fault tests' interface): ``setup()``,
    ``play(turns)``, ``trace()``; ``fault_log`` lists (action number, kind, spaces)."""

    def __init__(self, header: TraceHeader, seed: int = 0, noise: str = "medium", faults: dict | None = None,
                 pace: str = "relaxed"):
        self.header = header
        self.args = (seed, noise, pace, faults)
        self.turns: list = []
        self.hands: Hands | None = None
        Hands(self._record(), seed, noise, pace, faults)  # validates the arguments now

    def _record(self) -> Record:
        h = self.header
        return Record(h.mode, h.vision, h.first, dict(h.setups), tuple(self.turns))

    def setup(self) -> None:
        """The lineups are set up tower by tower at the start of :meth:`trace`."""

    def play(self, turns) -> None:
        self.turns.extend((p, tuple(a)) for p, a in turns)

    def trace(self) -> Trace:
        seed, noise, pace, faults = self.args
        self.hands = Hands(self._record(), seed, noise, pace, faults, open_loop=True)
        while self.hands.next_time() is not None:
            self.hands.step()
        return self.hands.trace()

    @property
    def fault_log(self) -> list:
        return [] if self.hands is None else self.hands.fault_log


__all__ = ["simulate", "Simulator", "Hands", "run_closed_loop", "LoopRun", "NOISE", "LEVELS", "Noise", "PACES",
           "PACE_NAMES", "ALL_PACES", "Pace", "FAULTS", "canonical", "canonical_after", "same_game", "outcomes",
           "physical_effect"]
