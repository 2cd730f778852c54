"""The state of a game: everything that changes as it is played, and the names of its values.

A tower is an int (its index in ``Game.owner`` / ``Game.piece``); a space is an int 0..98
(``engine.board``).  ``State.board[space]`` is the tower on that space or :data:`EMPTY`;
``State.loc[tower]`` is the space it stands on, or :data:`RESERVE` / :data:`CAPTURED` when it is
off the board (so a location ``>= 0`` is a space).
"""

from __future__ import annotations

from dataclasses import dataclass

from .board import BLACK, WHITE

EMPTY = -1  #: ``State.board`` entry of a space with no tower
RESERVE = -1  #: ``State.loc`` of a tower on its owner's Zero Gravity, not yet played
CAPTURED = -2  #: ``State.loc`` of a tower on the rival's Zero Gravity (captured)

INDEX = {WHITE: 0, BLACK: 1}  #: a player's bit / slot in ``State.known`` and ``State.totem_used``
BOTH = 3  #: ``State.known`` of a tower both players know


@dataclass(frozen=True)
class LastAction:
    """What the rival's turn-ending action did, for the Classic Power of Time."""

    player: str
    moved: tuple[tuple[int, int, int], ...]  # (tower, from location, to location)
    captured: bool
    on_iris: bool
    moved_shadow: bool


class State:
    """Everything that changes during a game.  Copied whole onto the undo stack."""

    __slots__ = (
        "board",  # space -> tower or EMPTY
        "loc",  # tower -> space, RESERVE or CAPTURED
        "captured_turn",  # tower -> turn it was captured (0: not, or long ago)
        "known",  # tower -> who knows its identity: a bit per player (INDEX), BOTH
        "swaps_left",  # tower -> a Third Eye Memory's swaps left
        "turn",  # 1-based
        "to_move",  # "white" / "black"
        "time_used",  # Classic Time used this turn
        "totem_used",  # [white, black]: Resurrection used this game
        "frozen",  # towers swapped by a Third Eye Memory this turn
        "flash_ban",  # (turn, tower, tower it may not flash) or None: no flash-back
        "last_action",  # LastAction of the rival's turn-ending action, or None
        "passes",  # turns in a row just ended in a pass
        "result",  # engine.game.Outcome once the game is over, else None
    )

    def copy(self) -> "State":
        s = State.__new__(State)
        s.board = self.board[:]
        s.loc = self.loc[:]
        s.captured_turn = self.captured_turn[:]
        s.known = self.known[:]
        s.swaps_left = self.swaps_left[:]
        s.turn = self.turn
        s.to_move = self.to_move
        s.time_used = self.time_used
        s.totem_used = self.totem_used[:]
        s.frozen = self.frozen
        s.flash_ban = self.flash_ban
        s.last_action = self.last_action
        s.passes = self.passes
        s.result = self.result
        return s

    def key(self) -> tuple:
        """Every field, for comparing states exactly."""
        return tuple(
            tuple(v) if isinstance(v, list) else v for v in (getattr(self, f) for f in self.__slots__)
        )
