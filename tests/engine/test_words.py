"""``engine.words``: what the mover may declare, why a word cannot apply, what Time will do.

Hand-written positions with every expected answer written out, and a property on random positions:
every answer depends only on what the mover knows (the rival's hidden identities permuted among
their towers change nothing but a Classic Time's outcome, which the rival's hidden Shadow decides).
"""

from __future__ import annotations

import random

import pytest

from engine import words
from engine.actions import Gravity, Move, Reinforce
from engine.board import other
from engine.game import Game
from engine.state import BOTH

from tests.support.positions import position_of, random_positions

from tests.support.engine_helpers import WHITE, S

SETS = {"white": ("time", "peripheral"), "black": ("time", "peripheral")}


def position(board: dict[str, tuple[str, str]], to_move: str = WHITE, **kw) -> Game:
    return Game.from_position(board, to_move, sets=kw.pop("sets", SETS), **kw)


# --- declarations --------------------------------------------------------------------------------


def test_declarations_name_the_reinforcements_resurrections_time_and_swap_the_mover_may_declare():
    """Spec 5: "Reinforce: one own reserve tower onto an empty own Gateway; or any number of
    Artificial Lights at once onto empty own Gateways"; the Totem brings back a tower captured
    before the rival's last turn."""
    g = position({"w19": ("white", "shadow"), "w29": ("white", "shadow"), "w39": ("white", "void"),
                  "w38": ("white", "light"), "w37": ("white", "memory"), "w36": ("white", "reflector"),
                  "b38": ("black", "light")},
                 reserve={"white": ["artificial_light"] * 4 + ["void", "void", "time", "time", "peripheral"]},
                 captured={"white": ["reflector", ("void", 20)]}, turn=20)
    said = words.declarations(g)
    # two Gateways free (w49, w59): a single piece of each kind, or two Artificial Lights
    assert said.reinforce == (("artificial_light",), ("peripheral",), ("time",), ("void",),
                              ("artificial_light", "artificial_light"))
    assert said.resurrect == ("reflector",)  # the Void was captured this turn: it waits (spec 8)
    assert said.swap is True  # the Memory on w37 and any tower on White's half
    assert said.time is False  # no rival action to rewind, and no Time tower on the board


def test_declarations_are_empty_when_nothing_needs_a_word():
    """Every Gateway full, the Totem used, no Memory and no Time tower on the board."""
    full = {f"w{k}9": ("white", p) for k, p in zip(range(1, 6), ("shadow", "shadow", "void", "void", "reflector"))}
    g = position(full | {"w38": ("white", "light"), "b38": ("black", "light")}, totem_used=["white"])
    assert words.declarations(g) == words.Declarations((), (), False, False)
    assert words.time_forecast(g) is None


def test_time_is_declarable_after_a_rival_move_and_its_forecast_says_what_it_does():
    """Spec 5, Time (Classic): the action is undone exactly, unless it moved a Shadow: then the power
    fails and the Shadow is revealed."""
    for piece, outcome in (("void", "rewound"), ("shadow", "failed")):
        g = position({"w36": ("white", "time"), "w38": ("white", "light"), "b38": ("black", "light"),
                      "b35": ("black", piece)},
                     last_action={"moves": [("b37", "b35")]})
        assert words.declarations(g).time is True
        assert words.time_forecast(g) == words.TimeForecast((S("w36"),), outcome)


def test_third_eye_time_pushes_and_two_time_towers_are_both_named():
    g = position({"w36": ("white", "time"), "w16": ("white", "time"), "w38": ("white", "light"),
                  "b38": ("black", "light"), "b35": ("black", "void")}, mode="third_eye")
    assert words.time_forecast(g) == words.TimeForecast((S("w16"), S("w36")), "pushed")


def test_no_time_forecast_without_a_legal_time():
    g = position({"w36": ("white", "time"), "w38": ("white", "light"), "b38": ("black", "light")})
    assert words.time_forecast(g) is None


def test_destinations_are_the_moves_and_reflections_by_start_space():
    """Spec 5, Reflection: a Light on the Reflector's Sight Line jumps to the space in front of or
    behind the Reflector, over any towers."""
    g = position({"w38": ("white", "light"), "w35": ("white", "reflector"), "w19": ("white", "shadow"),
                  "b38": ("black", "light")}, sets={"white": ("time", "peripheral"),
                                                      "black": ("time", "peripheral")})
    got = words.destinations(g)
    moves = {a for a in g.legal_actions() if type(a) is Move}
    assert set(got[S("w38")]) == {a.to for a in moves if a.frm == S("w38")} | {S("w34"), S("w36")}
    assert S("w36") in got[S("w38")] and S("w34") in got[S("w38")]
    assert all(len(set(v)) == len(v) for v in got.values())
    assert set(got) == {a.frm for a in moves}


# --- why a word cannot apply ---------------------------------------------------------------------


def test_why_not_names_what_stops_each_word():
    full = {f"w{k}9": ("white", p) for k, p in zip(range(1, 6), ("shadow", "shadow", "void", "void", "reflector"))}
    g = position(full | {"w38": ("white", "light"), "b38": ("black", "light")}, totem_used=["white"])
    assert words.why_not(g, "reinforce", ("void",)) == "reinforce is not possible: none of your Gateways is empty"
    assert words.why_not(g, "swap") == "swap is not possible: no Memory of yours can swap now"
    assert words.why_not(g, "time") == "time is not possible: you have no Time tower on the board"
    assert words.why_not(g, "resurrect", piece="void") == "resurrect void is not allowed: the Totem has been used this game"

    two_free = position({"w19": ("white", "shadow"), "w29": ("white", "shadow"), "w39": ("white", "void"),
                         "w38": ("white", "light"), "b38": ("black", "light")})
    assert (words.why_not(two_free, "reinforce", ("void", "void", "void"))
            == "reinforce is not possible: only 2 of your Gateways are empty")
    assert (words.why_not(two_free, "reinforce", ("void", "void"))
            == "reinforce is not allowed: only Artificial Lights come in several at once")
    assert words.why_not(two_free, "reinforce", ("void",)) == ""

    blocked = position({"w36": ("white", "time"), "w38": ("white", "light"), "b38": ("black", "light"),
                        "b35": ("black", "void")}, last_action={"moves": [("b37", "b35")], "captured": True})
    assert words.why_not(blocked, "time") == "time is not allowed: the rival's last action made a capture"


def test_why_not_refuses_an_unknown_word():
    g = position({"w38": ("white", "light"), "b38": ("black", "light")})
    with pytest.raises(ValueError):
        words.why_not(g, "done")


# --- only what the mover knows -------------------------------------------------------------------


def _rival_hidden_permuted(game: Game, rng: random.Random) -> Game:
    """The same position with the rival's hidden towers on the board given each other's pieces."""
    kw = position_of(game)
    rival = other(game.to_move)
    st = game.state
    spaces = [s for s, t in enumerate(st.board) if t >= 0 and game.owner[t] == rival and st.known[t] != BOTH]
    # (a Third Eye Memory keeps its place: its swaps left are counted on its space)
    names = [k for k, (o, p) in kw["board"].items() if S(k) in spaces and p != "memory"]
    pieces = [kw["board"][k][1] for k in names]
    rng.shuffle(pieces)
    for k, p in zip(names, pieces):
        kw["board"][k] = (rival, p)
    kw.pop("sets")  # the set is read from the towers (the same pieces, so the same set)
    return Game.from_position(**kw)


def _answers(game: Game) -> tuple:
    forecast = words.time_forecast(game)
    said = words.declarations(game)
    pieces = {p for ps in said.reinforce for p in ps} | {"void", "shadow", "artificial_light"}
    whys = tuple(words.why_not(game, "reinforce", (p,)) for p in sorted(pieces))
    whys += tuple(words.why_not(game, "resurrect", piece=p) for p in ("void", "shadow", "time"))
    whys += (words.why_not(game, "time"), words.why_not(game, "swap"))
    return said, words.destinations(game), forecast and forecast.towers, whys, words.composable(game)


@pytest.mark.parametrize("mode", ["classic", "third_eye"])
def test_every_answer_depends_only_on_what_the_mover_knows(mode):
    rng = random.Random(7)
    compared = 0
    for game in random_positions(mode, 25, seed=1900, least=20):
        mine = _answers(game)
        for _ in range(3):
            twin = _rival_hidden_permuted(game, rng)
            assert _answers(twin) == mine
            compared += 1
    assert compared == 75


# --- what the mover composes ---------------------------------------------------------------------


def test_composable_names_void_gravitys_anchors_and_the_empty_gateways():
    """Spec 5, Void Gravity (Third Eye): a Void off the Iris pulls other own Voids onto the empty
    spaces around it; Reinforce: Artificial Lights at once onto empty own Gateways."""
    g = position({"w23": ("white", "void"), "w26": ("white", "void"), "w59": ("white", "shadow"),
                  "w38": ("white", "light"), "b38": ("black", "light")}, mode="third_eye")
    gravity, gateways = words.composable(g)
    assert set(gravity) == {S("w23"), S("w26")}
    for anchor, spots in gravity.items():
        assert spots == tuple(sorted(spots)) and spots
        assert all(g.state.board[s] < 0 for s in spots)
    assert gateways == tuple(sorted(S(f"w{k}9") for k in range(1, 5)))  # w59 holds the Shadow
    classic = position({"w23": ("white", "void"), "w26": ("white", "void"), "w38": ("white", "light"),
                        "b38": ("black", "light")})
    assert words.composable(classic)[0] == {}  # Void Gravity is Third Eye's
    one = position({"w23": ("white", "void"), "w38": ("white", "light"), "b38": ("black", "light")}, mode="third_eye")
    assert words.composable(one)[0] == {}  # a lone Void pulls nothing


def test_composable_covers_every_legal_gravity_and_reinforcement_on_random_positions():
    """What the mover composes from the hints includes every legal action that is not listed."""
    seen = 0
    for game in random_positions("third_eye", 30, seed=3200, least=10):
        gravity, gateways = words.composable(game)
        for action in game.legal_actions():
            if type(action) is Gravity:
                assert action.void in gravity
                assert {b for _, b in action.moves} <= set(gravity[action.void])
                seen += 1
            elif type(action) is Reinforce:
                assert {s for s, _ in action.placements} <= set(gateways)
    assert seen > 0
