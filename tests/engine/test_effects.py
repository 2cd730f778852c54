"""What an action does to the board (``Game.board_effect``).

Three checks that do not rest on the engine agreeing with itself:

* hand-written positions, every expected effect written out literally below;
* a property over random positions of both modes: the effect says exactly what ``push``
  does to the towers (tower ids before and after, a separate code path);
* perft-style data: the effects of every legal action in the positions of ``perft/*.json``,
  counted by shape, pinned in those files (``effects``).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from engine.actions import PASS, Pass, Reinforce, Resurrect, Swap, Time
from engine.board import SPACE_NAMES as N
from engine.game import FlashEvent
from engine.randplay import random_game
from engine.record import load_record, replay

from tests.support.engine_helpers import mv, play, position, reflect, reinforce, resurrect, swap, time_at
from tests.support.third_eye_helpers import build, gravity, push

PERFT = Path(__file__).parent / "perft"


def names(spaces):
    return sorted(N[s] for s in spaces)


def effect(game, action) -> dict:
    return game.board_effect(action).to_json()


def expect(emptied=(), filled=(), touched=(), carries=(), leaves=(), arrives=(), flash=None, word=None,
           ends_turn=True, time_outcome=None) -> dict:
    return {"emptied": sorted(emptied), "filled": sorted(filled), "touched": sorted(touched),
            "carries": [list(c) for c in carries], "leaves": list(leaves), "arrives": list(arrives),
            "flash": flash, "word": word, "ends_turn": ends_turn, "time_outcome": time_outcome}


# --- written out by hand -------------------------------------------------------------------------


def test_a_plain_move_empties_its_start_and_fills_its_end():
    game = position({"w35": "S", "b35": "l"})
    assert effect(game, mv("w35", "w31")) == expect(["w35"], ["w31"], ["w31", "w35"], [("w35", "w31")])


def test_a_capture_flash_carries_the_attacker_and_the_defender_leaves():
    """Spec 4: "capture: the defender goes to the attacker's Zero Gravity, the attacker takes the space"."""
    game = position({"w35": "S", "w33": "p"})
    assert effect(game, mv("w35", "w33")) == expect(
        ["w35"], [], ["w33", "w35"], [("w35", "w33")], leaves=["w33"],
        flash={"from": "w35", "at": "w33", "attacker": "shadow", "defender": "peripheral",
               "outcome": "capture"})


def test_a_swap_flash_touches_both_spaces_and_changes_no_occupancy():
    """Spec 4: "swap: the defender moves to the space where the attacker started that turn"."""
    game = position({"w35": "M", "w34": "s"})
    assert effect(game, mv("w35", "w34")) == expect(
        [], [], ["w34", "w35"], [("w35", "w34"), ("w34", "w35")],
        flash={"from": "w35", "at": "w34", "attacker": "memory", "defender": "shadow", "outcome": "swap"})


def test_a_mutual_destruction_empties_both_spaces():
    """Rulebook: "Voids will mutually destruct with any piece that flashes them, except Light and
    Artificial Light."""
    game = position({"w35": "S", "w34": "v"})
    assert effect(game, mv("w35", "w34")) == expect(
        ["w34", "w35"], [], ["w34", "w35"], leaves=["w35", "w34"],
        flash={"from": "w35", "at": "w34", "attacker": "shadow", "defender": "void",
               "outcome": "mutual_destruction"})


def test_a_reflection_is_the_move_of_the_reflected_tower():
    game = position({"w33": "R", "w38": "L", "b11": "l"})
    assert effect(game, reflect("w33", "w38", "w32")) == expect(["w38"], ["w32"], ["w32", "w38"],
                                                                [("w38", "w32")])


def test_a_classic_memory_swap_touches_both_towers_needs_the_word_and_ends_the_turn():
    game = position({"w35": "M", "w25": "V", "b11": "l"})
    assert effect(game, swap("w35", "w25")) == expect(
        [], [], ["w25", "w35"], [("w35", "w25"), ("w25", "w35")], word="swap", ends_turn=True)


def test_a_third_eye_memory_swap_does_not_end_the_turn():
    game = build({"w35": "M", "w25": "V", "b11": "l", "w11": "L"})
    assert effect(game, swap("w35", "w25"))["ends_turn"] is False


def test_reinforcements_and_resurrections_come_onto_gateways_and_need_the_word():
    # White's Light waits in reserve (a captured Light would have ended the game); the rest of
    # White's set not in reserve is captured, the Time among it
    game = position({"w35": "S", "b35": "l"}, reserve={"white": ["A", "A", "V", "L"]})
    assert effect(game, reinforce(w19="artificial_light", w29="artificial_light")) == expect(
        [], ["w19", "w29"], ["w19", "w29"], arrives=["w19", "w29"], word="reinforce")
    assert effect(game, resurrect("time", "b39")) == expect(
        [], ["b39"], ["b39"], arrives=["b39"], word="resurrect", ends_turn=False)


def test_void_gravity_carries_each_pulled_void_next_to_the_anchor():
    game = build({"w35": "V", "w18": "V", "w59": "V", "b11": "l", "w11": "L"})
    action = gravity("w35", {"w18": "w34", "w59": "w36"})
    assert effect(game, action) == expect(
        ["w18", "w59"], ["w34", "w36"], ["w18", "w34", "w36", "w59"], [("w18", "w34"), ("w59", "w36")])


def test_classic_time_rewinds_the_rivals_move_and_the_time_tower_leaves():
    """Rulebook: "Undo your rival's last action"; "Your Time is captured, whether or not the Power succeeds"."""
    game = position({"w38": "T", "b35": "p", "b11": "l", "w11": "L"}, to_move="black")
    play(game, mv("b35", "b33"))
    assert effect(game, time_at("w38")) == expect(
        ["b33", "w38"], ["b35"], ["b33", "b35", "w38"], [("b33", "b35")], leaves=["w38"], word="time",
        ends_turn=False, time_outcome="rewound")


def test_classic_time_against_a_shadow_only_takes_the_time_tower():
    """Rulebook: "If it is a Shadow, the Power fails and nothing is rewound"."""
    game = position({"w38": "T", "b35": "s", "b11": "l", "w11": "L"}, to_move="black")
    play(game, mv("b35", "b33"))
    assert effect(game, time_at("w38")) == expect(["w38"], [], ["w38"], leaves=["w38"], word="time",
                                                   ends_turn=False, time_outcome="failed")


def test_classic_time_rewinding_a_reinforcement_sends_the_tower_back_off_the_board():
    game = position({"w38": "T", "b11": "l", "w11": "L"}, to_move="black", reserve={"black": ["V"]})
    play(game, reinforce(b19="void"))
    assert effect(game, time_at("w38")) == expect(
        ["b19", "w38"], [], ["b19", "w38"], leaves=["w38", "b19"], word="time", ends_turn=False,
        time_outcome="rewound")


def test_third_eye_time_pushes_a_rival_tower_back_and_the_time_tower_leaves():
    game = build({"w38": "T", "b35": "p", "b11": "l", "w11": "L"})
    assert effect(game, push("w38", "b35", "b37")) == expect(
        ["b35", "w38"], ["b37"], ["b35", "b37", "w38"], [("b35", "b37")], leaves=["w38"], word="time",
        ends_turn=False, time_outcome="pushed")


def test_a_pass_changes_nothing_and_needs_the_word():
    assert PASS.to_record() == {"type": "pass"}
    game = position({"w35": "S", "b35": "l"})
    assert effect(game, PASS) == expect(word="pass")


def test_board_effect_changes_nothing_in_the_game():
    game = random_game(5, "third_eye", 40)
    before = game.state.key()
    legal = game.legal_actions()
    for a in legal:
        game.board_effect(a)
    assert game.state.key() == before and game.legal_actions() == legal


# --- the property: the effect is what push does -----------------------------------------------


def _positions(mode: str, seeds, every: int = 7):
    for seed in seeds:
        played = random_game(seed, mode, 160)
        game = replay(load_record(_record(played)))
        yield game
        for k in range(every, len(played.log), every):
            yield _replayed(played, k)


def _record(game):
    from engine.record import to_record

    return to_record(game)


def _replayed(played, k):
    from engine.game import Game

    game = Game(played.setups["white"], played.setups["black"], played.mode, played.vision, played.first)
    for _, _, a in played.log[:k]:
        game.push(a)
    return game


def _check_against_push(game, action):
    eff = game.board_effect(action)
    st = game.state
    before_board = st.board[:]
    before = game.occupied()
    n_events = len(game.events)
    game.push(action)
    after_board = game.state.board[:]
    events = game.events[n_events:]
    loc_after = game.state.loc[:]
    game.pop()
    after = frozenset(s for s, t in enumerate(after_board) if t >= 0)
    assert eff.emptied == before - after and eff.filled == after - before, action
    assert eff.touched >= eff.emptied | eff.filled
    # every tower that changed place, exactly as the effect says
    where_before = {t: s for s, t in enumerate(before_board) if t >= 0}
    where_after = {t: s for s, t in enumerate(after_board) if t >= 0}
    carried = {(where_before[t], where_after[t]) for t in where_before if t in where_after
               and where_before[t] != where_after[t]}
    left = {where_before[t] for t in where_before if t not in where_after}
    came = {where_after[t] for t in where_after if t not in where_before}
    assert set(eff.carries) == carried, (action, eff.carries, carried)
    assert set(eff.leaves) == left and set(eff.arrives) == came, action
    for t in where_before:
        if t not in where_after:
            assert loc_after[t] < 0
    flashes = [e for e in events if isinstance(e, FlashEvent)]
    if eff.flash is None:
        assert not flashes
    else:
        (f,) = flashes
        assert (eff.flash.at, eff.flash.attacker, eff.flash.defender, eff.flash.outcome) == (
            f.at, f.attacker, f.defender, f.outcome)
    words = {Swap: "swap", Reinforce: "reinforce", Resurrect: "resurrect", Time: "time", Pass: "pass"}
    assert eff.word == words.get(type(action)), action
    times = [e.outcome for e in events if not isinstance(e, FlashEvent)]
    assert [eff.time_outcome] == times if type(action) is Time else eff.time_outcome is None
    assert eff.ends_turn == game.ends_turn(action)


@pytest.mark.parametrize("mode", ["classic", "third_eye"])
def test_every_legal_actions_effect_is_what_push_does_to_the_towers(mode):
    rng = random.Random(mode)
    kinds = Counter()
    for game in _positions(mode, range(6)):
        if game.is_over():
            continue
        legal = game.legal_actions()
        sample = legal if len(legal) <= 60 else rng.sample(legal, 60)
        for a in sample + [a for a in legal if type(a) in (Time, Resurrect, Reinforce, Swap, Pass)]:
            _check_against_push(game, a)
            kinds[type(a).__name__] += 1
    wanted = {"Move", "Swap", "Reinforce", "Time"} | ({"Gravity"} if mode == "third_eye" else set())
    assert wanted <= set(kinds), kinds


# --- perft-style data --------------------------------------------------------------------------


def shape(game, action) -> str:
    e = game.board_effect(action)
    flash = e.flash.outcome if e.flash else "-"
    return (f"{type(action).__name__}/{e.word or '-'}/{flash}/e{len(e.emptied)}f{len(e.filled)}"
            f"t{len(e.touched)}c{len(e.carries)}l{len(e.leaves)}a{len(e.arrives)}/"
            f"{'ends' if e.ends_turn else 'goes-on'}")


@pytest.mark.parametrize("path", sorted(PERFT.glob("*.json")), ids=lambda p: p.stem)
def test_perft_positions_board_effects_by_shape(path):
    data = json.loads(path.read_text())
    game = replay(load_record(data["record"]))
    got = Counter(shape(game, a) for a in game.legal_actions())
    assert dict(sorted(got.items())) == data["effects"]
