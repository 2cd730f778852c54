"""Issue 18, Files: a record or trace over its documented size is refused in one line (no
MemoryError on /dev/zero), and an error quotes at most a short prefix of a bad value."""

import json
import subprocess
from pathlib import Path

import pytest

from engine.errors import QUOTE_LIMIT, bounded, quoted
from host.commands.files import MAX_RECORD, MAX_TRACE
from tests.support.engine_helpers import LEGAL_TURNS, record

from tests.support.quin_cmd import QUIN

ROOT = Path(__file__).resolve().parents[2]
BIG = 1_000_000


def quin(*args, stdin=None):
    return subprocess.run([*QUIN, *args], cwd=ROOT, capture_output=True, text=True, timeout=60, stdin=stdin)


def one_line(out) -> str:
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr, out.stderr[:2000]
    return lines[0]


@pytest.mark.parametrize("args, limit, what", [
    (("replay", "/dev/zero"), MAX_RECORD, "game record"),
    (("legal", "/dev/zero"), MAX_RECORD, "game record"),
    (("referee", "--trace", "/dev/zero"), MAX_TRACE, "trace"),
    (("simulate", "/dev/zero"), MAX_RECORD, "game record"),
])
def test_dev_zero_is_refused_in_one_line(args, limit, what):
    out = quin(*args)
    assert out.returncode == 2
    assert one_line(out) == f"quin: /dev/zero is larger than {limit // 2**20} MB, the most a {what} may be"


def test_standard_input_over_the_limit_is_refused(tmp_path):
    big = tmp_path / "big"
    big.write_bytes(b" " * (MAX_RECORD + 1))
    with big.open("rb") as fp:
        out = quin("replay", "-", stdin=fp)
    assert out.returncode == 2 and one_line(out).startswith("quin: standard input is larger than 4 MB")


def test_a_record_at_the_limit_is_read(tmp_path):
    """The limit refuses only what is over it: a record padded to exactly MAX_RECORD bytes replays."""
    text = json.dumps(record(LEGAL_TURNS))
    path = tmp_path / "game.json"
    path.write_text(text + " " * (MAX_RECORD - len(text)))
    assert path.stat().st_size == MAX_RECORD
    out = quin("replay", str(path))
    assert out.returncode == 0, out.stderr


def edited(tmp_path, fn) -> str:
    data = record(LEGAL_TURNS)
    fn(data)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(data))
    return str(path)


@pytest.mark.parametrize("name, fn, start", [
    ("piece", lambda d: d["setup"]["black"]["lineup"].update(b19="k" * BIG),
     "quin: setup.black.lineup.b19: unknown piece 'kkkk"),
    ("space-key", lambda d: d["setup"]["black"]["lineup"].update({"b" * BIG: "void"}),
     "quin: setup.black.lineup: unknown space 'bbbb"),
    ("move-to", lambda d: d["turns"][0]["actions"][0].update(to="w" * BIG),
     "quin: turn 1 (white), action 1: to: unknown space 'wwww"),
    ("field", lambda d: d.update({"f" * BIG: 1}), "quin: unknown field 'ffff"),
    ("mode", lambda d: d.update(mode="m" * BIG), "quin: mode: expected 'classic' or 'third_eye', got 'mmmm"),
])
def test_a_huge_bad_value_is_quoted_as_a_short_prefix(tmp_path, name, fn, start):
    """Issue 18: a 1 MB piece name made a 1 MB error line."""
    out = quin("replay", edited(tmp_path, fn))
    line = one_line(out)
    assert out.returncode == 2 and line.startswith(start), line[:200]
    assert f"… ({BIG} characters)" in line and len(line) < 300


def test_a_huge_bad_value_in_a_trace_is_quoted_short(tmp_path):
    header = {"format": "quin-trace/1", "mode": "classic", "vision": False, "first": "white",
              "setup": record(LEGAL_TURNS)["setup"]}
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(header) + "\n" + json.dumps({"t": 0, "occupied": ["q" * BIG]}) + "\n")
    out = quin("referee", "--trace", str(path))
    line = one_line(out)
    assert out.returncode == 2 and "unknown space 'qqqq" in line and len(line) < 300, line[:300]


def test_quoted_and_bounded():
    assert quoted("king") == "'king'" and quoted(["move"]) == "['move']" and quoted(None) == "None"
    long = quoted("x" * BIG)
    assert long == repr("x" * QUOTE_LIMIT) + f"… ({BIG} characters)"
    assert quoted(list(range(BIG))) == f"a list of {BIG} items"
    assert quoted({"a": "y" * BIG}) == "an object of 1 item"
    assert quoted(10 ** 4000).startswith("1000") and "characters" in quoted(10 ** 4000)
    line = bounded("a\nb" + "z" * BIG)
    assert "\n" not in line and len(line) <= 400 and line.startswith("a b")
