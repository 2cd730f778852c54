"""A seat's way to end a remote game: resign (after the phone asked "Resign this game?"), claim
a game the rival abandoned, or call off a game not begun (after the phone asked "Call off this
game?") (host/remote/ending.py)."""

from __future__ import annotations

from flask import Blueprint, jsonify

from host.session.table import TableError

from .current import get_table
from .bodies import json_body
from .errors import bad_request
from .seats import acting_player

bp = Blueprint("remote_end", __name__)


@bp.post("/api/seat/<token>/remote-end")
def seat_remote_end(token: str):
    """``{"end": "resign" | "claim" | "call_off"}``: sent to the hub; its answer comes back as the game's end."""
    from host.remote.ending import end_remote

    player = acting_player(token)
    data = json_body()
    if not isinstance(data, dict) or set(data) != {"end"}:
        raise bad_request("end: {\"end\": \"resign\"}, {\"end\": \"claim\"} or {\"end\": \"call_off\"} is expected")
    table = get_table()
    try:
        end_remote(table, player, data["end"])
    except TableError as exc:
        raise bad_request(str(exc)) from None
    return jsonify(table.answer(player))
