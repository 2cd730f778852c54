"""`quin calibrate` and `quin doctor` through host.cli.main against the simulated board."""

import io
import re
import sys
import threading

import pytest
from tests.support.quin_sim import TOWER, PtyBoard, SimBoard

from engine.board import SPACE_IDS
from host.board import calibration as calmod
from host.system.config import calibration_file
from host.cli import main


class Watch(io.StringIO):
    """stdout that tells a waiting thread when a phrase has been printed."""

    def __init__(self, phrase):
        super().__init__()
        self.phrase = phrase
        self.seen = threading.Event()

    def write(self, s):
        if self.phrase in s:
            self.seen.set()
        return super().write(s)


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.setenv("QUIN_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("QUIN_SERIAL_PORT", raising=False)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # nobody at the keyboard
    return tmp_path / "data"


def run_calibrate(board, argv, monkeypatch, batches=3):
    out = Watch("Now stand a tower")
    monkeypatch.setattr(sys, "stdout", out)
    done = threading.Event()
    spaces = list(range(99))

    def builder():  # places towers in batches once asked to, and again until calibration ends
        if not out.seen.wait(30):
            return
        i = 0
        while not done.is_set():
            batch = set(spaces[i % batches :: batches])
            board.board.towers = batch
            done.wait(0.25)
            board.board.towers = set()
            done.wait(0.1)
            i += 1

    t = threading.Thread(target=builder, daemon=True)
    t.start()
    try:
        code = main(["calibrate", "--port", board.path, "--seconds", "0.5", "--hold", "5", "--timeout", "30", *argv])
    finally:
        done.set()
        t.join(5)
    return code, out.getvalue()


def test_calibrate_records_every_space_then_doctor_is_happy(tmp_path, data, monkeypatch, capsys):
    with PtyBoard(tmp_path, SimBoard(noise=30, seed=4)) as board:
        code, out = run_calibrate(board, [], monkeypatch)
        assert code == 0, out
        assert "99 of 99 spaces have a tower level" in out
        cal = calmod.load(calibration_file())
        s = SPACE_IDS["b23"]
        assert cal.spaces[s].baseline == pytest.approx(board.board.base[s], abs=20)
        assert cal.spaces[s].delta == pytest.approx(TOWER, abs=40)
        assert calmod.sensor_flags(cal) == {}

        monkeypatch.setattr(sys, "stdout", io.StringIO())
        board.board.towers = {SPACE_IDS["hw2"]}
        code = main(["doctor", "--port", board.path, "--seconds", "0.5"])
        out = sys.stdout.getvalue()
        assert code == 0, out
        assert "All sensors and the link are healthy" in out
        assert "firmware 1.1.0: 101 channels" in out
        assert "Margins" in out and "*" in out  # hw2 shown occupied
        svg = (data / "doctor.svg").read_text()
        assert svg.startswith("<svg") and 'id="space-hw2"' in svg


def test_baseline_only_keeps_tower_changes(tmp_path, data, monkeypatch):
    with PtyBoard(tmp_path, SimBoard(noise=30, seed=5)) as board:
        assert run_calibrate(board, [], monkeypatch)[0] == 0
        with board.board.lock:
            board.board.base = [v + 500 if ch < 99 else v for ch, v in enumerate(board.board.base)]
        monkeypatch.setattr(sys, "stdout", io.StringIO())
        assert main(["calibrate", "--port", board.path, "--seconds", "0.3", "--baseline-only"]) == 0
        cal = calmod.load(calibration_file())
        assert cal.spaces[0].baseline == pytest.approx(board.board.base[0], abs=20)
        assert cal.spaces[0].delta == pytest.approx(TOWER, abs=40)


def test_doctor_names_a_dead_sensor_and_a_bad_reference(tmp_path, data, monkeypatch, capsys):
    board_model = SimBoard(noise=30, seed=6)
    board_model.dead = {SPACE_IDS["w19"]}
    board_model.base[99] = 20000  # the half-supply divider is off
    with PtyBoard(tmp_path, board_model) as board:
        code = main(["doctor", "--port", board.path, "--seconds", "0.4", "--svg", str(tmp_path / "h.svg")])
    out = capsys.readouterr().out
    assert code == 1
    assert "w19: dead" in out
    assert re.search(r"half-supply reference reads (19|20)\d\d\d, expected 32768", out)
    assert "no calibration: run `quin calibrate`" in out
    assert (tmp_path / "h.svg").exists()


def test_doctor_without_a_board(tmp_path, data, capsys):
    code = main(["doctor", "--port", str(tmp_path / "ttyNothing")])
    err = capsys.readouterr().err
    assert code == 1 and "cannot open the board" in err and "Traceback" not in err


def test_calibrate_with_a_silent_board(tmp_path, data, monkeypatch, capsys):
    # Silent from the moment it is plugged in: pausing it after `plug()` let a busy machine's
    # first frames through, and the calibration went on to wait for towers.
    with PtyBoard(tmp_path, paused=True) as board:
        code = main(["calibrate", "--port", board.path, "--seconds", "0.2"])
    assert code == 1
    assert "no frames from the board" in capsys.readouterr().err
    assert not (data / "calibration.json").exists()


def test_calibrate_stops_when_the_board_goes_silent_while_towers_are_placed(tmp_path, data, monkeypatch, capsys):
    """A firmware that hangs after the empty board was recorded: one line, nothing saved, no 15-minute wait."""
    from host.commands import hardware_cmds

    with PtyBoard(tmp_path) as board:
        real = hardware_cmds._raw_frames

        def then_hang(link, seconds, *rest):
            got = real(link, seconds, *rest)
            board.paused = True
            return got

        monkeypatch.setattr(hardware_cmds, "_raw_frames", then_hang)
        monkeypatch.setattr(hardware_cmds, "SILENCE", 0.5)
        code = main(["calibrate", "--port", board.path, "--seconds", "0.2"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1
    assert err == [f"quin: the board at {board.path} stopped sending frames for 0.5 s while towers were placed; "
                   "nothing was saved: run `quin doctor`"]
    assert not (data / "calibration.json").exists()


def test_baseline_only_needs_an_earlier_calibration(tmp_path, data, capsys):
    with PtyBoard(tmp_path) as board:
        code = main(["calibrate", "--port", board.path, "--baseline-only"])
    assert code == 2 and "run `quin calibrate` first" in capsys.readouterr().err


def test_bad_channel_map_is_one_line(tmp_path, data, capsys):
    bad = tmp_path / "map.csv"
    bad.write_text("index,multiplexer,channel,space,name\n0,0,0,0,zz\n")
    assert main(["doctor", "--port", "loop://", "--channel-map", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "line 2" in err and "zz" in err
