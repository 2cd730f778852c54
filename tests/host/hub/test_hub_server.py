"""The hub on a real PostgreSQL with real `quin hub serve` processes (issue 20): keys, idempotent
pushes, several processes on one database woken by LISTEN/NOTIFY, streams resumed by
Last-Event-ID from any process, the read formats, ratings."""

import json
import uuid

import psycopg

from tests.support.hub_client import SSE, request
from tests.support.hubproc import quin, wait_for
from tests.support.pushing_board import rebuild

from engine.randplay import random_game
from engine.record import to_record
from engine.views import view


def event(seq, turn):
    return {"seq": seq, "data": {"state": {"phase": "play", "mode": "classic", "turn": turn}, "notices": []}}


def add_table(dsn, name):
    return quin("hub", "add-table", name, "--db", dsn).stdout.strip()


def test_add_table_prints_a_key_and_refuses_a_name_twice(db):
    dsn, _ = db
    key = add_table(dsn, "Table 1")
    assert key.startswith("qt_") and len(key) > 20
    again = quin("hub", "add-table", "Table 1", "--db", dsn, check=False)
    assert again.returncode == 2 and "already a table named 'Table 1'" in again.stderr
    assert "Traceback" not in again.stderr
    with psycopg.connect(dsn) as conn:  # only the key's hash is kept
        assert conn.execute("SELECT count(*) FROM hub_tables WHERE key_hash = %s", (key,)).fetchone()[0] == 0


def test_no_database_is_one_line(tmp_path):
    out = quin("hub", "add-table", "x", "--db", "postgresql://quin@127.0.0.1:1/none", check=False)
    assert out.returncode == 2 and out.stderr.startswith("quin: the hub's database is not reached")


def test_keys_push_only_their_own_games_and_spectators_read_only(db, hubs):
    dsn, _ = db
    k1, k2 = add_table(dsn, "one"), add_table(dsn, "two")
    hub = hubs()
    g = str(uuid.uuid4())
    body = {"games": [{"uuid": g, "events": [event(1, 1)]}]}
    assert request(hub.url + "/api/push", "POST", body)[0] == 401  # a spectator cannot push
    assert request(hub.url + "/api/push", "POST", body, key="qt_wrong")[0] == 403
    status, out = request(hub.url + "/api/push", "POST", body, key=k1)
    assert status == 200 and out["acked"] == {g: 1} and out["table"] == "one"
    # the other table's key may not add to this game
    status, out = request(hub.url + "/api/push", "POST", {"games": [{"uuid": g, "events": [event(2, 2)]}]}, key=k2)
    assert status == 403 and "another table" in out["error"]
    status, info = request(hub.url + f"/api/games/{g}")
    assert status == 200 and info["events"] == 1 and info["table"] == "one"


def test_bad_pushes_are_refused_naming_the_field_and_change_nothing(db, hubs):
    dsn, name = db
    key = add_table(dsn, "t")
    hub = hubs()
    g = str(uuid.uuid4())
    for body, field in [
        ({"games": "x"}, "games"),
        ({"games": [{"uuid": "nope"}]}, "games[0].uuid"),
        ({"games": [{"uuid": g, "events": [event(1, 1), {"seq": -3, "data": {}}]}]}, "games[0].events[1].seq"),
        ({"games": [{"uuid": g, "events": [{"seq": 1, "data": []}]}]}, "games[0].events[0].data"),
        ({"games": [{"uuid": g, "final": {"status": "won"}}]}, "games[0].final.status"),
    ]:
        status, out = request(hub.url + "/api/push", "POST", body, key=key)
        assert status == 400 and out["error"].startswith(field), out
    assert request(hub.url + "/api/push", "POST", b"{not json", key=key)[0] == 400
    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT count(*) FROM hub_events").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM hub_games").fetchone()[0] == 0


def test_pushes_are_idempotent(db, hubs):
    dsn, _ = db
    key = add_table(dsn, "t")
    hub = hubs()
    g = str(uuid.uuid4())
    batch = {"games": [{"uuid": g, "events": [event(1, 1), event(2, 1), event(3, 2)]}]}
    for _ in range(3):
        assert request(hub.url + "/api/push", "POST", batch, key=key)[1]["acked"] == {g: 3}
    # an overlapping retry (2..4) adds only 4
    request(hub.url + "/api/push", "POST", {"games": [{"uuid": g, "events": [event(2, 1), event(3, 2), event(4, 3)]}]},
            key=key)
    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT seq FROM hub_events ORDER BY seq").fetchall() == [(1,), (2,), (3,), (4,)]


def test_a_pushed_event_is_stored_as_its_exact_text_whatever_it_holds(db, hubs):
    """Quotes, backslashes, escaped characters, line breaks inside strings: the database holds
    each event as the hub writes its JSON text, character for character, by the usual push (new
    events of a live game) as by the first, and the streams get it so.  A NUL is the one character
    refused (issue 30: PostgreSQL's text holds none; 400 naming where it is, nothing stored)."""
    dsn, _ = db
    key = add_table(dsn, "t")
    a, b = hubs(), hubs()
    g = str(uuid.uuid4())
    odd = ['say "hi"', "back\\slash \\u0041", "caf\u00e9 \u2603 \U0001f600", "nul \\u0000 end", "line\nbreak\ttab",
           "%s %(x)s $1 ?"]
    nul = {"seq": 1, "data": {"state": {"phase": "play", "names": ["nul \x00 end"]}, "notices": []}}
    status, out = request(a.url + "/api/push", "POST", {"games": [{"uuid": g, "events": [nul]}]}, key=key)
    assert status == 400 and out["error"].startswith("games[0].events[0].data.state.names[0]: text with a NUL")
    events = [{"seq": n, "data": {"state": {"phase": "play", "mode": "classic", "names": [text, n]}, "notices": [text]}}
              for n, text in enumerate(odd, 1)]
    request(a.url + "/api/push", "POST", {"games": [{"uuid": g, "events": events[:1]}]}, key=key)
    stream = SSE(b.url + f"/api/stream/games/{g}")
    assert stream.next_event() == ("1", "update", events[0]["data"])
    request(a.url + "/api/push", "POST", {"games": [{"uuid": g, "events": events[1:3]}]}, key=key)
    for e in events[3:]:
        request(a.url + "/api/push", "POST", {"games": [{"uuid": g, "events": [e]}]}, key=key)
    for e in events[1:]:
        assert stream.next_event() == (str(e["seq"]), "update", e["data"])
    stream.close()
    with psycopg.connect(dsn) as conn:
        held = conn.execute("SELECT seq, data FROM hub_events ORDER BY seq").fetchall()
    assert held == [(e["seq"], json.dumps(e["data"], separators=(",", ":"))) for e in events]


def test_two_processes_one_database_streams_wake_and_resume_anywhere(db, hubs):
    dsn, _ = db
    key = add_table(dsn, "t")
    a, b = hubs(), hubs()
    g = str(uuid.uuid4())
    request(a.url + "/api/push", "POST", {"games": [{"uuid": g, "events": [event(1, 1)]}]}, key=key)
    stream = SSE(b.url + f"/api/stream/games/{g}")
    wall = SSE(b.url + "/api/stream/wall")
    assert stream.next_event() == ("1", "update", event(1, 1)["data"])
    _, name, board = wall.next_event()
    assert name == "board" and board["game"] == g
    # pushed to process a; process b's spectators hear of it (NOTIFY); the wall gets each card whole
    # once, then patches of it
    for seq in (2, 3):
        request(a.url + "/api/push", "POST", {"games": [{"uuid": g, "events": [event(seq, seq)]}]}, key=key)
        assert stream.next_event() == (str(seq), "update", event(seq, seq)["data"])
        while board["seq"] < seq:
            _, name, data = wall.next_event()
            if name == "board":
                board = data
            else:
                assert name == "patch" and data["table"] == "t"
                board = json.loads(rebuild([(1, json.dumps(board)), (2, json.dumps(data))])[1][1])
        assert board["seq"] == seq and board["table"] == "t" and board["data"] == event(seq, seq)["data"]
    stream.close()
    b.kill()  # the spectator's process dies: it reconnects to the other with its Last-Event-ID
    request(a.url + "/api/push", "POST", {"games": [{"uuid": g, "events": [event(4, 4), event(5, 5)]}]}, key=key)
    again = SSE(a.url + f"/api/stream/games/{g}", last_event_id="3")
    assert [again.next_event()[0] for _ in range(2)] == ["4", "5"]
    again.close()


def test_the_other_process_hands_on_a_push_of_several_events_in_order_as_one_notification_brings_them(db, hubs):
    """A push of several events (a board catching up, or batching behind a busy hub): the process
    that did not take it hands them to its streams in order, from the notification or by reading
    them back, and a stream resumed there starts after the last."""
    dsn, _ = db
    key = add_table(dsn, "t")
    a, b = hubs(), hubs()
    g = str(uuid.uuid4())
    request(a.url + "/api/push", "POST", {"games": [{"uuid": g, "events": [event(1, 1)]}]}, key=key)
    stream = SSE(b.url + f"/api/stream/games/{g}")
    assert stream.next_event() == ("1", "update", event(1, 1)["data"])
    big = {"seq": 7, "data": {"state": {"phase": "play", "mode": "classic", "turn": 7, "pad": "x" * 8000},
                              "notices": []}}  # too long for a notification: read back
    for batch in ([event(2, 2), event(3, 3), event(4, 4)], [event(5, 5)], [event(6, 6), big, event(8, 8)]):
        assert request(a.url + "/api/push", "POST", {"games": [{"uuid": g, "events": batch}]}, key=key)[0] == 200
        for e in batch:
            assert stream.next_event() == (str(e["seq"]), "update", e["data"])
    stream.close()
    again = SSE(b.url + f"/api/stream/games/{g}", last_event_id="5")
    assert [again.next_event()[0] for _ in range(3)] == ["6", "7", "8"]
    again.close()


def test_read_formats_archive_and_ratings(db, hubs):
    dsn, _ = db
    key = add_table(dsn, "club")
    ann = quin("hub", "add-player", "Ann", "--db", dsn).stdout.strip()
    bob = quin("hub", "add-player", "Bob", "--db", dsn).stdout.strip()
    hub = hubs()
    g = str(uuid.uuid4())
    game = random_game(7, max_actions=2000)  # a finished game: the hub replays the record it is sent
    record, result = to_record(game), game.result.to_json()
    assert game.mode == "classic" and result["winner"] is not None
    assert request(hub.url + f"/api/games/{g}/record")[0] == 404
    request(hub.url + "/api/push", "POST", {"games": [{"uuid": g, "events": [event(1, 1)]}]}, key=key)
    assert request(hub.url + f"/api/games/{g}/record")[0] == 404  # not over: no record
    final = {"status": "over", "record": record, "result": result,
             "created": 1767225600.0, "finished": 1767229200.0, "mode": "classic",
             "players": {"white": {"code": ann}, "black": {"code": bob}}}
    # the board's last frame shows the game's public history (engine.views.view): the final rates
    over = {"seq": 2, "data": {"state": {"phase": "over", "mode": "classic", "view": view(game)}, "notices": []}}
    request(hub.url + "/api/push", "POST", {"games": [{"uuid": g, "events": [over], "final": final}]}, key=key)
    assert request(hub.url + f"/api/games/{g}/record") == (200, record)
    status, index = request(hub.url + f"/api/games?player=ann&date=2026-01-01&result={result['winner']}&table=club")
    assert status == 200 and [x["uuid"] for x in index["games"]] == [g]
    assert index["games"][0]["players"] == {"white": "Ann", "black": "Bob"}
    assert request(hub.url + "/api/games?player=zed")[1]["games"] == []
    assert request(hub.url + "/api/games?date=yesterday")[0] == 400
    status, info = request(hub.url + f"/api/games/{g}")
    assert info["status"] == "over" and info["state"] == over["data"] and info["record"] == record
    assert [e["seq"] for e in request(hub.url + f"/api/games/{g}/events")[1]["events"]] == [1, 2]
    assert request(hub.url + "/api/export?table=club")[1]["games"][0]["record"] == record
    players = request(hub.url + "/api/players")[1]["players"]
    winner = {"white": "Ann", "black": "Bob"}[result["winner"]]
    assert players[0]["name"] == winner and players[0]["rating"] > players[1]["rating"]
    # the same final again (a retried push) rates nothing twice
    request(hub.url + "/api/push", "POST", {"games": [{"uuid": g, "final": final}]}, key=key)
    assert [p["games"] for p in request(hub.url + "/api/players")[1]["players"]] == [1, 1]
    for page in ("/", "/archive", "/leaderboard", f"/games/{g}", "/static/hub.js"):
        assert request(hub.url + page)[0] == 200


def test_pushes_are_rate_limited_per_table(db, hubs):
    dsn, _ = db
    key, other = add_table(dsn, "busy"), add_table(dsn, "calm")
    hub = hubs("--push-rate", "1")  # bursts of 4
    g = str(uuid.uuid4())
    answers = [request(hub.url + "/api/push", "POST", {"games": [{"uuid": g, "events": [event(n, n)]}]}, key=key,
                       with_headers=True) for n in range(1, 9)]
    codes = [a[0] for a in answers]
    assert codes[:4] == [200] * 4 and 429 in codes[4:]
    status, out, headers = next(a for a in answers if a[0] == 429)
    assert out["error"].startswith("too many pushes for this table; retry after")
    assert headers["Retry-After"].isdigit() and 1 <= int(headers["Retry-After"]) <= 2
    # another table is not held back by the busy one
    h = str(uuid.uuid4())
    assert request(hub.url + "/api/push", "POST", {"games": [{"uuid": h, "events": [event(1, 1)]}]}, key=other)[0] == 200


def test_open_streams_are_capped_per_address(db, hubs):
    dsn, _ = db
    hub = hubs("--streams-per-address", "2")
    first, second = SSE(hub.url + "/api/stream/wall"), SSE(hub.url + "/api/stream/wall")
    assert (first.status, second.status) == (200, 200)
    third = SSE(hub.url + "/api/stream/wall")
    assert third.status == 429 and third.headers["Retry-After"] == "5"
    assert b"too many streams open from this address" in third.resp.read()
    third.close()
    first.close()
    # still healthy (its LISTEN connection may come up a moment after the process serves)
    wait_for(lambda: request(hub.url + "/api/health")[1].get("listening") is True, "the hub to listen")
    status, health = request(hub.url + "/api/health")
    assert status == 200 and health["database"] is True and health["listening"] is True


def test_a_process_forgets_finished_games_nobody_watches_and_the_wall_shows_each_tables_newest(db, hubs):
    dsn, _ = db
    key, other = add_table(dsn, "a"), add_table(dsn, "b")
    hub = hubs()
    old, new, elsewhere = (str(uuid.uuid4()) for _ in range(3))
    push = lambda body, k=key: request(hub.url + "/api/push", "POST", body, key=k)  # noqa: E731
    push({"games": [{"uuid": old, "events": [event(1, 1)]}]})
    push({"games": [{"uuid": old, "final": {"status": "abandoned"}}]})
    push({"games": [{"uuid": new, "events": [event(1, 1)]}]})
    push({"games": [{"uuid": elsewhere, "events": [event(1, 1)]}]}, other)
    # table a's newest game and table b's: the steady state, not a moment between wakes
    wait_for(lambda: (lambda h: h["games_in_memory"] == 2 and h["wall"] == 2)(request(hub.url + "/api/health")[1]),
             "two games in memory and on the wall")
    wall = SSE(hub.url + "/api/stream/wall")
    shown = {wall.next_event()[2]["game"] for _ in range(2)}
    assert shown == {new, elsewhere}
    wall.close()
    # a forgotten game is read again when asked for
    stream = SSE(hub.url + f"/api/stream/games/{old}")
    assert stream.next_event()[0] == "1"
    stream.close()


def test_pushes_are_rate_limited_per_address_whatever_the_keys(db, hubs):
    """Many tables behind one address (or one client trying keys) are held back together: 4 times a
    table's rate (1 a second, bursts of 4, with --push-rate 0.25); each key here pushes once, within
    its own burst of 1.  (12 pushes would have to take over 8 s for the address not to be held back.)"""
    dsn, _ = db
    keys = [add_table(dsn, f"t{i}") for i in range(12)]
    hub = hubs("--push-rate", "0.25")
    answers = [request(hub.url + "/api/push", "POST", {"games": [{"uuid": str(uuid.uuid4()), "events": [event(1, 1)]}]},
                       key=key, with_headers=True) for key in keys]
    codes = [a[0] for a in answers]
    assert codes[:4] == [200] * 4 and 429 in codes[4:]
    for status, out, headers in answers:
        if status == 429:
            assert out["error"].startswith("too many pushes from this address; retry after"), out
            assert int(headers["Retry-After"]) >= 1
    # a wrong key is counted against the address too: guessing keys is held back the same way
    assert request(hub.url + "/api/push", "POST", {"games": []}, key="qt_guess")[0] == 429


def test_streams_opened_are_rate_limited_per_address(db, hubs):
    dsn, _ = db
    key = add_table(dsn, "t")
    hub = hubs("--stream-rate", "0.5")  # bursts of 2
    # a table on the wall: a wall stream answers at once with it (an empty wall answers at its first keep-alive)
    request(hub.url + "/api/push", "POST", {"games": [{"uuid": str(uuid.uuid4()), "events": [event(1, 1)]}]}, key=key)
    answers = []
    for _ in range(6):
        s = SSE(hub.url + "/api/stream/wall")
        answers.append((s.status, s.headers.get("Retry-After")))
        s.close()
    assert [a[0] for a in answers[:2]] == [200] * 2 and 429 in [a[0] for a in answers[2:]]
    assert next(int(r) for st, r in answers if st == 429) >= 1
    # a game's stream is counted the same way
    assert SSE(hub.url + f"/api/stream/games/{uuid.uuid4()}").status == 429
