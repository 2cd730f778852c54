"""The physical-play simulator: seeded, realistic within the referee's tolerances, and faithful."""

import pytest

from engine.randplay import random_game
from engine.record import to_record
from host.debounce import Debouncer
from host.simulate import LEVELS, NOISE, simulate
from host.trace import InputLine, SnapshotLine, referee_trace


@pytest.fixture(scope="module")
def played():
    return random_game(21, "third_eye", 80)


def snaps(trace):
    return [e for e in trace.events if isinstance(e, SnapshotLine)]


def test_the_same_seed_gives_the_same_trace_and_another_seed_another(played):
    a, b, c = simulate(played, 1, "medium"), simulate(played, 1, "medium"), simulate(played, 2, "medium")
    assert a.events == b.events
    assert a.events != c.events


def test_events_are_in_time_order_and_inputs_come_from_the_players(played):
    trace = simulate(played, 4, "high")
    times = [e.t for e in trace.events]
    assert times == sorted(times)
    assert all(e.player in ("white", "black") for e in trace.events if isinstance(e, InputLine))


def test_without_noise_every_snapshot_is_one_tower_lifted_or_placed(played):
    trace = simulate(played, 4, "none")
    prev = frozenset()
    for s in snaps(trace):
        assert len(s.occupied ^ prev) == 1
        prev = s.occupied


def test_more_noise_makes_more_sensor_changes_but_the_same_settled_board(played):
    counts = {}
    finals = set()
    for level in LEVELS:
        trace = simulate(played, 9, level)
        counts[level] = len(snaps(trace))
        deb = Debouncer()
        for s in snaps(trace):
            deb.feed(s.t, s.occupied)
        deb.advance(snaps(trace)[-1].t + 10)
        finals.add(deb.stable)
    assert counts["none"] < counts["low"] < counts["medium"] < counts["high"]
    assert finals == {played.occupied()}


def test_noise_stays_within_what_the_referee_absorbs():
    for level, noise in NOISE.items():
        assert noise.flicker[0] <= noise.flicker[1]
        for p in (noise.bump, noise.slide, noise.hover, noise.slow):
            assert 0 <= p <= 1
    from host.simulate import BUMP, PULSE, SLIDE_DWELL

    assert BUMP[1] < 0.15 and SLIDE_DWELL[1] < 0.05 and PULSE[1] < 0.05


@pytest.mark.parametrize("level", LEVELS)
def test_a_simulated_trace_referees_back_to_its_record(played, level):
    run = referee_trace(simulate(played, 13, level))
    assert run.complete
    assert to_record(run.referee.game) == to_record(played)


def test_unknown_noise_levels_are_refused(played):
    with pytest.raises(ValueError, match="noise"):
        simulate(played, 0, "deafening")
