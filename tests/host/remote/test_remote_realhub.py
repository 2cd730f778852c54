"""The board side against a real hub process on PostgreSQL: the link, a game played from the
simulated board against a scripted remote player over HTTP, a restart mid-game."""

import random

from engine.randplay import random_setup
from host.remote.link import Link, LinkFile, RemoteError, open_game
from tests.support.player import RemotePlayer
from engine.board import SPACE_IDS
from tests.support.remote_board import Board, heard, plain_move, start
from tests.support.waiting import wait_for

import pytest


def test_link_errors_name_the_field(realhub):
    with pytest.raises(RemoteError, match=r"^--remote: the hub has no game K7M-2QX$"):
        open_game(realhub.url, "K7M-2QX")


def test_outbox_resent_after_restart_is_applied_once(tmp_path, realhub):
    opened = open_game(realhub.url, "new", side="white", name="Ann")
    link = Link.create(LinkFile(tmp_path / "remote.json"), opened, backoff=(0.05, 0.3)).start()
    bob = RemotePlayer(realhub.url)
    bob.join(link.code)
    bob.listen()
    link.send_setup(random_setup(random.Random(1), "white").to_record())
    bob.post("setup", {"setup": random_setup(random.Random(2), "black").to_record()})
    wait_for(lambda: link.state is not None and link.state["phase"] == "playing", what="play")
    st = link.state
    a = plain_move(st["legal"], {t["space"] for t in st["view"]["board"]})
    link.send_action(st["seq"], a)
    wait_for(lambda: link.state["seq"] == st["seq"] + 1, what="the action")
    link.stop()
    # the answer was lost: the same message is in the outbox again when the board restarts
    data = LinkFile(tmp_path / "remote.json").load()
    data["outbox"] = [{"route": "action", "body": {"seq": st["seq"], "action": a}}]
    LinkFile(tmp_path / "remote.json").save(data)
    again = Link(LinkFile(tmp_path / "remote.json"), backoff=(0.05, 0.3)).start()
    try:
        wait_for(lambda: again.pending() == [], what="the resend answered")
        assert again.problem is None
        assert len(again.state["view"]["history"]) == 1 and len(again.state["view"]["history"][0]["actions"]) == 1
    finally:
        again.stop()
        bob.close()


def test_a_game_against_a_remote_player(tmp_path, realhub):
    ann = Board(tmp_path, realhub.url, side="white")
    bob = RemotePlayer(realhub.url)
    try:
        bob.join(ann.seat.link.code)
        bob.listen()
        start(ann, bob, seeds=(1, 2))
        for _ in range(3):
            st = ann.seat.link.state
            a = plain_move(st["legal"], {t["space"] for t in st["view"]["board"]})
            ann.move(a["from"], a["to"])
            bs = ann.until(lambda: heard(bob, lambda s: s["legal"] is not None and s["view"]["history"]
                                         and s["view"]["history"][-1]["player"] == "white"), what="Black's turn")
            b = plain_move(bs["legal"], {t["space"] for t in bs["view"]["board"]})
            status, ans = bob.post("action", {"seq": bs["seq"], "action": b})
            assert status == 200, ans
            ann.until(lambda: (ann.state()["opponent"] or {}).get("plan") is not None, what="the plan")
            assert ann.state()["opponent"]["plan"]["lift"] == [b["from"]]
            ann.move(b["from"], b["to"])
            ann.until(lambda: ann.table.ref.phase == "play" and ann.table.game.to_move == "white"
                     and ann.state()["opponent"].get("plan") is None, what="the plan carried out")
    finally:
        bob.close()
        ann.stop()


def test_a_flash_by_the_board_asks_the_hub(tmp_path, realhub):
    """The local player's flash onto a tower they do not know: the referee waits for the hub's
    reveal, then commits the true outcome; both sides see the same result."""
    from tests.support.remote_board import a_flash, carry_out_flash, towards

    ann = Board(tmp_path, realhub.url, side="white")
    bob = RemotePlayer(realhub.url)
    try:
        bob.join(ann.seat.link.code)
        bob.listen()
        start(ann, bob, seeds=(3, 4))
        for _ in range(30):
            st = ann.seat.link.state
            ann.until(lambda: ann.seat.link.state["legal"], what="white's turn at the hub")
            st = ann.seat.link.state
            flash = a_flash(st["legal"], st["view"], "white")
            if flash is not None:
                break
            a = towards(st["legal"], st["view"], "white")
            ann.move(a["from"], a["to"])
            bs = ann.until(lambda: heard(bob, lambda s: s["legal"] is not None and s["view"]["history"][-1]["player"] == "white"),
                           what="Black's turn")
            b = towards(bs["legal"], bs["view"], "black")
            flash_b = a_flash(bs["legal"], bs["view"], "black")
            if flash_b is not None:  # Bob must not flash first: any other move
                b = next(x for x in bs["legal"] if x["type"] == "move"
                         and x["to"] not in {t["space"] for t in bs["view"]["board"]})
            assert bob.post("action", {"seq": bs["seq"], "action": b})[0] == 200
            ann.until(lambda: (ann.state()["opponent"] or {}).get("plan") is not None, what="the plan")
            ann.move(b["from"], b["to"])
            ann.until(lambda: ann.table.ref.phase == "play" and ann.table.game.to_move == "white"
                     and ann.state()["opponent"].get("plan") is None, what="the plan carried out")
        else:
            pytest.skip("the sides did not meet in 30 rounds")
        n = len(ann.seat.link.state["view"]["history"])
        carry_out_flash(ann, flash)
        hub_state = ann.until(lambda: heard(bob, lambda s: len(s["view"]["history"]) > n), what="the flash at the hub")
        seen = hub_state["view"]["history"][-1]["actions"][-1]
        assert seen["from"] == flash["from"] and seen["to"] == flash["to"]
        # the board's board now shows what the hub's does
        ann.until(lambda: ann.seat.link.state["view"]["board"] == ann.state("white")["view"]["board"],
                 what="the board's view to agree with the hub's")
        assert ann.board.occupied == frozenset(SPACE_IDS[t["space"]] for t in hub_state["view"]["board"])
    finally:
        bob.close()
        ann.stop()


def test_a_board_joining_takes_the_games_terms_from_the_hub(tmp_path, realhub):
    """The friend started a Third Eye game in a browser; the board joins with its code (its own
    --mode is only a new game's): the board's game is Third Eye from the start, before play."""
    bob = RemotePlayer(realhub.url)
    bob.create(mode="third_eye", side="white", first="black")
    ann = Board(tmp_path, realhub.url, remote=bob.code)
    try:
        assert ann.side == "black"
        row = ann.table.row
        assert (row.mode, row.first) == ("third_eye", "black")
        assert ann.state()["mode"] == "third_eye"
    finally:
        ann.stop()
        bob.close()
