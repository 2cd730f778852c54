"""Issue 18, a guest on the same network: board writes need the board key; every state-changing
route refuses a cross-site request (Origin, Sec-Fetch-Site, a JSON content type) and a Host the
server does not answer to (DNS rebinding); the live stream answers 400 to a query it cannot take."""

import json
import random

import pytest

from engine.board import BLACK, WHITE
from engine.randplay import random_setup
from host.compose import create_app
from host.web.guard import allowed_hosts, host_allowed
from host.web.sim import board_key

from tests.support.webplay import Driver
from tests.support.webtools import SSE, board_headers, running

from tests.support.served import Serve

EVIL = "http://evil.example"


@pytest.fixture
def web(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path), "TICK": 0, "MANUAL_CLOCK": True})
    return app, app.test_client(), app.extensions["quin.table"]


def playing(web):
    _, client, table = web
    rng = random.Random(3)
    driver = Driver(client, table)
    driver.setup(random_setup(rng, WHITE), random_setup(rng, BLACK))
    return driver


def snapshot(client, table):
    return (client.get("/api/board").get_json(), [str(a) for _, _, a in table.game.log] if table.game else None,
            table.row.id, dict(table.tokens))


def post_routes(table) -> list[tuple[str, dict]]:
    """Every state-changing route of the app, with the headers its own page sends (key, token)."""
    token, key = table.tokens[WHITE], table.host_key
    known = {
        "/api/board/toggle": ({"space": "w35"}, board_headers(table)),
        "/api/board/set": ({"occupied": []}, board_headers(table)),
        f"/api/seat/{token}/input": ({"type": "done"}, {"X-Seat-Token": token}),
        f"/api/seat/{token}/setup": ({}, {"X-Seat-Token": token}),
        f"/api/seat/{token}/again": ({}, {"X-Seat-Token": token}),
        f"/api/seat/{token}/resign": ({}, {"X-Seat-Token": token}),
        f"/api/host/{key}/new": ({}, {"X-Host-Key": key}),
        f"/api/host/{key}/reissue": ({"player": "white"}, {"X-Host-Key": key}),
        f"/api/seat/{token}/remote-end": ({"end": "resign"}, {"X-Seat-Token": token}),
        f"/api/host/{key}/remote": ({"hub": "http://127.0.0.1:9/", "game": "new", "side": "white", "name": "Ann",
                                     "mode": "classic"}, {"X-Host-Key": key}),
    }
    return list(known.items())


def test_every_state_changing_route_is_listed(web):
    """A route added later must be added to post_routes, so the forgeries below cover it."""
    app, _, table = web
    methods = {m for rule in app.url_map.iter_rules() for m in rule.methods} - {"GET", "HEAD", "OPTIONS"}
    assert methods == {"POST"}
    changing = sorted(rule.rule for rule in app.url_map.iter_rules() if "POST" in rule.methods)
    assert changing == sorted(["/api/board/toggle", "/api/board/set", "/api/seat/<token>/input",
                               "/api/seat/<token>/setup", "/api/seat/<token>/again", "/api/seat/<token>/resign",
                               "/api/host/<key>/new", "/api/host/<key>/reissue",
                               "/api/seat/<token>/remote-end", "/api/host/<key>/remote"])


FORGERIES = [
    # (what, extra headers, content type, status, words in the error)
    ("a text/plain POST from another site", {"Origin": EVIL}, "text/plain", 403, "another web site"),
    ("a JSON POST from another site", {"Origin": EVIL}, "application/json", 403, "another web site"),
    ("a form from another site", {"Origin": EVIL, "Sec-Fetch-Site": "cross-site"},
     "application/x-www-form-urlencoded", 403, "another web site"),
    ("another port on the same host", {"Origin": "http://localhost:8001", "Sec-Fetch-Site": "same-site"},
     "application/json", 403, "another web site"),
    ("an opaque origin (a sandboxed frame, a file)", {"Origin": "null"}, "application/json", 403, "another web site"),
    ("a browser's cross-site mark alone", {"Sec-Fetch-Site": "cross-site"}, "application/json", 403,
     "another web site"),
    ("a plain-text body with no origin", {}, "text/plain", 415, "Content-Type: application/json"),
    ("a form body with no origin", {}, "application/x-www-form-urlencoded", 415, "Content-Type: application/json"),
    ("a multipart body", {}, "multipart/form-data; boundary=x", 415, "Content-Type: application/json"),
    ("a rebound name", {"Host": "evil.example:8000", "Origin": "http://evil.example:8000",
                        "Sec-Fetch-Site": "same-origin"}, "application/json", 400, "does not answer to the name"),
]


@pytest.mark.parametrize("what, extra, ctype, status, words", FORGERIES, ids=[f[0] for f in FORGERIES])
def test_a_forged_change_is_refused_on_every_route_and_changes_nothing(web, what, extra, ctype, status, words):
    """Issue 18: a text/plain POST with Origin: http://evil.example committed a move, and
    {"occupied": []} cleared the board mid-game; the keys and tokens are right here: only the forgery differs."""
    _, client, table = web
    driver = playing(web)
    driver.board({s for s in table.game.occupied()})
    before = snapshot(client, table)
    for path, (body, headers) in post_routes(table):
        r = client.post(path, data=json.dumps(body), headers={**headers, **extra, "Content-Type": ctype})
        assert r.status_code == status, (what, path, r.status_code, r.get_json())
        assert words in r.get_json()["error"], (path, r.get_json())
        assert snapshot(client, table) == before, (what, path)


@pytest.mark.parametrize("extra", [
    {},  # a tool such as curl: no Origin, no Sec-Fetch-Site
    {"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"},  # the server's own page
    {"Host": "quin.local:8000", "Origin": "http://quin.local:8000", "Sec-Fetch-Site": "same-origin"},
    {"Host": "192.168.1.20:8000", "Origin": "http://192.168.1.20:8000"},  # by address: cannot be rebound
    {"Host": "[::1]:8000", "Origin": "http://[::1]:8000"},
    {"Sec-Fetch-Site": "none"},  # typed by the user
])
def test_the_servers_own_pages_and_tools_may_change(tmp_path, extra):
    app = create_app({"DATA_DIR": str(tmp_path), "TICK": 0, "MANUAL_CLOCK": True,
                      "ALLOWED_HOSTS": allowed_hosts("quin.local")})
    client, table = app.test_client(), app.extensions["quin.table"]
    r = client.post("/api/board/toggle", json={"space": "w35"}, headers={**board_headers(table), **extra})
    assert r.status_code == 200, r.get_json()
    assert r.get_json() == {"occupied": ["w35"]}
    r = client.post("/api/board/toggle", data='{"space": "w35"}',
                    headers={**board_headers(table), **extra, "Content-Type": "application/json; charset=utf-8"})
    assert r.status_code == 200 and r.get_json() == {"occupied": []}


@pytest.mark.parametrize("headers, why", [
    ({}, "missing"), ({"X-Board-Key": "nope"}, "wrong"), ({"X-Board-Key": ""}, "empty"),
    ("host key", "the host key is not the board key"), ("seat", "a seat token is not the board key"),
])
def test_board_writes_need_the_board_key(web, headers, why):
    _, client, table = web
    playing(web)
    if headers == "host key":
        headers = {"X-Board-Key": table.host_key}
    elif headers == "seat":
        headers = {"X-Board-Key": table.tokens[WHITE]}
    before = snapshot(client, table)
    for path, body in (("/api/board/toggle", {"space": "w35"}), ("/api/board/set", {"occupied": []}),
                       ("/api/board/set", {"start": True})):
        r = client.post(path, json=body, headers=headers)
        assert r.status_code == 403, (why, path)
        assert "X-Board-Key" in r.get_json()["error"] and "host page" in r.get_json()["error"]
    assert snapshot(client, table) == before
    assert client.post("/api/board/set", json={"start": True}, headers=board_headers(table)).status_code == 200


def test_the_board_link_is_on_the_host_page_and_the_public_board_moves_nothing(web):
    _, client, table = web
    key = board_key(table.host_key)
    assert key not in (table.host_key, *table.tokens.values()) and len(key) == 32
    host = client.get(f"/host/{table.host_key}").get_data(as_text=True)
    assert f'href="/board/{key}"' in host
    page = client.get(f"/board/{key}").get_data(as_text=True)
    assert f"window.QUIN_BOARD = {json.dumps(key)};" in page
    public = client.get("/board")
    assert public.status_code == 200 and "window.QUIN_BOARD = null;" in public.get_data(as_text=True)
    assert key not in client.get("/").get_data(as_text=True)
    assert client.get("/board/wrong").status_code == 403
    assert client.get(f"/board/{table.host_key}").status_code == 403


def test_a_real_board_has_no_board_link(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path), "TICK": 0, "BOARD": None})
    client, table = app.test_client(), app.extensions["quin.table"]
    assert "/board/" not in client.get(f"/host/{table.host_key}").get_data(as_text=True)
    assert client.get(f"/board/{board_key(table.host_key)}").status_code == 404


@pytest.mark.parametrize("host, ok", [
    ("localhost", True), ("localhost:8000", True), ("LOCALHOST:8000", True), ("127.0.0.1:8000", True),
    ("10.1.2.3", True), ("[::1]:8000", True), ("[fe80::1]", True), ("quin.local:8000", True),
    ("quin.local.:8000", True), ("pi.home:8000", True),
    ("evil.example", False), ("evil.example:8000", False), ("quin.local.evil.example", False),
    ("localhost.evil.example", False), ("127.0.0.1.evil.example", False), ("", False), (":8000", False),
    ("localhost:80x", False), ("[::1", False),
])
def test_host_names(host, ok):
    names = allowed_hosts("0.0.0.0", "quin.local", "pi.home")
    assert host_allowed(host, names) is ok


def test_the_configured_and_announced_names_are_allowed():
    names = allowed_hosts("192.168.1.20", "quin-2.local", "Board.Example.:8000", None)
    assert {"localhost", "quin-2.local", "board.example"} <= names


@pytest.mark.parametrize("query", ["&".join(f"a={i}" for i in range(9)), "seat=x&" * 9, "a=" + "x" * 2100])
def test_a_stream_query_the_server_cannot_take_is_a_400(tmp_path, query, caplog):
    """Issue 18: GET /events?a=1&...&a=9 dropped the connection and logged a ValueError."""
    app = create_app({"DATA_DIR": str(tmp_path), "TICK": 0})
    with running(app) as base:
        s = SSE(base, "/events?" + query)
        try:
            assert s.status == 400
            body = json.loads(s.response.read())
            assert body["status"] == 400 and "at most 8 query fields" in body["error"]
        finally:
            s.close()
        ok = SSE(base, "/events?" + "&".join(f"a={i}" for i in range(8)))
        assert ok.status == 200 and ok.next()["event"] == "state"
        ok.close()
    assert "ValueError" not in caplog.text


def test_quin_serve_prints_the_board_link_and_answers_only_to_its_names(tmp_path):
    """The banner's virtual board link carries the key; a change for a name the server does not
    answer to is refused; --allow-host adds one."""
    import http.client

    s = Serve(tmp_path, "--no-mdns", "--allow-host", "Board.Example")
    try:
        port = int(s.base.rsplit(":", 1)[1])
        assert s.urls["virtual board"] == f"{s.base}/board/{s.board['X-Board-Key']}"

        def post(host):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request("POST", "/api/board/toggle", body=b'{"space": "w35"}',
                         headers={"Host": host, "Content-Type": "application/json", **s.board})
            r = conn.getresponse()
            out = r.status, json.loads(r.read())
            conn.close()
            return out

        status, body = post(f"evil.example:{port}")
        assert status == 400 and body["error"].startswith("this server does not answer to the name 'evil.example")
        assert s.state()["board"]["occupied"] == []
        assert post(f"board.example:{port}")[0] == 200
        assert post(f"localhost:{port}")[0] == 200
        assert post(f"127.0.0.1:{port}")[0] == 200
        status, body = post("x" * 5000)
        assert status == 400 and len(body["error"]) < 200  # the bad name is quoted short
        assert s.state()["board"]["occupied"] == ["w35"]
    finally:
        s.stop()


@pytest.mark.parametrize("origin, host, same", [
    ("http://localhost:8000", "localhost:8000", True), ("http://LOCALHOST:8000", "localhost:8000", True),
    ("http://quin.local", "quin.local:80", True), ("http://[::1]:8000", "[::1]:8000", True),
    ("http://localhost:8001", "localhost:8000", False),
    ("https://quin.example", "quin.example", True),  # behind a TLS proxy: the page is https, Host has no port
    ("http://evil.example:8000", "localhost:8000", False), ("null", "localhost:8000", False),
    ("file://", "localhost", False), ("http://localhost:8000/x", "localhost:8000", False),
    ("http://localhost:99999", "localhost:99999", False), ("http://localhost", "localhost:80x", False),
])
def test_same_origin(origin, host, same):
    from host.web.guard import _same_origin

    assert _same_origin(origin, host) is same
