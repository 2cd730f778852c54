"""host/hub/database.py on its own, against the test cluster and a port where nothing listens:
an outage is said once however many requests fail, a database marked away by a failed probe comes
back by itself (even while the process's listening connection never noticed), and a value
PostgreSQL refuses is the request's fault (400), not an outage."""

import asyncio
import logging
import socket
import threading

import psycopg
import psycopg_pool

from host.hub import database


def run_apart(coro) -> None:
    """Run ``coro`` to its end on an event loop of its own, in a thread of its own: once the
    session's Chromium is up, Playwright's sync API holds an event loop in the main thread, and
    asyncio.run() refuses to start there (the suite ran these after the browser tests)."""
    failed = []

    def main():
        try:
            asyncio.run(coro)
        except BaseException as exc:  # noqa: BLE001 - raised again in the test's own thread
            failed.append(exc)

    worker = threading.Thread(target=main)
    worker.start()
    worker.join()
    if failed:
        raise failed[0]


def nowhere() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"postgresql://quin@127.0.0.1:{port}/none"  # closed again: nothing listens there


def test_an_outage_is_said_once_and_answered_503(caplog):
    async def run():
        health = database.Health(nowhere())
        changed = health.changed
        for _ in range(20):  # twenty requests fail at once: one probe, one line
            assert health.answer(psycopg.OperationalError("connection lost")) == (503, database.ANSWER)
        await asyncio.wait_for(changed.wait(), 10)
        assert health.up is False
        for _ in range(20):
            health.failed(psycopg.OperationalError("connection lost"))
            health.lost("again")
        health._recovery.cancel()

    with caplog.at_level(logging.WARNING, logger="quin.hub"):
        run_apart(run())
    said = [r.getMessage() for r in caplog.records if "not reached" in r.getMessage()]
    assert len(said) == 1 and said[0].startswith("the hub's database is not reached (")
    assert not any(r.exc_info for r in caplog.records)


def test_a_database_marked_away_comes_back_by_itself(cluster, caplog):
    async def run():
        health = database.Health(cluster.dsn())
        renewed = []

        async def renew():
            renewed.append(True)

        health.on_back = renew
        changed = health.changed
        health.lost("a probe that timed out under load")
        await asyncio.wait_for(changed.wait(), 10)  # the change to away
        changed = health.changed
        await asyncio.wait_for(changed.wait(), 10)  # and back: a fresh connection reached it
        assert health.up is True and renewed == [True]

    with caplog.at_level(logging.WARNING, logger="quin.hub"):
        run_apart(run())
    lines = [r.getMessage() for r in caplog.records]
    assert sum("is not reached" in line for line in lines) == 1
    assert sum("is reached again" in line for line in lines) == 1


def test_a_refused_value_is_the_requests_fault_and_a_busy_pool_is_not_an_outage(caplog):
    async def run():
        health = database.Health(nowhere())
        status, line = health.answer(psycopg.errors.UntranslatableCharacter("unsupported Unicode escape"))
        assert status == 400 and "NUL" in line
        assert health.up is True and health._probe is None  # no probe: the database is not in doubt
        status, line = health.answer(psycopg_pool.PoolTimeout("couldn't get a connection after 1.00 sec"))
        assert (status, line) == (503, database.BUSY)  # reached, busy: until a probe says otherwise
        await health._probe
        assert health.up is False  # (here nothing listens: the probe finds it away)
        health._recovery.cancel()

    run_apart(run())
