"""``Game.from_position``: a game built from a position instead of written into ``game.state``.

A position read off a played game (only its public and per-player facts: where towers stand,
what waits and what was captured, whose turn, the bans...) must give the same game from there on:
the same canonical state, the same legal actions, and the same states after the same actions.
Bad input is refused with an InvalidError (a ValueError) naming the field and space, and nothing
is built.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine.actions import PASS, Move, Resurrect, Swap, Time
from engine.board import PLAYERS, SPACE_IDS, SPACE_NAMES
from engine.errors import InvalidError
from engine.game import Game
from engine.pieces import PIECES
from engine.randplay import random_setup
from engine.state import CAPTURED, RESERVE
from engine.views import view

from tests.support.positions import position_of

from tests.support.engine_helpers import BLACK, WHITE, S, at, mv, new_game, play

N = SPACE_NAMES


def records(game: Game) -> Counter:
    return Counter(repr(a.to_record()) for a in game.legal_actions())


def seen(game: Game, viewer) -> dict:
    v = view(game, viewer)
    return {k: v[k] for k in ("board", "reserve", "captured", "totem_used", "turn", "to_move", "result")}


@pytest.mark.parametrize("mode", ["classic", "third_eye"])
def test_a_position_read_off_a_game_is_the_same_game_from_there_on(mode):
    compared = 0
    for seed in range(6):
        rng = random.Random(seed)
        game = Game(random_setup(rng, WHITE), random_setup(rng, BLACK), mode=mode, vision=seed == 5,
                    first=rng.choice(PLAYERS))
        for i in range(120):
            if game.is_over():
                break
            if i % 4 == 0:
                built = Game.from_position(**position_of(game))
                assert built.same_game_key() == game.same_game_key()
                assert records(built) == records(game)
                for viewer in (None, WHITE, BLACK):
                    assert seen(built, viewer) == seen(game, viewer)
                # the same actions (by record) keep them the same game, with the same public events
                events = len(game.events)
                steps = random.Random(i)
                for _ in range(4):
                    if built.is_over():
                        break
                    choice = steps.choice(sorted(records(built)))
                    a = next(a for a in game.legal_actions() if repr(a.to_record()) == choice)
                    b = next(a for a in built.legal_actions() if repr(a.to_record()) == choice)
                    game.push(a)
                    built.push(b)
                    assert built.same_game_key() == game.same_game_key()
                assert [e.to_json() for e in built.events] == [e.to_json() for e in game.events[events:]]
                for _ in range(len(built.log)):
                    game.pop()
                compared += 1
            game.push(rng.choice(game.legal_actions()))
    assert compared > 60


def test_defaults_are_a_turn_start_and_the_rest_of_the_set_waits():
    g = Game.from_position({"w38": ("white", "light"), "b38": ("black", "light")}, WHITE,
                           sets={WHITE: ("time", "void"), BLACK: ("void", "memory")})
    assert g.turn == 1 and g.to_move == WHITE and g.mode == "classic" and not g.is_over()
    reserve = {p: sorted(g.piece[t] for t in g.towers_of(p) if g.state.loc[t] == RESERVE) for p in PLAYERS}
    assert len(reserve[WHITE]) == 16 and "light" not in reserve[WHITE]
    assert Counter(reserve[BLACK])["void"] == 5 and "memory" not in reserve[BLACK]
    assert at(g, "w38") == (WHITE, "light")
    # hidden as in any game: each player knows only their own
    assert [e["piece"] for e in view(g, BLACK)["board"] if e["space"] == "w38"] == [None]
    play(g, mv("w38", "w36"))
    assert g.to_move == BLACK


def test_the_set_is_read_from_the_towers_when_not_given():
    full = {"light": 1, "shadow": 2, "artificial_light": 4, "reflector": 2, "memory": 1, "time": 2,
            "peripheral": 2, "void": 3}  # clone time, removed void
    pieces = [p for p, n in full.items() for _ in range(n)]
    board = {"w38": ("white", "light"), "w18": ("white", "shadow"), "b38": ("black", "light")}
    rest_white = list(pieces)
    rest_white.remove("light")
    rest_white.remove("shadow")
    rest_black = list(pieces)
    rest_black.remove("light")
    g = Game.from_position(board, BLACK, reserve={WHITE: rest_white[:-1], BLACK: rest_black},
                           captured={WHITE: [rest_white[-1]]})
    assert (g.setups[WHITE].clone, g.setups[WHITE].removed) == ("time", "void")
    assert g.to_move == BLACK and len(g.towers) == 34


SETS = {WHITE: ("time", "void"), BLACK: ("time", "void")}


def test_the_flash_ban_reaches_the_rules():
    """Spec 4 (no flash-back): given as (the mover's tower, the tower that flashed it)."""
    board = {"w33": ("white", "void"), "w32": ("black", "shadow"), "w38": ("white", "light"),
             "b38": ("black", "light")}
    free = Game.from_position(board, WHITE, sets=SETS)
    banned = Game.from_position(board, WHITE, sets=SETS, flash_ban=("w33", "w32"))
    assert mv("w33", "w32") in free.legal and mv("w33", "w32") in free.legal_actions()
    assert mv("w33", "w32") not in banned.legal and mv("w33", "w32") not in banned.legal_actions()
    assert banned.why_illegal(mv("w33", "w32")).endswith("flashed it last turn")


def test_passes_and_the_totem_reach_the_rules():
    """Spec 8: "Two consecutive turns ending in a pass draw the game."  White's Light waits on
    Zero Gravity and Black fills White's Gateways: White can only pass (or use the Totem)."""
    board = {"w19": ("black", "peripheral"), "w29": ("black", "peripheral"), "w39": ("black", "void"),
             "w49": ("black", "void"), "w59": ("black", "reflector"), "b19": ("black", "light")}
    fresh = Game.from_position(board, WHITE, sets=SETS, captured={WHITE: [("void", 3)]}, turn=9)
    after_pass = Game.from_position(board, WHITE, sets=SETS, captured={WHITE: [("void", 3)]}, turn=9, passes=1)
    for game, drawn in ((fresh, False), (after_pass, True)):
        assert PASS in game.legal
        game.push(PASS)
        assert game.is_over() is drawn
    totem = Game.from_position(board, WHITE, sets=SETS, captured={WHITE: [("void", 3)]}, turn=9)
    used = Game.from_position(board, WHITE, sets=SETS, captured={WHITE: [("void", 3)]}, turn=9, totem_used=[WHITE])
    assert Resurrect("void", S("b19")) not in totem.legal  # b19 is full
    assert Resurrect("void", S("b29")) in totem.legal and Resurrect("void", S("b29")) not in used.legal
    late = Game.from_position(board, WHITE, sets=SETS, captured={WHITE: [("void", 8)]}, turn=9)
    assert Resurrect("void", S("b29")) not in late.legal  # captured last turn: wait a turn (spec 8)


def test_the_last_action_and_time_used_reach_the_classic_power_of_time():
    """Spec 5 (Time, Classic): not after a capture, not twice a turn; against a Shadow it fails."""
    board = {"w39": ("white", "time"), "w38": ("white", "light"), "b38": ("black", "light"),
             "b35": ("black", "void"), "b34": ("black", "shadow")}
    rewind = Game.from_position(board, WHITE, sets=SETS, turn=6, last_action={"moves": [("b36", "b35")]})
    assert Time(S("w39")) in rewind.legal and rewind.board_effect(Time(S("w39"))).time_outcome == "rewound"
    rewind.push(Time(S("w39")))
    assert at(rewind, "b36") == (BLACK, "void") and at(rewind, "b35") is None
    shadow = Game.from_position(board, WHITE, sets=SETS, turn=6, last_action={"moves": [("b35", "b34")]})
    assert shadow.board_effect(Time(S("w39"))).time_outcome == "failed"
    for kw in ({"last_action": {"moves": [("b36", "b35")], "captured": True}},
               {"last_action": {"moves": [("b36", "b35")]}, "time_used": True},
               {}):
        assert Time(S("w39")) not in Game.from_position(board, WHITE, sets=SETS, turn=6, **kw).legal
    reinforced = Game.from_position(board, WHITE, sets=SETS, turn=6, last_action={"moves": [(RESERVE, "b35")]})
    reinforced.push(Time(S("w39")))
    assert at(reinforced, "b35") is None  # back on Zero Gravity


def test_third_eye_swaps_left_and_frozen_reach_the_rules():
    board = {"w35": ("white", "memory"), "w34": ("white", "void"), "w36": ("white", "shadow"),
             "w38": ("white", "light"), "b38": ("black", "light")}
    kw = {"mode": "third_eye", "sets": SETS}
    assert Swap(S("w35"), S("w34")) in Game.from_position(board, WHITE, **kw).legal
    assert Swap(S("w35"), S("w34")) not in Game.from_position(board, WHITE, swaps_left={"w35": 0}, **kw).legal
    frozen = Game.from_position(board, WHITE, frozen=["w34"], **kw)
    assert Swap(S("w35"), S("w34")) not in frozen.legal and Swap(S("w35"), S("w36")) in frozen.legal
    assert not any(type(a) is Move and a.frm == S("w34") for a in frozen.legal)


LIGHTS = {"w38": ("white", "light"), "b38": ("black", "light")}


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"board": {"x99": ("white", "light")}}, "board: unknown space 'x99'"),
        ({"board": {**LIGHTS, "w35": ("white", "dragon")}}, "board.w35.piece: unknown piece 'dragon'"),
        ({"board": {**LIGHTS, "w35": ("red", "void")}}, "board.w35.owner: unknown player 'red'"),
        ({"board": {**LIGHTS, "w35": "void"}}, "board.w35: expected (owner, piece)"),
        ({"board": {**LIGHTS, "w35": ("white", "void"), SPACE_IDS["w35"]: ("white", "void")}},
         "board.w35: the space is given twice"),
        ({"board": {**LIGHTS, "fs": ("white", "light")}}, "board.fs: a tower on First Sight has already won"),
        ({"to_move": "green"}, "to_move: unknown player 'green'"),
        ({"mode": "blitz"}, "mode: unknown mode 'blitz'"),
        ({"turn": 0}, "turn: expected a whole number from 1"),
        ({"passes": 2}, "passes: 0 or 1"),
        ({"time_used": True, "mode": "third_eye"}, "time_used:"),
        ({"sets": {WHITE: ("light", "void")}}, "sets.white.clone: light is not a clone"),
        ({"sets": {WHITE: ("time", "shadow")}}, "sets.white.removed: shadow may not be removed"),
        ({"sets": {"red": ("time", "void")}}, "sets: unknown player 'red'"),
        ({"board": {**LIGHTS, "w34": ("white", "light")}}, "board: more light of white's than its set has"),
        ({"reserve": {WHITE: ["light"]}}, "reserve.white: more light than its set has left"),
        ({"captured": {WHITE: ["time"] * 3}}, "captured.white: more time than its set has left"),
        ({"sets": {}}, "white: its 1 towers on the board, in reserve and captured are not a set"),
        ({"board": {"b38": ("black", "light")}, "captured": {WHITE: ["light"]}},
         "captured.white: a captured Light has already lost the game"),
        ({"captured": {WHITE: [("void", 9)]}}, "captured.white.void: the turn it was captured, 0 to 1"),
        ({"revealed": ["w11"]}, "revealed.w11: no tower there"),
        ({"revealed": "w38"}, "revealed: expected a list"),
        ({"swaps_left": {"w38": 1}}, "swaps_left: Memory's swaps are counted in Third Eye only"),
        ({"swaps_left": {"w38": 1}, "mode": "third_eye"}, "swaps_left.w38: no Memory there"),
        ({"frozen": ["w38"]}, "frozen: only a Third Eye Memory Swap freezes towers"),
        ({"frozen": ["b38"], "mode": "third_eye"}, "frozen.b38: no tower of white's there"),
        ({"flash_ban": ("b38", "w38")}, "flash_ban.b38: no tower of white's there"),
        ({"flash_ban": ("w38", "w11")}, "flash_ban.w11: no tower of black's there"),
        ({"last_action": {"moves": [("b37", "b36")]}}, "last_action.moves.b36: no tower there"),
        ({"last_action": {"moves": [], "why": 1}}, "last_action: unknown field 'why'"),
        ({"last_action": {"captured": "yes"}}, "last_action.captured: true or false"),
    ],
)
def test_bad_positions_are_refused_naming_the_field(kwargs, message):
    args = {"board": LIGHTS, "to_move": WHITE, "sets": SETS}
    args.update(kwargs)
    with pytest.raises(InvalidError) as err:
        Game.from_position(**args)
    assert isinstance(err.value, ValueError)
    assert message in str(err.value), str(err.value)
    assert "\n" not in str(err.value)


def test_a_game_from_a_position_is_a_subclass_when_asked_on_one():
    class Search(Game):
        pass

    g = Search.from_position({"w38": ("white", "light"), "b38": ("black", "light")},
                             sets={WHITE: ("time", "void"), BLACK: ("time", "void")})
    assert type(g) is Search and g.legal.count() > 0


def test_new_game_and_its_position_agree_at_the_start():
    g = new_game(mode="third_eye")
    built = Game.from_position(**position_of(g))
    assert built.same_game_key() == g.same_game_key() and records(built) == records(g)


def test_towers_are_numbered_as_documented():
    """White's, then Black's; each player's board towers in space order, captured as given, reserve."""
    g = Game.from_position({"w38": ("white", "light"), "w18": ("white", "shadow"), "b38": ("black", "light")},
                           sets=SETS, captured={WHITE: ["void", ("time", 1)]})
    white = g.towers_of(WHITE)
    assert [g.state.loc[t] for t in white[:2]] == [S("w18"), S("w38")]
    assert [(g.piece[t], g.state.loc[t], g.state.captured_turn[t]) for t in white[2:4]] == [
        ("void", CAPTURED, 0), ("time", CAPTURED, 1)]
    assert all(g.state.loc[t] == RESERVE for t in white[4:]) and min(g.towers_of(BLACK)) == len(white)
    assert [g.piece[t] for t in white[4:]] == sorted((g.piece[t] for t in white[4:]), key=PIECES.index)
