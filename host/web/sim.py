"""The virtual board (simulated mode): tapping a space lifts or places a tower.

The virtual board (``host.board.simboard.SimulatedBoard`` on the real clock) stands
in for the Hall sensors: it knows only which spaces are occupied, exactly as
the real board does.  Each tap becomes a :class:`host.board.sensing.Snapshot` fed to
the referee, so a whole game can be played in the browser alone.

Moving towers needs the board key (:func:`board_key`, derived from the host
key): the virtual board's link on the host page and in ``quin serve``'s
banner carries it (``/board/<key>``), and the page sends it in the
``X-Board-Key`` header, which another web site cannot set.  ``/board``
without the key shows the board and moves nothing.
"""

from __future__ import annotations

import hashlib
import hmac

from flask import Blueprint, jsonify, render_template, request

from engine.board import PLAYERS, SPACE_NAMES, START_SPACES, parse_space
from engine.errors import InvalidError

from .current import get_table
from .bodies import boolean, json_body
from .errors import ApiError, bad_request

bp = Blueprint("sim", __name__)

HEADER = "X-Board-Key"


def board_key(host_key: str) -> str:
    """The virtual board's key: from the host key, so it lasts as long as that, and cannot give it away."""
    return hmac.new(host_key.encode(), b"quin virtual board", hashlib.sha256).hexdigest()[:32]


def _key_ok(given: str) -> bool:
    host_key = get_table().host_key
    return bool(host_key) and hmac.compare_digest(given.encode("utf-8", "surrogateescape"),
                                                  board_key(host_key).encode())


def _writer():
    """The board for a request that moves towers: it must carry the board key."""
    table, board = _board()
    if not _key_ok(request.headers.get(HEADER, "")):
        raise ApiError(403, "the virtual board moves towers only from its own link (on the host page and in "
                            f"the terminal that started the server): the {HEADER} header is missing or wrong")
    return table, board


def make_virtual_board(manual: bool = False):
    """The simulated board (host.board.simboard) on the real clock, or (tests) on a manual one."""
    from host.board.simboard import SimulatedBoard
    from host.clock import REAL

    return SimulatedBoard() if manual else SimulatedBoard(clock=REAL)


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
    return render_template("board.html", key=None)


@bp.get("/board/<key>")
def board_page_with_key(key: str):
    _board()
    if not _key_ok(key):
        raise ApiError(403, "unknown board key: open the virtual board from the host page or the terminal")
    return render_template("board.html", key=key)


@bp.get("/api/board")
def board_state():
    table, board = _board()
    return jsonify({"occupied": sorted(SPACE_NAMES[s] for s in board.occupied)})


@bp.post("/api/board/toggle")
def board_toggle():
    """Lift the tower on a space, or place one there."""
    table, board = _writer()
    space = _space(json_body(("space",)))
    table.feed(board.toggle(space))
    return jsonify({"occupied": sorted(SPACE_NAMES[s] for s in board.occupied)})


@bp.post("/api/board/set")
def board_set():
    """Set the whole occupancy at once: ``{"occupied": [...]}`` or ``{"start": true}`` (both lineups)."""
    table, board = _writer()
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
