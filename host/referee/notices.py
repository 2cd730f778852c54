"""What the referee says, and the error for an input it cannot take.

A :class:`Notice` goes to one audience: ``"public"`` (the status page, both seats,
the board's LEDs) or one player's phone.  ``data`` is JSON-ready and holds nothing
that audience may not know (docs/referee.md lists each kind's data).
"""

from __future__ import annotations

from dataclasses import dataclass

PUBLIC = "public"

#: the kinds of Notice (docs/referee.md describes each one's data)
KINDS = ("started", "committed", "flash", "time", "instruction", "question", "rejected", "waiting", "result")


@dataclass(frozen=True)
class Notice:
    """Something to tell ``audience`` ("public", "white" or "black"); ``data`` is JSON-ready."""

    audience: str
    kind: str
    data: dict

    def to_json(self) -> dict:
        return {"audience": self.audience, "kind": self.kind, "data": self.data}


class InputError(ValueError):
    """A player's input was malformed, out of turn or impossible; nothing changed."""
