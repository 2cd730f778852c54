"""The players' inputs: their schema, the words they carry, and why one cannot be taken.

An input is the JSON a phone sends (docs/referee.md, "Inputs").  A well-formed
input that names something the board may show becomes a :class:`Word`: the
mover's declaration that the sensors cannot see (which pieces came in, that a
Memory swapped, that Time is used), or ``choose``, an exact action.  Words wait
in their player's queue until an action uses them, so a word may come before or
after the towers it is about, and a player may speak while the rival's turn is
still settling.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import words
from engine.actions import Action, action_from_record
from engine.board import PLAYERS
from engine.errors import InvalidError
from engine.pieces import parse_piece

from .matching import Step
from .notices import InputError

# What an input may hold: type -> (required fields, optional fields)
INPUTS = {
    "reinforce": ({"pieces"}, set()),
    "resurrect": ({"piece"}, set()),
    "time": (set(), set()),
    "swap": (set(), set()),
    "done": (set(), set()),
    "choose": ({"action"}, set()),
}


@dataclass(frozen=True)
class Word:
    """A player's word about an action: ``kind`` is the engine's word (reinforce, resurrect, time,
    swap) or ``choose`` (``action`` is the exact action named)."""

    player: str
    kind: str
    at: float
    pieces: tuple[str, ...] = ()  # reinforce: the pieces, sorted
    piece: str | None = None  # resurrect
    action: Action | None = None  # choose

    def fits(self, action: Action, word: str | None) -> bool:
        """Does this word allow ``action``, whose board effect needs ``word``?"""
        if self.kind == "choose":
            return action == self.action
        if word != self.kind:
            return False
        if self.kind == "reinforce":
            return tuple(sorted(p for _, p in action.placements)) == self.pieces
        if self.kind == "resurrect":
            return action.piece == self.piece
        return True

    def to_json(self) -> dict:
        if self.kind == "reinforce":
            return {"type": "reinforce", "pieces": list(self.pieces)}
        if self.kind == "resurrect":
            return {"type": "resurrect", "piece": self.piece}
        if self.kind == "choose":
            return {"type": "choose", "action": self.action.to_record()}
        return {"type": self.kind}


def check_input(player: object, data: object) -> tuple[str, dict]:
    """The input's type and fields, or InputError naming the field; nothing about the game yet."""
    if player not in PLAYERS:
        raise InputError(f"player: expected 'white' or 'black', got {player!r}")
    if not isinstance(data, dict):
        raise InputError("an input must be a JSON object with a 'type'")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in INPUTS:
        raise InputError(f"type: unknown input type {kind!r} (one of {', '.join(INPUTS)})")
    required, optional = INPUTS[kind]
    extra = set(data) - {"type"} - required - optional
    if extra:
        raise InputError(f"{kind}: unknown field {sorted(extra)[0]!r}")
    missing = required - set(data)
    if missing:
        raise InputError(f"{kind}: missing field {sorted(missing)[0]!r}")
    return kind, data


def parse_word(player: str, kind: str, data: dict, now: float) -> Word:
    """The word an input carries (not ``done``), its pieces or action parsed; InputError if malformed."""
    if kind == "reinforce":
        pieces = data["pieces"]
        if not isinstance(pieces, list) or not pieces:
            raise InputError("reinforce: pieces: expected a list of one or more pieces")
        try:
            parsed = [parse_piece(p, "reinforce: pieces") for p in pieces]
        except InvalidError as exc:
            raise InputError(str(exc)) from None
        return Word(player, kind, now, pieces=tuple(sorted(parsed)))
    if kind == "resurrect":
        try:
            piece = parse_piece(data["piece"], "resurrect: piece")
        except InvalidError as exc:
            raise InputError(str(exc)) from None
        return Word(player, kind, now, piece=piece)
    if kind == "choose":
        try:
            action = action_from_record(data["action"])
        except InvalidError as exc:
            raise InputError(f"choose: action: {exc}") from None
        return Word(player, kind, now, action=action)
    return Word(player, kind, now)


def why_not(step: Step, word: Word) -> str:
    """Why no legal action of the mover fits ``word`` now (``step``: the legal actions of this very
    state, with their board effects), in words for the mover only (it may name their own pieces).
    Empty if one does.  The reason is the engine's (``engine.words.why_not``, ``why_illegal``)."""
    game = step.game
    if word.kind == "choose":
        if word.action in step.legal:
            return ""
        return f"choose: {word.action} {game.why_illegal(word.action)}"
    if any(word.fits(c.action, c.word) for c in step.cands):
        return ""
    return words.why_not(game, word.kind, word.pieces, word.piece)  # the engine says why


__all__ = ["INPUTS", "Word", "check_input", "parse_word", "why_not"]
