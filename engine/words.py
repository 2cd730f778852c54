"""The mover's words: what the player to move may declare now, why a word cannot apply, and what
a Power of Time will do.

The sensors cannot see some actions' meaning (which pieces came in, that a Memory swapped, that
Time is used): the mover says them on their phone (``engine.effects.WORDS``).  Whatever such a word
means is a rule, so it is answered here, from the game (lichess over scalachess: the rules library
says, the server decides what to do with it).  The answers are facts (pieces, spaces, outcomes) and,
for a word that cannot apply, a sentence for the mover; the application words everything else.

Every answer depends only on what the mover knows (their own towers and the public board): the
mover's legal actions do.
"""

from __future__ import annotations

from dataclasses import dataclass

from .actions import Move, Reflect, Reinforce, Resurrect, Swap, Time
from .board import GATEWAYS, GRAVITY_NEIGHBORS, IRIS, SPACE_NAMES, SPACES, other
from .game import Game
from .pieces import TIME, VOID
from .state import EMPTY

N = SPACE_NAMES


@dataclass(frozen=True, slots=True)
class Declarations:
    """What the player to move may declare now.

    ``reinforce``: each set of pieces that may come in together (sorted pieces; the sets by size,
    then pieces); ``resurrect``: the pieces the Totem may bring back; ``time``: whether a Power of
    Time may be used; ``swap``: whether a Memory may swap.
    """

    reinforce: tuple[tuple[str, ...], ...]
    resurrect: tuple[str, ...]
    time: bool
    swap: bool


@dataclass(frozen=True, slots=True)
class TimeForecast:
    """What the Power of Time will do if the player to move uses it now.

    ``towers``: the spaces of the Time towers that may use it (sorted); ``outcome``: ``rewound``,
    ``failed`` (the rival's last action moved a Shadow) or ``pushed`` (Third Eye).
    """

    towers: tuple[int, ...]
    outcome: str


def declarations(game: Game) -> Declarations:
    """What the player to move may declare now (their legal actions that need their word)."""
    reinforce: list[tuple[str, ...]] = []
    resurrect: set[str] = set()
    time = swap = False
    for action in game.legal_actions():
        kind = type(action)
        if kind is Reinforce:
            pieces = tuple(sorted(p for _, p in action.placements))
            if pieces not in reinforce:
                reinforce.append(pieces)
        elif kind is Resurrect:
            resurrect.add(action.piece)
        elif kind is Time:
            time = True
        elif kind is Swap:
            swap = True
    reinforce.sort(key=lambda ps: (len(ps), ps))
    return Declarations(tuple(reinforce), tuple(sorted(resurrect)), time, swap)


def destinations(game: Game) -> dict[int, tuple[int, ...]]:
    """Where the mover's towers may go now by a move or a Reflection: start space -> destinations
    (each once, in the order of ``game.legal_actions()``; starts in the order first seen)."""
    out: dict[int, dict[int, None]] = {}
    for action in game.legal_actions():
        if type(action) is Move or type(action) is Reflect:
            out.setdefault(action.frm, {})[action.to] = None
    return {frm: tuple(to) for frm, to in out.items()}


def composable(game: Game) -> tuple[dict[int, tuple[int, ...]], tuple[int, ...]]:
    """What a list of the legal actions leaves for the mover to compose, where it would be too long:
    (Void Gravity's anchors: each of the mover's Voids off the Iris, when they have two such Voids
    or more in Third Eye, -> the empty spaces around it, in the order of the mover's towers; the
    mover's empty Gateways, where several Artificial Lights may come in at once), spaces in
    increasing order.  An anchor is offered even when the other Voids are frozen this turn (a
    Memory Swap): whether a composed action is legal is :meth:`Game.why_illegal`'s to say."""
    st = game.state
    me = st.to_move
    gravity: dict[int, tuple[int, ...]] = {}
    if game.third_eye:
        voids = [t for t in game.towers_of(me) if game.piece[t] == VOID and st.loc[t] >= 0 and st.loc[t] not in IRIS]
        if len(voids) >= 2:
            for t in voids:
                spots = tuple(sorted(s for s in GRAVITY_NEIGHBORS[st.loc[t]] if st.board[s] == EMPTY))
                if spots:
                    gravity[st.loc[t]] = spots
    gateways = tuple(sorted(g for g in GATEWAYS[me] if st.board[g] == EMPTY))
    return gravity, gateways


def time_forecast(game: Game) -> TimeForecast | None:
    """What the Power of Time will do if used now (the same whichever Time tower is used), or None
    if no Time tower of the mover's may use it."""
    uses = [a for a in game.legal_actions() if type(a) is Time]
    if not uses:
        return None
    outcome = "pushed" if game.third_eye else game.board_effect(uses[0]).time_outcome
    return TimeForecast(tuple(sorted({a.at for a in uses})), outcome)


def fits(game: Game, word: str, pieces: tuple[str, ...] = (), piece: str | None = None) -> bool:
    """Does a legal action of the mover's carry ``word`` (``reinforce`` with exactly ``pieces``,
    ``resurrect`` of ``piece``, ``time`` or ``swap``)?"""
    pieces = tuple(sorted(pieces))
    for action in game.legal_actions():
        kind = type(action)
        if word == "reinforce" and kind is Reinforce:
            if tuple(sorted(p for _, p in action.placements)) == pieces:
                return True
        elif word == "resurrect" and kind is Resurrect:
            if action.piece == piece:
                return True
        elif (word == "time" and kind is Time) or (word == "swap" and kind is Swap):
            return True
    return False


def why_not(game: Game, word: str, pieces: tuple[str, ...] = (), piece: str | None = None) -> str:
    """Why no legal action of the mover's carries ``word`` now (see :func:`fits`), as a sentence for
    the mover only (it may name their own pieces), beginning with the word.  Empty if one does."""
    if word not in ("reinforce", "resurrect", "time", "swap"):
        raise ValueError(f"word: expected reinforce, resurrect, time or swap, got {word!r}")
    if fits(game, word, pieces, piece):
        return ""
    me = game.to_move
    board = game.state.board
    if word == "reinforce":
        free = [g for g in GATEWAYS[me] if board[g] == EMPTY]
        if not free:
            return "reinforce is not possible: none of your Gateways is empty"
        if len(pieces) > len(free):
            return f"reinforce is not possible: only {len(free)} of your Gateways are empty"
        why = game.why_illegal(Reinforce(tuple(sorted(zip(free, sorted(pieces))))))
        return "reinforce " + (why or "is not legal now")
    if word == "resurrect":
        free = [g for g in GATEWAYS[other(me)] if board[g] == EMPTY]
        if not free:
            return "resurrect is not possible: none of your rival's Gateways is empty"
        return f"resurrect {piece} " + (game.why_illegal(Resurrect(piece, free[0])) or "is not legal now")
    if word == "time":
        mine = [s for s in SPACES if (t := board[s]) != EMPTY and game.owner[t] == me and game.piece[t] == TIME]
        if not mine:
            return "time is not possible: you have no Time tower on the board"
        if game.third_eye:
            return "time is not possible: no rival tower can be pushed back now"
        return "time " + (game.why_illegal(Time(mine[0])) or "is not legal now")
    return "swap is not possible: no Memory of yours can swap now"


__all__ = ["Declarations", "TimeForecast", "composable", "declarations", "destinations", "fits", "time_forecast",
           "why_not"]
