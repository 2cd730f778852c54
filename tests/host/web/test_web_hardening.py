"""Issue 10's defects in the web layer, each as found: no 500, strict fields, a rejected request changes nothing."""

import json
import random

import pytest

from engine.board import BLACK, WHITE
from engine.randplay import random_setup
from host.compose import create_app

from tests.support.webplay import Driver
from tests.support.webtools import board_headers

HUGE = "9223372036854775808"  # one past SQLite's largest integer


@pytest.fixture
def web(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path), "TICK": 0, "MANUAL_CLOCK": True})
    return app, app.test_client(), app.extensions["quin.table"]


def host_post(client, table, path, body=None, raw=None):
    key = table.host_key
    headers = {"X-Host-Key": key, "Content-Type": "application/json"}
    data = raw if raw is not None else json.dumps(body)
    return client.post(f"/api/host/{key}/{path}", data=data, headers=headers)


def playing(web, seed=1):
    _, client, table = web
    rng = random.Random(seed)
    driver = Driver(client, table)
    driver.setup(random_setup(rng, WHITE), random_setup(rng, BLACK))
    return driver


@pytest.mark.parametrize("body, field", [({"mode": "bogus"}, "mode"), ({"first": "green"}, "first"),
                                         ({"vision": "false"}, "vision"), ({"vision": 0}, "vision"),
                                         ({"mode": "classic", "colour": "red"}, "colour")])
def test_a_rejected_new_game_abandons_nothing(web, body, field):
    _, client, table = web
    playing(web)
    game_id, log = table.row.id, list(table.game.log)
    r = host_post(client, table, "new", body)
    assert r.status_code == 400 and field in r.get_json()["error"]
    assert table.row.id == game_id and table.store.game(game_id).status == "playing"
    assert client.get(f"/api/games/{game_id}/record").status_code == 403  # still secret
    assert table.game.log == log


def test_vision_as_a_string_does_not_start_a_vision_game(web):
    _, client, table = web
    assert host_post(client, table, "new", {"vision": "false"}).status_code == 400
    assert host_post(client, table, "new", {"vision": False}).status_code == 200
    assert client.get("/api/state").get_json()["vision"] is False


@pytest.mark.parametrize("path", [f"/api/games/{HUGE}", f"/api/games/{HUGE}/record", f"/history/{HUGE}",
                                  "/api/games/-1", "/api/games/0"])
def test_game_numbers_beyond_sqlite_are_not_found(web, path):
    _, client, _ = web
    r = client.get(path)
    assert r.status_code == 404 and b"Traceback" not in r.data


def deep_bodies():
    yield "[" * 1000 + "]" * 1000
    yield '{"a":' * 1000 + "1" + "}" * 1000
    yield '{"space": [' + "[" * 20 + "]" * 20 + "]}"


@pytest.mark.parametrize("raw", list(deep_bodies()))
def test_deeply_nested_json_is_a_400_on_every_post_route(web, raw):
    _, client, table = web
    token = table.tokens[WHITE]
    routes = [("/api/board/toggle", board_headers(table)), ("/api/board/set", board_headers(table)),
              (f"/api/seat/{token}/setup", {"X-Seat-Token": token}),
              (f"/api/seat/{token}/input", {"X-Seat-Token": token}),
              (f"/api/host/{table.host_key}/new", {"X-Host-Key": table.host_key}),
              (f"/api/host/{table.host_key}/reissue", {"X-Host-Key": table.host_key})]
    for url, headers in routes:
        r = client.post(url, data=raw, headers={"Content-Type": "application/json", **headers})
        assert r.status_code == 400, (url, r.status_code)
        assert "JSON" in r.get_json()["error"] or "expected" in r.get_json()["error"]
    assert table.row.id == 1 and client.get("/api/board").get_json()["occupied"] == []


@pytest.mark.parametrize("raw, message", [
    ('{"space": ' + "1" * 5000 + "}", "a number of more than 40 characters"),
    ('{"space": "w35", "space": "w36"}', "given twice"),
    ('{"space": NaN}', "NaN is not a number"),
])
def test_json_that_parses_loosely_elsewhere_is_refused(web, raw, message):
    _, client, table = web
    r = client.post("/api/board/toggle", data=raw, headers={"Content-Type": "application/json", **board_headers(table)})
    assert r.status_code == 400 and message in r.get_json()["error"]
    assert client.get("/api/board").get_json()["occupied"] == []


@pytest.mark.parametrize("body", [{"start": "true"}, {"start": 1}, {"start": True, "occupied": []},
                                  {"occupied": ["w35"], "x": 1}, {}])
def test_board_set_fields_are_strict(web, body):
    _, client, table = web
    r = client.post("/api/board/set", json=body, headers=board_headers(table))
    assert r.status_code == 400
    assert client.get("/api/board").get_json()["occupied"] == []


def test_a_body_over_64_kb_is_a_413_and_is_not_stored(web):
    _, client, table = web
    driver = playing(web)
    token = table.tokens[table.game.to_move]
    before = len(table.store.inputs(table.row.id))
    r = client.post(f"/api/seat/{token}/input", data=json.dumps({"type": "x" * 70000}),
                    headers={"X-Seat-Token": token, "Content-Type": "application/json"})
    assert r.status_code == 413 and r.get_json()["error"] == "the request body is too large: at most 64 KB"
    assert len(table.store.inputs(table.row.id)) == before
    assert driver.shadow is not None


def test_a_rejected_input_is_stored_as_a_bounded_summary(web):
    _, client, table = web
    playing(web)
    token = table.tokens[table.game.to_move]
    body = {"type": "dance", "junk": "y" * 60000}
    r = client.post(f"/api/seat/{token}/input", json=body, headers={"X-Seat-Token": token})
    assert r.status_code == 400
    (stored,) = [i for i in table.store.inputs(table.row.id) if not i["accepted"]]
    assert stored["data"] == {"summary": True, "bytes": len(json.dumps(body)), "type": "dance"}


def test_the_inputs_table_is_capped(tmp_path, monkeypatch):
    import host.store.games as store_module  # where the Store keeps its limits
    from host.store import Store

    monkeypatch.setattr(store_module, "INPUTS_LIMIT", 5)
    store = Store(tmp_path / "q.sqlite3")
    gid = store.new_game("classic", False, WHITE, {"white": "a", "black": "b"})
    for n in range(12):
        store.record_input(gid, WHITE, {"type": "done", "n": n}, False)
    assert [i["data"]["n"] for i in store.inputs(gid)] == [7, 8, 9, 10, 11]


def test_a_damaged_action_row_is_not_a_500(web, tmp_path):
    import sqlite3

    _, client, table = web
    driver = playing(web)
    for _ in range(3):
        driver.play(random.Random(2).choice(driver.shadow.legal_actions()))
    gid = table.row.id
    with sqlite3.connect(tmp_path / "quin.sqlite3") as c:
        c.execute("UPDATE actions SET action = '{not json' WHERE game_id = ? AND seq = 2", (gid,))
    r = client.get(f"/api/games/{gid}")
    assert r.status_code == 200
    body = r.get_json()
    assert body["game"]["damaged"] == "its action 2" and len(body["frames"]) == 2 and body["exportable"] is False
    listing = client.get("/api/games").get_json()["games"]
    assert listing[0]["id"] == gid


def test_a_damaged_game_row_is_listed_as_damaged_and_others_are_served(web, tmp_path):
    import sqlite3

    _, client, table = web
    host_post(client, table, "new", {})
    with sqlite3.connect(tmp_path / "quin.sqlite3") as c:
        c.execute("UPDATE games SET white_setup = '{bad', result = '[' WHERE id = 1")
    games = {g["id"]: g for g in client.get("/api/games").get_json()["games"]}
    assert games[1]["damaged"] == "its white setup and result" and games[2]["damaged"] is None
    assert client.get("/api/games/1").status_code == 200
    r = client.get("/api/games/1/record")
    assert r.status_code == 409 and "damaged" in r.get_json()["error"]
    assert client.get("/api/games/2").status_code == 200
