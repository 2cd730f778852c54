"""The board says what its link to the hub is doing (issue 29, item 4): reached; the hub refuses this
table key; no hub at that address; that address answers but is not a Quin hub (a wrong path) -- on the
status page (its ``hub`` line, published at once and alone) and by ``quin serve`` (one line a change);
failed pushes are retried from half a second, doubling, to a minute, on an injected clock.

Against a real hub on a throwaway PostgreSQL (tests/support/pg.py, hubproc.py)."""

import json
import logging
import os
import socket
import subprocess
import sys
import threading

import pytest

from tests.support.hubproc import ROOT, quin, wait_for

from host.remote.push import Link, Pusher
from host.compose import create_app


def _data(frame: bytes) -> list[dict]:
    return [json.loads(line[6:]) for line in frame.decode().split("\n") if line.startswith("data: ")]


class Table:
    """A board served in this process (simulated, manual clock), its public stream kept."""

    def __init__(self, folder):
        app = create_app({"DATA_DIR": str(folder), "TICK": 0, "MANUAL_CLOCK": True})
        self.table = app.extensions["quin.table"]
        self.public: list[dict] = []
        sub = self.table.broker.stream("public")
        self.public.extend(_data(sub.attach(lambda f: self.public.extend(_data(f)), lambda: None)))
        self.pusher: Pusher | None = None

    def push(self, url, key, **kw) -> Pusher:
        self.pusher = Pusher(self.table, url, key, **kw).start()
        return self.pusher

    def hub_line(self) -> dict:
        return self.table.state()["hub"]

    def stop(self):
        if self.pusher is not None:
            self.pusher.stop()


@pytest.fixture
def table_key(db):
    return quin("hub", "add-table", "t1", "--db", db[0]).stdout.strip()


@pytest.fixture
def board(tmp_path):
    b = Table(tmp_path / "board")
    yield b
    b.stop()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def settled(board, state):
    wait_for(lambda: board.hub_line()["state"] == state, f"the hub line to say {state!r}")
    # the status page was told at once, by an event that changed its hub line and nothing else
    wait_for(lambda: board.public[-1]["state"]["hub"]["state"] == state, "the public stream to say it")
    last, before = board.public[-1], board.public[-2]
    assert {k: v for k, v in last["state"].items() if k != "hub"} == \
        {k: v for k, v in before["state"].items() if k != "hub"}
    assert last["notices"] == []
    return board.hub_line()


def test_reached(db, hubs, table_key, board):
    hub = hubs()
    board.push(hub.url, table_key)
    line = settled(board, Link.REACHED)
    assert line["reached"] is True
    assert line["message"] == f"reached: the club's hub at {hub.url} takes this table's games"


def test_the_hub_refuses_this_table_key(db, hubs, table_key, board, tmp_path):
    hub = hubs(log=tmp_path / "hub.log")
    board.push(hub.url, "qt_7a" + "0" * 30)  # well formed, not this hub's
    line = settled(board, Link.KEY)
    assert line["reached"] is False
    # the organiser's full line (terminal, host page) ...
    assert line["message"].startswith(f"the club's hub at {hub.url} refuses this table key: check --table-key")
    assert "the games are kept" in line["message"]
    # ... and the players' short plain one for the public status page: no options, no backticks
    assert line["public"] == ("Not connected to the club's hub: the hub refuses this table's key — ask the organiser. "
                              "The games are kept.")
    # the hub's log names the key's first characters and the address, so the organiser can tell which board
    wait_for(lambda: "push refused" in hub.logged(), "the hub to log the refused key")
    said = [ln for ln in hub.logged().splitlines() if "push refused" in ln][0]
    assert "qt_7a00…" in said and "127.0.0.1" in said, said
    assert "qt_7a" + "0" * 30 not in hub.logged()  # never the whole key


def test_no_hub_at_that_address(db, table_key, board):
    port = free_port()
    board.push(f"http://127.0.0.1:{port}", table_key)
    line = settled(board, Link.ABSENT)
    assert line["message"].startswith(f"no hub at http://127.0.0.1:{port} (nothing listens there): "
                                      "check the address and that `quin hub serve` runs there")


def test_a_wrong_path_answers_but_is_not_a_quin_hub(db, hubs, table_key, board):
    hub = hubs()
    board.push(hub.url + "/club", table_key)  # the right server, a path it does not serve
    line = settled(board, Link.NOT_HUB)
    assert line["message"].startswith(f"{hub.url}/club answers, but not as a Quin hub (HTTP 404): check the "
                                      "address, its path too")


def test_a_hub_reached_later_is_said_reached_and_the_games_go(db, table_key, board):
    from tests.support.hubproc import HubProcess

    port = free_port()
    board.push(f"http://127.0.0.1:{port}", table_key, backoff=(0.05, 0.2))
    settled(board, Link.ABSENT)
    hub = HubProcess(db[0], "--port", str(port))
    try:
        settled(board, Link.REACHED)
        wait_for(lambda: board.pusher.outbox.pending() == 0, "the outbox to drain")
    finally:
        hub.stop()


def test_retries_back_off_from_half_a_second_to_a_minute_on_an_injected_clock(db, table_key, board, caplog):
    """Each failed push waits twice as long as the one before, never more than a minute; the link's
    state is said once, not at every retry."""
    waits: list[float] = []
    enough = threading.Event()

    def wait(seconds: float) -> bool:  # the pusher's clock: no time passes, each wait is recorded
        waits.append(seconds)
        if len(waits) >= 12:
            enough.set()
            return board.pusher._stop.wait()  # until the test stops it
        return False

    port = free_port()
    with caplog.at_level(logging.WARNING, logger="quin.hub.push"):
        board.push(f"http://127.0.0.1:{port}", table_key, wait=wait, jitter=lambda: 1.0)
        wait_for(enough.is_set, "twelve failed pushes")
        board.stop()
    assert waits == [0.5, 1, 2, 4, 8, 16, 32, 60, 60, 60, 60, 60]
    said = [r.getMessage() for r in caplog.records if r.name == "quin.hub.push"]
    assert len(said) == 1 and said[0].startswith(f"hub: no hub at http://127.0.0.1:{port}"), said
    # jitter never takes a wait past the minute
    board.pusher._jitter = lambda: 1.2
    assert [board.pusher.retry_wait(n) for n in (1, 2, 8, 9, 40, 500)] == [0.6, 1.2, 60.0, 60.0, 60.0, 60.0]


def test_quin_serve_says_the_hub_refuses_its_key(db, hubs, tmp_path):
    """A real `quin serve` with a key the hub does not know: one line on its terminal, the same on the
    status page."""
    hub = hubs()
    env = {"PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "QUIN_MDNS": "off"}
    proc = subprocess.Popen([sys.executable, "-c", "import sys; from host.cli import main; sys.exit(main())",
                             "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", str(tmp_path / "d"),
                             "--no-qr", "--hub", hub.url, "--table-key", "qt_" + "1" * 32],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stderr.readline()  # the first thing it says on its own: the link's state
        assert line.startswith(f"hub: the club's hub at {hub.url} refuses this table key: check --table-key"), line
        assert "Traceback" not in line
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.parametrize("status, body, state, words", [
    (200, b"<html>a router's page</html>", Link.NOT_HUB, "answers, but not as a Quin hub (HTTP 200)"),
    (200, b'{"ok": false}', Link.NOT_HUB, "answers, but not as a Quin hub (HTTP 200)"),
    (404, b"Not Found", Link.NOT_HUB, "answers, but not as a Quin hub (HTTP 404)"),
    (401, b'{"error": "a table\'s key is needed"}', Link.KEY, "refuses this table key"),
    (403, b'{"error": "unknown table key"}', Link.KEY, "refuses this table key"),
    (503, b'{"error": "the hub\'s database is not reached (OperationalError)"}', Link.TROUBLE,
     "cannot take the games now (503: the hub's database is not reached (OperationalError))"),
    (429, b'{"error": "too many pushes for this table"}', Link.TROUBLE, "cannot take the games now (429: "),
])
def test_every_answer_a_push_may_get_is_said_as_what_it_is(status, body, state, words):
    """The answers a real hub gives are tested above against one; these are the rest (a router's page,
    the hub's database down, too many pushes), as a push would receive them."""
    link = Link.answered("http://hub.local:8100", status, body)
    assert link.state == state and words in link.message, link.message


def test_a_hub_that_is_not_there_is_said_why_in_words():
    url = "http://hub.local:8100"
    assert Link.answered(url, 200, b'{"ok": true, "table": "t1"}') is None
    assert "(nothing listens there)" in Link.unreached(url, ConnectionRefusedError(111, "Connection refused")).message
    assert "(nothing answered in time)" in Link.unreached(url, TimeoutError("timed out")).message
    unknown = Link.unreached(url, socket.gaierror(-2, "Name or service not known"))
    assert unknown.state == Link.ABSENT
    assert unknown.message == (f"no hub at {url} (that name is not known on this network): check the address and "
                               "that `quin hub serve` runs there")
