"""The game store: SQLite in WAL mode, durable before anything is announced.

One file (``quin.sqlite3`` in the data directory) holds every game the table
has played:

- ``games``: mode, Vision, first player, both setups (once given), status
  (``setup``, ``playing``, ``over``, ``abandoned``) and the result;
- ``seats``: the seat tokens of each game (a re-issued seat revokes the old one);
- ``actions``: every committed action in order, in the record form;
- ``reveals``: the public facts each action produced (flashes, Time);
- ``inputs``: what each player sent from their phone;
- ``blackbox``: a bounded ring of raw sensor snapshots, for diagnosing a
  disputed move after the fact.

:meth:`Store.commit_action` is the referee's ``on_commit`` callback: it
returns only once the action is on disk (``synchronous=FULL``), so a game
killed at any moment comes back with every action the players were told of.
:func:`resume` rebuilds a game from its stored actions through the engine.

The store is shared by the referee thread and the web threads: one connection
guarded by a lock.  Read-only pages open their own connection per request
(:func:`connect`).

Bounded by size: every input is kept as a bounded summary: whole if its JSON
is at most :data:`INPUT_SUMMARY` bytes, else its type and size only; the same
input sent again by the same player is stored once (its row counts the
repeats).  The newest :data:`INPUTS_LIMIT` input rows are kept and the black
box keeps :data:`BLACKBOX_LIMIT` snapshots (a 99-space snapshot is under
0.4 KB).  So the inputs and the black box never hold more than
:data:`DIAGNOSIS_BOUND` bytes together, whatever the phones send (tested by
trying to exceed it).  Both are written without waiting for the disk (they are
for diagnosis; the next action's durable commit carries them there).

A store that cannot be written (a read-only file, WAL or folder, a full or
failing card) raises :class:`StoreWriteError` naming what could not be written;
:meth:`Store.writable_problem` says so before anything is served.

A damaged store is reported, never a traceback: :meth:`Store.problems` says in
one line each what ``PRAGMA quick_check`` and the rows found; a row that does
not read (bad JSON, a space that does not exist) marks its game as damaged
(:attr:`GameRow.damage`) and every intact game is still served.
:func:`salvage` copies every readable game into a new store and sets the
damaged file aside; :meth:`Store.backup` keeps the last :data:`BACKUPS` copies
(SQLite's online backup) in ``backups/``, one after each finished game.
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
