"""``Game.could_grow``: could an action, for all the rival can tell, still grow into a larger Void Gravity?

The referee waits for a Gravity to be over before committing it; how long it waits must depend on
public facts only (which towers are revealed, which were swapped this turn, the board), never on
which hidden towers are Voids.  And every Gravity that could really grow must be waited for.
"""

from __future__ import annotations

from engine.actions import Gravity, Move
from engine.game import Game

from tests.support.positions import random_positions

from tests.support.third_eye_helpers import S, gravity, mv

SETS = {"white": ("void", "time"), "black": ("void", "time")}
RIVAL = {"b38": ("black", "light"), "b59": ("black", "void")}


def position(white: dict[str, str], mode: str = "third_eye", **kw) -> Game:
    board = {s: ("white", p) for s, p in white.items()} | RIVAL
    return Game.from_position(board, "white", mode=mode, sets=SETS, **kw)


def test_a_pull_next_to_a_void_with_room_and_another_void_free_could_grow():
    """Rulebook, Void (Third Eye): "move as many other Voids as you want, all at once to open spaces
    adjacent to any 1 of your Voids": one Void pulled beside w35, w34 free to follow, w25 still empty."""
    g = position({"w35": "void", "w34": "void", "w19": "void"})
    assert g.could_grow(gravity("w35", {"w19": "w36"}))
    # a plain one-space move of a Void onto a space beside another Void reads the same on the board
    assert g.could_grow(mv("w34", "w33")) is False  # w33 is next to no other Void of White's
    assert g.could_grow(mv("w19", "w18")) is False


def test_a_hidden_tower_counts_as_a_possible_void_and_a_revealed_one_does_not():
    """Decided from public facts: a hidden Shadow on w34 may be a Void for all Black can tell (the
    same answer as a real Void there); revealed, it is not one."""
    hidden = position({"w35": "void", "w34": "shadow", "w19": "void"})
    void = position({"w35": "void", "w34": "void", "w19": "void"})
    revealed = position({"w35": "void", "w34": "shadow", "w19": "void"}, revealed=["w34"])
    action = gravity("w35", {"w19": "w36"})
    assert hidden.could_grow(action) is True
    assert void.could_grow(action) is True
    assert revealed.could_grow(action) is False


def test_no_room_left_or_nothing_left_to_pull_means_it_cannot_grow():
    # beside w35: w34 (a Void), w25 and w45 (revealed Shadows), w36 (the pull): no room left
    full = position({"w35": "void", "w34": "void", "w19": "void", "w25": "shadow", "w45": "shadow"},
                    revealed=["w25", "w45"])
    assert full.could_grow(gravity("w35", {"w19": "w36"})) is False
    # room left, but no other Void to pull
    alone = position({"w35": "void", "w19": "void"})
    assert alone.could_grow(gravity("w35", {"w19": "w36"})) is False


def test_a_void_swapped_this_turn_cannot_be_pulled():
    """Spec 8 (Third Eye): a tower moved by a Memory Swap may not "be pulled by Void Gravity ... for
    the rest of that turn"."""
    free = position({"w35": "void", "w34": "void", "w19": "void"})
    frozen = position({"w35": "void", "w34": "void", "w19": "void"}, frozen=["w34"])
    action = gravity("w35", {"w19": "w36"})
    assert free.could_grow(action) and not frozen.could_grow(action)


def test_classic_and_other_actions_never_grow():
    g = position({"w35": "void", "w34": "void", "w19": "void"}, mode="classic")
    assert not any(g.could_grow(a) for a in g.legal_actions())


def test_every_gravity_that_really_grows_passes():
    """Property: a legal Gravity whose pulls are part of a larger legal Gravity (same anchor) could
    grow, so the engine says so, on random Third Eye positions."""
    checked = 0
    for game in random_positions("third_eye", 60, seed=4040, least=10):
        gravities = [a for a in game.legal_actions() if type(a) is Gravity]
        larger: dict[int, list[set]] = {}
        for a in gravities:
            larger.setdefault(a.void, []).append(set(a.moves))
        for a in gravities:
            pulls = set(a.moves)
            if any(pulls < other for other in larger[a.void]):
                assert game.could_grow(a), (a, game.state.turn)
                checked += 1
        for a in game.legal_actions():
            if type(a) is Move and game.board_effect(a).flash is None:
                one = [g for g in gravities if g.moves == ((a.frm, a.to),)]
                if any(game.could_grow(g) for g in one):
                    assert game.could_grow(a)  # the board cannot tell the move from that Gravity
    assert checked > 50


def test_the_effect_at_hand_gives_the_same_answer():
    g = position({"w35": "void", "w34": "void", "w19": "void"})
    for a in g.legal_actions():
        assert g.could_grow(a) == g.could_grow(a, g.board_effect(a))
    assert S("w35") in {a.void for a in g.legal_actions() if type(a) is Gravity}
