"""quin-trace/1: reading, writing, validation errors, replay, and the `quin referee` command."""

import io
import json
from pathlib import Path

import pytest

from engine.randplay import random_game
from engine.record import load_record, replay, to_record
from host.cli import main
from host.simulate import simulate
from host.board.trace import (
    InputLine,
    SnapshotLine,
    TraceError,
    TraceHeader,
    TraceSource,
    read_trace,
    trace_text,
    write_trace,
)
from host.referee.traces import referee_trace


@pytest.fixture(scope="module")
def played():
    return random_game(11, "classic", 60)


@pytest.fixture(scope="module")
def trace(played):
    return simulate(played, seed=3, noise="medium")


def lines_of(trace):
    return trace_text(trace).splitlines(keepends=True)


def test_a_trace_round_trips_through_its_text(trace):
    again = read_trace(lines_of(trace))
    assert again.header == trace.header
    assert [(type(e), e.t) for e in again.events] == [(type(e), round(e.t, 6)) for e in trace.events]
    assert again.events[3].line == 5  # line numbers are kept for messages
    header = json.loads(lines_of(trace)[0])
    assert header["format"] == "quin-trace/1" and set(header) == {"format", "mode", "vision", "first", "setup"}


def test_the_header_is_a_record_without_turns(played, trace):
    record = to_record(played)
    header = trace.header.to_json()
    assert {k: v for k, v in record.items() if k not in ("format", "turns")} == \
        {k: v for k, v in header.items() if k != "format"}


def test_a_trace_file_referees_to_the_played_record(tmp_path, played, trace):
    path = tmp_path / "game.trace"
    with open(path, "w", encoding="utf-8") as fp:
        write_trace(trace, fp)
    run = referee_trace(read_trace(path))
    assert run.complete and to_record(run.referee.game) == to_record(played)


def test_trace_source_yields_the_snapshots_in_order(trace):
    source = TraceSource(trace)
    snaps = []
    while (s := source.read(0)) is not None:
        snaps.append(s)
    want = [e for e in trace.events if isinstance(e, SnapshotLine)]
    assert [(s.t, s.occupied) for s in snaps] == [(e.t, e.occupied) for e in want]
    assert source.inputs() == [e for e in trace.events if isinstance(e, InputLine)]
    source.close()
    assert TraceSource(trace).read() is not None


HEADER = json.dumps(TraceHeader.of_game(random_game(11, "classic", 0)).to_json())


@pytest.mark.parametrize(
    "body, line, message",
    [
        ([], 1, "header"),
        (['{"format": "quin-trace/2"}'], 1, "format"),
        (["not json"], 1, "not valid JSON"),
        (["HEADER", '{"t": 0, "occupied": ["w19"], "x": 1}'], 2, "unknown field 'x'"),
        (["HEADER", '{"t": -1, "occupied": []}'], 2, "t: must not be negative"),
        (["HEADER", '{"t": "soon", "occupied": []}'], 2, "t: expected a number"),
        (["HEADER", '{"t": 2, "occupied": []}', '{"t": 1, "occupied": []}'], 3, "t: 1 is earlier"),
        (["HEADER", '{"t": 0, "occupied": ["w99"]}'], 2, "occupied: unknown space 'w99'"),
        (["HEADER", '{"t": 0, "occupied": "w19"}'], 2, "occupied: expected a list"),
        (["HEADER", '{"occupied": []}'], 2, "missing field 't'"),
        (["HEADER", '{"t": 0, "player": "green", "input": {"type": "time"}}'], 2, "player"),
        (["HEADER", '{"t": 0, "player": "white", "input": 3}'], 2, "input: expected an object"),
        (["HEADER", '{"t": 0}'], 2, "expected 'occupied'"),
        (["HEADER", "[1, 2]"], 2, "expected a JSON object"),
    ],
)
def test_malformed_traces_name_the_line_and_the_field(body, line, message):
    text = [b.replace("HEADER", HEADER) + "\n" for b in body]
    with pytest.raises(TraceError) as err:
        read_trace(text)
    assert err.value.line == line
    assert message in str(err.value) and str(err.value).startswith(f"line {line}: ")


def test_a_bad_setup_in_the_header_is_a_malformed_trace():
    header = json.loads(HEADER)
    header["setup"]["white"]["clone"] = "dragon"
    with pytest.raises(TraceError, match="line 1: .*clone"):
        read_trace([json.dumps(header)])


# --- the command line ---------------------------------------------------------------------------


def write(tmp_path, trace, name="t.trace"):
    path = tmp_path / name
    path.write_text(trace_text(trace), encoding="utf-8")
    return str(path)


def test_quin_referee_prints_the_record_and_exits_0(tmp_path, capsys, played, trace):
    assert main(["referee", "--trace", write(tmp_path, trace)]) == 0
    out = capsys.readouterr().out
    assert json.loads(out) == to_record(played)
    assert main(["referee", "--trace", write(tmp_path, trace), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "complete" and data["record"] == to_record(played) and data["stuck"] is None


def test_quin_referee_says_when_and_on_what_it_got_stuck_and_exits_1(tmp_path, capsys, trace):
    cut = trace.events[: len(trace.events) // 2]
    # stop in the middle of an action: after a lift
    while cut and not (isinstance(cut[-1], SnapshotLine) and len(cut[-1].occupied) < len(cut[-2].occupied)):
        cut.pop()
    part = type(trace)(trace.header, cut)
    assert main(["referee", "--trace", write(tmp_path, part)]) == 1
    captured = capsys.readouterr()
    assert json.loads(captured.out)["format"] == "quin-record/1"  # the game so far
    assert captured.err.startswith(f"quin: stuck at t={cut[-1].t:.3f} s, waiting for ")
    assert main(["referee", "--trace", write(tmp_path, part), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "stuck" and data["stuck"]["t"] == pytest.approx(cut[-1].t)
    assert data["stuck"]["waiting_for"]


def test_quin_referee_exits_2_on_a_malformed_trace_with_one_line(tmp_path, capsys):
    path = tmp_path / "bad.trace"
    path.write_text(HEADER + "\n" + '{"t": 0, "occupied": ["nowhere"]}\n', encoding="utf-8")
    assert main(["referee", "--trace", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"quin: {path}: line 2: occupied: unknown space 'nowhere'"
    assert main(["referee", "--trace", str(tmp_path / "missing.trace")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["referee", "--trace", str(path), "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["status"] == "malformed"


def test_rejected_inputs_in_a_trace_are_noted_not_fatal(tmp_path, capsys, played, trace):
    # the player not to move names an action of the mover's: refused, noted, and the run goes on
    illegal = {"type": "choose", "action": played.legal_actions()[0].to_record()}
    extra = InputLine(trace.events[-1].t + 1, "white" if played.to_move == "black" else "black", illegal)
    with_extra = type(trace)(trace.header, list(trace.events) + [extra])
    assert main(["referee", "--trace", write(tmp_path, with_extra)]) == 0
    err = capsys.readouterr().err
    assert f"input was rejected: it is {played.to_move}'s turn" in err


def test_a_held_word_refused_once_the_board_settled_is_reported_with_its_line(tmp_path, capsys, played, trace):
    # A word said while a tower is still landing is held, and refused only once the board settled:
    # a private "rejected" notice, no exception.  It is still a refused input of the trace's.
    bad = {"type": "choose", "action": {"type": "move", "from": "w35", "to": "w35"}}
    mid = next(i for i, e in enumerate(trace.events) if isinstance(e, SnapshotLine) and i > len(trace.events) // 2)
    # 10 ms (or less) after a board change: unsettled for the mover, before the next line
    t = min(trace.events[mid].t + 0.01, (trace.events[mid].t + trace.events[mid + 1].t) / 2)
    # both are held: the mover's until the board settled, the other player's for their own turn (said
    # as the mover's change lands: issue 31, docs/referee.md "Every word belongs to the turn its speaker
    # meant"), each refused then with the engine's reason
    extra = [InputLine(t, p, bad) for p in ("white", "black")]
    events = list(trace.events[:mid + 1]) + extra + list(trace.events[mid + 1:])
    path = write(tmp_path, type(trace)(trace.header, events))
    run = referee_trace(read_trace(path))
    assert run.referee.game.log == played.log  # refusing it lost nothing
    lines = [i + 1 for i, text in enumerate(open(path, encoding="utf-8")) if '"w35"' in text and '"choose"' in text]
    assert sorted(r[0] for r in run.rejected_inputs) == lines and len(lines) == 2
    held = [r for r in run.rejected_inputs if r[3].startswith("choose")]
    assert len(held) == 2 and all(r[1] == pytest.approx(t, abs=1e-3) for r in held)
    assert {r[2] for r in held} == {"white", "black"}
    assert main(["referee", "--trace", path]) == 0
    err = capsys.readouterr().err
    for line, _, who, _ in held:
        assert f"line {line} " in err and f"{who}'s input was rejected: choose" in err


def test_quin_simulate_writes_a_trace_that_referees_back(tmp_path, capsys, played):
    record = tmp_path / "game.json"
    record.write_text(json.dumps(to_record(played)), encoding="utf-8")
    out = tmp_path / "sim.trace"
    assert main(["simulate", str(record), "--seed", "5", "--noise", "high", "-o", str(out)]) == 0
    assert main(["referee", "--trace", str(out)]) == 0
    assert json.loads(capsys.readouterr().out) == to_record(played)
    assert main(["simulate", str(record), "--seed", "5", "--noise", "high"]) == 0
    assert capsys.readouterr().out == out.read_text(encoding="utf-8")  # seeded: the same trace


def test_quin_simulate_refuses_bad_records(tmp_path, capsys, played):
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    assert main(["simulate", str(bad)]) == 2
    assert "not valid JSON" in capsys.readouterr().err
    record = to_record(played)
    record["turns"][0]["player"] = "black" if record["turns"][0]["player"] == "white" else "white"
    bad.write_text(json.dumps(record), encoding="utf-8")
    assert main(["simulate", str(bad)]) == 1
    assert "turn 1" in capsys.readouterr().err


def test_reading_from_standard_input(monkeypatch, capsys, played, trace):
    monkeypatch.setattr("sys.stdin", io.StringIO(trace_text(trace)))
    assert main(["referee", "--trace", "-"]) == 0
    assert json.loads(capsys.readouterr().out) == to_record(played)


def test_the_bundled_example_trace_referees_to_the_example_game(capsys):
    root = Path(__file__).resolve().parents[3]
    assert main(["referee", "--trace", str(root / "examples" / "classic-game.trace")]) == 0
    got = json.loads(capsys.readouterr().out)
    want = to_record(replay(load_record(json.loads((root / "examples" / "classic-game.json").read_text()))))
    assert got == want


# --- issue 10: huge numbers and absurd times are malformed (exit 2, one line) ----------------------


@pytest.mark.parametrize("event, message", [
    ('{"t": ' + "1" * 400 + ', "occupied": []}', "a number of 400 characters"),
    ('{"t": 1e16, "occupied": []}', "t: expected a number of seconds up to 604800"),
    ('{"t": 1, "occupied": [], "x": ' + "7" * 5000 + "}", "a number of 5000 characters"),
    ('{"t": 1, "player": "white", "input": {"type": "choose", "n": -' + "9" * 5000 + "}}", "a number of 5001"),
])
def test_huge_numbers_and_absurd_times_are_malformed(tmp_path, capsys, event, message):
    header = Path("examples/classic-game.trace").read_text().splitlines()[0]
    path = tmp_path / "bad.trace"
    path.write_text(header + "\n" + event + "\n")
    assert main(["referee", "--trace", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0] and "Traceback" not in err[0], err
