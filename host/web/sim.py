"""The virtual board (simulated mode): tapping a space lifts or places a tower.

The virtual board (``host.simboard.SimulatedBoard`` on the real clock) stands
in for the Hall sensors: it knows only which spaces are occupied, exactly as
the real board does.  Each tap becomes a :class:`host.sensing.Snapshot` fed to
the referee, so a whole game can be played in the browser alone.
"""

from __future__ import annotations

import time

from flask import Blueprint, jsonify, render_template

from engine.board import PLAYERS, SPACE_NAMES, START_SPACES, parse_space
from engine.errors import InvalidError

from . import get_table
from .bodies import boolean, json_body
from .errors import ApiError, bad_request

bp = Blueprint("sim", __name__)


def make_virtual_board(manual: bool = False):
    """The simulated board (host.simboard) on the real clock, or (tests) on a manual one."""
    from host.simboard import SimulatedBoard

    return SimulatedBoard() if manual else SimulatedBoard(clock=time.monotonic)


def _board():
    table = get_table()
    if table.board is None:
        raise ApiError(404, "no simulated board: this server reads a real board")
    return table, table.board


def _space(data: dict, key: str = "space") -> int:
    if key not in data:
        raise bad_request(f"missing field {key!r}")
    try:
        return parse_space(data[key])
    except InvalidError as exc:
        raise bad_request(f"{key}: {exc}") from None


@bp.get("/board")
def board_page():
    _board()
    return render_template("board.html")


@bp.get("/api/board")
def board_state():
    table, board = _board()
    return jsonify({"occupied": sorted(SPACE_NAMES[s] for s in board.occupied)})


@bp.post("/api/board/toggle")
def board_toggle():
    """Lift the tower on a space, or place one there."""
    table, board = _board()
    space = _space(json_body(("space",)))
    table.feed(board.toggle(space))
    return jsonify({"occupied": sorted(SPACE_NAMES[s] for s in board.occupied)})


@bp.post("/api/board/set")
def board_set():
    """Set the whole occupancy at once: ``{"occupied": [...]}`` or ``{"start": true}`` (both lineups)."""
    table, board = _board()
    data = json_body(("occupied", "start"))
    if ("start" in data) == ("occupied" in data):
        raise bad_request("expected 'occupied': a list of spaces, or 'start': true")
    if "start" in data:
        if not boolean(data, "start", False):
            raise bad_request("start: only true sets up both lineups")
        spaces = {s for p in PLAYERS for s in START_SPACES[p]}
    else:
        names = data["occupied"]
        if not isinstance(names, list):
            raise bad_request("occupied: expected a list of spaces")
        try:
            spaces = {parse_space(n) for n in names}
        except InvalidError as exc:
            raise bad_request(f"occupied: {exc}") from None
    table.feed(board.set(spaces))
    return jsonify({"occupied": sorted(SPACE_NAMES[s] for s in board.occupied)})
