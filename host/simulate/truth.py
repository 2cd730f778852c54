"""What an action does to the physical towers, from the engine's truth alone.

The engine's tower ids are the physical towers.  :func:`physical_effect` reads which tower
stands on each space before and after ``game.push(action)``: the towers lifted, put down
and carried, nothing more.  It never asks how anyone would read the board.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine.actions import (
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
from engine.board import EDGES, IS_HORIZON, RAYS, SPACES
from engine.game import EMPTY, Game


@dataclass(frozen=True)
class Effect:
    """The physical change an action makes.  Spaces are ints; None is "off the board"
    (a reserve, a Zero Gravity, or a hand)."""

    moves: tuple[tuple[int, int | None, int | None], ...]  # (tower, from space, to space), by tower
    emptied: frozenset[int]  # occupied before, empty after
    filled: frozenset[int]  # empty before, occupied after
    touched: frozenset[int]  # every space whose tower changed (a flash's target, a swap's two)

    @property
    def footprint(self) -> tuple[frozenset[int], frozenset[int], frozenset[int]]:
        """What any sensor reading could ever show of it: occupancy change and spaces handled."""
        return self.emptied, self.filled, self.touched


def physical_effect(game: Game, action: Action, *, keep: bool = False) -> Effect:
    """The effect of a legal ``action``.  With ``keep`` the action stays pushed on ``game``."""
    st = game.state
    board_before = st.board[:]
    loc_before = st.loc[:]
    game.push(action)
    board_after = game.state.board[:]
    loc_after = game.state.loc[:]
    if not keep:
        game.pop()
    moves = []
    for t in game.towers:
        a, b = loc_before[t], loc_after[t]
        a = a if a >= 0 else None
        b = b if b >= 0 else None
        if a != b:
            moves.append((t, a, b))
    emptied = frozenset(s for s in SPACES if board_before[s] != EMPTY and board_after[s] == EMPTY)
    filled = frozenset(s for s in SPACES if board_before[s] == EMPTY and board_after[s] != EMPTY)
    touched = frozenset(s for s in SPACES if board_before[s] != board_after[s])
    return Effect(tuple(moves), emptied, filled, touched)


def declaration(action: Action) -> tuple:
    """What the mover says on the phone for an action the board alone cannot show."""
    kind = type(action)
    if kind is Reinforce:
        return ("reinforce", tuple(sorted(p for _, p in action.placements)))
    if kind is Resurrect:
        return ("resurrect", action.piece)
    if kind is Time:
        return ("time",)
    if kind is Swap:
        return ("swap",)
    return ()


def _spaces_named(action: Action) -> frozenset[int]:
    kind = type(action)
    if kind is Move or kind is Reflect:
        return frozenset((action.frm, action.to))
    if kind is Gravity:
        return frozenset(s for m in action.moves for s in m)
    if kind is Swap:
        return frozenset((action.memory, action.other))
    if kind is Reinforce:
        return frozenset(s for s, _ in action.placements)
    if kind is Resurrect:
        return frozenset((action.to,))
    if kind is Time:
        return frozenset(s for s in (action.at, action.target, action.to) if s is not None)
    return frozenset()


def look_alikes(game: Game, action: Action) -> list[Action]:
    """Other legal actions a watcher of the board and the phone could not tell from ``action``:
    the same occupancy change and handled spaces, the same declaration."""
    named = _spaces_named(action)
    said = declaration(action)
    mine = None
    found = []
    for other in game.legal_actions():
        if other == action or type(other) is Pass or declaration(other) != said:
            continue
        if _spaces_named(other) != named:  # equal footprints handle the same spaces
            continue
        if mine is None:
            mine = physical_effect(game, action).footprint
        if physical_effect(game, other).footprint == mine:
            found.append(other)
    return found


def straight_path(board: list[int], frm: int, to: int) -> list[int] | None:
    """The spaces between ``frm`` and ``to`` on a straight path whose inner spaces are empty
    (an own Peripheral jumped on the Horizon is passed over), or None if there is none."""
    best = None
    for _, ray, _ in RAYS[frm]:
        if to not in ray:
            continue
        inner = list(ray[: ray.index(to)])
        blocked = [s for s in inner if board[s] != EMPTY]
        if blocked and (len(blocked) > 1 or not IS_HORIZON[blocked[0]]):
            continue
        if best is None or len(inner) < len(best):
            best = inner
    return best


def _adjacency() -> tuple[tuple[int, ...], ...]:
    near: list[list[int]] = [[] for _ in SPACES]
    for a, b, _ in EDGES:
        near[a].append(b)
        near[b].append(a)
    return tuple(tuple(sorted(n)) for n in near)


ADJACENT = _adjacency()


def nearest(space: int, among: set[int] | frozenset[int]) -> int | None:
    """The space of ``among`` closest to ``space`` on the board (breadth first, then by id)."""
    seen = {space}
    ring = [space]
    while ring:
        hits = sorted(s for s in ring if s in among and s != space)
        if hits:
            return hits[0]
        nxt = []
        for s in ring:
            for n in ADJACENT[s]:
                if n not in seen:
                    seen.add(n)
                    nxt.append(n)
        ring = nxt
    return None


def illegal_move(game: Game, rng: random.Random) -> tuple[int, int] | None:
    """An own tower and an empty space such that lifting the one and placing it on the other
    matches no legal action at all (found with the engine's legal actions)."""
    me = game.to_move
    seen = set()
    for a in game.legal_actions():
        if type(a) is Pass:
            continue
        e = physical_effect(game, a)
        if len(e.emptied) == 1 and len(e.filled) == 1:
            seen.add((next(iter(e.emptied)), next(iter(e.filled))))
    st = game.state  # after the pushes and pops above: pop puts back a copy, not the same object
    own = sorted(s for s in SPACES if st.board[s] != EMPTY and game.owner[st.board[s]] == me)
    empty = sorted(s for s in SPACES if st.board[s] == EMPTY)
    rng.shuffle(own)
    for f in own:
        for t in empty:
            if (f, t) not in seen:
                return f, t
    return None


__all__ = ["Effect", "physical_effect", "declaration", "look_alikes", "straight_path", "nearest",
           "illegal_move", "ADJACENT"]
