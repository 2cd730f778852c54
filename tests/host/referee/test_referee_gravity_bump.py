"""A Void Gravity whose landing bumps another tower of the mover's (remote soak seed 9207: Third
Eye, relaxed, high noise).  Each test builds the position by hand and states what the board and the
phone did, to the hundredth of a second; the referee reads only Black's actions, as the board of a
remote game whose Black sits at it does."""

import pytest

from tests.support.refplay import Play, gravity, questions, refused, third_eye

BLACK_ONLY = frozenset({"black"})


def seed_9207(bumped="v"):
    """Black to move, as in seed 9207 before its action 21: Black's Voids on b39, b56 (and b48,
    ``bumped``: for all White can tell, any of Black's towers may be a Void)."""
    return third_eye({"b19": "m", "b24": "s", "b48": bumped, "b39": "v", "b49": "r", "b47": "l", "b56": "v",
                      "b59": "p", "w18": "S", "w57": "V", "w58": "M", "w48": "R", "w46": "V", "w19": "M", "w49": "P",
                      "w56": "V", "w29": "S", "w59": "L"}, "black")


@pytest.mark.parametrize("bumped", ["v", "p"])
def test_a_gravity_whose_landing_bumps_a_tower_that_may_anchor_a_bigger_one_is_read_once_the_board_is_still(bumped):
    """Seed 9207: Black names the Gravity around b39 pulling b56 to b38 (`choose`), carries b56 to
    b38, and as b38 lands the hand bumps b48 (off 0.16 s, then back).  For all White can tell b48 may
    be a Void anchoring a bigger Gravity (b56-b38 and b39-b58) that the board could still be on its
    way to: the reading before the bump was held while it might grow, and held for good once the
    board was still, against the whole evidence's reading of the same Gravity (the bump
    unexplained): nothing was committed, the phone kept "play gravity around b39", and the game
    stood.  Once the board is still ``multi_settle`` with no tower in the hand, the Gravity is over:
    the one named is committed, at the same moment whatever b48 is."""
    play = Play(seed_9207(bumped), step=0.005, reads=BLACK_ONLY)
    play.say("black", {"type": "choose", "action": {"type": "gravity", "void": "b39", "moves": {"b56": "b38"}}})
    play.wait(1.0)
    play.lift("b56", then=1.36)
    play.place("b38", then=0.05)
    play.lift("b48", then=0.16)
    play.place("b48", then=1.3)
    assert play.played() == []  # still the window in which a Gravity could go on
    t0 = play.t
    while not play.played() and play.t < t0 + 5:
        play.wait(0.01)
    assert play.played() == [gravity("b39", {"b56": "b38"})]
    assert round(play.t - t0, 2) == pytest.approx(0.25, abs=0.05)  # 1.5 s after the bump's last flip
    assert not questions(play) and not refused(play)


def test_a_void_still_in_the_hand_keeps_the_gravity_open_past_the_stillness():
    """The other side: the second Void lifted and held 2 s (longer than ``multi_settle``) before it
    is set beside the anchor: the Gravity is still open while it is in the hand, and both Voids are
    one Gravity."""
    play = Play(seed_9207(), step=0.005, reads=BLACK_ONLY)
    play.move("b56", "b38", then=0.4)
    play.lift("b39", then=2.0)
    assert play.played() == []
    play.place("b58", then=2.0)
    assert play.played() == [gravity("b48", {"b56": "b38", "b39": "b58"})]
