"""Public pages and API: the status page, /api/state, /api/layout and the public stream."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, render_template, request

from . import get_table
from .errors import forbidden
from .layout import layout

bp = Blueprint("public", __name__)


@bp.get("/")
def status_page():
    return render_template("status.html")


@bp.get("/api/state")
def api_state():
    return jsonify(get_table().state(None))


@bp.get("/api/layout")
def api_layout():
    response = jsonify(layout())
    response.cache_control.max_age = 3600
    return response


def sse_response(stream) -> Response:
    response = Response(stream, mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache, no-store"
    response.headers["X-Accel-Buffering"] = "no"
    return response


@bp.get("/events")
def events():
    """The public stream, or with ``?seat=TOKEN`` that seat's private stream."""
    table = get_table()
    audience = "public"
    if "seat" in request.args:
        player = table.seat_of(request.args.get("seat"))
        if player is None:
            raise forbidden()
        audience = player
    last = request.headers.get("Last-Event-ID") or request.args.get("last_event_id")
    return sse_response(table.broker.stream(audience, last))
