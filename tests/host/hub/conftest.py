import itertools
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from hubproc import HubProcess  # noqa: E402
from pg import Cluster  # noqa: E402

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


@pytest.fixture
def hubs(db):
    started: list[HubProcess] = []

    def start(*extra, **kw):
        h = HubProcess(db[0], *extra, **kw)
        started.append(h)
        return h

    yield start
    for h in started:
        h.stop()
