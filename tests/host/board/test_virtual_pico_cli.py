"""`quin virtual-pico` and `quin serve --board serial --serial-port` as a person runs them: two commands,
the hands typed into the first, the game refereed by the second, over the firmware under MicroPython."""

import json
import os
import queue
import random
import subprocess
import sys
import threading
import time
import urllib.request

from engine.actions import Move
from engine.board import BLACK, SPACE_NAMES, WHITE
from engine.game import Game
from engine.randplay import random_setup
from host.board.calibration import Calibration, Level
from host.board.channel_map import default_map
from host.board.virtual_pico import Field
from tests.support.waiting import waiter

WAIT = 60.0
CLI = [sys.executable, "-c", "import sys; from host.cli import main; sys.exit(main())"]


class Lines:
    """A process's output, line by line, waited on with a timeout."""

    def __init__(self, stream):
        self.q = queue.Queue()
        self.seen = []
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream):
        for line in stream:
            self.q.put(line)
        self.q.put(None)

    def until(self, predicate, timeout=WAIT):
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.q.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"not printed in {timeout:g} s; so far: {self.seen[-10:]}") from None
            if line is None:
                raise AssertionError(f"the process ended; it printed: {self.seen[-10:]}")
            self.seen.append(line)
            if predicate(line):
                return line


def call(method, url, body=None, headers=None):
    req = urllib.request.Request(url, data=json.dumps(body).encode() if body is not None else None, method=method,
                                 headers={"Content-Type": "application/json", **(headers or {})})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


wait_until = waiter(timeout=WAIT, every=0.05)


def calibration_for(field):
    cmap = default_map()
    levels = [Level(0.0, 20.0)] * cmap.channels_needed
    for s, ch in field.space_channel.items():
        levels[ch] = Level(field.base[s], 20.0)
    for name, ch in field.refs.items():
        levels[ch] = Level(32768.0 if "half" in name else 40.0, 5.0)
    return Calibration.from_baseline(levels, cmap).with_placed({s: field.base[s] + field.tower for s in field.base})


def test_virtual_pico_and_serve_referee_moves_typed_by_hand(tmp_path):
    link = tmp_path / "quin-board"
    data = tmp_path / "data"
    data.mkdir()
    # `quin virtual-pico` with its defaults senses this field (seeded): what calibrate would record
    calibration_for(Field(noise=20)).save(data / "calibration.json")
    env = dict(os.environ, QUIN_DATA_DIR=str(data))
    pico = subprocess.Popen(CLI + ["virtual-pico", "--link", str(link), "--rate", "60"], env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    serve = None
    try:
        out = Lines(pico.stdout)
        out.until(lambda line: f"its data port is {link}" in line)
        assert any(f"quin serve --board serial --serial-port {link}" in line
                   for line in [out.until(lambda line: "quin serve" in line)])

        def type_(line):
            pico.stdin.write(line + "\n")
            pico.stdin.flush()

        serve = subprocess.Popen(CLI + ["serve", "--board", "serial", "--serial-port", str(link), "--host", "127.0.0.1",
                                        "--port", "0", "--data-dir", str(data), "--no-qr", "--show-links", "--no-mdns"],
                                 env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        served = Lines(serve.stdout)
        urls = {}
        while "black seat" not in urls:
            line = served.until(lambda line: "http://" in line)
            name, _, url = line.strip().partition(":")
            urls[name.strip()] = url.strip().split()[0]
        base = urls["status page"].rstrip("/")
        tokens = {p: urls[f"{p} seat"].rsplit("/", 1)[1] for p in (WHITE, BLACK)}
        rng = random.Random(3)
        setups = {p: random_setup(rng, p) for p in (WHITE, BLACK)}
        for p in (WHITE, BLACK):
            call("POST", f"{base}/api/seat/{tokens[p]}/setup", setups[p].to_record(), {"X-Seat-Token": tokens[p]})
        state = call("GET", f"{base}/api/state")
        shadow = Game(setups[WHITE], setups[BLACK], first=state["first"])
        type_("start")  # both lineups on the board
        wait_until(lambda: (call("GET", f"{base}/api/state").get("referee") or {}).get("phase") == "play",
                   "play to start")

        for _ in range(3):  # moves typed by hand, each refereed and committed
            move = next(a for a in shadow.legal_actions() if isinstance(a, Move) and shadow.tower_at(a.to) is None)
            before = call("GET", f"{base}/api/state")["committed_at"]
            type_(f"move {SPACE_NAMES[move.frm]} {SPACE_NAMES[move.to]}")
            wait_until(lambda: call("GET", f"{base}/api/state")["committed_at"] != before, f"{move} committed")
            shadow.push(move)
            board = call("GET", f"{base}/api/state")["view"]["board"]
            assert sorted(e["space"] for e in board) == sorted(SPACE_NAMES[s] for s in shadow.occupied())
        # the board lit the last move: the firmware decoded the host's LED frame
        want = f"{SPACE_NAMES[move.to]} #"

        def lit():
            type_("show")
            line = out.until(lambda line: "LEDs:" in line)
            return want in line

        wait_until(lit, "the last move lit on the board")
        type_("quit")
        assert pico.wait(WAIT) == 0
    finally:
        for proc in (serve, pico):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(15)
                except subprocess.TimeoutExpired:
                    proc.kill()
    assert not link.exists()  # the port went with the board


def test_virtual_pico_refuses_bad_options_in_one_line(tmp_path):
    for args, words in ((["--rate", "0"], "--rate must be 1..1000"), (["--towers", "zz9"], "no space 'zz9'"),
                        (["--link", str(tmp_path / "nowhere" / "x")], "is not a folder")):
        proc = subprocess.run(CLI + ["virtual-pico", *args], capture_output=True, text=True, timeout=WAIT)
        assert proc.returncode == 2 and words in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr


def test_serve_says_serial_port_needs_the_serial_board_and_writes_nothing(tmp_path):
    data = tmp_path / "data"
    proc = subprocess.run(CLI + ["serve", "--serial-port", str(tmp_path / "x"), "--data-dir", str(data), "--port", "0",
                                 "--no-mdns"], capture_output=True, text=True, timeout=WAIT)
    assert proc.returncode == 2 and "--serial-port is the serial board's: add --board serial" in proc.stderr
    assert not data.exists()
