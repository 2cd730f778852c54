"""Per-space debounce: flicker, bumps, slides and hovering never reach the stable board."""

import pytest

from host.referee.debounce import Debouncer

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


def test_a_reading_that_held_its_window_counts_though_no_tick_came_before_the_next_change():
    """A tower steady on B for 60 ms, then lifted; the only reading after the placement is the lift's
    own snapshot (no tick at 1.05, as on a busy Pi): the placement counts, then the lift."""
    deb = Debouncer(initial=frozenset())
    assert deb.feed(1.0, frozenset({B})) == frozenset()
    assert deb.feed(1.06, frozenset()) == {B}  # held 60 ms: placed (the lift begins now)
    assert deb.stable == {B} and B in deb.pending
    assert deb.advance(1.21) == {B} and deb.stable == frozenset()


def test_a_reading_that_ends_before_its_window_is_still_nothing():
    """The other side: 45 ms on B, then empty, no tick between: never placed."""
    deb = Debouncer(initial=frozenset())
    deb.feed(1.0, frozenset({B}))
    assert deb.feed(1.045, frozenset()) == frozenset()
    assert deb.advance(2.0) == frozenset() and deb.stable == frozenset()


def test_a_landing_cut_short_counts_once_it_stays_off():
    """A tower touches down on B bouncing (on 30 ms, off 8, on 30, off 10, on 5), never 50 ms at a
    stretch but 65 ms in all, and is lifted at once (the next player's hand 0.1 s after the
    touch-down): placed once it has read empty 40 ms, then lifted once it has been off 150 ms."""
    deb = Debouncer(initial=frozenset())
    events = [(1.0, {B}), (1.03, set()), (1.038, {B}), (1.068, set()), (1.078, {B}), (1.083, set())]
    assert run(deb, events, 2.0) == [(1.125, B, True), (1.235, B, False)]
    assert deb.began[B] == pytest.approx(1.083)  # the lift is dated from when it went off


def test_a_hand_bobbing_over_a_space_is_still_no_landing():
    """The other side: on 30 ms, off 45 ms (longer than a bounce), on 30 ms, then gone: 60 ms on in
    all, but never a landing."""
    deb = Debouncer(initial=frozenset())
    assert run(deb, [(1.0, {B}), (1.03, set()), (1.075, {B}), (1.105, set())], 2.0) == []


def test_a_bouncing_placement_that_stays_is_read_as_before():
    """A placement whose bounce comes back on within 40 ms is no landing cut short: it flips 50 ms
    after its last bounce, as before."""
    deb = Debouncer(initial=frozenset())
    events = [(1.0, {B}), (1.03, set()), (1.038, {B}), (1.068, set()), (1.078, {B})]
    assert run(deb, events, 2.0) == [(1.13, B, True)]


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


# --- where a lift is expected (issue 17 item 2): both sides of each threshold -------------------


def bouncing(t0, space, final_on, edges, others=frozenset()):
    """Raw readings: ``space`` toggles at each time in ``edges`` (starting from not ``final_on``),
    ending ``final_on``."""
    out = []
    on = not final_on
    for t in edges:
        on = not on
        out.append((t0 + t, set(others) | ({space} if on else set())))
    return out


# a quick lift under heavy noise: 80 ms of bounce as it leaves, steady empty from 80 to 160 ms,
# 80 ms of bounce as it comes back (the tower is in the hand 160 ms in all)
LIFT_EDGES = [0.0, 0.006, 0.02, 0.03, 0.05, 0.06, 0.08]
BACK_EDGES = [0.16, 0.17, 0.18, 0.2, 0.22, 0.24, 0.241]


def quick_lift(t0=1.0, back=0.16):
    lift = bouncing(t0, A, False, LIFT_EDGES, {B})
    put = bouncing(t0, A, True, [back + (e - 0.16) for e in BACK_EDGES], {B})
    return lift + put


def test_an_expected_quick_lift_counts_though_its_steady_reading_is_80_ms():
    deb = Debouncer(initial=frozenset({A, B}))
    deb.expect = frozenset({A})
    flips = run(deb, quick_lift(), 2.0)
    # off once it lasted 150 ms (70 ms of it steady), on 50 ms after the put-back's last bounce
    assert flips == [(1.15, A, False), (1.295, A, True)]


def test_the_same_quick_lift_where_nothing_is_expected_is_never_seen():
    deb = Debouncer(initial=frozenset({A, B}))
    assert run(deb, quick_lift(), 2.0) == []


def test_an_expected_lift_needs_40_ms_steadily_empty():
    # the same lift, but back after 30 ms of steady reading (110 ms in all from its first edge
    # is too short anyway; stretch the bounce so the span is 160 ms and the steady part 30 ms)
    lift = bouncing(1.0, A, False, [0.0, 0.01, 0.03, 0.05, 0.07, 0.1, 0.13], {B})
    put = bouncing(1.0, A, True, [0.16, 0.17, 0.18], {B})
    deb = Debouncer(initial=frozenset({A, B}))
    deb.expect = frozenset({A})
    assert run(deb, lift + put, 2.0) == []
    # 40 ms steady: seen
    lift = bouncing(1.0, A, False, [0.0, 0.01, 0.03, 0.05, 0.07, 0.1, 0.12], {B})
    deb = Debouncer(initial=frozenset({A, B}))
    deb.expect = frozenset({A})
    assert [f[1:] for f in run(deb, lift + put, 2.0)] == [(A, False), (A, True)]


def test_an_expected_lift_must_last_150_ms_bounces_included_so_a_bump_never_counts():
    # a neighbour bumped off its magnet for 140 ms (steady all along): not a lift, even expected
    deb = Debouncer(initial=frozenset({A, B}))
    deb.expect = frozenset({A})
    assert run(deb, [(1.0, {B}), (1.14, {A, B})], 2.0) == []
    # off 150 ms: a lift, where one is expected
    deb = Debouncer(initial=frozenset({A, B}))
    deb.expect = frozenset({A})
    assert run(deb, [(1.0, {B}), (1.15, {A, B})], 2.0) == [(1.15, A, False), (1.2, A, True)]


def test_an_expected_lift_that_stays_off_flips_once_it_lasted_150_ms_and_held_40():
    lift = bouncing(1.0, A, False, LIFT_EDGES, {B})
    deb = Debouncer(initial=frozenset({A, B}))
    deb.expect = frozenset({A})
    assert run(deb, lift, 2.0) == [(1.15, A, False)]  # 150 ms after its first edge, 70 ms steady
    deb = Debouncer(initial=frozenset({A, B}))
    assert run(deb, lift, 2.0) == [(1.23, A, False)]  # nothing expected: 150 ms after the last bounce
