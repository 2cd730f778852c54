import itertools
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pg import Cluster  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
_names = itertools.count()


@pytest.fixture(scope="session")
def cluster():
    c = Cluster()
    yield c
    c.close()


@pytest.fixture
def db(cluster, request):
    """A fresh database: (dsn, name)."""
    name = f"hub_{os.getpid()}_{next(_names)}"
    return cluster.new_database(name), name


def quin(*args, check=True, **kw):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", "import sys; from host.cli import main; sys.exit(main())", *args],
                         capture_output=True, text=True, env=env, timeout=60, **kw)
    if check and out.returncode != 0:
        raise AssertionError(f"quin {' '.join(args)} failed: {out.stderr}")
    return out


class HubProcess:
    """A real `quin hub serve` process on a free port."""

    def __init__(self, dsn: str, *extra: str):
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "import sys; from host.cli import main; sys.exit(main())",
             "hub", "serve", "--db", dsn, "--port", "0", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        line = self.proc.stdout.readline()
        m = re.search(r"http://[\d.]+:(\d+)/", line)
        if not m:
            self.proc.kill()
            raise AssertionError(f"the hub did not start: {line!r} {self.proc.stderr.read()}")
        self.url = f"http://127.0.0.1:{m.group(1)}"

    def kill(self):
        self.proc.kill()
        self.proc.wait(10)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


@pytest.fixture
def hubs(db):
    started: list[HubProcess] = []

    def start(*extra):
        h = HubProcess(db[0], *extra)
        started.append(h)
        return h

    yield start
    for h in started:
        h.stop()
