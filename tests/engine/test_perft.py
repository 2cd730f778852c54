"""Perft-style counts: fixed positions (as quin-record/1 records) and their exact numbers of
legal actions at depth 1 and action sequences at depth 2.

The data files live in ``perft/*.json``: ``record`` (setups and the turns
played), ``to_move``, ``depth`` {"1": n, "2": n}, ``features`` (kinds of
action that must be among the legal ones) and, optionally, ``must_include``
(record-form actions that must be legal).  Depth 2 counts, for every legal
action, the legal actions after it (the same player's again after a
non-ending action).

Four small positions are also enumerated by hand below, every expected action
written out, so the counts do not rest on the engine agreeing with itself.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from engine.actions import Gravity, Move, Reflect, Reinforce, Resurrect, Swap, Time
from engine.board import SPACE_NAMES
from engine.record import load_record, replay

HERE = Path(__file__).parent / "perft"
FILES = sorted(HERE.glob("*.json"))


def load(name: str) -> dict:
    return json.loads((HERE / f"{name}.json").read_text())


def game_of(data: dict):
    return replay(load_record(data["record"]))


def canon(records) -> Counter:
    return Counter(json.dumps(r, sort_keys=True) for r in records)


def depth2(game) -> int:
    n = 0
    for a in game.legal_actions():
        game.push(a)
        n += len(game.legal_actions())
        game.pop()
    return n


def _key(name: str):
    if name in ("wi", "bi", "fs"):
        return None
    if name[0] == "h":
        return ("h" + name[1], int(name[2]), "h")
    return (name[1], int(name[2]), name[0])


def is_diagonal(game, a) -> bool:
    """A Peripheral move that changes both ring and line within one half (or to/from the Horizon)."""
    if type(a) is not Move or game.piece[game.state.board[a.frm]] != "peripheral":
        return False
    f, t = _key(SPACE_NAMES[a.frm]), _key(SPACE_NAMES[a.to])
    if f is None or t is None:
        return False
    if f[2] != "h" and t[2] != "h" and f[2] != t[2]:
        return False
    return f[0] != t[0] and f[1] != t[1]


def features(game) -> set[str]:
    kinds = {Time: "time", Resurrect: "resurrect", Gravity: "gravity", Reflect: "reflect", Swap: "swap",
             Reinforce: "reinforce"}
    found = set()
    for a in game.legal_actions():
        if type(a) in kinds:
            found.add(kinds[type(a)])
        if type(a) is Reinforce and len(a.placements) > 1:
            found.add("reinforce_many")
        if is_diagonal(game, a):
            found.add("diagonal")
    return found


def test_there_are_several_positions_of_each_mode():
    modes = Counter(json.loads(f.read_text())["record"]["mode"] for f in FILES)
    assert modes["classic"] >= 4 and modes["third_eye"] >= 6


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_perft(path):
    data = json.loads(path.read_text())
    game = game_of(data)
    assert game.to_move == data["to_move"] and not game.is_over()
    acts = game.legal_actions()
    assert len(set(acts)) == len(acts)
    assert len(acts) == data["depth"]["1"]
    assert set(data["features"]) <= features(game)
    legal = canon(a.to_record() for a in acts)
    for rec in data.get("must_include", []):
        assert json.dumps(rec, sort_keys=True) in legal
    if "2" in data["depth"]:
        assert depth2(game) == data["depth"]["2"]


# --- hand enumerations -------------------------------------------------------------------------


def move(a, b):
    return {"type": "move", "from": a, "to": b}


def swap(m, o):
    return {"type": "swap", "memory": m, "with": o}


def grav(anchor, frm, to):
    return {"type": "gravity", "void": anchor, "moves": {frm: to}}


def check_hand(name: str, expected: list[dict]) -> None:
    data = load(name)
    game = game_of(data)
    got = canon(a.to_record() for a in game.legal_actions())
    want = canon(expected)
    assert len(expected) == data["depth"]["1"]
    assert got == want, (sorted(got - want), sorted(want - got))


def test_hand_classic_start_voids_memory():
    """White: Voids on w18..w58; Light, Shadow, Shadow, Reflector, Memory on w19..w59.
    Each Void steps forward (Ring 8 and the Gateways are full); the Memory swaps with each of its
    nine neighbours on its half (Classic: a swap ends the turn); the Reflector on line 4 has no
    Light on its line; no Time, no reserve space, nothing captured: 5 + 9 = 14."""
    expected = [
        move("w18", "w17"), move("w28", "w27"), move("w38", "w37"), move("w48", "w47"),
        move("w58", "w57"),
        swap("w59", "w18"), swap("w59", "w28"), swap("w59", "w38"), swap("w59", "w48"),
        swap("w59", "w58"), swap("w59", "w19"), swap("w59", "w29"), swap("w59", "w39"),
        swap("w59", "w49"),
    ]
    check_hand("classic-start-voids-memory", expected)


def test_hand_classic_time_reply():
    """Black: Voids on b18 b28 b48 b58 b59, Time on b38, Light, Shadows, Reflector on the other
    Gateways; no Memory.  After White's Void w18-w17: five forward steps (b38 is a Time, range 1)
    and the Classic Power of Time against White's move (no capture, not on the Iris): 6."""
    expected = [
        move("b18", "b17"), move("b28", "b27"), move("b38", "b37"), move("b48", "b47"),
        move("b58", "b57"),
        {"type": "time", "at": "b38"},
    ]
    check_hand("classic-time-reply", expected)


def test_hand_third_eye_start_gravity():
    """White (Third Eye): Voids on w18 w28 w48 w58, Peripheral on w38; Light, Shadows, Reflector,
    Memory on the Gateways.  Moves: four Void steps; the Peripheral w37 w36 w35 straight and the
    diagonals w37-then-w27/w47 (w28 and w48 are full): 9.  Swaps (not turn-ending): 9.  Gravity:
    each Void anchor has one empty neighbour (its Ring 7 space) and three other Voids to pull
    there: 4 x 3 = 12.  Total 30."""
    voids = ["w18", "w28", "w48", "w58"]
    expected = [
        move("w18", "w17"), move("w28", "w27"), move("w48", "w47"), move("w58", "w57"),
        move("w38", "w37"), move("w38", "w36"), move("w38", "w35"), move("w38", "w27"),
        move("w38", "w47"),
        swap("w59", "w18"), swap("w59", "w28"), swap("w59", "w38"), swap("w59", "w48"),
        swap("w59", "w58"), swap("w59", "w19"), swap("w59", "w29"), swap("w59", "w39"),
        swap("w59", "w49"),
        grav("w18", "w28", "w17"), grav("w18", "w48", "w17"), grav("w18", "w58", "w17"),
        grav("w28", "w18", "w27"), grav("w28", "w48", "w27"), grav("w28", "w58", "w27"),
        grav("w48", "w18", "w47"), grav("w48", "w28", "w47"), grav("w48", "w58", "w47"),
        grav("w58", "w18", "w57"), grav("w58", "w28", "w57"), grav("w58", "w48", "w57"),
    ]
    assert sum(1 for e in expected if e["type"] == "gravity") == len(voids) * 3
    check_hand("third-eye-start-gravity", expected)


def test_hand_third_eye_time_reply():
    """Black (Third Eye) after White's Void w18-w17: five forward steps; Gravity from b18, b28,
    b48, b58 (one empty neighbour each, four other Voids each; b59's only neighbour b58 is full):
    16; Time on b38 pushes White's w17 back toward White's Gateways: only to w18 (w19 is full);
    every other White tower has a full space behind it.  Total 22."""
    expected = [
        move("b18", "b17"), move("b28", "b27"), move("b38", "b37"), move("b48", "b47"),
        move("b58", "b57"),
        {"type": "time", "at": "b38", "target": "w17", "to": "w18"},
    ]
    expected += [
        grav("b18", "b28", "b17"), grav("b18", "b48", "b17"), grav("b18", "b58", "b17"),
        grav("b18", "b59", "b17"),
        grav("b28", "b18", "b27"), grav("b28", "b48", "b27"), grav("b28", "b58", "b27"),
        grav("b28", "b59", "b27"),
        grav("b48", "b18", "b47"), grav("b48", "b28", "b47"), grav("b48", "b58", "b47"),
        grav("b48", "b59", "b47"),
        grav("b58", "b18", "b57"), grav("b58", "b28", "b57"), grav("b58", "b48", "b57"),
        grav("b58", "b59", "b57"),
    ]
    assert len(expected) == 22
    check_hand("third-eye-time-reply", expected)
