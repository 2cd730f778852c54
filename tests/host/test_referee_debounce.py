"""Per-space debounce: flicker, bumps, slides and hovering never reach the stable board."""

import pytest

from host.debounce import Debouncer

A, B, C = 10, 11, 12


def run(deb, events, until):
    """events: [(t, occupied set)]; ticks every 5 ms to ``until``; returns [(t, space, now_on)] flips."""
    flips = []
    events = sorted(events, key=lambda e: e[0])
    t = 0.0
    i = 0
    while t <= until + 1e-9:
        while i < len(events) and events[i][0] <= t + 1e-9:
            for s in deb.feed(events[i][0], frozenset(events[i][1])):
                flips.append((round(events[i][0], 3), s, s in deb.stable))
            i += 1
        for s in deb.advance(t):
            flips.append((round(t, 3), s, s in deb.stable))
        t = round(t + 0.005, 6)
    return flips


def test_a_lift_with_flicker_flips_once_150ms_after_the_last_bounce():
    deb = Debouncer(initial=frozenset({A, B}))
    flicker = [(1.000, {B}), (1.010, {A, B}), (1.020, {B}), (1.030, {A, B}), (1.045, {B})]
    flips = run(deb, flicker, 2.0)
    assert flips == [(1.195, A, False)]
    assert deb.stable == {B}


def test_a_placement_with_flicker_flips_once_50ms_after_it_holds():
    deb = Debouncer(initial=frozenset())
    flicker = [(1.0, {A}), (1.008, set()), (1.02, {A}), (1.03, set()), (1.04, {A})]
    assert run(deb, flicker, 2.0) == [(1.09, A, True)]


@pytest.mark.parametrize("length", [0.02, 0.08, 0.14])
def test_a_neighbour_bumped_off_its_magnet_for_under_150ms_is_never_seen(length):
    deb = Debouncer(initial=frozenset({A, B}))
    assert run(deb, [(1.0, {A}), (1.0 + length, {A, B})], 2.0) == []
    assert deb.stable == {A, B}
    assert deb.last_change == pytest.approx(1.0 + length)


def test_a_tower_off_for_longer_than_the_window_is_lifted():
    deb = Debouncer(initial=frozenset({A, B}))
    flips = run(deb, [(1.0, {A}), (1.2, {A, B})], 2.0)
    assert flips == [(1.15, B, False), (1.25, B, True)]


def test_a_tower_slid_across_spaces_touches_only_where_it_stops():
    deb = Debouncer(initial=frozenset({A}))
    slide = [(1.0, set()), (1.02, {B}), (1.05, set()), (1.07, {C})]
    assert sorted(run(deb, slide, 2.0)) == [(1.12, C, True), (1.15, A, False)]


def test_a_hovering_tower_never_lands_until_it_is_put_down():
    deb = Debouncer(initial=frozenset())
    hover = []
    t = 1.0
    for _ in range(6):
        hover += [(t, {A}), (t + 0.03, set())]
        t += 0.1
    assert run(deb, hover, 2.0) == []
    hover.append((2.1, {A}))
    assert run(Debouncer(), hover, 3.0) == [(2.15, A, True)]


def test_next_due_says_when_a_pending_space_flips():
    deb = Debouncer(initial=frozenset({A}))
    assert deb.next_due() is None
    deb.feed(1.0, frozenset())
    assert deb.next_due() == pytest.approx(1.15)
    assert deb.advance(1.1499) == frozenset()
    assert deb.advance(deb.next_due()) == {A}
    assert deb.settled()


def test_a_clock_stepping_back_is_taken_as_no_time_passing():
    deb = Debouncer(initial=frozenset({A}))
    deb.feed(5.0, frozenset())
    deb.feed(4.0, frozenset())
    assert deb.advance(5.1) == frozenset()
    assert deb.advance(5.15) == {A}


def test_negative_delays_are_refused():
    with pytest.raises(ValueError):
        Debouncer(-0.1, 0.15)
