"""The game store: SQLite in WAL mode, durable before anything is announced.

Every SQL statement on the board's own store, and every replay of a stored game, lives in this
package (the hub's PostgreSQL store is the hub's own: :mod:`host.hub.store`).  One file (``quin.sqlite3`` in the data directory) holds every game the
table has played:

- ``games``: mode, Vision, first player, both setups (once given), status
  (``setup``, ``playing``, ``over``, ``abandoned``), the result and the game's UUID;
- ``seats``: the seat tokens of each game (a re-issued seat revokes the old one);
- ``actions``: every committed action in order, in the record form;
- ``reveals``: the public facts each action produced (flashes, Time);
- ``inputs``: what each player sent from their phone (a bounded summary);
- ``seat_players``: the name each player gave on their phone at setup, and the hub's player code
  if they gave one (neither is a hidden identity; the code is shown to nobody but its seat);
- ``blackbox``: a bounded ring of raw sensor snapshots, for diagnosing a
  disputed move after the fact;
- ``meta``: settings (the table's identity, the host key, the stream epoch);
- ``hub_outbox``, ``hub_numbered``, ``hub_finals``: what is still to be pushed to a hub.

By concern:

- :mod:`.schema`: the tables, the migrations of an older store, the connections
  (:data:`PRAGMAS`: a commit is on disk when it returns), game and table identities;
- :mod:`.transaction`: the write transaction (durable or not) under the store's lock;
- :mod:`.records`: strict reading of rows (:class:`GameRow`; a row that does not read marks
  its game damaged, never a traceback);
- :mod:`.errors`: :class:`StoreError`, :class:`StoreWriteError` (what cannot be written, why);
- :mod:`.reader`: every read statement; :mod:`.games`: the :class:`Store` (one connection and
  one lock shared by the referee and the web threads) and its writes, with
  :meth:`Store.commit_action`, the referee's ``on_commit``;
- :mod:`.replay`: rebuilding a stored game through the engine (strict, or as far as it reads);
- :mod:`.history`: the history pages' reads, on a connection of their own per request;
- :mod:`.check`, :mod:`.backups`, :mod:`.salvage`: ``quin store check``, a backup after each
  finished game (the newest :data:`BACKUPS` kept), and the salvage of a damaged file into a
  new store (from the file and the newest readable backup);
- :mod:`.outbox`: the hub outbox (the network side is :mod:`host.remote.push`);
- :mod:`.datalock`: one server per data folder.

This module re-exports the names callers import (``from host.store import Store``).
"""

from __future__ import annotations

from .backups import BACKUPS, latest_backup_hint, readable_backups
from .errors import StoreError, StoreWriteError, unwritable
from .games import BLACKBOX_LIMIT, DIAGNOSIS_BOUND, INPUTS_LIMIT, Store
from .records import INPUT_SUMMARY, STATUSES, GameRow, input_summary, parse_action_row, parse_snapshot_row
from .replay import Replay, replay_readable, replay_stored
from .salvage import Salvage, salvage
from .schema import DB_NAME, PRAGMAS, SCHEMA, connect, connect_readonly, new_uuid

__all__ = [  # what callers import from host.store (each module is also importable on its own)
    "BACKUPS", "BLACKBOX_LIMIT", "DB_NAME", "DIAGNOSIS_BOUND", "INPUTS_LIMIT", "INPUT_SUMMARY", "PRAGMAS",
    "SCHEMA", "STATUSES", "GameRow", "Replay", "Salvage", "Store", "StoreError", "StoreWriteError", "connect",
    "connect_readonly", "input_summary", "latest_backup_hint", "new_uuid", "parse_action_row",
    "parse_snapshot_row", "readable_backups", "replay_readable", "replay_stored", "salvage", "unwritable",
]
