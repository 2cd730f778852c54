"""A remote game at a table (host/remote/session.py, mind.py, service.py): the simulated board and
the local player's phone on one side, a scripted remote player speaking the hub's HTTP API on the
other, through a hub speaking the protocol of docs/remote-play.md."""

import pytest

from engine.board import SPACE_IDS, SPACE_NAMES
from host.board.simboard import SimulatedBoard
from host.compose import Service
from host.remote.service import RemoteSeat
from host.store import Store
from tests.support.player import RemotePlayer
from tests.support.remote_board import Board, heard, plain_move, start


@pytest.fixture(params=["scripted hub", "real hub"])
def game(request, tmp_path):
    """The board (Ann, White) and the remote player (Bob) on a hub: the protocol's document as a
    small hub (tests/support/scripthub.py), or a real `quin hub serve` on PostgreSQL."""
    if request.param == "scripted hub":
        hub = request.getfixturevalue("scripthub")
    else:
        hub = request.getfixturevalue("realhub")
    ann = Board(tmp_path, hub.url, side="white")
    bob = RemotePlayer(hub.url)
    bob.join(ann.seat.link.code)
    bob.listen()
    yield ann, bob, hub
    bob.close()
    ann.stop()


def test_who_and_code_before_play(game):
    ann, bob, hub = game
    ann.until(lambda: (ann.state()["remote"]["names"] or {}).get("black") == "Bob"
             and ann.state()["remote"]["paused"] is None, what="Bob's name")
    st = ann.state()
    assert st["opponent"]["who"] == "Bob, playing from afar"
    assert st["remote"]["code"] == ann.seat.link.shown
    assert st["phase"] == "setup"
    assert st["remote"]["paused"] is None
    assert "black" not in ann.table.phone_seats() and "white" in ann.table.phone_seats()


def test_the_pause_is_shown(game):
    ann, bob, hub = game
    ann.until(lambda: ann.state()["remote"]["paused"] is None, what="both present")
    bob.close()  # the remote player's page goes away: the hub pauses the game for both
    ann.until(lambda: "Bob's browser is away" in (ann.state()["remote"]["paused"] or ""), what="the pause")
    assert ann.state()["opponent"]["waiting"] == ann.state()["remote"]["paused"]
    bob.listen()
    ann.until(lambda: ann.state()["remote"]["paused"] is None, what="the resume")
    if hasattr(hub, "drop"):  # the scripted hub can stop answering: the board says the hub is not reached
        hub.down = True
        hub.drop()
        ann.until(lambda: ann.state()["remote"]["paused"] == "the hub is not reached: the game waits",
                 what="the hub not reached")
        hub.down = False
        ann.until(lambda: ann.state()["remote"]["paused"] is None, what="the hub back")


def test_moves_both_ways(game):
    ann, bob, hub = game
    start(ann, bob)
    for rnd in range(3):
        # the local player's move, read from the board, reaches the hub
        st = ann.seat.link.state
        assert st["legal"], st
        occupied = {t["space"] for t in st["view"]["board"]}
        a = plain_move(st["legal"], occupied)
        ann.move(a["from"], a["to"])
        # the hub has the local move: the remote player's stream shows it
        seen = ann.until(lambda: heard(bob, lambda s: s["view"] and sum(len(t["actions"]) for t in s["view"]["history"])
                                        > 2 * rnd), what="the local move at the hub")
        assert seen["view"]["history"][-1] == {"turn": seen["view"]["history"][-1]["turn"], "player": "white",
                                               "actions": [a]}
        # the remote player's move appears at the board as a plan
        bs = ann.until(lambda: heard(bob, lambda s: s["legal"]), what="Black's turn")
        occupied = {t["space"] for t in bs["view"]["board"]}
        b = plain_move(bs["legal"], occupied)
        assert bob.post("action", {"seq": bs["seq"], "action": b})[0] == 200
        ann.until(lambda: (ann.state()["opponent"] or {}).get("plan") is not None, what="the plan")
        plan = ann.state()["opponent"]["plan"]
        assert plan["lift"] == [b["from"]] and plan["place"] == [b["to"]]
        assert ann.state()["opponent"]["text"].startswith("Bob, playing from afar: move Black's tower")
        leds = ann.table.leds
        assert SPACE_IDS[b["from"]] in leds and SPACE_IDS[b["to"]] in leds
        ann.move(b["from"], b["to"])
        ann.until(lambda: ann.table.ref.phase == "play" and ann.table.game.to_move == ann.side
                 and (ann.state()["opponent"] or {}).get("plan") is None, what="the plan carried out")


def test_restart_resumes(game, tmp_path):
    ann, bob, hub = game
    start(ann, bob)
    st = ann.seat.link.state
    a = plain_move(st["legal"], {t["space"] for t in st["view"]["board"]})
    ann.move(a["from"], a["to"])
    code = ann.seat.link.code
    ann.until(lambda: heard(bob, lambda s: s["view"] and len(s["view"]["history"]) == 1), what="the move at the hub")
    occupied = ann.board.occupied
    ann.stop()
    # quin serve starts again on the same data folder: no --remote, the link's file names the game
    again = Board.__new__(Board)
    again.folder = tmp_path
    again.seat = RemoteSeat(tmp_path, None, None, backoff=(0.05, 0.3))
    again.clock = ann.clock  # the machine's clock goes on across the restart
    again.board = SimulatedBoard(clock=again.clock.clock)
    again.board.set(occupied)
    again.service = Service(Store(tmp_path / "quin.sqlite3"), board=again.board, settle=0.05,
                            **again.seat.service_kwargs())
    again.table = again.service.table
    again.table.occupied = again.board.occupied
    with again.clock.running():
        again.seat.attach(again.service, wait=5.0)
    again.clock.tables.append(again.table)  # ticked by the test as its clock moves (no ticker thread)
    try:
        assert again.seat.link.code == code and again.side == "white"
        again.until(lambda: again.table.ref is not None and again.table.ref.phase == "play", what="the resume")
        assert again.table.game.to_move == "black"
        bs = again.until(lambda: heard(bob, lambda s: s["legal"]), what="Black's turn")
        b = plain_move(bs["legal"], {t["space"] for t in bs["view"]["board"]})
        assert bob.post("action", {"seq": bs["seq"], "action": b})[0] == 200
        again.until(lambda: (again.state()["opponent"] or {}).get("plan") is not None, what="the plan")
        again.move(b["from"], b["to"])
        again.until(lambda: again.table.game.to_move == "white" and again.table.ref.phase == "play", what="followed")
    finally:
        again.stop()
        ann.stop = lambda: None


def test_brisk_hands_after_a_plan_make_the_next_move(game):
    """Issue 28: the person at the board carries out the rival's move and at once (no pause at all
    here: the next scan) lifts their own tower for their move; that move is read and sent, and no
    correction is said."""
    ann, bob, hub = game
    start(ann, bob)
    st = ann.seat.link.state
    a = plain_move(st["legal"], {t["space"] for t in st["view"]["board"]})
    ann.move(a["from"], a["to"])
    bs = ann.until(lambda: heard(bob, lambda s: s["legal"]), what="Black's turn")
    b = plain_move(bs["legal"], {t["space"] for t in bs["view"]["board"]})
    assert bob.post("action", {"seq": bs["seq"], "action": b})[0] == 200
    ann.until(lambda: (ann.state()["opponent"] or {}).get("plan") is not None, what="the plan")
    said = []
    publish = ann.table.broker.publish
    ann.table.broker.publish = lambda states, notices: (said.extend(notices.get(ann.side, [])), publish(states, notices))[1]
    ann.feed(ann.board.lift(b["from"]))
    ann.pause(0.1)  # a lift held a moment
    ann.feed(ann.board.place(b["to"]))
    after = ann.table.ref.game  # the position after the rival's move: the board's player's turn
    nxt = plain_move([x.to_record() for x in after.legal_actions()], {SPACE_NAMES[x] for x in after.occupied()})
    ann.feed(ann.board.lift(nxt["from"]))  # at once
    ann.pause(0.15)  # a lift held a moment
    ann.feed(ann.board.place(nxt["to"]))
    seen = ann.until(lambda: heard(bob, lambda s: s["view"] and sum(len(t["actions"]) for t in s["view"]["history"]) == 3),
                     what="the next move at the hub")
    assert seen["view"]["history"][-1]["actions"] == [nxt]
    fixes = [n for n in said if n["kind"] in ("instruction", "waiting") and n["data"].get("instructions")
             and not all("lift" in i for i in n["data"]["instructions"])]
    assert fixes == [], fixes
