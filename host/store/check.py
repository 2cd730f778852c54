"""Checking a store: what is damaged, one line each, never the engine's words (they may name
hidden pieces).  ``quin store check`` prints them; ``quin serve`` salvages a store whose file
structure is damaged."""

from __future__ import annotations

import sqlite3

from .errors import StoreError
from .records import parse_snapshot_row


def problems(store, replay: bool = True) -> list[str]:
    """What is damaged in ``store``, one line each (empty: it is sound).  ``replay``: replay every game."""
    out: list[str] = []
    try:
        with store._lock:
            found = [r[0] for r in store._conn.execute("PRAGMA quick_check(20)").fetchall()]
        if found != ["ok"]:
            out.append(f"the file's structure is damaged: {'; '.join(map(str, found[:3]))}")
        games = store.games()
    except sqlite3.DatabaseError as exc:
        return out + [f"the file does not read as a game store ({exc})"]
    for g in games:
        if g.damage:
            out.append(f"game {g.id}: its {g.damage} does not read")
            continue
        try:
            store.actions(g.id)
            if replay and g.setups["white"] is not None and g.setups["black"] is not None:
                store.load_game(g.id)
        except StoreError as exc:
            # never the engine's words: they may name hidden pieces
            out.append(f"game {g.id}: its stored {exc.where or 'data'} no longer replays")
        except sqlite3.DatabaseError as exc:
            out.append(f"game {g.id}: its actions do not read ({exc})")
    try:
        with store._lock:
            rows = store._conn.execute("SELECT occupied FROM blackbox").fetchall()
        bad = sum(parse_snapshot_row(r[0]) is None for r in rows)
        if bad:
            out.append(f"the black box: {bad} snapshot(s) do not read (they are passed over)")
    except sqlite3.DatabaseError as exc:
        out.append(f"the black box does not read ({exc})")
    return out


def structure_ok(store) -> bool:
    """PRAGMA quick_check finds the file sound."""
    try:
        with store._lock:
            return [r[0] for r in store._conn.execute("PRAGMA quick_check(1)").fetchall()] == ["ok"]
    except sqlite3.DatabaseError:
        return False
