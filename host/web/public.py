"""Public pages and API: the status page, /api/state, /api/layout.

The live streams (``GET /events``, ``GET /events?seat=TOKEN``) are served by
the web server itself, on its event loop (``host.web.server``).
"""

from __future__ import annotations

from flask import Blueprint, jsonify, render_template

from .current import get_table
from .layout import layout

bp = Blueprint("public", __name__)


@bp.get("/")
def status_page():
    return render_template("status.html")


@bp.get("/api/state")
def api_state():
    return jsonify(get_table().state(None))


@bp.get("/api/now")
def api_now():
    """The server's wall clock (seconds): a page's clocks count down from the ``at`` of a state's
    ``clock`` on it, whatever the device's own clock says."""
    response = jsonify({"now": round(get_table().wall(), 3)})
    response.cache_control.no_store = True
    return response


@bp.get("/api/layout")
def api_layout():
    response = jsonify(layout())
    response.cache_control.max_age = 3600
    return response
