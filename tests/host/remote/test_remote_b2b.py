"""Board against board, a whole game: two simulated boards, each a service of its own (its own store,
folder and link), play one game to its end through a real hub on PostgreSQL.

The game is a seeded random game of the engine (``random_game``: both lineups and every action chosen
at random from a mirror of the true game, which the test keeps from both lineups it chose).  Each
board reads its own player's actions from its own board (the player names the action on their phone
and carries it out with their hands); the other board shows it as a plan and the person there
carries it out.  At the end the hub's record is the game, both boards' stores hold the finished game
with every identity, and no action was applied twice at either board."""

import pytest

from engine.game import Game
from engine.randplay import random_game
from engine.record import to_record
from tests.support.player import call
from tests.support.remote_board import Board, BoardClock, applied, carry_out, count, follow_the_board

OTHER = {"white": "black", "black": "white"}


def flashes(played) -> dict:
    g = Game(played.setups["white"], played.setups["black"], played.mode, False, played.first)
    out = {"white": 0, "black": 0}
    for _, player, action in played.log:
        if g.board_effect(action).flash is not None:
            out[player] += 1
        g.push(action)
    return out


# Classic seed 65: 48 actions to the end, a flash by each side, Time, Swap and Reinforce; Third Eye seed
# 2914: 46 actions, a flash by each side, Gravity, Resurrect, Reinforce, Swap and Time (pushing)
@pytest.mark.parametrize("mode,seed", [("classic", 65), ("third_eye", 2914)])
def test_board_against_board_a_whole_game(tmp_path, realhub, mode, seed):
    played = random_game(seed, mode, max_actions=80)
    # the game is bounded and has what the test claims (else the seed is wrong, not the code)
    assert played.is_over() and len(played.log) < 80
    fl = flashes(played)
    assert fl["white"] >= 1 and fl["black"] >= 1, fl
    truth = Game(played.setups["white"], played.setups["black"], mode, False, played.first)
    (tmp_path / "ann").mkdir()
    (tmp_path / "bob").mkdir()
    clock = BoardClock()  # the two boards' time, moved by the test (one machine's clock for both)
    ann = Board(tmp_path / "ann", realhub.url, side="white", mode=mode, first=played.first, clock=clock)
    bob = None
    try:
        bob = Board(tmp_path / "bob", realhub.url, remote=ann.seat.link.code, name="Bob", clock=clock)
        boards = {"white": ann, "black": bob}
        assert bob.side == "black"
        for b in boards.values():
            clock.until(lambda: b.seat.link.state is not None and b.seat.link.paused() is None, what="both present")
        ann.table.submit_setup("white", played.setups["white"].to_record())
        bob.table.submit_setup("black", played.setups["black"].to_record())
        for b in boards.values():
            clock.until(lambda: b.table.phase == "playing" and b.table.ref is not None, what="the game to start")
            b.place_start()
        for b in boards.values():
            clock.until(lambda: b.table.ref.phase == "play", what="the board set")
        for i, (turn, player, action) in enumerate(played.log):
            me, rival = boards[player], boards[OTHER[player]]
            try:
                clock.until(lambda: me.table.ref.phase == "play" and me.table.game.to_move == player
                         and getattr(me.table.ref.state, "value", "") == "play", what=f"{player}'s turn ({i})")
            except AssertionError:
                raise AssertionError(f"{player}'s turn ({i}, {action}): {me.table.ref.state} "
                                     f"{me.table.ref.public_status()}") from None
            carry_out(me, truth, action)
            follow_the_board(me)
            # the hub has it, as the player did it
            clock.until(lambda: count(me.seat.link.state["view"]) > i, what=f"the hub to have action {i}")
            got = [a for t in me.seat.link.state["view"]["history"] for a in t["actions"]][i]
            assert got == action.to_record(), f"action {i}: {player}'s board read {got}, the player did {action}"
            # the rival's board shows it as a plan; its person carries it out
            clock.until(lambda: applied(rival) > i, what=f"the {OTHER[player]} board to have action {i}")
            follow_the_board(rival)
            truth.push(action)
            for side, b in boards.items():
                assert b.board.occupied == truth.occupied(), (
                    f"{side}'s board after action {i} ({player} {action}): {b.table.ref.state} "
                    f"{b.table.ref.public_status()} {b.state()['opponent']}")
                # nothing applied twice: each board's session has exactly the actions played
                assert applied(b) == i + 1 or b.table.phase == "over", (side, i, applied(b))
        for side, b in boards.items():
            clock.until(lambda: b.table.phase == "over", what=f"the game over at {side}'s board")
            clock.until(lambda: b.seat.link.state["phase"] == "over", what="the hub's end")
            assert b.seat.link.state["record"] == to_record(truth)
            row = b.table.row
            clock.until(lambda: b.service.store.game(row.id).status == "over", what=f"{side}'s store's end")
            # the store holds the finished game with every identity, each action once
            assert b.service.store.record(row.id) == to_record(truth)
            assert b.state()["view"]["result"] == truth.result.to_json()
            assert count(b.seat.link.state["view"]) == len(played.log)
        # the hub's archive: the remote game, finished, and its record is the game
        status, index = call(realhub.url, "GET", "/api/games?table=remote")
        assert status == 200, index
        [entry] = index["games"]
        assert entry["status"] == "over" and entry["players"] == {"white": "Ann", "black": "Bob"}
        assert entry["result"] == truth.result.to_json()
        status, record = call(realhub.url, "GET", entry["url"] + "/record")
        assert status == 200, record
        assert record == to_record(truth)
    finally:
        if bob is not None:
            bob.stop()
        ann.stop()
