"""Reading the store's rows strictly: what does not read is named, never raised as a traceback.

A game's row becomes a :class:`GameRow` (a damaged column is named in its ``damage``, the game
still listed); an action row reads as its record form or raises :class:`StoreError` naming the
action; a black-box row reads as its occupied spaces or ``None``.  :func:`input_summary` is the
form a phone's input is kept in.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from engine.board import PLAYERS, SPACES, WHITE
from engine.flash import MODES

from .errors import StoreError

STATUSES = ("setup", "playing", "over", "abandoned")
INPUT_SUMMARY = 512  # bytes of an input that are kept whole (a longer one is kept as its type and size)

@dataclass(frozen=True)
class GameRow:
    id: int
    created: float
    mode: str
    vision: bool
    first: str
    setups: dict[str, dict | None]
    status: str
    result: dict | None
    finished: float | None
    damage: str | None = None  # what of this game's row does not read ("white setup"), if anything
    uuid: str | None = None  # the game's identity wherever it is copied (None: a read-only older store)

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> "GameRow":
        """A game's row, read strictly: what does not read is named in ``damage``, never raised."""
        damage: list[str] = []

        def obj(column: str, what: str) -> dict | None:
            text = row[column]
            if text is None:
                return None
            try:
                value = json.loads(text) if isinstance(text, (str, bytes)) else None
            except (ValueError, RecursionError):
                value = None
            if not isinstance(value, dict):
                damage.append(what)
                return None
            return value

        def number(column: str, what: str, optional: bool = False) -> float | None:
            value = row[column]
            if value is None and optional:
                return None
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return float(value)
            damage.append(what)
            return 0.0 if not optional else None

        mode, first, status = row["mode"], row["first"], row["status"]
        if mode not in MODES:
            damage.append("mode")
        if first not in PLAYERS:
            damage.append("first player")
        if status not in STATUSES:
            damage.append("status")
        setups = {"white": obj("white_setup", "white setup"), "black": obj("black_setup", "black setup")}
        return cls(
            id=row["id"],
            created=number("created", "date"),
            mode=mode if mode in MODES else "classic",
            vision=row["vision"] in (1, True),
            first=first if first in PLAYERS else WHITE,
            setups=setups,
            status=status if status in STATUSES else "abandoned",
            result=obj("result", "result"),
            finished=number("finished", "finishing date", optional=True),
            damage=" and ".join(damage) or None,
            uuid=row["uuid"] if "uuid" in row.keys() and isinstance(row["uuid"], str) else None,
        )

    def check(self) -> None:
        """StoreError if the row is damaged."""
        if self.damage:
            raise StoreError(f"game {self.id} is damaged in the store (its {self.damage} does not read): "
                             "run `quin store check`", self.damage)


def parse_action_row(seq: int, text: object) -> dict:
    """A stored action's record form; StoreError naming the action if it does not read."""
    try:
        data = json.loads(text) if isinstance(text, (str, bytes)) else None
    except (ValueError, RecursionError):
        data = None
    if not isinstance(data, dict):
        raise StoreError(f"action {seq} does not read", f"action {seq}")
    return data


def parse_snapshot_row(text: object) -> list[int] | None:
    """A black-box row's occupied spaces, or None if it names anything but spaces."""
    try:
        data = json.loads(text) if isinstance(text, (str, bytes)) else None
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, list) or not all(type(s) is int and s in SPACES for s in data):
        return None
    return data


def input_summary(data: object) -> str:
    """What is kept of an input: its JSON if at most INPUT_SUMMARY bytes, else its type and size."""
    text = json.dumps(data)
    if len(text) <= INPUT_SUMMARY:
        return text
    kind = data.get("type") if isinstance(data, dict) else None
    return json.dumps({"summary": True, "bytes": len(text),
                       "type": kind if isinstance(kind, str) and len(kind) <= 32 else None})
