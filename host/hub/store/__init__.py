"""The hub's own store: every PostgreSQL statement the hub runs, by what it does (issue 32).

- :mod:`host.hub.store.schema`: the schema (tables, games, public events, players, remote play),
  a table's key, creating what is missing, the notification channels, a connection's check.
- :mod:`host.hub.store.games`: the archive of the boards' games: a push stored (the usual one in
  one statement), a game's events and newest frame read back, finals kept, the index and a game
  for the archive's pages, a remote game's frames archived under the table ``remote``.
- :mod:`host.hub.store.players`: the players known by their codes and their ratings.
- :mod:`host.hub.store.remote`: remote play's games, seats, log of actions and reveals, presence.

Every function takes a psycopg connection (the async one of the server's pool; the commands of
``quin hub`` give the synchronous one to :func:`schema.ensure`, :func:`schema.add_table` and
:func:`players.add`) and runs its statements on it, inside whatever transaction the caller holds:
the caller decides what is one transaction, the store says what each statement does.  No module
of the hub outside this package runs a statement (``tests/host/store/test_store_owns_sql.py``).
"""
