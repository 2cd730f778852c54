"""The brisk table (issue 17, item 6): what the hands model does when people do not wait, checked
against the stated bounds and frequencies (host/simulate/timing.py, docs/simulator.md), from the
trace itself where the trace shows it and from ``Hands.behaviours`` (what the hands chose) where
it does not.  Nothing here consults a referee: the closed-loop tests use ``Echo``, a stand-in
written here that never reads the board.
"""

import pytest

from engine.actions import Move, Reinforce, Resurrect, Swap, Time
from engine.game import EMPTY
from engine.randplay import random_game
from host.simulate import PACES, Hands, run_closed_loop
from host.simulate.oracle import canonical_after
from host.simulate.timing import BRISK_PARTS, FLICKER_WINDOW, LATE_EDGE, RELIFT, SLIDE_GAP, SLOW, pace_without
from host.simulate.truth import look_alikes, physical_effect, straight_path
from host.board.trace import TraceHeader
from tests.support.echo_referee import Echo, run_open

EPS = 1e-6
BRISK = PACES["brisk"]


@pytest.fixture(scope="module")
def games():
    return [(seed, mode, random_game(seed, mode, 150)) for seed in range(6) for mode in ("classic", "third_eye")]


@pytest.fixture(scope="module")
def open_runs(games):
    return {(seed, mode, noise): run_open(played, seed, noise)
            for seed, mode, played in games for noise in ("low", "high")}


def toggles_of(hands, k, tags=None):
    return [tg for tg in hands.toggles if tg.index == k and (tags is None or tg.tag in tags)]


def inputs_of(hands, k):
    return [line for line, index in hands.machine.inputs if index == k]


# --- words racing the board -----------------------------------------------------------------


def test_declarations_come_before_the_hands_or_race_the_board_change_by_at_most_their_window(open_runs):
    lo, hi = BRISK.word_race
    counts = {"race_word": 0, "word_before": 0, "after_change": 0, "before_change": 0}
    kinds = set()
    for hands in open_runs.values():
        for b in hands.behaviours:
            if b["kind"] not in ("race_word", "word_before"):
                continue
            k = b["index"]
            action = hands.plan[k].action
            word = {Reinforce: "reinforce", Resurrect: "resurrect", Time: "time", Swap: "swap"}[type(action)]
            assert b["word"] == word
            assert [line.input["type"] for line in inputs_of(hands, k)] == [word]
            (line,) = inputs_of(hands, k)
            assert line.t == b["t"]
            first = min(tg.t for tg in toggles_of(hands, k) if tg.tag != "bump")
            counts[b["kind"]] += 1
            if b["kind"] == "word_before":
                assert line.t <= first - BRISK.declare_lead[0] + EPS  # said ahead of the hands
                continue
            # the anchor is what the trace shows: a Time's first lift, else the first touch-down
            places = [tg.t for tg in toggles_of(hands, k, ("place",))]
            anchor = first if type(action) is Time else min(places)
            assert b["anchor"] == anchor
            assert lo - EPS <= line.t - anchor <= hi + EPS, (k, action, line.t - anchor)
            counts["after_change" if line.t > anchor else "before_change"] += 1
            kinds.add(type(action))
    n = counts["race_word"] + counts["word_before"]
    assert n >= 60
    assert 0.35 <= counts["race_word"] / n <= 0.65, counts  # declare_variants: before or race, even odds
    assert counts["after_change"] >= 5 and counts["before_change"] >= 5, counts
    assert kinds >= {Reinforce, Time, Swap}, kinds


def test_relaxed_players_never_race_and_a_left_out_behaviour_is_left_out(games):
    seed, mode, played = games[1]
    assert run_open(played, seed, "high", "relaxed").behaviours == []
    hands = run_open(played, seed, "high", without=("race_word", "relift"))
    assert not [b for b in hands.behaviours if b["kind"] in ("race_word", "relift")]
    assert [b for b in hands.behaviours if b["kind"] == "word_before"]
    with pytest.raises(ValueError, match="without"):
        Hands(played, seed, "high", "brisk", without=("telepathy",))
    assert set(BRISK_PARTS) == {"race_word", "quick_hold", "late_edge", "no_done", "relift", "choose_unprompted",
                                "react", "next_word", "landing_word"}
    everything = pace_without(BRISK, BRISK_PARTS)
    assert everything.word_race == BRISK.word_race and everything.declare_variants == ("before",)
    assert not everything.relift and not everything.hold_from_lift and everything.swap_done == 1.0


# --- quick lifts and put-backs ------------------------------------------------------------------


def test_towers_are_held_a_fifth_to_half_a_second_from_the_lift(open_runs):
    holds = []
    for (seed, mode, noise), hands in open_runs.items():
        game = hands.header.new_game()
        for step in hands.plan:
            action = step.action
            if type(action) is Move and game.state.board[action.to] == EMPTY:
                mine = toggles_of(hands, step.index)
                lift = next((tg for tg in mine if tg.tag == "lift" and tg.space == action.frm), None)
                at_dest = [tg.t for tg in mine if tg.space == action.to and tg.tag in ("place", "hover")]
                # a slide (over the spaces on the way, or pushed onto the next space) is no lift:
                # off the sensor for the lift's bounce and one SLIDE_GAP at most
                path = straight_path(game.state.board, action.frm, action.to)
                slid = any(tg.tag == "slide" for tg in mine) or (
                    path == [] and lift is not None and min(at_dest) - lift.t <= FLICKER_WINDOW + SLIDE_GAP[1] + EPS)
                if lift is not None and not slid:
                    held = min(at_dest) - lift.t
                    if held < SLOW[0]:  # a slow placement holds 1 to 2.5 s after the bounce
                        holds.append(held)
            game.push(action)
    assert len(holds) > 200
    assert min(holds) >= BRISK.carry[0] - EPS and max(holds) <= BRISK.carry[1] + EPS
    assert min(holds) < 0.22 and max(holds) > 0.48


def put_backs(hands, kinds=(Swap, Time)):
    """(space, lift, last toggle before the put-back, put-back) for every space an action of
    ``kinds`` empties and fills again."""
    out = []
    for step in hands.plan:
        if type(step.action) not in kinds:
            continue
        mine = sorted(toggles_of(hands, step.index), key=lambda tg: tg.t)
        for lift in (tg for tg in mine if tg.tag == "lift"):
            on_space = [tg for tg in mine if tg.space == lift.space and tg.t > lift.t]
            place = next((tg for tg in on_space if tg.tag == "place"), None)
            if place is None:
                continue
            before = [tg for tg in on_space if tg.t < place.t]
            hovered = any(tg.tag == "hover" for tg in before)
            out.append((lift.space, lift.t, None if hovered else max((tg.t for tg in before), default=lift.t), place.t))
    return out


def test_a_swap_or_rewind_puts_towers_back_within_a_fifth_to_half_a_second_with_bounce_at_both_edges(open_runs):
    empty, steady = [], []
    for (seed, mode, noise), hands in open_runs.items():
        for space, lift, last, place in put_backs(hands):
            empty.append(place - lift)
            if noise == "high" and last is not None:  # a hover before the put-back is no bounce
                steady.append(place - last)
    assert len(empty) >= 40
    assert min(empty) >= BRISK.carry[0] - EPS  # every space a swap empties stays empty 0.2 s at least
    assert sum(1 for e in empty if e < 0.25) >= 3  # ...and often hardly longer
    # Under heavy noise the steady empty reading is what the lift's bounce leaves of it.
    assert min(steady) >= BRISK.carry[0] - FLICKER_WINDOW - EPS
    assert sum(1 for s in steady if s < 0.15) >= 1, sorted(steady)[:5]


def late_edges(hands):
    """Of the edges (lift or placement) that bounce exactly twice, the share whose last bounce
    begins LATE_EDGE[0] or later (the slots of two bounces end before it)."""
    edges = late = 0
    by_space: dict = {}
    for tg in hands.toggles:
        by_space.setdefault(tg.space, []).append(tg)
    for toggles in by_space.values():
        for i, tg in enumerate(toggles):
            if tg.tag not in ("lift", "place"):
                continue
            bounces = []
            for nxt in toggles[i + 1:]:
                if nxt.tag != "flicker":
                    break
                bounces.append(nxt)
            if bounces:
                assert bounces[-1].t - tg.t <= FLICKER_WINDOW + EPS
            if len(bounces) != 4:
                continue
            edges += 1
            late += bounces[-2].t - tg.t >= LATE_EDGE[0] - EPS
    assert edges >= 50
    return late / edges


def test_under_heavy_noise_brisk_hands_bounce_late_in_the_window_half_the_time(games):
    seed, mode, played = games[0]
    assert late_edges(run_open(played, seed, "high", "relaxed")) == 0
    assert late_edges(run_open(played, seed, "high", without=("late_edge",))) == 0
    assert 0.35 <= late_edges(run_open(played, seed, "high")) <= 0.65  # half the edges
    assert 0.6 <= late_edges(run_open(played, seed, "high", "hasty")) <= 0.9  # the hasty table: three in four
    assert late_edges(run_open(played, seed, "low")) == 0  # heavy noise only


# --- the next player's hand on the tower just placed ---------------------------------------------


def test_the_next_player_lifts_the_tower_just_placed_a_quarter_second_after_it_landed_half_the_time(open_runs):
    chances = relifts = 0
    gaps = []
    for hands in open_runs.values():
        logged = {b["index"]: b for b in hands.behaviours if b["kind"] == "relift"}
        game = hands.header.new_game()
        last_place = None
        chance_at = set()
        for step in hands.plan:
            k = step.index
            effect = physical_effect(game, step.action) if type(step.action).__name__ != "Pass" else None
            # the tower just placed: the last thing the previous action did (its bounce aside)
            just = last_place is not None and last_place.index == k - 1 and max(
                tg.t for tg in toggles_of(hands, k - 1) if tg.tag != "bump") - last_place.t <= FLICKER_WINDOW + EPS
            if step.first and just and effect is not None and any(a == last_place.space for _, a, _ in effect.moves):
                chances += 1
                chance_at.add(k)
                if k in logged:
                    relifts += 1
                    b = logged[k]
                    first_lift = min((tg for tg in toggles_of(hands, k, ("lift",))), key=lambda tg: tg.t)
                    assert first_lift.space == last_place.space == b["space"]
                    assert b["landed"] == last_place.t and first_lift.t == b["lift"]
                    gaps.append(first_lift.t - last_place.t)
            places = toggles_of(hands, k, ("place",))
            if places:
                last_place = max(places, key=lambda tg: tg.t)
            game.push(step.action)
        assert set(logged) <= chance_at  # never a tower placed earlier, nor before the last action is over
    assert chances >= 30
    assert 0.3 <= relifts / chances <= 0.7, (relifts, chances)
    assert min(gaps) >= RELIFT[0] - EPS and max(gaps) <= RELIFT[1] + EPS


# --- the closed loop: done, unprompted choose ------------------------------------------------


def run_echo(played, seed, noise="medium"):
    hands = Hands(played, seed, noise, "brisk")
    run = run_closed_loop(hands, Echo(hands))
    return hands, run


@pytest.fixture(scope="module")
def echo_runs():
    runs = []
    for seed in range(6):
        for mode in ("classic", "third_eye"):
            played = random_game(100 + seed, mode, 120)
            runs.append(run_echo(played, seed))
    return runs


def test_a_swap_gets_its_done_a_tenth_to_four_tenths_of_a_second_after_or_three_times_in_ten_never(echo_runs):
    done = never = 0
    for hands, _ in echo_runs:
        for b in hands.behaviours:
            k = b["index"]
            if b["kind"] not in ("swap_done", "swap_no_done"):
                continue
            last = max(tg.t for tg in toggles_of(hands, k) if tg.tag != "bump")
            assert b["end"] == last
            dones = [line for line in inputs_of(hands, k) if line.input == {"type": "done"}]
            if b["kind"] == "swap_done":
                done += 1
                (line,) = dones  # the commit comes with the next action: never long enough before to stop it
                assert BRISK.done_lag[0] - EPS <= line.t - last <= BRISK.done_lag[1] + EPS
            else:
                never += 1
                assert dones == []
    assert done + never >= 40
    assert 0.55 <= done / (done + never) <= 0.85, (done, never)


def test_several_swaps_of_one_third_eye_turn_come_with_and_without_done_between():
    played = None
    for seed in range(200):
        game = random_game(seed, "third_eye", 150)
        turns = {}
        for turn, _, action in game.log:
            turns[turn] = turns.get(turn, 0) + (type(action) is Swap)
        several = [turn for turn, swaps in turns.items() if swaps >= 2]
        if several:  # the game up to the end of that turn
            played = TraceHeader.of_game(game).new_game()
            for turn, _, action in game.log:
                if turn > several[0]:
                    break
                played.push(action)
            break
    assert played is not None
    seen = set()
    for seed in range(12):
        hands, _ = run_echo(played, seed, "low")
        for step in hands.plan:
            nxt = step.index + 1
            if type(step.action) is Swap and nxt < len(hands.plan) and type(hands.plan[nxt].action) is Swap \
                    and not hands.plan[nxt].first:
                dones = [line for line in inputs_of(hands, step.index) if line.input == {"type": "done"}]
                seen.add(bool(dones))
    assert seen == {True, False}


def ambiguous_games(count):
    """Third Eye games cut a turn after an action whose look-alikes leave another game (a
    Memory swapping with another Memory: which one spent its swap?)."""
    found = []
    for seed in range(400):
        played = random_game(seed, "third_eye", 150)
        game = TraceHeader.of_game(played).new_game()
        for k, (turn, _, action) in enumerate(played.log):
            mine = canonical_after(game, action)
            if type(action) is Swap and any(canonical_after(game, o) != mine for o in look_alikes(game, action)):
                out = TraceHeader.of_game(played).new_game()
                for i, (t, _, a) in enumerate(played.log):
                    if i > k and t > turn + 1:
                        break
                    out.push(a)
                found.append(out)
                break
            game.push(action)
        if len(found) == count:
            return found
    raise AssertionError("no Memory swapping with a Memory in 400 games")


def test_an_ambiguous_action_is_named_unprompted_a_fifth_to_one_and_a_half_seconds_after_it():
    named = asked = sent = 0
    for played in ambiguous_games(2):
        for seed in range(15):
            hands, _ = run_echo(played, seed, "low")
            for b in hands.behaviours:
                if b["kind"] == "choose_unprompted":
                    named += 1
                    k = b["index"]
                    lines = [line for line in inputs_of(hands, k) if line.input["type"] == "choose"]
                    committed = next(c["t"] for c in hands.commits if c["index"] == k)
                    if b["t"] - committed >= BRISK.react - EPS:
                        assert lines == []  # the phone showed it committed in time to stop the tap
                        continue
                    sent += 1
                    (line,) = lines
                    assert line.t == b["t"] and line.input["action"] == hands.plan[k].action.to_record()
                    assert BRISK.answer[0] - EPS <= line.t - b["end"] <= BRISK.answer[1] + EPS
                elif b["kind"] == "choose_when_asked":
                    asked += 1
                    assert not [line for line in inputs_of(hands, b["index"]) if line.input["type"] == "choose"]
    assert named + asked >= 30, (named, asked)
    assert 0.5 <= named / (named + asked) <= 0.9 and sent >= 3, (named, asked, sent)  # 7 in 10
