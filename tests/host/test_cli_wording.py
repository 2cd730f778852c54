"""The command line says what a new user needs (issue 11): which store `quin games` read, a trace
given to `quin replay` (and a record to `quin referee`), several records at once, a hardware board
that cannot start leaves no store behind and names the calibration it looked for."""

import json
import os
import subprocess
from pathlib import Path

import pytest

from host.commands.engine_cmds import result_text

from tests.support.quin_cmd import QUIN

ROOT = Path(__file__).resolve().parents[2]
RECORD = ROOT / "examples" / "classic-game.json"
TRACE = ROOT / "examples" / "classic-game.trace"
THIRD_EYE = ROOT / "examples" / "third-eye-game.json"


def quin(*args, env=None, stdin=None):
    return subprocess.run([*QUIN, *args], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env=env, input=stdin)


def test_replay_given_a_trace_says_it_is_a_trace(tmp_path):
    out = quin("replay", str(TRACE))
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == (f"quin: {TRACE} is a quin-trace/1 trace, not a record: referee it with "
                          f"`quin referee --trace {TRACE}`\n")
    # A header-only trace is one line of JSON: still a trace, not a malformed record.
    header = tmp_path / "header.trace"
    header.write_text(TRACE.read_text().splitlines()[0] + "\n")
    assert "is a quin-trace/1 trace, not a record" in quin("replay", str(header)).stderr
    assert "standard input is a quin-trace/1 trace" in quin("replay", "-", stdin=TRACE.read_text()).stderr
    assert "is a quin-trace/1 trace, not a record" in quin("legal", str(TRACE)).stderr


def test_referee_given_a_record_says_it_is_a_record():
    out = quin("referee", "--trace", str(RECORD))
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == (f"quin: {RECORD} is a quin-record/1 record, not a trace: replay it with "
                          f"`quin replay {RECORD}`\n")
    as_json = quin("referee", "--trace", str(RECORD), "--json")
    assert json.loads(as_json.stdout)["error"].endswith(f"replay it with `quin replay {RECORD}`")


def test_replay_takes_several_records_and_exits_with_the_worst(tmp_path):
    out = quin("replay", str(RECORD), str(THIRD_EYE))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == f"== {RECORD}" and f"== {THIRD_EYE}" in lines
    assert lines[-1] == "2 records: 2 legal, 0 with an illegal action, 0 malformed"
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    out = quin("replay", str(RECORD), str(bad), "--json")
    assert out.returncode == 2
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["record"] for r in rows] == [str(RECORD), str(bad)]
    assert rows[0]["result"]["winner"] == "black" and "error" in rows[1]
    assert quin("replay", "-", "-").stderr == "quin: standard input ('-') can be replayed only once\n"


def test_games_says_which_store_it_listed(tmp_path):
    out = quin("games", "--data-dir", str(tmp_path))
    assert out.returncode == 0
    assert out.stdout.splitlines()[0] == f"no games in {tmp_path / 'quin.sqlite3'}"
    data = json.loads(quin("games", "--json", "--data-dir", str(tmp_path)).stdout)
    assert data == {"store": str(tmp_path / "quin.sqlite3"), "games": []}


def test_results_are_worded_once_for_the_cli_and_the_pages():
    assert result_text({"status": "won", "winner": "white", "reason": "light_captured"}) == \
        "White wins: Black's Light is captured"
    assert result_text({"status": "won", "winner": "black", "reason": "first_sight"}) == \
        "Black wins: Black's Light reaches First Sight"
    assert result_text({"status": "drawn", "winner": None, "reason": "passes"}) == "Drawn: two passes in a row"
    assert result_text({"status": "ongoing", "winner": None, "reason": None}) == ""
    # The pages' copy of these words (quin.js) is checked against the CLI in tests/browser/test_status.py.
    js = (ROOT / "host" / "web" / "static" / "quin.js").read_text()
    for words in ("wins: ", "'s Light reaches First Sight", "'s Light is captured", "two passes in a row"):
        assert words in js


@pytest.mark.parametrize("board", ["serial", "blinka"])
def test_a_board_that_cannot_start_leaves_no_store_and_names_the_calibration_it_wanted(tmp_path, board):
    data = tmp_path / "data"
    fake_port = tmp_path / "no-such-port"
    env = dict(os.environ, QUIN_SERIAL_PORT=str(fake_port), QUIN_DATA_DIR=str(tmp_path / "default"),
               BLINKA_OS_AGNOSTIC="1")
    out = quin("serve", "--board", board, "--host", "127.0.0.1", "--port", "0", "--data-dir", str(data), env=env)
    assert out.returncode == 2, out.stdout
    assert out.stderr == (f"quin: --board {board}: no calibration at {data / 'calibration.json'}: "
                          f"run `QUIN_DATA_DIR={data} quin calibrate` first\n")
    assert not (data / "quin.sqlite3").exists() and not (tmp_path / "default" / "quin.sqlite3").exists()


def test_serial_without_a_board_leaves_no_store(tmp_path):
    data = tmp_path / "data"
    env = dict(os.environ, QUIN_SERIAL_PORT="", QUIN_DATA_DIR=str(tmp_path / "default"))
    out = quin("serve", "--board", "serial", "--port", "0", "--data-dir", str(data), env=env)
    if "no board found on USB" not in out.stderr:
        pytest.fail(f"a board is plugged in here, or the message changed: {out.stderr}")
    assert not (data / "quin.sqlite3").exists()
