"""Issue 32, "One time source": the board's timers for a hub run on the service's one clock, so a
test moves a FakeClock instead of waiting them out: the push's backoff, the absence countdown the
remote status shows, and the hub being asked again for a reveal it could not answer."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from host.clock import FakeClock
from host.compose import create_app
from host.remote.link import Unreached
from host.remote.push import Pusher
from host.remote.session import ASK_AGAIN, HubOracle, ending_status
from tests.support.waiting import wait_for


class BusyHub:
    """A hub that answers every push 503 (busy), counting them."""

    def __init__(self):
        self.pushes = 0
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                hub.pushes += 1
                body = json.dumps({"error": "busy"}).encode()
                self.send_response(503)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def test_the_service_hands_its_clock_to_the_push(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path), "TICK": 0, "MANUAL_CLOCK": True})
    service = app.extensions["quin.service"]
    hub = BusyHub()
    try:
        pusher = service.push_to(hub.url, "qt_key")
        assert pusher.clock is service.clock is service.table.clock is service.board.clock
        assert isinstance(service.clock, FakeClock)
        wait_for(lambda: service.clock.waiting(), "the pusher to wait on the service's clock")
        service.clock.advance(1.0)  # it looks at its outbox once a second of that clock (or on a new frame)
        wait_for(lambda: hub.pushes >= 1, "the push")
    finally:
        service.stop()
        hub.close()


def test_a_refused_push_is_tried_again_when_the_clock_has_passed_its_backoff(tmp_path):
    """A backoff of 30 s to a minute, passed in an instant: the retry comes when the clock is moved,
    long before 30 s of the machine's time (the wait below would time out on them)."""
    app = create_app({"DATA_DIR": str(tmp_path), "TICK": 0, "MANUAL_CLOCK": True})
    service = app.extensions["quin.service"]
    clock = service.clock
    hub = BusyHub()
    pusher = Pusher(service.table, hub.url, "qt_key", backoff=(30.0, 60.0), jitter=lambda: 1.0, clock=clock).start()
    try:
        wait_for(lambda: clock.waiting(), "the pusher to wait on the clock", 10)
        clock.advance(1.0)  # it looks at its outbox once a second
        wait_for(lambda: hub.pushes == 1 and clock.waiting(), "the first push, then its backoff", 10)
        clock.advance(30.0)
        wait_for(lambda: hub.pushes == 2 and clock.waiting(), "the second push, then a longer backoff", 10)
        clock.advance(60.0)  # the next backoff doubles: 60 s, the longest
        wait_for(lambda: hub.pushes == 3, "the third push", 10)
    finally:
        pusher.stop()
        service.stop()
        hub.close()


class _Link:
    def __init__(self, clock):
        self.clock = clock
        self.state_at = 0.0
        self.reveals = 0

    def pending(self):
        return []

    def paused(self):
        return None

    def reveal(self, body):
        self.reveals += 1
        raise Unreached("the hub is down")


class _Session:
    base = "base"
    next_seq = 3

    def __init__(self, clock, hub=None):
        self.link = _Link(clock)
        self.hub = hub or {"view": {}}

    def in_sync(self):
        return True


def test_the_absence_countdown_goes_on_from_the_last_state_on_the_links_clock():
    clock = FakeClock(100.0)
    session = _Session(clock, {"abandon": {"away": "black", "left": 30, "claimable": False}})
    session.link.state_at = clock.now()  # the hub's last state said 30 s were left
    assert ending_status(session)["abandon"]["left"] == 30
    clock.advance(9.5)
    assert ending_status(session)["abandon"]["left"] == 21  # rounded up: 20.5 s
    clock.advance(25.0)
    assert ending_status(session)["abandon"]["left"] == 0  # never below nothing


class _Time:
    def to_record(self):
        return {"type": "time"}


def test_a_reveal_the_hub_could_not_answer_is_asked_again_after_ask_again_on_the_clock():
    clock = FakeClock()
    session = _Session(clock)
    oracle = HubOracle(session)
    assert oracle.time(_Time()) is None  # asked, in the background: the hub is down
    wait_for(lambda: session.link.reveals == 1 and clock.waiting() == 1, "the ask to fail and wait on the clock")
    assert oracle.time(_Time()) is None and session.link.reveals == 1  # still waiting: not asked twice
    clock.advance(ASK_AGAIN)
    wait_for(lambda: clock.waiting() == 0, "the ask to be given up for now")
    assert oracle.time(_Time()) is None  # asked again
    wait_for(lambda: session.link.reveals == 2, "the second ask")


def test_a_reveal_is_not_asked_while_the_game_is_paused_and_is_asked_once_it_goes_on():
    """The hub answers 423 to everything while a side is away: the oracle does not ask into the pause
    (no request, no thread), and asks at the first tick after it ends."""
    clock = FakeClock()
    session = _Session(clock)
    session.link.paused = lambda: "Bob's browser is away: the game waits for it"
    oracle = HubOracle(session)
    threads = threading.active_count()
    assert oracle.time(_Time()) is None
    assert oracle.time(_Time()) is None  # a tick later, still paused
    assert session.link.reveals == 0 and threading.active_count() == threads and not oracle._asking
    session.link.paused = lambda: None  # the hub said the game goes on
    assert oracle.time(_Time()) is None  # asked now, in the background
    wait_for(lambda: session.link.reveals == 1, "the reveal asked once the pause ended")
