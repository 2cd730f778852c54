"""The web app: the status page, the two seats, the simulated board, the game history.

``create_app(config)`` is the application factory (the Flask tutorial's
pattern).  The live game lives in a :class:`host.session.table.Table`, shared by
every request and given as ``TABLE`` (``quin serve`` does, through
``host.compose.Service.web``); a request finds it with
``host.web.current.get_table``.  The web app builds no service of its own: for
a whole one built from ``DATA_DIR`` with a simulated board (the tests, the
fingerprint), ``host.compose.create_app`` takes the same config.
"""

from __future__ import annotations

from flask import Flask

from .errors import MAX_BODY

DEFAULTS = {
    "DATA_DIR": None,  # where quin.sqlite3 lives (default: host.system.config.data_dir())
    "TABLE": None,  # the ready Table (required; host.compose.create_app builds the whole service when there is none)
    "BOARD": "sim",  # with no TABLE (host.compose.create_app): "sim" gives a simulated board, None none
    "SETTLE": 0.25,  # seconds the referee waits for the board to settle
    "TICK": 0.05,  # seconds between referee ticks (0: no ticker thread; tests tick by hand)
    "KEEPALIVE": 15.0,  # seconds of silence before an SSE keep-alive comment
    "PUBLIC_URL": None,  # the address phones reach the server at (the host page's join codes)
    "MANUAL_CLOCK": False,  # tests: the simulated board's clock moves only when advanced
    "MODE": "classic",
    "VISION": False,
    "FIRST": "white",
    "CLOCK": None,  # with no TABLE: the time control of a new game (host.match.clock: "25+10"; None: no clock)
    "JSON_SORT_KEYS": False,
    "MAX_CONTENT_LENGTH": MAX_BODY,  # a bigger request body is refused with a 413
    "ALLOWED_HOSTS": None,  # names a state-changing request may be sent to (host.web.guard; None: localhost and this machine's name)
}


def create_app(test_config: dict | None = None) -> Flask:
    app = Flask(__name__, instance_relative_config=False)
    app.config.from_mapping(DEFAULTS)
    if test_config:
        app.config.from_mapping(test_config)
    table = app.config["TABLE"]
    if table is None:
        raise ValueError("create_app: no TABLE given (host.compose.create_app builds the whole service)")
    if app.config["DATA_DIR"] is None:
        app.config["DATA_DIR"] = str(table.store.path.parent)
    app.extensions["quin.table"] = table
    if app.config["ALLOWED_HOSTS"] is None:
        from .guard import allowed_hosts

        app.config["ALLOWED_HOSTS"] = allowed_hosts()
    app.json.sort_keys = False

    from . import errors, guard, history, host_pages, public, remote_end, seats, sim

    errors.register(app)
    app.before_request(guard.check_request)
    app.register_blueprint(public.bp)
    app.register_blueprint(seats.bp)
    app.register_blueprint(remote_end.bp)
    app.register_blueprint(sim.bp)
    app.register_blueprint(history.bp)
    app.register_blueprint(host_pages.bp)

    @app.after_request
    def _headers(response):
        # Seat tokens live in URLs: never send them on as a Referer.
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        return response

    app.teardown_appcontext(history.close_db)
    return app
