"""One test (or a small group) per rule statement of the rulebook's Classic text.

Each docstring quotes the rulebook sentence (and, where the rulebook is silent,
the spec ruling) the test checks.
"""

import pytest

from engine.actions import PASS, Reflect, Reinforce, Resurrect, Swap, Time
from engine.errors import IllegalError, InvalidError
from engine.game import CAPTURED
from engine.pieces import RANGE, make_setup
from engine.record import ReplayError, play_turn
from engine.views import view

from tests.support.engine_helpers import (
    BLACK_LINEUP,
    WHITE_LINEUP,
    S,
    at,
    captured,
    legal_of,
    move_targets,
    mv,
    new_game,
    play,
    position,
    reflect,
    reinforce,
    reserve,
    resurrect,
    swap,
    time_at,
)

LIGHTS = {"w19": "L", "b19": "l"}  # both Lights parked on a Gateway, out of the way


def pieces_in_view(game, viewer):
    return {e["space"]: (e["owner"], e["piece"]) for e in view(game, viewer)["board"]}


# --- moving -----------------------------------------------------------------------------

LETTER = {"light": "L", "shadow": "S", "artificial_light": "A", "reflector": "R", "memory": "M",
          "time": "T", "peripheral": "P", "void": "V"}


@pytest.mark.parametrize("piece", sorted(RANGE))
def test_range_per_piece(piece):
    """Move a Tower: "...up to as many spaces as the Moves number indicated for your piece. You don't have
    to move the full amount". Light 2, Shadow 7, Artificial Light 2, Reflector 2, Memory 2, Time 1,
    Peripheral 3, Void 1."""
    expected_range = {"light": 2, "shadow": 7, "artificial_light": 2, "reflector": 2, "memory": 2,
                      "time": 1, "peripheral": 3, "void": 1}[piece]
    towers = {"w38": LETTER[piece], "b19": "l"}
    if piece != "light":
        towers["w19"] = "L"
    g = position(towers)
    inward = {t for t in move_targets(g, "w38") if t.startswith("w3") and t != "w39"}
    assert inward == {f"w3{8 - k}" for k in range(1, expected_range + 1)}


def test_cannot_jump_or_change_direction():
    """Move a Tower: "You can't change direction during a move, or jump over other pieces." """
    g = position({"w35": "S", "w33": "V", "w38": "v", **LIGHTS})
    targets = move_targets(g, "w35")
    assert "w34" in targets and "w33" not in targets and "w32" not in targets  # own tower blocks
    assert {"w36", "w37", "w38"} <= targets and "w39" not in targets  # rival tower stops the move
    assert "w24" not in targets and "w26" not in targets  # no turning from the line onto a ring
    assert g.why_illegal(mv("w35", "w32")) == "is blocked at w33"
    assert g.why_illegal(mv("w35", "w39")) == "is blocked at w38"
    assert g.why_illegal(mv("w35", "w24")) == "is not along one Sight Line, ring or the Horizon"
    with pytest.raises(IllegalError, match="move w35-w32 is blocked at w33"):
        g.push(mv("w35", "w32"))


def test_sideways_on_a_ring():
    """Rings: "8 Rings circle the board, and all Towers can move sideways on them." """
    g = position({"w36": "P", **LIGHTS})
    assert {"w26", "w16", "w46", "w56"} <= move_targets(g, "w36")
    g = position({"w18": "V", **LIGHTS})
    assert move_targets(g, "w18") == {"w17", "w28"}  # w19 holds the own Light


def test_no_ring_across_the_gateways():
    """Gateways: "There is no Ring connecting Gateways, so you can't move sideways across them." """
    g = position({"w39": "S", **LIGHTS})
    assert move_targets(g, "w39") == {f"w3{r}" for r in range(2, 9)}


def test_iris_crossing_exits_on_any_of_the_three_lines():
    """The Iris: "Move from one of the 2 Iris spaces, jumping over center to count the other Iris space, and
    exit on your choice of one of the 3 connecting Sight Lines on the other side." """
    g = position({"w33": "S", **LIGHTS})
    targets = move_targets(g, "w33")
    # w32, w31, wi, bi: 4 steps; then 3 more on any of Black's lines 1, 3, 5
    assert {"wi", "bi"} <= targets
    for k in (1, 3, 5):
        assert {f"b{k}1", f"b{k}2", f"b{k}3"} <= targets
        assert f"b{k}4" not in targets
    assert not any(t.startswith(("b2", "b4")) for t in targets)
    assert "fs" not in targets


def test_iris_counts_each_iris_space():
    """The Iris: "...jumping over center to count the other Iris space"."""
    g = position({"w31": "R", **LIGHTS})  # range 2: wi, bi
    targets = move_targets(g, "w31")
    assert {"wi", "bi"} <= targets and "b31" not in targets


def test_no_u_turns_on_the_iris():
    """The Iris: "No U-Turns: Turning around on the Iris requires a 2nd move." """
    g = position({"w33": "S", **LIGHTS})
    targets = move_targets(g, "w33")
    assert not ({"w11", "w12", "w51", "w52"} & targets)  # not back out on White's side via wi
    g.push(mv("w33", "wi"))
    g.push(mv("b19", "b18"))
    # standing on the Iris, the second move may leave on White's side
    assert {"w11", "w12", "w51", "w52", "w31"} <= move_targets(g, "wi")


def test_lines_2_and_4_do_not_reach_the_iris():
    """Sight Lines: "Sight Lines 2 and 4 do not, instead stopping 1 space early. These are guarded positions,
    not accessible directly from the Iris, requiring a sideways move." """
    g = position({"w24": "S", **LIGHTS})
    assert {t for t in move_targets(g, "w24") if t.startswith("w2")} == {"w23", "w22", "w25", "w26", "w27", "w28", "w29"}
    g = position({"wi": "S", **LIGHTS})
    assert not any(t.startswith(("w2", "w4", "b2", "b4")) for t in move_targets(g, "wi"))


def test_only_the_peripheral_accesses_the_horizon():
    """Rings & The Horizon: "Only the Peripheral can access the Horizon, via the 5 inner Rings. No other piece
    can. Only the Peripheral will ever move on or pass over the Horizon." """
    g = position({"w15": "S", "w13": "P", **LIGHTS})
    assert not any(t.startswith("h") or t.startswith("b") for t in move_targets(g, "w15"))
    assert g.why_illegal(mv("w15", "hw5")) == "is not allowed: only a Peripheral may move onto or over the Horizon"
    assert g.why_illegal(mv("w15", "b55")) == "is not allowed: only a Peripheral may move onto or over the Horizon"
    peri = move_targets(g, "w13")
    assert {"hw3", "b53", "b43"} <= peri  # onto and across the Horizon via Ring 3


def test_peripheral_moves_along_the_horizon_but_not_to_the_iris():
    """The Iris: "The Horizon does not connect to the Iris." """
    g = position({"hw2": "P", **LIGHTS})
    targets = move_targets(g, "hw2")
    assert {"hw1", "hw3", "hw4", "hw5"} <= targets
    assert not ({"wi", "bi", "fs", "he1"} & targets)


def test_the_blue_dots_are_not_spaces():
    """The Horizon: "The blue dots to the left and right of the Horizon connect to other universes, and are not
    playable spaces." Rings 6..8 end at Sight Lines 1 and 5."""
    g = position({"w16": "P", **LIGHTS})
    assert {t for t in move_targets(g, "w16") if t[2] == "6"} == {"w26", "w36", "w46"}


def test_only_light_lands_on_first_sight_and_wins():
    """Winning: "Only Light can land on First Sight, the center space of the board." and "Reach First Sight
    with your Light"."""
    g = position({"w31": "L", "w51": "S", "b19": "l"})
    assert "fs" in move_targets(g, "w31")
    assert "fs" not in move_targets(g, "w51")
    assert g.why_illegal(mv("w51", "fs")) == "is not allowed: only Light may land on First Sight"
    g.push(mv("w31", "fs"))
    assert (g.result.status, g.result.winner, g.result.reason) == ("won", "white", "first_sight")
    assert g.legal_actions() == []
    with pytest.raises(IllegalError, match="the game is over"):
        g.push(mv("b19", "b18"))


def test_light_reaches_first_sight_from_either_iris_space():
    """The Iris: "Only Light can land on First Sight (Center), and this will win the game." """
    g = position({"bi": "L", "b19": "l"})
    assert "fs" in move_targets(g, "bi")
    g = position({"w32": "L", "b19": "l"})
    assert "fs" not in move_targets(g, "w32")  # w31, wi, fs is 3 spaces


def test_move_may_not_end_on_a_friendly_tower():
    """Spec 3: "A move may not end on a friendly tower. A move onto a rival tower stops there and is a flash." """
    g = position({"w35": "S", "w37": "V", **LIGHTS})
    assert "w37" not in move_targets(g, "w35")
    assert g.why_illegal(mv("w35", "w37")) == "is not allowed: w37 holds your own tower"


def test_capturing_the_rival_light_wins():
    """Winning: "Capture Light: Capture your rival's Light before they reach First Sight." """
    g = position({"w35": "P", "w37": "l", "w19": "L"})
    g.push(mv("w35", "w37"))
    assert (g.result.status, g.result.winner, g.result.reason) == ("won", "white", "light_captured")


# --- flashes -------------------------------------------------------------------------------


def test_flash_reveals_both_towers_to_both_players():
    """Flash!: "Both pieces are revealed, each player showing the type of their piece." """
    g = position({"w35": "M", "w36": "p", **LIGHTS})
    assert pieces_in_view(g, "black")["w35"] == ("white", None)
    assert pieces_in_view(g, "white")["w36"] == ("black", None)
    g.push(mv("w35", "w36"))  # memory swaps
    for viewer in ("white", "black", None):
        seen = pieces_in_view(g, viewer)
        assert seen["w36"] == ("white", "memory")
        assert seen["w35"] == ("black", "peripheral")
    # the uninvolved towers stay hidden
    assert pieces_in_view(g, "black")["w19"] == ("white", None)


def test_defenders_never_capture():
    """Capture: "Defenders can never capture the attacker outright; only the attacker's capture rule is
    considered." A Reflector flashing a Shadow swaps: the Shadow does not capture it."""
    g = position({"w35": "R", "w36": "s", **LIGHTS})
    g.push(mv("w35", "w36"))
    assert at(g, "w36") == ("white", "reflector") and at(g, "w35") == ("black", "shadow")


def test_memory_or_reflector_flashing_light_reveals_but_does_not_win():
    """Light: "Memory and Reflectors can flash Light to reveal it and swap places. This will not end the
    game" """
    g = position({"w35": "M", "w36": "l", "w19": "L"})
    g.push(mv("w35", "w36"))
    assert g.result is None
    assert at(g, "w35") == ("black", "light")
    assert pieces_in_view(g, "white")["w35"] == ("black", "light")


# --- no flash-backs ---------------------------------------------------------------------------


def _flashed_shadow():
    """Black's Memory on w37 flashes White's Shadow on w35 (swap): Memory on w35, Shadow on w37."""
    g = position({"w35": "S", "w37": "m", "w25": "P", "w38": "v", "w13": "V", "b13": "v", **LIGHTS}, "black")
    g.push(mv("w37", "w35"))
    assert at(g, "w35") == ("black", "memory") and at(g, "w37") == ("white", "shadow")
    return g


def test_no_flash_back_on_the_next_turn():
    """No Flash-Backs!: "If you're flashed but not captured, you must wait 1 turn to flash them back with the
    same piece. Any other pieces are fair game anytime." """
    g = _flashed_shadow()
    assert "w35" not in move_targets(g, "w37")  # the Shadow may not flash the Memory back
    assert "w36" in move_targets(g, "w37")
    assert "w38" in move_targets(g, "w37")  # but may flash another rival tower
    assert "w35" in move_targets(g, "w25")  # and another own tower may flash the Memory
    assert g.why_illegal(mv("w37", "w35")) == (
        "is not allowed: no flash-back against the tower that flashed it last turn")


def test_flash_back_allowed_one_turn_later():
    """No Flash-Backs!: "...you must wait 1 turn to flash them back with the same piece." """
    g = _flashed_shadow()
    play(g, mv("w13", "w14"), mv("b13", "b14"))
    assert "w35" in move_targets(g, "w37")
    g.push(mv("w37", "w35"))
    assert captured(g, "black") == ["memory"]


def test_no_flash_back_by_reflection():
    """No Flash-Backs! with Reflection (spec 8: "No flash-back binds the reflected tower, not the
    Reflector."): a Light swapped by a Memory may not be reflected onto it next turn."""
    g = position({"w34": "L", "w36": "m", "w33": "R", "w13": "V", "b19": "l"}, "black")
    g.push(mv("w36", "w34"))  # Memory flashes the Light: swap
    assert at(g, "w36") == ("white", "light")
    reflections = {(a.frm, a.to) for a in legal_of(g, Reflect)}
    assert (S("w36"), S("w32")) in reflections
    assert (S("w36"), S("w34")) not in reflections
    assert g.why_illegal(reflect("w33", "w36", "w34")) == (
        "is not allowed: no flash-back against the tower that flashed it last turn")


def test_no_flash_back_does_not_bind_the_reflector():
    """Spec 8: "No flash-back binds the reflected tower, not the Reflector." The flashed Reflector may not move
    onto the Memory, but may reflect a Light onto it."""
    g = position({"w34": "R", "w35": "m", "w38": "L", "w13": "V", "b19": "l"}, "black")
    g.push(mv("w35", "w34"))  # Memory flashes the Reflector: Memory on w34, Reflector on w35
    assert "w34" not in move_targets(g, "w35")
    assert reflect("w35", "w38", "w34") in g.legal_actions()
    g.push(reflect("w35", "w38", "w34"))
    assert at(g, "w34") == ("white", "light") and captured(g, "black") == ["memory"]


def test_no_flash_back_survives_the_rewind_of_the_flash():
    """Spec 4: "The bond holds even when the flash is then rewound by the Power of Time: the tower was
    flashed and survived". Black's Memory swap-flashes White's Shadow; White rewinds it with Time and then
    plays its turn: the Shadow, back on its own space, still may not flash the Memory back."""
    g = position({"w35": "S", "w37": "m", "w39": "T", "w13": "V", **LIGHTS}, "black")
    g.push(mv("w37", "w35"))  # swap: Memory on w35, Shadow on w37
    g.push(time_at("w39"))
    assert g.events[-1].outcome == "rewound" and g.to_move == "white"
    assert at(g, "w35") == ("white", "shadow") and at(g, "w37") == ("black", "memory")
    assert "w37" not in move_targets(g, "w35")
    assert "w36" in move_targets(g, "w35")
    assert g.why_illegal(mv("w35", "w37")) == (
        "is not allowed: no flash-back against the tower that flashed it last turn")
    play(g, mv("w13", "w14"), mv("b19", "b18"))  # one turn later the bond is gone
    assert "w37" in move_targets(g, "w35")


# --- reinforcement -------------------------------------------------------------------------------


def test_reinforce_one_tower_on_an_empty_own_gateway():
    """Reinforcement: "Bring in one of your Towers from your Zero Gravity board, and place it on one of your
    empty Gateways. Do this as often as you'd like, but each one counts as a whole turn." """
    g = position({"w19": "L", "w39": "P", "b19": "l", "b29": "v"}, reserve={"white": ["V", "T"]},
                 captured={"black": []})
    singles = {(a.placements) for a in legal_of(g, Reinforce)}
    free = ("w29", "w49", "w59")
    assert singles == {((S(sp), p),) for sp in free for p in ("void", "time")}
    assert g.why_illegal(reinforce(w39="void")) == "is not allowed: w39 is not empty"
    assert g.why_illegal(reinforce(b39="void")) == "is not allowed: b39 is not one of your Gateways"
    assert g.why_illegal(reinforce(w38="void")) == "is not allowed: w38 is not one of your Gateways"
    assert g.why_illegal(reinforce(w29="void", w49="time")) == (
        "is not allowed: only Artificial Lights come in several at once")
    assert g.why_illegal(reinforce(w29="shadow")) == "is not possible: you have 0 shadow in reserve"
    g.push(reinforce(w29="time"))
    assert at(g, "w29") == ("white", "time") and g.to_move == "black"
    assert reserve(g, "white") == ["void"]


def test_reinforce_several_artificial_lights_at_once():
    """Artificial Light: "Reinforce with more than one at a time, bringing in as many Artificial Lights as you
    would like from Zero Gravity onto your open Gateways, on any turn. Like any other Reinforcement, this ends
    your turn." """
    g = position({"w19": "L", "w29": "P", "b19": "l"}, reserve={"white": ["A", "A", "A", "V"]})
    reinf = legal_of(g, Reinforce)
    free = [S(s) for s in ("w39", "w49", "w59")]
    multi = {a.placements for a in reinf if len(a.placements) > 1}
    assert multi == {
        ((free[0], "artificial_light"), (free[1], "artificial_light")),
        ((free[0], "artificial_light"), (free[2], "artificial_light")),
        ((free[1], "artificial_light"), (free[2], "artificial_light")),
        tuple((s, "artificial_light") for s in free),
    }
    assert len(reinf) == 3 * 2 + 4  # singles of AL and Void on 3 Gateways, plus the groups
    g.push(reinforce(w39="artificial_light", w49="artificial_light", w59="artificial_light"))
    assert [at(g, s) for s in ("w39", "w49", "w59")] == [("white", "artificial_light")] * 3
    assert g.to_move == "black"


def test_artificial_light_never_in_the_starting_lineup():
    """Lineup: "The only rule of setup is that Artificial Light can't come in at the start; they all stay on
    your Zero Gravity." """
    lineup = {S(k): v for k, v in WHITE_LINEUP.items()}
    lineup[S("w19")] = "artificial_light"
    with pytest.raises(InvalidError, match="artificial_light may not start on the board"):
        make_setup("white", "time", "void", lineup)
    g = new_game()
    assert reserve(g, "white").count("artificial_light") == 4


# --- resurrection ------------------------------------------------------------------------------


def test_resurrect_onto_an_empty_rival_gateway_without_ending_the_turn():
    """Resurrection: "Place the Tower on any one of your rival's empty Gateways. This does not end your turn!
    Any other action is still legal, including using the Resurrected piece in any way." """
    g = position({"w19": "L", "b19": "l", "b29": "v", "b38": "p"}, captured={"white": ["S"]})
    res = legal_of(g, Resurrect)
    assert {(a.piece, a.to) for a in res} == {("shadow", S(s)) for s in ("b39", "b49", "b59")}
    assert g.why_illegal(resurrect("shadow", "b29")) == "is not allowed: b29 is not empty"
    assert g.why_illegal(resurrect("shadow", "w29")) == "is not allowed: w29 is not one of your rival's Gateways"
    assert g.why_illegal(resurrect("void", "b39")) == "is not possible: no void of yours has been captured"
    g.push(resurrect("shadow", "b39"))
    assert g.to_move == "white"
    assert at(g, "b39") == ("white", "shadow")
    # the Resurrected piece may act at once: attack from the rival's Gateway
    assert "b38" in move_targets(g, "b39")
    g.push(mv("b39", "b38"))
    assert captured(g, "black") == ["peripheral"] and g.to_move == "black"


def test_resurrection_is_public():
    g = position({"w19": "L", "b19": "l"}, captured={"white": ["S"]})
    g.push(resurrect("shadow", "b39"))
    assert pieces_in_view(g, "black")["b39"] == ("white", "shadow")


def test_resurrection_once_per_game():
    """Resurrection: "Turn your Totem once per game to Resurrect a Tower captured by your rival." """
    g = position({"w19": "L", "b19": "l", "w13": "V", "b13": "v"}, captured={"white": ["S", "P"]})
    play(g, resurrect("shadow", "b39"), mv("w13", "w14"), mv("b13", "b14"))
    assert legal_of(g, Resurrect) == []
    assert g.why_illegal(resurrect("peripheral", "b49")) == "is not allowed: the Totem has been used this game"


def test_resurrect_only_with_an_open_rival_gateway():
    """Resurrection: "You can only Resurrect if your opponent leaves a Gateway open" """
    g = position({"w19": "L", "b19": "l", "b29": "v", "b39": "v", "b49": "r", "b59": "p"},
                 captured={"white": ["S"]})
    assert legal_of(g, Resurrect) == []


def test_resurrect_not_on_the_turn_right_after_capture():
    """Resurrection: "If your piece was just captured, you must wait a turn before Resurrecting it."
    Spec 8: "a tower captured on turn k may be resurrected from turn k + 2 on"."""
    g = position({"w35": "P", "w36": "s", "w13": "V", "b13": "v", **LIGHTS}, "black", turn=20)
    g.push(mv("w36", "w35"))  # turn 20: Black's Shadow captures White's Peripheral
    assert captured(g, "white") == ["peripheral"]
    assert g.turn == 21 and legal_of(g, Resurrect) == []
    assert g.why_illegal(resurrect("peripheral", "b29")) == (
        "is not allowed yet: a tower captured last turn must wait a turn")
    play(g, mv("w13", "w14"), mv("b13", "b14"))
    assert g.turn == 23 and resurrect("peripheral", "b29") in g.legal_actions()


def test_resurrect_a_tower_lost_on_own_turn_two_turns_later():
    """Spec 8: "(so never on the turn it was captured, e.g. a Time tower spent this turn)". A White Time
    spent on turn 10 may be resurrected on turn 12, brand new, and used again."""
    g = position({"w39": "T", "w13": "V", "b13": "v", **LIGHTS}, "black", turn=9)
    g.push(mv("b13", "b14"))
    g.push(time_at("w39"))  # turn 10: rewinds b14-b13, White's Time goes to Black's Zero Gravity
    assert captured(g, "white") == ["time"]
    assert legal_of(g, Resurrect) == []  # not the same turn
    g.push(mv("w13", "w14"))
    g.push(mv("b13", "b12"))
    assert g.turn == 12
    g.push(resurrect("time", "b29"))
    # "The Resurrected piece is treated as brand new, restoring all Powers."
    assert time_at("b29") in g.legal_actions()
    g.push(time_at("b29"))
    assert at(g, "b13") == ("black", "void") and at(g, "b12") is None
    assert [e.outcome for e in g.events] == ["rewound", "rewound"]


def test_resurrecting_a_shadow_ends_acceleration():
    """Artificial Light: "If you Resurrect a Shadow, this Acceleration is lost, reducing Artificial Light's max
    moves back to 2 spaces." """
    g = position({"w37": "A", **LIGHTS}, captured={"white": ["S", "S"]})
    assert {f"w3{r}" for r in range(2, 7)} <= move_targets(g, "w37")
    g.push(resurrect("shadow", "b39"))
    assert {t for t in move_targets(g, "w37") if t.startswith("w3")} == {"w36", "w35", "w38", "w39"}


# --- artificial light acceleration ------------------------------------------------------------


def test_artificial_light_accelerates_while_both_shadows_are_captured():
    """Artificial Light: "If both of your Shadows are captured, your Artificial Light is Accelerated." (up to
    5 spaces)"""
    both = position({"w37": "A", **LIGHTS}, captured={"white": ["S", "S"]})
    assert {t for t in move_targets(both, "w37") if t.startswith("w3") and t < "w37"} == {
        "w32", "w33", "w34", "w35", "w36"}
    assert both.move_range(both.state.board[S("w37")]) == 5
    one = position({"w37": "A", **LIGHTS}, captured={"white": ["S"]})
    assert {t for t in move_targets(one, "w37") if t.startswith("w3") and t < "w37"} == {"w35", "w36"}
    in_reserve = position({"w37": "A", **LIGHTS})  # Shadows in reserve are not captured
    assert in_reserve.move_range(in_reserve.state.board[S("w37")]) == 2


# --- reflection ------------------------------------------------------------------------------------


def reflections(game):
    from engine.board import SPACE_NAMES as N
    return {(N[a.reflector], N[a.frm], N[a.to]) for a in legal_of(game, Reflect)}


def test_reflection_in_front_or_behind_from_anywhere_on_the_line_over_towers():
    """Power of Reflection: "...transfer Light or Artificial Light, to either the space directly in front of or
    directly behind the Reflector, from any other space on the same Sight Line. Jump over any pieces on that
    Line." """
    g = position({"w33": "R", "w38": "L", "w37": "V", "w36": "p", "b19": "l", "w18": "S"})
    assert reflections(g) == {("w33", "w38", "w32"), ("w33", "w38", "w34")}
    g.push(reflect("w33", "w38", "w32"))
    assert at(g, "w32") == ("white", "light") and at(g, "w38") is None
    assert g.to_move == "black"  # "Using Reflection always counts as your turn"


def test_reflection_across_the_centre():
    """Reflection: "...they can be Reflected over it, crossing to the other side of the board, so long as you
    are following any one of the 5 Sight Lines." """
    g = position({"w33": "R", "b35": "A", "w19": "L", "b19": "l"})
    assert reflections(g) == {("w33", "b35", "w32"), ("w33", "b35", "w34")}
    g = position({"w23": "R", "b25": "A", **LIGHTS})  # line 2 continues across the gap too
    assert reflections(g) == {("w23", "b25", "w22"), ("w23", "b25", "w24")}


def test_reflection_never_onto_or_from_the_iris():
    """Reflection: "Pieces can't be Reflected onto or from the Iris" and "Powers can't be used on the Iris." """
    g = position({"w31": "R", "w36": "L", "b19": "l"})
    assert reflections(g) == {("w31", "w36", "w32")}  # wi is not a target
    g = position({"w33": "R", "wi": "L", "b19": "l"})
    assert reflections(g) == set()
    g = position({"wi": "R", "w33": "L", "b19": "l"})
    assert reflections(g) == set()
    assert "Iris" in g.why_illegal(Reflect(S("wi"), S("w33"), S("w32")))


def test_reflection_lines_2_and_4_have_no_neighbour_across_the_gap():
    """Spec 5: "...(a space adjacent to it along the line; none across the gap of lines 2 and 4)"."""
    g = position({"w22": "R", "w27": "L", "b19": "l"})
    assert reflections(g) == {("w22", "w27", "w23")}
    g = position({"b42": "R", "w45": "A", **LIGHTS})
    assert reflections(g) == {("b42", "w45", "b43")}


def test_reflection_never_onto_an_own_tower_and_never_in_place():
    """Spec 8: "A Reflection never lands on an own tower and never leaves the tower where it is." """
    g = position({"w33": "R", "w32": "V", "w37": "L", "b19": "l"})
    assert reflections(g) == {("w33", "w37", "w34")}
    assert g.why_illegal(reflect("w33", "w37", "w32")) == "is not allowed: w32 holds your own tower"
    g = position({"w33": "R", "w34": "L", "b19": "l"})
    assert reflections(g) == {("w33", "w34", "w32")}


def test_reflection_only_for_light_and_artificial_light():
    """Reflectors: "Reflectors transfer Light and Artificial Light along Sight Lines." """
    g = position({"w33": "R", "w37": "S", "w38": "P", "w39": "M", **LIGHTS})
    assert reflections(g) == set()
    assert g.why_illegal(reflect("w33", "w37", "w34")) == (
        "is not possible: only Light or Artificial Light can be reflected")


def test_reflection_not_along_another_line():
    g = position({"w33": "R", "w27": "L", "b19": "l"})
    assert reflections(g) == set()


def test_reflection_may_flash():
    """Power of Reflection: "You can use this Power to flash rival Towers by landing on them!" """
    g = position({"w33": "R", "w38": "L", "w34": "s", "b19": "l"})
    assert ("w33", "w38", "w34") in reflections(g)
    g.push(reflect("w33", "w38", "w34"))
    assert at(g, "w34") == ("white", "light")
    assert captured(g, "black") == ["shadow"]
    assert g.events[-1].to_json()["attacker"] == "light"


# --- memory swap -------------------------------------------------------------------------------------


def test_memory_swap_same_half_ends_the_turn():
    """Power of the Memory Swap: "...trade places with any one of your other Towers, on the same side of the board
    as Memory. A Swap will count as your turn" """
    g = position({"w35": "M", "w19": "L", "w24": "V", "b33": "S", "b19": "l"})
    swaps = {(a.memory, a.other) for a in legal_of(g, Swap)}
    assert swaps == {(S("w35"), S("w19")), (S("w35"), S("w24"))}
    assert g.why_illegal(swap("w35", "b33")) == (
        "is not allowed: both towers must stand on the same half of the board")
    g.push(swap("w35", "w19"))
    assert at(g, "w35") == ("white", "light") and at(g, "w19") == ("white", "memory")
    assert g.to_move == "black"


def test_memory_swap_with_another_memory():
    """Spec 8: "A Memory may swap with any own tower on its half, another Memory included." """
    g = position({"w35": "M", "w17": "M", **LIGHTS})
    swaps = {(a.memory, a.other) for a in legal_of(g, Swap)}
    assert (S("w35"), S("w17")) in swaps and (S("w17"), S("w35")) in swaps


def test_memory_swap_not_on_the_iris():
    """Memory: "You can't Swap onto or over the Iris or Horizon." """
    g = position({"wi": "M", "w31": "V", **LIGHTS})
    assert legal_of(g, Swap) == []
    g = position({"w31": "M", "wi": "V", **LIGHTS})
    assert {a.other for a in legal_of(g, Swap)} == {S("w19")}


# --- power of time -------------------------------------------------------------------------------------


def time_position(**extra):
    """Black to move; White's Time on w39."""
    towers = {"w39": "T", "w13": "V", "b35": "p", "b44": "s", "b27": "m", "b29": "r", **LIGHTS}
    towers.update(extra)
    return position(towers, "black")


def test_time_rewinds_the_rivals_last_action_exactly_and_keeps_it_hidden():
    """Power of Time: "Use the Power of Time to rewind the very last thing your opponent did." and "If it's not
    a Shadow, the Power succeeds, but they don't reveal their piece." """
    g = time_position()
    before = (g.state.board[:], g.state.loc[:])
    g.push(mv("b35", "b32"))
    assert time_at("w39") in g.legal_actions()
    g.push(time_at("w39"))
    board, loc = before
    time_tower = board[S("w39")]
    board[S("w39")] = -1
    loc[time_tower] = CAPTURED
    assert (g.state.board, g.state.loc) == (board, loc)
    assert pieces_in_view(g, "white")["b35"] == ("black", None)  # stays hidden
    assert g.events[-1].to_json() == {"type": "time", "turn": 11, "outcome": "rewound"}


def test_time_rewinds_a_memory_swap():
    """Power of Time: "Use this to undo any one action, movement or Power" """
    g = time_position()
    g.push(swap("b27", "b29"))
    g.push(time_at("w39"))
    assert at(g, "b27") == ("black", "memory") and at(g, "b29") == ("black", "reflector")


def test_time_does_not_end_the_turn_and_costs_the_tower():
    """Power of Time: "Any use of the Power, or any attempted use, removes Time to the rival Zero G. Using this
    Power does not end your turn." """
    g = time_position()
    g.push(mv("b35", "b32"))
    g.push(time_at("w39"))
    assert g.to_move == "white" and g.turn == 11
    assert captured(g, "white") == ["time"]
    assert pieces_in_view(g, "black")["w13"] == ("white", None)
    g.push(mv("w13", "w14"))
    assert g.to_move == "black"


def test_time_rewinds_a_swap_flash():
    """Power of Time: "Use the Power of Time after your rival takes any action, unless they made a capture or
    landed on the Iris." A Memory's swap flash captures nothing, so it can be rewound; both towers stay
    revealed (the flash happened)."""
    g = time_position(b25="P")
    g.push(mv("b27", "b25"))  # Black's Memory flashes White's Peripheral: swap
    assert at(g, "b27") == ("white", "peripheral")
    assert time_at("w39") in g.legal_actions()
    g.push(time_at("w39"))
    assert at(g, "b27") == ("black", "memory") and at(g, "b25") == ("white", "peripheral")
    assert pieces_in_view(g, "white")["b27"] == ("black", "memory")
    assert [e.to_json()["type"] for e in g.events] == ["flash", "time"]


def test_time_rewinding_a_swap_that_moved_the_time_tower():
    """Ruling (engine's choice, spec silent): a Memory swap-flashes the Time tower, which then rewinds from
    the Memory's start. The Time tower goes to Zero Gravity; the Memory returns to its start."""
    g = position({"w35": "T", "w37": "m", "w13": "V", "w19": "L", "b19": "l"}, "black")
    g.push(mv("w37", "w35"))
    assert at(g, "w37") == ("white", "time")
    g.push(time_at("w37"))
    assert at(g, "w37") == ("black", "memory") and at(g, "w35") is None
    assert captured(g, "white") == ["time"]


def test_time_fails_against_a_moved_shadow_and_reveals_it():
    """Power of Time: "If it is a Shadow, the Power fails and nothing is rewound. Either way you still get to play
    your turn." Tip: "...will still cost you the Time Tower. But at least it will reveal the Shadow." """
    g = time_position()
    g.push(mv("b44", "b42"))
    assert pieces_in_view(g, "white")["b42"] == ("black", None)
    assert time_at("w39") in g.legal_actions()
    g.push(time_at("w39"))
    assert at(g, "b42") == ("black", "shadow") and at(g, "b44") is None  # nothing rewound
    assert pieces_in_view(g, "white")["b42"] == ("black", "shadow")
    assert captured(g, "white") == ["time"]
    assert g.events[-1].to_json() == {"type": "time", "turn": 11, "outcome": "failed"}
    assert g.to_move == "white" and legal_of(g, Time) == []


def test_time_fails_against_a_shadow_moved_by_memory_swap_or_reinforcement():
    """Spec 8: ""Moved a Shadow" covers every rival Shadow the action put in a new place: moved, swapped by
    Memory, or reinforced." """
    g = time_position(b28="s")
    g.push(swap("b27", "b28"))
    g.push(time_at("w39"))
    assert g.events[-1].outcome == "failed"
    assert at(g, "b27") == ("black", "shadow")
    g = position({"w39": "T", "w13": "V", **LIGHTS}, "black", reserve={"black": ["S"]})
    g.push(reinforce(b29="shadow"))
    g.push(time_at("w39"))
    assert g.events[-1].outcome == "failed" and at(g, "b29") == ("black", "shadow")


def test_time_rewinds_a_reinforcement_back_to_zero_gravity():
    g = position({"w39": "T", "w13": "V", **LIGHTS}, "black", reserve={"black": ["V"]})
    g.push(reinforce(b29="void"))
    g.push(time_at("w39"))
    assert g.events[-1].outcome == "rewound"
    assert at(g, "b29") is None and reserve(g, "black") == ["void"]


@pytest.mark.parametrize("attacker,outcome", [("p", "capture"), ("s", "mutual_destruction")])
def test_time_banned_after_a_capture(attacker, outcome):
    """Power of Time: "Use the Power of Time after your rival takes any action, unless they made a capture or
    landed on the Iris." Spec: "made a capture (mutual destruction included)", checked before the Shadow
    failure."""
    defender = "P" if outcome == "capture" else "V"
    g = position({"w39": "T", "w13": "V", "b33": defender, "b35": attacker, **LIGHTS}, "black")
    g.push(mv("b35", "b33"))
    assert g.events[-1].outcome == outcome
    assert legal_of(g, Time) == []
    assert g.why_illegal(time_at("w39")) == "is not allowed: the rival's last action made a capture"


def test_time_banned_after_landing_on_the_iris():
    """Power of Time: "...(unless they moved a Shadow, made a capture or landed inside the center Ring)" """
    g = time_position()
    g.push(mv("b35", "b32"))
    g.push(mv("w13", "w14"))
    g.push(mv("b32", "bi"))
    assert legal_of(g, Time) == []
    assert g.why_illegal(time_at("w39")) == "is not allowed: the rival's last action ended on the Iris"


def test_time_needs_a_rival_action():
    """Spec 8: "Time (Classic) needs a rival action to rewind: not after a rival pass", nor before any."""
    g = new_game(white={**WHITE_LINEUP})
    assert legal_of(g, Time) == []
    assert g.why_illegal(time_at("w39")) == "is not allowed: there is no rival action to rewind"
    # Black is stuck (Light on Zero Gravity, its Gateways filled by White) and passes
    g = position({"w39": "T", "w19": "L", "b19": "V", "b29": "V", "b39": "P", "b49": "P", "b59": "R"},
                 "black", reserve={"black": ["L"]}, totem_used=("black",))
    assert g.legal_actions() == [PASS]
    g.push(PASS)
    assert legal_of(g, Time) == []


def test_time_once_per_turn_even_with_a_clone():
    """Stacking Powers: "Time rewinds only the last thing your rival did, so you can't use it twice in a single
    turn, even with a Cloned Time." """
    g = time_position(w49="T")
    g.push(mv("b35", "b32"))
    assert {a.at for a in legal_of(g, Time)} == {S("w39"), S("w49")}
    g.push(time_at("w39"))
    assert legal_of(g, Time) == []
    assert g.why_illegal(time_at("w49")) == "is not allowed: Time was already used this turn"


def test_time_not_from_the_iris():
    """The Iris: "Powers can't be used on the Iris." """
    g = time_position(wi="T")
    g.push(mv("b35", "b32"))
    assert {a.at for a in legal_of(g, Time)} == {S("w39")}
    assert g.why_illegal(time_at("wi")) == "is not allowed: powers are never used on the Iris"


def test_time_must_be_on_the_board():
    """Power of Time: "Time must be on the board to use its Power" """
    g = position({"w13": "V", "b35": "p", **LIGHTS}, "black", reserve={"white": ["T"]})
    g.push(mv("b35", "b32"))
    assert legal_of(g, Time) == []


def test_time_and_resurrection_stack_in_either_order():
    """Stacking Powers: "So it is perfectly legal to use Time and Resurrect on the same turn, in either order, and
    then still play your turn." """
    g = position({"w39": "T", "w13": "V", "b35": "p", **LIGHTS}, "black", captured={"white": ["S"]})
    g.push(mv("b35", "b32"))
    play(g, time_at("w39"), resurrect("shadow", "b39"), mv("b39", "b37"))
    assert g.to_move == "black" and at(g, "b35") == ("black", "peripheral")


def test_time_illegal_when_this_turns_resurrection_filled_the_gateway_it_needs():
    """Spec 8: "if this turn's Resurrection made that impossible (it filled the Gateway the rewind needs),
    Time is illegal." """
    g = position({"w39": "T", "w13": "V", "b29": "p", **LIGHTS}, "black", captured={"white": ["S"]})
    g.push(mv("b29", "b27"))
    g.push(resurrect("shadow", "b29"))
    assert legal_of(g, Time) == []
    assert g.why_illegal(time_at("w39")) == "is not allowed: the rewind needs a space that is now filled"
    g.pop()
    g.push(resurrect("shadow", "b39"))
    assert time_at("w39") in g.legal_actions()


def test_a_time_tower_resurrected_onto_the_gateway_the_rewind_needs_may_still_be_used_from_there():
    """Spec 8: "A rewind restores the exact earlier position; if this turn's Resurrection made that
    impossible (it filled the Gateway the rewind needs), Time is illegal."  Rulebook: "Any use of the
    Power, or any attempted use, removes Time to the rival Zero G": a Time tower resurrected onto that
    Gateway leaves it as it is used, so the rewind restores the earlier position exactly (the Time
    tower back on the rival's Zero Gravity, the rival's tower back on its Gateway)."""
    g = position({"w13": "V", "b29": "p", **LIGHTS}, "black", captured={"white": ["T"]})
    g.push(mv("b29", "b27"))
    before = g.occupied()
    g.push(resurrect("time", "b29"))
    assert time_at("b29") in g.legal_actions()
    g.push(time_at("b29"))
    assert g.occupied() == (before - {S("b27")}) | {S("b29")}
    assert at(g, "b29") == ("black", "peripheral") and captured(g, "white") == ["time"]


# --- turn structure, pass, draw ---------------------------------------------------------------------------


def test_turn_is_non_ending_actions_then_exactly_one_ending_action():
    """On Your Turn: "Any one action will count as your turn. The only exceptions are the Powers of Time and
    Resurrection." Spec 5: "A turn is at most a few non-ending actions followed by exactly one turn-ending
    action." """
    g = position({"w39": "T", "w13": "V", "b35": "p", **LIGHTS}, "black", captured={"white": ["S"]})
    g.push(mv("b35", "b32"))
    assert not g.ends_turn(time_at("w39")) and not g.ends_turn(resurrect("shadow", "b39"))
    assert g.ends_turn(mv("w13", "w14")) and g.ends_turn(swap("w13", "w19")) and g.ends_turn(PASS)
    with pytest.raises(ReplayError, match=r"turn 12 \(white\), action 1: resurrect shadow at b39 does not end the "
                                          r"turn; a turn-ending action must follow"):
        play_turn(g, "white", [resurrect("shadow", "b39")], 12)
    g = position({"w13": "V", **LIGHTS})
    with pytest.raises(ReplayError, match="ends the turn but more actions follow"):
        play_turn(g, "white", [mv("w13", "w14"), mv("w14", "w15")], 1)
    with pytest.raises(ReplayError, match="a turn needs a turn-ending action"):
        play_turn(g, "white", [], 1)
    with pytest.raises(ReplayError, match="it is white's turn"):
        play_turn(g, "black", [mv("b19", "b18")], 1)


def stuck_white(**kw):
    """White's Light waits on Zero Gravity, everything else is captured, its Gateways hold Black towers."""
    return position({"w19": "p", "w29": "p", "w39": "v", "w49": "v", "w59": "r", "b19": "l"},
                    reserve={"white": ["L"]}, **kw)


def test_pass_only_when_no_turn_ending_action_is_legal():
    """Spec 5: "A player with no legal turn-ending action passes (record it)"; spec 8: "Pass is legal exactly
    when no turn-ending action is legal at that moment (using Time or Resurrection to create one is not
    required)." """
    g = new_game()
    assert PASS not in g.legal_actions()
    assert g.why_illegal(PASS) == "is not allowed: a turn-ending action is available"
    g = stuck_white(totem_used=("white",))
    assert g.legal_actions() == [PASS]
    g = stuck_white()  # the Totem could bring a tower back, but passing is still allowed
    legal = g.legal_actions()
    assert PASS in legal and any(type(a) is Resurrect for a in legal)
    g.push(PASS)
    assert g.to_move == "black" and g.result is None


def test_two_consecutive_passes_draw():
    """Spec 5: "two passes in a row end the game drawn"."""
    g = stuck_white(totem_used=("white",))
    g.push(PASS)
    g.push(mv("b19", "b18"))  # Black moves: the count starts again
    g.push(PASS)
    assert g.result is None  # one pass in a row: the count started again after Black's move
    # Black just passed (a position where both sides are stuck is not cheap to reach by play)
    g = stuck_white(totem_used=("white",), passes=1)
    g.push(PASS)
    assert (g.result.status, g.result.winner, g.result.reason) == ("drawn", None, "passes")
    assert g.legal_actions() == []
    assert view(g, None)["result"] == {"status": "drawn", "winner": None, "reason": "passes"}


# --- setup -----------------------------------------------------------------------------------------------


def lineup(**changes):
    data = {S(k): v for k, v in WHITE_LINEUP.items()}
    data.update({S(k): v for k, v in changes.items()})
    return data


def test_setup_clone_must_be_one_of_the_four():
    """Clones: "The four Clone Faces are: Time, Void, Memory, Artificial Light" """
    for clone in ("time", "void", "memory", "artificial_light"):
        make_setup("white", clone, "reflector", lineup())
    with pytest.raises(InvalidError, match=r"setup.white.clone: 'shadow' is not a clone"):
        make_setup("white", "shadow", "void", lineup())


@pytest.mark.parametrize("removed", ["light", "shadow"])
def test_setup_may_not_remove_light_or_shadow(removed):
    """Clones: "...removing any 1 piece of your choice (other than Light or Shadow)." """
    with pytest.raises(InvalidError, match=f"setup.white.removed: {removed} may not be removed"):
        make_setup("white", "time", removed, lineup())


def test_setup_removed_may_be_the_clones_type():
    """Spec 8: "Setup: the removed piece may be of the clone's type." """
    s = make_setup("white", "void", "void", lineup())
    assert s.pieces["void"] == 4 and sum(s.pieces.values()) == 17


def test_setup_seventeen_towers_and_reserve():
    """What's in the Box: "Light 1, Shadow 2, Artificial Light 4, Reflector 2, Memory 1, Time 1, Peripheral 2 and
    Void 4 (17 Towers)" plus one clone for one removed piece."""
    s = make_setup("white", "time", "void", lineup())
    assert dict(s.pieces) == {"light": 1, "shadow": 2, "artificial_light": 4, "reflector": 2, "memory": 1,
                              "time": 2, "peripheral": 2, "void": 3}
    assert dict(s.reserve) == {"artificial_light": 4, "reflector": 1, "time": 1, "void": 1}


def test_setup_full_lineup_on_own_starting_spaces():
    """Lineup: "Choose 10 pieces to start, and put them on your 10 starting spaces (1st & 2nd rows)." """
    short = lineup()
    del short[S("w58")]
    with pytest.raises(InvalidError, match="setup.white.lineup: w58 must be filled"):
        make_setup("white", "time", "void", short)
    wrong = lineup()
    del wrong[S("w58")]
    wrong[S("w57")] = "shadow"
    with pytest.raises(InvalidError, match="setup.white.lineup: w57 is not one of white's starting spaces"):
        make_setup("white", "time", "void", wrong)
    with pytest.raises(InvalidError, match="setup.black.lineup: w19 is not one of black's starting spaces"):
        make_setup("black", "time", "void", lineup())


def test_setup_not_more_of_a_piece_than_the_set_has():
    with pytest.raises(InvalidError, match="setup.white.lineup: 2 light but only 1 available"):
        make_setup("white", "time", "void", lineup(w19="light"))
    with pytest.raises(InvalidError, match="setup.white.lineup: 2 memory but only 1 available"):
        make_setup("white", "time", "void", lineup(w19="memory"))
    make_setup("white", "memory", "void", lineup(w19="memory"))  # a cloned Memory may start


def test_black_lineup_is_valid_too():
    make_setup("black", "time", "void", {S(k): v for k, v in BLACK_LINEUP.items()})


# --- vision mode -----------------------------------------------------------------------------------------


def test_vision_mode_every_identity_public():
    """Vision Mode: "Learn Quin in the open by using only the Faces. ... All rules apply as normal." Spec 6:
    "Every identity is public from the start"."""
    g = new_game(vision=True)
    for viewer in ("white", "black", None):
        v = view(g, viewer)
        assert all(e["piece"] is not None for e in v["board"])
        assert v["reserve"]["white"]["pieces"] == ["artificial_light"] * 4 + ["reflector", "time", "void"]
    g.push(mv("w38", "w36"))
    assert view(g, None)["board"] == view(g, "white")["board"] == view(g, "black")["board"]
    assert not new_game().vision
    assert all(e["piece"] is None for e in view(new_game(), None)["board"])
