"""A real `quin hub serve` on a fresh database, for the board side's tests.

A module of its own (not conftest): with several conftest.py on the path (tests/host/hub has one
too), ``from conftest import RealHub`` got whichever conftest was imported last."""

import itertools
import os

_names = itertools.count()


class RealHub:
    """A real `quin hub serve` process on a fresh PostgreSQL database (tests/support/hubproc.py)."""

    def __init__(self, cluster):
        from tests.support.hubproc import HubProcess

        name = f"remote_{os.getpid()}_{next(_names)}"
        self.dsn = cluster.new_database(name)
        self.proc = HubProcess(self.dsn, "--presence-renew", "0.5", "--presence-lapse", "2",
                               "--remote-rate", "1000", "--join-rate", "100")
        self.url = self.proc.url

    def close(self):
        self.proc.stop()
