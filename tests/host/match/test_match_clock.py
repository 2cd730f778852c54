"""The game clock the board runs (issue 33 items 1, 2 and 8): time controls as players write
them, and clocks driven by turn ends at the moment the board completed them.  Times are plain
numbers (the service's one clock is injected by whoever drives it): nothing here sleeps."""

import json
import math

import pytest

from host.match.clock import NONE, PRESETS, ClockError, MatchClock, TimeControl, parse_control


# --- time controls -----------------------------------------------------------------------------


@pytest.mark.parametrize("text, kind, base, bonus, back", [
    ("none", "none", 0, 0, "none"),
    ("", "none", 0, 0, "none"),
    ("25", "sudden", 1500, 0, "25"),
    ("25+10", "fischer", 1500, 10, "25+10"),
    (" 10 + 5 ", "fischer", 600, 5, "10+5"),
    ("25d10", "bronstein", 1500, 10, "25d10"),
    ("0.5+2", "fischer", 30, 2, "0.5+2"),
    ("90+30", "fischer", 5400, 30, "90+30"),
])
def test_controls_read_as_players_write_them(text, kind, base, bonus, back):
    c = parse_control(text)
    assert (c.kind, c.base, c.bonus) == (kind, base, bonus)
    assert c.text() == back
    assert TimeControl.from_json(c.to_json()) == c


def test_every_preset_is_a_fischer_control():
    assert [parse_control(p).kind for p in PRESETS] == ["fischer"] * len(PRESETS)


@pytest.mark.parametrize("text, words", [
    ("25+", "expected none, minutes (25)"),
    ("abc", "expected none"),
    ("0+5", "more than 0 minutes"),
    ("25+0", "increment must be more than 0 seconds (for none, write 25)"),
    ("25d0", "delay must be more than 0 seconds"),
    ("601", "at most 600 minutes"),
    ("25+601", "at most 600 seconds a turn"),
])
def test_a_control_that_cannot_be_is_one_line_naming_the_field(text, words):
    with pytest.raises(ClockError) as err:
        parse_control(text, field="--clock")
    msg = str(err.value)
    assert msg.startswith("--clock: ") and words in msg and "\n" not in msg


def test_a_stored_control_that_cannot_be_names_its_field():
    with pytest.raises(ClockError, match=r"^clock: control: base: expected seconds"):
        TimeControl.from_json({"kind": "fischer", "base": -1, "bonus": 5})
    with pytest.raises(ClockError, match=r"^clock: control: kind: expected one of"):
        TimeControl.from_json({"kind": "hourglass"})


def test_words_for_a_page():
    assert parse_control("25+10").words() == "25 minutes each, + 10 seconds a turn"
    assert parse_control("25d10").words() == "25 minutes each, 10 seconds' delay a turn"
    assert parse_control("1").words() == "1 minute each"
    assert NONE.words() == "no clock"


# --- the board is the clock --------------------------------------------------------------------


def test_no_clock_never_runs_out():
    clock = MatchClock(NONE)
    clock.start(0.0)
    assert clock.turn_done("white", 5.0, 5.2) is None
    assert clock.left("white", 1e9) == math.inf and clock.flag_due() is None and clock.flag(1e9) is None
    assert clock.view(3.0) == {"control": NONE.to_json()}


def test_the_mover_is_charged_to_the_last_sensor_change_not_to_the_commit():
    """Item 2: "The mover's clock stops when the action the referee commits was completed on the
    board (the time of its last sensor change, so the settle window is never charged) and the
    rival's starts"."""
    clock = MatchClock(parse_control("10"))
    clock.start(100.0)
    left = clock.turn_done("white", completed=112.0, now=112.3)  # committed 0.3 s after the placement
    assert left == pytest.approx(600 - 12)
    assert clock.running == "black"
    assert clock.left("black", 112.3) == pytest.approx(600 - 0.3)  # the rival's ran from the completion


def test_fischer_adds_the_increment_from_the_first_turn():
    """lila #7822 / FIDE: the increment is added from move one."""
    clock = MatchClock(parse_control("1+5"))
    clock.start(0.0)
    assert clock.turn_done("white", 2.0, 2.1) == pytest.approx(60 - 2 + 5)
    assert clock.turn_done("black", 12.0, 12.2) == pytest.approx(60 - 10 + 5)
    assert clock.left("white", 12.2) == pytest.approx(63 - 0.2)


def test_bronstein_delay_charges_nothing_of_the_first_seconds_and_keeps_nothing_unused():
    clock = MatchClock(parse_control("1d10"))
    clock.start(0.0)
    assert clock.turn_done("white", 4.0, 4.1) == pytest.approx(60)  # within the delay: nothing charged
    assert clock.view(9.0)["delay_left"] == pytest.approx(10.0)  # told at the turn's start (a screen counts down)
    assert clock.turn_done("black", 4.0 + 25.0, 29.2) == pytest.approx(60 - 15)
    assert clock.left("white", 29.2) == pytest.approx(60)  # 0.2 s of the new delay


def test_a_pause_is_charged_to_nobody_even_when_the_turn_end_comes_after_it():
    clock = MatchClock(parse_control("10"))
    clock.start(0.0)
    clock.pause(5.0)  # the board link lost
    assert clock.left("white", 50.0) == pytest.approx(595)
    assert clock.flag_due() is None  # nobody's time runs
    clock.resume(45.0)
    assert clock.flag_due() == pytest.approx(45 + 595)
    assert clock.turn_done("white", 47.0, 47.2) == pytest.approx(600 - 7)
    clock.pause(50.0)  # a question about black's action, asked 3 s after it was completed
    clock.resume(80.0)
    assert clock.turn_done("black", 48.0, 80.1) == pytest.approx(600 - 1)  # completed before the pause
    assert clock.left("white", 80.1) == pytest.approx(593 - 2 - 0.1)  # from 48 to 50, then after 80


def test_flag_fall_at_the_moment_the_time_ran_out():
    clock = MatchClock(parse_control("1+2"))
    clock.start(0.0)
    clock.turn_done("white", 10.0, 10.2)
    assert clock.flag_due() == pytest.approx(70.0)
    assert clock.flag(69.9) is None
    assert clock.flag(70.4) == "black"
    assert (clock.flagged, clock.flagged_at) == ("black", pytest.approx(70.0))
    assert clock.left("black", 71.0) == 0.0 and clock.running is None
    assert clock.turn_done("black", 69.0, 71.0) is None  # too late: the flag is down


def test_a_turn_completed_before_the_flag_and_committed_after_it_saves_the_mover():
    """The settle window is never charged: a placement 0.05 s before the time ran out, committed
    0.2 s after, stands.  (The driver asks ``flag`` only once such a commit can no longer come.)"""
    clock = MatchClock(parse_control("1"))
    clock.start(0.0)
    assert clock.turn_done("white", 59.95, 60.2) == pytest.approx(0.05)
    assert clock.running == "black" and clock.flag(60.2) is None


def test_flag_due_counts_a_pause_after_the_turn_began():
    clock = MatchClock(parse_control("1"))
    clock.start(0.0)
    clock.pause(10.0)
    clock.resume(40.0)
    assert clock.flag_due() == pytest.approx(90.0)
    clock = MatchClock(parse_control("1d5"))
    clock.start(0.0)
    assert clock.flag_due() == pytest.approx(65.0)


def test_the_view_is_what_every_screen_shows():
    clock = MatchClock(parse_control("25+10"), first="black")
    clock.start(0.0)
    v = clock.view(61.25)
    # told at the last change (the start), whenever asked: nothing a screen is sent changes unless
    # the clocks did, and each screen counts the running clock down itself
    assert v == {"control": parse_control("25+10").to_json(), "running": "black", "paused": False,
                 "flagged": None, "left": {"white": 1500.0, "black": 1500.0}}
    assert clock.view(99.0) == v and clock.mark == 0.0
    clock.stop(61.25)
    assert clock.view(100.0)["running"] is None and clock.view(100.0)["left"]["black"] == pytest.approx(1438.75)
    assert clock.mark == 61.25


def test_random_turns_never_charge_more_than_the_time_between_completions():
    """Invariant over random games: with no increment, what both sides used is the time the game
    ran (completion to completion) outside pauses."""
    import random
    rng = random.Random(33)
    for _ in range(200):
        clock = MatchClock(parse_control("600"))
        clock.start(0.0)
        t, side, paused = 0.0, "white", 0.0
        for _ in range(rng.randrange(1, 40)):
            think = rng.uniform(0.1, 20)
            if rng.random() < 0.2:
                a = t + rng.uniform(0, think)
                b = a + rng.uniform(0, 5)
                clock.pause(a)
                clock.resume(b)
                paused += b - a
                think += b - a
            t += think
            clock.turn_done(side, t, t + rng.uniform(0, 0.5))
            side = "black" if side == "white" else "white"
        assert clock.used["white"] + clock.used["black"] == pytest.approx(t - paused)


def test_a_clock_saved_and_restored_goes_on_with_the_time_each_used_from_the_side_to_move():
    clock = MatchClock(parse_control("1+2"))
    clock.start(0.0)
    clock.turn_done("white", 5.0, 5.2)
    saved = clock.saved()
    assert saved == {"used": {"white": 5.0, "black": 0.0}, "gained": {"white": 2.0, "black": 0.0}, "flagged": None}
    again = MatchClock(parse_control("1+2"))
    again.restore(json.loads(json.dumps(saved)))
    assert not again.started
    again.start(100.0, "black")  # the service came back at 100: the time it was down is nobody's
    assert again.left("white", 130.0) == 57.0 and again.left("black", 130.0) == 30.0


@pytest.mark.parametrize("saved, field", [
    ([], "expected an object"), ({"used": {"white": 1}, "gained": {"white": 0, "black": 0}}, "used"),
    ({"used": {"white": -1, "black": 0}, "gained": {"white": 0, "black": 0}}, "used"),
    ({"used": {"white": 0, "black": 0}, "gained": {"white": 0, "black": 0}, "flagged": "red"}, "flagged")])
def test_a_saved_clock_that_is_not_one_is_refused_naming_the_field(saved, field):
    with pytest.raises(ClockError, match=field):
        MatchClock(parse_control("1")).restore(saved)
