"""The game: whole-state undo, legal action generation, applying actions.

The :class:`Game` holds the truth (every tower's identity).  Nothing leaves it
but through ``engine.views.view``, the events it records (public facts: flashes
and Time), and the legal actions for the player to move: ``game.legal``, a lazy
view like python-chess's ``legal_moves`` (membership checks one action), or
``game.legal_actions()``, the list.  A game starts from two setups, or from a
position (:meth:`Game.from_position`); what an action does to the board and
when two actions leave the same game are stated here too (``Game.board_effect``,
``Game.same_game_key``; their types are in ``engine.effects``).

Undo is a stack of whole states (python-chess's ``push``/``pop``): no
incremental undo to get wrong.  The state and the names of its values are in
``engine.state``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import combinations, permutations

from .actions import (
    PASS,
    Action,
    Gravity,
    Move,
    Pass,
    Reflect,
    Reinforce,
    Resurrect,
    Swap,
    Time,
)
from .board import (
    BLACK,
    FIRST_SIGHT,
    GATEWAYS,
    GRAVITY_NEIGHBORS,
    HALF,
    HORIZON_REFLECT_TARGETS,
    IRIS,
    IS_HORIZON,
    LINE_OF,
    LINE_STEP_NEIGHBORS,
    PLAYERS,
    PUSH_PATHS,
    RAY_FIRST_SIGHT,
    RAY_HORIZON,
    RAY_RING,
    RAYS,
    REFLECT_TARGETS,
    RING_NEIGHBORS,
    SPACE_IDS,
    SPACE_NAMES,
    SPACES,
    WHITE,
    other,
)
from .effects import BoardEffect, Flash, effect_of
from .errors import IllegalError, InvalidError, quoted
from .flash import CAPTURE, CLASSIC, FLASH_TABLE, MODES, MUTUAL, SWAP, THIRD_EYE
from .pieces import (
    ACCELERATED_RANGE,
    ARTIFICIAL_LIGHT,
    CLONES,
    LIGHT,
    MEMORY,
    NOT_REMOVABLE,
    PERIPHERAL,
    PIECES,
    RANGE,
    REFLECTOR,
    SHADOW,
    TIME,
    VOID,
    Setup,
    parse_piece,
    piece_set,
)
from .state import BOTH, CAPTURED, EMPTY, INDEX, RESERVE, LastAction, State

N = SPACE_NAMES
N_SPACES = len(SPACES)

# Interned actions: generation hands out these objects instead of building new ones.
_MOVES = [[Move(a, b) for b in SPACES] for a in SPACES]

# RAYS with, for each path, the index where it first enters the Horizon (its length if never);
# a path along the Horizon itself never "enters" it.
_RAYS = tuple(
    tuple(
        (kind, path, skip, len(path) if kind == RAY_HORIZON
         else next((i for i, t in enumerate(path) if IS_HORIZON[t]), len(path)))
        for kind, path, skip in rays
    )
    for rays in RAYS
)

# Void Gravity is most of Third Eye's legal actions; generation builds them without the frozen
# dataclass __init__ (an object.__setattr__ call per field), setting the slots directly: the same
# object, about a third cheaper to make.
_NEW_GRAVITY = (object.__new__, Gravity.__dict__["void"].__set__, Gravity.__dict__["moves"].__set__)

_GRAVITY_PICKS: dict[tuple[int, int, int], tuple[tuple[int, ...], ...]] = {}


def _gravity_picks(sources: int, spots: int, k: int) -> tuple[tuple[int, ...], ...]:
    """Void Gravity pulling ``k`` of ``sources`` Voids onto ``k`` of ``spots`` empty spaces: every
    choice as indexes into the ``sources x spots`` (source, spot) pairs, sources in increasing
    order, each destination once; in the order of combinations of sources, then permutations of
    spots.  Built once per shape."""
    key = (sources, spots, k)
    picks = _GRAVITY_PICKS.get(key)
    if picks is None:
        picks = tuple(
            tuple(i * spots + j for i, j in zip(chosen, dests))
            for chosen in combinations(range(sources), k)
            for dests in permutations(range(spots), k)
        )
        _GRAVITY_PICKS[key] = picks
    return picks

FIRST_SIGHT_WIN = "first_sight"
LIGHT_CAPTURED = "light_captured"
TWO_PASSES = "passes"
# Ends that are no move of the game (docs/rules.md, "How a game may end"): a player resigns, the
# rival claims a game its opponent abandoned (remote play's absence), or a player's clock runs out
# (match play, docs/rules.md "Clocks").  The record names them in its ``termination``
# (engine/record.py); the winner is the other side.
RESIGNATION = "resignation"
ABANDONMENT = "abandonment"
TIME_FORFEIT = "time"
TERMINATIONS = (RESIGNATION, ABANDONMENT, TIME_FORFEIT)


@dataclass(frozen=True)
class Outcome:
    """How the game ended: ``status`` is "won" or "drawn"."""

    status: str
    winner: str | None
    reason: str

    def to_json(self) -> dict:
        return {"status": self.status, "winner": self.winner, "reason": self.reason}


@dataclass(frozen=True)
class FlashEvent:
    turn: int
    at: int
    attacker: str
    defender: str
    outcome: str
    attacker_owner: str

    def to_json(self) -> dict:
        return {
            "type": "flash",
            "turn": self.turn,
            "at": N[self.at],
            "attacker": self.attacker,
            "defender": self.defender,
            "outcome": self.outcome,
        }


@dataclass(frozen=True)
class TimeEvent:
    turn: int
    outcome: str  # "rewound" | "failed" | "pushed"
    player: str

    def to_json(self) -> dict:
        return {"type": "time", "turn": self.turn, "outcome": self.outcome}


class Game:
    """A game of Quin from its setups, mode and first player."""

    def __init__(
        self,
        white: Setup,
        black: Setup,
        mode: str = CLASSIC,
        vision: bool = False,
        first: str = WHITE,
    ):
        if mode not in MODES:
            raise InvalidError(f"mode: unknown mode {quoted(mode)} (classic or third_eye)")
        if first not in PLAYERS:
            raise InvalidError(f"first: unknown player {quoted(first)} (white or black)")
        towers: list[tuple[str, str, int]] = []  # (owner, piece, location)
        for player, setup in ((WHITE, white), (BLACK, black)):
            towers += [(player, p, space) for space, p in setup.lineup]
            towers += [(player, p, RESERVE) for p in PIECES for _ in range(setup.reserve[p])]
        self._start({WHITE: white, BLACK: black}, mode, vision, first, towers)

    def _start(self, setups: dict[str, Setup], mode: str, vision: bool, first: str,
               towers: list[tuple[str, str, int]]) -> None:
        """The game's fixed facts and its first state: ``towers`` as (owner, piece, location: a
        space or RESERVE), ``first`` to move, every other field as at the start of a game."""
        self.mode = mode
        self.third_eye = mode == THIRD_EYE
        self.vision = bool(vision)
        self.first = first
        self.setups = setups
        self._flash = FLASH_TABLE[mode]
        self.owner: tuple[str, ...] = tuple(o for o, _, _ in towers)
        self.piece: tuple[str, ...] = tuple(p for _, p, _ in towers)
        self.towers = range(len(towers))
        self._towers_of = {p: tuple(t for t in self.towers if self.owner[t] == p) for p in PLAYERS}
        owner, piece = self.owner, self.piece
        n = len(towers)
        state = State()
        state.board = [EMPTY] * len(SPACES)
        state.loc = [where for _, _, where in towers]
        for t, where in enumerate(state.loc):
            if where >= 0:
                state.board[where] = t
        state.captured_turn = [0] * n
        state.known = [BOTH if vision else 1 << INDEX[owner[t]] for t in range(n)]
        state.swaps_left = [2 if piece[t] == MEMORY and self.third_eye else 0 for t in range(n)]
        state.turn = 1
        state.to_move = first
        state.time_used = False
        state.totem_used = [False, False]
        state.frozen = frozenset()
        state.flash_ban = None
        state.last_action = None
        state.passes = 0
        state.result = None
        self.state = state
        self._stack: list[tuple[State, int, int, list | None]] = []
        self.events: list[FlashEvent | TimeEvent] = []
        self.log: list[tuple[int, str, Action]] = []  # (turn, player, action)
        self._legal_cache: list[Action] | None = None

    @classmethod
    def from_position(
        cls,
        board: Mapping[int | str, tuple[str, str]],
        to_move: str = WHITE,
        *,
        mode: str = CLASSIC,
        vision: bool = False,
        sets: Mapping[str, tuple[str, str]] | None = None,
        reserve: Mapping[str, Iterable[str]] | None = None,
        captured: Mapping[str, Iterable[str | tuple[str, int]]] | None = None,
        turn: int = 1,
        passes: int = 0,
        time_used: bool = False,
        totem_used: Iterable[str] = (),
        revealed: Iterable[int | str] = (),
        swaps_left: Mapping[int | str, int] | None = None,
        frozen: Iterable[int | str] = (),
        flash_ban: tuple[int | str, int | str] | None = None,
        last_action: Mapping | None = None,
    ) -> Game:
        """A game from a position rather than from the start (python-chess's ``Board(fen)``).

        ``board``: {space: (owner, piece)}, spaces as ids or names.  Each player's towers off the
        board are in ``reserve[player]`` (pieces) or ``captured[player]`` (their pieces on the
        rival's Zero Gravity, each a piece or (piece, turn it was captured); a bare piece was
        captured long ago, so it may be resurrected).  With ``sets[player]`` = (clone, removed)
        the player's 17 towers are known, and whichever of reserve/captured is not given holds the
        rest (reserve if neither is); without it, board, reserve and captured must together be a
        17-tower set, and the clone and removed piece are read from it.

        The rest of the state, all defaulting to a turn's start: ``turn``; ``passes`` (1: the
        rival's last turn was a pass); ``time_used`` (Classic Time used this turn);
        ``totem_used`` (players); ``revealed`` (spaces whose tower both players know; captured
        towers always are, and in Vision Mode every tower); Third Eye ``swaps_left`` {Memory's
        space: 0..2, default 2} and ``frozen`` (spaces of the mover's towers swapped by Memory this
        turn); ``flash_ban`` (a, b): the mover's tower on a was flashed by the tower on b and may
        not flash it back this turn; ``last_action``, what the rival's last turn-ending action did,
        for the Classic Power of Time: {"moves": [(from, to), ...], "captured": bool, "on_iris":
        bool}, ``from`` a space or RESERVE, the moved tower the one now on ``to``.

        Towers are numbered white's first, then black's; each player's: those on the board in
        space order, then the captured in the order given, then the reserve in piece order.

        Bad input raises InvalidError (a ValueError) naming the field and space; nothing is built.
        The game has no history, and its setups have empty lineups (it was not set up), so it has
        no ``quin-record/1``.
        """
        return _PositionReader(cls).read(
            board, to_move, mode, vision, sets, reserve, captured, turn, passes, time_used,
            totem_used, revealed, swaps_left, frozen, flash_ban, last_action)

    # --- small queries ----------------------------------------------------------------

    @property
    def turn(self) -> int:
        return self.state.turn

    @property
    def to_move(self) -> str:
        return self.state.to_move

    @property
    def result(self) -> Outcome | None:
        return self.state.result

    def is_over(self) -> bool:
        return self.state.result is not None

    def end(self, reason: str, winner: str) -> None:
        """End the game other than by a move: ``reason`` one of TERMINATIONS, ``winner`` the side
        that wins (a resignation's rival, an abandoned game's claimant, the side whose clock did not
        run out).  Not an action: nothing
        is logged; the result is part of the state (``pop`` of the last action undoes it too)."""
        if reason not in TERMINATIONS:
            raise InvalidError(f"termination: expected one of {', '.join(TERMINATIONS)}, got {reason!r}")
        if winner not in PLAYERS:
            raise InvalidError(f"winner: expected 'white' or 'black', got {winner!r}")
        if self.state.result is not None:
            raise IllegalError(f"the game is already over ({self.state.result.reason})")
        self.state.result = Outcome("won", winner, reason)
        self._legal_cache = None

    def tower_at(self, space: int) -> int | None:
        t = self.state.board[space]
        return None if t == EMPTY else t

    def occupied(self) -> frozenset[int]:
        board = self.state.board
        return frozenset(s for s in SPACES if board[s] != EMPTY)

    def ends_turn(self, action: Action) -> bool:
        if type(action) is Swap:
            return not self.third_eye
        return action.ends_turn

    def move_range(self, tower: int) -> int:
        piece = self.piece[tower]
        if piece == ARTIFICIAL_LIGHT and self.accelerated(self.owner[tower]):
            return ACCELERATED_RANGE
        return RANGE[piece]

    def accelerated(self, player: str) -> bool:
        """Artificial Light moves 5 while both of the player's Shadows are captured."""
        loc = self.state.loc
        shadows = [t for t in self._towers_of[player] if self.piece[t] == SHADOW]
        return bool(shadows) and all(loc[t] == CAPTURED for t in shadows)

    def towers_of(self, player: str) -> tuple[int, ...]:
        return self._towers_of[player]

    def flash_outcome(self, attacker: int, defender: int) -> str:
        """What happens when tower ``attacker`` flashes tower ``defender`` (the mode's flash table)."""
        return self._flash[(self.piece[attacker], self.piece[defender])]

    # --- what actions do to the board, and when two leave the same game -----------------

    def board_effect(self, action: Action) -> BoardEffect:
        """What ``action`` (legal now) does to the board, as the sensors see it (``engine.effects``).
        Reads the game; changes nothing."""
        st = self.state
        board = st.board
        kind = type(action)
        ends = self.ends_turn(action)
        if kind is Move or kind is Reflect:
            f, t = action.frm, action.to
            defender = board[t]
            if defender == EMPTY:
                return effect_of(board, carries=((f, t),), ends_turn=ends)
            attacker = board[f]
            outcome = self.flash_outcome(attacker, defender)
            flash = Flash(f, t, self.piece[attacker], self.piece[defender], outcome)
            if outcome == CAPTURE:
                return effect_of(board, carries=((f, t),), leaves=(t,), flash=flash, ends_turn=ends)
            if outcome == SWAP:
                return effect_of(board, carries=((f, t), (t, f)), flash=flash, ends_turn=ends)
            return effect_of(board, leaves=(f, t), flash=flash, ends_turn=ends)
        if kind is Swap:
            m, o = action.memory, action.other
            return effect_of(board, carries=((m, o), (o, m)), word="swap", ends_turn=ends)
        if kind is Reinforce:
            return effect_of(board, arrives=tuple(s for s, _ in action.placements), word="reinforce",
                             ends_turn=ends)
        if kind is Resurrect:
            return effect_of(board, arrives=(action.to,), word="resurrect", ends_turn=ends)
        if kind is Gravity:
            return effect_of(board, carries=action.moves, ends_turn=ends)
        if kind is Time:
            if action.target is not None:  # Third Eye: the Time tower leaves, the rival tower is pushed
                return effect_of(board, carries=((action.target, action.to),), leaves=(action.at,),
                                 word="time", ends_turn=ends, time_outcome="pushed")
            plan = self.rewind_plan(board[action.at])
            carries = tuple((now, back) for _, now, back in plan if back != RESERVE)
            leaves = (action.at,) + tuple(now for _, now, back in plan if back == RESERVE)
            outcome = "failed" if st.last_action.moved_shadow else "rewound"
            return effect_of(board, carries=carries, leaves=leaves, word="time", ends_turn=ends,
                             time_outcome=outcome)
        if kind is Pass:
            return effect_of(board, word="pass", ends_turn=ends)
        raise TypeError(f"not an action: {action!r}")  # pragma: no cover

    def may_be_void(self, tower: int) -> bool:
        """Could the rival of ``tower``'s owner take it for a Void, from public facts?  (It is not
        revealed, or it is revealed as a Void.)"""
        return self.state.known[tower] != BOTH or self.piece[tower] == VOID

    def could_grow(self, action: Action, effect: BoardEffect | None = None) -> bool:
        """Could ``action`` (legal now), for all the rival can tell, be Void Gravity that may still
        pull another Void?  ``effect``: its ``board_effect``, if already at hand.

        Decided from public facts only (which towers are revealed, which were swapped this turn,
        the board), so waiting for a Gravity to be over says nothing about what the towers are.
        Every Gravity that could really grow passes this test: a move of one tower that may be a
        Void next to another that may be one, or Gravity whose pulls all land next to one such
        Void with an empty space left beside it and another such Void free to be pulled.
        """
        kind = type(action)
        if not self.third_eye or (kind is not Move and kind is not Gravity):
            return False
        if effect is None:
            effect = self.board_effect(action)
        if effect.flash is not None or effect.word is not None or not effect.ends_turn:
            return False
        st = self.state
        board = st.board
        me = st.to_move
        frozen = {st.loc[t] for t in st.frozen}
        sources = {a for a, _ in effect.carries}
        dests = {b for _, b in effect.carries}
        for a in sources:
            if a in IRIS or a in frozen or not self.may_be_void(board[a]):
                return False
        own = [s for s, t in enumerate(board) if t != EMPTY and self.owner[t] == me and self.may_be_void(t)
               and s not in sources and s not in IRIS]
        for x in own:
            near = GRAVITY_NEIGHBORS[x]
            if not dests <= set(near):
                continue
            if not any(board[s] == EMPTY and s not in dests for s in near):
                continue
            if any(y != x and y not in frozen for y in own):
                return True
        return False

    def same_game_key(self) -> tuple:
        """A canonical form of the state: equal exactly for states from which the same actions are
        legal and lead to the same outcomes, whatever follows ("the same game from here on").

        Towers of one owner and piece are interchangeable unless something tells them apart: a
        Memory's swaps left (Third Eye), a flash-back ban or a Memory Swap freeze naming the tower
        this turn, and for captured towers the turn of capture while a Resurrection still waits on
        it.  Kept: the position, reserves and captures, whose turn, Totems, Time used this turn,
        passes, the result, and in Classic the facts of the last action that the Power of Time
        reads (as pieces and spaces).  Left out: the history, who knows what (never a rule), and in
        Third Eye the last action (only Classic Time reads it).
        """
        st = self.state
        owner, piece = self.owner, self.piece
        third_eye = self.third_eye
        loc = st.loc

        def sig(t: int) -> tuple:
            swaps = st.swaps_left[t] if third_eye and piece[t] == MEMORY else 0
            return (owner[t], piece[t], swaps, t in st.frozen)

        board = tuple(None if t == EMPTY else sig(t) for t in st.board)
        reserve = sorted((owner[t], piece[t]) for t in self.towers if loc[t] == RESERVE)
        ready = st.turn - 2  # captured on this turn or before: may be resurrected (spec 8)
        captured = sorted((owner[t], piece[t], max(st.captured_turn[t], ready))
                          for t in self.towers if loc[t] == CAPTURED)
        ban = st.flash_ban
        ban_key = None
        if ban is not None and ban[0] >= st.turn and loc[ban[1]] >= 0 and loc[ban[2]] >= 0:
            ban_key = (ban[0], loc[ban[1]], loc[ban[2]])
        last = None
        if not third_eye and st.last_action is not None:
            la = st.last_action
            last = (la.player, tuple(sorted((sig(t), a, b) for t, a, b in la.moved)), la.captured,
                    la.on_iris, la.moved_shadow)
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

    def same_game_key_after(self, action: Action) -> tuple:
        """``same_game_key`` after the legal ``action``; the game is left exactly as it was."""
        if not self.is_legal(action):
            raise IllegalError(f"{action} {self.why_illegal(action)}")
        self.push(action, trusted=True)  # checked: the legal actions here come back with pop
        try:
            return self.same_game_key()
        finally:
            self.pop()

    def equivalent(self, a: Action, b: Action) -> bool:
        """Do the legal actions ``a`` and ``b`` leave the same game from here on?"""
        return a == b or self.same_game_key_after(a) == self.same_game_key_after(b)

    def same_game_classes(self, actions: Iterable[Action]) -> list[list[Action]]:
        """Legal actions grouped into classes that leave the same game, in first-seen order."""
        classes: dict[tuple, list[Action]] = {}
        for a in actions:
            classes.setdefault(self.same_game_key_after(a), []).append(a)
        return list(classes.values())

    # --- legal actions -----------------------------------------------------------------

    @property
    def legal(self) -> "LegalActions":
        """The legal actions for the player to move, as a lazy view (python-chess's
        ``board.legal_moves``): ``action in game.legal`` checks that one action without
        generating the others, ``game.legal.count()``, iteration, ``bool``."""
        return LegalActions(self)

    def legal_actions(self) -> list[Action]:
        """Every legal action for the player to move, each once, as a new list (in a fixed order:
        the turn-ending actions first, or ``Pass`` when there is none)."""
        if self._legal_cache is None:
            self._legal_cache = self._generate()
        return list(self._legal_cache)

    def is_legal(self, action: Action) -> bool:
        """Is ``action`` legal now?  Checks that one action; the others are not generated."""
        if self.state.result is not None:
            return False
        check = self._CHECKS.get(type(action))
        return check is not None and check(self, action)

    def _generate(self) -> list[Action]:
        st = self.state
        if st.result is not None:
            return []
        me = st.to_move
        ending: list[Action] = []
        other_actions: list[Action] = []
        loc = st.loc
        own = [t for t in self._towers_of[me] if loc[t] >= 0]
        self._gen_moves(own, ending)
        self._gen_reflections(own, ending)
        swaps = ending if not self.third_eye else other_actions
        self._gen_swaps(own, swaps)
        if self.third_eye:
            self._gen_gravity(own, ending)
        self._gen_reinforcements(ending)
        self._gen_resurrections(other_actions)
        self._gen_time(own, other_actions)
        if not ending:
            ending.append(PASS)
        return ending + other_actions

    def _gen_moves(self, own: list[int], out: list[Action]) -> None:
        """Every tower's moves: ``_move_targets`` with what is the same for every tower read
        once (most of generation's time is here).  A Peripheral's moves (diagonals, several
        routes to one space) come from ``_move_targets`` itself; test_legal_view.py checks the
        two agree on every move of many positions."""
        st = self.state
        board = st.board
        loc = st.loc
        owner = self.owner
        pieces = self.piece
        frozen = st.frozen
        me = st.to_move
        te = self.third_eye
        ban = st.flash_ban
        ban_tower, ban_target = (ban[1], ban[2]) if ban is not None and ban[0] == st.turn else (EMPTY, EMPTY)
        accelerated = None
        for tower in own:
            if tower in frozen:
                continue
            frm = loc[tower]
            row = _MOVES[frm]
            piece = pieces[tower]
            if piece == PERIPHERAL:
                out += map(row.__getitem__, self._move_targets(tower, frm))
                continue
            rng = RANGE[piece]
            if piece == ARTIFICIAL_LIGHT:
                if accelerated is None:
                    accelerated = self.accelerated(me)
                if accelerated:
                    rng = ACCELERATED_RANGE
            banned = ban_target if tower == ban_tower else EMPTY
            light = piece == LIGHT
            start = len(out)
            slung = False
            for kind, path, skip, horizon in _RAYS[frm]:
                if kind == RAY_FIRST_SIGHT and not light:
                    continue
                stop = rng if rng <= horizon else horizon
                i = 0
                for t in path:
                    if i >= stop:
                        break
                    occ = board[t]
                    if occ == EMPTY:
                        if i >= skip:
                            out.append(row[t])
                    else:
                        if i >= skip and occ != banned and owner[occ] != me:
                            out.append(row[t])
                        break
                    i += 1
                else:
                    continue
                if i == horizon < rng and te and kind == RAY_RING:
                    targets = [a.to for a in out[start:]]
                    if self._slingshot(path, i, me, banned, targets):
                        out.append(row[targets[-1]])
                        slung = True
            if slung and len(out) - start != len(set(out[start:])):
                out[start:] = list(dict.fromkeys(out[start:]))

    def _move_targets(self, tower: int, frm: int) -> list[int]:
        """Destinations of a tower's moves, each once (no-flash-back applied)."""
        st = self.state
        board = st.board
        owner = self.owner
        me = owner[tower]
        piece = self.piece[tower]
        rng = RANGE[piece]
        if piece == ARTIFICIAL_LIGHT and self.accelerated(me):
            rng = ACCELERATED_RANGE
        te = self.third_eye
        peripheral = piece == PERIPHERAL
        light = piece == LIGHT
        ban = st.flash_ban
        banned = ban[2] if ban is not None and ban[0] == st.turn and ban[1] == tower else EMPTY
        out: list[int] = []
        slung = False
        for kind, path, skip, horizon in _RAYS[frm]:
            # horizon: where the path first enters the Horizon (its length if never).  Only the
            # Peripheral enters the Horizon from a ring; in Third Eye any tower moving along a
            # ring may jump an own Peripheral standing there (Slingshot).
            if kind == RAY_FIRST_SIGHT and not light:
                continue
            stop = rng if peripheral or rng <= horizon else horizon
            i = 0
            for t in path:
                if i >= stop:
                    break
                occ = board[t]
                if occ == EMPTY:
                    if i >= skip:
                        out.append(t)
                elif owner[occ] == me:
                    if peripheral and te and kind == RAY_RING and IS_HORIZON[t] and self.piece[occ] == PERIPHERAL:
                        slung = self._slingshot(path, i, me, banned, out) or slung
                    break
                else:
                    if i >= skip and occ != banned:
                        out.append(t)
                    break
                i += 1
            else:
                continue
            if i == horizon < rng and te and kind == RAY_RING and not peripheral:
                slung = self._slingshot(path, i, me, banned, out) or slung
        if te and peripheral:
            self._diagonals(frm, me, banned, out)
        if (peripheral or slung) and len(out) != len(set(out)):
            # One destination by several routes is one action (spec 8): a Peripheral
            # reaches Ring 1 across the Iris and around over the Horizon; a Slingshot
            # may land where a straight ring move in the other direction also goes.
            out = list(dict.fromkeys(out))
        return out

    def _slingshot(self, path: tuple[int, ...], i: int, me: str, banned: int, out: list[int]) -> bool:
        """A ring move reaching path[i] (an own Peripheral on the Horizon) lands beyond it.  True
        if it did."""
        st = self.state
        t = path[i]
        occ = st.board[t]
        if occ == EMPTY or self.owner[occ] != me or self.piece[occ] != PERIPHERAL:
            return False
        if i + 1 >= len(path):
            return False
        land = path[i + 1]
        occ = st.board[land]
        if occ == EMPTY or (self.owner[occ] != me and occ != banned):
            if land not in out:
                out.append(land)
                return True
        return False

    def _diagonals(self, frm: int, me: str, banned: int, out: list[int]) -> None:
        """Third Eye Peripheral: one ring step and one line step, in either order."""
        board = self.state.board
        owner = self.owner
        for first, second in ((RING_NEIGHBORS, LINE_STEP_NEIGHBORS), (LINE_STEP_NEIGHBORS, RING_NEIGHBORS)):
            for a in first[frm]:
                if board[a] != EMPTY:
                    continue
                for b in second[a]:
                    if b == frm or b in out:
                        continue
                    occ = board[b]
                    if occ == EMPTY or (owner[occ] != me and occ != banned):
                        out.append(b)

    def _gen_reflections(self, own: list[int], out: list[Action]) -> None:
        st = self.state
        board = st.board
        loc = st.loc
        piece = self.piece
        reflectors = [t for t in own if piece[t] == REFLECTOR and loc[t] not in IRIS]
        if not reflectors:
            return
        lights = [t for t in own if piece[t] in (LIGHT, ARTIFICIAL_LIGHT) and t not in st.frozen]
        lights = [t for t in lights if loc[t] not in IRIS]
        ban = st.flash_ban
        for r in reflectors:
            rs = loc[r]
            if IS_HORIZON[rs]:
                if not self.third_eye:
                    continue
                targets = HORIZON_REFLECT_TARGETS[rs]
                movers = [t for t in lights if IS_HORIZON[loc[t]]]
            else:
                targets = REFLECT_TARGETS[rs]
                line = LINE_OF[rs]
                movers = [t for t in lights if LINE_OF[loc[t]] == line]
            for t in movers:
                frm = loc[t]
                for to in targets:
                    if to == frm:
                        continue
                    occ = board[to]
                    if occ != EMPTY:
                        if self.owner[occ] == st.to_move:
                            continue
                        if ban is not None and ban[0] == st.turn and ban[1] == t and ban[2] == occ:
                            continue
                    out.append(Reflect(rs, frm, to))

    def _gen_swaps(self, own: list[int], out: list[Action]) -> None:
        st = self.state
        loc = st.loc
        for m in own:
            if self.piece[m] != MEMORY or m in st.frozen:
                continue
            if self.third_eye and st.swaps_left[m] <= 0:
                continue
            ms = loc[m]
            for o in own:
                if o != m and o not in st.frozen and self._swappable(ms, loc[o]):
                    out.append(Swap(ms, loc[o]))

    def _swappable(self, a: int, b: int) -> bool:
        """May a Memory on ``a`` swap with a tower on ``b``?  Same half; Third Eye adds the Horizon."""
        half = HALF[a]
        if half is not None and HALF[b] == half:
            return True
        if not self.third_eye:
            return False
        on_board = (half is not None or IS_HORIZON[a]) and (HALF[b] is not None or IS_HORIZON[b])
        return on_board and (IS_HORIZON[a] or IS_HORIZON[b])

    def _gen_gravity(self, own: list[int], out: list[Action]) -> None:
        st = self.state
        loc = st.loc
        board = st.board
        piece = self.piece
        frozen = st.frozen
        new, set_void, set_moves = _NEW_GRAVITY
        voids = [t for t in own if piece[t] == VOID and loc[t] not in IRIS]
        if len(voids) < 2:
            return
        # sources in space order, so each (source, destination) pair comes out sorted
        free = sorted(loc[t] for t in voids if t not in frozen)
        for anchor in voids:
            v = loc[anchor]
            spots = [s for s in GRAVITY_NEIGHBORS[v] if board[s] == EMPTY]
            if not spots:
                continue
            pulled = [s for s in free if s != v]
            if not pulled:
                continue
            # every (source, destination) pair once; an action's pulls are some of them, by index
            pairs = [(a, b) for a in pulled for b in spots]
            for pair in pairs:  # one Void pulled
                g = new(Gravity)
                set_void(g, v)
                set_moves(g, (pair,))
                out.append(g)
            for k in range(2, min(len(spots), len(pulled)) + 1):
                for pick in _gravity_picks(len(pulled), len(spots), k):
                    g = new(Gravity)
                    set_void(g, v)
                    set_moves(g, tuple([pairs[i] for i in pick]))
                    out.append(g)

    def _gen_reinforcements(self, out: list[Action]) -> None:
        st = self.state
        me = st.to_move
        free = [g for g in GATEWAYS[me] if st.board[g] == EMPTY]
        if not free:
            return
        kinds: dict[str, int] = {}
        for t in self._towers_of[me]:
            if st.loc[t] == RESERVE:
                kinds[self.piece[t]] = kinds.get(self.piece[t], 0) + 1
        for p in kinds:
            for g in free:
                out.append(Reinforce(((g, p),)))
        n = kinds.get(ARTIFICIAL_LIGHT, 0)
        for k in range(2, min(n, len(free)) + 1):
            for spaces in combinations(free, k):
                out.append(Reinforce(tuple((g, ARTIFICIAL_LIGHT) for g in spaces)))

    def _resurrectable(self, me: str) -> dict[str, int]:
        """Own captured towers that may be resurrected now, one per piece: piece -> tower."""
        st = self.state
        found: dict[str, int] = {}
        if st.totem_used[INDEX[me]]:
            return found
        for t in self._towers_of[me]:
            if st.loc[t] == CAPTURED and st.captured_turn[t] + 2 <= st.turn:
                found.setdefault(self.piece[t], t)
        return found

    def _gen_resurrections(self, out: list[Action]) -> None:
        st = self.state
        me = st.to_move
        pieces = self._resurrectable(me)
        if not pieces:
            return
        free = [g for g in GATEWAYS[other(me)] if st.board[g] == EMPTY]
        for p in pieces:
            for g in free:
                out.append(Resurrect(p, g))

    def _gen_time(self, own: list[int], out: list[Action]) -> None:
        st = self.state
        loc = st.loc
        times = [t for t in own if self.piece[t] == TIME and loc[t] not in IRIS]
        if not times:
            return
        if not self.third_eye:
            if st.time_used:
                return
            for t in times:
                if self._can_rewind(t):
                    out.append(Time(loc[t]))
            return
        board = st.board
        rival = other(st.to_move)
        for target in self._towers_of[rival]:
            ts = loc[target]
            if ts < 0 or ts in IRIS or IS_HORIZON[ts]:
                continue
            path = PUSH_PATHS[(ts, rival)]
            dests = []
            for s in path[:3]:
                if board[s] != EMPTY:
                    break
                dests.append(s)
            for t in times:
                for d in dests:
                    out.append(Time(loc[t], ts, d))

    def _can_rewind(self, spent: int) -> bool:
        """Classic Time used by the tower ``spent``: is there a rival action it may be used against?"""
        last = self.state.last_action
        if last is None or last.captured or last.on_iris:
            return False
        # Like the bans, checked before the Shadow failure: whether Time is legal
        # must not tell the user whether the rival moved a (hidden) Shadow.
        board = self.state.board
        moving = {t for t, _, _ in last.moved}
        for t, a, _ in last.moved:
            if a >= 0 and board[a] != EMPTY and board[a] not in moving and board[a] != spent:
                # e.g. this turn's Resurrection filled the Gateway (the Time tower itself,
                # resurrected there, leaves it first: that rewind restores the position)
                return False
        return True  # if the action moved a Shadow, the power fails but may be used

    # --- one action's legality, without generating the others ------------------------
    #
    # Each check answers exactly "would generation produce an action equal to this one?":
    # the same conditions as the _gen_* functions above, read for one action.  Fields that
    # generation never produces (not a space, unsorted pairs, a list for a tuple) are not legal.
    # tests/engine/test_legal_view.py compares the two on every candidate of random positions.

    def _mine(self, space: object) -> int:
        """The mover's tower on ``space`` (an int space id), or EMPTY."""
        if type(space) is not int or not 0 <= space < N_SPACES:
            return EMPTY
        t = self.state.board[space]
        if t == EMPTY or self.owner[t] != self.state.to_move:
            return EMPTY
        return t

    def _check_move(self, action: Move) -> bool:
        t = self._mine(action.frm)
        if t == EMPTY or t in self.state.frozen:
            return False
        to = action.to
        return type(to) is int and to in self._move_targets(t, action.frm)

    def _check_reflect(self, action: Reflect) -> bool:
        st = self.state
        rs, frm, to = action.reflector, action.frm, action.to
        r = self._mine(rs)
        t = self._mine(frm)
        if r == EMPTY or t == EMPTY or type(to) is not int or not 0 <= to < N_SPACES:
            return False
        if self.piece[r] != REFLECTOR or rs in IRIS:
            return False
        if self.piece[t] not in (LIGHT, ARTIFICIAL_LIGHT) or t in st.frozen or frm in IRIS:
            return False
        if IS_HORIZON[rs]:
            if not self.third_eye or not IS_HORIZON[frm]:
                return False
            targets = HORIZON_REFLECT_TARGETS[rs]
        else:
            if LINE_OF[frm] != LINE_OF[rs]:
                return False
            targets = REFLECT_TARGETS[rs]
        if to == frm or to not in targets:
            return False
        occ = st.board[to]
        if occ == EMPTY:
            return True
        if self.owner[occ] == st.to_move:
            return False
        ban = st.flash_ban
        return not (ban is not None and ban[0] == st.turn and ban[1] == t and ban[2] == occ)

    def _check_swap(self, action: Swap) -> bool:
        st = self.state
        m = self._mine(action.memory)
        o = self._mine(action.other)
        if m == EMPTY or o == EMPTY or m == o or self.piece[m] != MEMORY:
            return False
        if m in st.frozen or o in st.frozen:
            return False
        if self.third_eye and st.swaps_left[m] <= 0:
            return False
        return self._swappable(action.memory, action.other)

    def _check_reinforce(self, action: Reinforce) -> bool:
        st = self.state
        placements = action.placements
        if type(placements) is not tuple or not placements:
            return False
        gateways = GATEWAYS[st.to_move]
        board = st.board
        last = -1
        for pair in placements:
            if type(pair) is not tuple or len(pair) != 2:
                return False
            g = pair[0]
            if type(g) is not int or g not in gateways or board[g] != EMPTY or g <= last:  # free, in increasing order
                return False
            last = g
        piece = placements[0][1]
        if len(placements) > 1 and (piece != ARTIFICIAL_LIGHT or any(p != piece for _, p in placements)):
            return False
        have = sum(1 for t in self._towers_of[st.to_move] if st.loc[t] == RESERVE and self.piece[t] == piece)
        return have >= len(placements)

    def _check_resurrect(self, action: Resurrect) -> bool:
        me = self.state.to_move
        to = action.to
        if type(action.piece) is not str or type(to) is not int or to not in GATEWAYS[other(me)]:
            return False
        return self.state.board[to] == EMPTY and action.piece in self._resurrectable(me)

    def _check_time(self, action: Time) -> bool:
        st = self.state
        t = self._mine(action.at)
        if t == EMPTY or self.piece[t] != TIME or action.at in IRIS:
            return False
        if not self.third_eye:
            return action.target is None and action.to is None and not st.time_used and self._can_rewind(t)
        ts, to = action.target, action.to
        if type(ts) is not int or not 0 <= ts < N_SPACES or ts in IRIS or IS_HORIZON[ts]:
            return False
        target = st.board[ts]
        rival = other(st.to_move)
        if target == EMPTY or self.owner[target] != rival:
            return False
        for s in PUSH_PATHS[(ts, rival)][:3]:
            if st.board[s] != EMPTY:
                return False
            if s == to:
                return True
        return False

    def _check_gravity(self, action: Gravity) -> bool:
        if not self.third_eye:
            return False
        st = self.state
        v = action.void
        anchor = self._mine(v)
        if anchor == EMPTY or self.piece[anchor] != VOID or v in IRIS:
            return False
        moves = action.moves
        if type(moves) is not tuple or not moves:
            return False
        board = st.board
        spots = GRAVITY_NEIGHBORS[v]
        last = -1
        dests = set()
        for pair in moves:
            if type(pair) is not tuple or len(pair) != 2:
                return False
            a, b = pair
            t = self._mine(a)
            if t == EMPTY or t == anchor or self.piece[t] != VOID or t in st.frozen or a in IRIS or a <= last:
                return False
            last = a
            if type(b) is not int or b not in spots or board[b] != EMPTY or b in dests:
                return False
            dests.add(b)
        return True

    def _check_pass(self, action: Pass) -> bool:
        if self._legal_cache is not None:
            return self._legal_cache[0] is PASS
        st = self.state
        own = [t for t in self._towers_of[st.to_move] if st.loc[t] >= 0]
        for t in own:
            if t not in st.frozen and self._move_targets(t, st.loc[t]):
                return False
        ending: list[Action] = []
        self._gen_reflections(own, ending)
        if not self.third_eye:
            self._gen_swaps(own, ending)
        else:
            self._gen_gravity(own, ending)
        self._gen_reinforcements(ending)
        return not ending

    _CHECKS = {
        Move: _check_move,
        Reflect: _check_reflect,
        Swap: _check_swap,
        Reinforce: _check_reinforce,
        Resurrect: _check_resurrect,
        Time: _check_time,
        Gravity: _check_gravity,
        Pass: _check_pass,
    }

    # --- applying ------------------------------------------------------------------

    def push(self, action: Action, *, trusted: bool = False) -> None:
        """Apply a legal action; IllegalError says why it is not.

        ``trusted``: the action was just taken from ``legal_actions()`` of this very state (a
        search, which comes back here with ``pop``), so it is not checked again and this state's
        legal actions are kept for ``pop`` to give back."""
        if not trusted and not self.is_legal(action):
            raise IllegalError(f"{action} {self.why_illegal(action)}")
        self._stack.append((self.state.copy(), len(self.events), len(self.log),
                            self._legal_cache if trusted else None))
        self.log.append((self.state.turn, self.state.to_move, action))
        self._legal_cache = None
        self._apply(action)

    apply = push

    def pop(self) -> Action:
        """Undo the last action exactly (after a trusted push, the legal actions of the state it
        returns to come back with it)."""
        if not self._stack:
            raise IllegalError("there is nothing to undo")
        state, n_events, n_log, legal = self._stack.pop()
        action = self.log[n_log][2]
        self.state = state
        del self.events[n_events:]
        del self.log[n_log:]
        self._legal_cache = legal
        return action

    def _apply(self, action: Action) -> None:
        st = self.state
        me = st.to_move
        kind = type(action)
        moved: list[tuple[int, int, int]] = []
        captured = False
        on_iris = False
        if kind is Move:
            captured = self._relocate(st.board[action.frm], action.frm, action.to, moved)
            on_iris = action.to in IRIS
            if action.to == FIRST_SIGHT:
                st.result = Outcome("won", me, FIRST_SIGHT_WIN)
        elif kind is Reflect:
            captured = self._relocate(st.board[action.frm], action.frm, action.to, moved)
        elif kind is Swap:
            m, o = st.board[action.memory], st.board[action.other]
            st.board[action.memory], st.board[action.other] = o, m
            st.loc[m], st.loc[o] = action.other, action.memory
            moved = [(m, action.memory, action.other), (o, action.other, action.memory)]
            if self.third_eye:
                st.swaps_left[m] -= 1
                st.frozen = st.frozen | {m, o}
        elif kind is Reinforce:
            for space, piece in action.placements:
                t = next(t for t in self._towers_of[me] if st.loc[t] == RESERVE and self.piece[t] == piece)
                st.loc[t] = space
                st.board[space] = t
                moved.append((t, RESERVE, space))
                if len(action.placements) > 1:
                    st.known[t] = BOTH  # only Artificial Lights come in together
        elif kind is Gravity:
            towers = [st.board[a] for a, _ in action.moves]
            for a, _ in action.moves:
                st.board[a] = EMPTY
            for t, (a, b) in zip(towers, action.moves):
                st.board[b] = t
                st.loc[t] = b
        elif kind is Resurrect:
            t = self._resurrectable(me)[action.piece]
            st.loc[t] = action.to
            st.board[action.to] = t
            st.captured_turn[t] = 0
            st.known[t] = BOTH
            st.totem_used[INDEX[me]] = True
            if self.piece[t] == MEMORY and self.third_eye:
                st.swaps_left[t] = 2
        elif kind is Time:
            self._use_time(action)
        elif kind is Pass:
            st.passes += 1
            if st.passes >= 2:
                st.result = Outcome("drawn", None, TWO_PASSES)
        if not self.ends_turn(action) or st.result is not None:
            return
        if kind is not Pass:
            st.passes = 0
            moved_shadow = any(
                self.piece[t] == SHADOW and self.owner[t] == me and a != b for t, a, b in moved
            )
            st.last_action = LastAction(me, tuple(moved), captured, on_iris, moved_shadow)
        else:
            st.last_action = None
        st.to_move = other(me)
        st.turn += 1
        st.time_used = False
        st.frozen = frozenset()
        if st.flash_ban is not None and st.flash_ban[0] < st.turn:
            st.flash_ban = None

    def _capture(self, tower: int) -> None:
        st = self.state
        st.loc[tower] = CAPTURED
        st.captured_turn[tower] = st.turn
        st.known[tower] = BOTH

    def _relocate(self, tower: int, frm: int, to: int, moved: list) -> bool:
        """Move ``tower`` from ``frm`` to ``to``, flashing a rival there.  True if anything was captured."""
        st = self.state
        board = st.board
        board[frm] = EMPTY
        defender = board[to]
        if defender == EMPTY:
            board[to] = tower
            st.loc[tower] = to
            moved.append((tower, frm, to))
            return False
        attacker_piece, defender_piece = self.piece[tower], self.piece[defender]
        outcome = self.flash_outcome(tower, defender)
        st.known[tower] = BOTH
        st.known[defender] = BOTH
        self.events.append(
            FlashEvent(st.turn, to, attacker_piece, defender_piece, outcome, self.owner[tower])
        )
        if outcome == CAPTURE:
            self._capture(defender)
            board[to] = tower
            st.loc[tower] = to
            if defender_piece == LIGHT:
                st.result = Outcome("won", self.owner[tower], LIGHT_CAPTURED)
            return True
        if outcome == SWAP:
            board[to] = tower
            st.loc[tower] = to
            board[frm] = defender
            st.loc[defender] = frm
            moved.append((tower, frm, to))
            moved.append((defender, to, frm))
            st.flash_ban = (st.turn + 1, defender, tower)
            return False
        assert outcome == MUTUAL
        board[to] = EMPTY
        self._capture(defender)
        self._capture(tower)
        return True

    def rewind_plan(self, spent: int) -> list[tuple[int, int, int]]:
        """Classic Time used by the tower ``spent``: the rival's last action undone, as
        (tower, the space it stands on now, where it goes back: a space or RESERVE).

        Empty when the Power fails (the action moved a Shadow).  A tower no longer where the
        action put it (the Time tower itself, swapped there by the rival) stays where it is.
        The one statement of the rewind: applying Time and ``board_effect`` both read it.
        """
        st = self.state
        last = st.last_action
        if last is None or last.moved_shadow:
            return []
        return [(t, b, a) for t, a, b in last.moved if st.loc[t] == b and t != spent]

    def _use_time(self, action: Time) -> None:
        st = self.state
        me = st.to_move
        tower = st.board[action.at]
        plan = [] if self.third_eye else self.rewind_plan(tower)
        st.board[action.at] = EMPTY
        self._capture(tower)  # Time goes to the rival's Zero Gravity whatever happens
        if self.third_eye:
            target = st.board[action.target]
            st.board[action.target] = EMPTY
            st.board[action.to] = target
            st.loc[target] = action.to
            self.events.append(TimeEvent(st.turn, "pushed", me))
            return
        st.time_used = True
        last = st.last_action
        st.last_action = None
        if last.moved_shadow:
            for t, a, b in last.moved:
                if self.piece[t] == SHADOW and self.owner[t] == last.player and a != b:
                    st.known[t] = BOTH
            self.events.append(TimeEvent(st.turn, "failed", me))
            return
        # Rewind: lift every tower the action moved, then put each back.
        for t, now, _ in plan:
            st.board[now] = EMPTY
        for t, _, back in plan:
            st.loc[t] = back
            if back >= 0:
                st.board[back] = t
            elif not self.vision:
                # Back on Zero Gravity, hidden again (several Artificial Lights
                # reinforced at once were public; a later single one is not).
                st.known[t] = 1 << INDEX[self.owner[t]]
        self.events.append(TimeEvent(st.turn, "rewound", me))

    # --- explaining an illegal action ----------------------------------------------------

    def why_illegal(self, action: Action) -> str:
        """Why ``action`` is not legal now, in words for the mover.  Empty if it is legal."""
        if self.is_legal(action):
            return ""
        st = self.state
        if st.result is not None:
            return "is not allowed: the game is over"
        me = st.to_move
        kind = type(action)
        if kind is Pass:
            return "is not allowed: a turn-ending action is available"
        checks = {
            Move: self._why_move,
            Reflect: self._why_reflect,
            Swap: self._why_swap,
            Reinforce: self._why_reinforce,
            Resurrect: self._why_resurrect,
            Time: self._why_time,
            Gravity: self._why_gravity,
        }
        reason = checks[kind](action, me)
        return reason or "is not legal now"

    def _own_tower(self, space: int, me: str, what: str = "tower") -> tuple[int | None, str]:
        t = self.state.board[space]
        if t == EMPTY:
            return None, f"is not possible: there is no {what} on {N[space]}"
        if self.owner[t] != me:
            return None, f"is not possible: the tower on {N[space]} is not yours"
        return t, ""

    def _own_piece(self, space: int, me: str, piece: str, label: str) -> tuple[int | None, str]:
        """The mover's tower of ``piece`` on ``space``, or None and why not."""
        t, why = self._own_tower(space, me, label)
        if t is not None and self.piece[t] != piece:
            return None, f"is not possible: the tower on {N[space]} is not a {label}"
        return t, why

    def _why_target(self, tower: int, to: int) -> str:
        st = self.state
        occ = st.board[to]
        if occ != EMPTY and self.owner[occ] == self.owner[tower]:
            return f"is not allowed: {N[to]} holds your own tower"
        ban = st.flash_ban
        if occ != EMPTY and ban is not None and ban == (st.turn, tower, occ):
            return "is not allowed: no flash-back against the tower that flashed it last turn"
        return ""

    def _why_move(self, action: Move, me: str) -> str:
        st = self.state
        tower, why = self._own_tower(action.frm, me)
        if tower is None:
            return why
        if tower in st.frozen:
            return f"is not allowed: the tower on {N[action.frm]} was swapped by Memory this turn"
        if action.to == action.frm:
            return "is not a move: it does not leave its space"
        why = self._why_target(tower, action.to)
        if why:
            return why
        piece = self.piece[tower]
        if action.to == FIRST_SIGHT and piece != LIGHT:
            return "is not allowed: only Light may land on First Sight"
        rng = self.move_range(tower)
        best = ""
        best_index = None
        for kind, path, _ in RAYS[action.frm]:
            if action.to not in path:
                continue
            i = path.index(action.to)
            if best_index is not None and i >= best_index:
                continue
            best_index = i
            best = ""
            for j, s in enumerate(path[: i + 1]):
                if IS_HORIZON[s] and piece != PERIPHERAL and kind != RAY_HORIZON:
                    best = "is not allowed: only a Peripheral may move onto or over the Horizon"
                    break
                if j < i and st.board[s] != EMPTY:
                    best = f"is blocked at {N[s]}"
                    break
            if not best and i + 1 > rng:
                best = f"is {i + 1} spaces, but a {piece.replace('_', ' ')} moves at most {rng}"
        if best_index is None:
            return "is not along one Sight Line, ring or the Horizon"
        return best

    def _why_reflect(self, action: Reflect, me: str) -> str:
        st = self.state
        r, why = self._own_piece(action.reflector, me, REFLECTOR, "Reflector")
        if r is None:
            return why
        if action.reflector in IRIS or action.frm in IRIS or action.to in IRIS:
            return "is not allowed: Reflection never uses the Iris"
        t, why = self._own_tower(action.frm, me)
        if t is None:
            return why
        if self.piece[t] not in (LIGHT, ARTIFICIAL_LIGHT):
            return "is not possible: only Light or Artificial Light can be reflected"
        if t in st.frozen:
            return f"is not allowed: the tower on {N[action.frm]} was swapped by Memory this turn"
        why = self._why_target(t, action.to)
        if why:
            return why
        return f"is not allowed: {N[action.to]} is not in front of or behind the Reflector on the line of {N[action.frm]}"

    def _why_swap(self, action: Swap, me: str) -> str:
        st = self.state
        m, why = self._own_piece(action.memory, me, MEMORY, "Memory")
        if m is None:
            return why
        o, why = self._own_tower(action.other, me)
        if o is None:
            return why
        if m in st.frozen or o in st.frozen:
            return "is not allowed: a tower swapped this turn may not join another swap"
        if self.third_eye and st.swaps_left[m] <= 0:
            return "is not allowed: this Memory has used both of its swaps"
        return "is not allowed: both towers must stand on the same half of the board"

    def _why_reinforce(self, action: Reinforce, me: str) -> str:
        st = self.state
        counts: dict[str, int] = {}
        for space, piece in action.placements:
            if space not in GATEWAYS[me]:
                return f"is not allowed: {N[space]} is not one of your Gateways"
            if st.board[space] != EMPTY:
                return f"is not allowed: {N[space]} is not empty"
            counts[piece] = counts.get(piece, 0) + 1
        if len(action.placements) > 1 and set(counts) != {ARTIFICIAL_LIGHT}:
            return "is not allowed: only Artificial Lights come in several at once"
        for piece, n in counts.items():
            have = sum(1 for t in self._towers_of[me] if st.loc[t] == RESERVE and self.piece[t] == piece)
            if n > have:
                return f"is not possible: you have {have} {piece} in reserve"
        return ""

    def _why_resurrect(self, action: Resurrect, me: str) -> str:
        st = self.state
        if st.totem_used[INDEX[me]]:
            return "is not allowed: the Totem has been used this game"
        lost = [t for t in self._towers_of[me] if st.loc[t] == CAPTURED and self.piece[t] == action.piece]
        if not lost:
            return f"is not possible: no {action.piece} of yours has been captured"
        if action.piece not in self._resurrectable(me):
            return "is not allowed yet: a tower captured last turn must wait a turn"
        if action.to not in GATEWAYS[other(me)]:
            return f"is not allowed: {N[action.to]} is not one of your rival's Gateways"
        return f"is not allowed: {N[action.to]} is not empty"

    def _why_time(self, action: Time, me: str) -> str:
        st = self.state
        t, why = self._own_piece(action.at, me, TIME, "Time tower")
        if t is None:
            return why
        if action.at in IRIS:
            return "is not allowed: powers are never used on the Iris"
        if self.third_eye:
            if action.target is None:
                return "is not allowed: in Third Eye, Time pushes a rival tower (give target and to)"
            occ = st.board[action.target]
            if occ == EMPTY or self.owner[occ] == me:
                return f"is not possible: there is no rival tower on {N[action.target]}"
            if action.target in IRIS or IS_HORIZON[action.target]:
                return "is not allowed: Time never pushes a tower on the Iris or the Horizon"
            return f"is not allowed: {N[action.to]} is not 1 to 3 empty spaces back along its Sight Line"
        if action.target is not None:
            return "is not allowed: Classic Time rewinds; it takes no target"
        if st.time_used:
            return "is not allowed: Time was already used this turn"
        last = st.last_action
        if last is None:
            return "is not allowed: there is no rival action to rewind"
        if last.captured:
            return "is not allowed: the rival's last action made a capture"
        if last.on_iris:
            return "is not allowed: the rival's last action ended on the Iris"
        return "is not allowed: the rewind needs a space that is now filled"

    def _why_gravity(self, action: Gravity, me: str) -> str:
        if not self.third_eye:
            return "is not allowed: Void Gravity is a Third Eye power"
        st = self.state
        v, why = self._own_piece(action.void, me, VOID, "Void")
        if v is None:
            return why
        if action.void in IRIS:
            return "is not allowed: powers are never used on the Iris"
        for a, b in action.moves:
            t, why = self._own_tower(a, me, "Void")
            if t is None:
                return why
            if self.piece[t] != VOID or t == v:
                return f"is not possible: the tower on {N[a]} is not another of your Voids"
            if t in st.frozen:
                return f"is not allowed: the tower on {N[a]} was swapped by Memory this turn"
            if b not in GRAVITY_NEIGHBORS[action.void]:
                return f"is not allowed: {N[b]} is not next to the Void on {N[action.void]}"
            if st.board[b] != EMPTY:
                return f"is not allowed: {N[b]} is not empty"
        if len({b for _, b in action.moves}) != len(action.moves):
            return "is not allowed: two Voids cannot land on one space"
        return ""


class _PositionReader:
    """Validates and builds :meth:`Game.from_position` (every check before anything is built)."""

    def __init__(self, cls: type[Game]):
        self.cls = cls

    @staticmethod
    def space(value: object, field: str) -> int:
        if type(value) is int and 0 <= value < N_SPACES:
            return value
        if isinstance(value, str) and value in SPACE_IDS:
            return SPACE_IDS[value]
        raise InvalidError(f"{field}: unknown space {quoted(value)}")

    @staticmethod
    def player(value: object, field: str) -> str:
        if value not in PLAYERS:
            raise InvalidError(f"{field}: unknown player {quoted(value)} (white or black)")
        return value

    @staticmethod
    def mapping(value: object, field: str) -> Mapping:
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise InvalidError(f"{field}: expected a mapping")
        return value

    def read(self, board, to_move, mode, vision, sets, reserve, captured, turn, passes, time_used,
             totem_used, revealed, swaps_left, frozen, flash_ban, last_action) -> Game:
        if mode not in MODES:
            raise InvalidError(f"mode: unknown mode {quoted(mode)} (classic or third_eye)")
        third_eye = mode == THIRD_EYE
        self.player(to_move, "to_move")
        if type(turn) is not int or turn < 1:
            raise InvalidError(f"turn: expected a whole number from 1, got {quoted(turn)}")
        if passes not in (0, 1) or type(passes) is not int:
            raise InvalidError(f"passes: 0 or 1 (two passes in a row end the game), got {quoted(passes)}")
        if type(time_used) is not bool or (time_used and third_eye):
            raise InvalidError("time_used: true or false (Classic only: Third Eye Time has no once-per-turn)")

        # the board
        placed: dict[int, tuple[str, str]] = {}
        for key, value in self.mapping(board, "board").items():
            space = self.space(key, "board")
            where = f"board.{N[space]}"
            if space in placed:
                raise InvalidError(f"{where}: the space is given twice")
            if not isinstance(value, tuple | list) or len(value) != 2:
                raise InvalidError(f"{where}: expected (owner, piece)")
            owner = self.player(value[0], f"{where}.owner")
            piece = parse_piece(value[1], f"{where}.piece")
            if space == FIRST_SIGHT:
                raise InvalidError(f"{where}: a tower on First Sight has already won the game")
            placed[space] = (owner, piece)

        # each player's towers off the board
        sets = self.mapping(sets, "sets")
        reserve = self.mapping(reserve, "reserve")
        captured = self.mapping(captured, "captured")
        for field, given in (("sets", sets), ("reserve", reserve), ("captured", captured)):
            for player in given:
                self.player(player, field)
        chosen: dict[str, tuple[str, str]] = {}
        waiting: dict[str, list[str]] = {}
        lost: dict[str, list[tuple[str, int]]] = {}
        for player in PLAYERS:
            on_board = Counter(p for o, p in placed.values() if o == player)
            lost[player] = self.captured_list(captured.get(player), player, turn)
            waiting[player] = ([parse_piece(p, f"reserve.{player}") for p in self.pieces(reserve[player], f"reserve.{player}")]
                               if player in reserve else None)
            if player in sets:
                chosen[player] = self.set_choice(sets[player], player)
                have = piece_set(*chosen[player])
                rest = have - on_board
                if on_board - have:
                    extra = sorted((on_board - have).elements())[0]
                    raise InvalidError(f"board: more {extra} of {player}'s than its set has")
                if waiting[player] is None:
                    given = Counter(p for p, _ in lost[player])
                    if given - rest:
                        raise InvalidError(f"captured.{player}: more {sorted((given - rest).elements())[0]} than its set has left")
                    waiting[player] = [p for p in PIECES for _ in range((rest - given)[p])]
                elif player not in captured:
                    left = rest - Counter(waiting[player])
                    if Counter(waiting[player]) - rest:
                        raise InvalidError(f"reserve.{player}: more {sorted((Counter(waiting[player]) - rest).elements())[0]} than its set has left")
                    if left[LIGHT]:
                        raise InvalidError(f"reserve.{player}: the Light is neither on the board nor in reserve, "
                                           "and a captured Light has already lost the game")
                    lost[player] = [(p, 0) for p in PIECES for _ in range(left[p])]
            if waiting[player] is None:
                waiting[player] = []
            total = on_board + Counter(waiting[player]) + Counter(p for p, _ in lost[player])
            if player in sets:
                if total != piece_set(*chosen[player]):
                    raise InvalidError(f"{player}: board, reserve and captured are not the towers of its set "
                                       f"(clone {chosen[player][0]}, removed {chosen[player][1]})")
            else:
                chosen[player] = self.infer_set(total, player)

        # per-space facts
        revealed_spaces = {self.space(s, "revealed") for s in self.pieces(revealed, "revealed")}
        for s in revealed_spaces:
            if s not in placed:
                raise InvalidError(f"revealed.{N[s]}: no tower there")
        swaps = {}
        for key, n in self.mapping(swaps_left, "swaps_left").items():
            s = self.space(key, "swaps_left")
            if not third_eye:
                raise InvalidError("swaps_left: Memory's swaps are counted in Third Eye only")
            if placed.get(s, (None, None))[1] != MEMORY:
                raise InvalidError(f"swaps_left.{N[s]}: no Memory there")
            if type(n) is not int or not 0 <= n <= 2:
                raise InvalidError(f"swaps_left.{N[s]}: 0, 1 or 2, got {quoted(n)}")
            swaps[s] = n
        frozen_spaces = {self.space(s, "frozen") for s in self.pieces(frozen, "frozen")}
        for s in frozen_spaces:
            if not third_eye:
                raise InvalidError("frozen: only a Third Eye Memory Swap freezes towers")
            if placed.get(s, (None,))[0] != to_move:
                raise InvalidError(f"frozen.{N[s]}: no tower of {to_move}'s there")
        ban = None
        if flash_ban is not None:
            if not isinstance(flash_ban, tuple | list) or len(flash_ban) != 2:
                raise InvalidError("flash_ban: expected (the mover's space, the rival's space)")
            a, b = self.space(flash_ban[0], "flash_ban"), self.space(flash_ban[1], "flash_ban")
            if placed.get(a, (None,))[0] != to_move:
                raise InvalidError(f"flash_ban.{N[a]}: no tower of {to_move}'s there")
            if placed.get(b, (None,))[0] != other(to_move):
                raise InvalidError(f"flash_ban.{N[b]}: no tower of {other(to_move)}'s there")
            ban = (a, b)
        last = None
        if last_action is not None:
            last = self.last_action(last_action, placed)
        totems = {self.player(p, "totem_used") for p in self.pieces(totem_used, "totem_used")}

        # build: per player, the board's towers in space order, then captured, then reserve
        towers: list[tuple[str, str, int]] = []
        captured_turns: list[int] = []
        for player in PLAYERS:
            for space in sorted(placed):
                if placed[space][0] == player:
                    towers.append((player, placed[space][1], space))
                    captured_turns.append(0)
            for p, when in lost[player]:
                towers.append((player, p, CAPTURED))
                captured_turns.append(when)
            for p in sorted(waiting[player], key=PIECES.index):
                towers.append((player, p, RESERVE))
                captured_turns.append(0)
        game = self.cls.__new__(self.cls)
        setups = {p: Setup(p, *chosen[p], ()) for p in PLAYERS}
        game._start(setups, mode, vision, to_move, towers)
        game._stack = []
        game.events = []
        game.log = []
        game._legal_cache = None
        st = game.state
        st.captured_turn = captured_turns
        for t, (_, _, where) in enumerate(towers):
            if where == CAPTURED or (where >= 0 and where in revealed_spaces):
                st.known[t] = BOTH
        for s, n in swaps.items():
            st.swaps_left[st.board[s]] = n
        st.turn = turn
        st.passes = passes
        st.time_used = time_used
        st.totem_used = [p in totems for p in PLAYERS]
        st.frozen = frozenset(st.board[s] for s in frozen_spaces)
        if ban is not None:
            st.flash_ban = (turn, st.board[ban[0]], st.board[ban[1]])
        if last is not None:
            moves, was_capture, on_iris = last
            moved = tuple((st.board[b], a, b) for a, b in moves)
            rival = other(to_move)
            moved_shadow = any(game.piece[t] == SHADOW and game.owner[t] == rival and a != b for t, a, b in moved)
            st.last_action = LastAction(rival, moved, was_capture, on_iris, moved_shadow)
        return game

    @staticmethod
    def pieces(value: object, field: str) -> list:
        if isinstance(value, str | bytes | Mapping) or not isinstance(value, Iterable):
            raise InvalidError(f"{field}: expected a list")
        return list(value)

    def captured_list(self, value: object, player: str, turn: int) -> list[tuple[str, int]]:
        field = f"captured.{player}"
        out = []
        for item in [] if value is None else self.pieces(value, field):
            when = 0
            if isinstance(item, tuple | list):
                if len(item) != 2:
                    raise InvalidError(f"{field}: expected a piece or (piece, turn it was captured)")
                item, when = item
                if type(when) is not int or not 0 <= when <= turn:
                    raise InvalidError(f"{field}.{item}: the turn it was captured, 0 to {turn}, got {quoted(when)}")
            piece = parse_piece(item, field)
            if piece == LIGHT:
                raise InvalidError(f"{field}: a captured Light has already lost the game")
            out.append((piece, when))
        return out

    @staticmethod
    def set_choice(value: object, player: str) -> tuple[str, str]:
        field = f"sets.{player}"
        if not isinstance(value, tuple | list) or len(value) != 2:
            raise InvalidError(f"{field}: expected (clone, removed)")
        clone, removed = parse_piece(value[0], f"{field}.clone"), parse_piece(value[1], f"{field}.removed")
        if clone not in CLONES:
            raise InvalidError(f"{field}.clone: {clone} is not a clone (one of {', '.join(CLONES)})")
        if removed in NOT_REMOVABLE:
            raise InvalidError(f"{field}.removed: {removed} may not be removed")
        return clone, removed

    @staticmethod
    def infer_set(total: Counter, player: str) -> tuple[str, str]:
        n = sum(total.values())
        for clone in CLONES:
            for removed in PIECES:
                if removed not in NOT_REMOVABLE and piece_set(clone, removed) == total:
                    return clone, removed
        raise InvalidError(f"{player}: its {n} towers on the board, in reserve and captured are not a set "
                           f"(17 towers: the base set with one clone added and one piece removed)")

    def last_action(self, value: object, placed: dict[int, tuple[str, str]]):
        field = "last_action"
        value = self.mapping(value, field)
        unknown = set(value) - {"moves", "captured", "on_iris"}
        if unknown:
            raise InvalidError(f"{field}: unknown field {quoted(sorted(map(str, unknown))[0])}")
        moves = []
        for pair in self.pieces(value.get("moves", ()), f"{field}.moves"):
            if not isinstance(pair, tuple | list) or len(pair) != 2:
                raise InvalidError(f"{field}.moves: expected (from, to) pairs")
            a = RESERVE if pair[0] == RESERVE else self.space(pair[0], f"{field}.moves")
            b = self.space(pair[1], f"{field}.moves")
            if b not in placed:
                raise InvalidError(f"{field}.moves.{N[b]}: no tower there (the moved tower stands where it went)")
            moves.append((a, b))
        flags = []
        for key in ("captured", "on_iris"):
            flag = value.get(key, False)
            if type(flag) is not bool:
                raise InvalidError(f"{field}.{key}: true or false")
            flags.append(flag)
        return tuple(moves), flags[0], flags[1]


class LegalActions:
    """The legal actions of a game for the player to move: a lazy view, like python-chess's
    ``board.legal_moves``.  It follows the game (after a push it shows the new state's actions).

    - ``action in game.legal`` checks that one action without generating the others;
    - ``game.legal.count()`` and iteration generate them all once for the state (kept until the
      state changes; ``game.legal_actions()`` is the same list, copied);
    - ``bool(game.legal)`` is whether anything is legal: always, until the game is over (a
      player with no turn-ending action has ``Pass``).
    """

    __slots__ = ("_game",)

    def __init__(self, game: Game):
        self._game = game

    def _all(self) -> list[Action]:
        game = self._game
        if game._legal_cache is None:
            game._legal_cache = game._generate()
        return game._legal_cache

    def __contains__(self, action: object) -> bool:
        return self._game.is_legal(action)

    def __iter__(self):
        return iter(self._all())

    def __bool__(self) -> bool:
        return self._game.state.result is None

    def count(self) -> int:
        return len(self._all())

    def __repr__(self) -> str:
        shown = ", ".join(str(a) for a in self._all())
        return f"<LegalActions at {id(self):#x} ({shown})>"
