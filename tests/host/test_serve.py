"""`quin serve` as a real process: ready with URLs, killed mid-game and restarted, export and games."""

import json
import os
import random
import signal
import subprocess
import time

import pytest

from engine.actions import Move
from engine.board import BLACK, SPACE_NAMES, WHITE, parse_space
from engine.game import Game
from engine.randplay import random_setup

from tests.support.quin_cmd import QUIN
from tests.support.served import ROOT, Serve, quin
from tests.support.waiting import waiter
from tests.support.webtools import SSE, get_json, post_json


@pytest.fixture
def serve_factory(tmp_path):
    running = []

    def start(*extra):
        s = Serve(tmp_path / "data", *extra)
        running.append(s)
        return s

    yield start
    for s in running:
        s.stop()


def moves_played(state):
    return sum(len(t["actions"]) for t in state["view"]["history"]) if state["view"] else 0


def test_serve_prints_urls_and_is_ready_quickly(serve_factory):
    s = serve_factory()
    assert s.lines[0].startswith("Quin is ready")
    assert {"status page", "virtual board", "history", "host page", "white seat", "black seat"} <= set(s.urls)
    assert s.ready_after < 10  # the goal is two seconds; measured, reported in the first line
    assert s.state()["phase"] == "setup"
    assert get_json(s.base + "/api/layout")[0] == 200


def test_killed_mid_game_and_restarted_loses_no_committed_action(serve_factory, tmp_path):
    s = serve_factory()
    rng = random.Random(4)
    white, black = random_setup(rng, WHITE), random_setup(rng, BLACK)
    for player, setup in ((WHITE, white), (BLACK, black)):
        token = s.tokens[player]
        status, body = post_json(f"{s.base}/api/seat/{token}/setup", setup.to_record(), {"X-Seat-Token": token})
        assert status == 200, body
    assert post_json(s.base + "/api/board/set", {"start": True}, s.board)[0] == 200
    s.wait(lambda st: st["referee"] and st["referee"]["phase"] == "play", "the board to be set up")
    game_id = s.state()["game"]

    shadow = Game(white, black, first=s.state()["first"])
    announced = []
    for i in range(8):
        plain = [a for a in shadow.legal_actions() if isinstance(a, Move) and shadow.tower_at(a.to) is None]
        move = rng.choice(plain)
        for space in (move.frm, move.to):
            assert post_json(s.base + "/api/board/toggle", {"space": SPACE_NAMES[space]}, s.board)[0] == 200
        s.wait(lambda st: moves_played(st) == i + 1, f"move {i + 1} to be committed")
        shadow.push(move)
        announced.append(move.to_record())
    # One more move on the board, and the power goes at once: it may or may not have been committed.
    extra = next(a for a in shadow.legal_actions() if isinstance(a, Move) and shadow.tower_at(a.to) is None)
    post_json(s.base + "/api/board/toggle", {"space": SPACE_NAMES[extra.frm]}, s.board)
    post_json(s.base + "/api/board/toggle", {"space": SPACE_NAMES[extra.to]}, s.board)
    s.kill()

    again = serve_factory()
    state = again.state()
    assert state["game"] == game_id and state["phase"] == "playing"
    stored = [a for t in state["view"]["history"] for a in t["actions"]]
    assert stored[: len(announced)] == announced  # everything announced survived
    assert stored in (announced, announced + [extra.to_record()])
    # The simulated board comes back as it stood; the referee checks it against the game.
    again.wait(lambda st: st["referee"]["phase"] == "play" or st["board"]["lift"] or st["board"]["place"],
               "the board check")

    out = quin("export", str(game_id), "--data-dir", str(tmp_path / "data"), "--force")  # still in play: forced
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout)
    assert record["format"] == "quin-record/1"
    assert [a for t in record["turns"] for a in t["actions"]] == stored
    assert record["setup"]["white"] == white.to_record()
    listing = quin("games", "--json", "--data-dir", str(tmp_path / "data"))
    games = json.loads(listing.stdout)["games"]
    assert games[0]["id"] == game_id and games[0]["status"] == "playing" and games[0]["actions"] == len(stored)


def test_killed_at_random_moments_every_announced_action_survives(serve_factory):
    """Three power cuts at random moments while towers move; a stream client notes every commit it is told of."""
    import threading

    rng = random.Random(9)
    s = serve_factory()
    white, black = random_setup(rng, WHITE), random_setup(rng, BLACK)
    for player, setup in ((WHITE, white), (BLACK, black)):
        token = s.tokens[player]
        assert post_json(f"{s.base}/api/seat/{token}/setup", setup.to_record(), {"X-Seat-Token": token})[0] == 200
    assert post_json(s.base + "/api/board/set", {"start": True}, s.board)[0] == 200
    s.wait(lambda st: st["referee"] and st["referee"]["phase"] == "play", "the board to be set up")
    shadow = Game(white, black, first=s.state()["first"])
    told: list[dict] = []

    def listen(server):
        stream = SSE(server.base, "/events", timeout=30)
        try:
            while True:
                event = stream.next()
                if event is None:
                    return
                for notice in event["data"]["notices"]:
                    if notice["kind"] == "committed":
                        told.append(notice["data"]["action"])
        except OSError:
            return

    for cycle in range(3):
        listener = threading.Thread(target=listen, args=(s,), daemon=True)
        listener.start()
        cut = rng.uniform(0.5, 2.0)
        started = time.monotonic()
        while time.monotonic() - started < cut:
            plain = [a for a in shadow.legal_actions() if isinstance(a, Move) and shadow.tower_at(a.to) is None]
            move = rng.choice(plain)
            for space in (move.frm, move.to):
                post_json(s.base + "/api/board/toggle", {"space": SPACE_NAMES[space]}, s.board)
            shadow.push(move)
            # a real `quin serve` process is killed at a random moment of its real time: that is the test
            time.sleep(rng.uniform(0.0, 0.4))
        s.kill()
        listener.join(10)
        s = serve_factory()
        state = s.state()
        stored = [a for t in state["view"]["history"] for a in t["actions"]]
        assert stored[: len(told)] == told, f"cycle {cycle}: an announced action was lost"
        # Carry on from what the store holds: put the simulated board back as the game stands.
        shadow = Game(white, black, first=state["first"])
        for t in state["view"]["history"]:
            for a in t["actions"]:
                shadow.push(Move(parse_space(a["from"]), parse_space(a["to"])))
        assert post_json(s.base + "/api/board/set", {"occupied": [SPACE_NAMES[x] for x in shadow.occupied()]}, s.board)[0] == 200
        s.wait(lambda st: st["referee"]["phase"] == "play", "the board to match the game again")
        told = list(stored)
    assert len(told) >= 3


def test_links_stay_out_of_logs_unless_asked_and_quin_links_prints_them(tmp_path, serve_factory):
    s = serve_factory()
    # Not a terminal and no --show-links (as under systemd): no token reaches the log.
    proc = subprocess.Popen([*QUIN, "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir",
                             str(tmp_path / "other")], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        lines = [proc.stdout.readline() for _ in range(6)]
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
        rest = proc.stdout.read()  # through the file, so what its buffer already holds is kept
        proc.stdout.close()
    text = "".join(lines) + rest
    assert "quin links" in text and "/seat/" not in text and "/host/" not in text and "/board/" not in text
    port = s.base.rsplit(":", 1)[1]
    out = quin("links", "--port", port, "--host", "192.0.2.7", "--no-qr", "--data-dir", str(tmp_path / "data"))
    assert out.returncode == 0, out.stderr
    for player in ("white", "black"):
        assert f"http://192.0.2.7:{port}/seat/{s.tokens[player]}" in out.stdout
    assert f"virtual board: http://192.0.2.7:{port}/board/{s.board['X-Board-Key']}" in out.stdout
    # Without --port: the port of the server that holds the data folder.
    out = quin("links", "--no-qr", "--data-dir", str(tmp_path / "data"))
    assert out.returncode == 0 and f":{port}/seat/{s.tokens['white']}" in out.stdout, out.stderr


def test_quin_links_says_when_no_server_runs_or_the_port_is_another_servers(tmp_path, serve_factory):
    """Issue 11: links for whatever store it found gave 403s; with no server it printed links without a word."""
    out = quin("links", "--no-qr", "--data-dir", str(tmp_path / "data"))
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.strip() == f"quin: no quin serve is running with the data folder {tmp_path / 'data'} " \
                                 "(start it, or give its --data-dir)"
    s = serve_factory()
    port = int(s.base.rsplit(":", 1)[1])
    out = quin("links", "--port", str(port + 1), "--no-qr", "--data-dir", str(tmp_path / "data"))
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 2 and out.stdout == "" and len(lines) == 1
    assert f"port {port + 1} does not use the data folder" in lines[0] and f"listens on port {port}" in lines[0]
    assert s.tokens["white"] not in out.stderr
    s.stop()
    out = quin("links", "--no-qr", "--data-dir", str(tmp_path / "data"))
    assert out.returncode == 2 and "no quin serve is running" in out.stderr


def test_against_the_opponent_only_the_humans_seat_gets_a_link(tmp_path, serve_factory):
    """The opponent's seat opens nothing, so neither `quin serve` nor `quin links` prints a link for it."""
    s = serve_factory("--opponent", "white", "--level", "0")
    assert set(s.tokens) == {"black"}
    assert s.rows["white seat"] == "played by the practice opponent: no phone, no link"
    assert any("Scan your seat code" in line and "opponent plays White" in line for line in s.lines), s.lines
    out = quin("links", "--no-qr", "--data-dir", str(tmp_path / "data"))
    assert out.returncode == 0, out.stderr
    assert "white seat:    played by the practice opponent: no phone, no link" in out.stdout
    assert f"/seat/{s.tokens['black']}" in out.stdout and out.stdout.count("/seat/") == 1


def test_export_of_an_unknown_game_is_one_line(tmp_path):
    out = quin("export", "42", "--data-dir", str(tmp_path))
    assert out.returncode == 2 and out.stderr.strip() == "quin: no game 42"


@pytest.mark.parametrize("board", ["serial", "gpio"])
def test_unavailable_hardware_boards_fail_in_one_line(tmp_path, board):
    env = dict(os.environ, QUIN_SERIAL_PORT="", QUIN_DATA_DIR=str(tmp_path))
    out = subprocess.run([*QUIN, "serve", "--board", board, "--host", "127.0.0.1",
                          "--port", "0", "--data-dir", str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                         timeout=30, env=env)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("quin: "), out.stderr
    assert "Traceback" not in out.stderr


def test_a_port_in_use_is_one_line(serve_factory, tmp_path):
    s = serve_factory()
    port = s.base.rsplit(":", 1)[1]
    out = subprocess.run([*QUIN, "serve", "--host", "127.0.0.1", "--port", port,
                          "--data-dir", str(tmp_path / "other")], cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert out.returncode == 2 and out.stderr.startswith(f"quin: cannot listen on 127.0.0.1:{port}")


def test_the_board_pump_feeds_the_referee_and_lights_the_leds(tmp_path):
    """A hardware-like source (the simulated board with LEDs) read by quin serve's pump thread."""
    import threading

    from host.commands.serve_cmds import pump
    from host.board.leds import COLOURS
    from host.board.simboard import SimulatedBoard
    from host.store import Store
    from host.session.table import Table
    from host.compose import start_ticker
    from host.web.events import Broker

    class LitBoard(SimulatedBoard):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.shown = []

        def show(self, leds):
            self.shown.append(dict(leds))

    board = LitBoard(clock=time.monotonic)
    table = Table(Store(tmp_path / "q.sqlite3"), Broker())
    table.open()
    ticker = start_ticker(table, 0.02)
    stop = threading.Event()
    thread = threading.Thread(target=pump, args=(table, board, stop), daemon=True)
    thread.start()

    until = waiter(timeout=10, every=0.02)

    try:
        rng = random.Random(3)
        white, black = random_setup(rng, WHITE), random_setup(rng, BLACK)
        table.submit_setup(WHITE, white.to_record())
        table.submit_setup(BLACK, black.to_record())
        # An empty board: after the settle window every starting space lights up to be filled.
        until(lambda: board.shown and len(board.shown[-1]) == 20, "the setup lights")
        assert set(board.shown[-1].values()) == {COLOURS["correction"]}
        board.set(table.game.occupied())
        until(lambda: table.ref.phase == "play", "the referee to start")
        move = next(a for a in table.game.legal_actions() if isinstance(a, Move) and table.game.tower_at(a.to) is None)
        board.move(move.frm, move.to)
        until(lambda: len(table.game.log) == 1, "the move to be committed")
        assert table.game.log[0][2] == move
        until(lambda: board.shown[-1].get(move.to) == COLOURS["last_move"], "the last move's light")
    finally:
        stop.set()
        ticker.set()
        thread.join(5)
