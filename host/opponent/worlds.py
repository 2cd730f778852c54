"""Hidden worlds: rival identities sampled consistently with an information state.

A *world* gives every unrevealed rival tower an identity, and the rival's
clone, removed piece and reserve.  It is drawn so that:

- the rival's 17 towers are one of the 24 legal sets (4 clones x 6 removable
  pieces), chosen with the weight that set gives to the identities already
  seen (a set with more Voids makes three revealed Voids likelier);
- every unrevealed tower gets a piece it can still be (``Token.allowed``: the
  distances it moved, Void Gravity, no Artificial Light at the start, ...);
- of two towers that traded places in a rival Memory Swap, one is a Memory.

:func:`build_game` turns (information state, world) into an ``engine.game.Game``
the search may push and pop, through the engine's ``Game.from_position`` (it
never writes a Game's state); nothing here reads a real game.  :func:`world_game`
is the same with the revealed towers and the Game class chosen (the remote
board's stand-in game, ``host/remote/standin.py``, builds on it).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from math import comb

from engine.board import PLAYERS
from engine.errors import InvalidError
from engine.flash import THIRD_EYE
from engine.game import Game
from engine.pieces import CLONES, LIGHT, MEMORY, NOT_REMOVABLE, PIECES, piece_set
from engine.state import CAPTURED

from .infostate import BOARD, CAPTURED as TOKEN_CAPTURED, ALL_PIECES, InfoState

LIGHT_LEAN = 4.0  # each approach to First Sight multiplies a tower's weight as the Light by 4
RESERVE_LIGHT = 0.5  # weight of each reserve tower as the Light, against 1 for an idle tower on the board
COMBOS = tuple((c, r) for c in CLONES for r in PIECES if r not in NOT_REMOVABLE)
TRIES = 40


@dataclass(frozen=True)
class World:
    clone: str
    removed: str
    pieces: tuple[tuple[int, str], ...]  # (rival token, piece) for every unrevealed rival tower on the board

    def piece_of(self) -> dict[int, str]:
        return dict(self.pieces)


class Sampler:
    """Draws worlds for one information state."""

    def __init__(self, info: InfoState):
        self.info = info
        rival = info.rival
        toks = info.tokens
        self.known = Counter(
            t.piece for t in toks if t.owner == rival and t.where in (BOARD, TOKEN_CAPTURED) and t.piece is not None
        )
        self.unknown = sorted(info.unknown_rival(), key=lambda i: (len(toks[i].allowed), i))
        combos, weights = [], []
        for clone, removed in COMBOS:
            total = piece_set(clone, removed)
            if any(n > total[p] for p, n in self.known.items()):
                continue
            w = 1
            for p, n in self.known.items():
                w *= comb(total[p], n)
            combos.append((clone, removed))
            weights.append(w)
        if not combos:  # cannot happen in a legal game; keep going with every set
            combos, weights = list(COMBOS), [1] * len(COMBOS)
        self.combos, self.weights = combos, weights
        self.pairs = [(a, b) for a, b in info.memory_pairs if toks[a].where == BOARD or toks[b].where == BOARD]

    def sample(self, rng: random.Random) -> World:
        for attempt in range(TRIES):
            relaxed = attempt >= TRIES // 2
            clone, removed = rng.choices(self.combos, self.weights)[0]
            world = self._assign(rng, clone, removed, relaxed)
            if world is not None:
                return world
        # Last resort (a deduction went wrong): any identities that fit the counts.
        clone, removed = self.combos[0]
        world = self._assign(rng, clone, removed, True, ignore_allowed=True)
        assert world is not None
        return world

    def _assign(self, rng: random.Random, clone: str, removed: str, relaxed: bool, ignore_allowed: bool = False):
        remaining = piece_set(clone, removed) - self.known
        toks = self.info.tokens
        chosen: dict[int, str] = {}
        if remaining[LIGHT] and not ignore_allowed:
            # Which tower is the Light: a tower that kept running towards First
            # Sight is likelier to be it than one that did not (or the reserve).
            holders = [i for i in self.unknown if LIGHT in toks[i].allowed]
            weights = [LIGHT_LEAN ** min(toks[i].approach, 6) for i in holders]
            holders.append(None)
            weights.append(RESERVE_LIGHT * self.info.rival_reserve)
            forced = [i for i in holders[:-1] if toks[i].allowed == {LIGHT}]
            if forced:  # a tower that can only be the Light is the Light
                holders, weights = forced[:1], [1.0]
            if not sum(weights):
                return None
            holder = rng.choices(holders, weights)[0]
            if holder is not None:
                chosen[holder] = LIGHT
                remaining[LIGHT] -= 1
        for i in self.unknown:
            if i in chosen:
                continue
            allowed = ALL_PIECES if ignore_allowed else toks[i].allowed
            options = [p for p in PIECES if remaining[p] > 0 and p in allowed and p != LIGHT]
            if ignore_allowed and remaining[LIGHT]:
                options.append(LIGHT)
            if not options:
                return None
            p = rng.choices(options, [remaining[p] for p in options])[0]
            remaining[p] -= 1
            chosen[i] = p
        if sum(remaining.values()) != self.info.rival_reserve:
            return None
        if not relaxed:
            for a, b in self.pairs:
                if MEMORY not in (chosen.get(a, toks[a].piece), chosen.get(b, toks[b].piece)):
                    return None
        return World(clone, removed, tuple(sorted(chosen.items())))


class SearchGame(Game):
    """A Game for search, where every pushed action comes from ``legal_actions()`` of that very state:
    ``push`` does not check it again (``Game.push(trusted=True)``); ``pop`` gives back the node's legal
    actions with it (the engine does), so a search does not generate them again for every child."""

    def push(self, action, *, trusted: bool = True) -> None:
        super().push(action, trusted=trusted)


def build_game(info: InfoState, world: World) -> tuple[Game, dict[int, int]]:
    """A Game holding ``world``'s identities in ``info``'s position (``Game.from_position``: the
    engine checks and builds it); also token -> tower.

    Every tower on the board is marked revealed (the search sees them all).  A world that does
    not fit raises ValueError."""
    try:
        return world_game(info, world)
    except InvalidError as exc:
        raise ValueError(f"the world does not fit the player's towers: {exc}") from None


def world_game(info: InfoState, world: World, *, revealed: Iterable[int] | None = None,
               cls: type[Game] = SearchGame) -> tuple[Game, dict[int, int]]:
    """``build_game`` with a choice: ``revealed``, the tokens whose identity both players know
    in the game built (None: every tower on the board); ``cls``, the Game class built (the
    search's ``SearchGame`` pushes its actions unchecked).  A world that does not fit raises the
    engine's InvalidError (a ValueError naming the field and space)."""
    me, rival = info.me, info.rival
    pieces = world.piece_of()
    board: dict[int, tuple[str, str]] = {}
    captured: dict[str, list[tuple[str, int]]] = {me: [], rival: []}
    lost: dict[str, list[int]] = {me: [], rival: []}  # captured tokens, in the order given
    swaps: dict[int, int] = {}
    third_eye = info.mode == THIRD_EYE
    for i, tok in enumerate(info.tokens):
        if tok.where == BOARD:
            piece = tok.piece or pieces.get(i)
            board[tok.space] = (tok.owner, piece)
            if piece == MEMORY and third_eye:
                used = tok.acted_swaps if tok.owner == me else tok.swaps
                swaps[tok.space] = max(0, 2 - used)
        elif tok.where == TOKEN_CAPTURED:
            captured[tok.owner].append((tok.piece or pieces.get(i), tok.captured_turn))
            lost[tok.owner].append(i)
    to_move = info.to_move or me
    tokens = info.tokens
    on_board = lambda i: i is not None and tokens[i].where == BOARD  # noqa: E731
    ban = info.flash_ban
    last = info.last_action
    shown = list(board) if revealed is None else [tokens[i].space for i in revealed if on_board(i)]
    game = cls.from_position(
        board, to_move, mode=info.mode,
        sets={me: (info.setup.clone, info.setup.removed), rival: (world.clone, world.removed)},
        captured=captured, turn=info.turn, passes=info.passes, time_used=info.time_used,
        totem_used=[p for p in PLAYERS if info.totem_used[p]],
        revealed=shown,
        swaps_left=swaps,
        frozen=[tokens[i].space for i in info.frozen if on_board(i)],
        flash_ban=(tokens[ban[1]].space, tokens[ban[2]].space) if ban and on_board(ban[1]) and on_board(ban[2]) else None,
        last_action=None if last is None else {
            "moves": [(a, b) for i, a, b in last.moved if on_board(i) and tokens[i].space == b],
            "captured": last.captured, "on_iris": last.on_iris},
    )
    tower_of: dict[int, int] = {}
    st = game.state
    for i, tok in enumerate(tokens):
        if tok.where == BOARD:
            tower_of[i] = st.board[tok.space]
    for player in (me, rival):
        gone = [t for t in game.towers_of(player) if st.loc[t] == CAPTURED]  # in the order given
        tower_of.update(zip(lost[player], gone))
    return game, tower_of


def exposed_towers(info: InfoState, tower_of: dict[int, int]) -> frozenset[int]:
    """Towers of the world whose identity both players know (the rival knows them)."""
    return frozenset(tower_of[i] for i, t in enumerate(info.tokens) if t.public and i in tower_of)
