"""host.session.seats: who a token seats, which seats a phone joins, and a seat changing hands."""

import pytest

from engine.board import BLACK, WHITE
from host.session.seats import OffBoardSeat, PhoneSeat, Seats


class Mind:
    """A stand-in mind for an off-board seat (a remote player's link would be one)."""

    who = "the remote player"

    def __init__(self, side):
        self.side = side
        self.steps = 0

    def step(self, table):
        self.steps += 1

    def public_status(self, table):
        return {"side": self.side}

    def led_items(self, table):
        return [{"kind": "place", "spaces": ["w1"]}]


def test_a_token_seats_only_its_phone_seat_and_an_off_board_seat_is_joined_by_nobody():
    seats = Seats.of([Mind(BLACK)])
    seats.set_tokens({BLACK: "tok-b", WHITE: "tok-w"})
    assert seats.seat_of("tok-w") == WHITE
    assert seats.seat_of("tok-b") is None  # the off-board seat's token opens nothing
    for bad in ("", None, 42, "tok-w ", "tok-"):
        assert seats.seat_of(bad) is None
    assert seats.phone_tokens() == {WHITE: "tok-w"}
    assert seats.tokens == {BLACK: "tok-b", WHITE: "tok-w"}
    assert list(seats.tokens) == [BLACK, WHITE]  # in the store's order: the host page lists them so


def test_a_re_issued_token_replaces_the_old_one_in_its_place():
    seats = Seats.of()
    seats.set_tokens({BLACK: "b1", WHITE: "w1"})
    seats.set_token(BLACK, "b2")
    assert seats.seat_of("b1") is None and seats.seat_of("b2") == BLACK
    assert list(seats.tokens) == [BLACK, WHITE]


def test_a_seat_changes_kind_and_keeps_its_token():
    seats = Seats.of()
    seats.set_tokens({WHITE: "w", BLACK: "b"})
    mind = Mind(WHITE)
    seats.replace(OffBoardSeat(WHITE, mind))
    assert seats[WHITE].token == "w" and seats.seat_of("w") is None
    assert seats.off_board() == [seats[WHITE]]
    assert seats[WHITE].no_phone() == "white is played by the remote player: its seat has no phone to re-issue"
    assert seats[WHITE].public_status(None) == {"side": WHITE}
    seats[WHITE].step(None)
    assert mind.steps == 1
    seats.replace(PhoneSeat(WHITE))
    assert seats.seat_of("w") == WHITE and seats.off_board() == []
    assert seats[WHITE].no_phone() is None and seats[WHITE].led_items(None) == []


def test_a_mind_for_the_other_side_is_refused():
    with pytest.raises(ValueError, match="plays black, not white"):
        OffBoardSeat(WHITE, Mind(BLACK))
