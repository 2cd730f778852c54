"""The board's link to the hub (host/remote/link.py) against a hub speaking the protocol of
docs/remote-play.md: opening and joining games, the stream, the outbox (idempotent, durable
across a restart), the pause when the hub is not reached, and one-line errors."""

import random
import time

import pytest

from engine.randplay import random_setup
from host.remote.link import NOT_REACHED, Link, LinkFile, RemoteError, normalize_code, open_game
from tests.support.player import RemotePlayer
from tests.support.waiting import wait_for


def board_link(tmp_path, hub, remote="new", **kw):
    opened = open_game(hub.url, remote, name="Ann", **kw)
    link = Link.create(LinkFile(tmp_path / "remote.json"), opened, backoff=(0.05, 0.2))
    return link.start()


def test_code_forms():
    assert normalize_code("k7m-2qx") == "K7M2QX"
    assert normalize_code(" K7M2QX ") == "K7M2QX"
    for bad in ("K7M-2Q", "K7M-2Q1", "I7M2QX", "", "K7M-2QXX"):
        with pytest.raises(RemoteError) as err:
            normalize_code(bad)
        assert "\n" not in str(err.value) and str(err.value).startswith("--remote:")


def test_bad_url_and_unknown_code(scripthub):
    with pytest.raises(RemoteError, match=r"^--hub: an http"):
        open_game("ftp://x", "new")
    with pytest.raises(RemoteError, match=r"^--hub: http://127.0.0.1:1 cannot be reached"):
        open_game("http://127.0.0.1:1", "new")
    with pytest.raises(RemoteError, match=r"^--remote: the hub has no game K7M-2QX$"):
        open_game(scripthub.url, "k7m2qx")
    with pytest.raises(RemoteError, match=r"^--side:"):
        open_game(scripthub.url, "new", side="green")


def test_create_join_stream_and_setup(tmp_path, scripthub):
    link = board_link(tmp_path, scripthub, side="white")
    try:
        assert link.side == "white"
        file = LinkFile(tmp_path / "remote.json").load()
        assert file["code"] == link.code and file["token"].startswith("qs_")
        assert (tmp_path / "remote.json").stat().st_mode & 0o077 == 0  # the token is the owner's only
        wait_for(lambda: link.state is not None and link.state["phase"] == "waiting", what="the waiting state")
        bob = RemotePlayer(scripthub.url)
        bob.join(link.shown.lower())  # any case, with the dash
        assert bob.side == "black"
        bob.listen()
        wait_for(lambda: link.state["phase"] == "setup" and link.paused() is None, what="setup")
        setup = random_setup(random.Random(1), "white").to_record()
        link.send_setup(setup)
        bob.post("setup", {"setup": random_setup(random.Random(2), "black").to_record()})
        wait_for(lambda: link.state["phase"] == "playing", what="play")
        # the hub's stream can say "playing" before its answer to our setup reaches the sender thread:
        # the setup leaves the outbox once answered, never stays
        wait_for(lambda: link.pending() == [], what="the setup answered and gone from the outbox")
        assert link.state["view"]["board"]
        # only this side's identities and nothing of the rival's
        assert all(t["piece"] is None for t in link.state["view"]["board"] if t["owner"] == "black")
        bob.close()
    finally:
        link.stop()


def _play_start(tmp_path, hub):
    link = board_link(tmp_path, hub, side="white")
    bob = RemotePlayer(hub.url)
    bob.join(link.code)
    bob.listen()
    link.send_setup(random_setup(random.Random(1), "white").to_record())
    bob.post("setup", {"setup": random_setup(random.Random(2), "black").to_record()})
    wait_for(lambda: link.state is not None and link.state["phase"] == "playing" and link.paused() is None,
             what="play")
    return link, bob


def test_action_resent_is_applied_once(tmp_path, scripthub):
    link, bob = _play_start(tmp_path, scripthub)
    try:
        state = link.state
        action = state["legal"][0]
        link.send_action(state["seq"], action)
        link.send_action(state["seq"], action)  # the same message again: one entry, one action
        wait_for(lambda: link.state["seq"] == state["seq"] + 1, what="the action applied")
        posts = [p for m, p in scripthub.requests if p.endswith("/action")]
        assert len(posts) == 1
        game = scripthub.games[link.code].game
        assert len(game.log) == 1
        bob.close()
    finally:
        link.stop()


def test_outbox_survives_a_restart_while_the_hub_is_down(tmp_path, scripthub):
    link, bob = _play_start(tmp_path, scripthub)
    state = link.state
    action = state["legal"][0]
    scripthub.down = True
    scripthub.drop()
    wait_for(lambda: link.paused() == NOT_REACHED, what="the pause")
    tried = link.attempts
    link.send_action(state["seq"], action)
    wait_for(lambda: link.attempts > tried, what="the link to try the hub that is down")
    link.stop()  # quin serve stops with the action unsent
    assert LinkFile(tmp_path / "remote.json").load()["outbox"] == [
        {"route": "action", "body": {"seq": state["seq"], "action": action}}]
    scripthub.down = False
    again = Link(LinkFile(tmp_path / "remote.json"), backoff=(0.05, 0.2)).start()
    try:
        assert again.code == link.code and again.side == "white"
        wait_for(lambda: again.state is not None and again.state["seq"] == state["seq"] + 1, what="the resend")
        wait_for(lambda: again.pending() == [], what="the outbox drained")
        assert len(scripthub.games[link.code].game.log) == 1
        assert LinkFile(tmp_path / "remote.json").load()["outbox"] == []
        bob.close()
    finally:
        again.stop()


def test_paused_by_the_hub_and_resumed(tmp_path, scripthub):
    link, bob = _play_start(tmp_path, scripthub)
    try:
        bob.close()  # the rival's browser goes away: the hub pauses the game for both
        wait_for(lambda: link.paused() is not None and "away" in link.paused(), what="the hub's pause")
        state = link.state
        link.send_action(state["seq"], state["legal"][0])  # 423 while paused: kept and sent later
        # Nothing is sent while the hub's state says paused, so no event tells that the link looked at
        # its outbox and kept the action: a while of the machine's time is what "kept" can be shown by.
        time.sleep(0.3)
        assert link.pending() != []
        bob.listen()
        wait_for(lambda: link.pending() == [] and link.state["seq"] == state["seq"] + 1, what="the resume")
    finally:
        link.stop()


def test_stream_dropped_reconnects(tmp_path, scripthub):
    link, bob = _play_start(tmp_path, scripthub)
    try:
        before = link.received
        scripthub.drop()
        wait_for(lambda: link.received > before and link.paused() is None, what="the stream back")
        bob.close()
    finally:
        link.stop()


def _states_come(link, scripthub, n):
    """``n`` more states reach the link while the game stays paused: the stream dropped and reopened."""
    for _ in range(n):
        before = link.received
        scripthub.drop()
        wait_for(lambda b=before: link.received > b and link.paused() is not None, what="a state while paused")


def _action_posts(scripthub):
    return sum(1 for _, p in scripthub.requests if p.endswith("/action"))


def test_a_paused_game_waits_for_the_resume_notice_not_a_timer(tmp_path, scripthub):
    """issue 28: the board retried its queued move into a pause (170 lines of 423 on the hub)."""
    link, bob = _play_start(tmp_path, scripthub)
    try:
        bob.close()
        wait_for(lambda: link.paused() is not None and "away" in link.paused(), what="the hub's pause")
        state = link.state
        link.send_action(state["seq"], state["legal"][0])
        _states_come(link, scripthub, 8)  # eight states, all paused: nothing is sent into the pause
        assert _action_posts(scripthub) == 0 and link.pending() != []
        bob.listen()  # the resume notice: sent once, applied once
        wait_for(lambda: link.pending() == [] and link.state["seq"] == state["seq"] + 1, what="the resume")
        assert _action_posts(scripthub) == 1
    finally:
        link.stop()


def test_a_423_holds_the_outbox_until_a_newer_state(tmp_path, scripthub):
    link, bob = _play_start(tmp_path, scripthub)
    try:
        game = scripthub.games[link.code]
        with scripthub.lock:  # the hub pauses, its stream not yet saying so
            game.paused = lambda: "Bob's browser is away: the game waits for it"
        state = link.state
        link.send_action(state["seq"], state["legal"][0])
        wait_for(lambda: _action_posts(scripthub) == 1, what="the first attempt (423)")
        _states_come(link, scripthub, 6)
        assert _action_posts(scripthub) == 1 and link.pending() != []
        with scripthub.lock:
            del game.paused  # back: the class's own
            scripthub.changed()
        wait_for(lambda: link.pending() == [] and link.state["seq"] == state["seq"] + 1, what="the resume")
        assert _action_posts(scripthub) == 2  # at most a handful: the one refused and the one taken
        bob.close()
    finally:
        link.stop()


def test_stop_ends_the_streams_read_at_once_whatever_its_silence_timeout(tmp_path, scripthub):
    """The stream's socket is shut down by stop(), even once the response owns it (http.client lets go
    of ``conn.sock`` for a response that closes its connection): with an hour's silence allowed, the
    reading thread still ends (it had waited out the 5 s join, every scripted-hub test paying it,
    until the hub's next keep-alive woke it: here there is none for an hour)."""
    scripthub.keepalive = 3600.0
    opened = open_game(scripthub.url, "new", name="Ann", side="white")
    link = Link.create(LinkFile(tmp_path / "remote.json"), opened, backoff=(0.05, 0.2), silence=3600.0).start()
    wait_for(lambda: link.state is not None and link.connected, what="the stream open")
    link.stop(timeout=30.0)
    assert not any(t.is_alive() for t in link._threads), [t.name for t in link._threads if t.is_alive()]
