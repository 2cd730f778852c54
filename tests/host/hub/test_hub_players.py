"""Players at the hub (issue 20): the name a player gives on their phone at setup, and the player
code the hub issued (`quin hub add-player NAME`), so that ratings follow the person.

The phone sends ``player: {name, code}`` with its lineup.  The name is public (the status page, the
public stream and so the hub's wall show who plays); the code is shown to nobody but its own seat
and reaches the hub only in the final push.  A code the hub does not know is refused on the phone
in one line when the hub is reached; when it is not, the board takes the code as given and the hub
rates by it if it knows it, else keeps the name as an unrated guest.
"""

import json
import socket
import threading

import psycopg

from tests.support.hub_client import request
from tests.support.hubproc import HubProcess, quin, wait_for
from tests.support.pushing_board import Board

from engine.board import BLACK, WHITE
from engine.game import Game
from engine.randplay import random_setup
from host.compose import create_app


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def setup_with(board: Board, who: dict) -> None:
    """Both lineups, each sent with ``who[player]`` as the phone sends it; then play may start."""
    rng = board.rng
    setups = {WHITE: random_setup(rng, WHITE), BLACK: random_setup(rng, BLACK)}
    for p in (WHITE, BLACK):
        board.driver.seat_post(p, "setup", dict(setups[p].to_record(), player=who[p]))
    game = board.table.game
    board.driver.shadow = Game(setups[WHITE], setups[BLACK], game.mode, game.vision, game.first)
    board.driver.board(game.occupied())
    board.driver.wait(0.5)
    board.shadow = Game(setups[WHITE], setups[BLACK], board.mode)


def seat_post(board: Board, player: str, body: dict):
    token = board.table.tokens[player]
    r = board.driver.client.post(f"/api/seat/{token}/setup", json=body, headers={"X-Seat-Token": token})
    return r.status_code, r.get_json()


def lineup(board: Board, player: str) -> dict:
    return random_setup(board.rng, player).to_record()


def ann_and_bob_at_a_table(dsn, hubs, tmp_path):
    """A hub that knows a table and the players Ann and Bob: (Ann's code, Bob's code, the hub, a
    board pushing to it)."""
    key = quin("hub", "add-table", "Table 1", "--db", dsn).stdout.strip()
    ann = quin("hub", "add-player", "Ann", "--db", dsn).stdout.strip()
    bob = quin("hub", "add-player", "Bob", "--db", dsn).stdout.strip()
    hub = hubs()
    return ann, bob, hub, Board(tmp_path / "b", hub.url, key, seed=21)


def test_names_show_live_codes_stay_private_and_the_finished_game_rates_both_players(db, hubs, tmp_path):
    dsn, _ = db
    ann, bob, hub, board = ann_and_bob_at_a_table(dsn, hubs, tmp_path)
    try:
        # the phones: Ann with her code, Bob with his code typed in capitals and a nickname
        setup_with(board, {WHITE: {"name": "Ann", "code": ann}, BLACK: {"name": " Bobby  B ", "code": bob.upper()}})
        public = board.driver.get("/api/state", "public")
        assert public["players"] == {"white": "Ann", "black": "Bobby B"}
        text = json.dumps(public)
        assert ann not in text and bob not in text  # a code is nobody else's business
        white = board.driver.get(f"/api/seat/{board.table.tokens[WHITE]}/state", WHITE)
        assert white["seat"]["me"] == {"name": "Ann", "code": ann}
        black = board.driver.get(f"/api/seat/{board.table.tokens[BLACK]}/state", BLACK)
        assert ann not in json.dumps(black)
        board.play(actions=8)
        wait_for(board.drained, "the live frames")
        uuid = board.table.row.uuid
        # live: the wall's frames carry the names (as the status page shows them), never a code
        status, info = request(hub.url + f"/api/games/{uuid}")
        assert info["state"]["state"]["players"] == {"white": "Ann", "black": "Bobby B"}
        with psycopg.connect(dsn) as conn:
            events = conn.execute("SELECT data FROM hub_events").fetchall()
            assert events and not any("qp_" in d for (d,) in events)
            assert conn.execute("SELECT white, black, white_name FROM hub_games").fetchone() == (None, None, None)
        shadow = board.play()  # to the end: the final record brings the codes
        # (the record is queued on the pusher's next round, which may come after the outbox was
        # first seen empty: waited for at the hub)
        wait_for(lambda: board.drained() and request(hub.url + f"/api/games/{uuid}")[1].get("status") == "over",
                 "the record")
        status, info = request(hub.url + f"/api/games/{uuid}")
        assert info["status"] == "over"
        # a rated player is shown by the hub's name for their code
        assert info["players"] == {"white": "Ann", "black": "Bob"} and info["rated"] == {"white": True, "black": True}
        assert "players" not in info["record"]  # the record is quin-record/1 as the spec has it
        players = {p["name"]: p for p in request(hub.url + "/api/players")[1]["players"]}
        assert players["Ann"]["games"] == players["Bob"]["games"] == 1
        winner = shadow.result.winner
        if winner:
            won, lost = ("Ann", "Bob") if winner == WHITE else ("Bob", "Ann")
            assert players[won]["mu"] > players[lost]["mu"]
        assert [g["uuid"] for g in request(hub.url + "/api/games?player=bob")[1]["games"]] == [uuid]
    finally:
        board.stop()


def test_a_finished_games_record_waits_for_the_frame_that_shows_it_over(db, hubs, tmp_path):
    """The store marks a game over, and backs itself up, before the frame showing it over is
    published.  A pusher round in between must not send the record ahead of that frame: the hub
    rates a game only when its last live frame shows the record's turns.  The backup is held open
    on an event until a whole pusher round has run with the game over in the store."""
    dsn, _ = db
    ann, bob, hub, board = ann_and_bob_at_a_table(dsn, hubs, tmp_path)
    store, pusher = board.table.store, board.pusher
    backing_up, release, round_begun, round_done = (threading.Event() for _ in range(4))
    real_backup, real_add_finals, real_push_all = store.backup, pusher.outbox.add_finals, pusher._push_all

    def held_backup():  # the game is over in the store; its last frame is not published yet
        backing_up.set()
        assert release.wait(60), "the test never let the backup finish"
        return real_backup()

    def add_finals(*args, **kw):
        if backing_up.is_set():
            round_begun.set()
        return real_add_finals(*args, **kw)

    def push_all():
        delay = real_push_all()
        if round_begun.is_set():
            round_done.set()
        return delay

    store.backup, pusher.outbox.add_finals, pusher._push_all = held_backup, add_finals, push_all
    ended = []
    try:
        setup_with(board, {WHITE: {"name": "Ann", "code": ann}, BLACK: {"name": "Bob", "code": bob}})
        player = threading.Thread(target=lambda: ended.append(board.play()), daemon=True)
        player.start()
        assert backing_up.wait(60), "the game never ended"
        assert round_done.wait(60), "the pusher ran no round while the game's end was being stored"
        release.set()
        player.join(60)
        assert ended, "the last action was never committed"
        uuid = board.table.row.uuid
        wait_for(lambda: board.drained() and request(hub.url + f"/api/games/{uuid}")[1].get("status") == "over",
                 "the record")
        info = request(hub.url + f"/api/games/{uuid}")[1]
        assert info["rated"] == {"white": True, "black": True}
        assert info["players"] == {"white": "Ann", "black": "Bob"}
    finally:
        release.set()
        board.stop()


def test_a_code_the_hub_does_not_know_is_one_line_on_the_phone_and_changes_nothing(db, hubs, tmp_path):
    dsn, _ = db
    key = quin("hub", "add-table", "t", "--db", dsn).stdout.strip()
    hub = hubs()
    board = Board(tmp_path / "b", hub.url, key, seed=2)
    try:
        status, out = seat_post(board, WHITE, dict(lineup(board, WHITE), player={"name": "Cy", "code": "qp_0000beef"}))
        assert status == 400 and out["error"] == ("Player code: the club's hub does not know qp_0000beef; check it with whoever runs "
                                                  "the hub, or leave it empty to play unrated")
        assert "\n" not in out["error"]
        status, out = seat_post(board, WHITE, dict(lineup(board, WHITE), player={"name": "Cy", "code": "ann"}))
        assert status == 400 and out["error"].startswith("Player code: 'ann' is not one: a code is qp_ and 8 of the digits 0-9 and letters a-f")
        status, out = seat_post(board, WHITE, dict(lineup(board, WHITE), player={"name": "x" * 41}))
        assert status == 400 and out["error"].startswith("Your name: at most 40")
        status, out = seat_post(board, WHITE, dict(lineup(board, WHITE), player={"name": "Cy", "age": 3}))
        assert status == 400 and out["error"] == "player: unknown field 'age'"
        state = board.driver.get("/api/state", "public")
        assert state["setup_done"] == {"white": False, "black": False}  # nothing was kept
        assert state["players"] == {"white": None, "black": None}
        # a known code with no name: the hub's name for it
        dee = quin("hub", "add-player", "Dee", "--db", dsn).stdout.strip()
        status, out = seat_post(board, WHITE, dict(lineup(board, WHITE), player={"name": "", "code": dee}))
        assert status == 200 and out["seat"]["me"] == {"name": "Dee", "code": dee}
        # a lineup without a player is as before
        status, out = seat_post(board, BLACK, lineup(board, BLACK))
        assert status == 200 and out["players"] == {"white": "Dee", "black": None}
    finally:
        board.stop()


def test_a_board_that_cannot_reach_the_hub_takes_the_code_and_the_hub_rates_only_codes_it_knows(db, tmp_path):
    dsn, _ = db
    key = quin("hub", "add-table", "t", "--db", dsn).stdout.strip()
    eve = quin("hub", "add-player", "Eve", "--db", dsn).stdout.strip()
    port = free_port()
    board = Board(tmp_path / "b", f"http://127.0.0.1:{port}", key, seed=3)
    hub = None
    try:
        # offline: an unknown code and a known one are both taken as given
        setup_with(board, {WHITE: {"name": "Cy", "code": "qp_0000beef"}, BLACK: {"name": "Eve", "code": eve}})
        board.play()
        uuid = board.table.row.uuid
        hub = HubProcess(dsn, "--port", str(port))
        wait_for(board.drained, "the outbox to drain once the hub is reached")
        status, info = request(hub.url + f"/api/games/{uuid}")
        assert info["status"] == "over"
        assert info["players"] == {"white": "Cy", "black": "Eve"} and info["rated"] == {"white": False, "black": True}
        # one rated player against a guest: nobody's rating moves
        assert [p["games"] for p in request(hub.url + "/api/players")[1]["players"]] == [0]
        assert [g["uuid"] for g in request(hub.url + "/api/games?player=cy")[1]["games"]] == [uuid]
    finally:
        board.stop()
        if hub:
            hub.stop()


def test_a_table_without_a_hub_takes_a_name_and_refuses_a_code(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path / "d"), "TICK": 0, "MANUAL_CLOCK": True})
    table = app.extensions["quin.table"]
    client = app.test_client()
    token = table.tokens[WHITE]
    body = random_setup(__import__("random").Random(1), WHITE).to_record()
    r = client.post(f"/api/seat/{token}/setup", json=dict(body, player={"name": "Fay", "code": "qp_12345678"}),
                    headers={"X-Seat-Token": token})
    assert r.status_code == 400 and r.get_json()["error"].startswith("Player code: this table sends its games to no club hub")
    r = client.post(f"/api/seat/{token}/setup", json=dict(body, player={"name": "Fay", "code": None}),
                    headers={"X-Seat-Token": token})
    assert r.status_code == 200 and r.get_json()["players"] == {"white": "Fay", "black": None}
    assert table.store.players(table.row.id) == {"white": {"name": "Fay", "code": None}}


def test_the_hub_checks_codes_only_for_a_table_key_and_refuses_bad_player_fields(db, hubs):
    import uuid as _uuid

    dsn, _ = db
    key = quin("hub", "add-table", "t", "--db", dsn).stdout.strip()
    gus = quin("hub", "add-player", "Gus", "--db", dsn).stdout.strip()
    hub = hubs()
    assert request(hub.url + f"/api/players/{gus}")[0] == 401  # a spectator cannot look codes up
    assert request(hub.url + f"/api/players/{gus}", key="qt_wrong")[0] == 403
    assert request(hub.url + f"/api/players/{gus}", key=key) == (200, {"code": gus, "name": "Gus"})
    assert request(hub.url + "/api/players/qp_00000000", key=key)[0] == 404
    g = str(_uuid.uuid4())
    for players, field in [("Ann", "games[0].final.players"), ({"red": {}}, "games[0].final.players"),
                           ({"white": "Ann"}, "games[0].final.players.white"),
                           ({"white": {"name": 7}}, "games[0].final.players.white.name")]:
        status, out = request(hub.url + "/api/push", "POST",
                              {"games": [{"uuid": g, "final": {"status": "abandoned", "players": players}}]}, key=key)
        assert status == 400 and out["error"].startswith(field), out
    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT count(*) FROM hub_games").fetchone()[0] == 0


def test_a_game_resigned_at_the_table_is_archived_over_and_rated(db, hubs, tmp_path):
    """Issue 33: a resignation at one table ends the game otherwise than by a move; the final's
    record carries its termination, and the hub replays it as `quin replay` does."""
    dsn, _ = db
    ann, bob, hub, board = ann_and_bob_at_a_table(dsn, hubs, tmp_path)
    try:
        setup_with(board, {WHITE: {"name": "Ann", "code": ann}, BLACK: {"name": "Bob", "code": bob}})
        board.play(actions=3)
        board.table.resign(BLACK)
        uuid = board.table.row.uuid
        wait_for(lambda: board.drained() and request(hub.url + f"/api/games/{uuid}")[1].get("status") == "over",
                 "the record")
        info = request(hub.url + f"/api/games/{uuid}")[1]
        assert info["result"] == {"status": "won", "winner": "white", "reason": "resignation"}
        assert info["rated"] == {"white": True, "black": True}
        assert info["record"]["termination"] == {"reason": "resignation", "winner": "white"}
    finally:
        board.stop()
