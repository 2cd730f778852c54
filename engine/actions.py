"""Actions: small frozen dataclasses with the record form of spec section 7.

Spaces are ints inside; names appear only in ``to_record`` / ``from_record``
and ``str()``, which reads like the referee speaks: ``move b35-b31``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from .board import SPACE_NAMES, parse_space
from .errors import InvalidError, quoted
from .pieces import parse_piece

N = SPACE_NAMES


@dataclass(frozen=True, slots=True)
class Move:
    """A tower moves (flashes, Iris crossings and slingshots included)."""

    frm: int
    to: int
    ends_turn = True

    def to_record(self) -> dict:
        return {"type": "move", "from": N[self.frm], "to": N[self.to]}

    def __str__(self) -> str:
        return f"move {N[self.frm]}-{N[self.to]}"


@dataclass(frozen=True, slots=True)
class Reinforce:
    """Reserve towers onto empty own Gateways: ((space, piece), ...) sorted by space."""

    placements: tuple[tuple[int, str], ...]
    ends_turn = True

    def to_record(self) -> dict:
        return {"type": "reinforce", "to": {N[s]: p for s, p in self.placements}}

    def __str__(self) -> str:
        return "reinforce " + ", ".join(f"{p} at {N[s]}" for s, p in self.placements)


@dataclass(frozen=True, slots=True)
class Resurrect:
    """The Totem: one own captured tower onto an empty rival Gateway."""

    piece: str
    to: int
    ends_turn = False

    def to_record(self) -> dict:
        return {"type": "resurrect", "piece": self.piece, "to": N[self.to]}

    def __str__(self) -> str:
        return f"resurrect {self.piece} at {N[self.to]}"


@dataclass(frozen=True, slots=True)
class Reflect:
    """The Reflector on ``reflector`` sends the Light or Artificial Light on ``frm`` to ``to``."""

    reflector: int
    frm: int
    to: int
    ends_turn = True

    def to_record(self) -> dict:
        return {"type": "reflect", "reflector": N[self.reflector], "from": N[self.frm], "to": N[self.to]}

    def __str__(self) -> str:
        return f"reflect {N[self.frm]}-{N[self.to]} by the Reflector on {N[self.reflector]}"


@dataclass(frozen=True, slots=True)
class Swap:
    """Memory Swap: the Memory on ``memory`` trades places with the own tower on ``other``."""

    memory: int
    other: int

    def to_record(self) -> dict:
        return {"type": "swap", "memory": N[self.memory], "with": N[self.other]}

    def __str__(self) -> str:
        return f"swap {N[self.memory]} with {N[self.other]}"


@dataclass(frozen=True, slots=True)
class Time:
    """The Power of Time used by the Time tower on ``at``.

    Classic: rewind the rival's last action (``target`` and ``to`` are None).
    Third Eye: push the rival tower on ``target`` back to ``to``.
    """

    at: int
    target: int | None = None
    to: int | None = None
    ends_turn = False

    def to_record(self) -> dict:
        record = {"type": "time", "at": N[self.at]}
        if self.target is not None:
            record["target"] = N[self.target]
            record["to"] = N[self.to]
        return record

    def __str__(self) -> str:
        if self.target is None:
            return f"time at {N[self.at]}"
        return f"time at {N[self.at]} pushing {N[self.target]}-{N[self.to]}"


@dataclass(frozen=True, slots=True)
class Gravity:
    """Void Gravity: Voids pulled next to the anchor Void on ``void``: ((from, to), ...) sorted."""

    void: int
    moves: tuple[tuple[int, int], ...]
    ends_turn = True

    def to_record(self) -> dict:
        return {"type": "gravity", "void": N[self.void], "moves": {N[a]: N[b] for a, b in self.moves}}

    def __str__(self) -> str:
        pulls = ", ".join(f"{N[a]}-{N[b]}" for a, b in self.moves)
        return f"gravity around {N[self.void]}: {pulls}"


@dataclass(frozen=True, slots=True)
class Pass:
    """No turn-ending action is legal."""

    ends_turn = True

    def to_record(self) -> dict:
        return {"type": "pass"}

    def __str__(self) -> str:
        return "pass"


Action = Union[Move, Reinforce, Resurrect, Reflect, Swap, Time, Gravity, Pass]

# ``Swap.ends_turn`` depends on the mode (Classic: yes; Third Eye: no).
Swap.ends_turn = None  # type: ignore[attr-defined]

PASS = Pass()

# --- parsing the record form ---------------------------------------------------------

_FIELDS = {
    "move": ({"from", "to"}, set()),
    "reinforce": ({"to"}, set()),
    "resurrect": ({"piece", "to"}, set()),
    "reflect": ({"reflector", "from", "to"}, set()),
    "swap": ({"memory", "with"}, set()),
    "time": ({"at"}, {"target", "to"}),
    "gravity": ({"void", "moves"}, set()),
    "pass": (set(), set()),
}


def _space(data: dict, key: str) -> int:
    try:
        return parse_space(data[key])
    except InvalidError as exc:
        raise InvalidError(f"{key}: {exc}") from None


def action_from_record(data: object) -> Action:
    """Parse one ACTION of the record form; InvalidError names the bad field."""
    if not isinstance(data, dict):
        raise InvalidError("an action must be an object with a 'type'")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in _FIELDS:
        raise InvalidError(f"type: unknown action type {quoted(kind)}")
    required, optional = _FIELDS[kind]
    fields = set(data) - {"type"}
    unknown = fields - required - optional
    if unknown:
        raise InvalidError(f"{kind}: unknown field {quoted(sorted(unknown)[0])}")
    missing = required - fields
    if missing:
        raise InvalidError(f"{kind}: missing field {quoted(sorted(missing)[0])}")
    if kind == "move":
        return Move(_space(data, "from"), _space(data, "to"))
    if kind == "reinforce":
        to = data["to"]
        if not isinstance(to, dict) or not to:
            raise InvalidError("reinforce: 'to' must map one or more spaces to pieces")
        placements = []
        for name, piece in to.items():
            space = parse_space(name) if isinstance(name, str) and name in N else None
            if space is None:
                raise InvalidError(f"reinforce: to: unknown space {quoted(name)}")
            placements.append((space, parse_piece(piece, f"reinforce.to.{name}")))
        return Reinforce(tuple(sorted(placements)))
    if kind == "resurrect":
        return Resurrect(parse_piece(data["piece"], "resurrect.piece"), _space(data, "to"))
    if kind == "reflect":
        return Reflect(_space(data, "reflector"), _space(data, "from"), _space(data, "to"))
    if kind == "swap":
        return Swap(_space(data, "memory"), _space(data, "with"))
    if kind == "time":
        if ("target" in data) != ("to" in data):
            raise InvalidError("time: 'target' and 'to' go together (Third Eye form)")
        if "target" in data:
            return Time(_space(data, "at"), _space(data, "target"), _space(data, "to"))
        return Time(_space(data, "at"))
    if kind == "gravity":
        moves = data["moves"]
        if not isinstance(moves, dict) or not moves:
            raise InvalidError("gravity: 'moves' must map one or more spaces to spaces")
        pairs = []
        for a, b in moves.items():
            if not isinstance(a, str) or a not in N:
                raise InvalidError(f"gravity: moves: unknown space {quoted(a)}")
            if not isinstance(b, str) or b not in N:
                raise InvalidError(f"gravity: moves.{quoted(a)}: unknown space {quoted(b)}")
            pairs.append((parse_space(a), parse_space(b)))
        return Gravity(_space(data, "void"), tuple(sorted(pairs)))
    return PASS
