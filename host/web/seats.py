"""The two seats: a player's phone page, their private state, their inputs and setup.

A seat is a token of 192 random bits (``secrets``), compared in constant time.
GET requests carry it in the URL (the QR code); a state-changing request must
also carry it in the ``X-Seat-Token`` header, which another web page cannot
set on a cross-site request, so no other site can act for a player.
"""

from __future__ import annotations

import hmac

from flask import Blueprint, jsonify, render_template, request

from host.session.table import TableError, check_who

from .current import get_table
from .bodies import json_body
from .errors import bad_request, forbidden

bp = Blueprint("seats", __name__)

HEADER = "X-Seat-Token"


def seat_player(token: str) -> str:
    player = get_table().seat_of(token)
    if player is None:
        raise forbidden()
    return player


def acting_player(token: str) -> str:
    """The player for a state-changing request: path token and header must agree."""
    player = seat_player(token)
    header = request.headers.get(HEADER, "")
    if not hmac.compare_digest(header.encode("utf-8", "surrogateescape"), token.encode("utf-8", "surrogateescape")):
        raise forbidden(f"a seat's input must carry its token in the {HEADER} header")
    return player


@bp.get("/seat/<token>")
def seat_page(token: str):
    player = seat_player(token)
    return render_template("seat.html", player=player, token=token)


@bp.get("/api/seat/<token>/state")
def seat_state(token: str):
    return jsonify(get_table().state(seat_player(token)))


@bp.post("/api/seat/<token>/input")
def seat_input(token: str):
    player = acting_player(token)
    data = json_body()
    table = get_table()
    try:
        table.input(player, data)
    except TableError as exc:
        raise bad_request(str(exc)) from None
    except ValueError as exc:  # the referee's InputError and the engine's errors
        raise bad_request(str(exc)) from None
    return jsonify(table.answer(player))


@bp.post("/api/seat/<token>/setup")
def seat_setup(token: str):
    """The lineup, and optionally who plays it: ``"player": {"name": ..., "code": ...}`` (the
    name is shown to everyone; a player code from the club's hub ties the game to a rating)."""
    player = acting_player(token)
    data = json_body()
    table = get_table()
    try:
        who = None
        if isinstance(data, dict) and "player" in data:
            data = dict(data)
            who = _known_at_hub(table, check_who(data.pop("player")))
        table.submit_setup(player, data, who)
    except TableError as exc:
        raise bad_request(str(exc)) from None
    return jsonify(table.answer(player))


def _known_at_hub(table, who: tuple[str | None, str | None]) -> tuple[str | None, str | None]:
    """A player code checked with the hub when it is reached: an unknown one is refused in one
    line; the hub's name for a known one fills an empty name.  A hub not reached now takes the
    code as given (the hub rates the game by it if it knows it, else keeps the name unrated)."""
    name, code = who
    if code is None:
        return who
    pusher = table.hub_pusher
    if pusher is None:
        raise TableError("Player code: this table sends its games to no club hub, so a code counts for nothing "
                         "here; leave it empty")
    known, hub_name = pusher.check_code(code)
    if known is False:
        raise TableError(f"Player code: the club's hub does not know {code}; check it with whoever runs the hub, "
                         "or leave it empty to play unrated")
    return (name or hub_name), code


@bp.post("/api/seat/<token>/resign")
def seat_resign(token: str):
    """The seat's player resigns the game being played here (the phone asked first); the rival wins."""
    player = acting_player(token)
    json_body(())
    table = get_table()
    try:
        table.resign(player)
    except TableError as exc:
        raise bad_request(str(exc)) from None
    return jsonify(table.answer(player))


@bp.post("/api/seat/<token>/again")
def seat_again(token: str):
    """Play again, once the game is over: it starts when both phones have asked (the loser moves first)."""
    player = acting_player(token)
    json_body(())
    table = get_table()
    try:
        table.play_again(player)
    except TableError as exc:
        raise bad_request(str(exc)) from None
    return jsonify(table.answer(player))
