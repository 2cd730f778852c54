"""The opponent at the table, on the simulated board: it sets up, declares, and a person moves its towers.

The person at the table is simulated from what the product shows them:
for the opponent's towers, the public plan (lift here, place there) and the
board the status page expects; for their own towers, the seat as any player.
"""

from __future__ import annotations

import json
import random

import pytest

from engine.board import BLACK, PLAYERS, SPACE_NAMES, START_SPACES, WHITE, parse_space
from engine.game import Game
from engine.pieces import PIECES, Setup
from engine.randplay import random_setup
from engine.views import action_seen_by, knows
from host.opponent.driver import TableOpponent
from host.board.simboard import SimulatedBoard
from host.store import Store
from host.session.table import Table
from host.compose import create_app
from host.web.events import Broker

from tests.support.waiting import wait_for
from tests.support.webplay import Driver

N = SPACE_NAMES


def make_table(tmp_path, mode, side=WHITE, level=1):
    board = SimulatedBoard()
    opponent = TableOpponent(side, level, seed=5, threaded=False, min_think=0)
    table = Table(Store(tmp_path / "q.sqlite3"), Broker(), board=board, clock=board.clock, opponent=opponent)
    table.occupied = board.occupied
    table.open(mode)
    app = create_app({"TABLE": table, "DATA_DIR": str(tmp_path)})
    return table, Driver(app.test_client(), table)


def follow_plan(driver: Driver, table: Table) -> None:
    """Move the opponent's towers as the status page says: the plan first, then the board it expects."""
    public = table.state(None)
    plan = public["opponent"]["plan"]
    n = len(table.game.log)
    occupied = set(table.board.occupied)
    lifted = {parse_space(s) for s in plan["lift"]}
    if plan["do"] == "move" and parse_space(plan["to"]) in occupied:
        lifted.add(parse_space(plan["to"]))  # a flash: both towers come up
    if lifted:
        driver.board(occupied - lifted)
        driver.wait(0.3)
    driver.board((occupied - lifted) | {parse_space(s) for s in plan["place"]})
    driver.wait(0.3)
    for _ in range(8):
        if len(table.game.log) > n:
            return
        public = table.state(None)
        # The referee's instructions (a flash's outcome, a rewind): lift what they name, then
        # make the board look as the status page expects.
        named = {parse_space(ins[k]) for ins in public["referee"]["instructions"] for k in ("from", "to", "space")
                 if k in ins}
        occupied = set(table.board.occupied)
        if named & occupied:
            driver.board(occupied - named)
            driver.wait(0.3)
        driver.board({parse_space(s) for s in public["board"]["expected"]})
        driver.wait(0.5)
    raise AssertionError(f"the opponent's {plan} was not committed: {table.ref.public_status()}")


def catch_up(driver: Driver, table: Table) -> None:
    shadow, game = driver.shadow, table.game
    while len(shadow.log) < len(game.log):
        shadow.push(game.log[len(shadow.log)][2])


def public_words(table: Table) -> str:
    return json.dumps({"state": table.state(None), "human": table.state(BLACK)})


@pytest.mark.parametrize("mode", ["classic", "third_eye"])
def test_a_game_against_the_opponent_on_the_simulated_board(tmp_path, mode):
    table, driver = make_table(tmp_path, mode)
    assert table.row.setups[WHITE] is not None, "the opponent sends its own setup at once"
    assert table.seat_of(table.tokens[WHITE]) is None, "nobody may open the opponent's seat"
    assert table.seat_of(table.tokens[BLACK]) == BLACK
    human_setup = random_setup(random.Random(2), BLACK)
    driver.seat_post(BLACK, "setup", human_setup.to_record())
    game = table.game
    assert game is not None
    driver.shadow = Game(Setup.from_record(WHITE, table.row.setups[WHITE]), human_setup, game.mode, game.vision, game.first)
    # The person sets up both sides: the opponent's towers on its starting spaces, faces unseen.
    driver.board(set(START_SPACES[WHITE]) | set(START_SPACES[BLACK]))
    driver.wait(0.5)
    assert table.ref.phase == "play"
    rng = random.Random(9)
    opponent_turns = 0
    while not game.is_over() and game.turn <= 40:
        if game.to_move == WHITE:
            status = table.state(None)["opponent"]
            assert "plan" in status, status
            words = public_words(table)
            n = len(game.log)
            follow_plan(driver, table)
            action = game.log[n][2]
            seen = action_seen_by(game, action, WHITE, None)
            plan = status["plan"]
            if plan["do"] == "move":
                assert (seen["from"], seen["to"]) == (plan["from"], plan["to"])
            # Nothing the human sees names a piece of the opponent's they have not seen.
            hidden = {game.piece[t] for t in game.towers_of(WHITE) if not knows(game, BLACK, t)}
            shown = {game.piece[t] for t in game.towers_of(WHITE) if knows(game, BLACK, t)}
            for piece in hidden - shown:
                assert piece not in json.dumps(status), (piece, status)
            assert json.dumps(table.row.setups[WHITE]["lineup"])[1:-1] not in words  # its lineup never shows
            opponent_turns += 1
            catch_up(driver, table)
        else:
            action = rng.choice(game.legal_actions())
            driver.play(action)
    assert opponent_turns >= 3
    assert table.store.actions(table.row.id), "the opponent's actions are stored like any other"


def test_the_plan_lights_the_board_and_names_no_hidden_piece(tmp_path):
    table, driver = make_table(tmp_path, "classic", side=BLACK, level=2)
    human_setup = random_setup(random.Random(4), WHITE)
    driver.seat_post(WHITE, "setup", human_setup.to_record())
    game = table.game
    driver.shadow = Game(human_setup, Setup.from_record(BLACK, table.row.setups[BLACK]), game.mode, game.vision, game.first)
    driver.board(set(START_SPACES[WHITE]) | set(START_SPACES[BLACK]))
    driver.wait(0.5)
    assert table.state(None)["opponent"].get("plan") is None, "White moves first: the opponent waits"
    driver.play(random.Random(1).choice([a for a in game.legal_actions() if game.ends_turn(a)]))
    status = table.state(None)["opponent"]
    plan = status["plan"]
    lit = table.leds
    for s in plan["lift"]:
        assert lit[parse_space(s)] == (255, 0, 0)
    for s in plan["place"]:
        assert lit.get(parse_space(s)) in ((0, 255, 0), (255, 0, 0))
    text = json.dumps(status)
    for piece in PIECES:
        if plan["do"] not in ("resurrect", "reinforce"):
            assert piece not in text
    assert all(p in status for p in ("side", "level", "text"))
    assert status["side"] == BLACK and PLAYERS


def test_what_the_status_page_is_sent_is_the_opponents_status_now(tmp_path):
    """The table publishes before it steps the opponent: a plan already played stayed on the status
    page and the LEDs until the next change, and "is thinking" was never sent at all."""
    board = SimulatedBoard()
    opponent = TableOpponent(BLACK, 1, seed=5, threaded=True, min_think=0.3)
    table = Table(Store(tmp_path / "q.sqlite3"), Broker(), board=board, clock=board.clock, opponent=opponent)
    table.occupied = board.occupied
    table.open("classic")
    driver = Driver(create_app({"TABLE": table, "DATA_DIR": str(tmp_path)}).test_client(), table)
    human_setup = random_setup(random.Random(4), WHITE)
    driver.seat_post(WHITE, "setup", human_setup.to_record())
    game = table.game
    driver.shadow = Game(human_setup, Setup.from_record(BLACK, table.row.setups[BLACK]), game.mode, game.vision,
                         game.first)
    driver.board(set(START_SPACES[WHITE]) | set(START_SPACES[BLACK]))
    driver.wait(0.5)

    def planned():
        return table.broker.current("public")["opponent"]

    rng = random.Random(3)
    for _ in range(3):
        driver.play(rng.choice([a for a in game.legal_actions() if game.ends_turn(a)]))
        sent = table.broker.current("public")["opponent"]
        assert sent["thinking"] is True and "plan" not in sent, sent
        assert "is thinking" in sent["text"]
        # It thinks on the table's clock (the board's fake one): once it waits out its 0.3 s there,
        # the test moves the clock on, and its plan is sent.
        wait_for(lambda: "plan" in planned() or board.clock.waiting(), "the opponent to decide", 20)
        if "plan" not in planned():
            board.advance(0.3)
        wait_for(lambda: "plan" in planned(), "the opponent's plan", 20)
        with table.lock:
            plan = table.broker.current("public")["opponent"]["plan"]
            lit = dict(table.leds)
        assert all(lit[parse_space(x)] == (255, 0, 0) for x in plan["lift"])
        n = len(game.log)
        follow_plan(driver, table)
        assert len(game.log) > n
        catch_up(driver, table)
        # Its action is played: what was sent last asks nothing more of the person, and the
        # board no longer lights what the plan lifted (at most as the blue last move).
        sent = table.broker.current("public")["opponent"]
        assert "plan" not in sent and sent["thinking"] is False, sent
        assert all(table.leds.get(parse_space(x)) != (255, 0, 0) for x in plan["lift"]), table.leds
        assert sent == table.state(None)["opponent"]
        if game.is_over():
            break


def test_the_host_page_offers_no_code_for_the_opponents_seat(tmp_path):
    """The opponent's token opens nothing (seat_of), so the host page must not hand it out as a join code."""
    table, driver = make_table(tmp_path, "classic", side=WHITE, level=2)
    client = driver.client
    key = table.host_key
    page = client.get(f"/host/{key}").get_data(as_text=True)
    assert table.tokens[WHITE] not in page, "a dead join link for the opponent's seat"
    assert table.tokens[BLACK] in page
    assert 'data-opponent="white"' in page and "practice opponent (level 2)" in page
    assert 'data-reissue="white"' not in page and 'data-reissue="black"' in page
    # Re-issuing the opponent's seat is refused in one line, and changes nothing.
    before = dict(table.tokens)
    r = client.post(f"/api/host/{key}/reissue", json={"player": "white"}, headers={"X-Host-Key": key})
    assert r.status_code == 400 and "practice opponent" in r.get_json()["error"]
    assert table.tokens == before
    # A new game's answer carries the human's new code only.
    r = client.post(f"/api/host/{key}/new", json={"mode": "third_eye"}, headers={"X-Host-Key": key})
    assert r.status_code == 200
    assert set(r.get_json()["seats"]) == {BLACK}
    assert table.tokens[WHITE] not in json.dumps(r.get_json())
