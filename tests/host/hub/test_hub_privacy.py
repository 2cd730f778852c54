"""The hub never holds a secret of a live game (issue 20).

The same game is played twice at a board pushing to a hub of its own (a fresh database, a real
`quin hub serve` process), the second time with two of a player's towers that the rival never sees
exchanged in the lineup (one of them a tower the referee asked that player about, so the player
got a different number of private questions).  Until the game ends, the two hubs' databases must
dump to the same bytes (pg_dump of every table).  And the comparison must be able to fail: a board
that pushed the player's own seat stream instead of the public one is caught.
"""

import itertools
import time

import host.store
from host.hub.store import schema
from host.remote import push
from tests.support import privacy_runs as sp
from tests.support.hubproc import HubProcess, wait_for

KEY = "qt_the-same-key-in-both-runs"


class Hubbed:
    """Runs of tests/support/privacy_runs.py (as test_stream_privacy plays them), each board pushing to a hub on a fresh database."""

    def __init__(self, cluster, monkeypatch, tmp_path):
        self.cluster, self.tmp = cluster, tmp_path
        self.n = itertools.count()
        self.pusher = None
        self.monkeypatch = monkeypatch
        create_app = sp.create_app

        def with_pusher(config):
            app = create_app(config)
            if self.hub is not None:
                self.pusher = push.Pusher(app.extensions["quin.table"], self.hub.url, KEY, backoff=(0.05, 0.2)).start()
                # The hub's first answer changes the table's hub line (reached), which the table
                # publishes from the pusher's thread: let that happen before anyone plays, in every
                # run alike, rather than at a moment of the game that depends on the machine's load.
                wait_for(lambda: self.pusher.reached is True, "the hub's first answer", timeout=60)
            return app

        monkeypatch.setattr(sp, "create_app", with_pusher)
        self.hub = None

    def run(self, setups, actions) -> bytes:
        """Play the game with a pusher to a fresh hub; the hub database's dump once all is pushed."""
        import psycopg

        name = f"priv_{next(self.n)}"
        dsn = self.cluster.new_database(name)
        with psycopg.connect(dsn, autocommit=True) as conn:
            schema.ensure(conn)
            conn.execute("INSERT INTO hub_tables(name, key_hash) VALUES ('club table', %s)", (schema.hash_key(KEY),))
        ids = (f"00000000-0000-4000-8000-{i:012d}" for i in itertools.count(1))
        self.monkeypatch.setattr(host.store.schema, "new_uuid", lambda: next(ids))  # the same identities in each run
        self.hub = HubProcess(dsn)
        try:
            run = sp.Run(self.tmp / name, "third_eye", sp.WHITE, setups, actions)
            wait_for(lambda: not self.pusher._frames and self.pusher.outbox.pending() == 0, "the outbox to drain", timeout=60)
            assert self.pusher.problem is None
            assert not run.table.game.is_over()  # the comparison holds until the game ends
            self.pusher.stop()
            self.last_run = run
        finally:
            self.hub.stop()
            self.hub = None
        return self.cluster.dump(name)


def pairs_to_compare(tmp_path, seeds, wanted):
    """(setups, prefix, permuted setups, player) where the referee asked the player about a tower
    the rival never sees, as test_stream_privacy finds them (runs without a hub)."""
    out = []
    for seed in seeds:
        setups, actions = sp.plan(seed, sp.ACTIONS)
        probe = sp.Run(tmp_path / f"probe-{seed}", "third_eye", sp.WHITE, setups, actions)
        for n, player, options in probe.asked:
            prefix = probe.log[: n + 1]
            game = sp.fresh(probe.table.game)
            for action in prefix:
                game.push(action)
            if game.is_over():
                continue
            valid = [xy for xy in sp.candidates(game, player, [(n, player, options)])
                     if sp.same_for_others(game, sp.permuted(game, player, *xy), player)]
            if valid:
                out.append((setups, prefix, sp.permuted(game, player, *valid[0]), player))
                break
        if len(out) >= wanted:
            break
    assert out, "no game with a question about a hidden tower was found: nothing was compared"
    return out


def test_the_hub_database_is_the_same_whatever_the_hidden_identities(cluster, monkeypatch, tmp_path):
    hubbed = Hubbed(cluster, monkeypatch, tmp_path)
    for setups, prefix, other, player in pairs_to_compare(tmp_path, range(100, 112), wanted=2):
        first = hubbed.run(setups, prefix)
        assert b"COPY public.hub_events" in first and first.count(b"\n") > 20  # something was pushed
        second = hubbed.run(other, prefix)
        if first != second:
            import difflib
            print("\n".join(list(difflib.unified_diff(first.decode().split("\n"), second.decode().split("\n"), lineterm="", n=0))[:12])[:6000])
        assert first == second, f"the hub's database differs when {player}'s hidden towers are exchanged"


def test_the_comparison_catches_a_board_pushing_a_seat_stream(cluster, monkeypatch, tmp_path):
    (setups, prefix, other, player), = pairs_to_compare(tmp_path, range(100, 112), wanted=1)
    monkeypatch.setattr(push.Pusher, "AUDIENCE", player)  # a leak: the player's own seat
    hubbed = Hubbed(cluster, monkeypatch, tmp_path)
    assert hubbed.run(setups, prefix) != hubbed.run(other, prefix)
