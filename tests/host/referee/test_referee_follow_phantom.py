"""The rival's plan carried out on the board (remote play, ``Referee.follow``) while a hand bumps a
tower beside it (seed 9207 played under load: a wrong commit).  The position and the plan are built
by hand; the board is fed every 5 ms, as the tests' simulated sensor."""

from tests.support.remote_referee import committed, followed, pos
from tests.support.refplay import Play

from engine.actions import Move


def black_flashes(play):
    """Flashes of Black's the referee read (announced or committed)."""
    return [(n.data["from"], n.data["at"]) for n in play.notices
            if n.kind == "flash" and n.audience == "public" and n.data.get("player") == "black"]
from engine.board import parse_space as S
from host.referee import Phase


def bob_flashes_b28():
    """White (Bob, far away) to move: his Time on b29 flashes Black's Reflector on b28 (a capture,
    the Time stands on b28); Black's Time stands on b18, beside it."""
    return pos({"b29": "T", "b28": "r", "b18": "t", "w35": "S", "b35": "s"}, "white")


def following_bobs_flash():
    """The board following Bob's plan (his Time from b29 flashes b28): the referee's ``follow`` said,
    its notices kept; returns (play, plan)."""
    play = Play(bob_flashes_b28(), step=0.005, reads={"black"})
    after, plan = followed(bob_flashes_b28(), Move(S("b29"), S("b28")), side="white")
    play.notices += play.ref.follow(after, plan)
    return play, plan


def test_a_bump_beside_the_plan_never_makes_the_board_show_it_done_for_an_instant_of_the_sensors_lag():
    """Seed 9207 under load (action 18): Ann lifts her Reflector from b28 and Bob's Time from b29, her
    hand bumps her Time off b18, she sets Bob's Time on b28, and as she steadies it (off a moment) the
    bumped b18 reads on for 78 ms (a 33 ms touch, fed 51 ms late by a loaded server), then off again.
    For an instant the debounced board was the plan done -- b18 on, b28 still on only because its
    lift had not held ``off_delay`` yet -- though the sensors never read both at once; what came after
    (b28 and b18 off) was read as Ann's own next action, a flash b18-b28 of her Time on Bob's (in that
    game both left the board, and it was committed: a wrong commit; the game then stood).  The plan is done only when the
    board shows it with none of its own spaces still changing."""
    play, plan = following_bobs_flash()
    assert plan.get("flash") and sorted(plan["lift"]) == ["b28", "b29"]
    play.lift("b28", then=0.3)  # Ann's Reflector, captured
    play.lift("b29", then=0.3)  # Bob's Time
    play.lift("b18", then=0.3)  # bumped
    play.place("b28", then=0.3)  # Bob's Time on b28
    assert play.ref.state is Phase.FOLLOW
    play.lift("b28", then=0.02)  # steadying it: off a moment
    play.place("b18", then=0.078)  # the bumped tower reads on 78 ms
    play.lift("b18", then=0.4)
    play.place("b28", then=0.3)
    assert black_flashes(play) == [] and committed(play) == []  # nothing of Ann's was played
    play.place("b18", then=1.0)
    assert play.ref.state is Phase.PLAY and play.ref.game.to_move == "black"
    assert black_flashes(play) == [] and committed(play) == []


def test_a_tower_bumped_off_just_before_the_plans_last_placement_never_makes_it_shown_done():
    """Seed 9207 under load again (a wrong commit on the fix above): the bump lifted b18 11 ms
    before Bob's Time touched down on b28.  When b28 had settled, b18's lift had not held
    ``off_delay`` yet, so the debounced board was the plan done for an instant the sensors never
    showed (b18 was already off): what followed was read as Ann's flash b18-b28.  A change of a
    space under way before the plan's own spaces last changed keeps the plan from being shown done."""
    play, _ = following_bobs_flash()
    play.lift("b28", then=0.3)
    play.lift("b29", then=1.0)
    play.lift("b18", then=0.01)  # bumped...
    play.place("b28", then=0.015)  # ...as Bob's Time touches down on b28
    play.lift("b28", then=0.01)
    play.place("b28", then=0.11)
    play.lift("b28", then=0.05)  # steadied: off a moment
    play.place("b18", then=0.185)
    play.lift("b18", then=0.19)
    play.place("b28", then=0.4)
    assert black_flashes(play) == [] and committed(play) == []
    play.place("b18", then=1.0)
    assert play.ref.state is Phase.PLAY and play.ref.game.to_move == "black"
    assert black_flashes(play) == [] and committed(play) == []


def test_a_brisk_hand_after_the_plan_is_still_the_next_step():
    """The other side (issue 28, "brisk hands after a plan"): the plan shown done, then at once (50
    ms after Bob's Time settled on b28) Ann lifts her Time from b18 to flash it: her flash, read."""
    play, _ = following_bobs_flash()
    play.lift("b28", then=0.3)
    play.lift("b29", then=0.3)
    play.place("b28", then=0.1)
    play.lift("b18", then=0.3)
    play.lift("b28", then=1.0)
    assert black_flashes(play) == [("b18", "b28")]
