"""A cheap evaluation of a world position, from one player's side.

Quin is won by a Light: yours on First Sight, or the rival's captured.  So the
evaluation counts, in points (a Shadow is about 6):

- how many Light moves each Light still needs to reach First Sight (the board
  ignored; a Light in reserve needs a Reinforcement first), 9 points a move;
- material: every tower not on a Zero Gravity board, by piece;
- danger: rival towers that could capture my Light on their next move (far
  worse when the rival knows which tower it is), and the same for the rival's
  Light (which, in a sampled world, is a guess averaged over the worlds).
"""

from __future__ import annotations

from engine.board import GATEWAYS, IS_HORIZON, RAY_FIRST_SIGHT, RAYS, other
from engine.flash import CAPTURE, FLASH_TABLE
from engine.game import EMPTY, RESERVE, Game
from engine.pieces import (
    ACCELERATED_RANGE,
    ARTIFICIAL_LIGHT,
    LIGHT,
    MEMORY,
    PERIPHERAL,
    RANGE,
    REFLECTOR,
    SHADOW,
    TIME,
    VOID,
)

from .tables import CAPTURE_RAYS, LIGHT_MOVES

WIN = 1000.0
SURE = 0.9 * WIN  # the player to move can win at once
VALUE = {
    LIGHT: 0.0,  # losing it ends the game: the terminal value says so
    SHADOW: 6.0,
    ARTIFICIAL_LIGHT: 3.5,
    REFLECTOR: 2.5,
    MEMORY: 3.0,
    TIME: 3.5,
    PERIPHERAL: 3.0,
    VOID: 2.5,
}
RESERVE_FACTOR = 0.8  # a tower in reserve is worth a little less than one in play
LIGHT_STEP = 9.0  # one Light move nearer to First Sight
HUNTED_HIDDEN = 10.0  # ... and the rival does not know which tower it is
HUNTING = 8.0  # the rival's Light can be captured by me next move (it may still flee)


RESERVE_LIGHT_MOVES = {p: 1 + min(LIGHT_MOVES[g] for g in GATEWAYS[p]) for p in GATEWAYS}


def capturers(game: Game, space: int, by: str) -> int:
    """How many towers of ``by`` could capture the tower on ``space`` with one straight move.

    Walks outward from the target along every straight path to the first tower
    (moves are reversible along lines and rings; the Iris's no-U-turn rule and
    the Third Eye diagonals and Slingshots are ignored: an estimate).
    """
    st = game.state
    board, piece, owner = st.board, game.piece, game.owner
    target = board[space]
    if target == EMPTY:
        return 0
    table = FLASH_TABLE[game.mode]
    defender = piece[target]
    count = 0
    for along_horizon, path in CAPTURE_RAYS[space]:
        only_peripheral = IS_HORIZON[space] and not along_horizon
        for i, s in enumerate(path):
            t = board[s]
            if t == EMPTY:
                if IS_HORIZON[s] and not along_horizon:
                    only_peripheral = True
                continue
            if owner[t] == by:
                p = piece[t]
                rng = RANGE[p]
                if p == ARTIFICIAL_LIGHT and game.accelerated(by):
                    rng = ACCELERATED_RANGE
                if i < rng and (p == PERIPHERAL or not only_peripheral) and table[(p, defender)] == CAPTURE:
                    count += 1
            break
    return count


def light_moves(game: Game, player: str, light: int) -> int:
    where = game.state.loc[light]
    if where == RESERVE:
        return RESERVE_LIGHT_MOVES[player]
    return LIGHT_MOVES[where]


def wins_now(game: Game, light: int) -> bool:
    """Can this Light step onto First Sight with its next move (the path clear)?"""
    st = game.state
    where = st.loc[light]
    if where < 0:
        return False
    board = st.board
    for kind, path, _ in RAYS[where]:
        if kind == RAY_FIRST_SIGHT:
            return len(path) <= RANGE[LIGHT] and all(board[s] == EMPTY for s in path[:-1])
    return False


def evaluate(game: Game, me: str, lights: dict[str, int], exposed: frozenset[int]) -> float:
    """The position for ``me``: positive is good.

    ``lights``: each player's Light tower in this world; ``exposed``: my towers
    the rival knows.
    """
    st = game.state
    result = st.result
    if result is not None:
        if result.winner is None:
            return 0.0
        return WIN if result.winner == me else -WIN
    loc = st.loc
    rival = other(me)
    mine, theirs = lights[me], lights[rival]
    mover = st.to_move
    # The player to move wins at once: their Light reaches First Sight, or they
    # capture a Light they know (mine if the rival knows it; the rival's in
    # this world, which the average over the worlds turns into a likelihood).
    if mover == rival:
        if wins_now(game, theirs):
            return -SURE
        if loc[mine] >= 0 and mine in exposed and capturers(game, loc[mine], rival):
            return -SURE
    else:
        if wins_now(game, mine):
            return SURE
        if loc[theirs] >= 0 and capturers(game, loc[theirs], me):
            return SURE
    score = 0.0
    for v, where in zip(_worth(game, me), loc):
        if where >= 0:
            score += v
        elif where == RESERVE:
            score += v * RESERVE_FACTOR
    score -= LIGHT_STEP * light_moves(game, me, mine)
    score += LIGHT_STEP * light_moves(game, rival, theirs)
    if mover == rival:
        if loc[mine] >= 0:
            n = capturers(game, loc[mine], rival)
            if n:
                score -= HUNTED_HIDDEN * min(n, 3)
        if loc[theirs] >= 0 and capturers(game, loc[theirs], me):
            score += HUNTING
    elif loc[mine] >= 0 and capturers(game, loc[mine], rival):
        score -= HUNTING  # I am to move: my Light can still flee
    return score


def _worth(game: Game, me: str) -> tuple[float, ...]:
    """Each tower's value, positive for ``me``'s (kept on the game: a world's pieces never change)."""
    cache = game.__dict__.setdefault("_opponent_worth", {})
    worth = cache.get(me)
    if worth is None:
        worth = cache[me] = tuple(VALUE[p] if o == me else -VALUE[p] for p, o in zip(game.piece, game.owner))
    return worth


def light_of(game: Game, player: str) -> int:
    return next(t for t in game.towers_of(player) if game.piece[t] == LIGHT)
