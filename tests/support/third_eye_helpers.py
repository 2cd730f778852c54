"""Position builders for the Third Eye, perft and property tests.

``build`` makes a real ``Game`` through ``Game.from_position`` (the engine checks the
position) with exactly the described towers on its board.  The
description is ``{"w35": "S", "b33": "v"}``: upper case White, lower case
Black, letters of the engine's drawings (L S A R M T P V).  Towers not placed
are captured long ago (so the Totem could bring them back) unless listed in
``reserve`` (a Light not placed waits in reserve: a captured Light has lost the
game); both Totems start used unless ``totem`` names players, so the tests only
see the actions they are about; ``frozen`` names the mover's towers swapped by a
Third Eye Memory this turn.
"""

from __future__ import annotations

from collections import Counter

from engine.actions import Gravity, Move, Reflect, Resurrect, Swap, Time
from engine.board import BLACK, PLAYERS, SPACE_NAMES, WHITE, parse_space
from engine.game import CAPTURED, EMPTY, Game
from engine.pieces import CLONES, LETTER, piece_set


S = parse_space
N = SPACE_NAMES
PIECE_OF = {v: k for k, v in LETTER.items()}


def _sets(need: Counter) -> tuple[str, str]:
    for clone in CLONES:
        for removed in ("peripheral", "reflector", "void", "time", "memory", "artificial_light"):
            if all(piece_set(clone, removed)[p] >= n for p, n in need.items()):
                return clone, removed
    raise ValueError(f"no setup holds {dict(need)}")


def build(
    towers: dict[str, str],
    to_move: str = WHITE,
    *,
    mode: str = "third_eye",
    reserve: dict[str, str] | None = None,
    totem: tuple[str, ...] = (),
    turn: int = 20,
    captured_turn: int = 1,
    frozen: tuple[str, ...] = (),
) -> Game:
    """A game whose board holds exactly ``towers``; ``reserve`` maps a player to letters."""
    reserve = reserve or {}
    placed: dict[str, list[tuple[int, str]]] = {WHITE: [], BLACK: []}
    for space, letter in towers.items():
        owner = WHITE if letter.isupper() else BLACK
        placed[owner].append((S(space), PIECE_OF[letter.upper()]))
    sets, waiting, lost = {}, {}, {}
    for p in PLAYERS:
        need = Counter(piece for _, piece in placed[p])
        waiting[p] = [PIECE_OF[c.upper()] for c in reserve.get(p, "")]
        need.update(waiting[p])
        sets[p] = _sets(need)
        rest = piece_set(*sets[p]) - need
        if rest["light"]:  # a captured Light has lost the game: a Light not placed waits in reserve
            waiting[p].append("light")
            del rest["light"]
        lost[p] = [(piece, captured_turn) for piece in sorted(rest.elements())]
    return Game.from_position(
        {space: (owner, piece) for owner in PLAYERS for space, piece in placed[owner]},
        to_move,
        mode=mode,
        sets=sets,
        reserve=waiting,
        captured=lost,
        turn=turn,
        totem_used=[p for p in PLAYERS if p not in totem],
        frozen=frozen,
    )


# --- reading and naming -------------------------------------------------------------


def mv(a: str, b: str) -> Move:
    return Move(S(a), S(b))


def swap(m: str, o: str) -> Swap:
    return Swap(S(m), S(o))


def push(at: str, target: str, to: str) -> Time:
    return Time(S(at), S(target), S(to))


def gravity(void: str, moves: dict[str, str]) -> Gravity:
    return Gravity(S(void), tuple(sorted((S(a), S(b)) for a, b in moves.items())))


def reflect(r: str, a: str, b: str) -> Reflect:
    return Reflect(S(r), S(a), S(b))


def resurrect(piece: str, to: str) -> Resurrect:
    return Resurrect(piece, S(to))


def at(game: Game, space: str) -> tuple[str, str] | None:
    t = game.state.board[S(space)]
    return None if t == EMPTY else (game.owner[t], game.piece[t])


def targets(game: Game, frm: str) -> set[str]:
    f = S(frm)
    return {N[a.to] for a in game.legal_actions() if type(a) is Move and a.frm == f}


def of_type(game: Game, kind) -> list:
    return [a for a in game.legal_actions() if type(a) is kind]


def records(actions) -> list[str]:
    """Actions as canonical strings of their record form, sorted (compare as multisets)."""
    import json

    return sorted(json.dumps(a.to_record(), sort_keys=True) for a in actions)


def captured_pieces(game: Game, player: str) -> list[str]:
    return sorted(game.piece[t] for t in game.towers_of(player) if game.state.loc[t] == CAPTURED)


__all__ = ["BLACK", "WHITE", "S", "N", "build", "mv", "swap", "push", "gravity", "reflect",
           "resurrect", "at", "targets", "of_type", "records", "captured_pieces"]
