"""Third Eye Mode: one test per Third Eye statement of the rulebook, and the spec's Third Eye rulings.

Each docstring quotes the rulebook sentence (or the spec ruling, marked
"spec") that the test shows.  Positions come from ``tests/support/third_eye_helpers.build``; every
action goes through ``Game.push``, so only legal actions are played.
"""

from __future__ import annotations

import json
from collections import Counter
from itertools import permutations

import pytest

from engine.actions import Gravity, Pass, Reflect, Resurrect, Swap, Time
from engine.errors import IllegalError
from engine.record import ReplayError, load_record, replay, to_record
from tests.support.third_eye_helpers import (
    BLACK,
    WHITE,
    N,
    S,
    at,
    build,
    captured_pieces,
    gravity,
    mv,
    of_type,
    push,
    reflect,
    resurrect,
    swap,
    targets,
)


def shuttle(game):
    """End the mover's turn with a harmless Void step between Gateway and Ring 8 of line 5."""
    me = game.to_move
    s = "w" if me == WHITE else "b"
    for frm, to in ((f"{s}59", f"{s}58"), (f"{s}58", f"{s}59")):
        if at(game, frm) == (me, "void") and at(game, to) is None:
            game.push(mv(frm, to))
            return
    raise AssertionError("no shuttle Void for " + me)


def no_duplicates(game):
    acts = game.legal_actions()
    dup = [str(a) for a, n in Counter(acts).items() if n > 1]
    assert not dup, dup


# --- Flash! -------------------------------------------------------------------------------


@pytest.mark.parametrize("piece", ["A", "R", "M", "T", "P", "V"])
def test_own_type_mutually_destructs(piece):
    """Rulebook, Flash! (Third Eye): "Any Tower that flashes its own type will mutually
    destruct, except for Light and Shadows." """
    g = build({"w35": piece, "w34": piece.lower(), "w59": "V", "b59": "v"})
    g.push(mv("w35", "w34"))
    assert at(g, "w35") is None and at(g, "w34") is None
    ev = g.events[-1].to_json()
    assert ev["outcome"] == "mutual_destruction" and ev["attacker"] == ev["defender"]


def test_light_flashing_light_captures_and_wins():
    """Rulebook, Flash! (Third Eye): "... except for Light and Shadows" (Light still captures Light)."""
    g = build({"w35": "L", "w34": "l"})
    g.push(mv("w35", "w34"))
    assert at(g, "w34") == (WHITE, "light")
    assert g.result.winner == WHITE and g.result.reason == "light_captured"


def test_shadow_flashing_shadow_still_swaps():
    """Rulebook, Flash! (Third Eye): "... except for Light and Shadows" (Shadows still swap)."""
    g = build({"w35": "S", "w33": "s"})
    g.push(mv("w35", "w33"))
    assert at(g, "w33") == (WHITE, "shadow") and at(g, "w35") == (BLACK, "shadow")


# Third Eye flash results through real flashes: (attacker, defender) -> outcome.
REAL_FLASHES = [
    ("P", "S", "capture"),
    ("P", "L", "swap"),
    ("P", "A", "swap"),
    ("P", "R", "swap"),
    ("P", "M", "swap"),
    ("P", "T", "swap"),
    ("P", "V", "mutual_destruction"),
    ("A", "T", "swap"),
    ("A", "R", "swap"),
    ("A", "V", "capture"),
    ("A", "S", "capture"),
    ("S", "T", "swap"),
    ("S", "S", "swap"),
    ("S", "V", "mutual_destruction"),
    ("S", "R", "capture"),
    ("V", "T", "capture"),
    ("L", "T", "capture"),
    ("T", "T", "mutual_destruction"),
    ("T", "V", "mutual_destruction"),
    ("M", "T", "swap"),
    ("R", "T", "swap"),
    ("M", "L", "swap"),
]


@pytest.mark.parametrize("attacker,defender,outcome", REAL_FLASHES)
def test_third_eye_flash_results_on_the_board(attacker, defender, outcome):
    """Rulebook: "Shadows don't capture Time, instead swapping places if they flash it.
    Peripherals only capture Shadows"; "Artificial Light can't capture Time or Reflectors,
    instead swapping places"; "Reflectors are not vulnerable to Artificial Light";
    "Time can only be captured by Voids and real Light, or mutually destructed by Voids or
    Time"; "Peripherals capture only Shadows. Anything else, they flash only to reveal and
    swap places"."""
    g = build({"w35": attacker, "w34": defender.lower(), "b59": "v"})
    lost_w, lost_b = captured_pieces(g, WHITE), captured_pieces(g, BLACK)
    g.push(mv("w35", "w34"))
    ev = g.events[-1].to_json()
    assert ev["outcome"] == outcome and ev["at"] == "w34"
    a_piece, d_piece = at(g, "w34"), at(g, "w35")
    new_w = Counter(captured_pieces(g, WHITE)) - Counter(lost_w)
    new_b = Counter(captured_pieces(g, BLACK)) - Counter(lost_b)
    if outcome == "capture":
        assert a_piece == (WHITE, ev["attacker"]) and d_piece is None
        assert new_b == Counter([ev["defender"]]) and not new_w
    elif outcome == "swap":
        assert a_piece == (WHITE, ev["attacker"]) and d_piece == (BLACK, ev["defender"])
        assert not new_w and not new_b
    else:
        assert a_piece is None and d_piece is None
        assert new_w == Counter([ev["attacker"]]) and new_b == Counter([ev["defender"]])


def test_peripheral_swap_puts_light_on_the_horizon():
    """Rulebook, Light (Third Eye): "The Peripheral also can't capture Light, instead flashing
    to reveal and swap places. This will sometimes put Light on the Horizon"."""
    g = build({"hw3": "P", "w13": "l", "w59": "V", "b59": "v"})
    g.push(mv("hw3", "w13"))
    assert at(g, "hw3") == (BLACK, "light") and at(g, "w13") == (WHITE, "peripheral")
    assert g.result is None
    # The Light, now on the Horizon, moves along it or off it (no flash-back onto w13).
    assert targets(g, "hw3") == {"hw2", "hw1", "hw4", "hw5", "b53", "b43"}


def test_peripheral_swap_sends_defender_to_the_far_side():
    """Rulebook, Peripheral (Third Eye): "with the defender going to the space where the
    Peripheral started on that turn (even to the Horizon or the far side, if it came from
    there)"."""
    g = build({"b11": "P", "w11": "l", "b59": "v"})
    g.push(mv("b11", "w11"))  # b11 - bi - wi - w11: three spaces across the Iris
    assert at(g, "b11") == (BLACK, "light") and at(g, "w11") == (WHITE, "peripheral")


# --- The Horizon ------------------------------------------------------------------------------


def test_only_the_peripheral_moves_onto_the_horizon():
    """Rulebook, Rings & The Horizon (Third Eye): "The Peripheral is still the only piece that
    can move directly to it as a regular move." """
    g = build({"w13": "S", "w14": "P", "w15": "V", "b59": "v"})
    assert "hw3" not in targets(g, "w13")
    assert "hw5" not in targets(g, "w15")
    assert {"hw4", "b54", "b44"} <= targets(g, "w14")  # onto and over the Horizon
    g = build({"w13": "L", "b59": "v"})
    assert targets(g, "w13") == {"w14", "w15", "w12", "w11", "w23", "w33"}


def test_any_tower_on_the_horizon_moves_along_or_off_it():
    """Rulebook, Rings & The Horizon (Third Eye): "Any Tower on the Horizon can move along it or
    off of it as normal." """
    g = build({"hw3": "V", "he2": "S", "b59": "v"})
    assert targets(g, "hw3") == {"hw2", "hw4", "w13", "b53"}
    shadow = targets(g, "he2")
    assert {"he1", "he3", "he4", "he5"} <= shadow  # along it
    assert {"w52", "w42", "w12", "b12", "b52"} <= shadow  # off it both ways along Ring 2


def test_non_peripheral_leaving_the_horizon_may_not_come_back():
    """Spec: "A tower other than the Peripheral that leaves the Horizon along a ring may not
    come back onto it in the same move." """
    # Ring 3 from hw3 eastward: w13 w23 w33 w43 w53 he3 b13 ...; b23 blocks the way west.
    g = build({"hw3": "S", "b23": "V", "b59": "v"})
    t = targets(g, "hw3")
    assert "he3" not in t and "b13" not in t
    assert {"w13", "w23", "w33", "w43", "w53", "b53", "b43", "b33"} <= t
    # The Peripheral may pass over it: w13 - hw3 - b53 (range 3).
    g = build({"w13": "P", "b59": "v"})
    assert {"hw3", "b53", "b43"} <= targets(g, "w13")


def test_memory_puts_any_piece_on_the_horizon_and_back_to_either_side():
    """Rulebook, Memory (Third Eye): "Swap Memory with a Peripheral to get any piece you want onto
    the Horizon. From the Horizon you can Swap (or move) to either side of the board." """
    g = build({"w35": "M", "hw3": "P", "w38": "S", "b33": "V", "w59": "V", "b59": "v"})
    g.push(swap("w35", "hw3"))
    assert at(g, "hw3") == (WHITE, "memory") and at(g, "w35") == (WHITE, "peripheral")
    shuttle(g)
    shuttle(g)
    # The Memory on the Horizon swaps with towers on either half.
    swaps = {(N[a.memory], N[a.other]) for a in of_type(g, Swap)}
    assert {("hw3", "w38"), ("hw3", "b33"), ("hw3", "w35")} <= swaps
    g.push(swap("hw3", "w38"))
    assert at(g, "hw3") == (WHITE, "shadow")


# --- Reflection ---------------------------------------------------------------------------------


def test_reflection_along_the_horizon():
    """Rulebook, Reflector (Third Eye): "Reflection can even happen on the Horizon."
    Spec: the Horizon is taken as one line hw5..hw1, he1..he5."""
    g = build({"hw2": "R", "he4": "L", "b59": "v"})
    got = {(N[a.frm], N[a.to]) for a in of_type(g, Reflect)}
    assert got == {("he4", "hw1"), ("he4", "hw3")}
    g.push(reflect("hw2", "he4", "hw1"))
    assert at(g, "hw1") == (WHITE, "light")


def test_horizon_reflection_hw1_and_he1_are_not_neighbours():
    """Spec: "Along the Horizon, hw1 and he1 are not neighbours ...: a Reflector on hw1 can send a
    tower only to hw2, but a Light anywhere on the ten Horizon spaces may be reflected to a
    Reflector there." """
    g = build({"hw1": "R", "he3": "L", "b59": "v"})
    assert {(N[a.frm], N[a.to]) for a in of_type(g, Reflect)} == {("he3", "hw2")}
    g = build({"he1": "R", "hw5": "A", "b59": "v"})
    assert {(N[a.frm], N[a.to]) for a in of_type(g, Reflect)} == {("hw5", "he2")}


def test_horizon_and_sight_lines_do_not_mix_for_reflection():
    """Spec: Third Eye Reflection is "also along the Horizon": a Reflector on a Sight Line does not
    reach a Light on the Horizon, nor the reverse."""
    g = build({"w13": "R", "hw3": "L", "b59": "v"})
    assert of_type(g, Reflect) == []
    g = build({"hw3": "R", "w13": "L", "b59": "v"})
    assert of_type(g, Reflect) == []


def test_reflection_onto_a_rival_on_the_horizon_flashes():
    """Rulebook, Reflector: "You can use this Power to flash rival Towers by landing on them!"
    (on the Horizon in Third Eye); Artificial Light swaps with a Reflector there."""
    g = build({"hw2": "R", "he4": "A", "hw3": "r", "b59": "v"})
    g.push(reflect("hw2", "he4", "hw3"))
    assert g.events[-1].to_json()["outcome"] == "swap"
    assert at(g, "hw3") == (WHITE, "artificial_light") and at(g, "he4") == (BLACK, "reflector")


# --- Memory Swap ------------------------------------------------------------------------------------


def test_memory_swap_does_not_end_the_turn():
    """Rulebook, Memory (Third Eye): "Memory Swaps don't end your turn!" """
    g = build({"w35": "M", "w33": "S", "b59": "v"})
    a = swap("w35", "w33")
    assert not g.ends_turn(a)
    g.push(a)
    assert g.to_move == WHITE and g.turn == 20
    assert at(g, "w33") == (WHITE, "memory") and at(g, "w35") == (WHITE, "shadow")


def test_swapped_towers_may_not_move_until_next_turn():
    """Rulebook, Memory (Third Eye): "You can't move the Memory or the piece you Swapped it with
    until the next turn, but any other action is still allowed"."""
    g = build({"w35": "M", "w33": "S", "w17": "V", "b59": "v", "b19": "v"})
    g.push(swap("w35", "w33"))
    assert targets(g, "w33") == set() and targets(g, "w35") == set()
    with pytest.raises(IllegalError, match="swapped"):
        g.push(mv("w35", "w36"))
    assert targets(g, "w17") == {"w16", "w18", "w27"}  # other towers still move
    g.push(mv("w17", "w16"))
    g.push(mv("b59", "b58"))
    assert "w36" in targets(g, "w35") and "w34" in targets(g, "w33")


def test_swapped_towers_may_use_powers_that_leave_them_in_place():
    """Rulebook, Memory (Third Eye): "any other action is still allowed, including all Powers
    (even those of the Swapped piece)".  Spec: "it may still use a power that leaves it in
    place"."""
    # A swapped Reflector reflects.
    g = build({"w35": "M", "w15": "R", "w38": "L", "b59": "v"})
    g.push(swap("w35", "w15"))
    assert reflect("w35", "w38", "w34") in g.legal_actions()
    assert reflect("w35", "w38", "w36") in g.legal_actions()
    # A swapped Void anchors Void Gravity.
    g = build({"w35": "M", "w15": "V", "w19": "V", "b59": "v"})
    g.push(swap("w35", "w15"))
    assert gravity("w35", {"w19": "w36"}) in g.legal_actions()
    # A swapped Time uses its Power.
    g = build({"w35": "M", "w15": "T", "b33": "v", "b59": "v"})
    g.push(swap("w35", "w15"))
    g.push(push("w35", "b33", "b36"))
    assert at(g, "b36") == (BLACK, "void") and g.to_move == WHITE


def test_swapped_tower_may_not_be_reflected_pulled_or_swapped_again():
    """Spec: "A tower moved by a Memory Swap may not move, be reflected, be pulled by Void
    Gravity or join another swap for the rest of that turn"."""
    g = build({"w35": "M", "w33": "L", "w37": "R", "w15": "M", "w19": "V", "b59": "v"})
    g.push(swap("w35", "w33"))  # Light now on w35, Memory on w33
    assert [a for a in of_type(g, Reflect) if N[a.frm] == "w35"] == []
    others = {(N[a.memory], N[a.other]) for a in of_type(g, Swap)}
    assert ("w15", "w35") not in others and ("w15", "w33") not in others
    assert ("w15", "w37") in others and ("w15", "w19") in others
    # a swapped Void is not pulled
    g = build({"w35": "M", "w33": "V", "w15": "V", "b59": "v"})
    g.push(swap("w35", "w33"))
    assert [a for a in of_type(g, Gravity) if any(N[s] == "w35" for s, _ in a.moves)] == []
    assert gravity("w35", {"w15": "w36"}) in g.legal_actions()


def test_swap_to_and_from_the_horizon_never_the_iris():
    """Rulebook, Memory (Third Eye): "You can also Swap to and from the Horizon."  Spec: either
    tower may stand on the Horizon; the Iris is still out."""
    g = build({"w35": "M", "hw4": "V", "wi": "S", "b35": "P", "b59": "v"})
    got = {(N[a.memory], N[a.other]) for a in of_type(g, Swap)}
    assert got == {("w35", "hw4")}
    g = build({"hw4": "M", "w35": "V", "b35": "P", "he2": "S", "wi": "L", "b59": "v"})
    got = {(N[a.memory], N[a.other]) for a in of_type(g, Swap)}
    assert got == {("hw4", "w35"), ("hw4", "b35"), ("hw4", "he2")}
    g = build({"wi": "M", "w11": "V", "b59": "v"})
    assert of_type(g, Swap) == []


def test_two_swaps_per_memory_per_game():
    """Rulebook, Memory (Third Eye): "However, you can only Swap twice per game with each Memory
    piece." """
    g = build({"w35": "M", "w33": "S", "w59": "V", "b59": "v"})
    for _ in range(2):
        assert of_type(g, Swap)
        memory = next(N[a.memory] for a in of_type(g, Swap))
        g.push(swap(memory, "w33" if memory == "w35" else "w35"))
        shuttle(g)
        shuttle(g)
    assert of_type(g, Swap) == []


def test_only_the_acting_memory_spends_a_swap():
    """Spec: "When two Memories swap, only the acting one spends a swap."  Rulebook, Memory (Third
    Eye): "Clone and/or Resurrect Memory to get up to 6 swaps in a game." (a clone: 4 swaps)."""
    g = build({"w35": "M", "w33": "M", "w59": "V", "b59": "v"})
    g.push(swap("w35", "w33"))  # the Memory from w35 acts (now on w33)
    shuttle(g), shuttle(g)
    g.push(swap("w33", "w35"))  # the same Memory acts again: its two swaps are spent
    shuttle(g), shuttle(g)
    mine = {(N[a.memory], N[a.other]) for a in of_type(g, Swap) if N[a.other] in ("w33", "w35")}
    assert mine == {("w33", "w35")}
    g.push(swap("w33", "w35"))  # the other Memory still has both of its swaps
    shuttle(g), shuttle(g)
    g.push(swap("w35", "w33"))
    shuttle(g), shuttle(g)
    assert of_type(g, Swap) == []


def test_resurrection_restores_memory_swaps():
    """Rulebook, Resurrection: "The Resurrected piece is treated as brand new, restoring all
    Powers."  Issue 3: swaps are "restored when that Memory is resurrected"."""
    g = build({"w35": "M", "w33": "S", "b17": "S", "w36": "v", "w59": "V", "b58": "v"},
              totem=(WHITE,))
    for memory, other in (("w35", "w33"), ("w33", "w35")):
        g.push(swap(memory, other))
        shuttle(g), shuttle(g)
    assert of_type(g, Swap) == []
    shuttle(g)
    g.push(mv("w36", "w35"))  # Black's Void captures the spent Memory (turn 25)
    shuttle(g), shuttle(g)
    g.push(resurrect("memory", "b19"))
    assert {(N[a.memory], N[a.other]) for a in of_type(g, Swap)} == {("b19", "b17")}
    g.push(swap("b19", "b17"))
    shuttle(g), shuttle(g)
    g.push(swap("b17", "b19"))
    shuttle(g), shuttle(g)
    assert of_type(g, Swap) == []


# --- Time -------------------------------------------------------------------------------------------


def pushes(game, target=None):
    return {
        (N[a.at], N[a.target], N[a.to])
        for a in of_type(game, Time)
        if target is None or N[a.target] == target
    }


def test_time_pushes_a_rival_back_up_to_three_spaces():
    """Rulebook, Time (Third Eye): "Use the Power of Time to move 1 of your rival's Towers backward
    up to 3 spaces along a Sight Line, toward their own Gateway." """
    g = build({"w19": "T", "b34": "s", "w33": "l", "b59": "v"})
    assert pushes(g, "b34") == {("w19", "b34", "b35"), ("w19", "b34", "b36"), ("w19", "b34", "b37")}
    # A Black tower on White's half goes back toward Black's Gateways: w33 -> w32, w31 (Iris stops it).
    assert pushes(g, "w33") == {("w19", "w33", "w32"), ("w19", "w33", "w31")}


def test_time_push_needs_empty_spaces():
    """Rulebook, Time (Third Eye): "The spaces must be unoccupied." """
    g = build({"w19": "T", "b34": "s", "b36": "S", "b59": "v"})
    assert pushes(g, "b34") == {("w19", "b34", "b35")}
    g = build({"w19": "T", "b34": "s", "b35": "v"})
    assert pushes(g, "b34") == set()


def test_time_push_never_onto_off_or_through_iris_or_horizon():
    """Rulebook, Time (Third Eye): "Towers can't be moved onto, off of or through the Iris or
    Horizon."  "The Tower you use Time against can be anywhere on the board except the Iris or
    Horizon"."""
    g = build({"w19": "T", "w31": "s", "wi": "m", "bi": "v", "hw3": "r", "b11": "l"})
    assert pushes(g, "w31") == set()  # onto the Iris
    assert pushes(g, "wi") == set() and pushes(g, "bi") == set()  # off the Iris
    assert pushes(g, "hw3") == set()  # off the Horizon
    # b11 (a Black tower on Black's half) goes outward: b12, b13, b14.
    assert pushes(g, "b11") == {("w19", "b11", "b12"), ("w19", "b11", "b13"), ("w19", "b11", "b14")}
    # A White tower pushed by Black toward White's Gateways never goes through the Iris.
    g = build({"b19": "t", "b12": "L", "w59": "V"}, to_move=BLACK)
    assert pushes(g, "b12") == {("b19", "b12", "b11")}


def test_time_push_never_crosses_the_gap_of_lines_2_and_4():
    """Spec: "The Time push never crosses the gap of lines 2 and 4"."""
    g = build({"w19": "T", "w23": "s", "w42": "s", "b59": "v"})
    assert pushes(g, "w23") == {("w19", "w23", "w22")}
    assert pushes(g, "w42") == set()


def test_time_tower_itself_blocks_the_push():
    """Spec: "the Time tower itself blocks the push"; rulebook tip: "use Towers behind you (or the
    Iris) to block your opponent from using the Power of Time against you"."""
    g = build({"b36": "T", "b35": "s", "b59": "v"})
    assert pushes(g, "b35") == set()


def test_time_costs_the_tower_and_does_not_end_the_turn():
    """Rulebook, Time (Third Eye): "Time must be on the board, and using its Power removes Time to
    the rival Zero G, captured. This does not end your turn. All other actions are still
    available"."""
    g = build({"w35": "T", "b34": "s", "w17": "V", "b59": "v"})
    g.push(push("w35", "b34", "b37"))
    assert at(g, "w35") is None and "time" in captured_pieces(g, WHITE)
    assert at(g, "b37") == (BLACK, "shadow") and at(g, "b34") is None
    assert g.to_move == WHITE and g.turn == 20
    assert g.events[-1].to_json() == {"type": "time", "turn": 20, "outcome": "pushed"}
    g.push(mv("w17", "w16"))
    assert g.to_move == BLACK


def test_time_must_be_on_the_board():
    """Rulebook, Time (Third Eye): "Time must be on the board"."""
    g = build({"b34": "s", "w17": "V", "b59": "v"}, reserve={WHITE: "T"})
    assert of_type(g, Time) == []


def test_time_never_used_from_the_iris_but_from_the_horizon():
    """Spec: "Powers are never used on the Iris." and "Powers may be used from the Horizon; only the
    Iris is excluded." """
    g = build({"wi": "T", "b34": "s", "b59": "v"})
    assert of_type(g, Time) == []
    g = build({"hw2": "T", "b34": "s", "b59": "v"})
    assert pushes(g, "b34") == {("hw2", "b34", "b35"), ("hw2", "b34", "b36"), ("hw2", "b34", "b37")}


def test_cloned_time_used_the_same_turn_up_to_six_spaces():
    """Rulebook, Time (Third Eye): "you can even use a 2nd Power of Time if it is Cloned."  Tip:
    "With a Time Clone, you can push a piece back up to 6 spaces!"; Stacking tip: "use Time and a
    Cloned Time on the same turn, on one or two targets"."""
    g = build({"w19": "T", "w29": "T", "b33": "s", "b31": "v", "b59": "v"})
    g.push(push("w19", "b33", "b36"))
    g.push(push("w29", "b36", "b39"))
    assert at(g, "b39") == (BLACK, "shadow") and g.to_move == WHITE
    assert [e.to_json()["outcome"] for e in g.events] == ["pushed", "pushed"]
    # two targets
    g = build({"w19": "T", "w29": "T", "b33": "s", "b31": "v", "w59": "V", "b58": "v"})
    g.push(push("w19", "b33", "b34"))
    g.push(push("w29", "b31", "b32"))
    assert at(g, "b34") == (BLACK, "shadow") and at(g, "b32") == (BLACK, "void")


def test_time_targets_any_piece_type():
    """Rulebook, Time (Third Eye): the target "can be any piece type"."""
    for letter in "lsarmtpv":
        g = build({"w19": "T", "b35": letter})
        assert pushes(g, "b35") == {("w19", "b35", "b36"), ("w19", "b35", "b37"), ("w19", "b35", "b38")}


def test_classic_form_time_in_a_third_eye_record_is_illegal():
    """Spec: "A Classic-form time in a Third Eye record is illegal (exit 1)."  The Third Eye form
    replays."""
    base = {
        "format": "quin-record/1",
        "mode": "third_eye",
        "first": "black",
        "setup": {
            "white": {"clone": "time", "removed": "void", "lineup": {
                "w19": "void", "w29": "memory", "w39": "time", "w49": "reflector", "w59": "void",
                "w18": "shadow", "w28": "peripheral", "w38": "light", "w48": "time", "w58": "shadow"}},
            "black": {"clone": "void", "removed": "time", "lineup": {
                "b19": "void", "b29": "memory", "b39": "void", "b49": "reflector", "b59": "void",
                "b18": "void", "b28": "peripheral", "b38": "light", "b48": "shadow", "b58": "shadow"}},
        },
        "turns": [{"player": "black", "actions": [{"type": "move", "from": "b18", "to": "b17"}]}],
    }
    good = json.loads(json.dumps(base))
    good["turns"].append({"player": "white", "actions": [
        {"type": "time", "at": "w39", "target": "b17", "to": "b18"},
        {"type": "move", "from": "w28", "to": "w27"}]})
    game = replay(load_record(good))
    assert at(game, "b18") == (BLACK, "void")
    assert [e.to_json() for e in game.events] == [{"type": "time", "turn": 2, "outcome": "pushed"}]
    bad = json.loads(json.dumps(base))
    bad["turns"].append({"player": "white", "actions": [
        {"type": "time", "at": "w39"}, {"type": "move", "from": "w28", "to": "w27"}]})
    with pytest.raises(ReplayError) as err:
        replay(load_record(bad))
    assert err.value.code == 1 and err.value.turn == 2 and err.value.action == 1


# --- Peripheral -------------------------------------------------------------------------------------


def test_peripheral_diagonals():
    """Rulebook, Peripheral (Third Eye): "Peripherals gain the ability to move at diagonals. Count 1
    space on a Ring and 1 space on a Line (or the Iris), for a total range of 2 spaces.
    Alternatively, you may still move up to 3 spaces in any one direction." """
    g = build({"w35": "P", "b59": "v"})
    straight = {"w36", "w37", "w38", "w34", "w33", "w32", "w45", "w55", "he5", "w25", "w15", "hw5"}
    assert targets(g, "w35") == straight | {"w24", "w26", "w44", "w46"}
    no_duplicates(g)  # each diagonal has two routes but is one action


def test_peripheral_diagonal_needs_one_open_route():
    """Spec: one ring step plus one line step "in either order" (a tower in between blocks that
    route only)."""
    g = build({"w35": "P", "w25": "V", "b59": "v"})
    assert "w24" in targets(g, "w35")  # via w34
    g = build({"w35": "P", "w25": "V", "w34": "V", "b59": "v"})
    assert "w24" not in targets(g, "w35")
    assert "w44" in targets(g, "w35") and "w26" in targets(g, "w35")


def test_peripheral_diagonal_through_iris_and_horizon_line():
    """Spec: "a line step is a Sight Line step (into or out of an Iris space included), a
    Horizon-line step, or wi-bi"."""
    g = build({"w31": "P", "b59": "v"})
    t = targets(g, "w31")
    assert {"w12", "w52", "w22", "w42"} <= t  # ring-then-line and line-then-ring
    assert "wi" in t
    no_duplicates(g)
    g = build({"w13": "P", "b59": "v"})
    assert {"hw2", "hw4"} <= targets(g, "w13")  # ring step onto hw3, Horizon-line step
    g = build({"hw3": "P", "b59": "v"})
    assert {"w12", "w14", "b52", "b54"} <= targets(g, "hw3")  # Horizon-line step, then ring


def test_peripheral_diagonal_flashes_at_its_end():
    """Rulebook, On Your Turn: "When you move into a space occupied by a rival Tower a "flash"
    occurs" (a diagonal included)."""
    g = build({"w35": "P", "w24": "s", "b59": "v"})
    g.push(mv("w35", "w24"))
    assert g.events[-1].to_json()["outcome"] == "capture" and at(g, "w24") == (WHITE, "peripheral")


def test_slingshot_over_own_peripheral_on_the_horizon():
    """Rulebook, Peripheral Slingshot: "Place your Peripheral on the Horizon, and then jump over it
    with any piece moving along that Ring, to the other side of the board! This counts as 1 space
    but stops the Slingshotted Tower, no matter its range, ending your turn on the first space on
    the other side." """
    g = build({"w13": "S", "hw3": "P", "b59": "v"})
    t = targets(g, "w13")
    assert "b53" in t and "b43" not in t and "hw3" not in t
    g.push(mv("w13", "b53"))
    assert at(g, "b53") == (WHITE, "shadow") and g.to_move == BLACK
    assert to_record(g)["turns"][-1]["actions"] == [{"type": "move", "from": "w13", "to": "b53"}]


def test_slingshot_counts_as_one_space():
    """Rulebook, Peripheral Slingshot: "This counts as 1 space"."""
    g = build({"w13": "V", "hw3": "P", "b59": "v"})
    assert "b53" in targets(g, "w13")  # a Void (range 1) slingshots
    g = build({"w23": "V", "hw3": "P", "b59": "v"})
    assert "b53" not in targets(g, "w23")  # one step to w13, the jump would be a second
    g = build({"w23": "L", "hw3": "P", "b59": "v"})
    assert "b53" in targets(g, "w23")  # Light (range 2): w13, then the jump


def test_slingshot_does_not_jump_other_towers():
    """Rulebook, Peripheral Slingshot: "Slingshots don't let you jump over any other Towers." """
    g = build({"w23": "S", "w13": "V", "hw3": "P", "b59": "v"})
    assert "b53" not in targets(g, "w23")
    g = build({"w13": "V", "hw3": "P", "b53": "V", "b59": "v"})
    assert "b53" not in targets(g, "w13")  # own tower beyond
    g = build({"w13": "V", "hw3": "p", "b59": "v"})
    assert "b53" not in targets(g, "w13")  # only over an own Peripheral


def test_slingshot_may_flash_the_target():
    """Rulebook, Peripheral Slingshot: "the target space does not have to be empty; you can use
    this Power to flash a rival Tower on the target space." """
    g = build({"w13": "S", "hw3": "P", "b53": "m", "b59": "v"})
    g.push(mv("w13", "b53"))
    assert g.events[-1].to_json() == {
        "type": "flash", "turn": 20, "at": "b53", "attacker": "shadow", "defender": "memory",
        "outcome": "capture"}


def test_slingshot_only_within_a_ring_move_and_by_a_peripheral_too():
    """Spec: "The Slingshot happens only within a straight move along a ring (a Peripheral may use
    it too)"."""
    g = build({"w13": "P", "hw3": "P", "b59": "v"})
    assert "b53" in targets(g, "w13")
    g = build({"w14": "P", "hw3": "P", "b59": "v"})
    assert "b53" not in targets(g, "w14") and "b52" not in targets(g, "w14")  # no diagonal jump
    g = build({"w12": "L", "hw3": "P", "b59": "v"})
    assert "b53" not in targets(g, "w12")  # Ring 2 has no Peripheral on its Horizon


def test_several_routes_to_one_destination_are_one_action():
    """Spec: "a destination reachable by several routes is one action"."""
    # Ring 1: hw1 w11 w31 w51 he1 b11 b31 b51.  West b51 b31 b11; east over he1 to b11.
    g = build({"hw1": "S", "he1": "P", "b59": "v"})
    assert "b11" in targets(g, "hw1")
    no_duplicates(g)
    # A Peripheral on w31 reaches b11 across the Iris and around Ring 1 over he1.
    g = build({"w31": "P", "b59": "v"})
    assert {"b11", "b51"} <= targets(g, "w31")
    no_duplicates(g)
    g = build({"w31": "P", "b59": "v"}, mode="classic")
    no_duplicates(g)


# --- Void Gravity -----------------------------------------------------------------------------------


def test_void_gravity_count_and_turn_end():
    """Rulebook, Void (Third Eye): "Use the Power of Void Gravity to move as many other Voids as you
    want, all at once to open spaces adjacent to any 1 of your Voids, anywhere. All target spaces
    must be empty and adjacent to the same Void. ... it does end your turn." """
    g = build({"w35": "V", "w19": "V", "b38": "V", "b59": "v"})
    got = of_type(g, Gravity)
    # anchor w35: spots w34 w36 w25 w45; anchor b38: b37 b39 b28 b48; anchor w19: w18.
    # 2 pulled Voids: 2*4 + 4*3 = 20 per 4-spot anchor; 2 for w19.
    assert len(got) == 42 and len(set(got)) == 42
    a = gravity("b38", {"w19": "b28", "w35": "b48"})
    assert a in got
    g.push(a)
    assert at(g, "b28") == (WHITE, "void") and at(g, "b48") == (WHITE, "void")
    assert g.to_move == BLACK


def test_void_gravity_onto_spaces_empty_before_the_action():
    """Spec: "Void Gravity moves at least one Void, onto spaces empty before the action"."""
    g = build({"w35": "V", "w34": "V", "w19": "V", "b59": "v"})
    assert gravity("w35", {"w34": "w36", "w19": "w34"}) not in g.legal_actions()
    assert gravity("w35", {"w34": "w36", "w19": "w25"}) in g.legal_actions()
    with pytest.raises(IllegalError):
        g.push(Gravity(S("w35"), ()))


def test_void_gravity_onto_the_horizon_along_a_ring():
    """Rulebook, Void (Third Eye): "With Gravity you can land Voids on open spaces on the Horizon,
    from any space adjacent on a Ring, but Voids still can't move to the Horizon as a normal
    move." """
    g = build({"w15": "V", "w19": "V", "b59": "v"})
    assert gravity("w15", {"w19": "hw5"}) in g.legal_actions()
    assert "hw5" not in targets(g, "w15")
    g = build({"b55": "V", "w19": "V", "b59": "v"})
    assert gravity("b55", {"w19": "hw5"}) in g.legal_actions()  # b55 touches hw5 along Ring 5
    g = build({"w25": "V", "w19": "V", "b59": "v"})
    assert all(N[b] != "hw5" for a in of_type(g, Gravity) for _, b in a.moves)


def test_void_on_the_horizon_moves_and_anchors_gravity():
    """Rulebook, Void (Third Eye): "Once on the Horizon, Voids can move from it, along it, or even
    use Void Gravity again on another turn."  Spec: "an anchor Void on the Horizon also pulls onto
    its Horizon-line neighbours"."""
    g = build({"hw3": "V", "w19": "V", "b59": "v"})
    assert targets(g, "hw3") == {"hw2", "hw4", "w13", "b53"}
    spots = {N[b] for a in of_type(g, Gravity) if N[a.void] == "hw3" for _, b in a.moves}
    assert spots == {"hw2", "hw4", "w13", "b53"}


def test_void_gravity_never_from_or_onto_the_iris():
    """Rulebook, Void (Third Eye): "Gravity can't be used from or onto the Iris." """
    g = build({"w11": "V", "w19": "V", "b59": "v"})
    spots = {N[b] for a in of_type(g, Gravity) if N[a.void] == "w11" for _, b in a.moves}
    assert spots == {"w12", "w31", "hw1"}
    g = build({"wi": "V", "w19": "V", "b59": "v"})
    assert of_type(g, Gravity) == [] or all(N[a.void] != "wi" for a in of_type(g, Gravity))
    g = build({"wi": "V", "w35": "V", "b59": "v"})
    assert of_type(g, Gravity) == []  # neither anchor nor pulled from the Iris


def test_void_gravity_needs_another_void():
    """Rulebook, Void (Third Eye): "move as many other Voids as you want" (at least one, spec)."""
    g = build({"w35": "V", "b59": "v"})
    assert of_type(g, Gravity) == []


# --- Stacking ------------------------------------------------------------------------------------------


def stacking_position():
    # White: Time on w19, Memory on w35 + Shadow on w33, a Shadow captured long ago, Totem unused.
    return build(
        {"w19": "T", "w35": "M", "w33": "S", "w17": "V", "b34": "s", "b59": "v", "b18": "v"},
        totem=(WHITE,),
    )


@pytest.mark.parametrize("order", list(permutations(range(3))))
def test_stack_time_resurrection_and_swap_in_any_order(order):
    """Rulebook, Stacking Powers (Third Eye): "You can stack this Power with Time, Resurrection
    and/or a Cloned Memory or Cloned Time, and then still play your turn."  Spec: "Non-ending:
    Resurrection, Classic Time; in Third Eye also Memory Swap and Third Eye Time." """
    g = stacking_position()
    steps = [push("w19", "b34", "b37"), resurrect("shadow", "b19"), swap("w35", "w33")]
    for i in order:
        g.push(steps[i])
        assert g.to_move == WHITE
    g.push(mv("w17", "w16"))
    assert g.to_move == BLACK
    assert len(to_record(g)["turns"][-1]["actions"]) == 4


def test_stack_two_memories_and_use_the_resurrected_piece():
    """Rulebook, Resurrection: "Any other action is still legal, including using the Resurrected
    piece in any way"; Stacking (Third Eye): "... and/or a Cloned Memory ..."."""
    g = build({"b35": "M", "w35": "M", "w33": "S", "w17": "V", "b59": "v"}, totem=(WHITE,))
    g.push(resurrect("shadow", "b19"))
    g.push(swap("b35", "b19"))  # Memory on Black's half swaps with the resurrected Shadow
    g.push(swap("w35", "w33"))  # the cloned Memory swaps too
    assert g.to_move == WHITE
    assert targets(g, "b19") == set() and targets(g, "b35") == set()
    g.push(mv("w17", "w18"))
    assert g.to_move == BLACK


def test_pass_only_when_no_turn_ending_action_even_with_powers_left():
    """Spec: "Pass is legal exactly when no turn-ending action is legal at that moment (using Time
    or Resurrection to create one is not required)." """
    # White: two Memories on line 1, boxed in by Black Voids; the one on w18 may flash w17.  White's
    # other towers fill its Gateways (so its Light, waiting in reserve, cannot come in) and were
    # swapped by Memory earlier this turn (so they may not move).
    g = build({"w19": "M", "w18": "M", "w17": "v", "w16": "v", "b35": "s",
               "w29": "S", "w39": "V", "w49": "V", "w59": "R"}, frozen=("w29", "w39", "w49", "w59"))
    assert Pass() not in g.legal_actions()
    # After they swap, neither may move: no turn-ending action is left, so White passes.
    g.push(swap("w19", "w18"))
    assert Pass() in g.legal_actions()
    assert all(type(a) in (Pass, Swap, Time, Resurrect) for a in g.legal_actions())


def test_diagonals_slingshot_gravity_and_time_push_are_third_eye_only():
    """Rulebook: "Peripherals, Voids, Memory and Time all have upgrades and new Powers in this
    advanced mode." (Classic keeps the old rules.)"""
    g = build({"w35": "P", "b59": "v"}, mode="classic")
    assert not {"w24", "w26", "w44", "w46"} & targets(g, "w35")
    g = build({"w13": "V", "hw3": "P", "b59": "v"}, mode="classic")
    assert "b53" not in targets(g, "w13")
    g = build({"w35": "V", "w19": "V", "b34": "s", "w17": "T", "b59": "v"}, mode="classic")
    assert of_type(g, Gravity) == []
    assert all(a.target is None for a in of_type(g, Time))
    g = build({"w35": "M", "hw3": "P", "b59": "v"}, mode="classic")
    assert of_type(g, Swap) == []
