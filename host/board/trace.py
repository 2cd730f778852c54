"""``quin-trace/1``: a recorded stream of raw sensor snapshots and players' inputs (JSON Lines).

Line 1, the header, is a game record without its turns::

    {"format": "quin-trace/1", "mode": "classic", "vision": false, "first": "white",
     "setup": {"white": {...}, "black": {...}}}

then, in time order (``t`` in seconds, never decreasing), one object per line:

    {"t": 0.512, "occupied": ["w19", "w29", ...]}          a raw snapshot, noise included
    {"t": 3.25, "player": "white", "input": {"type": "time"}}   a player's input

:func:`read_trace` validates everything and raises :class:`TraceError` naming
the line and the field; :func:`write_trace` writes one; :class:`TraceSource`
replays the snapshots as a :class:`host.board.sensing.Source`.  Refereeing a trace is the
referee's (``host.referee.traces``): the board's layer knows nothing of it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Iterable, Iterator

from engine.board import PLAYERS, SPACE_IDS, SPACE_NAMES
from engine.errors import quoted
from engine.game import Game
from engine.pieces import Setup
from engine.record import FORMAT as RECORD_FORMAT
from engine.record import ReplayError, load_record, parse_json
from host.board.sensing import Snapshot

FORMAT = "quin-trace/1"
MAX_TIME = 7 * 24 * 3600  # seconds: a trace longer than a week is not a game's
_HEADER_FIELDS = {"format", "mode", "vision", "first", "setup"}


class TraceError(ValueError):
    """A malformed trace: ``line`` is 1-based (0: the file itself)."""

    def __init__(self, message: str, line: int = 0):
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line


@dataclass(frozen=True)
class TraceHeader:
    mode: str
    vision: bool
    first: str
    setups: dict[str, Setup]

    def new_game(self) -> Game:
        return Game(self.setups["white"], self.setups["black"], self.mode, self.vision, self.first)

    def to_json(self) -> dict:
        return {
            "format": FORMAT,
            "mode": self.mode,
            "vision": self.vision,
            "first": self.first,
            "setup": {p: self.setups[p].to_record() for p in PLAYERS},
        }

    @classmethod
    def of_game(cls, game: Game) -> "TraceHeader":
        return cls(game.mode, game.vision, game.first, dict(game.setups))


@dataclass(frozen=True)
class SnapshotLine:
    t: float
    occupied: frozenset[int]
    line: int = 0

    def snapshot(self) -> Snapshot:
        return Snapshot(self.t, self.occupied)

    def to_json(self) -> dict:
        return {"t": round(self.t, 6), "occupied": sorted(SPACE_NAMES[s] for s in self.occupied)}


@dataclass(frozen=True)
class InputLine:
    t: float
    player: str
    input: dict
    line: int = 0

    def to_json(self) -> dict:
        return {"t": round(self.t, 6), "player": self.player, "input": self.input}


@dataclass
class Trace:
    header: TraceHeader
    events: list = field(default_factory=list)  # SnapshotLine | InputLine, in time order


def parse_header(data: object, line: int = 1) -> TraceHeader:
    if not isinstance(data, dict):
        raise TraceError("the header must be a JSON object", line)
    if data.get("format") != FORMAT:
        raise TraceError(f"format: expected {quoted(FORMAT)}, got {quoted(data.get('format'))}", line)
    unknown = set(data) - _HEADER_FIELDS
    if unknown:
        raise TraceError(f"unknown field {quoted(sorted(unknown)[0])}", line)
    for key in ("mode", "first", "setup"):
        if key not in data:
            raise TraceError(f"missing field {quoted(key)}", line)
    as_record = {k: v for k, v in data.items() if k != "format"}
    as_record.update(format=RECORD_FORMAT, turns=[])
    try:
        record = load_record(as_record)
    except ReplayError as exc:
        raise TraceError(str(exc), line) from None
    return TraceHeader(record.mode, record.vision, record.first, dict(record.setups))


def _time(data: dict, line: int, last: float) -> float:
    t = data.get("t")
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not -MAX_TIME <= t <= MAX_TIME \
            or not math.isfinite(t):
        raise TraceError(f"t: expected a number of seconds up to {MAX_TIME} (a week), got {quoted(t)}", line)
    if t < 0:
        raise TraceError(f"t: must not be negative, got {quoted(t)}", line)
    if t < last:
        raise TraceError(f"t: {t} is earlier than the line before ({last})", line)
    return float(t)


def parse_event(data: object, line: int, last: float) -> SnapshotLine | InputLine:
    if not isinstance(data, dict):
        raise TraceError("expected a JSON object", line)
    if "t" not in data:
        raise TraceError("missing field 't'", line)
    if "occupied" in data:
        extra = set(data) - {"t", "occupied"}
        if extra:
            raise TraceError(f"unknown field {quoted(sorted(extra)[0])}", line)
        t = _time(data, line, last)
        names = data["occupied"]
        if not isinstance(names, list):
            raise TraceError("occupied: expected a list of space ids", line)
        spaces = []
        for name in names:
            space = SPACE_IDS.get(name) if isinstance(name, str) else None
            if space is None:
                raise TraceError(f"occupied: unknown space {quoted(name)}", line)
            spaces.append(space)
        return SnapshotLine(t, frozenset(spaces), line)
    if "player" in data or "input" in data:
        extra = set(data) - {"t", "player", "input"}
        if extra:
            raise TraceError(f"unknown field {quoted(sorted(extra)[0])}", line)
        t = _time(data, line, last)
        player = data.get("player")
        if player not in PLAYERS:
            raise TraceError(f"player: expected 'white' or 'black', got {quoted(player)}", line)
        if "input" not in data:
            raise TraceError("missing field 'input'", line)
        value = data["input"]
        if not isinstance(value, dict) or not isinstance(value.get("type"), str):
            raise TraceError("input: expected an object with a 'type'", line)
        return InputLine(t, player, value, line)
    extra = set(data) - {"t"}
    if extra:
        raise TraceError(f"unknown field {quoted(sorted(extra)[0])}", line)
    raise TraceError("expected 'occupied' (a snapshot) or 'player' and 'input' (an input)", line)


def read_trace(source: str | Path | IO[str] | Iterable[str]) -> Trace:
    """Read and validate a whole trace.  TraceError names the line and the field."""
    if isinstance(source, (str, Path)):
        try:
            with open(source, encoding="utf-8") as fp:
                return read_trace(fp.readlines())
        except OSError as exc:
            raise TraceError(f"cannot read {source}: {exc.strerror or exc}") from None
        except UnicodeDecodeError:
            raise TraceError(f"{source} is not a UTF-8 text file") from None
    header = None
    events: list = []
    last = 0.0
    for number, text in enumerate(source, 1):
        if not text.strip():
            continue
        try:
            data = parse_json(text)
        except ValueError as exc:
            raise TraceError(f"not valid JSON: {exc}", number) from None
        if header is None:
            header = parse_header(data, number)
            continue
        event = parse_event(data, number, last)
        last = event.t
        events.append(event)
    if header is None:
        raise TraceError("the trace is empty: expected a header line", 1)
    return Trace(header, events)


def write_trace(trace: Trace, fp: IO[str]) -> None:
    fp.write(json.dumps(trace.header.to_json(), separators=(",", ":")) + "\n")
    for event in trace.events:
        fp.write(json.dumps(event.to_json(), separators=(",", ":")) + "\n")


def trace_text(trace: Trace) -> str:
    import io

    buf = io.StringIO()
    write_trace(trace, buf)
    return buf.getvalue()


class TraceSource:
    """Replays a trace's snapshots as a :class:`host.board.sensing.Source` (inputs via :meth:`inputs`)."""

    def __init__(self, trace: Trace | str | Path):
        self.trace = trace if isinstance(trace, Trace) else read_trace(trace)
        self._snaps: Iterator[SnapshotLine] = (e for e in self.trace.events if isinstance(e, SnapshotLine))
        self._closed = False

    def read(self, timeout: float | None = None) -> Snapshot | None:
        if self._closed:
            return None
        line = next(self._snaps, None)
        return None if line is None else line.snapshot()

    def inputs(self) -> list[InputLine]:
        return [e for e in self.trace.events if isinstance(e, InputLine)]

    def close(self) -> None:
        self._closed = True


__all__ = [
    "FORMAT",
    "Trace",
    "TraceHeader",
    "SnapshotLine",
    "InputLine",
    "TraceError",
    "read_trace",
    "write_trace",
    "trace_text",
    "TraceSource",
]
