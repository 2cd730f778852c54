"""Hub hardening (issue 30), case by case: each probe of the issue answered 400 naming the field with
nothing stored; a finished game replayed by the engine before it is kept or rated; what the
database already holds never stops a reader; connections bounded; a board sets aside a final the
hub refuses for good instead of sending it for ever."""

import copy
import json
import socket
import uuid

import psycopg

from tests.support.hub_client import SSE, request
from tests.support.hubproc import quin, wait_for
from tests.support.remote_client import create

from engine.randplay import random_game
from engine.record import to_record
from engine.views import view
from host.remote.push import Pusher
from host.compose import create_app

FAST = ("--push-rate", "100000", "--join-rate", "100000", "--remote-rate", "100000")


def frame(seq, mode="classic", **state):
    return {"seq": seq, "data": {"state": {"phase": "playing", "mode": mode, **state}, "notices": []}}


def nested(depth):
    value = 1
    for _ in range(depth):
        value = [value]
    return value


def push(hub, key, *games):
    return request(hub.url + "/api/push", "POST", {"games": list(games)}, key=key)


def wall_card(hub):
    """The first card of the hub's wall, as a wall opening now gets it."""
    wall = SSE(hub.url + "/api/stream/wall")
    try:
        return wall.next_event()[2]
    finally:
        wall.close()


def stored(dsn, g):
    with psycopg.connect(dsn) as conn:
        return conn.execute("SELECT e.seq, e.data FROM hub_events e JOIN hub_games g ON g.id = e.game_id "
                            "WHERE g.uuid = %s ORDER BY e.seq", (g,)).fetchall()


def test_the_issues_probes_are_refused_naming_the_field_and_poison_nothing(db, hubs, tmp_path):
    dsn, _ = db
    key = quin("hub", "add-table", "T", "--db", dsn).stdout.strip()
    a, b = hubs(*FAST, log=tmp_path / "a.log"), hubs(*FAST, log=tmp_path / "b.log")
    g = str(uuid.uuid4())
    assert push(a, key, {"uuid": g, "events": [frame(1, turn=1)]})[0] == 200
    stream = SSE(b.url + f"/api/stream/games/{g}")
    assert stream.next_event()[0] == "1"
    game = random_game(11, max_actions=2000)
    good = {"status": "over", "record": to_record(game), "result": game.result.to_json(), "mode": game.mode}
    probes = [  # (a game of a push, the field its refusal names)
        ({"uuid": g, "events": [{"seq": 2, "data": {"patch": [["set", ["state", "x"], nested(700)]]}}]},
         "games[0].events[0].data.patch"),
        ({"uuid": g, "events": [{"seq": 2, "data": {"patch": [["set", ["state"] + ["k"] * 40, 1]]}}]},
         "games[0].events[0].data.patch[0]: a path of at most"),
        ({"uuid": g, "events": 5}, "games[0].events: a list of events"),
        ({"uuid": g, "events": [frame(2, turn=float("nan"))]}, "games[0].events[0].data.state.turn: a finite"),
        ({"uuid": g, "events": [frame(2, name="a\x00b")]}, "games[0].events[0].data.state.name: text with a NUL"),
        ({"uuid": g, "final": dict(good, players={"white": "Ann"})}, "games[0].final.players.white"),
        ({"uuid": g, "final": dict(good, players={"white": {"name": "A\x00n"}})}, "games[0].final.players.white.name"),
        ({"uuid": g, "final": dict(good, created={"day": 1})}, "games[0].final.created: a time"),
        ({"uuid": g, "final": dict(good, created=float("inf"))}, "games[0].final.created"),
        ({"uuid": g, "final": dict(good, record=dict(good["record"], vision=float("nan")))},
         "games[0].final.record.vision"),
    ]
    for body, field in probes:
        status, out = push(a, key, body)
        assert status == 400 and out["error"].startswith(field), (field, out)
        assert "\n" not in out["error"]
    for raw, field in ((json.dumps({"games": [{"uuid": g, "final": {"status": "over", "created": 1}}]})
                        .replace('"created": 1', '"created": 1e999').encode(), "games[0].final.created"),
                       (b'{"games": ' + b"[" * 5000 + b"]" * 5000 + b"}", "body: nested")):
        status, out = request(a.url + "/api/push", "POST", raw, key=key)
        assert status == 400 and out["error"].startswith(field), out
    status, out = request(a.url + "/api/push", "POST", {"games": [{"uuid": g, "final": dict(
        good, players={"white": {"name": "Ann\x00"}})}]}, key=key)
    assert out.get("game") == g and out.get("final") is True  # a board knows to set this final aside
    assert request(a.url + "/static/hub.js%00")[0] == 400
    assert request(a.url + "/static/hub.js")[0] == 200
    status, out = request(a.url + "/api/remote", "POST", {"mode": "classic", "side": "white", "first": "white",
                                                          "name": "A\x00n", "kind": "browser"})
    assert status == 400 and out["error"].startswith("name: text with a NUL"), out
    status, out = request(a.url + "/api/remote", "POST", b'{"mode": "classic", "vision": NaN}')
    assert status == 400 and out["error"].startswith("vision: a finite number is expected"), out
    # nothing of it was stored; the game's channel, the other process's stream and the wall go on
    assert [s for s, _ in stored(dsn, g)] == [1]
    assert push(a, key, {"uuid": g, "events": [frame(2, turn=2)]})[0] == 200
    assert stream.next_event() == ("2", "update", frame(2, turn=2)["data"])
    stream.close()
    wait_for(lambda: wall_card(b)["seq"] == 2, "the other process's wall to show event 2")
    c = hubs(*FAST, log=tmp_path / "c.log")  # a new process starts on it
    assert request(c.url + f"/api/games/{g}")[1]["state"] == frame(2, turn=2)["data"]
    for h in (a, b, c):
        h.stop()
        assert "Traceback" not in h.logged(), h.logged()[-2000:]


def test_a_finished_game_is_replayed_before_it_is_kept_or_rated(db, hubs):
    """A final whose record is not a legal game, or not the game it claims (its result, mode or
    players), is refused naming the field and the turn (422; 400 when it is not a record at all);
    nothing of it is kept and nobody is rated; the true final is kept and rates both."""
    dsn, _ = db
    key = quin("hub", "add-table", "T", "--db", dsn).stdout.strip()
    ann = quin("hub", "add-player", "Ann", "--db", dsn).stdout.strip()
    bob = quin("hub", "add-player", "Bob", "--db", dsn).stdout.strip()
    hub = hubs(*FAST)
    game = random_game(11, max_actions=2000)
    record = to_record(game)
    g = str(uuid.uuid4())
    names = {"white": "Ann", "black": "Bob"}
    # the board's last frame shows the game's public history (engine.views.view): the final may rate
    assert push(hub, key, {"uuid": g, "events": [frame(1, game.mode, players=names, view=view(game))]})[0] == 200
    true = {"status": "over", "record": record, "result": game.result.to_json(), "mode": game.mode,
            "created": 1767225600.0, "finished": 1767229200.0,
            "players": {"white": {"name": "Ann", "code": ann}, "black": {"name": "Bob", "code": bob}}}
    swapped = copy.deepcopy(record)
    swapped["turns"][2], swapped["turns"][3] = swapped["turns"][3], swapped["turns"][2]
    other = "black" if true["result"]["winner"] == "white" else "white"
    cases = [
        (dict(true, record={"fake": True}), 400, "games[0].final.record: unknown field 'fake'"),
        (dict(true, record=swapped), 422, "games[0].final.record: turn 3 (" + swapped["turns"][2]["player"]),
        (dict(true, record=dict(record, turns=record["turns"][:-1])), 422, "games[0].final.result: the game is said"),
        (dict(true, result=dict(true["result"], winner=other)), 422, "games[0].final.result: the record ends"),
        (dict(true, result=dict(true["result"], status="win")), 400,
         "games[0].final.result.status: 'won' or 'drawn' is expected, not \"win\""),
        (dict(true, result={"winner": other}), 400, "games[0].final.result.status: 'won' or 'drawn' is expected"),
        (dict(true, result=dict(true["result"], reason=5)), 400, "games[0].final.result.reason: the reason (text)"),
        (dict(true, mode="third_eye"), 422, "games[0].final.mode: third_eye, but the record is a game of classic"),
        (dict(true, status="abandoned", result=None), 422, "games[0].final.status: abandoned, but the record ends"),
        (dict(true, players={"white": {"name": "Zed", "code": ann}, "black": {"name": "Bob", "code": bob}}), 422,
         "games[0].final.players.white.name: 'Zed', but white was shown live as 'Ann'"),
        (dict(true, record=None), 400, "games[0].final.record: a finished game's record"),
    ]
    for final, code, line in cases:
        status, out = push(hub, key, {"uuid": g, "final": final})
        assert (status, out["error"][:len(line)]) == (code, line), out
        assert out["game"] == g and out["final"] is True
    assert request(hub.url + f"/api/games/{g}")[1]["status"] == "live"
    assert request(hub.url + f"/api/games/{g}/record")[0] == 404
    assert [p["games"] for p in request(hub.url + "/api/players")[1]["players"]] == [0, 0]
    mode = {"classic": "third_eye", "third_eye": "classic"}[game.mode]  # played live as the other mode
    h = str(uuid.uuid4())
    assert push(hub, key, {"uuid": h, "events": [frame(1, mode)]})[0] == 200
    status, out = push(hub, key, {"uuid": h, "final": true})
    assert status == 422 and out["error"].startswith(f"games[0].final.mode: the record is a game of {game.mode}, "
                                                     f"but the game was played live as {mode}"), out
    status, out = push(hub, key, {"uuid": g, "final": true})
    assert status == 200, out
    assert request(hub.url + f"/api/games/{g}/record") == (200, record)
    assert [p["games"] for p in request(hub.url + "/api/players")[1]["players"]] == [1, 1]


def test_what_the_database_already_holds_never_stops_a_reader(db, hubs, tmp_path):
    """Events stored before every push was checked (700 levels deep, not JSON, not a frame, a
    patch of nothing) are skipped by the readers: a process starts, the game's page, its events,
    its stream and the wall are served, and what follows is delivered."""
    dsn, _ = db
    key = quin("hub", "add-table", "T", "--db", dsn).stdout.strip()
    hub = hubs(*FAST)
    g = str(uuid.uuid4())
    assert push(hub, key, {"uuid": g, "events": [frame(1, turn=1)]})[0] == 200
    hub.stop()
    poison = [json.dumps({"patch": [["set", ["state", "x"], nested(700)]]}), "{not json", "5", "[1, 2]",
              json.dumps({"patch": [["set", ["nowhere", "at", "all"], 1]]}), json.dumps(nested(900))]
    with psycopg.connect(dsn, autocommit=True) as conn:
        game_id = conn.execute("SELECT id FROM hub_games WHERE uuid = %s", (g,)).fetchone()[0]
        for n, text in enumerate(poison, 2):
            conn.execute("INSERT INTO hub_events(game_id, seq, data) VALUES (%s, %s, %s)", (game_id, n, text))
        conn.execute("UPDATE hub_games SET last_seq = %s WHERE id = %s", (len(poison) + 1, game_id))
    again = hubs(*FAST, log=tmp_path / "hub.log")
    status, info = request(again.url + f"/api/games/{g}")
    assert status == 200 and info["state"] == frame(1, turn=1)["data"]
    assert request(again.url + f"/api/games/{g}/events")[0] == 200
    stream = SSE(again.url + f"/api/stream/games/{g}")
    assert stream.next_event()[2] == frame(1, turn=1)["data"]
    wait_for(lambda: wall_card(again)["data"]["state"]["turn"] == 1, "the wall to show the game")
    n = len(poison) + 2
    assert push(again, key, {"uuid": g, "events": [frame(n, turn=9)]})[0] == 200
    assert stream.next_event() == (str(n), "update", frame(n, turn=9)["data"])
    stream.close()
    again.stop()
    log = again.logged()
    assert "Traceback" not in log and "is not a frame the hub takes: skipped" in log, log[-2000:]


def _closed_by_server(sock) -> bool:
    try:
        return sock.recv(65536) == b""
    except socket.timeout:
        return False
    except ConnectionResetError:
        return True


def test_connections_are_bounded(db, hubs):
    dsn, _ = db
    key = quin("hub", "add-table", "T", "--db", dsn).stdout.strip()
    quick = hubs("--idle-timeout", "0.5")
    port = int(quick.url.rsplit(":", 1)[1])
    idle = socket.create_connection(("127.0.0.1", port))
    slow = socket.create_connection(("127.0.0.1", port))
    slow.sendall(b"GET /api/games HTTP/1.1\r\nHost: hub\r\n")  # headers that never end
    for s in (idle, slow):
        s.settimeout(0.2)
        wait_for(lambda s=s: _closed_by_server(s), "the hub to close a connection idle or slow", 20)
        s.close()
    # a body over 4 MB: 413 and one line, not a reset (sent whole before the answer is read)
    status, out = request(quick.url + "/api/push", "POST", b"x" * (4 * 1024 * 1024 + 1), key=key)
    assert status == 413 and out["error"].startswith("body: at most 4194304 bytes"), out
    chunked = socket.create_connection(("127.0.0.1", port))  # no length announced: counted as it comes
    chunked.sendall(b"POST /api/push HTTP/1.1\r\nHost: hub\r\nTransfer-Encoding: chunked\r\n\r\n")
    piece = b"x" * 65536
    for _ in range(70):  # 4.4 MB
        chunked.sendall(b"%x\r\n%s\r\n" % (len(piece), piece))
    chunked.sendall(b"0\r\n\r\n")
    chunked.settimeout(20)
    assert chunked.recv(65536).startswith(b"HTTP/1.1 413 ")
    chunked.close()
    huge = socket.create_connection(("127.0.0.1", port))
    huge.sendall(b"POST /api/push HTTP/1.1\r\nHost: hub\r\nContent-Length: 999999999\r\nExpect: 100-continue\r\n\r\n")
    huge.settimeout(20)
    assert huge.recv(65536).startswith(b"HTTP/1.1 413 ")
    huge.close()
    capped = hubs("--connections-per-address", "3", "--streams-per-address", "2")
    port = int(capped.url.rsplit(":", 1)[1])
    held = [socket.create_connection(("127.0.0.1", port)) for _ in range(3)]
    for s in held:  # each is the hub's once it has answered a request on it
        s.sendall(b"GET /api/layout HTTP/1.1\r\nHost: hub\r\n\r\n")
        s.settimeout(20)
        assert s.recv(65536).startswith(b"HTTP/1.1 200 ")
    status, out, headers = request(capped.url + "/api/games", with_headers=True)
    assert status == 429 and headers["Retry-After"] == "5" and out["error"].startswith("too many connections")
    held.pop().close()
    wait_for(lambda: request(capped.url + "/api/games")[0] == 200, "a connection to be free again", 20)
    for s in held:
        s.close()


def test_a_board_sets_aside_a_final_the_hub_refuses_for_good(db, hubs, tmp_path):
    """A refused final (400 or 422 naming it) is kept aside in the board's store with the hub's
    reason and never sent again; the game's frames are pushed and acknowledged as usual."""
    dsn, _ = db
    key = quin("hub", "add-table", "T", "--db", dsn).stdout.strip()
    hub = hubs(*FAST)
    app = create_app({"DATA_DIR": str(tmp_path / "board"), "TICK": 0, "MANUAL_CLOCK": True})
    table = app.extensions["quin.table"]
    pusher = Pusher(table, hub.url, key, backoff=(0.05, 0.2))
    g = str(uuid.uuid4())
    pusher.outbox.add(g, frame(1)["data"])
    bad = {"status": "over", "record": {"fake": True}, "result": None, "mode": "classic", "players": {}}
    with table.store._tx() as c:
        c.execute("INSERT INTO hub_finals(game_uuid, data) VALUES (?, ?)", (g, json.dumps(bad)))
    pusher.start()
    try:
        wait_for(lambda: pusher.outbox.pending() == 0, "the outbox to be empty")
        with table.store._lock:
            row = table.store._conn.execute("SELECT reason FROM hub_refused WHERE game_uuid = ?", (g,)).fetchone()
            sent = table.store._conn.execute("SELECT sent FROM hub_finals WHERE game_uuid = ?", (g,)).fetchone()
        assert row[0].startswith("games[0].final.record: unknown field 'fake'") and sent[0] == 2
        assert [s for s, _ in stored(dsn, g)] == [1]
        assert request(hub.url + f"/api/games/{g}")[1]["status"] == "live"
        assert pusher.reached is True
    finally:
        pusher.stop()


# --- issue 30's second probe (a hostile prober with one table key) ------------------------------


def finished(seed=11):
    """A finished game, its final (players Ann and Bob by code filled in by the caller) and the
    board's last public frame of it (the status page's view: engine.views.view)."""
    game = random_game(seed, max_actions=2000)
    final = {"status": "over", "record": to_record(game), "result": game.result.to_json(), "mode": game.mode,
             "created": 1700000000, "finished": 1700000100}
    return game, final, {"state": {"phase": "over", "mode": game.mode, "view": view(game)}, "notices": []}


def ratings_of(hub):
    return sorted((p["name"], p["games"]) for p in request(hub.url + "/api/players")[1]["players"])


def test_a_final_rates_only_the_game_its_table_showed_and_only_once(db, hubs):
    """A table's final is rated only when the table pushed the game's frames and the last of them
    shows the record's turns (its public history); a record the archive holds rated already is
    never rated again.  Such a final is kept, and its answer and the archive say it is not rated."""
    dsn, _ = db
    key = quin("hub", "add-table", "T", "--db", dsn).stdout.strip()
    codes = {c: quin("hub", "add-player", n, "--db", dsn).stdout.strip() for c, n in (("white", "Ann"), ("black", "Bob"))}
    players = {c: {"name": n, "code": codes[c]} for c, n in (("white", "Ann"), ("black", "Bob"))}
    hub = hubs(*FAST)
    game, final, last = finished()
    final["players"] = players
    # the issue's probe: a final alone under fresh UUIDs, again and again
    for _ in range(3):
        g = str(uuid.uuid4())
        status, out = push(hub, key, {"uuid": g, "final": final})
        assert status == 200 and out["unrated"][g].startswith("not rated: the table did not push the frames"), out
        info = request(hub.url + f"/api/games/{g}")[1]
        assert info["status"] == "over" and info["rated"] == {"white": False, "black": False}
        assert info["players"] == {"white": "Ann", "black": "Bob"}
    assert ratings_of(hub) == [("Ann", 0), ("Bob", 0)]
    # frames of another game (a shorter history) rate nothing either
    g = str(uuid.uuid4())
    early = copy.deepcopy(last)
    early["state"]["view"]["history"] = early["state"]["view"]["history"][:-1]
    assert push(hub, key, {"uuid": g, "events": [{"seq": 1, "data": early}]})[0] == 200
    status, out = push(hub, key, {"uuid": g, "final": final})
    assert status == 200 and g in out["unrated"], out
    assert ratings_of(hub) == [("Ann", 0), ("Bob", 0)]
    # the game as its table showed it: rated, once
    g = str(uuid.uuid4())
    status, out = push(hub, key, {"uuid": g, "events": [{"seq": 1, "data": last}], "final": final})
    assert status == 200 and "unrated" not in out, out
    assert request(hub.url + f"/api/games/{g}")[1]["rated"] == {"white": True, "black": True}
    assert ratings_of(hub) == [("Ann", 1), ("Bob", 1)]
    before = request(hub.url + "/api/players")[1]["players"]
    h = str(uuid.uuid4())  # the same game, frames and all, under a new UUID
    status, out = push(hub, key, {"uuid": h, "events": [{"seq": 1, "data": last}], "final": final})
    assert status == 200 and out["unrated"][h] == "not rated: the archive holds this record rated already", out
    assert request(hub.url + f"/api/games/{h}")[1]["rated"] == {"white": False, "black": False}
    assert request(hub.url + "/api/players")[1]["players"] == before


def test_one_table_key_cannot_flood_the_hub_with_games(db, hubs):
    """At most 50 games in a push; a game with neither events nor a final is refused naming it; a
    table has at most 8 games in play at once (429 naming the table and the limit), and a game's
    end makes room."""
    dsn, _ = db
    key = quin("hub", "add-table", "T", "--db", dsn).stdout.strip()
    hub = hubs(*FAST)
    status, out = push(hub, key, *({"uuid": str(uuid.uuid4()), "events": [frame(1)]} for _ in range(51)))
    assert status == 400 and out["error"].startswith("games: at most 50 in one push"), out
    g = str(uuid.uuid4())
    status, out = push(hub, key, {"uuid": str(uuid.uuid4()), "events": [frame(1)]}, {"uuid": g})
    assert status == 400 and out["error"] == f"games[1]: game {g} has neither events nor a final", out
    status, out = push(hub, key, {"uuid": g, "events": []})
    assert status == 400 and out["error"].startswith("games[0]: game"), out
    playing = [str(uuid.uuid4()) for _ in range(8)]
    assert push(hub, key, *({"uuid": u, "events": [frame(1)]} for u in playing))[0] == 200
    status, out = push(hub, key, {"uuid": g, "events": [frame(1)]})
    assert status == 429 and out["error"].startswith("games: table T has 8 games in play and may have at most 8"), out
    assert request(hub.url + f"/api/games/{g}")[0] == 404
    assert len(request(hub.url + "/api/games?table=T")[1]["games"]) == 8
    # a game that ends makes room; a new game pushed with the final of another fits too
    assert push(hub, key, {"uuid": playing[0], "final": {"status": "abandoned"}})[0] == 200
    assert push(hub, key, {"uuid": g, "events": [frame(1)]})[0] == 200
    h = str(uuid.uuid4())
    assert push(hub, key, {"uuid": playing[1], "final": {"status": "abandoned"}}, {"uuid": h, "events": [frame(1)]})[0] == 200


def test_a_finished_game_cannot_be_rewritten(db, hubs):
    """After a game's final is kept: no event is taken for it (409, the game is over), a different
    final is refused (409), and the same final sent again is acknowledged (a board whose answer was
    lost retries it) with nothing changed."""
    dsn, _ = db
    key = quin("hub", "add-table", "T", "--db", dsn).stdout.strip()
    hub = hubs(*FAST)
    game, final, last = finished()
    final["players"] = {"white": {"name": "Ann"}, "black": {"name": "Bob"}}
    g = str(uuid.uuid4())
    assert push(hub, key, {"uuid": g, "events": [{"seq": 1, "data": last}], "final": final})[0] == 200
    kept = request(hub.url + f"/api/games/{g}")[1]
    renamed = copy.deepcopy(last)
    renamed["state"]["players"] = {"white": "Zed", "black": "Yan"}
    status, out = push(hub, key, {"uuid": g, "events": [{"seq": 2, "data": renamed}]})
    assert status == 409 and out["error"] == f"games[0].events: game {g} is over: no event is taken after its end", out
    other = random_game(12, max_actions=2000)
    for changed in (dict(final, record=to_record(other), result=other.result.to_json(), mode=other.mode),
                    dict(final, result={"status": "draw", "winner": None, "reason": "agreement"}),
                    dict(final, players={"white": {"name": "Zed"}, "black": {"name": "Bob"}}),
                    {"status": "abandoned"}):
        status, out = push(hub, key, {"uuid": g, "final": changed})
        assert status == 409 and out["error"].startswith(f"games[0].final: game {g} is over and kept with another"), out
        assert out["game"] == g and out["final"] is True
    status, out = push(hub, key, {"uuid": g, "events": [{"seq": 1, "data": last}], "final": final})
    assert status == 200 and out["acked"] == {g: 1}, out
    assert request(hub.url + f"/api/games/{g}")[1] == kept
    assert [s for s, _ in stored(dsn, g)] == [1]


def test_a_patch_that_does_not_apply_is_refused_and_nothing_is_stored(db, hubs):
    """Each new event's patch is applied to the game's frame before it when it is pushed: one that
    does not fit is refused naming games[i].events[j].patch and nothing of the push is stored; a
    seq or a game twice in one push is refused naming it."""
    dsn, _ = db
    key = quin("hub", "add-table", "T", "--db", dsn).stdout.strip()
    hub = hubs(*FAST)
    g = str(uuid.uuid4())
    one = frame(1, turn=1, history=[1, 2])
    assert push(hub, key, {"uuid": g, "events": [one]})[0] == 200
    h = str(uuid.uuid4())
    for patch in ([["set", ["state", "nope", "deep"], 1]], [["set", ["state", "history", 2], 1]],
                  [["set", ["state", "history", -1], 1]], [["set", [], 5]], [["add", ["state", "turn"], [1]]],
                  [["del", ["state", "nope"]]], [["set", ["state", "turn"], 2], ["del", ["notices", 0]]]):
        body = [{"uuid": h, "events": [frame(1)]},
                {"uuid": g, "events": [{"seq": 2, "data": {"patch": [["set", ["state", "turn"], 2]]}},
                                       {"seq": 3, "data": {"patch": patch}}]}]
        status, out = push(hub, key, *body)
        assert status == 400 and out["error"].startswith("games[1].events[1].data.patch"), (patch, out)
        assert [s for s, _ in stored(dsn, g)] == [1] and request(hub.url + f"/api/games/{h}")[0] == 404
    status, out = push(hub, key, {"uuid": h, "events": [{"seq": 1, "data": {"patch": [["set", ["a"], 1]]}}]})
    assert status == 400 and out["error"].startswith("games[0].events[0].data.patch: it does not follow on"), out
    status, out = push(hub, key, {"uuid": g, "events": [frame(2), frame(2, turn=3)]})
    assert status == 400 and out["error"] == f"games[0].events[1].seq: 2 is twice in game {g}", out
    status, out = push(hub, key, {"uuid": g, "events": [frame(2)]}, {"uuid": g, "events": [frame(3)]})
    assert status == 400 and out["error"] == f"games[1].uuid: game {g} is twice in one push", out
    assert [s for s, _ in stored(dsn, g)] == [1]
    assert push(hub, key, {"uuid": g, "events": [{"seq": 2, "data": {"patch": [["set", ["state", "history", 1], 5]]}}]})[0] == 200
    assert request(hub.url + f"/api/games/{g}")[1]["state"]["state"]["history"] == [1, 5]
    for after in ("-1", "1e5", "NaN", "99999999999999999999", "%EF%BC%91"):
        status, out = request(hub.url + f"/api/games/{g}/events?after={after}")
        assert status == 400 and out["error"].startswith("after: the number of an event"), (after, out)
    status, out = request(hub.url + f"/api/games/{g}/events?after=1")
    assert status == 200 and [e["seq"] for e in out["events"]] == [2], out
