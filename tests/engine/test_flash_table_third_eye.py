"""The Third Eye flash table, all 64 attacker/defender pairs, against spec section 4.

The expectation is written out here from the spec's text, not imported from
the engine:

  Classic: light, artificial_light capture anything; shadow swaps with a shadow,
  mutually destructs with a void, captures the rest; time, peripheral mutually
  destruct with a void, capture the rest; void mutually destructs with a void,
  captures the rest; memory, reflector mutually destruct with a void, swap with
  the rest.
  Third Eye changes: any attacker flashing its own type mutually destructs,
  except light and shadow; shadow swaps with time; artificial_light swaps with
  time and reflector; peripheral captures only shadows and swaps with the rest
  (void still destructs); time as a defender is captured only by void and light.

Each pair is checked twice: in the engine's table, and by a real flash on a
board (the attacker moves one space onto the defender).
"""

import pytest

from engine.flash import flash_outcome
from tests.support.third_eye_helpers import BLACK, WHITE, at, build, mv

C, S, M = "capture", "swap", "mutual_destruction"
ORDER = ("light", "shadow", "artificial_light", "reflector", "memory", "time", "peripheral", "void")

# rows: attacker; columns: defender in ORDER (L, S, A, R, M, T, P, V)
THIRD_EYE = {
    #                    L  S  A  R  M  T  P  V
    "light":            (C, C, C, C, C, C, C, C),
    "shadow":           (C, S, C, C, C, S, C, M),
    "artificial_light": (C, C, M, S, C, S, C, C),
    "reflector":        (S, S, S, M, S, S, S, M),
    "memory":           (S, S, S, S, M, S, S, M),
    "time":             (C, C, C, C, C, M, C, M),
    "peripheral":       (S, C, S, S, S, S, M, M),
    "void":             (C, C, C, C, C, C, C, M),
}
PAIRS = [(a, d, THIRD_EYE[a][i]) for a in ORDER for i, d in enumerate(ORDER)]
LETTER = {"light": "L", "shadow": "S", "artificial_light": "A", "reflector": "R",
          "memory": "M", "time": "T", "peripheral": "P", "void": "V"}


def test_sixty_four_pairs():
    assert len(PAIRS) == 64 and len({(a, d) for a, d, _ in PAIRS}) == 64


@pytest.mark.parametrize("attacker,defender,outcome", PAIRS)
def test_table(attacker, defender, outcome):
    assert flash_outcome("third_eye", attacker, defender) == outcome


@pytest.mark.parametrize("attacker,defender,outcome", PAIRS)
def test_real_flash(attacker, defender, outcome):
    g = build({"w35": LETTER[attacker], "w34": LETTER[defender].lower()})
    g.push(mv("w35", "w34"))
    ev = g.events[-1].to_json()
    assert (ev["attacker"], ev["defender"], ev["outcome"]) == (attacker, defender, outcome)
    if outcome == C:
        assert at(g, "w34") == (WHITE, attacker) and at(g, "w35") is None
    elif outcome == S:
        assert at(g, "w34") == (WHITE, attacker) and at(g, "w35") == (BLACK, defender)
    else:
        assert at(g, "w34") is None and at(g, "w35") is None
    if defender == "light" and outcome == C:
        assert g.result.winner == WHITE
    else:
        assert g.result is None


def test_third_eye_differs_from_classic_exactly_where_the_spec_says():
    """Third Eye changes (spec 4) against the Classic table written out the same way."""
    classic = {
        "light": (C,) * 8,
        "artificial_light": (C,) * 8,
        "shadow": (C, S, C, C, C, C, C, M),
        "time": (C, C, C, C, C, C, C, M),
        "peripheral": (C, C, C, C, C, C, C, M),
        "void": (C, C, C, C, C, C, C, M),
        "memory": (S, S, S, S, S, S, S, M),
        "reflector": (S, S, S, S, S, S, S, M),
    }
    changed = {(a, ORDER[i]) for a in ORDER for i in range(8) if classic[a][i] != THIRD_EYE[a][i]}
    expected = {(p, p) for p in ORDER if p not in ("light", "shadow", "void")}
    expected |= {("shadow", "time"), ("artificial_light", "time"), ("artificial_light", "reflector")}
    expected |= {("peripheral", d) for d in ORDER if d not in ("shadow", "void", "peripheral")}
    assert changed == expected
    for a in ORDER:
        for i, d in enumerate(ORDER):
            assert flash_outcome("classic", a, d) == classic[a][i]
