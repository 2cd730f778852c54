"""Helpers for the referee's remote-play tests (``Referee.follow``, the hub's answers): positions
built by hand with both Lights out of the way, the commits a table saw, and a rival's action with
its public plan as the practice opponent's driver makes it."""

from __future__ import annotations

from engine.board import SPACE_NAMES as N
from engine.game import Game
from engine.views import action_seen_by
from host.opponent.driver import plan_of

SETS = {"white": ("time", "void"), "black": ("time", "void")}
LETTERS = {"L": "light", "S": "shadow", "P": "peripheral", "V": "void", "R": "reflector", "M": "memory",
           "T": "time", "A": "artificial_light"}


def pos(towers: dict, to_move: str = "white", **kw) -> Game:
    """A game from a position: ``{"w35": "S", "w33": "p"}`` (upper case white, lower case black),
    both Lights out of the way unless placed, every other tower in reserve."""
    board = {}
    for space, letter in towers.items():
        board[space] = ("white" if letter.isupper() else "black", LETTERS[letter.upper()])
    pieces = {v for v in board.values()}
    if ("white", "light") not in pieces:
        board.setdefault("w11", ("white", "light"))
    if ("black", "light") not in pieces:
        board.setdefault("b11", ("black", "light"))
    kw.setdefault("sets", SETS)
    kw.setdefault("turn", 10)
    return Game.from_position(board, to_move, **kw)


def committed(play):
    """(player, action) committed, from on_commit (the referee's game may have been replaced)."""
    return [(p, a) for _, p, a, _ in play.commits]


def followed(game: Game, action, side="black") -> tuple[Game, dict]:
    """The position after ``action`` and its public plan (as host.opponent.driver makes it)."""
    rival = {s for s in game.occupied() if game.owner[game.state.board[s]] != side}
    seen = action_seen_by(game, action, side, None)
    plan = plan_of(action, seen, side, frozenset(N[s] for s in rival))
    game.push(action)
    return game, plan
