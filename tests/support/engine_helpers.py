"""Position-building helpers shared by the engine tests.

Two honest ways to reach a position:

* ``new_game()`` builds a game from real setups (validated by ``make_setup``)
  and tests play legal actions with ``play``;
* ``record()`` builds a ``quin-record/1`` dict that ``load_record``/``replay``
  (and the CLI) check from scratch.

For positions that would take many turns to reach, ``position()`` builds the
game with ``Game.from_position`` (which validates the position).  Its
description is compact:
``{"w35": "S", "b33": "v"}`` puts a White Shadow on w35 and a Black Void on
b33 (upper case White, lower case Black, the letters of the engine's
drawings: L S A R M T P V).
"""

from __future__ import annotations

import json
from collections import Counter

from engine.actions import Move, Reflect, Reinforce, Resurrect, Swap, Time
from engine.board import BLACK, PLAYERS, START_SPACES, WHITE, parse_space
from engine.game import CAPTURED, EMPTY, INDEX, RESERVE, Game
from engine.pieces import (
    ARTIFICIAL_LIGHT,
    LETTER,
    LIGHT,
    NOT_REMOVABLE,
    PIECES,
    SHADOW,
    make_setup,
    piece_set,
)

S = parse_space
PIECE_OF_LETTER = {v: k for k, v in LETTER.items()}

# A standard lineup: clone time, removed void.  Reserve: 4 AL, 1 reflector, 1 time, 1 void.
WHITE_LINEUP = {
    "w19": "void", "w29": "memory", "w39": "time", "w49": "reflector", "w59": "void",
    "w18": "shadow", "w28": "peripheral", "w38": "light", "w48": "peripheral", "w58": "shadow",
}
BLACK_LINEUP = {"b" + k[1:]: v for k, v in WHITE_LINEUP.items()}


def setup(player: str, lineup: dict[str, str] | None = None, clone: str = "time", removed: str = "void"):
    if lineup is None:
        lineup = WHITE_LINEUP if player == WHITE else BLACK_LINEUP
    return make_setup(player, clone, removed, {S(k): v for k, v in lineup.items()})


def new_game(white=None, black=None, mode="classic", vision=False, first=WHITE) -> Game:
    """A game from the standard setups (or the given lineups dicts)."""
    return Game(setup(WHITE, white), setup(BLACK, black), mode=mode, vision=vision, first=first)


def record(turns=(), white=None, black=None, mode="classic", first=WHITE, **extra) -> dict:
    """A quin-record/1 dict; ``turns`` is a list of (player, [action record dicts])."""
    data = {
        "format": "quin-record/1",
        "mode": mode,
        "first": first,
        "setup": {
            "white": {"clone": "time", "removed": "void", "lineup": dict(white or WHITE_LINEUP)},
            "black": {"clone": "time", "removed": "void", "lineup": dict(black or BLACK_LINEUP)},
        },
        "turns": [{"player": p, "actions": list(a)} for p, a in turns],
    }
    data = json.loads(json.dumps(data))  # a fresh copy: tests may edit it
    data.update(extra)
    return data


# --- actions by name ---------------------------------------------------------------


def mv(a: str, b: str) -> Move:
    return Move(S(a), S(b))


def reflect(reflector: str, a: str, b: str) -> Reflect:
    return Reflect(S(reflector), S(a), S(b))


def swap(memory: str, other: str) -> Swap:
    return Swap(S(memory), S(other))


def time_at(space: str) -> Time:
    return Time(S(space))


def reinforce(**placements: str) -> Reinforce:
    return Reinforce(tuple(sorted((S(k), v) for k, v in placements.items())))


def resurrect(piece: str, space: str) -> Resurrect:
    return Resurrect(piece, S(space))


def play(game: Game, *actions) -> Game:
    for a in actions:
        game.push(a)
    return game


# --- reading a game ------------------------------------------------------------------


def at(game: Game, space: str) -> tuple[str, str] | None:
    """(owner, piece) of the tower on ``space``, or None."""
    t = game.state.board[S(space)]
    return None if t == EMPTY else (game.owner[t], game.piece[t])


def captured(game: Game, player: str) -> list[str]:
    """Pieces of ``player`` that are captured (on the rival's Zero Gravity), sorted."""
    return sorted(game.piece[t] for t in game.towers_of(player) if game.state.loc[t] == CAPTURED)


def reserve(game: Game, player: str) -> list[str]:
    return sorted(game.piece[t] for t in game.towers_of(player) if game.state.loc[t] == RESERVE)


def move_targets(game: Game, frm: str) -> set[str]:
    """Destinations of the legal moves from ``frm`` (names)."""
    from engine.board import SPACE_NAMES

    f = S(frm)
    return {SPACE_NAMES[a.to] for a in game.legal_actions() if type(a) is Move and a.frm == f}


def legal_of(game: Game, kind) -> list:
    return [a for a in game.legal_actions() if type(a) is kind]


def consistent(game: Game) -> bool:
    st = game.state
    for s, t in enumerate(st.board):
        if t != EMPTY and st.loc[t] != s:
            return False
    return all(st.board[s] == t for t, s in enumerate(st.loc) if s >= 0)


# --- direct positions ------------------------------------------------------------------


def _parse_pieces(spec) -> list[str]:
    out = []
    for p in spec:
        out.append(PIECE_OF_LETTER.get(p.upper(), p) if len(p) == 1 else p)
    return out


def _choose_set(need: Counter) -> tuple[str, str]:
    """A clone and a removed piece giving at least ``need`` of every piece."""
    for clone in ("time", "void", "memory", "artificial_light"):
        for removed in ("void", "peripheral", "reflector", "time", "memory", "artificial_light"):
            have = piece_set(clone, removed)
            if all(have[p] >= n for p, n in need.items()):
                return clone, removed
    raise ValueError(f"no clone/removed choice gives {dict(need)}")


def _lineup_for(player: str, clone: str, removed: str) -> dict[int, str]:
    """The player's starting spaces filled in piece order (no Artificial Light)."""
    have = piece_set(clone, removed)
    pool = [p for p in PIECES for _ in range(have[p]) if p != ARTIFICIAL_LIGHT]
    return dict(zip(START_SPACES[player], pool))


def position(
    towers: dict[str, str],
    to_move: str = WHITE,
    *,
    captured: dict[str, list[str]] | None = None,
    reserve: dict[str, list[str]] | None = None,
    turn: int = 10,
    captured_turn: int | None = None,
    revealed: tuple[str, ...] = (),
    totem_used: tuple[str, ...] = (),
    passes: int = 0,
    mode: str = "classic",
    vision: bool = False,
    sets: dict[str, tuple[str, str]] | None = None,
) -> Game:
    """A game whose board holds exactly ``towers`` ({space: letter or piece}).

    Per player, towers not on the board are in reserve, except those listed in
    ``captured[player]``; if ``reserve[player]`` is given instead, exactly those
    are in reserve and the rest are captured.  Captured towers were captured on
    ``captured_turn`` (default: long ago, so they may be resurrected).
    ``revealed`` lists spaces whose towers both players know.  ``sets``
    overrides a player's (clone, removed) choice.  ``passes`` is the number of
    turns just before this one that ended in a pass (1: the rival just passed).
    """
    captured = captured or {}
    reserve = reserve or {}
    placed: dict[str, list[tuple[int, str]]] = {WHITE: [], BLACK: []}
    for space, p in towers.items():
        if len(p) == 1:
            owner = WHITE if p.isupper() else BLACK
            piece = PIECE_OF_LETTER[p.upper()]
        else:
            owner, piece = p.split(":")  # "white:light"
        placed[owner].append((S(space), piece))
    chosen = {}
    waiting: dict[str, list[str]] = {}
    lost: dict[str, list[tuple[str, int]]] = {}
    when = max(0, turn - 10) if captured_turn is None else captured_turn
    for player in PLAYERS:
        need = Counter(p for _, p in placed[player])
        need.update(_parse_pieces(captured.get(player, ())))
        need.update(_parse_pieces(reserve.get(player, ())))
        chosen[player] = (sets or {}).get(player) or _choose_set(need)
        rest = piece_set(*chosen[player]) - Counter(p for _, p in placed[player])
        if player in reserve:
            waiting[player] = _parse_pieces(reserve[player])
            off = rest - Counter(waiting[player])
        else:
            off = Counter(_parse_pieces(captured.get(player, ())))
            waiting[player] = [p for p in PIECES for _ in range((rest - off)[p])]
        lost[player] = [(p, when) for p in PIECES for _ in range(off[p])]
    game = Game.from_position(
        {space: (owner, piece) for owner in PLAYERS for space, piece in placed[owner]},
        to_move,
        mode=mode,
        vision=vision,
        sets=chosen,
        reserve=waiting,
        captured=lost,
        turn=turn,
        passes=passes,
        totem_used=totem_used,
        revealed=[S(s) for s in revealed],
    )
    assert consistent(game)
    return game


__all__ = [
    "BLACK", "WHITE", "LIGHT", "SHADOW", "INDEX", "S", "position", "new_game", "record", "setup",
    "mv", "reflect", "swap", "time_at", "reinforce", "resurrect", "play", "at", "captured",
    "reserve", "move_targets", "legal_of", "consistent", "WHITE_LINEUP", "BLACK_LINEUP",
    "NOT_REMOVABLE",
]


def _move_record(a: str, b: str) -> dict:
    return {"type": "move", "from": a, "to": b}


# A legal game of four turns as a record's turns (its actions as a record writes them), which the
# CLI's tests replay (tests/engine/test_cli.py, tests/host/test_cli_files.py).
# White: w38 light, w58/w18 shadows; Black: b38 light, b39 time, b58/b18 shadows (the standard lineup above)
LEGAL_TURNS = [
    ("white", [_move_record("w58", "w51")]),
    ("black", [_move_record("b58", "b51")]),
    ("white", [_move_record("w51", "b51")]),  # w51, wi, bi, b51: Shadow flashes Shadow, swap
    ("black", [{"type": "time", "at": "b39"}, _move_record("b38", "b37")]),  # Time fails against the Shadow
]
