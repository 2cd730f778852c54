"""What each player, and the public, may know (Classic)."""

import json
from collections import Counter

import pytest

from engine.randplay import random_game
from engine.errors import IllegalError
from engine.views import action_seen_by, knows, made_public, view

from tests.support.engine_helpers import (
    S,
    WHITE_LINEUP,
    mv,
    new_game,
    play,
    position,
    reflect,
    reinforce,
    resurrect,
    swap,
    time_at,
)


def board_of(v):
    return {e["space"]: (e["owner"], e["piece"]) for e in v["board"]}


def test_own_identities_visible_rival_hidden_at_the_start():
    """Game Overview: "In Quin, your pieces are hidden from your rival until they collide." """
    g = new_game()
    for viewer, rival in (("white", "black"), ("black", "white")):
        v = view(g, viewer)
        seen = board_of(v)
        assert len(seen) == 20
        for space, (owner, piece) in seen.items():
            if owner == viewer:
                assert piece is not None
            else:
                assert piece is None
        assert v["reserve"][viewer]["pieces"] == ["artificial_light"] * 4 + ["reflector", "time", "void"]
        assert v["reserve"][rival] == {"count": 7}
    w = board_of(view(g, "white"))
    assert w["w38"] == ("white", "light") and w["b38"] == ("black", None)


def test_public_view_holds_only_public_facts():
    g = new_game()
    v = view(g, None)
    assert all(e["piece"] is None for e in v["board"])
    assert v["reserve"] == {"white": {"count": 7}, "black": {"count": 7}}
    assert "setup" not in v and "rival" not in v
    assert v["viewer"] is None and v["to_move"] == "white"
    play(g, mv("w58", "w51"), mv("b58", "b51"), mv("w51", "b51"))  # Shadow flashes Shadow: swap
    v = view(g, None)
    seen = board_of(v)
    assert seen["b51"] == ("white", "shadow") and seen["w51"] == ("black", "shadow")
    assert sum(1 for e in v["board"] if e["piece"] is not None) == 2
    assert v["events"] == [{"type": "flash", "turn": 3, "at": "b51", "attacker": "shadow",
                            "defender": "shadow", "outcome": "swap"}]


def test_revealed_by_flash_to_both_players_only_those_two():
    g = position({"w35": "P", "w36": "m", "w19": "L", "b19": "l", "b33": "v"}, "black")
    g.push(mv("w36", "w35"))  # Black's Memory flashes White's Peripheral: swap
    for viewer in ("white", "black", None):
        seen = board_of(view(g, viewer))
        assert seen["w35"] == ("black", "memory") and seen["w36"] == ("white", "peripheral")
    assert board_of(view(g, "white"))["b33"] == ("black", None)
    assert board_of(view(g, "black"))["w19"] == ("white", None)


def test_own_setup_only_in_own_view():
    g = new_game()
    white = view(g, "white")
    black = view(g, "black")
    assert white["setup"] == {"clone": "time", "removed": "void", "lineup": WHITE_LINEUP}
    assert black["setup"]["lineup"] == {"b" + k[1:]: p for k, p in WHITE_LINEUP.items()}
    assert white["rival"] == "black" and black["rival"] == "white"
    assert "setup" not in json.dumps({k: v for k, v in white.items() if k != "setup"})
    assert not any(k.startswith("b") for k in white["setup"]["lineup"])


def test_rival_reflection_is_seen_as_a_move():
    """The Reflector stays hidden: the rival sees the Light's tower travel, nothing more."""
    g = position({"w33": "R", "w38": "L", "b19": "l"})
    a = reflect("w33", "w38", "w32")
    g.push(a)
    assert action_seen_by(g, a, "white", "white") == {"type": "reflect", "reflector": "w33", "from": "w38",
                                                      "to": "w32"}
    redacted = {"type": "move", "from": "w38", "to": "w32"}
    assert action_seen_by(g, a, "white", "black") == redacted
    assert action_seen_by(g, a, "white", None) == redacted
    assert view(g, "black")["history"] == [{"turn": 10, "player": "white", "actions": [redacted]}]
    assert board_of(view(g, "black"))["w32"] == ("white", None)
    assert board_of(view(g, "black"))["w33"] == ("white", None)


def test_rival_swap_is_seen_as_two_spaces_trading():
    g = position({"w35": "M", "w19": "L", "b19": "l"})
    a = swap("w35", "w19")
    g.push(a)
    assert action_seen_by(g, a, "white", "black") == {"type": "swap", "spaces": ["w19", "w35"]}
    assert view(g, None)["history"][0]["actions"] == [{"type": "swap", "spaces": ["w19", "w35"]}]
    assert view(g, "white")["history"][0]["actions"] == [{"type": "swap", "memory": "w35", "with": "w19"}]
    seen = board_of(view(g, "black"))
    assert seen["w35"] == ("white", None) and seen["w19"] == ("white", None)


def test_rival_reinforcement_hides_the_piece():
    g = new_game()
    play(g, mv("w28", "w25"), mv("b28", "b25"), mv("w29", "w28"))
    a = reinforce(b29="reflector")
    g.push(mv("b29", "b28"))
    g.push(mv("w38", "w37"))
    g.push(a)
    assert action_seen_by(g, a, "black", "white") == {"type": "reinforce", "to": {"b29": None}}
    assert action_seen_by(g, a, "black", None) == {"type": "reinforce", "to": {"b29": None}}
    assert action_seen_by(g, a, "black", "black") == {"type": "reinforce", "to": {"b29": "reflector"}}
    assert board_of(view(g, "white"))["b29"] == ("black", None)
    assert view(g, "white")["reserve"]["black"] == {"count": 6}


def test_several_artificial_lights_at_once_are_public():
    """Only Artificial Lights may come in several at once, so such a reinforcement names itself."""
    g = position({"w19": "L", "b19": "l"}, reserve={"white": ["A", "A"]})
    a = reinforce(w29="artificial_light", w39="artificial_light")
    g.push(a)
    assert action_seen_by(g, a, "white", "black") == a.to_record()
    seen = board_of(view(g, None))
    assert seen["w29"] == seen["w39"] == ("white", "artificial_light")


def test_time_and_resurrection_are_public_and_a_rewound_tower_stays_hidden():
    g = position({"w39": "T", "w13": "V", "b35": "p", "w19": "L", "b19": "l"}, "black",
                 captured={"white": ["S"]})
    g.push(mv("b35", "b32"))
    play(g, time_at("w39"), resurrect("shadow", "b29"))
    black = view(g, "black")
    assert black["history"][-1]["actions"] == [{"type": "time", "at": "w39"},
                                               {"type": "resurrect", "piece": "shadow", "to": "b29"}]
    assert board_of(black)["b29"] == ("white", "shadow")
    assert board_of(view(g, "white"))["b35"] == ("black", None)
    assert view(g, None)["captured"]["white"] == ["time"]
    assert view(g, None)["totem_used"] == {"white": True, "black": False}


def test_views_reject_unknown_viewers():
    with pytest.raises(ValueError):
        view(new_game(), "red")


def test_no_view_of_a_random_game_shows_an_unknown_identity():
    """Walk one seeded random game: every identity a view shows is the viewer's own or was revealed."""
    game = random_game(7, max_actions=120)
    assert game.events  # something was revealed along the way
    for viewer in ("white", "black", None):
        v = view(game, viewer)
        for entry in v["board"]:
            t = game.state.board[S(entry["space"])]
            if entry["piece"] is not None:
                assert knows(game, viewer, t)
                assert entry["piece"] == game.piece[t]
                assert viewer == game.owner[t] or entry["revealed"]
            else:
                assert not knows(game, viewer, t)
        rivals = ("white", "black") if viewer is None else (("black",) if viewer == "white" else ("white",))
        for rival in rivals:
            assert set(v["reserve"][rival]) == {"count"}


# --- what an action makes public -------------------------------------------------------------------


def _unchanged(g, action) -> dict:
    key, known, legal = g.same_game_key(), list(g.state.known), g.legal_actions()
    out = made_public(g, action)
    assert (g.same_game_key(), list(g.state.known), g.legal_actions()) == (key, known, legal)
    return out


def test_made_public_by_a_flash_names_both_towers_where_they_stand():
    """Spec 6: a flash reveals both towers."""
    g = position({"w35": "P", "w36": "m", "w19": "L", "b19": "l", "b33": "v"}, "black")
    assert _unchanged(g, mv("w36", "w35")) == {"w35": "peripheral", "w36": "memory"}
    assert _unchanged(g, mv("b33", "b32")) == {}  # a move onto an empty space shows nothing


def test_made_public_by_time_and_resurrection():
    """Time (Classic) goes to Zero Gravity revealed, the rewound tower stays hidden; a resurrected
    tower was public already (captured towers are), so it is not named again."""
    g = position({"w39": "T", "w13": "V", "b35": "p", "w19": "L", "b19": "l"}, "black",
                 captured={"white": ["S"]})
    g.push(mv("b35", "b32"))
    assert _unchanged(g, time_at("w39")) == {"w39": "time"}
    g.push(time_at("w39"))
    assert _unchanged(g, resurrect("shadow", "b29")) == {}


def test_made_public_by_a_failed_time_names_the_shadow():
    """Spec 5, Time (Classic): against an action that moved a Shadow the Power fails and reveals it."""
    g = position({"w39": "T", "b35": "s", "w19": "L", "b19": "l"}, "black")
    shadow = next(a for a in g.legal_actions() if type(a).__name__ == "Move" and a.frm == S("b35"))
    g.push(shadow)
    assert _unchanged(g, time_at("w39")) == {"w39": "time", view(g, "black")["history"][-1]["actions"][0]["to"]: "shadow"}


def test_made_public_by_artificial_lights_reinforced_together_names_their_gateways():
    """Spec 5: several Artificial Lights at once are public; a single reinforcement is not."""
    g = position({"w38": "L", "b38": "l"}, "white", reserve={"white": ["artificial_light"] * 2})
    assert _unchanged(g, reinforce(w19="artificial_light", w29="artificial_light")) == {
        "w19": "artificial_light", "w29": "artificial_light"}
    assert _unchanged(g, reinforce(w19="artificial_light")) == {}


def test_made_public_refuses_an_illegal_action():
    g = position({"w35": "P", "w19": "L", "b19": "l"}, "black")
    with pytest.raises(IllegalError):
        made_public(g, mv("w35", "w34"))


def _public(v) -> Counter:
    """The identities a public view shows: on the board and on both Zero Gravity boards."""
    return Counter([e["piece"] for e in v["board"] if e["piece"] is not None]
                   + [p for side in ("white", "black") for p in v["captured"][side]])


@pytest.mark.parametrize("mode", ["classic", "third_eye"])
def test_made_public_is_what_the_public_view_shows_after_and_not_before(mode):
    """On random games: the game is left as it was, no named space showed its identity before the
    action, and the public view after it shows every named identity more (the public view)."""
    named = 0
    for seed in range(6):
        game = random_game(100 + seed, mode=mode, max_actions=60)
        while game.log and game.is_over():
            game.pop()
        for action in game.legal_actions()[:40]:
            out = _unchanged(game, action)
            before = view(game, None)
            game.push(action)
            after = view(game, None)
            game.pop()
            for space in out:
                assert board_of(before).get(space, (None, None))[1] is None  # not public before
            gained = _public(after)
            gained.subtract(_public(before))
            for piece, n in Counter(out.values()).items():
                assert gained[piece] >= n  # public after: on the board or a Zero Gravity board
            named += len(out)
    assert named > 0
