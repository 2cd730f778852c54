"""`quin` run as a real process from the checkout: ``quin`` runs a command to its end; ``Serve`` is a
`quin serve` on 127.0.0.1 with its banner read (its URLs, its state over HTTP); ``serve_once`` reads a
`quin serve`'s lines until it says what to do next ("Stop with Ctrl-C"), then stops it; ``Served``
keeps one running, its lines waited on as they come."""

from __future__ import annotations

import queue
import signal
import subprocess
import threading
import time
from pathlib import Path

from tests.support.quin_cmd import QUIN

ROOT = Path(__file__).resolve().parents[2]


def quin(*args, timeout=30):
    return subprocess.run([*QUIN, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


class Serve:
    """A `quin serve` subprocess on 127.0.0.1 at a free port."""

    def __init__(self, data_dir, *extra):
        self.started = time.monotonic()
        self.proc = subprocess.Popen(
            [*QUIN, "serve", "--host", "127.0.0.1", "--port", "0",
             "--data-dir", str(data_dir), "--no-qr", "--show-links", *extra],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        self.lines = []
        self.urls = {}
        self.rows = {}  # every "name: text" row it printed
        deadline = time.monotonic() + 20
        # Read the whole banner, through its last line: what a later read gets is only what the
        # server printed after it (a half-read banner stays in this file's buffer, which
        # `communicate()` would skip, and arrives in one piece or several as the machine is busy).
        while not (self.lines and self.lines[-1].startswith("Stop with Ctrl-C")):
            assert time.monotonic() < deadline, f"quin serve printed no URLs: {self.lines}"
            line = self.proc.stdout.readline()
            assert line, f"quin serve exited: {self.proc.stderr.read()}"
            self.lines.append(line.rstrip())
            if ":" in line:
                name, _, text = line.strip().partition(":")
                self.rows[name.strip()] = text.strip()
                if "http://" in text:
                    self.urls[name.strip()] = text.strip()
        self.ready_after = time.monotonic() - self.started
        self.base = self.urls["status page"].rstrip("/")
        self.tokens = {p: self.urls[f"{p} seat"].rsplit("/", 1)[1] for p in ("white", "black") if f"{p} seat" in self.urls}
        # the virtual board's link carries its key: every board write sends it
        board = self.urls.get("virtual board")
        self.board = {"X-Board-Key": board.rsplit("/", 1)[1]} if board else {}

    def state(self):
        from tests.support.webtools import get_json

        status, body = get_json(self.base + "/api/state")
        assert status == 200
        return body

    def wait(self, predicate, what, timeout=10):
        from tests.support.waiting import wait_for

        def ready():
            state = self.state()
            return state if predicate(state) else None

        try:
            return wait_for(ready, what, timeout, every=0.05)
        except AssertionError:
            raise AssertionError(f"timed out waiting for {what}: {self.state()['referee']}") from None

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
        self.proc.stdout.close()
        self.proc.stderr.close()


def serve_once(data_dir, *extra, timeout: float = 90) -> list[str]:
    proc = subprocess.Popen([*QUIN, "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", str(data_dir),
                             "--no-qr", "--show-links", *extra], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    lines = []
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    try:
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            if line.startswith("Stop with Ctrl-C"):
                break
    finally:
        timer.cancel()
        proc.terminate()
        proc.wait(15)
    assert lines, proc.stderr.read()
    return lines


class Served:
    def __init__(self, data_dir, *extra):
        self.proc = subprocess.Popen([*QUIN, "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", str(data_dir),
                                      "--no-qr", "--show-links", *extra], cwd=ROOT, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def until(self, text: str, timeout: float = 20) -> list[str]:
        seen = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                continue
            seen.append(line)
            if text in line:
                return seen
        raise AssertionError(f"quin serve never said {text!r}; it said {seen}")

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def url_of(lines, name):
    for line in lines:
        if line.strip().startswith(name + ":"):
            return line.split(":", 1)[1].strip()
    raise AssertionError(f"no {name} line in {lines}")
