"""What the referee's status says to each audience, apart from the machine.

The public status (the status page, both seats, the LEDs), each player's private status,
and what the referee waits for in words, all read from the referee's state (a frozen
value, ``host.referee.states``) and never change it.  The shapes of the question, the
announced Time and the flash are the same in the notices that announce them
(docs/referee.md lists each field).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.actions import PASS
from engine.board import PLAYERS, SPACE_NAMES as N

from . import wording
from .corrections import corrections, say_list
from .states import FlashHeld, Phase, Question, TimeAnnounced

if TYPE_CHECKING:  # pragma: no cover
    from engine.effects import Flash

    from .machine import Referee


def public(ref: Referee) -> dict:
    """What anyone may see: the game's phase, the flash and the Time announced, what to do on the board."""
    game = ref.game
    cur = ref.current
    turn, to_move = game.turn, None if game.is_over() else game.to_move
    if cur.phase is Phase.FOLLOW and cur.follow.player:
        # the rival's action played elsewhere is the rival's turn until the board shows it
        turn, to_move = cur.follow.turn, cur.follow.player
    return {
        "phase": ref.phase,
        "turn": turn,
        "to_move": to_move,
        "following": cur.follow.player if cur.phase is Phase.FOLLOW else None,
        "result": game.result.to_json() if game.result else None,
        "flash": held_json(cur.flash) if cur.flash else None,
        "time": time_json(cur.time),
        "instructions": list(ref.public_instructions),
        "expected": sorted(N[s] for s in ref.expected()),
        "board": sorted(N[s] for s in ref.deb.stable),
        "waiting_for": waiting_for(ref),
    }


def private(ref: Referee, player: str) -> dict:
    """What ``player`` alone may see: the question asked of them, their words, their corrections."""
    if player not in PLAYERS:
        raise ValueError(f"unknown player {player!r}")
    cur = ref.current
    q = cur.question if cur.question and cur.question.player == player else None
    time = cur.time
    words = ref.words[player]
    return {
        "player": player,
        "question": question_json(q) if q else None,
        "rejected": ref.rejected[player],
        "instructions": list(ref.private_instructions[player]),
        "declared": words[0].to_json() if words else None,
        "words": [w.to_json() for w in words],
        # the announced Power of Time's towers, when only the mover may know where they stand
        "time_towers": list(time.private_towers) if time and time.player == player else [],
    }


def waiting_for(ref: Referee) -> str:
    """What the referee waits for, as the public may hear it."""
    game = ref.game
    if game.is_over():
        return wording.waiting_for("over", "", None, False)
    cur = ref.current
    flash = cur.flash
    flash_at = N[flash.flash.at] if flash else None
    mover = cur.follow.player or game.to_move if cur.phase is Phase.FOLLOW else game.to_move
    return wording.waiting_for(ref.phase, mover, flash_at, ref.state is Phase.TIME, ref.state.value)


def stuck_reason(ref: Referee) -> str:
    """What the referee is waiting for, in words (for whoever holds the whole game, e.g. the CLI)."""
    game = ref.game
    deb = ref.deb
    cur = ref.current
    S = deb.stable
    if cur.phase is Phase.OVER:
        return "nothing: the game is over"
    if cur.phase in (Phase.SETUP, Phase.SYNC):
        return f"{waiting_for(ref)}: {say_list(corrections(S, game.occupied())) or 'a settled board'}"
    if deb.pending:
        return "the board to settle (sensors " + ", ".join(N[s] for s in sorted(deb.pending)) + " still changing)"
    if cur.phase is Phase.FLASH:
        return f"{waiting_for(ref)}: {say_list(corrections(S, cur.flash.result))}"
    if cur.phase is Phase.HUB:
        return f"{waiting_for(ref)} (about the {cur.consult.kind} of {game.to_move})"
    if cur.phase is Phase.FOLLOW:
        todo = say_list(corrections(S, cur.follow.expected))
        return f"{waiting_for(ref)}: {cur.follow.plan.get('text', '')}" + (f" ({todo})" if todo else "")
    player = game.to_move
    asked = cur.question
    if asked is not None and asked.options != (PASS,):
        opts = ", ".join(str(a) for a in asked.options)
        return f"{player} to answer a question ({asked.text}): {opts}"
    if cur.phase is Phase.TIME:
        todo = say_list(ref.public_instructions)
        return f"{waiting_for(ref)}: {todo}" if todo else waiting_for(ref)
    words = ref.words[player]
    if words:
        return f"{player}'s declared action on the board ({wording.word_text(words[0])})"
    if S != ref.step.base:
        todo = corrections(S, ref.step.base)
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
