"""What an action does to the board, as the sensors can see it: the facts' types.

The sensors under the board see only which spaces hold a tower.  A referee
matches what they saw against facts the engine states, so it never re-derives a
rule (lichess over scalachess: the rules library says what a move does, the
server decides what to do with it).  ``Game.board_effect(action)`` states them
as a frozen :class:`BoardEffect`: the spaces an action empties and fills, the
spaces whose tower must be lifted or placed even when the occupancy ends up the
same (both towers of a Memory Swap), which tower goes from where to where, which
leave or come onto the board, the flash and its outcome, and whether the board
cannot show it without the mover's word.  (``Game.same_game_key`` and
``Game.equivalent`` say when two actions leave the same game.)

This module holds the types and :func:`effect_of`, which builds an effect from
tower movements; it reads no game.
"""

from __future__ import annotations

from dataclasses import dataclass

from .board import SPACE_NAMES
from .state import EMPTY

N = SPACE_NAMES
NOTHING: frozenset[int] = frozenset()

#: The mover's words the sensors cannot see (the phone's declarations).
WORDS = ("reinforce", "resurrect", "time", "swap", "pass")


@dataclass(frozen=True, slots=True)
class Flash:
    """A flash: the attacker from ``frm`` meets the defender on ``at``; both are revealed."""

    frm: int
    at: int
    attacker: str
    defender: str
    outcome: str  # engine.flash.CAPTURE / SWAP / MUTUAL

    def to_json(self) -> dict:
        return {"from": N[self.frm], "at": N[self.at], "attacker": self.attacker,
                "defender": self.defender, "outcome": self.outcome}


@dataclass(frozen=True, slots=True)
class BoardEffect:
    """What an action does to the board, as the sensors can see it.

    ``emptied`` / ``filled``: spaces holding a tower before and none after / the reverse.
    ``touched``: every space whose sensor must change at some moment (``emptied`` and
    ``filled`` included): a swapped tower is lifted and put back.
    ``carries``: (from, to) of each tower that goes from one space to another; it is
    lifted from ``from`` before it is put on ``to``.
    ``leaves``: spaces whose tower goes off the board (to a Zero Gravity).
    ``arrives``: spaces a tower comes onto from off the board (reserve or captured).
    ``flash``: the flash, if the action makes one.
    ``word``: what the board cannot show without the mover's word on the phone
    (``reinforce``, ``resurrect``, ``time``, ``swap``, ``pass``), or None.
    ``ends_turn``: whether the turn is over after it.
    ``time_outcome``: for the Power of Time, what it does (``rewound``, ``failed`` against a
    Shadow, ``pushed`` in Third Eye), announced before it is carried out.
    """

    emptied: frozenset[int]
    filled: frozenset[int]
    touched: frozenset[int]
    carries: tuple[tuple[int, int], ...]
    leaves: tuple[int, ...]
    arrives: tuple[int, ...]
    flash: Flash | None
    word: str | None
    ends_turn: bool
    time_outcome: str | None = None

    def after(self, occupied: frozenset[int]) -> frozenset[int]:
        """The occupancy after the action, from the occupancy before it."""
        return (occupied - self.emptied) | self.filled

    def to_json(self) -> dict:
        """Record-style form (space names), for data files and debugging."""
        return {
            "emptied": sorted(N[s] for s in self.emptied),
            "filled": sorted(N[s] for s in self.filled),
            "touched": sorted(N[s] for s in self.touched),
            "carries": [[N[a], N[b]] for a, b in self.carries],
            "leaves": [N[s] for s in self.leaves],
            "arrives": [N[s] for s in self.arrives],
            "flash": self.flash.to_json() if self.flash else None,
            "word": self.word,
            "ends_turn": self.ends_turn,
            "time_outcome": self.time_outcome,
        }


def effect_of(board: list[int], carries=(), leaves=(), arrives=(), stays=(), flash: Flash | None = None,
              word: str | None = None, ends_turn: bool = True, time_outcome: str | None = None) -> BoardEffect:
    """Build an effect from its tower movements on ``board`` (``State.board``, before the action):
    every tower that leaves a space is lifted first, then every tower is put down.  ``stays``:
    spaces touched whose tower is back at the end."""
    if len(carries) == 1 and not leaves and not arrives and not stays:
        # the plainest and by far the most frequent: one tower lifted from one space, put on another
        # (a referee builds an effect for every legal action of every step: this path is most of them)
        (a, b), = carries
        if a != b:
            return BoardEffect(
                emptied=frozenset((a,)) if board[a] != EMPTY else NOTHING,
                filled=frozenset((b,)) if board[b] == EMPTY else NOTHING,
                touched=frozenset((a, b)), carries=tuple(carries), leaves=(), arrives=(), flash=flash,
                word=word, ends_turn=ends_turn, time_outcome=time_outcome)
    touched = {s for pair in carries for s in pair}
    touched.update(leaves, arrives, stays)
    after = {s: board[s] != EMPTY for s in touched}
    for a, _ in carries:
        after[a] = False
    for s in leaves:
        after[s] = False
    for _, b in carries:
        after[b] = True
    for s in arrives:
        after[s] = True
    return BoardEffect(
        emptied=frozenset(s for s, full in after.items() if not full and board[s] != EMPTY),
        filled=frozenset(s for s, full in after.items() if full and board[s] == EMPTY),
        touched=frozenset(touched),
        carries=tuple(carries),
        leaves=tuple(leaves),
        arrives=tuple(arrives),
        flash=flash,
        word=word,
        ends_turn=ends_turn,
        time_outcome=time_outcome,
    )


__all__ = ["WORDS", "BoardEffect", "Flash", "effect_of"]
