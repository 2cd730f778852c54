"""Calibration drift saved back at runtime (atomically, the previous file kept) and shown by
`quin doctor`; `quin doctor` and `quin calibrate` against a board the service holds.

The end-to-end test runs `quin serve --board serial` as a real process reading the
simulated board (the real firmware logic over a pty), as on the Pi.
"""

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.support.quin_cmd import QUIN
from tests.support.quin_sim import TOWER, PtyBoard, SimBoard

from engine.board import SPACE_IDS
from host.board import calibration as calmod
from host.system.config import calibration_file
from host.board.calibration import Calibration, DriftKeeper, Level, OccupancyTracker
from host.cli import main
from host.system import holder

# real time: what this file tests runs on the machine's clock (tools/lanes.sh gives it a lane of its own)
pytestmark = pytest.mark.realtime

ROOT = Path(__file__).resolve().parents[3]
BASE = 30000


def flat_calibration():
    levels = [Level(BASE, 20.0)] * 99 + [Level(32768, 5.0), Level(40, 5.0)]
    return Calibration.from_baseline(levels).with_placed({s: BASE + TOWER for s in range(99)})


def feed(tracker, frames, shift=0, spaces=range(99)):
    readings = [BASE] * 99 + [32768, 40]
    for s in spaces:
        readings[s] = BASE + shift
    for _ in range(frames):
        tracker.update(readings)


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_drift_is_saved_atomically_keeping_the_previous_file_and_survives_a_restart(tmp_path):
    path = tmp_path / "calibration.json"
    flat_calibration().save(path)
    original = path.read_text()
    clock = Clock()
    keeper = DriftKeeper(path, every=60, min_change=25, clock=clock)
    tracker = OccupancyTracker(calmod.load(path))
    feed(tracker, 250)  # empty long enough for drift to be followed
    feed(tracker, 3000, shift=300, spaces=[SPACE_IDS["w35"]])
    keeper.offer(tracker)
    assert keeper.saves == 0  # not a minute yet
    clock.now = 61
    keeper.offer(tracker)
    assert keeper.saves == 1
    assert (tmp_path / "calibration.previous.json").read_text() == original
    assert not list(tmp_path.glob("*.tmp"))
    saved = calmod.load(path)
    w35 = saved.spaces[SPACE_IDS["w35"]]
    assert w35.drift == pytest.approx(300, abs=5) and w35.baseline == pytest.approx(BASE + 300, abs=5)
    assert w35.placed - w35.baseline == pytest.approx(TOWER, abs=1)  # the tower level moved alike
    assert w35.calibrated_baseline == pytest.approx(BASE, abs=0.01)
    assert saved.updated > 0 and saved.created == calmod.load(tmp_path / "calibration.previous.json").created
    assert saved.spaces[SPACE_IDS["b35"]].drift == 0

    # a restart starts from the saved baselines and adds further drift to what was kept
    again = OccupancyTracker(saved)
    feed(again, 250, shift=300, spaces=[SPACE_IDS["w35"]])
    feed(again, 3000, shift=500, spaces=[SPACE_IDS["w35"]])
    DriftKeeper(path).flush(again)
    w35 = calmod.load(path).spaces[SPACE_IDS["w35"]]
    assert w35.drift == pytest.approx(500, abs=8) and w35.calibrated_baseline == pytest.approx(BASE, abs=0.01)
    previous = calmod.load(tmp_path / "calibration.previous.json").spaces[SPACE_IDS["w35"]]
    assert previous.drift == pytest.approx(300, abs=5)


def test_noise_is_not_written_and_a_failed_save_never_stops_the_game(tmp_path, capsys):
    clock = Clock()
    tracker = OccupancyTracker(flat_calibration())
    keeper = DriftKeeper(tmp_path / "calibration.json", clock=clock)
    feed(tracker, 300, shift=3)  # a few counts: noise, not drift
    clock.now = 120
    keeper.offer(tracker)
    assert keeper.saves == 0 and not (tmp_path / "calibration.json").exists()

    broken = DriftKeeper(tmp_path / "missing" / "calibration.json", clock=clock)
    feed(tracker, 2000, shift=400)
    clock.now = 300
    broken.offer(tracker)
    clock.now = 400
    broken.offer(tracker)
    assert broken.saves == 0 and broken.error
    err = capsys.readouterr().err
    assert err.count("cannot save the calibration drift") == 1  # said once, not every minute


def test_an_old_calibration_file_without_drift_still_loads(tmp_path):
    data = flat_calibration().to_json()
    for entry in data["spaces"].values():
        del entry["drift"]
    del data["updated"]
    (tmp_path / "c.json").write_text(json.dumps(data))
    cal = calmod.load(tmp_path / "c.json")
    assert all(c.drift == 0 for c in cal.spaces) and cal.updated == 0


@pytest.mark.parametrize("cgroup, unit", [
    ("0::/system.slice/quin.service\n", "quin.service"),
    ("1:name=systemd:/system.slice/quin.service\n0::/\n", "quin.service"),
    ("0::/user.slice/user-1000.slice/user@1000.service/app.slice/vte-spawn-1.scope\n", None),
    ("0::/user.slice/user-1000.slice/session-3.scope\n", None),
])
def test_the_service_a_process_runs_in(cgroup, unit):
    assert holder.service_unit(cgroup) == unit


def test_the_message_for_a_port_the_service_holds():
    message = holder.busy_message("/dev/quin-board", [holder.Holder(812, "/home/ada/quin/bin/quin serve", "quin.service")],
                                  False)
    assert message == ("the board at /dev/quin-board is in use by the quin.service service (pid 812): stop it with "
                       "`sudo systemctl stop quin`, run this again, then `sudo systemctl start quin`")


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.setenv("QUIN_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("QUIN_SERIAL_PORT", raising=False)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    return tmp_path / "data"


def test_the_service_keeps_the_drift_and_doctor_names_who_holds_the_board(tmp_path, data, capsys):
    model = SimBoard(noise=20, seed=8)
    levels = [Level(v, 20.0) for v in model.base]
    data.mkdir(parents=True)
    Calibration.from_baseline(levels).with_placed({s: model.base[s] + TOWER for s in range(99)}).save(
        data / "calibration.json")
    drifting = [SPACE_IDS[n] for n in ("w35", "fs", "he3")]
    with PtyBoard(tmp_path, model) as board:
        env = dict(os.environ, QUIN_DATA_DIR=str(data), QUIN_SERIAL_PORT=board.path)
        serve = subprocess.Popen([*QUIN, "serve", "--board", "serial", "--host", "127.0.0.1", "--port", "0",
                                  "--data-dir", str(data), "--no-qr"],
                                 cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert serve.stdout.readline().startswith("Quin is ready"), serve.stderr.read()
            with model.lock:  # the room warms up: three sensors creep
                for s in drifting:
                    model.base[s] += 600
            # while it runs, doctor and calibrate say who holds the board and how to stop it
            for command in (["doctor", "--port", board.path], ["calibrate", "--port", board.path]):
                assert main(command) == 1
                err = capsys.readouterr().err
                assert f"is in use by pid {serve.pid} (python" in err and "kill" in err, err
                assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
            time.sleep(5)  # 2.5 s empty before drift is followed, then 5 % every quarter second
        finally:
            serve.send_signal(signal.SIGTERM)
            out, err = serve.communicate(timeout=20)
        assert serve.returncode == 0, err
        assert "Quin stopped" in out

        saved = calmod.load(calibration_file())
        for s in drifting:
            assert 100 < saved.spaces[s].drift < 600, saved.spaces[s]
        assert abs(saved.spaces[SPACE_IDS["b35"]].drift) < 25
        assert (data / "calibration.previous.json").exists()

        with model.lock:
            board.board.towers = set()
        code = main(["doctor", "--port", board.path, "--seconds", "0.5", "--svg", str(tmp_path / "h.svg")])
        out = capsys.readouterr().out
    assert "Drift since calibration" in out
    assert "saved by the service" in out
    w35 = round(saved.spaces[SPACE_IDS["w35"]].drift)
    assert f"+{w35}" in out  # its cell in the drift map
    assert code in (0, 1)
