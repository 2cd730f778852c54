"""LED guidance: the referee's instructions to the players become the board's lights.

The input is a list of :class:`Guidance` (or plain dicts of the same shape,
``{"kind": "remove", "spaces": ["w35", 12]}``), the output the colour map a
:class:`host.board.sensing.LedSink` shows (space -> (r, g, b); every other LED dark).

Kinds and colours (when one space gets two instructions, the more urgent wins,
in this order):

==============  =========================================  ==========
kind            meaning                                    colour
==============  =========================================  ==========
``correction``  the board differs from the game here: fix  magenta
``remove``      take this tower off (e.g. after a flash)   red
``swap``        swap these towers                          amber
``place``       put a tower here                           green
``last_move``   the last move: from (dim) ... to (bright)  blue
==============  =========================================  ==========
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

from engine.board import SPACE_NAMES, parse_space
from engine.errors import InvalidError

Colour = tuple[int, int, int]

COLOURS: dict[str, Colour] = {
    "correction": (255, 0, 255),
    "remove": (255, 0, 0),
    "swap": (255, 140, 0),
    "place": (0, 255, 0),
    "last_move": (0, 80, 255),
}
DIM_FROM: Colour = (0, 16, 60)  # where the last move started
PRIORITY = ("correction", "remove", "swap", "place", "last_move")  # most urgent first


@dataclass(frozen=True)
class Guidance:
    """One instruction: a ``kind`` from COLOURS and the spaces it concerns (ids)."""

    kind: str
    spaces: tuple[int, ...]

    @classmethod
    def coerce(cls, item: "Guidance | Mapping") -> "Guidance":
        if isinstance(item, Guidance):
            return item
        if not isinstance(item, Mapping):
            raise InvalidError(f"LED guidance must be a mapping with kind and spaces, not {item!r}")
        kind = item.get("kind")
        if kind not in COLOURS:
            raise InvalidError(f"unknown LED guidance kind {kind!r} (expected one of {', '.join(PRIORITY)})")
        spaces = []
        for s in item.get("spaces", ()):
            if isinstance(s, int) and not isinstance(s, bool):
                if not 0 <= s < len(SPACE_NAMES):
                    raise InvalidError(f"LED guidance {kind}: no space {s}")
                spaces.append(s)
            else:
                spaces.append(parse_space(s))
        return cls(kind, tuple(spaces))


def colours(instructions: Iterable["Guidance | Mapping"]) -> dict[int, Colour]:
    """The LED colours for a set of instructions; InvalidError names a bad kind or space."""
    items = [Guidance.coerce(i) for i in instructions]
    lit: dict[int, Colour] = {}
    for kind in reversed(PRIORITY):  # least urgent first, so urgent ones overwrite
        for g in items:
            if g.kind != kind:
                continue
            if kind == "last_move" and len(g.spaces) > 1:
                for s in g.spaces[:-1]:
                    lit[s] = DIM_FROM
                lit[g.spaces[-1]] = COLOURS[kind]
            else:
                for s in g.spaces:
                    lit[s] = COLOURS[kind]
    return lit


def led_frame(instructions: Iterable["Guidance | Mapping"], seq: int = 0, time_us: int = 0) -> bytes:
    """The encoded LED frame for the instructions (what SerialSource.show sends)."""
    from host.board import protocol

    return protocol.led_frame(seq, time_us, colours(instructions))
