"""What an action does to the board, and when two actions leave the same game.

The sensors under the board see only which spaces hold a tower.  A referee
matches what they saw against facts the engine states here, so it never
re-derives a rule (lichess over scalachess: the rules library says what a move
does, the server decides what to do with it):

- :func:`board_effect` -- a frozen :class:`BoardEffect`: the spaces an action
  empties and fills, the spaces whose tower must be lifted or placed even when
  the occupancy ends up the same (both towers of a Memory Swap), which tower
  goes from where to where, which leave or come onto the board, the flash and
  its outcome, and whether the board cannot show it without the mover's word.
- :func:`same_game_key` -- a canonical form of the game state that keeps
  everything that can change a later legal action or outcome in this mode and
  nothing that cannot.  Two actions played from one position leave the same
  game exactly when the keys after them are equal (:func:`equivalent`).

Both read the game and change nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

from .actions import Action, Gravity, Move, Pass, Reflect, Reinforce, Resurrect, Swap, Time
from .board import SPACE_NAMES
from .errors import IllegalError
from .flash import CAPTURE, SWAP
from .pieces import MEMORY

if TYPE_CHECKING:  # pragma: no cover
    from .game import Game

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


def _effect(board: list[int], carries=(), leaves=(), arrives=(), stays=(), flash: Flash | None = None,
            word: str | None = None, ends_turn: bool = True, time_outcome: str | None = None) -> BoardEffect:
    """Build an effect from its tower movements: every tower that leaves a space is lifted first,
    then every tower is put down.  ``stays``: spaces touched whose tower is back at the end."""
    touched = {s for pair in carries for s in pair}
    touched.update(leaves, arrives, stays)
    after = {s: board[s] >= 0 for s in touched}
    for a, _ in carries:
        after[a] = False
    for s in leaves:
        after[s] = False
    for _, b in carries:
        after[b] = True
    for s in arrives:
        after[s] = True
    return BoardEffect(
        emptied=frozenset(s for s, full in after.items() if not full and board[s] >= 0),
        filled=frozenset(s for s, full in after.items() if full and board[s] < 0),
        touched=frozenset(touched),
        carries=tuple(carries),
        leaves=tuple(leaves),
        arrives=tuple(arrives),
        flash=flash,
        word=word,
        ends_turn=ends_turn,
        time_outcome=time_outcome,
    )


def board_effect(game: "Game", action: Action) -> BoardEffect:
    """What ``action`` (legal now) does to the board.  Reads the game; changes nothing."""
    st = game.state
    board = st.board
    kind = type(action)
    ends = game.ends_turn(action)
    if kind is Move or kind is Reflect:
        f, t = action.frm, action.to
        defender = board[t]
        if defender < 0:
            return _effect(board, carries=((f, t),), ends_turn=ends)
        attacker = board[f]
        outcome = game.flash_outcome(attacker, defender)
        flash = Flash(f, t, game.piece[attacker], game.piece[defender], outcome)
        if outcome == CAPTURE:
            return _effect(board, carries=((f, t),), leaves=(t,), flash=flash, ends_turn=ends)
        if outcome == SWAP:
            return _effect(board, carries=((f, t), (t, f)), flash=flash, ends_turn=ends)
        return _effect(board, leaves=(f, t), flash=flash, ends_turn=ends)
    if kind is Swap:
        m, o = action.memory, action.other
        return _effect(board, carries=((m, o), (o, m)), word="swap", ends_turn=ends)
    if kind is Reinforce:
        return _effect(board, arrives=tuple(s for s, _ in action.placements), word="reinforce",
                       ends_turn=ends)
    if kind is Resurrect:
        return _effect(board, arrives=(action.to,), word="resurrect", ends_turn=ends)
    if kind is Gravity:
        return _effect(board, carries=action.moves, ends_turn=ends)
    if kind is Time:
        if action.target is not None:  # Third Eye: the Time tower leaves, the rival tower is pushed
            return _effect(board, carries=((action.target, action.to),), leaves=(action.at,),
                           word="time", ends_turn=ends, time_outcome="pushed")
        plan = game.rewind_plan(board[action.at])
        carries = tuple((now, back) for _, now, back in plan if back >= 0)
        leaves = (action.at,) + tuple(now for _, now, back in plan if back < 0)
        outcome = "failed" if st.last_action.moved_shadow else "rewound"
        return _effect(board, carries=carries, leaves=leaves, word="time", ends_turn=ends,
                       time_outcome=outcome)
    if kind is Pass:
        return _effect(board, word="pass", ends_turn=ends)
    raise TypeError(f"not an action: {action!r}")  # pragma: no cover


# --- the same game from here on ---------------------------------------------------------------


def same_game_key(game: "Game") -> tuple:
    """A canonical form of the state: equal exactly for states from which the same actions are
    legal and lead to the same outcomes, whatever follows.

    Towers of one owner and piece are interchangeable unless something tells them apart: a
    Memory's swaps left (Third Eye), a flash-back ban or a Memory Swap freeze naming the tower
    this turn, and for captured towers the turn of capture while a Resurrection still waits on
    it.  Kept: the position, reserves and captures, whose turn, Totems, Time used this turn,
    passes, the result, and in Classic the facts of the last action that the Power of Time
    reads (as pieces and spaces).  Left out: the history, who knows what (never a rule), and in
    Third Eye the last action (only Classic Time reads it).
    """
    st = game.state
    owner, piece = game.owner, game.piece
    third_eye = game.third_eye
    loc = st.loc

    def sig(t: int) -> tuple:
        swaps = st.swaps_left[t] if third_eye and piece[t] == MEMORY else 0
        return (owner[t], piece[t], swaps, t in st.frozen)

    board = tuple(sig(t) if t >= 0 else None for t in st.board)
    reserve = sorted((owner[t], piece[t]) for t in game.towers if loc[t] == -1)
    ready = st.turn - 2  # captured on this turn or before: may be resurrected (spec 8)
    captured = sorted((owner[t], piece[t], max(st.captured_turn[t], ready)) for t in game.towers if loc[t] == -2)
    ban = st.flash_ban
    ban_key = None
    if ban is not None and ban[0] >= st.turn and loc[ban[1]] >= 0 and loc[ban[2]] >= 0:
        ban_key = (ban[0], loc[ban[1]], loc[ban[2]])
    last = None
    if not third_eye and st.last_action is not None:
        la = st.last_action
        last = (la.player, tuple(sorted((sig(t), a, b) for t, a, b in la.moved)), la.captured, la.on_iris,
                la.moved_shadow)
    return (
        board,
        tuple(reserve),
        tuple(captured),
        st.turn,
        st.to_move,
        st.time_used,
        tuple(st.totem_used),
        ban_key,
        last,
        st.passes,
        st.result,
    )


def key_after(game: "Game", action: Action) -> tuple:
    """:func:`same_game_key` after ``action`` (legal now); the game is left exactly as it was."""
    if not game.is_legal(action):
        raise IllegalError(f"{action} {game.why_illegal(action)}")
    game.push(action, trusted=True)  # checked: the legal actions here come back with pop
    try:
        return same_game_key(game)
    finally:
        game.pop()


def equivalent(game: "Game", a: Action, b: Action) -> bool:
    """Do ``a`` and ``b`` (both legal now) leave the same game from here on?"""
    return a == b or key_after(game, a) == key_after(game, b)


def same_game_classes(game: "Game", actions: Iterable[Action]) -> list[list[Action]]:
    """Legal actions grouped into classes that leave the same game, in first-seen order."""
    classes: dict[tuple, list[Action]] = {}
    for a in actions:
        classes.setdefault(key_after(game, a), []).append(a)
    return list(classes.values())


__all__ = ["BoardEffect", "Flash", "WORDS", "board_effect", "same_game_key", "key_after", "equivalent",
           "same_game_classes"]
