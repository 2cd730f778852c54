import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent / "hub"))
sys.path.insert(2, str(HERE.parents[1] / "support"))
from realhub import RealHub  # noqa: E402
from scripthub import ScriptHub  # noqa: E402


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


@pytest.fixture
def realhub(cluster):
    hub = RealHub(cluster)
    yield hub
    hub.close()


@pytest.fixture
def clocked_hub(cluster):
    """A real hub in this process (tests/host/hub/inproc.py) on a fresh database, its clock injected:
    ``clocked_hub.clock.advance(s)`` moves the time an absence is counted on."""
    import time

    from inproc import fast_hub

    hub = fast_hub(cluster.new_database(f"clocked_{time.monotonic_ns()}"))
    yield hub
    hub.stop()
