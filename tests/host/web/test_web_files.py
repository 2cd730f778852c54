"""Issue 18: running out of file handles.  Connections are capped per address and in all, below
the file limit; the excess is shed at once with a 503 that says why; trouble is one log line at
most once a minute; and when files do run out the server sheds instead of spinning or flooding."""

import json
import select
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from host.compose import create_app
from host.web.server import WebServer, _Trouble

from tests.support.waiting import wait_for
from tests.support.webtools import get_json, running

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def app(tmp_path):
    return create_app({"DATA_DIR": str(tmp_path), "TICK": 0, "KEEPALIVE": 5})


def idle(port: int, n: int, source: str = "127.0.0.1") -> list[socket.socket]:
    """``n`` connections that send nothing."""
    return [socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0)) for _ in range(n)]


def answer(sock: socket.socket) -> tuple[int, dict]:
    """What the server said on a connection it did not serve (it closes it): status and JSON body."""
    data = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ")[1]), json.loads(body)


def served(sock: socket.socket) -> bool:
    """Is this idle connection still held open by the server (no answer, not closed)?"""
    sock.settimeout(0.2)
    try:
        sock.recv(1)  # an answer, or the end of the connection
        return False
    except socket.timeout:
        return True
    finally:
        sock.settimeout(10)


def state_from(port: int, source: str) -> int:
    s = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
    try:
        s.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        return answer(s)[0]
    finally:
        s.close()


def test_idle_connections_from_one_address_are_capped_and_others_are_served(app):
    """Issue 18: 1,100 idle connections from one address made GET /api/state time out for everyone."""
    with running(app, connections_per_client=5) as base:
        port = int(base.rsplit(":", 1)[1])
        server = app.extensions["quin.server"]
        held = idle(port, 5)
        wait_for(lambda: server.connections.get("127.0.0.1") == 5, "the server to count the five")
        extra = idle(port, 3)
        for s in extra:
            status, body = answer(s)
            assert status == 503 and body["status"] == 503
            assert "this device already has 5 connections open to the server, the limit for one device" in body["error"]
        assert all(served(s) for s in held)
        assert state_from(port, "127.0.0.2") == 200  # another device is served at once
        held.pop().close()  # one of the five goes: one more may come
        wait_for(lambda: server.connections.get("127.0.0.1") == 4, "the server to see one go")
        assert state_from(port, "127.0.0.1") == 200
        for s in held + extra:
            s.close()


def busy(port: int, n: int, source: str) -> list[socket.socket]:
    """``n`` connections each in the middle of a request: its head sent, its body never."""
    out = idle(port, n, source)
    for s in out:
        s.sendall(b"POST /api/board/toggle HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 100\r\n\r\n")
    return out


def test_connections_are_capped_in_all(app):
    """Every connection busy (a request under way, none idle to close): a newcomer gets a 503."""
    with running(app, max_connections=4) as base:
        server_port = int(base.rsplit(":", 1)[1])
        server = app.extensions["quin.server"]
        held = [*busy(server_port, 2, "127.0.0.2"), *busy(server_port, 2, "127.0.0.3")]
        # counted, and each request's head read (none idle): else the newcomer would close an idle one
        # instead of being refused (under load the server may accept them before it reads their heads)
        wait_for(lambda: server.open_connections == 4 and not server.idle, "the server to count the four, all busy")
        s = idle(server_port, 1, "127.0.0.4")[0]
        status, body = answer(s)
        assert status == 503 and "the server has 4 connections open, its limit" in body["error"]
        held.pop().close()
        wait_for(lambda: server.open_connections == 3 and not server.connections.get("127.0.0.4"),
                 "the server to see one go, and the newcomer it refused")
        assert state_from(server_port, "127.0.0.4") == 200
        for s in held:
            s.close()


def test_caps_stay_below_the_file_limit(app, monkeypatch):
    import host.web.server as server_module

    monkeypatch.setattr(server_module, "file_limit", lambda: 1024)
    server = WebServer(app, "127.0.0.1", 0, threads=16)
    try:
        assert server.max_connections == 1024 - 64 - 4 * 16
        assert server.max_streams < server.max_connections - 64  # room for requests beside the streams
        assert server.max_streams + server.connections_per_client < server.max_connections
    finally:
        for s in server.sockets:
            s.close()
        server.executor.shutdown()
    monkeypatch.setattr(server_module, "file_limit", lambda: 100000)
    server = WebServer(app, "127.0.0.1", 0, threads=16, max_connections=500)
    try:
        assert server.max_connections == 500 and server.max_streams < 500
    finally:
        for s in server.sockets:
            s.close()
        server.executor.shutdown()


def test_trouble_is_one_line_at_most_once_a_minute(capsys):
    now = [1000.0]
    trouble = _Trouble(clock=lambda: now[0])
    for _ in range(500):
        trouble.note("connections refused: x")
        now[0] += 0.01
    trouble.note("out of file handles")
    assert trouble.lines == 1  # the first, at once
    now[0] += 61
    trouble.flush()
    trouble.flush()
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2 and trouble.lines == 2
    assert lines[0] == "quin: web server: connections refused: x (said at most once a minute)"
    assert lines[1] == ("quin: web server: connections refused: x (499x); out of file handles "
                        "(said at most once a minute)")


SCRIPT = textwrap.dedent("""
    import resource, sys, time
    resource.setrlimit(resource.RLIMIT_NOFILE, (200, 200))
    from host.compose import create_app
    from host.web.server import WebServer
    app = create_app({"DATA_DIR": sys.argv[1], "TICK": 0})
    server = WebServer(app, "127.0.0.1", 0, threads=4, connections_per_client=100000)
    server.max_connections = 100000  # as if the caps were wrong: the files themselves run out
    server.start_in_thread()
    print(server.port, flush=True)
    sys.stdin.readline()
    server.stop()
""")


def test_out_of_files_sheds_without_spinning_or_flooding_the_log(tmp_path):
    """With the caps lifted, 400 idle connections exhaust a 200-file limit: the waiting ones are
    refused with a 503 (not left to spin a core), the log stays a line or two, and the server serves
    again once they go."""
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT, str(tmp_path)], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        port = int(proc.stdout.readline())
        socks, refused = [], 0
        for _ in range(400):
            socks.append(socket.create_connection(("127.0.0.1", port), timeout=10))
        poll = select.poll()
        for s in socks:
            poll.register(s, select.POLLIN)
        # the flood taken in: more than a hundred have been answered (a 503 each, below)
        wait_for(lambda: len(poll.poll(0)) > 100, "the server to answer the flood", 20)
        cpu_before = _cpu(proc.pid)
        time.sleep(1.0)  # CPU used over a second of the machine's time: only a real second measures that
        busy = _cpu(proc.pid) - cpu_before
        answered = {fd for fd, _ in poll.poll(0)}
        for s in socks:
            if s.fileno() in answered:
                data = s.recv(4096)
                refused += data.startswith(b"HTTP/1.1 503") and b"out of file handles" in data
        assert refused > 100  # the ones that found no file handle were told so
        assert busy < 0.5, busy  # seconds of CPU in a second: not spinning on the listening socket
        for s in socks:
            s.close()
        # served again once they go (a connection that still finds no file handle is told so)
        wait_for(lambda: _state_or_503(port) == 200, "the server to serve again", 10)
    finally:
        proc.stdin.write("\n")
        proc.stdin.flush()
        _, err = proc.communicate(timeout=20)
    assert "Traceback" not in err and len(err) < 1000, err[:2000]
    assert "out of file handles" in err


def _state_or_503(port: int) -> int:
    try:
        return get_json(f"http://127.0.0.1:{port}/api/state")[0]
    except (OSError, ValueError):
        return 0


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    import os

    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_when_all_connections_are_taken_the_idlest_goes_not_the_newcomer(app):
    """Idle connections from many addresses filled the server: a player's phone is still served,
    by closing the connection idle longest; live pages and requests under way are never closed."""
    with running(app, max_connections=6, connections_per_client=3) as base:
        port = int(base.rsplit(":", 1)[1])
        live = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=("127.0.0.9", 0))
        live.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert live.recv(4096).startswith(b"HTTP/1.1 200")
        server = app.extensions["quin.server"]
        guests = []
        for address in ("127.0.0.2", "127.0.0.3"):  # five idle ones, the oldest first
            for _ in range(3 if address == "127.0.0.2" else 2):
                guests.append(idle(port, 1, address)[0])
                # each taken before the next comes: which is idlest is the order the server took them
                wait_for(lambda: server.open_connections == 1 + len(guests), "the server to take the guest")
        phones = []
        for _ in range(3):  # three newcomers that stay: each closes one idle guest, oldest first
            phone = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=("127.0.0.4", 0))
            phone.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert phone.recv(65536).startswith(b"HTTP/1.1 200")
            phones.append(phone)
        assert [served(g) for g in guests] == [False, False, False, True, True]
        live.settimeout(0.3)
        try:
            while live.recv(65536):  # its frames so far; then silence, not the end
                pass
            raise AssertionError("the live page was closed")
        except socket.timeout:
            pass  # the live page stays
        for s in guests + phones + [live]:
            s.close()


def test_a_page_that_stops_reading_is_let_go_and_the_others_get_every_frame(app):
    """Frames go straight to a socket with room, and queue behind one without: a reader that
    stopped falls queue_size frames behind and is disconnected; a reading one misses nothing."""
    from tests.support.webtools import SSE

    table = app.extensions["quin.table"]
    table.broker.queue_size = 3
    with running(app) as base:
        port = int(base.rsplit(":", 1)[1])
        stuck = socket.socket()
        stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        stuck.connect(("127.0.0.1", port))
        stuck.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        reader = SSE(base, "/events")
        ids = [int(reader.next()["id"])]
        wait_for(lambda: table.broker.clients() >= 2, "both pages to be streamed to", 10)
        n = 0
        while table.broker.clients() > 1:  # big frames, until the stuck page's socket is full
            assert n < 400, "a page that stopped reading was never let go"
            n += 1
            blob = {"n": n, "blob": "x" * 200_000}
            table.broker.publish({"public": blob, "white": {}, "black": {}})
            event = reader.next()
            assert event["data"]["state"] == blob
            ids.append(int(event["id"]))
        assert n > 3 and ids == list(range(ids[0], ids[0] + len(ids)))  # every frame, whole, in order
        stuck.close()
        reader.close()


def test_the_same_error_is_logged_at_most_once_a_minute():
    import logging

    from host.web.errors import _OncePerMinute

    now = [0.0]
    once = _OncePerMinute(clock=lambda: now[0])

    def record(kind):
        return logging.LogRecord("quin.web", logging.ERROR, __file__, 1, "internal error %s at\n%s",
                                 (kind, "  x.py:1 in f"), None)

    passed = []
    for i in range(1000):
        r = record("KeyError")
        if once.filter(r):
            passed.append(r.getMessage())
        now[0] += 0.01
    assert once.filter(record("ValueError"))  # another kind is its own
    now[0] += 60
    r = record("KeyError")
    assert once.filter(r)
    assert len(passed) == 1 and "(999 more like it in the last minute, not logged)" in r.getMessage()


@pytest.mark.parametrize("address, key", [
    ("192.168.1.20", "192.168.1.20"), ("::ffff:192.168.1.20", "192.168.1.20"),
    ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"), ("2001:db8:1:2:ffff:1:2:3", "2001:db8:1:2::/64"),
    ("fe80::1%eth0", "fe80::/64"), ("", ""),
])
def test_a_device_is_an_ipv4_address_or_an_ipv6_64(address, key):
    """One phone may take any number of IPv6 addresses in its /64: the caps count the /64."""
    from host.web.server import device

    assert device(address) == key
