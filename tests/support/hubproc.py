"""What the hub's tests share besides fixtures: `quin` as a command, a real `quin hub serve` process, waiting.

A module of its own (not conftest): with several conftest.py on the path, ``from conftest import``
got whichever was imported last."""

import os
import re
import subprocess
from pathlib import Path

from tests.support.quin_cmd import QUIN
from tests.support.waiting import waiter

ROOT = Path(__file__).resolve().parents[2]

# The hub's tests' wait (tests/support/waiting.py): their conditions are mostly requests to the hub.
wait_for = waiter(timeout=30, every=0.05)


def quin(*args, check=True, **kw):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([*QUIN, *args],
                         capture_output=True, text=True, env=env, timeout=60, **kw)
    if check and out.returncode != 0:
        raise AssertionError(f"quin {' '.join(args)} failed: {out.stderr}")
    return out


class HubProcess:
    """A real `quin hub serve` process on a free port."""

    def __init__(self, dsn: str, *extra: str, log: Path | None = None):
        """``log``: a file for the process's log (its stderr), for a test that reads it whole."""
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.log = log
        self._log_file = open(log, "w") if log is not None else None  # noqa: SIM115 - closed by stop/kill
        self.proc = subprocess.Popen(
            [*QUIN, "hub", "serve", "--db", dsn, "--port", "0", *extra],
            stdout=subprocess.PIPE, stderr=self._log_file or subprocess.PIPE, text=True, env=env)
        line = self.proc.stdout.readline()
        m = re.search(r"http://[\d.]+:(\d+)/", line)
        if not m:
            self.proc.kill()
            raise AssertionError(f"the hub did not start: {line!r} {self.logged() if log else self.proc.stderr.read()}")
        self.url = f"http://127.0.0.1:{m.group(1)}"

    def logged(self) -> str:
        """What the process has logged so far (with ``log``)."""
        return self.log.read_text() if self.log is not None else ""

    def kill(self):
        self.proc.kill()
        self.proc.wait(10)
        if self._log_file is not None:
            self._log_file.close()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        if self._log_file is not None:
            self._log_file.close()
