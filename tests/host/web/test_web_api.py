"""The JSON API through Flask's test client: seats, setup, input, the simulated board, history, errors."""

import json
import logging
import random

import pytest

from engine.board import BLACK, SPACE_NAMES, WHITE
from engine.record import to_record

from tests.support.webplay import make, setups, started
from tests.support.webtools import board_headers


@pytest.fixture
def web(tmp_path):
    return make(tmp_path)


def seat_post(client, token, path, body, header=True):
    headers = {"X-Seat-Token": token} if header else {}
    return client.post(f"/api/seat/{token}/{path}", json=body, headers=headers)


# --- seats and tokens -------------------------------------------------------------------------


def test_seat_tokens_are_long_random_and_distinct(web):
    _, _, table = web
    tokens = list(table.tokens.values())
    assert len(set(tokens)) == 2
    assert all(len(t) >= 22 for t in tokens)  # >= 128 bits in URL-safe base64
    assert table.seat_of(tokens[0][:-1]) is None and table.seat_of("") is None and table.seat_of(None) is None


def test_public_state_has_no_seat_and_seat_state_needs_a_valid_token(web):
    _, client, table = web
    public = client.get("/api/state").get_json()
    assert public["phase"] == "setup" and "seat" not in public and public["view"] is None
    r = client.get("/api/seat/not-a-seat/state")
    assert r.status_code == 403 and r.get_json()["error"] == "unknown or revoked seat token"
    mine = client.get(f"/api/seat/{table.tokens['black']}/state").get_json()
    assert mine["seat"]["player"] == "black"
    assert sorted(mine["seat"]["start_spaces"]) == sorted(["b19", "b29", "b39", "b49", "b59", "b18", "b28", "b38", "b48", "b58"])


def test_state_changing_requests_need_the_token_in_the_header(web):
    _, client, table = web
    token = table.tokens["white"]
    white, _ = setups()
    r = seat_post(client, token, "setup", white.to_record(), header=False)
    assert r.status_code == 403 and "X-Seat-Token" in r.get_json()["error"]
    r = client.post(f"/api/seat/{token}/setup", json=white.to_record(), headers={"X-Seat-Token": table.tokens["black"]})
    assert r.status_code == 403
    assert client.get("/api/state").get_json()["setup_done"] == {"white": False, "black": False}


def test_setup_errors_name_the_field_and_change_nothing(web):
    _, client, table = web
    token = table.tokens["white"]
    white, _ = setups()
    good = white.to_record()
    bad = dict(good, removed="light")
    r = seat_post(client, token, "setup", bad)
    assert r.status_code == 400
    assert r.get_json()["error"] == "setup.white.removed: light may not be removed"
    r = seat_post(client, token, "setup", dict(good, lineup={**good["lineup"], "b19": "void"}))
    assert r.status_code == 400 and "b19" in r.get_json()["error"]
    r = client.post(f"/api/seat/{token}/setup", data="not json", headers={"X-Seat-Token": token, "Content-Type": "application/json"})
    assert r.status_code == 400 and r.get_json()["error"] == "expected a JSON object as the request body"
    assert client.get("/api/state").get_json()["setup_done"]["white"] is False


def test_a_setup_can_be_changed_until_both_are_in_then_the_game_starts(web):
    _, client, table = web
    white, black = setups()
    other_white, _ = setups(2)
    assert seat_post(client, table.tokens["white"], "setup", other_white.to_record()).status_code == 200
    state = seat_post(client, table.tokens["white"], "setup", white.to_record()).get_json()
    assert state["seat"]["setup"] == white.to_record() and state["phase"] == "setup"
    state = seat_post(client, table.tokens["black"], "setup", black.to_record()).get_json()
    assert state["phase"] == "playing"
    assert table.game.setups[WHITE] == white
    r = seat_post(client, table.tokens["white"], "setup", other_white.to_record())
    assert r.status_code == 400 and "already started" in r.get_json()["error"]


# --- inputs -------------------------------------------------------------------------------------


def test_input_before_the_game_starts_is_refused_clearly(web):
    _, client, table = web
    r = seat_post(client, table.tokens["white"], "input", {"type": "done"})
    assert r.status_code == 400
    assert r.get_json()["error"] == "the game has not started: both players must send their setup first"


def test_bad_inputs_get_400_with_the_referees_reason(web):
    driver = started(web)
    _, client, table = web
    token = table.tokens[table.game.to_move]
    rival = table.tokens[BLACK if table.game.to_move == WHITE else WHITE]
    cases = [
        ({"type": "dance"}, "type: unknown input type 'dance'"),
        ({"type": "reinforce"}, "reinforce: missing field 'pieces'"),
        ({"type": "resurrect", "piece": "dragon"}, "unknown piece 'dragon'"),
    ]
    for body, message in cases:
        r = seat_post(client, token, "input", body)
        assert r.status_code == 400 and message in r.get_json()["error"], (body, r.get_json())
    r = seat_post(client, rival, "input", {"type": "done"})
    assert r.status_code == 400 and r.get_json()["error"] == f"it is {table.game.to_move}'s turn"
    assert [i["accepted"] for i in table.store.inputs(table.row.id)] == [False] * 4
    assert len(table.game.log) == 0 and driver.shadow is not None


def test_the_mover_sees_declarations_the_rival_does_not(web):
    started(web)
    _, client, table = web
    mover = table.game.to_move
    rival = BLACK if mover == WHITE else WHITE
    mine = client.get(f"/api/seat/{table.tokens[mover]}/state").get_json()["seat"]
    theirs = client.get(f"/api/seat/{table.tokens[rival]}/state").get_json()["seat"]
    assert theirs["declarations"] is None
    d = mine["declarations"]
    assert set(d) == {"reinforce", "resurrect", "time", "swap", "flashes"}
    assert d["resurrect"] == [] and d["time"] is False  # nothing captured, no rival action yet
    assert d["flashes"] == []  # the lineups are far apart: nothing to flash on the first move


# --- the simulated board --------------------------------------------------------------------------


def test_board_endpoints_validate_spaces(web):
    _, client, table = web
    r = client.post("/api/board/toggle", json={"space": "zz9"}, headers=board_headers(table))
    assert r.status_code == 400 and r.get_json()["error"] == "space: unknown space 'zz9'"
    r = client.post("/api/board/toggle", json={}, headers=board_headers(table))
    assert r.status_code == 400 and r.get_json()["error"] == "missing field 'space'"
    r = client.post("/api/board/set", json={"occupied": "w35"}, headers=board_headers(table))
    assert r.status_code == 400
    r = client.post("/api/board/toggle", json={"space": "w35"}, headers=board_headers(table))
    assert r.get_json() == {"occupied": ["w35"]}
    assert client.post("/api/board/set", json={"start": True}, headers=board_headers(table)).status_code == 200
    assert len(client.get("/api/board").get_json()["occupied"]) == 20


def test_no_simulated_board_endpoints_on_a_real_board(tmp_path):
    _, client, table = make(tmp_path, BOARD=None)
    r = client.post("/api/board/toggle", json={"space": "w35"}, headers=board_headers(table))
    assert r.status_code == 404 and "real board" in r.get_json()["error"]
    assert client.get("/board").status_code == 404


# --- errors -------------------------------------------------------------------------------------


def test_unknown_urls_and_methods_get_json_errors_not_tracebacks(web):
    _, client, _ = web
    r = client.get("/api/nothing")
    assert r.status_code == 404 and "error" in r.get_json()
    r = client.get("/api/seat/x/input")
    assert r.status_code == 405 and "error" in r.get_json()
    assert b"Traceback" not in client.get("/nothing").data


def test_an_internal_error_is_a_short_message_and_never_logs_the_token(web, caplog):
    app, client, table = web
    token = table.tokens["white"]

    def broken(viewer=None):
        raise RuntimeError("the shadow on w38")  # an engine-like message naming a piece

    table.state = broken
    with caplog.at_level(logging.DEBUG):
        r = client.get(f"/api/seat/{token}/state")
    assert r.status_code == 500
    body = r.get_json()
    assert body["error"].startswith("internal error") and "Traceback" not in json.dumps(body)
    assert "RuntimeError" in caplog.text and "broken" in caplog.text  # the type and where
    assert token not in caplog.text and "shadow" not in caplog.text


# --- Vision Mode hints ---------------------------------------------------------------------------------


def test_vision_mode_gives_the_mover_legal_move_hints(tmp_path):
    web = make(tmp_path, VISION=True)
    started(web)
    _, client, table = web
    mover = table.game.to_move
    rival = BLACK if mover == WHITE else WHITE
    hints = client.get(f"/api/seat/{table.tokens[mover]}/state").get_json()["seat"]["hints"]
    assert hints, "the mover gets hints in Vision Mode"
    legal = {(a.to_record()["from"], a.to_record()["to"]) for a in table.game.legal_actions() if a.to_record()["type"] == "move"}
    assert {(f, t) for f, ts in hints.items() for t in ts} == legal
    assert client.get(f"/api/seat/{table.tokens[rival]}/state").get_json()["seat"]["hints"] is None


def test_no_hints_outside_vision_mode(web):
    started(web)
    _, client, table = web
    assert client.get(f"/api/seat/{table.tokens[table.game.to_move]}/state").get_json()["seat"]["hints"] is None


# --- history, replay and export ---------------------------------------------------------------------


def play_some(driver, table, n, seed=0):
    rng = random.Random(seed)
    for _ in range(n):
        if table.game.is_over():
            break
        driver.play(rng.choice(driver.shadow.legal_actions()))


def test_open_games_replay_only_public_facts_and_are_not_exported(web):
    driver = started(web)
    _, client, table = web
    play_some(driver, table, 12)
    gid = table.row.id
    listing = client.get("/api/games").get_json()["games"]
    assert listing[0]["id"] == gid and listing[0]["status"] == "playing" and listing[0]["actions"] == 12
    data = client.get(f"/api/games/{gid}").get_json()
    assert len(data["frames"]) == 13 and data["exportable"] is False
    assert all(e["piece"] is None or e["revealed"] for f in data["frames"] for e in f["board"])
    r = client.get(f"/api/games/{gid}/record")
    assert r.status_code == 403 and "hidden identities" in r.get_json()["error"]
    assert client.get("/api/games/999").status_code == 404


def test_a_finished_game_replays_with_every_identity_and_exports_its_record(web):
    driver = started(web)
    app, client, table = web
    play_some(driver, table, 10)
    game, gid = table.game, table.row.id
    r = client.post(f"/api/host/{table.host_key}/new", json={"mode": "third_eye"}, headers={"X-Host-Key": table.host_key})
    assert r.status_code == 200 and r.get_json()["game"] == gid + 1
    data = client.get(f"/api/games/{gid}").get_json()
    assert data["exportable"] and data["game"]["status"] == "abandoned"
    assert all(e["piece"] is not None for f in data["frames"] for e in f["board"])
    r = client.get(f"/api/games/{gid}/record")
    assert r.status_code == 200 and "attachment" in r.headers["Content-Disposition"]
    assert json.loads(r.data) == to_record(game)
    assert client.get("/api/state").get_json()["mode"] == "third_eye"


# --- the host -------------------------------------------------------------------------------------


def test_host_actions_need_the_host_key(web):
    _, client, table = web
    key = table.host_key
    assert client.get("/host/wrong").status_code == 403
    assert client.get(f"/host/{key}").status_code == 200
    r = client.post(f"/api/host/{key}/reissue", json={"player": "white"})
    assert r.status_code == 403  # the key must also be in the header
    r = client.post(f"/api/host/{key}/reissue", json={"player": "green"}, headers={"X-Host-Key": key})
    assert r.status_code == 400 and "player" in r.get_json()["error"]
    r = client.post(f"/api/host/{key}/new", json={"mode": "chess"}, headers={"X-Host-Key": key})
    assert r.status_code == 400 and "mode" in r.get_json()["error"]


def test_reissuing_a_seat_revokes_the_old_token(web):
    _, client, table = web
    old = table.tokens["black"]
    key = table.host_key
    assert client.post(f"/api/host/{key}/reissue", json={"player": "black"}, headers={"X-Host-Key": key}).status_code == 200
    new = table.tokens["black"]
    assert new != old
    assert client.get(f"/api/seat/{old}/state").status_code == 403
    assert client.get(f"/api/seat/{new}/state").status_code == 200
    _, black = setups()
    assert seat_post(client, old, "setup", black.to_record()).status_code == 403
    assert table.store.seats(table.row.id)["black"] == new


# --- pages -------------------------------------------------------------------------------------------


def test_pages_render_for_a_phone(web):
    _, client, table = web
    for url in ("/", "/board", "/history", f"/seat/{table.tokens['white']}", f"/host/{table.host_key}"):
        r = client.get(url)
        assert r.status_code == 200, url
        assert b'name="viewport"' in r.data and b'name="referrer" content="no-referrer"' in r.data
    assert client.get("/seat/nope").status_code == 403
    assert client.get("/").headers["Referrer-Policy"] == "no-referrer"
    layout = client.get("/api/layout").get_json()
    assert len(layout["spaces"]) == 99 and len(layout["edges"]) == 173


# --- resuming -------------------------------------------------------------------------------------------


def test_a_restarted_server_resumes_the_open_game_and_checks_the_board(tmp_path):
    web = make(tmp_path)
    driver = started(web)
    _, client, table = web
    play_some(driver, table, 8)
    log = [a for _, _, a in table.game.log]
    # Power cut mid-move: a tower of the mover is in the air.
    lifted = SPACE_NAMES[min(table.game.occupied())]
    assert client.post("/api/board/toggle", json={"space": lifted}, headers=board_headers(table)).status_code == 200
    table.store.close()

    _, client2, table2 = make(tmp_path)
    assert [a for _, _, a in table2.game.log] == log
    status = table2.ref.public_status()
    assert status["phase"] == "sync"  # the board differs: correction mode
    table2.board.clock.advance(1.0)
    table2.tick()
    state = client2.get("/api/state").get_json()
    assert state["board"]["place"] == [lifted] and state["board"]["lift"] == []
    assert state["referee"]["instructions"] == [{"do": "fill", "space": lifted, "text": f"put a tower on {lifted}"}]
    # Put the tower back: the game goes on where it stopped.
    assert client2.post("/api/board/toggle", json={"space": lifted}, headers=board_headers(table2)).status_code == 200
    table2.board.clock.advance(1.0)
    table2.tick()
    assert table2.ref.public_status()["phase"] == "play"


def test_a_stored_game_that_no_longer_replays_is_set_aside_without_naming_pieces(tmp_path):
    import sqlite3

    web = make(tmp_path)
    driver = started(web)
    _, _, table = web
    play_some(driver, table, 6)
    gid = table.row.id
    table.store.close()
    with sqlite3.connect(tmp_path / "quin.sqlite3") as c:
        # an action that is not legal where it stands (a tower that never moved there)
        c.execute("UPDATE actions SET action = ? WHERE game_id = ? AND seq = 3",
                  (json.dumps({"type": "move", "from": "w19", "to": "hw5"}), gid))
    _, client, table2 = make(tmp_path)
    state = client.get("/api/state").get_json()
    assert state["game"] == gid + 1 and state["phase"] == "setup"
    assert state["notice"] == f"game {gid} could not be resumed: its stored action 3 no longer replays"
    assert table2.store.game(gid).status == "abandoned"
