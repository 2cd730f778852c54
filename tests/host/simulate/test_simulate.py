"""The hands model's traces: seeded, in time order, noisy only within the stated bounds, and at
the stated human timing (host/simulate/timing.py; docs/referee.md, "The physical-play simulator").

These run open loop (nobody listening), which shows the hands alone; the closed loop is in
test_simulate_loop.py.
"""

import pytest

from engine.actions import Gravity, Move, Reinforce, Resurrect
from engine.randplay import random_game
from engine.record import to_record, turns_of
from host.simulate import LEVELS, NOISE, PACES, Hands, Simulator, simulate
from host.simulate.timing import (
    BUMP,
    FLICKER_WINDOW,
    HOVER,
    HOVER_GAP,
    SLIDE_DWELL,
    SLOW,
)
from host.board.trace import InputLine, SnapshotLine, TraceHeader
from host.referee.traces import referee_trace

EPS = 1e-6


@pytest.fixture(scope="module")
def played():
    return random_game(21, "third_eye", 80)


def snaps(trace):
    return [e for e in trace.events if isinstance(e, SnapshotLine)]


def run_open(played, seed, noise, pace="relaxed", faults=None):
    hands = Hands(played, seed, noise, pace, faults, open_loop=True)
    while hands.next_time() is not None:
        hands.step()
    return hands


def settled_changes(trace, on=0.05, off=0.15):
    """Per space, the changes a reading makes once it holds ``on`` s (a tower arriving) or ``off``
    s (leaving): written here, for the test, from the trace's snapshots alone."""
    raw: dict[int, list[tuple[float, bool]]] = {}
    before: frozenset = frozenset()
    for s in snaps(trace):
        for space in s.occupied ^ before:
            raw.setdefault(space, []).append((s.t, space in s.occupied))
        before = s.occupied
    flips: dict[int, list[bool]] = {}
    for space, toggles in raw.items():
        stable = False
        for i, (t, reading) in enumerate(toggles):
            nxt = toggles[i + 1][0] if i + 1 < len(toggles) else float("inf")
            if reading != stable and nxt - t >= (on if reading else off) - EPS:
                stable = reading
                flips.setdefault(space, []).append(reading)
    return flips, before


def test_the_same_seed_gives_the_same_trace_and_another_seed_another(played):
    a, b, c = simulate(played, 1, "medium"), simulate(played, 1, "medium"), simulate(played, 2, "medium")
    assert a.events == b.events
    assert a.events != c.events


def test_events_are_in_time_order_and_inputs_come_from_the_players(played):
    for pace in PACES:
        trace = simulate(played, 4, "high", pace=pace)
        times = [e.t for e in trace.events]
        assert times == sorted(times)
        assert all(e.player in ("white", "black") for e in trace.events if isinstance(e, InputLine))
        assert all(round(t, 6) == t for t in times)  # microseconds, as the trace file holds them


def test_without_noise_every_snapshot_is_one_tower_lifted_or_placed(played):
    prev = frozenset()
    for s in snaps(simulate(played, 4, "none")):
        assert len(s.occupied ^ prev) == 1
        prev = s.occupied


def test_every_lift_and_placement_settles_once_and_noise_never_does(played):
    """Flicker, slides, hovers and bumps change no reading for as long as a real change holds,
    so the settled board changes exactly once per lift and once per placement."""
    counts = {}
    for level in LEVELS:
        for pace in PACES:
            hands = run_open(played, 9, level, pace)
            trace = hands.trace()
            flips, final = settled_changes(trace)
            real: dict[int, list[bool]] = {}
            for tg in hands.toggles:
                if tg.tag in ("lift", "place"):
                    real.setdefault(tg.space, []).append(tg.tag == "place")
            assert flips == real, (level, pace)
            assert final == played.occupied()
            counts[(level, pace)] = len(snaps(trace))
    for pace in PACES:
        assert counts[("none", pace)] < counts[("low", pace)] < counts[("medium", pace)] < counts[("high", pace)]


def test_noise_stays_within_its_stated_bounds():
    for seed, mode in ((1, "classic"), (2, "third_eye")):
        played = random_game(seed, mode, 120)
        for level in ("low", "high"):
            hands = run_open(played, seed, level, "brisk")
            lo, hi = NOISE[level].flicker
            by_space: dict[int, list] = {}
            for tg in hands.toggles:
                by_space.setdefault(tg.space, []).append(tg)
            seen = {"flicker": 0, "slide": 0, "hover": 0, "bump": 0}
            for space, toggles in by_space.items():
                i = 0
                while i < len(toggles):
                    tg = toggles[i]
                    j = i + 1
                    while j < len(toggles) and toggles[j].tag == tg.tag == "bump" and toggles[j].index == tg.index or (
                            j < len(toggles) and toggles[j].tag == "flicker" and tg.tag in ("lift", "place")):
                        j += 1
                    run = toggles[i:j]
                    if tg.tag in ("lift", "place"):
                        bounces = run[1:]
                        assert len(bounces) % 2 == 0 and lo <= len(bounces) // 2 <= hi, (level, space, run)
                        assert all(b.t - tg.t <= FLICKER_WINDOW + EPS for b in bounces)
                        seen["flicker"] += len(bounces) // 2
                    elif tg.tag == "bump":
                        assert BUMP[0] - EPS <= run[-1].t - tg.t <= BUMP[1] + EPS and run[-1].reading
                        seen["bump"] += 1
                    elif tg.tag in ("slide", "hover"):
                        up, down = toggles[i], toggles[i + 1]
                        assert up.reading and not down.reading and down.tag == tg.tag
                        limits = SLIDE_DWELL if tg.tag == "slide" else HOVER
                        assert limits[0] - EPS <= down.t - up.t <= limits[1] + EPS
                        if tg.tag == "hover":
                            place = toggles[i + 2]
                            assert place.tag == "place" and HOVER_GAP[0] - EPS <= place.t - down.t <= HOVER_GAP[1] + EPS
                        seen[tg.tag] += 1
                        j = i + 2
                    i = j
            assert all(seen.values()), (level, seen)


def test_slow_placements_hold_a_tower_one_to_two_and_a_half_seconds():
    played = random_game(3, "classic", 150)
    hands = run_open(played, 3, "high")
    holds = []
    lifted = {}
    for tg in hands.toggles:
        if tg.tag == "lift":
            lifted[tg.index] = tg.t
        elif tg.tag in ("place", "hover") and tg.index in lifted and type(hands.plan[tg.index].action) is Move:
            holds.append(tg.t - lifted.pop(tg.index))
    assert max(holds) <= SLOW[1] + FLICKER_WINDOW + EPS
    assert sum(1 for h in holds if h >= SLOW[0]) >= 5


def first_toggle(hands, k):
    return min((tg.t for tg in hands.toggles if tg.index == k and tg.tag != "bump"), default=None)


def last_toggle(hands, k):
    return max((tg.t for tg in hands.toggles if tg.index == k and tg.tag != "bump"), default=None)


def test_brisk_players_keep_the_gaps_of_people_who_do_not_wait():
    gaps = {"rival": [], "turn": [], "voids": [], "hands_first": [], "tap_settling": 0, "placed_first": 0,
            "placed_close": 0}
    pace = PACES["brisk"]
    for seed, mode in ((4, "classic"), (5, "third_eye"), (6, "classic"), (7, "third_eye")):
        played = random_game(seed, mode, 150)
        hands = run_open(played, seed, "medium", "brisk")
        said = {}
        for line, index in hands.machine.inputs:
            said.setdefault(index, line.t)
        # the next player's snatch of the tower just placed counts from its landing
        # (test_simulate_brisk.py checks it)
        relift = {b["index"] for b in hands.behaviours if b["kind"] == "relift"}
        for step in hands.plan[1:]:
            k, action = step.index, step.action
            if k in relift:
                continue
            prev = last_toggle(hands, k - 1)
            if prev is None:
                continue
            if type(action) is Move and k not in said:
                gaps["rival" if step.first else "turn"].append(first_toggle(hands, k) - prev)
            if step.first and first_toggle(hands, k) is not None:
                gaps["hands_first"].append(first_toggle(hands, k) - prev)  # a tap may be quicker, hands not
            if step.first and k in said and said[k] - prev <= 0.3:
                gaps["tap_settling"] += 1  # a tap while the previous turn still settles
            if type(action) in (Reinforce, Resurrect) and k in said:
                down = min(tg.t for tg in hands.toggles if tg.index == k and tg.tag in ("place", "hover"))
                gaps["placed_first"] += down < said[k]
                gaps["placed_close"] += 0 <= down - said[k] <= 0.2 + EPS
            if type(action) is Gravity and len(action.moves) > 1:
                mine = [tg for tg in hands.toggles if tg.index == k and tg.tag in ("lift", "place")]
                for a, b in zip(mine, mine[1:]):
                    if a.tag == "place" and b.tag == "lift":
                        ends = [tg.t for tg in hands.toggles if tg.index == k and tg.space == a.space
                                and a.t <= tg.t <= a.t + FLICKER_WINDOW]
                        gaps["voids"].append(b.t - max(ends))
    assert gaps["rival"] and all(pace.think[0] - EPS <= g <= 0.5 + EPS for g in gaps["rival"])
    assert gaps["turn"] and all(0.3 - EPS <= g <= pace.between[1] + EPS for g in gaps["turn"])
    assert gaps["voids"] and all(0.2 - EPS <= g <= 1.0 + EPS for g in gaps["voids"])
    assert min(gaps["hands_first"]) >= pace.think[0] - EPS
    assert gaps["tap_settling"] and gaps["placed_first"] and gaps["placed_close"]


@pytest.mark.parametrize("level", LEVELS)
def test_an_open_loop_trace_referees_back_to_its_record(played, level):
    run = referee_trace(simulate(played, 13, level))
    assert run.complete
    assert to_record(run.referee.game) == to_record(played)


def test_the_staged_fault_interface_stages_its_faults(played):
    sim = Simulator(TraceHeader.of_game(played), 3, "low", {10: "stuck_on", 20: "illegal"})
    sim.setup()
    sim.play([(p, tuple(a)) for p, a in turns_of(played)])
    trace = sim.trace()
    assert [(k, kind) for k, kind, _ in sim.fault_log] == [(10, "stuck_on"), (20, "illegal")]
    assert snaps(trace)[-1].occupied == played.occupied()


def test_unknown_noise_levels_paces_and_faults_are_refused(played):
    with pytest.raises(ValueError, match="noise"):
        simulate(played, 0, "deafening")
    with pytest.raises(ValueError, match="pace"):
        simulate(played, 0, "low", pace="frantic")
    with pytest.raises(ValueError, match="faults"):
        simulate(played, 0, "low", {3: "earthquake"})


def test_a_staged_illegal_move_lifts_an_own_tower_onto_an_empty_space_no_legal_action_fits():
    from host.simulate.truth import physical_effect

    for seed, mode in ((30003, "classic"), (8, "third_eye"), (9, "classic")):
        played = random_game(seed, mode, 40)
        for k in range(4, 40, 5):
            hands = run_open(played, seed, "none", "relaxed", {k: "illegal"})
            ((number, kind, (f, t)),) = hands.fault_log
            game = TraceHeader.of_game(played).new_game()
            for _, _, action in played.log[:k]:
                game.push(action)
            tower = game.state.board[f]
            assert tower != -1 and game.owner[tower] == game.to_move and game.state.board[t] == -1
            footprints = {(e.emptied, e.filled) for e in (physical_effect(game, a) for a in game.legal_actions())}
            assert (frozenset((f,)), frozenset((t,))) not in footprints
            assert snaps(hands.trace())[-1].occupied == played.occupied()
