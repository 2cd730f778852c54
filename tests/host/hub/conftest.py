import itertools
import os

import pytest

from tests.support.hubproc import HubProcess
from tests.support.pg import Cluster

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
