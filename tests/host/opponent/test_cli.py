"""`quin opponent` and `quin match` as a user runs them."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

from engine.actions import action_from_record
from engine.board import BLACK, WHITE
from engine.game import Game
from engine.randplay import random_setup
from engine.record import load_record, replay, to_record

ROOT = Path(__file__).resolve().parents[3]


def quin(*args: str, stdin: str | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "host.cli", *args], cwd=ROOT, input=stdin,
                          capture_output=True, text=True, timeout=300, env=env)


def a_record(tmp_path, actions: int = 30, seed: int = 3, mode: str = "classic") -> tuple[Path, Game]:
    rng = random.Random(seed)
    game = Game(random_setup(rng, WHITE), random_setup(rng, BLACK), mode=mode)
    for _ in range(actions):
        game.push(rng.choice(game.legal_actions()))
    while not game.is_over() and not game.ends_turn(game.log[-1][2]):  # end on a whole turn
        game.push(next(a for a in game.legal_actions() if game.ends_turn(a)))
    assert not game.is_over()
    path = tmp_path / "game.json"
    path.write_text(json.dumps(to_record(game)))
    return path, game


def test_opponent_prints_a_whole_legal_turn_for_the_player_to_move(tmp_path):
    for mode in ("classic", "third_eye"):
        path, game = a_record(tmp_path, mode=mode)
        me = game.to_move
        r = quin("opponent", str(path), "--as", me, "--level", "2", "--seed", "4", "--json")
        assert r.returncode == 0, r.stderr
        out = json.loads(r.stdout)
        assert out["player"] == me and out["level"] == 2
        record = to_record(game)
        record["turns"].append({"player": me, "actions": out["actions"]})
        after = replay(load_record(record))  # the engine checks every action and the turn's shape
        assert after.is_over() or after.to_move != me
        text = quin("opponent", str(path), "--as", me, "--level", "2", "--seed", "4")
        assert text.returncode == 0
        assert text.stdout.split("\n")[0] == str(action_from_record(out["actions"][0]))


def test_opponent_exit_codes(tmp_path):
    path, game = a_record(tmp_path)
    r = quin("opponent", str(path), "--as", "white" if game.to_move == "black" else "black")
    assert r.returncode == 1 and "turn" in r.stderr and "Traceback" not in r.stderr
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "quin-record/1", "mode": "classic"}')
    r = quin("opponent", str(bad), "--as", "white")
    assert r.returncode == 2 and r.stderr.startswith("quin:") and "Traceback" not in r.stderr
    r = quin("opponent", "-", "--as", "white", stdin="not json")
    assert r.returncode == 2
    r = quin("opponent", str(path), "--as", "white", "--level", "9")
    assert r.returncode == 2 and "level" in r.stderr


def test_opponent_after_the_end_of_the_game_exits_1(tmp_path):
    rng = random.Random(8)
    game = Game(random_setup(rng, WHITE), random_setup(rng, BLACK))
    while not game.is_over():
        game.push(rng.choice(game.legal_actions()))
    path = tmp_path / "over.json"
    path.write_text(json.dumps(to_record(game)))
    r = quin("opponent", str(path), "--as", "white")
    assert r.returncode == 1 and "over" in r.stderr


def test_match_reports_wins_losses_draws_and_decision_times():
    r = quin("match", "--white", "1", "--black", "0", "--games", "2", "--mode", "third_eye", "--seed", "3", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["games"] == 2 and out["mode"] == "third_eye"
    assert out["white"]["wins"] + out["black"]["wins"] + out["draws"] == 2
    assert out["white"]["losses"] == out["black"]["wins"]
    for side in ("white", "black"):
        t = out[side]["time"]
        assert t["decisions"] > 0 and t["p50_ms"] <= t["p99_ms"] <= t["max_ms"]
    again = quin("match", "--white", "1", "--black", "0", "--games", "2", "--mode", "third_eye", "--seed", "3", "--json")
    same = json.loads(again.stdout)
    assert (same["white"]["wins"], same["reasons"]) == (out["white"]["wins"], out["reasons"])  # seeded
    text = quin("match", "--white", "2", "--black", "1", "--games", "1")
    assert text.returncode == 0 and "white (level 2)" in text.stdout and "draws" in text.stdout
    assert quin("match", "--white", "1", "--black", "0", "--games", "0").returncode == 2


def test_the_same_seed_gives_the_same_turn_in_every_process(tmp_path):
    """Deterministic for a given seed: nothing may depend on string hashing or memory addresses."""
    path, game = a_record(tmp_path, actions=40, seed=5, mode="third_eye")
    outs = set()
    for hashseed in ("1", "2", "3"):
        env = dict(os.environ, PYTHONHASHSEED=hashseed)
        r = quin("opponent", str(path), "--as", game.to_move, "--level", "5", "--seed", "9", "--json", env=env)
        assert r.returncode == 0, r.stderr
        outs.add(r.stdout)
    assert len(outs) == 1
