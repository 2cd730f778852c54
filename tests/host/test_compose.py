"""host.compose: the whole service built in one place; the board loop on one thread."""

import random
import threading
import time

import pytest

from engine.actions import Move
from engine.board import BLACK, WHITE
from engine.randplay import random_setup
from host.board.leds import COLOURS
from host.board.simboard import SimulatedBoard
from host.clock import FakeClock
from host.compose import Service
from host.store import Store
from host.compose import create_app
from tests.support.waiting import waiter


class LitBoard(SimulatedBoard):
    """A hardware-like source: the simulated board on the real clock, with LEDs it remembers."""

    def __init__(self, **kw):
        super().__init__(clock=time.monotonic, **kw)
        self.shown = []
        self.readers = set()

    def read(self, timeout=None):
        self.readers.add(threading.current_thread().name)
        return super().read(timeout)

    def show(self, leds):
        self.readers.add(threading.current_thread().name)
        self.shown.append(dict(leds))


until = waiter(timeout=10, every=0.02)


def test_a_hardware_board_is_read_refereed_and_lit_by_one_thread_with_no_ticker(tmp_path):
    """With a board source, the board loop feeds the table, ticks the referee (the settle window
    that ends in a commit expires there) and lights the LEDs: one thread, and no ticker beside it."""
    board = LitBoard()
    service = Service(Store(tmp_path / "q.sqlite3"), source=board)
    service.open()
    table = service.table
    before = {t.name for t in threading.enumerate()}
    service.start(tick=0.02)
    try:
        started = {t.name for t in threading.enumerate()} - before
        assert started == {"quin-board"}
        rng = random.Random(5)
        table.submit_setup(WHITE, random_setup(rng, WHITE).to_record())
        table.submit_setup(BLACK, random_setup(rng, BLACK).to_record())
        until(lambda: board.shown and len(board.shown[-1]) == 20, "the setup lights")
        board.set(table.game.occupied())
        until(lambda: table.ref.phase == "play", "the referee to start")
        move = next(a for a in table.game.legal_actions() if isinstance(a, Move) and table.game.tower_at(a.to) is None)
        board.move(move.frm, move.to)
        until(lambda: len(table.game.log) == 1, "the move to be committed")  # only a tick commits it
        assert table.game.log[0][2] == move
        until(lambda: board.shown[-1].get(move.to) == COLOURS["last_move"], "the last move's light")
        assert board.readers == {"quin-board"}
    finally:
        service.stop()
    assert not any(t.name == "quin-board" for t in threading.enumerate())


def test_a_source_that_fails_is_reported_and_the_referee_still_ticks(tmp_path):
    """A source raising on every read: the table says so, and the board loop keeps ticking."""

    class Broken:
        def read(self, timeout=None):
            raise OSError("the board is unplugged")

    clock = FakeClock()  # the service's one clock: the loop waits on it, and ticks as the test moves it
    service = Service(Store(tmp_path / "q.sqlite3"), source=Broken(), clock=clock)
    service.open()
    ticks = []
    real_tick = service.table.tick
    service.table.tick = lambda: (ticks.append(1), real_tick())
    service.start(tick=0.02)
    try:
        until(lambda: service.table.source_status == {"ok": False, "message": "the board is unplugged"}, "the report")

        def moved():  # a tick's worth of time each time the board loop waits on the clock
            if clock.waiting():
                clock.advance(0.02)
            return len(ticks) >= 5

        until(moved, "ticks while the source fails")
    finally:
        service.stop()


def test_create_app_builds_the_service_once_and_a_given_table_is_not_rebuilt(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path / "a"), "TICK": 0, "MANUAL_CLOCK": True})
    service = app.extensions["quin.service"]
    assert app.extensions["quin.table"] is service.table
    assert service.table.board is service.board and service.board is not None
    assert service.table.phase == "setup"

    other = Service(Store(tmp_path / "b.sqlite3"), board=SimulatedBoard(), manual_clock=True)
    other.open()
    served = other.web({"TICK": 0})
    assert served.extensions["quin.table"] is other.table
    assert served.extensions["quin.service"] is other
    assert served.config["DATA_DIR"] == str(tmp_path)


def test_the_practice_opponent_is_an_off_board_seat(tmp_path):
    """The opponent's seat has no phone: no link, its token seats nobody, it cannot be re-issued;
    the person's seat is an ordinary phone seat."""
    from host.opponent.driver import TableOpponent
    from host.session.seats import OffBoardSeat, PhoneSeat
    from host.session.table import TableError

    opponent = TableOpponent(BLACK, 0, seed=1, threaded=False, min_think=0)
    service = Service(Store(tmp_path / "q.sqlite3"), board=SimulatedBoard(), opponent=opponent, manual_clock=True)
    service.open()
    table = service.table
    assert isinstance(table.seats[BLACK], OffBoardSeat) and table.seats[BLACK].mind is opponent
    assert isinstance(table.seats[WHITE], PhoneSeat)
    assert table.opponent is opponent
    assert set(table.tokens) == {WHITE, BLACK}  # the store keeps a token for each side
    assert table.phone_seats() == {WHITE: table.tokens[WHITE]}
    assert table.seat_of(table.tokens[BLACK]) is None and table.seat_of(table.tokens[WHITE]) == WHITE
    with pytest.raises(TableError, match="black is played by the practice opponent: its seat has no phone"):
        table.reissue(BLACK)
    assert table.row.setups[BLACK] is not None  # its step sent its lineup at once
    assert table.state(None)["opponent"]["side"] == BLACK
    # Handing the seat back to a phone: the token stays, and now seats its player.
    token = table.tokens[BLACK]
    table.opponent = None
    assert table.opponent is None and isinstance(table.seats[BLACK], PhoneSeat)
    assert table.seat_of(token) == BLACK and table.state(None)["opponent"] is None
