"""The board referee: sensor snapshots and players' inputs in, refereed actions and notices out.

One room, one concern per module (docs/referee.md):

- ``machine``: the state machine -- the :class:`Referee` (``feed``, ``tick``, ``input``);
- ``states``: its states as frozen values (what it waits for and what it holds meanwhile:
  a question asked, the Power of Time announced, a flash held) and the one transition table;
- ``status``: what its status says to each audience (public, each player, the CLI);
- ``evidence``: the stable flips since a step began, with their timing;
- ``matching``: every legal action indexed by what the engine says it does to the board;
  which are complete in the evidence, which could still grow;
- ``corrections``: correction lists (displaced towers paired by the least total distance);
- ``inputs``: the players' inputs, their schema and the words they carry;
- ``wording``: every sentence the referee says;
- ``notices``: :class:`Notice` and :class:`InputError`;
- ``traces``: refereeing a recorded trace (``host.board.trace``): ``run_referee``, ``referee_trace``.
"""

from .corrections import DISTANCE, corrections
from .machine import Referee
from .matching import Step
from .notices import KINDS, PUBLIC, InputError, Notice
from .states import TRANSITIONS, Event, Phase

__all__ = ["Referee", "Notice", "InputError", "Phase", "Event", "TRANSITIONS", "KINDS", "PUBLIC", "corrections",
           "DISTANCE", "Step"]
