"""A whole remote game in each mode, through a real hub on PostgreSQL: this board's side (the local
player's phone and hands on the simulated board) against a scripted remote player over HTTP.

The game is a seeded random game of the engine (both lineups and every action, so the test knows
the truth the hub keeps): the local player names each action on their phone (``choose``, and
``time`` first for the Power of Time) and carries it out on the board; the remote player POSTs
theirs, and the person at the board carries out the plan the board shows.  At the end the hub's
record equals the game, and the board's store holds the finished game with every identity."""

import pytest

from engine.actions import Pass, Time
from engine.board import SPACE_NAMES
from engine.game import Game
from engine.randplay import random_game
from engine.record import to_record
from host.remote.link import LinkFile
from tests.support.player import RemotePlayer
from tests.support.remote_board import Board, applied, heard, local_plays, rival_plays


# one game per mode: Classic with Time, Swap and Reinforce; Third Eye with Gravity, Resurrect and Time
@pytest.mark.parametrize("mode,seed", [("classic", 60), ("third_eye", 165)])
def test_a_whole_game(tmp_path, realhub, mode, seed):

    played = random_game(seed, mode, max_actions=400)
    assert played.is_over()
    truth = Game(played.setups["white"], played.setups["black"], mode, False, played.first)
    ann = Board(tmp_path, realhub.url, side="white", mode=mode, first=played.first)
    bob = RemotePlayer(realhub.url)
    try:
        bob.join(ann.seat.link.code)
        bob.listen()
        ann.until(lambda: ann.seat.link.state is not None and ann.seat.link.paused() is None, what="both present")
        ann.table.submit_setup("white", played.setups["white"].to_record())
        assert bob.post("setup", {"setup": played.setups["black"].to_record()})[0] == 200
        ann.until(lambda: ann.table.phase == "playing" and ann.table.ref is not None, what="the game to start")
        ann.place_start()
        ann.until(lambda: ann.table.ref.phase == "play", what="the board set")
        seq = None
        for i, (turn, player, action) in enumerate(played.log):
            if player == "white":
                try:
                    ann.until(lambda: ann.table.ref.phase == "play" and ann.table.game.to_move == "white"
                             and getattr(ann.table.ref.state, "value", "") == "play", what=f"white's turn ({i})")
                except AssertionError:
                    raise AssertionError(f"white's turn ({i}, {action}, last {played.log[i-1]}): "
                                         f"{ann.table.ref.state} {ann.table.ref.public_status()} "
                                         f"{ann.state('white')['seat']['private']} {ann.table.game.to_move}") from None
                local_plays(ann, truth, i, action)
                got = [a for t in ann.seat.link.state["view"]["history"] for a in t["actions"]][i]
                assert got == action.to_record(), f"action {i}: the board read {got}, the player did {action}"
            else:
                rival_plays(ann, bob, i, action)
            truth.push(action)
            assert ann.board.occupied == truth.occupied(), (
                f"after action {i} ({player} {action}; before: {played.log[i-1]}): {ann.table.ref.state} "
                f"{ann.table.ref.public_status()} {ann.state()['opponent']} base={ann.table.session.base} "
                f"log={len(ann.table.game.log)} applied={applied(ann)}")
        ann.until(lambda: ann.table.phase == "over", what="the game over at the board")
        ann.until(lambda: ann.seat.link.state["phase"] == "over", what="the hub's end")
        assert ann.seat.link.state["record"] == to_record(truth)
        row = ann.table.row
        ann.until(lambda: ann.service.store.game(row.id).status == "over", what="the store's end")
        assert ann.service.store.record(row.id) == to_record(truth)
        assert ann.state()["view"]["result"] == truth.result.to_json()
        # a rematch with the same code: both ask, the hub swaps the sides; this board's player keeps
        # their phone (its token now seats Black), the rival's seat plays White
        phone = ann.table.phone_seats()["white"]
        assert bob.post("rematch", {})[0] == 200
        ann.table.play_again("white")
        ann.until(lambda: ann.table.phase == "setup" and ann.seat.local == "black", what="the rematch at the board")
        assert ann.seat.link.side == "black" and ann.seat.link.state["side"] == "black"
        assert LinkFile(tmp_path / "remote.json").load()["side"] == "black"
        assert ann.table.phone_seats() == {"black": phone}
        assert ann.table.seat_of(phone) == "black"
        ann.until(lambda: ann.state()["opponent"]["who"] == "Bob, playing from afar" and ann.state()["opponent"]["side"] == "white",
                 what="the rival's seat")
        assert ann.state()["remote"]["code"] == ann.seat.link.shown and ann.table.row.id != row.id
        # (the hub's stream keeps the side it was opened for: the remote player opens it again)
        bob.close()
        # the hub saw the stream close (it tells the board the rival is away) before it is opened again
        ann.until(lambda: "away" in (ann.state()["remote"]["paused"] or ""), what="the rival away at the board")
        bob.listen()
        bs = ann.until(lambda: heard(bob, lambda s: s["phase"] == "setup" and s["side"] == "white"),
                       what="the remote player's stream for the rematch")
        assert bs["code"].replace("-", "") == ann.seat.link.code
    finally:
        bob.close()
        ann.stop()
