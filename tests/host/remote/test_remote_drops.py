"""Drops and resumes at seeded random moments of a whole remote game, on both sides, through a real
hub on PostgreSQL: this board (White, the simulated board and the local player's hands) against a
scripted remote player over HTTP (Black).

The moments (docs/remote-play.md, Presence and The board side):

- ``board``: between actions, the board's service stops and a new one starts on the same folder (the
  restart of ``quin serve``, the towers staying where they are on the board); while it is down the
  remote player's stream says the board is away, and the remote player's action answers 423;
- ``stream``: the remote player's stream closes and opens again; meanwhile the board says Bob's
  browser is away, and the remote player's action answers 423;
- ``midplan``: the remote player's action arrived at the board as a plan, the person at the board
  has lifted its first tower, and the board's service restarts then;
- ``streamplan``: the remote player's action arrived at the board as a plan, and the remote player's
  stream closes then: the board says the game waits for Bob's browser while its person carries the
  plan out, and the game goes on once the stream is back;
- ``unacked``: the local player commits a move while the remote player is away (the hub answers 423,
  the move waits in the link's outbox), the board's service restarts with it still unacknowledged,
  and it is sent once when the remote player is back.

After every drop the game resumes exactly where it was (the hub's count of actions and the board's
towers unchanged), and at the end the hub's record and the board's store are the game played: no
action lost, duplicated or applied twice."""

import random
import time

import pytest

from engine.actions import Move
from engine.game import Game
from engine.randplay import random_game
from engine.record import to_record
from tests.support.remote_board import Board, applied, carry_out, count, follow_the_board, heard

# real time: what this file tests runs on the machine's clock (tools/lanes.sh gives it a lane of its own)
pytestmark = pytest.mark.realtime

KINDS = ("board", "stream", "midplan", "unacked", "streamplan")


def restart(ann: Board, url: str, mode: str, first: str) -> Board:
    """The restart of ``quin serve``: the service stops, a new one starts on the same folder; the
    towers stay on the board."""
    occupied = ann.board.occupied
    ann.stop()
    return Board(ann.folder, url, side="white", mode=mode, first=first, occupied=occupied, clock=ann.clock)


def hub_count(ann) -> int:
    return count((ann.seat.link.state or {}).get("view"))


def bob_away(ann, bob, truth, i):
    """The remote player's stream closes: the board says the game waits for Bob's browser."""
    bob.close()
    ann.until(lambda: "Bob's browser is away" in (ann.state()["remote"]["paused"] or ""), what="the pause at the board")
    assert ann.state()["opponent"]["waiting"] == ann.state()["remote"]["paused"]


def bob_back(ann, bob):
    bob.listen()
    ann.until(lambda: ann.state()["remote"]["paused"] is None, what="the resume at the board")
    ann.until(lambda: heard(bob, lambda s: s["paused"] is None), what="the resume at the remote player's")


# game seed (random_game, Classic), drops seed: each pair gives every kind of drop at least once
@pytest.mark.parametrize("seed,drops", [(65, 3), (87, 1)])
def test_drops_and_resumes(tmp_path, realhub, seed, drops):
    from tests.support.player import RemotePlayer

    mode = "classic"
    played = random_game(seed, mode, max_actions=80)
    assert played.is_over() and len(played.log) < 80
    truth = Game(played.setups["white"], played.setups["black"], mode, False, played.first)
    rng = random.Random(drops)
    ann = Board(tmp_path, realhub.url, side="white", mode=mode, first=played.first)
    bob = RemotePlayer(realhub.url)
    done = []
    try:
        bob.join(ann.seat.link.code)
        bob.listen()
        ann.until(lambda: ann.seat.link.state is not None and ann.seat.link.paused() is None, what="both present")
        ann.table.submit_setup("white", played.setups["white"].to_record())
        assert bob.post("setup", {"setup": played.setups["black"].to_record()})[0] == 200
        ann.until(lambda: ann.table.phase == "playing" and ann.table.ref is not None, what="the game to start")
        ann.place_start()
        ann.until(lambda: ann.table.ref.phase == "play", what="the board set")
        for i, (turn, player, action) in enumerate(played.log):
            last = i == len(played.log) - 1
            plain = type(action) is Move and truth.board_effect(action).flash is None
            kinds = ["board", "stream"] + (["midplan", "streamplan"] if player == "black" else []) + (
                ["unacked"] if player == "white" and plain else [])
            kind = rng.choice(kinds) if not last and rng.random() < 0.3 else None
            if kind in ("board", "stream"):
                before = ann.board.occupied
                if kind == "board":
                    occupied = ann.board.occupied
                    ann.stop()
                    # the board is away for the remote player: its stream says so, its action waits
                    bs = bob.wait(lambda s: "Ann's board is away" in (s["paused"] or ""))
                    assert count(bs["view"]) == i
                    if player == "black":
                        status, ans = bob.post("action", {"seq": bs["seq"], "action": action.to_record()})
                        assert status == 423, (status, ans)
                    ann = Board(tmp_path, realhub.url, side="white", mode=mode, first=played.first, occupied=occupied,
                                clock=ann.clock)
                    ann.until(lambda: ann.table.ref is not None and ann.state()["remote"]["paused"] is None,
                             what="the board back")
                    ann.until(lambda: heard(bob, lambda s: s["paused"] is None), what="the resume at the remote player's")
                    follow_the_board(ann)
                else:
                    bob_away(ann, bob, truth, i)
                    if player == "black":
                        status, ans = bob.post("action", {"seq": bs_seq(ann), "action": action.to_record()})
                        assert status == 423, (status, ans)
                    bob_back(ann, bob)
                # resumed exactly where it was
                assert hub_count(ann) == i and applied(ann) == i
                assert ann.board.occupied == before == truth.occupied()
                done.append((i, kind))
            if player == "white":
                ann.until(lambda: ann.table.ref.phase == "play" and ann.table.game.to_move == "white"
                         and getattr(ann.table.ref.state, "value", "") == "play", what=f"white's turn ({i})")
                if kind == "unacked":
                    bob_away(ann, bob, truth, i)
                    carry_out(ann, truth, action)
                    ann.until(lambda: ann.seat.link.pending() != [], what="the move in the outbox")
                    # the link's sender holds the move (the game is paused) or tries it and is answered 423,
                    # on its own thread and in the machine's time: no event says it looked; a move wrongly
                    # taken by the hub would show here
                    time.sleep(0.3)
                    assert hub_count(ann) == i and ann.seat.link.pending()
                    ann = restart(ann, realhub.url, mode, played.first)
                    assert ann.seat.link.pending(), "the outbox survives the restart"
                    bob_back(ann, bob)
                    # sent once the remote player is back; until the hub has it, the restarted board's
                    # game is the hub's, without it (the person waits for the board to say so)
                    ann.until(lambda: hub_count(ann) > i and applied(ann) > i, what="the move sent once Bob is back")
                    done.append((i, kind))
                else:
                    carry_out(ann, truth, action)
                follow_the_board(ann)
                # the link hears the hub's state first; the board's session applies it after, on another
                # thread: both waited for (the count of each is checked exactly below)
                ann.until(lambda: hub_count(ann) > i and applied(ann) > i,
                          what=f"the hub to have action {i}, and the board to apply it")
                got = [a for t in ann.seat.link.state["view"]["history"] for a in t["actions"]][i]
                assert got == action.to_record(), f"action {i}: the board read {got}, the player did {action}"
                ann.until(lambda: ann.seat.link.pending() == [], what="the outbox drained")
            else:
                bs = ann.until(lambda: heard(bob, lambda s: s["view"] and count(s["view"]) == i and s["legal"] is not None),
                               what=f"Black's turn ({i})")
                status, ans = bob.post("action", {"seq": bs["seq"], "action": action.to_record()})
                assert status == 200, (i, action, ans)
                ann.until(lambda: applied(ann) > i, what=f"the board to have action {i}")
                if kind == "midplan":
                    ann.until(lambda: (ann.state()["opponent"] or {}).get("plan") is not None, what="the plan")
                    plan = ann.state()["opponent"]["plan"]
                    lift = [s for st in plan.get("steps", [plan]) for s in st.get("lift", [])]
                    if lift:
                        ann.feed(ann.board.lift(lift[0]))
                        ann.pause(0.1)  # the tower held up
                    ann = restart(ann, realhub.url, mode, played.first)
                    ann.until(lambda: ann.table.ref is not None and applied(ann) > i, what="the board back")
                    done.append((i, kind))
                if kind == "streamplan":
                    ann.until(lambda: (ann.state()["opponent"] or {}).get("plan") is not None, what="the plan")
                    bob_away(ann, bob, truth, i)
                    follow_the_board(ann)
                    assert "Bob's browser is away" in (ann.state()["remote"]["paused"] or "")
                    truth.push(action)
                    want = truth.occupied()
                    truth.pop()
                    assert ann.board.occupied == want, "the plan carried out while the game waits"
                    bob_back(ann, bob)
                    done.append((i, kind))
                follow_the_board(ann)
            truth.push(action)
            assert ann.board.occupied == truth.occupied(), (
                f"after action {i} ({player} {action}): {ann.table.ref.state} {ann.table.ref.public_status()}")
            # nothing applied twice: the hub and the board have exactly the actions played
            assert hub_count(ann) == i + 1 and (applied(ann) == i + 1), (i, hub_count(ann), applied(ann))
        # the seed gives every kind of drop at least once
        assert {k for _, k in done} == set(KINDS), done
        ann.until(lambda: ann.table.phase == "over", what="the game over at the board")
        ann.until(lambda: ann.seat.link.state["phase"] == "over", what="the hub's end")
        assert ann.seat.link.state["record"] == to_record(truth)
        bs = ann.until(lambda: heard(bob, lambda s: s["phase"] == "over"), what="the end at the remote player's")
        assert bs["record"] == to_record(truth)
        row = ann.table.row
        ann.until(lambda: ann.service.store.game(row.id).status == "over", what="the store's end")
        assert ann.service.store.record(row.id) == to_record(truth)
        print("drops:", done)
    finally:
        bob.close()
        ann.stop()


def bs_seq(ann) -> int:
    return ann.seat.link.state["seq"]
