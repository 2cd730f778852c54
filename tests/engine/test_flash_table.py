"""The Classic flash table, all 64 pairs, against spec section 4 written out here by hand."""

import pytest

from engine.flash import CLASSIC, flash_outcome
from engine.pieces import PIECES
from engine.views import view

from tests.support.engine_helpers import at, captured, mv, position, reflect

# Spec section 4, Classic table (attacker -> result), written independently:
#   light, artificial_light: capture anything.
#   shadow: swap with a shadow, mutual destruction with a void, capture the rest.
#   time, peripheral: mutual destruction with a void, capture the rest.
#   void: mutual destruction with a void, capture the rest (light included).
#   memory, reflector: mutual destruction with a void, swap with the rest.
# C = capture, S = swap, M = mutual destruction.
COLUMNS = ["light", "shadow", "artificial_light", "reflector", "memory", "time", "peripheral", "void"]
TABLE = """
attacker           L  S  A  R  M  T  P  V
light              C  C  C  C  C  C  C  C
shadow             C  S  C  C  C  C  C  M
artificial_light   C  C  C  C  C  C  C  C
reflector          S  S  S  S  S  S  S  M
memory             S  S  S  S  S  S  S  M
time               C  C  C  C  C  C  C  M
peripheral         C  C  C  C  C  C  C  M
void               C  C  C  C  C  C  C  M
"""
WORD = {"C": "capture", "S": "swap", "M": "mutual_destruction"}


def expected_table():
    rows = [line.split() for line in TABLE.strip().splitlines()[1:]]
    return {(row[0], d): WORD[cell] for row in rows for d, cell in zip(COLUMNS, row[1:])}


EXPECTED = expected_table()


def test_expectation_covers_all_64_pairs():
    assert len(EXPECTED) == 64
    assert set(COLUMNS) == set(PIECES)


@pytest.mark.parametrize("attacker,defender", sorted(EXPECTED))
def test_classic_flash_outcome(attacker, defender):
    assert flash_outcome(CLASSIC, attacker, defender) == EXPECTED[(attacker, defender)]


LETTERS = {"light": "L", "shadow": "S", "artificial_light": "A", "reflector": "R", "memory": "M",
           "time": "T", "peripheral": "P", "void": "V"}


@pytest.mark.parametrize("attacker,defender", sorted(EXPECTED))
def test_every_pair_played_on_the_board(attacker, defender):
    """Each pair as a real one-step move w34-w35 onto a Black tower, checked on the board."""
    towers = {"w34": LETTERS[attacker], "b59": "v", "w59": "V"}
    if attacker != "light":
        towers["w19"] = "L"
    if defender != "light":
        towers["b19"] = "l"
    towers["w35"] = LETTERS[defender].lower()
    g = position(towers)
    g.push(mv("w34", "w35"))
    outcome = EXPECTED[(attacker, defender)]
    event = g.events[-1].to_json()
    assert event == {"type": "flash", "turn": 10, "at": "w35", "attacker": attacker,
                     "defender": defender, "outcome": outcome}
    if outcome == "capture":
        assert at(g, "w35") == ("white", attacker)
        assert at(g, "w34") is None
        assert defender in captured(g, "black")
        assert captured(g, "white") == []
    elif outcome == "swap":
        assert at(g, "w35") == ("white", attacker)
        assert at(g, "w34") == ("black", defender)
        assert captured(g, "white") == captured(g, "black") == []
    else:
        assert at(g, "w35") is None and at(g, "w34") is None
        assert captured(g, "white") == [attacker]
        assert captured(g, "black") == [defender]
    won = outcome == "capture" and defender == "light"
    assert (g.result is not None) == won
    if won:
        assert (g.result.winner, g.result.reason) == ("white", "light_captured")


def test_swap_sends_defender_to_the_attackers_start_not_the_space_before():
    """Swap Places: "...with the defender moving to the space where the attacker started on that turn."
    A Shadow flashing a Shadow from 5 spaces away sends the defender all the way back."""
    g = position({"w31": "S", "w36": "s", "w19": "L", "b19": "l"})
    g.push(mv("w31", "w36"))
    assert at(g, "w36") == ("white", "shadow")
    assert at(g, "w31") == ("black", "shadow")
    assert [e.to_json()["outcome"] for e in g.events] == ["swap"]


def test_swap_across_the_iris_sends_defender_to_the_far_side():
    """A Shadow crossing the Iris swaps a rival Shadow back to the attacker's start on the other side."""
    g = position({"w33": "S", "b32": "s", "w19": "L", "b19": "l"})
    g.push(mv("w33", "b32"))  # w32, w31, wi, bi, b31, b32: 6 spaces
    assert at(g, "b32") == ("white", "shadow")
    assert at(g, "w33") == ("black", "shadow")


def test_mutual_destruction_sends_both_to_rival_zero_gravity_and_frees_the_space():
    """Mutual Destruction: "Mutual destruction removes both Towers to the rival Zero Gravity boards." """
    g = position({"w33": "T", "w34": "v", "w19": "L", "b19": "l"})
    g.push(mv("w33", "w34"))
    assert at(g, "w34") is None and at(g, "w33") is None
    assert captured(g, "white") == ["time"] and captured(g, "black") == ["void"]
    # both identities are public
    pub = view(g, None)
    assert pub["captured"] == {"white": ["time"], "black": ["void"]}


def test_void_attacking_light_captures_it():
    """Void: "Voids capture anything they flash" and Light "is vulnerable to anything that captures,
    including Voids"."""
    g = position({"w33": "V", "w34": "l", "w19": "L"})
    g.push(mv("w33", "w34"))
    assert g.result.winner == "white" and g.result.reason == "light_captured"


def test_light_flashing_void_is_immune():
    """Light: "It is immune to Voids' mutual destruction." """
    g = position({"w33": "L", "w34": "v", "b19": "l"})
    g.push(mv("w33", "w34"))
    assert at(g, "w34") == ("white", "light")
    assert captured(g, "white") == []


def test_reflected_artificial_light_flashes_on_landing():
    """Reflection: "You can use this Power to flash rival Towers by landing on them!" """
    g = position({"w33": "R", "w37": "A", "w32": "p", "w19": "L", "b19": "l"})
    g.push(reflect("w33", "w37", "w32"))
    assert at(g, "w32") == ("white", "artificial_light")
    assert at(g, "w37") is None
    assert captured(g, "black") == ["peripheral"]
    assert g.events[-1].to_json()["outcome"] == "capture"
