"""How people's hands and phones behave in time: the noise levels, the paces, the bounds.

Everything the simulator does in time is drawn from these tables, so a reader (or a test)
finds every bound in one place.  They describe people and Hall sensors, not the referee:
where a number matches one of the referee's windows (docs/referee.md) it is because a real
board behaves so (a tower slid over a space rests there for less than 50 ms; a neighbour
knocked off its magnet springs back within 150 ms), not because the referee expects it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

Range = tuple[float, float]


@dataclass(frozen=True)
class Noise:
    """What the sensors and the hands add around every lift and placement."""

    flicker: tuple[int, int]  # bounces of the reading on every lift and placement (min, max)
    bump: float  # chance per action that a neighbouring tower is bumped off its magnet
    slide: float  # chance that a straight move is a slide over the spaces on the way
    hover: float  # chance of hovering over a space before putting a tower on it
    slow: float  # chance that a tower is held a long while before it is put down


NOISE = {
    "none": Noise((0, 0), 0.0, 0.0, 0.0, 0.0),
    "low": Noise((1, 2), 0.1, 0.3, 0.1, 0.1),
    "medium": Noise((1, 4), 0.3, 0.6, 0.3, 0.25),
    "high": Noise((2, 6), 0.6, 0.9, 0.6, 0.5),
}
LEVELS = tuple(NOISE)

# Physical bounds (seconds), the same at every noise level.
FLICKER_WINDOW = 0.08  # every bounce of a lift or placement ends within 80 ms of its first change
PULSE = (0.002, 0.012)  # one bounce: the reading flips back for this long
SLIDE_DWELL = (0.01, 0.045)  # a slid tower rests on each space on the way for under 50 ms
SLIDE_GAP = (0.03, 0.09)  # travel between two spaces of a slide (off every sensor)
BUMP = (0.04, 0.14)  # a bumped neighbour is off its magnet for 40 to 140 ms
HOVER = (0.02, 0.06)  # a hovering magnet reads for 20 to 60 ms
HOVER_GAP = (0.02, 0.08)  # from the end of a hover to the placement
SLOW = (1.0, 2.5)  # a slow placement: the tower is held 1 to 2.5 s
BUMP_AROUND = (-0.1, 0.05)  # a bump starts this long around the action's last placement


# Reactions to the phone at the relaxed pace (a brisk table: Pace.answer, Pace.done_lag).
ANSWER = (0.6, 1.0)  # a private question answered this long after it arrives
DONE_LAG = (0.2, 0.6)  # done tapped this long after the last placement

# The next player at a table that does not wait (brisk, hasty), from the rival's touch-down.
RELIFT = (0.2, 0.3)  # brisk: the next player lifts the tower just placed this long after it landed
NEXT_WORD = (0.1, 0.3)  # hasty: the next player's first word and first hand, after the rival's touch-down
LANDING_WORD = (0.0, FLICKER_WINDOW)  # hasty: a Memory Swap's word while the rival's tower still bounces


@dataclass(frozen=True)
class Pace:
    """How fast two people play."""

    think: Range  # from the last change of a turn to the first lift of the next
    tap_first: Range  # ... or to the first tap, when the turn starts with a declaration
    between: Range  # between two actions of one turn
    carry: Range  # a tower in the hand from its lift to its placement
    hands: Range  # between two hand operations of one action (the two lifts of a swap)
    flash_hold: Range  # both flashed towers in the hands before the outcome is put down
    gravity_gap: Range  # from one Void's placement to the next Void's lift, in one Void Gravity
    declare_lead: Range  # a declaration before the action's first hand operation
    declare_variants: tuple[str, ...]  # how Reinforcement / Resurrection are declared
    swap_after: float  # chance that a Memory Swap is declared after it was made
    done_after: float  # chance of tapping done after a Void Gravity, several reinforcements, a swap
    look: bool  # look at the phone for the flash or Time announcement before carrying it out
    # --- a brisk table (issue 17); the defaults are the relaxed players' behaviour ---
    hold_from_lift: bool = False  # carry counts from the lift's first change, not from the end of its bounce
    word_race: Range | None = None  # a "race" word: this long around the board change it goes with
    swap_done: float | None = None  # chance of done after a swap (None: done_after)
    done_lag: Range = DONE_LAG  # done tapped this long after the last placement
    answer: Range = ANSWER  # a question answered this long after it arrives
    choose_unprompted: float = 0.0  # chance of naming a look-alike action unprompted, after it
    relift: float = 0.0  # chance that the next player lifts the tower just placed RELIFT after it landed
    react: float = 0.0  # a tap already on its way is still made unless the commit came this long before
    late_edge: bool = False  # under heavy noise the last bounce of an edge may come as late as the window allows
    late_share: float = 0.5  # ... for this share of the edges
    relift_window: Range = RELIFT  # the tower just placed lifted by the next player this long after it landed
    # --- a hasty table (issue 31): the next player's word and hands on the rival's landing ---
    next_word: float = 0.0  # chance that the next player's first word and first hand come NEXT_WORD after
    #                         the rival's last touch-down (when the rival's action ended with a placement)
    landing_word: float = 0.0  # ... and, of those, that a Memory Swap's word comes LANDING_WORD after it


PACES = {
    "relaxed": Pace(
        think=(1.5, 3.5),
        tap_first=(1.7, 3.5),  # a relaxed tap comes once the rival's turn is well over
        between=(0.8, 2.0),
        carry=(0.3, 0.8),
        hands=(0.15, 0.5),
        flash_hold=(0.6, 1.5),
        gravity_gap=(0.3, 0.9),
        declare_lead=(0.4, 1.5),
        declare_variants=("before",),
        swap_after=0.3,  # now and then a Memory Swap is made first and declared (or asked) after
        done_after=0.3,
        look=True,
    ),
    "brisk": Pace(
        think=(0.2, 0.5),  # the rival's first lift within 0.5 s of the last placement
        tap_first=(0.05, 0.3),  # a tap while the previous turn is still settling
        between=(0.3, 0.45),  # actions of one turn 0.3 s apart (a Memory Swap 0.3 s after a Time)
        carry=(0.2, 0.5),  # towers held 0.2 to 0.5 s, from the lift to the put-down
        hands=(0.1, 0.3),  # hand steps 0.1 to 0.3 s apart
        flash_hold=(0.2, 0.5),
        gravity_gap=(0.2, 1.0),  # the Voids of one Gravity 0.2 to 1 s apart
        declare_lead=(0.05, 0.3),
        # before: declared ahead of the hands; race: the word within WORD_RACE of the board
        # change it goes with (a Reinforcement's or Resurrection's landing tower, a swap's
        # first put-down, a Time's first lift)
        declare_variants=("before", "race"),
        swap_after=0.0,  # a swap is declared before or while it is made, sometimes done after
        done_after=0.5,
        look=False,
        hold_from_lift=True,
        word_race=(-0.3, 0.2),
        swap_done=0.7,  # three swaps in ten get no done: the next player's lift ends them
        done_lag=(0.1, 0.4),
        answer=(0.2, 1.5),
        choose_unprompted=0.7,
        relift=0.5,
        react=0.25,
        late_edge=True,
    ),
}

# The hasty table (issue 31, item 3): the brisk table at the widest plausible bounds, and the
# shapes that still broke the referee after issue 17.  The next player's word (swap, a
# Reinforcement's or Resurrection's pieces, time, done for a pass) and first hand come 0.1 to
# 0.3 s after the rival's tower touched down, that tower's bounce included (under heavy noise
# up to 80 ms at each edge, the last bounce late in the window three edges in four); a Memory
# Swap's word, half the time, while the rival's tower is still landing (0 to 80 ms after it
# touched down).  Racing words come up to 0.3 s after the change they go with.  It is asked for
# by name (``pace="hasty"``): PACE_NAMES, the paces the suite's referee tests and the soak play
# by default, stay the two everyday tables.
PACES["hasty"] = replace(
    PACES["brisk"],
    think=(0.1, 0.5),  # the first lift 0.1 s after the rival's last change
    tap_first=(0.0, 0.3),  # a tap as the rival's last change settles
    word_race=(-0.3, 0.3),  # a racing word up to 0.3 s after its board change
    done_lag=(0.05, 0.4),
    late_share=0.75,
    relift=0.6,
    relift_window=(0.15, 0.3),  # the tower just placed, lifted 70 ms after an 80 ms bounce at the soonest
    next_word=0.7,
    landing_word=0.5,
)
PACE_NAMES = ("relaxed", "brisk")  # the everyday tables; ALL_PACES adds the hasty one
ALL_PACES = tuple(PACES)

# The brisk table's behaviours one by one, and what each becomes when it is left out (an
# ablation: ``Hands(..., without=("relift",))``, ``bench/referee_soak.py --without relift``).
BRISK_PARTS = {
    "race_word": {"declare_variants": ("before",)},  # every word before the hands
    "quick_hold": {"hold_from_lift": False},  # carry counted from the end of the lift's bounce
    "late_edge": {"late_edge": False},  # no late bounce under heavy noise
    "no_done": {"swap_done": 1.0},  # every swap gets its done
    "relift": {"relift": 0.0},  # the next player never snatches the tower just placed
    "choose_unprompted": {"choose_unprompted": 0.0},  # ambiguous actions named only when asked
    "react": {"react": 0.0},  # no tap made once the phone shows the commit
    # the hasty table's own (nothing at a brisk table)
    "next_word": {"next_word": 0.0},  # the next player's word and hands wait for the rival's bounce to end
    "landing_word": {"landing_word": 0.0},  # no swap word while the rival's tower is still landing
}


def pace_without(pace: Pace, parts) -> Pace:
    """``pace`` with the named brisk behaviours (BRISK_PARTS) left out."""
    changes: dict = {}
    for name in parts:
        if name not in BRISK_PARTS:
            raise ValueError(f"without: expected some of {', '.join(BRISK_PARTS)}, got {name!r}")
        changes.update(BRISK_PARTS[name])
    return replace(pace, **changes)

# Reactions to the phone (seconds).
FOLLOW = (0.8, 1.6)  # a correction followed this long after it arrives
LOOK_AFTER = (0.3, 0.8)  # after reading a flash or Time announcement, the hands start
LOOK_TIMEOUT = 3.0  # no announcement: carry on from what the players see
PASS_TIMEOUT = 4.0  # no "send done to pass" prompt: pass anyway
STARTED_TIMEOUT = 3.0  # no "the board is set": start anyway
STALL = 10.0  # the referee two actions behind for this long: the players stop playing
CLOSE_LEAD = (0.0, 0.2)  # "close": the placement within 0.2 s of the declaration
AFTER_LAG = (0.05, 0.5)  # "after": the declaration this long after the placement
SWAP_AFTER_LAG = (0.1, 0.8)  # a swap declared this long after it was made
QUICK = 0.3  # brisk: a space refilled sooner than this after its lift gets no hover first
LATE_EDGE = (0.06, 0.0775)  # brisk, heavy noise: where the last bounce of an edge may begin
SETUP_GAP = (0.1, 0.4)  # between two towers of the setup

# Staged faults: how long the players wait for the referee to point at their mistake before
# they notice it themselves (closed loop), or simply how long the mistake stands (open loop,
# nobody listening: today's fixed schedule).
FAULT_WAIT = {
    "closed": {"knock": 10.0, "illegal": 6.0, "wrong_outcome": 6.0},
    "open": {"knock": 6.0, "illegal": 3.0, "wrong_outcome": 3.0},
}
STUCK_SENSOR = 5.0  # a stuck sensor heals after this long
AFTER_FAULT = (1.0, 2.0)  # the players carry on this long after a stuck sensor healed
