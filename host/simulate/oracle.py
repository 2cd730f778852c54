"""The simulator's own oracle of "the same game from here on", written apart from the referee.

Two states are the same game when nothing that can change a later legal action or outcome
differs.  :func:`canonical` keeps exactly that, in terms of owners, pieces and spaces:

- each board space: empty, or the tower's owner and piece, its Memory swaps left (Third
  Eye), and whether it was swapped by Memory this turn (frozen).  Tower identities are
  dropped: two towers of one owner and piece with equal swaps left, neither frozen, are
  interchangeable;
- the flash-back ban, as the spaces of the two towers it binds, while it can still bind;
- reserves as multisets of (owner, piece); captured towers as multisets of (owner, piece,
  the turn it was captured while that still bars its Resurrection);
- turn, player to move, Time used this turn, Totems used, passes in a row, the result;
- Classic only: the facts of the last turn-ending action the Power of Time reads (who, a
  capture, ending on the Iris, a Shadow moved, and each moved tower as owner, piece, from,
  to and whether it still stands there).  In Third Eye that record is never read.

Nothing of the history, the events or who knows which identity (a flash reveals towers,
which changes no legal action) is part of it.
"""

from __future__ import annotations

from engine.actions import Action
from engine.game import CAPTURED, EMPTY, RESERVE, Game
from engine.pieces import MEMORY


def canonical(game: Game) -> tuple:
    """The game's state up to what cannot matter from here on (see the module docstring)."""
    st = game.state
    owner, piece = game.owner, game.piece
    third_eye = game.third_eye
    frozen = st.frozen
    board = []
    for t in st.board:
        if t == EMPTY:
            board.append(None)
        else:
            swaps = st.swaps_left[t] if third_eye and piece[t] == MEMORY else 0
            board.append((owner[t], piece[t], swaps, t in frozen))
    reserve = []
    captured = []
    for t in game.towers:
        where = st.loc[t]
        if where == RESERVE:
            reserve.append((owner[t], piece[t]))
        elif where == CAPTURED:
            when = st.captured_turn[t]
            captured.append((owner[t], piece[t], when if when + 2 > st.turn else 0))
    ban = None
    if st.flash_ban is not None and st.flash_ban[0] >= st.turn:
        turn, defender, attacker = st.flash_ban
        if st.loc[defender] >= 0 and st.loc[attacker] >= 0:
            ban = (turn, st.loc[defender], st.loc[attacker])
    last = None
    if not third_eye and st.last_action is not None:
        la = st.last_action
        moved = frozenset((owner[t], piece[t], a, b, st.loc[t] == b) for t, a, b in la.moved)
        last = (la.player, la.captured, la.on_iris, la.moved_shadow, moved)
    return (
        tuple(board),
        tuple(sorted(reserve)),
        tuple(sorted(captured)),
        ban,
        st.turn,
        st.to_move,
        st.time_used,
        tuple(st.totem_used),
        st.passes,
        st.result,
        last,
    )


def canonical_after(game: Game, action: Action) -> tuple:
    """The canonical form after ``action`` (legal in ``game``), leaving ``game`` as it was."""
    game.push(action)
    try:
        return canonical(game)
    finally:
        game.pop()


def same_game(game: Game, a: Action, b: Action) -> bool:
    """Do actions ``a`` and ``b`` (both legal now) leave the same game from here on?"""
    return a == b or canonical_after(game, a) == canonical_after(game, b)


def outcomes(game: Game, options: list[Action]) -> set[tuple]:
    """The distinct games the options lead to (each option legal now)."""
    return {canonical_after(game, a) for a in options}


__all__ = ["canonical", "canonical_after", "same_game", "outcomes"]
