"""`quin serve` run as a real process until it says what to do next ("Stop with Ctrl-C"): its
lines, then it is stopped.  For tests of what it says at start-up (and after a restart)."""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path

from tests.support.quin_cmd import QUIN

ROOT = Path(__file__).resolve().parents[2]


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
