import itertools
import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent / "hub"))
from scripthub import ScriptHub  # noqa: E402

_names = itertools.count()


@pytest.fixture
def scripthub():
    hub = ScriptHub()
    yield hub
    hub.close()


@pytest.fixture(scope="session")
def cluster():
    from pg import Cluster  # the hub's tests' PostgreSQL (tests/host/hub/pg.py)

    c = Cluster()
    yield c
    c.close()


class RealHub:
    """A real `quin hub serve` process on a fresh PostgreSQL database (tests/host/hub/hubproc.py)."""

    def __init__(self, cluster):
        from hubproc import HubProcess

        name = f"remote_{os.getpid()}_{next(_names)}"
        self.dsn = cluster.new_database(name)
        self.proc = HubProcess(self.dsn, "--presence-renew", "0.5", "--presence-lapse", "2",
                               "--remote-rate", "1000", "--join-rate", "100")
        self.url = self.proc.url

    def close(self):
        self.proc.stop()


@pytest.fixture
def realhub(cluster):
    hub = RealHub(cluster)
    yield hub
    hub.close()
