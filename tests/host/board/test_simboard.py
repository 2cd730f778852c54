"""The simulated board: a Source driven by code, with a manual clock, safe across threads."""

import threading
import time

import pytest

from engine.board import parse_space
from host.board.sensing import Source
from host.board.simboard import ManualClock, SimulatedBoard

W19, W18 = parse_space("w19"), parse_space("w18")


def test_it_is_a_source_and_reads_what_stands_on_it():
    board = SimulatedBoard(["w19"])
    assert isinstance(board, Source)
    snap = board.read(0)
    assert snap.occupied == {W19} and snap.t == 0.0
    assert board.read(0) is None  # nothing changed since
    board.advance(0.5)
    board.move("w19", "w18")
    snap = board.read(0)
    assert snap.occupied == {W18} and snap.t == 0.5
    board.close()
    assert board.read(0) is None


def test_lift_place_toggle_set_and_their_errors():
    board = SimulatedBoard()
    board.place(W19)
    with pytest.raises(ValueError):
        board.place("w19")
    board.lift("w19")
    with pytest.raises(ValueError):
        board.lift(W19)
    assert board.toggle("w18").occupied == {W18}
    assert board.toggle("w18").occupied == frozenset()
    assert board.set(["w18", "w19"]).occupied == {W18, W19}
    with pytest.raises(ValueError):
        board.place(999)
    with pytest.raises(Exception):
        board.place("nowhere")


def test_a_stuck_sensor_reads_wrong_until_healed():
    board = SimulatedBoard(["w19"])
    assert board.stick("w19", False).occupied == frozenset()
    assert board.occupied == {W19}  # the tower still stands there
    assert board.stick("w18", True).occupied == {W18}
    board.stick("w19", None)
    board.stick("w18", None)
    assert board.snapshot().occupied == {W19}


def test_polling_returns_a_snapshot_every_time():
    board = SimulatedBoard(["w19"], poll=True)
    assert board.read(0) is not None and board.read(0) is not None


def test_the_manual_clock_only_moves_forward_and_a_real_clock_refuses_advance():
    clock = ManualClock(1.0)
    assert clock.advance(0.25) == 1.25 and clock() == 1.25
    with pytest.raises(ValueError):
        clock.advance(-1)
    real = SimulatedBoard(clock=time.monotonic)
    with pytest.raises(ValueError):
        real.advance(1)


def test_a_real_time_reader_wakes_when_another_thread_changes_the_board():
    board = SimulatedBoard(clock=time.monotonic)
    assert board.read(0) is not None  # the first reading
    assert board.read(0.01) is None
    got = []
    reader = threading.Thread(target=lambda: got.append(board.read(5)))
    reader.start()
    # the reader must be blocked in read() before the toggle: a real-clock board's wait has no event to show it
    time.sleep(0.05)
    board.toggle("w19")
    reader.join(5)
    assert got and got[0].occupied == {W19}


def test_many_threads_toggling_never_lose_a_change():
    board = SimulatedBoard()
    spaces = list(range(40))

    def worker(mine):
        for _ in range(50):
            for s in mine:
                board.toggle(s)

    threads = [threading.Thread(target=worker, args=(spaces[i::4],)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert board.occupied == frozenset()  # every space toggled an even number of times


def test_a_polled_real_time_board_is_scanned_at_its_rate():
    board = SimulatedBoard(["w19"], clock=time.monotonic, poll=True, rate=50)
    start = time.monotonic()
    readings = [board.read(1.0) for _ in range(6)]
    elapsed = time.monotonic() - start
    assert all(r is not None and r.occupied == {W19} for r in readings)
    assert elapsed >= 0.08  # five waits of a 20 ms scan period (the first reading is the change)
    with pytest.raises(ValueError):
        SimulatedBoard(rate=0)
