import pytest

from tests.support.realhub import RealHub
from tests.support.scripthub import ScriptHub


@pytest.fixture
def scripthub():
    hub = ScriptHub()
    yield hub
    hub.close()


@pytest.fixture(scope="session")
def cluster():
    from tests.support.pg import Cluster  # the hub's tests' PostgreSQL (tests/support/pg.py)

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
    """A real hub in this process (tests/support/inproc.py) on a fresh database, its clock injected:
    ``clocked_hub.clock.advance(s)`` moves the time an absence is counted on."""
    import time

    from tests.support.inproc import fast_hub

    hub = fast_hub(cluster.new_database(f"clocked_{time.monotonic_ns()}"))
    yield hub
    hub.stop()
