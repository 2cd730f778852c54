"""The web server and `quin serve`'s lifecycle (issues 10 and 11): streams cannot starve requests,
per-client caps, 413s, one server per data folder, ids across restarts, a clean stop."""

import http.client
import json
import signal
import socket
import subprocess
import time

import pytest

from host.compose import create_app

from tests.support.quin_cmd import QUIN
from tests.support.served import ROOT, Serve
from tests.support.waiting import wait_for
from tests.support.webtools import SSE, board_headers, get_json, post_json, running


@pytest.fixture
def app(tmp_path):
    return create_app({"DATA_DIR": str(tmp_path), "TICK": 0, "KEEPALIVE": 5})


def open_streams(port: int, n: int, source: str = "127.0.0.1") -> list[socket.socket]:
    """``n`` raw stream connections from ``source`` that read nothing after their headers."""
    out = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
        s.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
        out.append(s)
    for s in out:
        head = b""
        while b"\r\n\r\n" not in head:
            head += s.recv(4096)
        assert head.startswith(b"HTTP/1.1 200"), head[:80]
    return out


def test_open_streams_do_not_starve_requests(app):
    """Issue 10: with --threads streams open, GET /api/state and board toggles timed out."""
    with running(app, threads=4, streams_per_client=1000, connections_per_client=1000) as base:
        port = int(base.rsplit(":", 1)[1])
        streams = open_streams(port, 300)
        try:
            started = time.monotonic()
            for space in ("w35", "w36", "w35"):
                board = board_headers(app.extensions["quin.table"])
                assert post_json(base + "/api/board/toggle", {"space": space}, board)[0] == 200
            assert get_json(base + "/api/state")[0] == 200
            assert time.monotonic() - started < 5  # not a timing test: a starved server never answers
        finally:
            for s in streams:
                s.close()
        # The clients vanished: the server answers at once, and forgets them.
        assert get_json(base + "/api/state")[0] == 200
        wait_for(lambda: app.extensions["quin.table"].broker.clients() == 0, "the server to forget them", 5)


def refused(base: str) -> dict:
    """One more stream: it must be refused with a 503; its JSON body."""
    s = SSE(base, "/events")
    try:
        assert s.status == 503
        body = json.loads(s.response.read())
        assert body["status"] == 503
        return body
    finally:
        s.close()


@pytest.mark.parametrize("caps, opened, message", [
    ({"streams_per_client": 3}, 3, "this device already has 3 live pages open"),
    ({"max_streams": 2}, 2, "the server has 2 live pages open, its limit"),
])
def test_streams_are_capped_with_a_clear_503(app, caps, opened, message):
    with running(app, **caps) as base:
        port = int(base.rsplit(":", 1)[1])
        streams = open_streams(port, opened)
        try:
            assert message in refused(base)["error"]
            if "streams_per_client" in caps:
                open_streams(port, 1, source="127.0.0.2")[0].close()  # another device is welcome
            assert get_json(base + "/api/state")[0] == 200
        finally:
            for s in streams:
                s.close()


def raw_request(port: int, head: bytes, body: bytes = b"") -> tuple[int, dict]:
    conn = socket.create_connection(("127.0.0.1", port), timeout=10)
    try:
        conn.sendall(head)
        try:
            conn.sendall(body)
        except (BrokenPipeError, ConnectionResetError):
            pass
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                break
            data += chunk
        response = http.client.HTTPResponse(_Sock(data + _drain(conn)))
        response.begin()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


class _Sock:
    def __init__(self, data):
        import io

        self.data = io.BytesIO(data)

    def makefile(self, mode):
        return self.data


def _drain(conn) -> bytes:
    out = b""
    try:
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                return out
            out += chunk
    except (ConnectionResetError, socket.timeout):
        return out


@pytest.mark.parametrize("size", [70 * 1024, 10 * 1024 * 1024, 40 * 1024 * 1024])
def test_big_bodies_get_a_clear_413_and_store_nothing(app, tmp_path, size):
    """Issue 10: five 10 MB bodies grew the store by 63 MB."""
    table = app.extensions["quin.table"]
    db = tmp_path / "quin.sqlite3"
    with running(app) as base:
        port = int(base.rsplit(":", 1)[1])
        token = table.tokens["white"]
        before = db.stat().st_size
        head = (f"POST /api/seat/{token}/input HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\n"
                f"X-Seat-Token: {token}\r\nContent-Length: {size}\r\n\r\n").encode()
        status, body = raw_request(port, head, b'{"type": "' + b"x" * (size - 12) + b'"}')
        assert status == 413 and body["error"] == "the request body is too large: at most 64 KB"
        assert get_json(base + "/api/state")[0] == 200
        assert db.stat().st_size <= before + 64 * 1024


def test_a_chunked_body_over_the_limit_is_a_413(app):
    with running(app) as base:
        port = int(base.rsplit(":", 1)[1])
        chunk = b"x" * 30000
        body = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(3)) + b"0\r\n\r\n"
        head = b"POST /api/board/toggle HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n"
        status, payload = raw_request(port, head, body)
        assert status == 413


def test_header_names_with_underscores_are_dropped(app):
    """X_Seat_Token must not pass for X-Seat-Token (they are one name to WSGI)."""
    table = app.extensions["quin.table"]
    with running(app) as base:
        port = int(base.rsplit(":", 1)[1])
        token = table.tokens["white"]
        body = json.dumps({"type": "done"}).encode()
        head = (f"POST /api/seat/{token}/input HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nX_Seat_Token: {token}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode()
        status, payload = raw_request(port, head, body)
        assert status == 403 and "X-Seat-Token" in payload["error"]


def test_two_servers_on_one_data_folder(tmp_path):
    """Issue 10: both started, served the same seats, and the second replaced the first's actions."""
    first = Serve(tmp_path)
    try:
        port = int(first.base.rsplit(":", 1)[1])
        started = time.monotonic()
        out = subprocess.run([*QUIN, "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", str(tmp_path),
                              "--no-qr"], cwd=ROOT, capture_output=True, text=True, timeout=30)
        assert time.monotonic() - started < 10
        lines = out.stderr.strip().splitlines()
        assert out.returncode == 2 and out.stdout == "" and len(lines) == 1, out.stderr
        assert f"pid {first.proc.pid}" in lines[0] and f"port {port}" in lines[0]
        # Read-only commands share the folder with the running server.
        games = subprocess.run([*QUIN, "games", "--json", "--data-dir", str(tmp_path)], cwd=ROOT,
                               capture_output=True, text=True, timeout=30)
        assert games.returncode == 0 and json.loads(games.stdout)["games"][0]["status"] == "setup"
        assert first.state()["phase"] == "setup"
    finally:
        first.stop()
    again = Serve(tmp_path)  # the lock went with the process
    again.stop()


def test_event_ids_never_repeat_across_restarts(tmp_path):
    """Issue 10: a phone reconnecting with an id equal to the new server's got nothing."""
    first = Serve(tmp_path)
    s = SSE(first.base, "/events")
    last = s.next()["id"]
    s.close()
    first.stop()
    again = Serve(tmp_path)
    try:
        s = SSE(again.base, "/events", last_event_id=last)
        event = s.next()
        assert event["event"] == "state" and int(event["id"]) > int(last)
        assert event["data"]["state"]["phase"] == "setup"
        s.close()
    finally:
        again.stop()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_clean_stop_with_open_streams_and_an_immediate_restart(tmp_path, signum):
    """Issue 11: Ctrl-C printed 'threads still running' and tracebacks, took 6 s, and the port stayed busy."""
    s = Serve(tmp_path)
    port = s.base.rsplit(":", 1)[1]
    streams = [SSE(s.base, "/events") for _ in range(5)] + [SSE(s.base, f"/events?seat={s.tokens['white']}")]
    for stream in streams:
        stream.next()
    s.proc.send_signal(signum)
    # How fast it stops is measured in bench/web.py (under a second), not asserted here: a loaded
    # machine must not fail the suite.  A stop that hangs on its threads never ends in 10 s.
    s.proc.wait(10)
    # Read through the files (not communicate(), which reads past what their buffers hold); the
    # output is a line or two, so the pipes cannot fill while it stops.
    out, err = s.proc.stdout.read(), s.proc.stderr.read()
    assert s.proc.returncode == 0
    assert out.strip().splitlines() == ["Quin stopped; the game is saved."]
    assert err == ""
    for stream in streams:
        assert stream.next() is None
    again = subprocess.Popen([*QUIN, "serve", "--host", "127.0.0.1", "--port", port, "--data-dir",
                              str(tmp_path), "--no-qr"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    try:
        first = again.stdout.readline()
        assert first.startswith("Quin is ready"), again.stderr.read() if again.poll() is not None else first
    finally:
        again.send_signal(signal.SIGTERM)
        again.communicate(timeout=10)
