"""Resigning a game at one table (issue 33, item 4): the seat's player resigns from their phone
(``POST /api/seat/<token>/resign``, after the phone asked once more); the rival wins, the game is
stored over with its ``resignation`` (and so replays and exports as such), and the clocks stop."""

import random

from engine.board import BLACK, WHITE
from engine.randplay import random_setup
from host.compose import create_app
from tests.support.webplay import Driver


def playing(tmp_path, clock=None):
    app = create_app({"DATA_DIR": str(tmp_path), "TICK": 0, "MANUAL_CLOCK": True, "CLOCK": clock})
    table = app.extensions["quin.table"]
    driver = Driver(app.test_client(), table)
    rng = random.Random(5)
    driver.setup(random_setup(rng, WHITE), random_setup(rng, BLACK))
    return app, table, driver


def resign(driver, player, expect=200):
    return driver.seat_post(player, "resign", {}, expect=expect)


def test_a_player_resigns_from_their_seat_and_the_rival_wins_on_every_screen_and_in_the_store(tmp_path):
    app, table, driver = playing(tmp_path, "1+2")
    driver.play(driver.shadow.legal_actions()[0])  # White moves; Black resigns on their turn, 3 s later
    driver.wait(3.0)
    answer = resign(driver, BLACK)
    assert answer["phase"] == "over"
    public = driver.get("/api/state", "public")
    assert public["view"]["result"] == {"status": "won", "winner": WHITE, "reason": "resignation"}
    assert public["clock"]["running"] is None  # the clocks stopped at the resignation
    assert public["clock"]["left"][BLACK] < 60 - 3.0 + 0.1
    row = table.store.game(table.row.id)
    assert row.status == "over" and row.result == {"status": "won", "winner": WHITE, "reason": "resignation"}
    record = app.test_client().get(f"/api/games/{table.row.id}/record").get_json()
    assert record["termination"] == {"reason": "resignation", "winner": WHITE}
    # the service restarts: the game is over, as it was
    again = create_app({"DATA_DIR": str(tmp_path), "TICK": 0, "MANUAL_CLOCK": True})
    assert again.extensions["quin.table"].store.load_game(table.row.id).result.reason == "resignation"


def test_either_player_may_resign_on_either_turn(tmp_path):
    app, table, driver = playing(tmp_path)
    assert table.game.to_move == WHITE
    resign(driver, BLACK)  # not Black's turn: a resignation needs none
    assert table.game.result.winner == WHITE


def test_resigning_when_no_game_is_played_is_one_line_and_changes_nothing(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path), "TICK": 0, "MANUAL_CLOCK": True})
    table = app.extensions["quin.table"]
    driver = Driver(app.test_client(), table)
    out = resign(driver, WHITE, expect=400)
    assert out["error"] == "resign: no game is being played" and table.phase == "setup"
    rng = random.Random(5)
    driver.setup(random_setup(rng, WHITE), random_setup(rng, BLACK))
    resign(driver, WHITE)
    out = resign(driver, BLACK, expect=400)
    assert out["error"] == "resign: the game is already over" and table.game.result.winner == BLACK
    out = driver.seat_post(WHITE, "resign", {"now": True}, expect=400)
    assert "now" in out["error"]
