"""Independent rules audit: each test quotes the rule it checks and failed before its fix."""

from engine.actions import Time
from engine.views import view

from tests.support.engine_helpers import BLACK, WHITE, legal_of, mv, play, position, reinforce, resurrect, time_at


def board_of(v):
    return {e["space"]: (e["owner"], e["piece"], e["revealed"]) for e in v["board"]}


def test_a_rewound_reinforcement_goes_back_hidden():
    """docs/rules.md (Power of Time): "Rewinding a Reinforcement puts the tower back on
    Zero Gravity, still hidden"; guide: "No page ... may show a hidden identity to
    someone not entitled to it."  Several Artificial Lights reinforced at once are
    public; once the Power of Time has sent them back to Zero Gravity, a later single
    reinforcement (which could be any reserve piece) must not show its identity.
    """
    g = position({"w38": "L", "b38": "l", "b33": "t", "b18": "s"}, WHITE,
                 reserve={WHITE: ["A", "A", "A", "V"]})
    play(g, reinforce(w19="artificial_light", w29="artificial_light"))
    play(g, time_at("b33"), mv("b18", "b17"))
    play(g, reinforce(w39="artificial_light"))
    for viewer in (BLACK, None):
        assert board_of(view(g, viewer))["w39"] == (WHITE, None, False)
    assert board_of(view(g, WHITE))["w39"] == (WHITE, "artificial_light", False)


def test_resurrection_conflict_makes_time_illegal_against_a_shadow_too():
    """Spec 8: "if this turn's Resurrection made that impossible (it filled the Gateway the
    rewind needs), Time is illegal", and its bans "are checked before the Shadow failure".
    Whether Time is legal must not depend on the hidden identity of the rival tower: with
    the Gateway filled, Time is illegal whether the tower that left it is a Shadow or not.
    """
    for mover in ("s", "p"):
        g = position({"w39": "T", "w13": "V", "b29": mover, "w19": "L", "b19": "l"}, BLACK,
                      captured={WHITE: ["S"]})
        g.push(mv("b29", "b27"))
        g.push(resurrect("shadow", "b29"))
        assert legal_of(g, Time) == [], mover
        assert g.why_illegal(time_at("w39")) == "is not allowed: the rewind needs a space that is now filled"
