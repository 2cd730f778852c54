"""The board is the clock (issue 33, docs/rules.md "Clocks"): a table whose games have a time
control runs both players' clocks from the referee's commits, on the simulated board's manual
clock (nothing sleeps: time passes only when a test advances it).

Each test sets the board as players would (``/api/board/set``) and lets time pass with
``Driver.wait``, which ticks the referee as the ticker thread does."""

import random

import pytest

from engine.actions import Move
from engine.board import BLACK, WHITE, parse_space
from engine.game import Game
from engine.randplay import random_setup
from host.compose import create_app
from host.match.clock import ClockError
from tests.support.webplay import Driver


def table_with(tmp_path, clock="1+2", seed=3):
    app = create_app({"DATA_DIR": str(tmp_path), "TICK": 0, "MANUAL_CLOCK": True, "CLOCK": clock})
    table = app.extensions["quin.table"]
    driver = Driver(app.test_client(), table)
    rng = random.Random(seed)
    driver.setup(random_setup(rng, WHITE), random_setup(rng, BLACK))
    return app, table, driver


def a_plain_move(game: Game) -> Move:
    """A Move of one space by the side to move (its last flip is its set-down)."""
    return next(a for a in game.legal_actions() if type(a) is Move and not game.tower_at(a.to))


def carry_out(driver: Driver, move: Move, lift_at: float, set_at: float, settle: float = 0.5) -> None:
    """Lift ``move``'s tower ``lift_at`` s from now, set it down ``set_at`` s from now, then let
    the referee settle and commit it."""
    board = set(driver.table.occupied)
    driver.wait(lift_at)
    board.discard(move.frm)
    driver.board(board)
    driver.wait(set_at - lift_at)
    board.add(move.to)
    driver.board(board)
    driver.wait(settle)
    driver.shadow.push(move)


def left(driver: Driver) -> dict:
    """Each side's time left now, as a page counts it: the state's clocks are told at their last
    change (``at``, on the wall clock that ``/api/now`` gives); the running one has run since."""
    clock = driver.get("/api/state", "public")["clock"]
    now = driver.get("/api/now", "public")["now"]
    return {side: t - (now - clock["at"]) if clock["running"] == side and not clock["paused"] else t
            for side, t in clock["left"].items()}


def test_the_first_movers_clock_runs_from_the_start_and_stops_when_the_move_was_set_down(tmp_path):
    app, table, driver = table_with(tmp_path, "1+2")
    state = driver.get("/api/state", "public")
    assert state["clock"]["control"]["text"] == "1+2" and state["clock"]["running"] == WHITE
    start = left(driver)[WHITE]
    assert 59 < start <= 60  # the clock started when the board first matched the lineups
    move = a_plain_move(table.game)
    carry_out(driver, move, lift_at=4.0, set_at=5.0, settle=0.5)
    assert table.game.to_move == BLACK
    clock = driver.get("/api/state", "public")["clock"]
    now = left(driver)
    # White was charged up to the set-down (5 s), not the settle window after it; then + 2 s
    assert now[WHITE] == clock["left"][WHITE] == pytest.approx(start - 5.0 + 2.0, abs=0.06)
    assert clock["running"] == BLACK
    # Black's clock runs from the set-down: told at that moment; the 0.5 s settle is already Black's
    assert clock["left"][BLACK] == 60
    assert now[BLACK] == pytest.approx(60 - 0.5, abs=0.06)


def test_the_flag_falls_and_the_game_ends_on_time_on_every_screen_and_in_the_store(tmp_path):
    app, table, driver = table_with(tmp_path, "0.1")  # 6 seconds each, sudden death
    driver.wait(6.5)
    assert table.game.is_over()
    result = table.game.result
    assert (result.winner, result.reason) == (BLACK, "time")
    public = driver.get("/api/state", "public")
    assert public["phase"] == "over" and public["clock"]["flagged"] == WHITE
    assert public["view"]["result"] == {"status": "won", "winner": BLACK, "reason": "time"}
    assert public["clock"]["left"][WHITE] == 0
    row = table.store.game(table.row.id)
    assert row.status == "over" and row.result["reason"] == "time" and row.result["winner"] == BLACK


def test_a_tower_set_down_just_before_the_flag_and_committed_after_it_stands(tmp_path):
    """docs/rules.md: "a tower set down 0.05 s before the flag and committed 0.2 s after it stands"."""
    app, table, driver = table_with(tmp_path, "0.1")
    start = left(driver)[WHITE]
    move = a_plain_move(table.game)
    carry_out(driver, move, lift_at=start - 1.0, set_at=start - 0.05, settle=0.6)
    assert not table.game.is_over() and table.game.to_move == BLACK
    assert left(driver)[WHITE] == pytest.approx(0.05, abs=0.06)


def test_a_move_set_down_after_the_flag_is_not_played(tmp_path):
    app, table, driver = table_with(tmp_path, "0.1")
    start = left(driver)[WHITE]
    move = a_plain_move(table.game)
    n = len(table.game.log)
    carry_out(driver, move, lift_at=start - 1.0, set_at=start + 0.3, settle=0.6)
    assert table.game.is_over() and table.game.result.reason == "time"
    assert len(table.game.log) == n  # the move completed after the flag is not in the game
    assert table.store.load_game(table.row.id).log == table.game.log


def test_nobodys_time_runs_while_the_store_cannot_save(tmp_path, monkeypatch):
    app, table, driver = table_with(tmp_path, "1")
    start = left(driver)[WHITE]
    import sqlite3

    def refuse(*a, **k):
        raise sqlite3.OperationalError("disk I/O error")

    real = table.store.commit_action
    monkeypatch.setattr(table.store, "commit_action", refuse)
    move = a_plain_move(table.game)
    carry_out(driver, move, lift_at=1.0, set_at=2.0, settle=0.5)
    assert table.unsaved is not None
    paused = driver.get("/api/state", "public")
    driver.wait(30)  # the store still refuses: nobody's time runs
    monkeypatch.setattr(table.store, "commit_action", real)
    driver.wait(0.6)  # saved on the next retry
    assert table.unsaved is None
    now = left(driver)
    assert now[WHITE] == pytest.approx(start - 2.0, abs=0.06)
    assert now[BLACK] > 60 - 0.5 - 0.6 - 0.06  # the 30 s were nobody's


def test_a_resumed_game_keeps_its_control_and_the_time_each_had_used(tmp_path):
    app, table, driver = table_with(tmp_path, "1+2")
    move = a_plain_move(table.game)
    carry_out(driver, move, lift_at=4.0, set_at=5.0, settle=0.5)
    before = left(driver)
    # the service restarts (with another --clock: a game resumed keeps its own)
    app2 = create_app({"DATA_DIR": str(tmp_path), "TICK": 0, "MANUAL_CLOCK": True, "CLOCK": "10"})
    table2 = app2.extensions["quin.table"]
    driver2 = Driver(app2.test_client(), table2)
    state = driver2.get("/api/state", "public")
    assert state["clock"]["control"]["text"] == "1+2"
    assert left(driver2)[WHITE] == pytest.approx(before[WHITE], abs=0.01)


def test_a_rematch_of_a_resumed_timed_game_keeps_its_clocks_though_the_service_came_back_without(tmp_path):
    app, table, driver = table_with(tmp_path, "1+2")
    carry_out(driver, a_plain_move(table.game), lift_at=4.0, set_at=5.0, settle=0.5)
    # the service restarts without --clock; the game goes on and ends; both phones ask for another
    app2 = create_app({"DATA_DIR": str(tmp_path), "TICK": 0, "MANUAL_CLOCK": True})
    table2 = app2.extensions["quin.table"]
    driver2 = Driver(app2.test_client(), table2)
    driver2.seat_post(BLACK, "resign", {})
    driver2.seat_post(WHITE, "again", {})
    driver2.seat_post(BLACK, "again", {})
    state = driver2.get("/api/state", "public")
    assert table2.row.id != table.row.id and state["phase"] == "setup"
    assert state["clock"]["control"]["text"] == "1+2" and state["clock"]["left"] == {WHITE: 60.0, BLACK: 60.0}


def test_a_control_that_cannot_be_is_one_line_naming_the_field(tmp_path):
    with pytest.raises(ClockError, match=r"^CLOCK: the increment must be more than 0 seconds"):
        create_app({"DATA_DIR": str(tmp_path), "TICK": 0, "MANUAL_CLOCK": True, "CLOCK": "25+0"})


def test_without_a_control_no_clock_is_shown(tmp_path):
    app, table, driver = table_with(tmp_path, None)
    assert "clock" not in driver.get("/api/state", "public")


def test_serve_refuses_a_control_that_cannot_be_in_one_line_and_writes_nothing(tmp_path):
    import subprocess

    from tests.support.quin_cmd import QUIN

    data = tmp_path / "data"
    for clock, words in (("25+0", "--clock: the increment must be more than 0 seconds (for none, write 25)"),
                         ("soon", "--clock: expected none, minutes (25), minutes+increment (25+10)")):
        proc = subprocess.run(QUIN + ["serve", "--clock", clock, "--data-dir", str(data), "--port", "0", "--no-mdns"],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2 and words in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    assert not data.exists()


def test_the_host_api_sets_the_next_games_clocks_and_refuses_one_that_cannot_be_changing_nothing(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path), "TICK": 0, "MANUAL_CLOCK": True})
    table = app.extensions["quin.table"]
    client = app.test_client()
    key = table.host_key

    def new(body):
        return client.post(f"/api/host/{key}/new", json=body, headers={"X-Host-Key": key})

    game = table.row.id
    r = new({"mode": "third_eye", "clock": "10+0"})
    assert r.status_code == 400 and r.get_json()["error"] == ("clock: the increment must be more than 0 seconds "
                                                             "(for none, write 10)")
    assert table.row.id == game and table.row.mode == "classic"  # nothing changed
    r = new({"clock": "10+5"})
    assert r.status_code == 200
    assert r.get_json()["state"]["clock"] == {
        "control": {"kind": "fischer", "base": 600.0, "bonus": 5.0, "text": "10+5"}, "running": None,
        "paused": False, "flagged": None, "left": {"white": 600.0, "black": 600.0}}
    assert "clock" in new({}).get_json()["state"]  # the next game keeps the table's clocks
    assert "clock" not in new({"clock": "none"}).get_json()["state"]
