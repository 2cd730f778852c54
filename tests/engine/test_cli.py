"""`quin replay`, `quin legal` and `quin board`: exit codes, one-line messages, JSON shapes."""

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.actions import action_from_record
from engine.randplay import random_game
from engine.record import load_record, replay, to_record
from host.cli import main

from tests.support.engine_helpers import LEGAL_TURNS, record

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "classic-game.json"


def mv(a, b):
    return {"type": "move", "from": a, "to": b}


def write(tmp_path, data, name="game.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


# --- replay: legal ---------------------------------------------------------------------


def test_replay_legal_record_exits_0(tmp_path, capsys):
    code, out, err = run(capsys, "replay", write(tmp_path, record(LEGAL_TURNS)))
    assert code == 0 and err == ""
    assert out.splitlines()[-1] == "all 4 turns legal; white to move"


def test_replay_json_shape(tmp_path, capsys):
    code, out, err = run(capsys, "replay", write(tmp_path, record(LEGAL_TURNS)), "--json")
    assert code == 0 and err == ""
    assert json.loads(out) == {
        "result": {"status": "ongoing", "winner": None, "reason": None},
        "turns": 4,
        "events": [
            {"type": "flash", "turn": 3, "at": "b51", "attacker": "shadow", "defender": "shadow",
             "outcome": "swap"},
            {"type": "time", "turn": 4, "outcome": "failed"},
        ],
    }


def test_replay_bundled_example(capsys):
    code, out, _ = run(capsys, "replay", str(EXAMPLE), "--json")
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"result", "turns", "events"}
    assert data["result"] == {"status": "won", "winner": "black", "reason": "first_sight"}
    code, out, _ = run(capsys, "replay", str(EXAMPLE))
    # said as the web pages say it (host/commands/engine_cmds.py result_text, quin.js resultText)
    assert out.splitlines()[-1] == "Black wins: Black's Light reaches First Sight (97 turns)"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_replay_random_games_round_trip(tmp_path, capsys, seed):
    game = random_game(seed, max_actions=150)
    code, out, _ = run(capsys, "replay", write(tmp_path, to_record(game)), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["events"] == [e.to_json() for e in game.events]
    expected = game.result.to_json() if game.result else {"status": "ongoing", "winner": None, "reason": None}
    assert data["result"] == expected
    assert data["turns"] == len({turn for turn, _, _ in game.log})


def test_replay_won_and_drawn_results(tmp_path, capsys):
    turns = [("white", [mv("w38", "w36")]), ("black", [mv("b38", "b36")]),
             ("white", [mv("w36", "w34")]), ("black", [mv("b36", "b34")]),
             ("white", [mv("w34", "w32")]), ("black", [mv("b34", "b32")]),
             ("white", [mv("w32", "wi")]), ("black", [mv("b32", "b31")]),
             ("white", [mv("wi", "fs")])]
    code, out, _ = run(capsys, "replay", write(tmp_path, record(turns)), "--json")
    assert code == 0
    assert json.loads(out)["result"] == {"status": "won", "winner": "white", "reason": "first_sight"}


def test_replay_reads_standard_input(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(record(LEGAL_TURNS))))
    code, out, _ = run(capsys, "replay", "-", "--json")
    assert code == 0 and json.loads(out)["turns"] == 4


# --- replay: illegal (exit 1) ------------------------------------------------------------


ILLEGAL = [
    # (turns, expected one-line message)
    (LEGAL_TURNS[:1] + [("black", [mv("b39", "b36")])],
     "turn 2 (black), action 1: move b39-b36 is blocked at b38"),
    ([("white", [mv("w38", "w35")])],
     "turn 1 (white), action 1: move w38-w35 is 3 spaces, but a light moves at most 2"),
    ([("white", [mv("w58", "w51")]), ("black", [mv("b58", "b51")]), ("white", [mv("w51", "fs")])],
     "turn 3 (white), action 1: move w51-fs is not allowed: only Light may land on First Sight"),
    ([("white", [mv("w38", "w28")])],
     "turn 1 (white), action 1: move w38-w28 is not allowed: w28 holds your own tower"),
    ([("black", [mv("b38", "b36")])],
     "turn 1 (black): it is white's turn"),
    ([("white", [])],
     "turn 1 (white): a turn needs a turn-ending action"),
    ([("white", [mv("w38", "w37"), mv("w37", "w36")])],
     "turn 1 (white), action 1: move w38-w37 ends the turn but more actions follow"),
    ([("white", [{"type": "pass"}])],
     "turn 1 (white), action 1: pass is not allowed: a turn-ending action is available"),
    ([("white", [{"type": "time", "at": "w39"}, mv("w38", "w37")])],
     "turn 1 (white), action 1: time at w39 is not allowed: there is no rival action to rewind"),
    ([("white", [{"type": "reinforce", "to": {"w19": "void"}}])],
     "turn 1 (white), action 1: reinforce void at w19 is not allowed: w19 is not empty"),
    ([("white", [{"type": "swap", "memory": "w29", "with": "b29"}])],
     "turn 1 (white), action 1: swap w29 with b29 is not possible: the tower on b29 is not yours"),
    (LEGAL_TURNS[:2] + [("white", [{"type": "time", "at": "w39", "target": "b51", "to": "b52"},
                                   mv("w38", "w37")])],
     "turn 3 (white), action 1: time at w39 pushing b51-b52 is not allowed: Classic Time rewinds; it takes no "
     "target"),
]


@pytest.mark.parametrize("turns,message", ILLEGAL)
def test_replay_illegal_exits_1_with_one_line(tmp_path, capsys, turns, message):
    path = write(tmp_path, record(turns))
    code, out, err = run(capsys, "replay", path)
    assert code == 1
    assert out == ""
    assert err == f"quin: {message}\n"


def test_replay_illegal_json_error(tmp_path, capsys):
    path = write(tmp_path, record(ILLEGAL[0][0]))
    code, out, err = run(capsys, "replay", path, "--json")
    assert code == 1
    assert json.loads(out) == {"error": {"turn": 2, "action": 1, "message": ILLEGAL[0][1]}}


def test_replay_after_the_game_is_over_is_illegal(tmp_path, capsys):
    turns = [("white", [mv("w38", "w36")]), ("black", [mv("b38", "b36")]),
             ("white", [mv("w36", "w34")]), ("black", [mv("b36", "b34")]),
             ("white", [mv("w34", "w32")]), ("black", [mv("b34", "b32")]),
             ("white", [mv("w32", "wi")]), ("black", [mv("b32", "b31")]),
             ("white", [mv("wi", "fs")]), ("black", [mv("b31", "bi")])]
    code, _, err = run(capsys, "replay", write(tmp_path, record(turns)))
    assert code == 1 and err == "quin: turn 10 (black): the game is already over\n"


def test_replay_action_sets_compare_as_sets(tmp_path, capsys):
    """Spec 8: "a reinforcement's `to` mapping is unordered"."""
    data = record([("white", [mv("w28", "w25")]), ("black", [mv("b28", "b25")]),
                   ("white", [mv("w29", "w28")]), ("black", [mv("b29", "b28")]),
                   ("white", [mv("w48", "w45")]), ("black", [mv("b48", "b45")]),
                   ("white", [mv("w49", "w48")]), ("black", [mv("b49", "b48")]),
                   ("white", [{"type": "reinforce", "to": {"w49": "artificial_light",
                                                           "w29": "artificial_light"}}])])
    code, out, err = run(capsys, "replay", write(tmp_path, data), "--json")
    assert (code, err) == (0, "")
    game = replay(load_record(data))
    assert game.log[-1][2].to_record() == {"type": "reinforce", "to": {"w29": "artificial_light",
                                                                       "w49": "artificial_light"}}


# --- replay: malformed (exit 2) -------------------------------------------------------------


def malformed_cases():
    base = record(LEGAL_TURNS)

    def edit(fn):
        data = json.loads(json.dumps(base))
        fn(data)
        return data

    def lineup(player):
        return lambda d: d["setup"][player]["lineup"]

    return [
        ("bad-json", '{"format": "quin-record/1", ', "is not valid JSON: Expecting property name enclosed in "
                                                    "double quotes at line 1, column 29"),
        ("not-utf8", b"\xff\xfe\x00garbage", "is not a UTF-8 text file"),
        ("nested", "[" * 50000 + "]" * 50000, "JSON nested too deeply"),
        ("list", [1, 2], "a record must be a JSON object"),
        ("unknown-top-field", edit(lambda d: d.update(comment="hi")), "unknown field 'comment'"),
        ("format", edit(lambda d: d.update(format="quin-record/2")),
         "format: expected 'quin-record/1', got 'quin-record/2'"),
        ("mode", edit(lambda d: d.update(mode="arcade")), "mode: expected 'classic' or 'third_eye', got 'arcade'"),
        ("vision", edit(lambda d: d.update(vision="yes")), "vision: expected true or false, got 'yes'"),
        ("first", edit(lambda d: d.pop("first")), "first: expected 'white' or 'black', got None"),
        ("unknown-action-field", edit(lambda d: d["turns"][0]["actions"][0].update(piece="shadow")),
         "turn 1 (white), action 1: move: unknown field 'piece'"),
        ("unknown-turn-field", edit(lambda d: d["turns"][1].update(note="x")), "turn 2: unknown field 'note'"),
        ("unknown-space-move", edit(lambda d: d["turns"][2]["actions"][0].update(to="w21")),
         "turn 3 (white), action 1: to: unknown space 'w21'"),
        ("unknown-space-lineup", edit(lambda d: lineup("white")(d).update({"w99": "void"})),
         "setup.white.lineup: unknown space 'w99'"),
        ("wrong-piece-lineup", edit(lambda d: lineup("black")(d).update({"b19": "king"})),
         "setup.black.lineup.b19: unknown piece 'king' (one of light, shadow, artificial_light, reflector, "
         "memory, time, peripheral, void)"),
        ("wrong-piece-resurrect", edit(lambda d: d["turns"][3]["actions"].insert(
            0, {"type": "resurrect", "piece": "Shadow", "to": "w19"})),
         "turn 4 (black), action 1: resurrect.piece: unknown piece 'Shadow'"),
        ("unknown-action-type", edit(lambda d: d["turns"][0]["actions"][0].update(type="jump")),
         "turn 1 (white), action 1: type: unknown action type 'jump'"),
        ("action-type-list", edit(lambda d: d["turns"][0]["actions"][0].update(type=["move"])),
         "turn 1 (white), action 1: type: unknown action type ['move']"),
        ("impossible-setup-al", edit(lambda d: lineup("white")(d).update({"w19": "artificial_light"})),
         "setup.white.lineup: artificial_light may not start on the board"),
        ("impossible-setup-removed", edit(lambda d: d["setup"]["white"].update(removed="light")),
         "setup.white.removed: light may not be removed"),
        ("impossible-setup-clone", edit(lambda d: d["setup"]["black"].update(clone="shadow")),
         "setup.black.clone: 'shadow' is not a clone (one of time, void, memory, artificial_light)"),
        ("impossible-setup-count", edit(lambda d: lineup("white")(d).update({"w19": "light"})),
         "setup.white.lineup: 2 light but only 1 available"),
        ("impossible-setup-missing", edit(lambda d: lineup("white")(d).pop("w58")),
         "setup.white.lineup: w58 must be filled (10 towers start)"),
        ("setup-unknown-field", edit(lambda d: d["setup"]["white"].update(totem="owl")),
         "setup.white: unknown field 'totem'"),
        ("missing-setup", edit(lambda d: d["setup"].pop("black")), "setup: missing 'black'"),
        ("turns-not-list", edit(lambda d: d.update(turns={})), "turns: expected a list of turns"),
        ("actions-not-list", edit(lambda d: d["turns"][0].update(actions="move")),
         "turn 1 (white): actions: expected a list"),
        ("bad-player", edit(lambda d: d["turns"][0].update(player="red")),
         "turn 1: player: expected 'white' or 'black', got 'red'"),
        ("reinforce-empty", edit(lambda d: d["turns"][0].update(actions=[{"type": "reinforce", "to": {}}])),
         "turn 1 (white), action 1: reinforce: 'to' must map one or more spaces to pieces"),
    ]


CASES = malformed_cases()


@pytest.mark.parametrize("name,content,message", CASES, ids=[c[0] for c in CASES])
def test_replay_malformed_exits_2_with_one_line(tmp_path, capsys, name, content, message):
    path = tmp_path / "game.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content if isinstance(content, str) else json.dumps(content))
    code, out, err = run(capsys, "replay", str(path))
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("quin: ")
    assert message in err
    code, out, err = run(capsys, "replay", str(path), "--json")
    assert code == 2 and err == ""
    error = json.loads(out)["error"]
    assert set(error) == {"turn", "action", "message"}
    assert message in error["message"]


def test_replay_malformed_json_error_names_turn_and_action(tmp_path, capsys):
    data = record(LEGAL_TURNS)
    data["turns"][2]["actions"][0]["to"] = "w21"
    code, out, _ = run(capsys, "replay", write(tmp_path, data), "--json")
    assert code == 2
    assert json.loads(out) == {"error": {"turn": 3, "action": 1,
                                         "message": "turn 3 (white), action 1: to: unknown space 'w21'"}}


def test_replay_missing_file(tmp_path, capsys):
    missing = tmp_path / "nope.json"
    code, out, err = run(capsys, "replay", str(missing))
    assert code == 2 and out == ""
    assert err == f"quin: cannot read {missing}: No such file or directory\n"
    code, out, err = run(capsys, "replay", str(tmp_path))  # a directory
    assert code == 2 and err.startswith(f"quin: cannot read {tmp_path}: ") and err.count("\n") == 1
    code, out, err = run(capsys, "legal", str(missing), "--json")
    assert code == 2
    assert json.loads(out) == {"error": {"turn": 0, "action": 0,
                                         "message": f"cannot read {missing}: No such file or directory"}}


# --- legal ---------------------------------------------------------------------------------------


def test_legal_json_lists_the_engines_actions_in_record_form(tmp_path, capsys):
    data = record(LEGAL_TURNS)
    code, out, err = run(capsys, "legal", write(tmp_path, data), "--json")
    assert code == 0 and err == ""
    listed = json.loads(out)
    assert isinstance(listed, list)
    game = replay(load_record(data))
    assert game.to_move == "white"
    assert [action_from_record(a) for a in listed] == game.legal_actions()
    assert {"type": "move", "from": "b51", "to": "b52"} in listed  # the Shadow beyond the Iris
    assert all(a["type"] in {"move", "swap", "reinforce", "resurrect", "reflect", "time"}
               for a in listed)


def test_legal_text_one_action_per_line(tmp_path, capsys):
    data = record(LEGAL_TURNS)
    code, out, _ = run(capsys, "legal", write(tmp_path, data))
    assert code == 0
    game = replay(load_record(data))
    assert out.splitlines() == [str(a) for a in game.legal_actions()]
    assert "move b51-b52" in out.splitlines()


def test_legal_at_the_start_and_after_the_end(tmp_path, capsys):
    code, out, _ = run(capsys, "legal", write(tmp_path, record()), "--json")
    data = json.loads(out)
    assert code == 0 and len(data) == 31
    assert not any(a["type"] == "pass" for a in data)
    code, out, _ = run(capsys, "legal", str(EXAMPLE), "--json")
    assert (code, json.loads(out)) == (0, [])
    code, out, _ = run(capsys, "legal", str(EXAMPLE))
    assert out == "the game is over: no legal actions\n"


def test_legal_on_an_illegal_record_exits_1(tmp_path, capsys):
    code, out, err = run(capsys, "legal", write(tmp_path, record(ILLEGAL[0][0])))
    assert code == 1 and err == f"quin: {ILLEGAL[0][1]}\n"


# --- board ------------------------------------------------------------------------------------------


def test_board_command(capsys):
    code, out, _ = run(capsys, "board")
    assert code == 0 and "fs" in out and "w35" in out
    code, out, _ = run(capsys, "board", "--json")
    assert code == 0 and len(json.loads(out)["spaces"]) == 99


# --- as a real process -----------------------------------------------------------------------------------


def _subprocess(args, cwd):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "host.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60)


def test_cli_as_a_subprocess(tmp_path):
    good = write(tmp_path, record(LEGAL_TURNS), "good.json")
    bad = write(tmp_path, record(ILLEGAL[0][0]), "bad.json")
    broken = write(tmp_path, "{oops", "broken.json")
    p = _subprocess(["replay", good, "--json"], tmp_path)
    assert p.returncode == 0 and json.loads(p.stdout)["turns"] == 4
    p = _subprocess(["replay", bad], tmp_path)
    assert (p.returncode, p.stdout, p.stderr) == (1, "", f"quin: {ILLEGAL[0][1]}\n")
    p = _subprocess(["replay", broken], tmp_path)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "Traceback" not in p.stderr
    assert "is not valid JSON" in p.stderr
    p = _subprocess(["legal", good, "--json"], tmp_path)
    assert p.returncode == 0 and {"type": "move", "from": "b51", "to": "b52"} in json.loads(p.stdout)


def test_replay_a_huge_integer_anywhere_is_malformed(tmp_path, capsys):
    """Issue 10: an integer of 5,000 digits anywhere printed a traceback and exited 1."""
    text = Path("examples/classic-game.json").read_text().replace('"first": "black"', '"first": ' + "9" * 5000, 1)
    path = tmp_path / "big.json"
    path.write_text(text)
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"quin: {path} is not valid JSON: a number of 5000 characters (at most 40)"]
