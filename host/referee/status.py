"""What the referee's status says to each audience, apart from the machine.

The public status (the status page, both seats, the LEDs), each player's private status,
and what the referee waits for in words, all read from a :class:`View`: a frozen snapshot of
the referee's state that :meth:`host.referee.machine.Referee.view` takes (nothing here reads the
referee itself, or could change it).  The shapes of the question, the announced Time and the
flash are the same in the notices that announce them (docs/referee.md lists each field).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.actions import PASS
from engine.board import PLAYERS, SPACE_NAMES as N

from . import wording
from .corrections import corrections, say_list
from .states import FlashHeld, Phase, Question, State, TimeAnnounced

if TYPE_CHECKING:  # pragma: no cover
    from engine.effects import Flash

    from .inputs import Word


@dataclass(frozen=True)
class View:
    """What the status texts read of the referee, at one moment."""

    phase: str  # the coarse phase the pages show: setup, sync, play or over
    current: State  # what it waits for, and holds meanwhile
    turn: int
    to_move: str
    over: bool
    result: dict | None
    occupied: frozenset[int]  # the game's occupancy
    public_instructions: tuple[dict, ...]
    private_instructions: dict[str, tuple[dict, ...]]
    words: dict[str, tuple[Word, ...]]  # each player's words waiting to be used
    rejected: dict[str, str | None]
    expected: frozenset[int]  # the occupancy the public expects
    stable: frozenset[int]  # the debounced board
    pending: frozenset[int]  # spaces still changing
    base: frozenset[int] | None  # the occupancy the step began from

    @property
    def state(self) -> Phase:
        return self.current.phase


def public(v: View) -> dict:
    """What anyone may see: the game's phase, the flash and the Time announced, what to do on the board."""
    cur = v.current
    turn, to_move = v.turn, None if v.over else v.to_move
    if cur.phase is Phase.FOLLOW and cur.follow.player:
        # the rival's action played elsewhere is the rival's turn until the board shows it
        turn, to_move = cur.follow.turn, cur.follow.player
    return {
        "phase": v.phase,
        "turn": turn,
        "to_move": to_move,
        "following": cur.follow.player if cur.phase is Phase.FOLLOW else None,
        "result": v.result,
        "flash": held_json(cur.flash) if cur.flash else None,
        "time": time_json(cur.time),
        "instructions": list(v.public_instructions),
        "expected": sorted(N[s] for s in v.expected),
        "board": sorted(N[s] for s in v.stable),
        "waiting_for": waiting_for(v),
    }


def private(v: View, player: str) -> dict:
    """What ``player`` alone may see: the question asked of them, their words, their corrections."""
    if player not in PLAYERS:
        raise ValueError(f"unknown player {player!r}")
    cur = v.current
    q = cur.question if cur.question and cur.question.player == player else None
    time = cur.time
    words = v.words[player]
    return {
        "player": player,
        "question": question_json(q) if q else None,
        "rejected": v.rejected[player],
        "instructions": list(v.private_instructions[player]),
        "declared": words[0].to_json() if words else None,
        "words": [w.to_json() for w in words],
        # the announced Power of Time's towers, when only the mover may know where they stand
        "time_towers": list(time.private_towers) if time and time.player == player else [],
    }


def waiting_for(v: View) -> str:
    """What the referee waits for, as the public may hear it."""
    if v.over:
        return wording.waiting_for("over", "", None, False)
    cur = v.current
    flash = cur.flash
    flash_at = N[flash.flash.at] if flash else None
    mover = cur.follow.player or v.to_move if cur.phase is Phase.FOLLOW else v.to_move
    return wording.waiting_for(v.phase, mover, flash_at, v.state is Phase.TIME, v.state.value)


def stuck_reason(v: View) -> str:
    """What the referee is waiting for, in words (for whoever holds the whole game, e.g. the CLI)."""
    cur = v.current
    S = v.stable
    if cur.phase is Phase.OVER:
        return "nothing: the game is over"
    if cur.phase in (Phase.SETUP, Phase.SYNC):
        return f"{waiting_for(v)}: {say_list(corrections(S, v.occupied)) or 'a settled board'}"
    if v.pending:
        return "the board to settle (sensors " + ", ".join(N[s] for s in sorted(v.pending)) + " still changing)"
    if cur.phase is Phase.FLASH:
        return f"{waiting_for(v)}: {say_list(corrections(S, cur.flash.result))}"
    if cur.phase is Phase.HUB:
        return f"{waiting_for(v)} (about the {cur.consult.kind} of {v.to_move})"
    if cur.phase is Phase.FOLLOW:
        todo = say_list(corrections(S, cur.follow.expected))
        return f"{waiting_for(v)}: {cur.follow.plan.get('text', '')}" + (f" ({todo})" if todo else "")
    player = v.to_move
    asked = cur.question
    if asked is not None and asked.options != (PASS,):
        opts = ", ".join(str(a) for a in asked.options)
        return f"{player} to answer a question ({asked.text}): {opts}"
    if cur.phase is Phase.TIME:
        todo = say_list(v.public_instructions)
        return f"{waiting_for(v)}: {todo}" if todo else waiting_for(v)
    words = v.words[player]
    if words:
        return f"{player}'s declared action on the board ({wording.word_text(words[0])})"
    if S != v.base:
        todo = corrections(S, v.base)
        return f"{player}'s board change to match a legal action (or be put back: {say_list(todo)})"
    return f"{player} to play"


# --- the sub-states as each audience hears them ---------------------------------------------------


def flash_json(turn: int, player: str, fl: Flash) -> dict:
    """A flash as the public hears it: both towers revealed, the outcome in words."""
    return {"turn": turn, "player": player, **fl.to_json(),
            "text": wording.flash_text(player, N[fl.frm], N[fl.at], fl.attacker, fl.defender, fl.outcome)}


def held_json(held: FlashHeld) -> dict:
    """The flash held, as the public hears it."""
    return flash_json(held.turn, held.player, held.flash)


def question_json(q: Question) -> dict:
    """A question, as the mover it is asked of hears it."""
    return {"options": [a.to_record() for a in q.options], "text": q.text}


def time_json(time: TimeAnnounced | None) -> dict | None:
    """The announced Time as the public hears it (not the towers only the mover may know)."""
    if not time:
        return None
    return {"turn": time.turn, "player": time.player, "time_towers": list(time.towers), "outcome": time.outcome,
            "text": time.text, "instructions": list(time.instructions)}
