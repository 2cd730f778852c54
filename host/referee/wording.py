"""What the referee says to people, in one place.

Every sentence a player or the table reads comes from here.  Texts for the
public name pieces only where a flash or the Power of Time reveals them;
texts for one player may name that player's own pieces.
"""

from __future__ import annotations

from engine.board import other
from engine.flash import CAPTURE, SWAP

from .inputs import Word


def flash_text(mover: str, frm: str, at: str, attacker: str, defender: str, outcome: str) -> str:
    a, d = attacker.replace("_", " "), defender.replace("_", " ")
    if outcome == CAPTURE:
        return f"{a} flashes {d} on {at}: capture. The {d} goes to {mover}'s Zero Gravity; the {a} stands on {at}"
    if outcome == SWAP:
        return f"{a} flashes {d} on {at}: swap. The {a} stands on {at}, the {d} goes to {frm}"
    return (f"{a} flashes {d} on {at}: mutual destruction. Both leave the board: the {a} to "
            f"{other(mover)}'s Zero Gravity, the {d} to {mover}'s")


def time_text(mover: str, third_eye: bool, outcome: str | None, where: str) -> str:
    rival = other(mover)
    if third_eye:
        return (f"{mover} uses the Power of Time: put the Time tower from {where} on {rival}'s Zero "
                f"Gravity, then push one of {rival}'s towers 1 to 3 spaces back along its Sight Line")
    if outcome == "rewound":
        return f"{mover} uses the Power of Time: {rival}'s last action is undone"
    return (f"{mover} uses the Power of Time: it fails, {rival}'s last action moved a Shadow; "
            f"only the Time tower leaves the board")


def time_tower_off(space: str, rival: str) -> str:
    return f"put the Time tower from {space} on {rival}'s Zero Gravity"


def move_back(frm: str, to: str) -> str:
    return f"move the tower on {frm} back to {to}"


def back_off_board(space: str, rival: str) -> str:
    return f"return the tower on {space} to {rival}'s Zero Gravity"


def lift_time_tower(names: list[str]) -> str:
    return f"take one of your Time towers (on {' or '.join(names)}) off the board: the one that leaves is the one used"


def time_tower_one_off(mover: str, rival: str, names: list[str]) -> str:
    """With several Time towers on the board: whichever leaves is the one used (``names`` only for
    the mover, or in Vision Mode, where every tower is face up)."""
    where = f" (on {' or '.join(names)})" if names else ""
    return f"take one of {mover}'s Time towers{where} off the board and put it on {rival}'s Zero Gravity"


def word_text(word: Word) -> str:
    """The acknowledgement of a declaration, to the mover."""
    kind = word.kind
    if kind == "reinforce":
        n = len(word.pieces)
        return f"place the {'tower' if n == 1 else f'{n} towers'} on your empty Gateway{'s' if n > 1 else ''}"
    if kind == "resurrect":
        return f"place the resurrected {word.piece} on an empty Gateway of your rival"
    if kind == "time":
        return "carry out the Power of Time on the board"
    if kind == "swap":
        return "swap your Memory with the other tower on the board (lift both, put each on the other's space)"
    return f"play {word.action} on the board"


QUEUED = "noted: it counts when your turn begins"
AFTER = "noted: it counts once the board shows what you did before it"
ALREADY = "nothing to finish: your action is recorded"
ASK_SEVERAL = "the board fits several actions: which one did you play?"
ASK_FLASH = "several flashes fit the board: which one?"
ASK_SWAP = "did you swap? choose the swap, or send done if you did not"
ASK_WHICH_TOWER = "which tower did you bring in? (send done if you brought none in)"
ASK_WHICH = "which action did you play? (send done if none of these)"
ASK_PASS = "you have no turn-ending action: send done to pass, or use Time or your Totem first"
NO_SWAP = "no swap: carry on"
NONE_OF_THEM = "none of them: the board is read again"
LAPSED_BACK = "the question lapsed: the board is back as it was"
LAPSED = "the question lapsed: the board now shows something else"
NOT_FINISHED = "the board does not show a finished action yet"
SETTLED = "the board has settled"
AS_IT_WAS = "the board is as it was"
WAITING_FOR_HUB = "waiting for the hub: it holds the rival's towers and says what this reveals"


def board_back(todo_text: str) -> str:
    """The board changed on the turn of a player this board does not read (remote play)."""
    return f"the board does not match the game: {todo_text}"


def follow_fix(todo_text: str) -> str:
    """The rival's action (played elsewhere) carried out wrong on this board."""
    return f"the board does not show the rival's action yet: {todo_text}"


def followed(to_move: str) -> str:
    return f"done: the board shows the rival's action; {to_move} to play"


def unsettled(spaces: list[str]) -> str:
    return ("the board does not settle: the sensor on " + ", ".join(spaces)
            + " keeps changing; steady the tower there or check its sensor")


def mismatch(reason: str | None, todo_text: str, back_to_start: bool) -> str:
    text = ("the board does not show a legal action: put it back: " if back_to_start
            else "the board does not match: ") + todo_text
    return f"{reason}. {text}" if reason else text


def started(to_move: str) -> str:
    return f"the board is set: {to_move} to play"


def setup_text(phase: str, todo_text: str) -> str:
    what = "set up both lineups" if phase == "setup" else "put the board back as the game stands"
    return f"{what}: {todo_text}"


def waiting_for(phase: str, to_move: str, flash_at: str | None, timing: bool, state: str = "") -> str:
    if state == "hub":
        return "the hub's answer"
    if state == "follow":
        return f"{to_move}'s action, played from afar, to be carried out on the board"
    if phase == "over":
        return "the game is over"
    if phase in ("setup", "sync"):
        return "the board to be set up" if phase == "setup" else "the board to match the game"
    if flash_at:
        return f"the flash on {flash_at} to be resolved on the board"
    if timing:
        return f"{to_move}'s Power of Time to be carried out on the board"
    return f"{to_move} to play"
