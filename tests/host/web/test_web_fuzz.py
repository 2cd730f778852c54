"""Hypothesis fuzzes every route (issue 10): never a 500, never a traceback in a body or the log,
never a seat token in the log, and a rejected request changes nothing.

CI runs fewer examples (``QUIN_FUZZ_EXAMPLES``, default 300 here and 120 under CI=true); they run.
"""

import json
import logging
import os
import random
import sqlite3
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.board import BLACK, SPACE_NAMES, WHITE
from engine.randplay import random_setup
from host.compose import create_app
from host.web.sim import board_key

from tests.support.webplay import Driver

EXAMPLES = int(os.environ.get("QUIN_FUZZ_EXAMPLES") or (120 if os.environ.get("CI") else 300))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20) | st.sampled_from(SPACE_NAMES) | st.sampled_from(["void", "light", "memory", "time"]),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=20,
)
KEYS = ["space", "occupied", "start", "type", "pieces", "piece", "action", "mode", "vision", "first", "player",
        "clone", "removed", "lineup"]
shaped = st.dictionaries(st.sampled_from(KEYS), json_values, max_size=4)
bodies = st.one_of(
    shaped.map(lambda d: json.dumps(d).encode()),
    json_values.map(lambda v: json.dumps(v).encode()),
    st.binary(max_size=200),
    st.integers(1, 3000).map(lambda n: b"[" * n + b"]" * n),
    st.integers(30, 6000).map(lambda n: b'{"space": ' + b"7" * n + b"}"),
)


class World:
    """One app with a game in play, the secrets it holds, and a snapshot of everything it keeps."""

    def __init__(self, folder: Path):
        self.app = create_app({"DATA_DIR": str(folder), "TICK": 0, "MANUAL_CLOCK": True})
        self.table = self.app.extensions["quin.table"]
        self.client = self.app.test_client()
        self.db = folder / "quin.sqlite3"
        rng = random.Random(3)
        driver = Driver(self.client, self.table)
        driver.setup(random_setup(rng, WHITE), random_setup(rng, BLACK))
        for _ in range(4):
            driver.play(rng.choice(driver.shadow.legal_actions()))

    def secrets(self) -> list[str]:
        return [*self.table.tokens.values(), self.table.host_key, board_key(self.table.host_key)]

    def snapshot(self) -> str:
        t = self.table
        with t.lock:
            seats = [t.state(p) for p in ("white", "black")]
            for s in seats:
                if s["seat"].get("private") is not None:  # none in a new game's setup (the host route's)
                    s["seat"]["private"].pop("rejected", None)  # the mover is told why: by design
            with sqlite3.connect(self.db) as c:
                rows = [c.execute(f"SELECT * FROM {name}").fetchall() for name in ("games", "seats", "actions", "meta")]
            return json.dumps([t.state(None), seats, t.tokens, t.host_key, sorted(t.board.occupied), rows],
                              sort_keys=True, default=str)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    return World(tmp_path_factory.mktemp("fuzz"))


def target(world: World, draw) -> tuple[str, str, dict]:
    table = world.table
    token = draw(st.sampled_from([table.tokens["white"], table.tokens["black"], "nope", "", "%00", "a" * 300]))
    key = draw(st.sampled_from([table.host_key, "wrong", table.tokens["white"]]))
    game = draw(st.sampled_from(["1", "2", "0", "-1", "9223372036854775808", "1e3", "x", "99999999999999999999"]))
    method, path = draw(st.sampled_from([
        ("GET", "/"), ("GET", "/board"), ("GET", f"/board/{board_key(table.host_key)}"), ("GET", f"/board/{key}"),
        ("GET", "/history"), ("GET", f"/history/{game}"),
        ("GET", "/api/state"), ("GET", "/api/layout"), ("GET", "/api/board"), ("GET", "/api/games"),
        ("GET", f"/api/games/{game}"), ("GET", f"/api/games/{game}/record"), ("GET", f"/seat/{token}"),
        ("GET", f"/api/seat/{token}/state"), ("GET", f"/host/{key}"),
        ("POST", "/api/board/toggle"), ("POST", "/api/board/set"), ("POST", f"/api/seat/{token}/setup"),
        ("POST", f"/api/seat/{token}/input"), ("POST", f"/api/host/{key}/new"), ("POST", f"/api/host/{key}/reissue"),
        ("PUT", "/api/state"), ("DELETE", f"/api/seat/{token}/input"), ("GET", "/api/seat/x/input"),
    ]))
    headers = {}
    if draw(st.booleans()):
        headers["X-Seat-Token"] = draw(st.sampled_from([token, table.tokens["white"], "bad"]))
    if draw(st.booleans()):
        headers["X-Host-Key"] = draw(st.sampled_from([key, table.host_key]))
    if draw(st.booleans()):
        headers["X-Board-Key"] = draw(st.sampled_from([board_key(table.host_key), table.host_key, "bad"]))
    if draw(st.booleans()):
        headers["Origin"] = draw(st.sampled_from(["http://localhost", "http://evil.example", "null"]))
    headers["Content-Type"] = draw(st.sampled_from(["application/json", "text/plain", "application/json; charset=latin-1"]))
    return method, path, headers


@FUZZ
@given(data=st.data())
def test_every_route_fuzzed(world, caplog, data):
    method, path, headers = target(world, data.draw)
    body = data.draw(bodies) if method in ("POST", "PUT") else None
    before = world.snapshot()
    with caplog.at_level(logging.DEBUG):
        r = world.client.open(path, method=method, data=body, headers=headers)
    assert r.status_code < 500, (method, path, body, r.status_code, r.data[:200])
    assert b"Traceback" not in r.data
    if r.status_code >= 400:
        assert world.snapshot() == before, (method, path, body, r.status_code)
        if path.startswith("/api/"):
            payload = r.get_json()
            assert set(payload) == {"error", "status"} and "\n" not in payload["error"]
    assert "Traceback" not in caplog.text
    for secret in world.secrets():
        assert secret not in caplog.text


def test_the_fuzzed_game_is_still_sound(world):
    """After the fuzz: the store replays the game it holds, and the referee still plays."""
    table = world.table
    if table.game is not None:
        assert table.store.load_game(table.row.id).state.key() == table.game.state.key()
    assert world.client.get("/api/state").status_code == 200


# --- the same over the wire: the server's own parsing ----------------------------------------------

raw_lines = st.one_of(
    st.sampled_from([b"GET / HTTP/1.1", b"GET /events HTTP/1.1", b"GET /events?seat=%ff HTTP/1.1",
                     b"POST /api/board/toggle HTTP/1.1", b"GET http://x/api/state HTTP/1.1", b"GET * HTTP/1.1",
                     b"GET /api/state HTTP/1.0", b"HEAD /events HTTP/1.1", b"BREW /pot HTTP/1.1",
                     b"GET /%00%ff HTTP/1.1", b"GET /events?seat=&seat=x HTTP/1.1"]),
    st.binary(max_size=60),
)
raw_headers = st.lists(st.sampled_from([
    b"Host: x", b"Host: x:abc", b"Host: [::1]:9", b"Content-Length: 5", b"Content-Length: -1",
    b"Content-Length: 99999999999999999999999", b"Transfer-Encoding: chunked", b"Last-Event-ID: 5",
    b"Last-Event-ID: \xff\xfe", b"X_Seat_Token: y", b"Expect: 100-continue", b"Connection: close",
    b"Content-Type: application/json", b": empty", b"Bad Header", b"X-Seat-Token: " + b"z" * 5000,
]), max_size=6)


@settings(max_examples=max(40, EXAMPLES // 3), deadline=None, suppress_health_check=list(HealthCheck),
          database=None)
@given(line=raw_lines, headers=raw_headers, body=st.binary(max_size=100))
def test_raw_http_over_the_wire(served, line, headers, body):
    import socket

    base, table, errors = served
    port = int(base.rsplit(":", 1)[1])
    request = line + b"\r\n" + b"".join(h + b"\r\n" for h in headers) + b"Connection: close\r\n\r\n" + body
    conn = socket.create_connection(("127.0.0.1", port), timeout=5)
    try:
        conn.sendall(request)
        conn.shutdown(socket.SHUT_WR)
        answer = b""
        while True:
            try:
                chunk = conn.recv(65536)
            except (socket.timeout, ConnectionResetError):
                break
            if not chunk or b"event: state" in answer:
                break
            answer += chunk
    finally:
        conn.close()
    if answer:
        status = answer.split(b" ", 2)[1] if answer.startswith(b"HTTP/") else b""
        assert not status.startswith(b"5") or status == b"503", answer[:200]
        assert b"Traceback" not in answer
    assert errors.getvalue().count("Traceback") == 0
    for secret in (*table.tokens.values(), table.host_key):
        assert secret not in errors.getvalue()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    import io

    from tests.support.webtools import running

    errors = io.StringIO()
    handler = logging.StreamHandler(errors)
    for name in ("quin", "tornado"):
        logging.getLogger(name).addHandler(handler)
    app = create_app({"DATA_DIR": str(tmp_path_factory.mktemp("wire")), "TICK": 0, "MANUAL_CLOCK": True})
    real_stderr = sys.stderr
    sys.stderr = errors  # the server's one-line warnings go here: none may be a traceback
    try:
        with running(app) as base:
            yield base, app.extensions["quin.table"], errors
    finally:
        sys.stderr = real_stderr
        for name in ("quin", "tornado"):
            logging.getLogger(name).removeHandler(handler)
