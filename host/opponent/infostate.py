"""The opponent's information state, rebuilt from what one player may know.

Input is ``engine.views.view(game, player)`` and nothing else: the player's own
setup, the board as they see it (rival identities only where revealed), the
reserves and Zero Gravity boards, and the history and events as they saw them
(a rival's Reflection as a move, a Memory Swap as two spaces trading towers,
Void Gravity as towers moving, a single reinforcement without its piece).

The engine replays that history tower by tower (``engine.seen.seen_game``: the
seen board, every tower as a token, and the per-turn facts the rules need: the
rival's last action for Classic Time, the no-flash-back ban, Memory swaps used,
the towers swapped this turn, when each tower was captured).  This module adds
only what the opponent infers from it.  What each rival token did narrows what
it can be:

- the distance and the kind of path of every move it made (a Void moves 1, a
  long jump along a Sight Line next to a rival tower can be a Reflection, so a
  Light or an Artificial Light; only a Peripheral enters the Horizon, ...:
  ``engine.seen.could_have_moved``);
- a tower on the board from the start is never an Artificial Light;
- a tower that Void Gravity moved is a Void; one of two towers that traded
  places is a Memory;
- a Power of Time that rewound an action: no tower of that action was a Shadow;
- every flash, failed Time, declared Power and Resurrection reveals identities
  (the view's board already shows them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.board import FIRST_SIGHT, PLAYERS, other
from engine.flash import THIRD_EYE
from engine.pieces import ARTIFICIAL_LIGHT, PIECES, SHADOW, VOID, Setup
from engine.seen import BOARD, CAPTURED, GONE, SeenGame, could_have_moved, seen_board, seen_game
from engine.seen import SeenLastAction as LastAction

from .tables import LIGHT_MOVES

ALL_PIECES = frozenset(PIECES)
NOT_AT_START = ALL_PIECES - {ARTIFICIAL_LIGHT}
NOT_SHADOW = ALL_PIECES - {SHADOW}


@dataclass
class Token:
    """One tower as a player at the table follows it."""

    owner: str
    piece: str | None  # known identity: own towers always, rival towers once revealed
    allowed: frozenset[str]  # what a rival token can still be (own tokens: their piece)
    where: str = BOARD
    space: int = -1
    captured_turn: int = 0
    swaps: int = 0  # Memory Swaps it took part in (for a rival Memory's swaps left)
    acted_swaps: int = 0  # own Memory: swaps it made as the acting Memory
    public: bool = False  # both players know it (revealed)
    approach: int = 0  # its moves that brought it nearer to First Sight (a running Light?)


@dataclass
class InfoState:
    """Everything ``me`` knows, ready for sampling worlds."""

    me: str
    mode: str
    turn: int
    to_move: str | None
    over: bool
    setup: Setup  # my own setup
    tokens: list[Token]
    rival_reserve: int  # how many rival towers wait in reserve
    totem_used: dict[str, bool]
    time_used: bool = False
    frozen: frozenset[int] = frozenset()  # tokens swapped by Memory this turn
    flash_ban: tuple[int, int, int] | None = None  # (turn, defender token, attacker token)
    last_action: LastAction | None = None
    passes: int = 0
    memory_pairs: list[tuple[int, int]] = field(default_factory=list)  # one of each pair is a Memory
    from_history: bool = True  # False: the history did not replay; constraints were dropped
    my_last_move: tuple[int, int] | None = None  # (from, to) of my previous turn's move, if it was one

    @property
    def rival(self) -> str:
        return other(self.me)

    def on_board(self, owner: str | None = None) -> list[int]:
        return [i for i, t in enumerate(self.tokens) if t.where == BOARD and (owner is None or t.owner == owner)]

    def unknown_rival(self) -> list[int]:
        return [i for i in self.on_board(self.rival) if self.tokens[i].piece is None]

    def key(self) -> tuple:
        """A stable summary, for seeding: two equal information states give equal keys."""
        toks = tuple(
            (t.owner, t.piece, tuple(sorted(t.allowed)), t.where, t.space, t.captured_turn, t.swaps, t.approach)
            for t in self.tokens
        )
        return (self.me, self.mode, self.turn, self.to_move, toks, self.rival_reserve, self.time_used,
                tuple(sorted(self.frozen)), self.passes, self.my_last_move)


def _tokens(seen: SeenGame) -> tuple[list[Token], list[tuple[int, int]], tuple[int, int] | None]:
    """The engine's seen towers as tokens, narrowed by what each did; also the pairs of towers of a
    rival Memory Swap (one is a Memory) and my last move (from, to) if my last turn ended with one."""
    me, rival = seen.viewer, seen.rival
    tokens = []
    for t in seen.towers:
        allowed = frozenset((t.piece,)) if t.piece else NOT_AT_START if t.at_start else ALL_PIECES
        tokens.append(Token(t.owner, t.piece, allowed, t.where, t.space, t.captured_turn, t.swaps,
                            t.acted_swaps, t.public))

    def narrow(tok: int, pieces: frozenset[str]) -> None:
        t = tokens[tok]
        if t.owner == rival and t.piece is None:
            narrowed = t.allowed & pieces
            if narrowed:  # never empty: a wrong deduction must not make the state impossible
                t.allowed = narrowed

    pairs: list[tuple[int, int]] = []
    my_last: tuple[int, int] | None = None
    third_eye = seen.mode == THIRD_EYE
    vision = seen.vision
    for act in seen.actions:
        kind, actor = act.kind, act.actor
        if kind in ("move", "reflect"):
            if kind == "move" and actor == rival and not vision:
                narrow(act.tower, could_have_moved(act.frm, act.to, act.board_before, seen.towers, third_eye,
                                                   act.accelerated))
            if LIGHT_MOVES[act.to] < LIGHT_MOVES[act.frm]:
                tokens[act.tower].approach += 1
            if actor == me and act.to != FIRST_SIGHT:
                my_last = (act.frm, act.to)
        elif act.swapped is not None and actor == rival:
            pairs.append(act.swapped)
        elif act.pulled and actor == rival:
            for tok in act.pulled:
                narrow(tok, frozenset((VOID,)))
        for tok, a, b in act.rewound:
            if tokens[tok].owner == other(actor) and a != b:
                narrow(tok, NOT_SHADOW)
        if actor == me and kind not in ("move", "reflect") and act.ended_turn:
            my_last = None
    return tokens, pairs, my_last


def info_state(view: dict) -> InfoState:
    """The information state of ``view``'s viewer (a player's view from ``engine.views.view``)."""
    me = view.get("viewer")
    if me not in PLAYERS:
        raise ValueError("the opponent needs a player's view, not the public one")
    try:
        seen = seen_game(view)
    except ValueError:  # (SeenMismatch: never expected) without the history: the board as the view shows it
        seen = seen_board(view)
    return info_from_seen(view, seen)


def info_from_seen(view: dict, seen: SeenGame, *, infer: bool = True) -> InfoState:
    """The information state of ``view`` from its seen game (``engine.seen``).  ``infer`` False
    takes the seen towers as they are: a rival token may be anything it is not known to be (no
    deductions from what it did, no Memory pairs)."""
    if infer:
        tokens, pairs, my_last = _tokens(seen)
    else:
        tokens = [Token(t.owner, t.piece, frozenset((t.piece,)) if t.piece else ALL_PIECES, t.where, t.space,
                        t.captured_turn, t.swaps, t.acted_swaps, t.public) for t in seen.towers]
        pairs, my_last = [], None
    result = view["result"]
    return InfoState(
        me=seen.viewer,
        mode=view["mode"],
        turn=view["turn"],
        to_move=view["to_move"],
        over=result["status"] != "ongoing",
        setup=seen.setup,
        tokens=tokens,
        rival_reserve=seen.rival_reserve,
        totem_used=dict(view["totem_used"]),
        time_used=seen.time_used,
        frozen=seen.frozen,
        flash_ban=seen.flash_ban,
        last_action=seen.last_action,
        passes=seen.passes,
        memory_pairs=pairs,
        from_history=seen.from_history,
        my_last_move=my_last,
    )


__all__ = ["InfoState", "Token", "LastAction", "info_from_seen", "info_state", "BOARD", "CAPTURED", "GONE"]
