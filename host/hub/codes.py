"""Remote play's game codes (``docs/remote-play.md``): six characters, shown ``K7M-2QX``.

Standard library only: the hub (``host.hub.remote``) makes and reads them, and a board's link
(``host.remote.link``) reads them, without the hub's dependencies."""

from __future__ import annotations

import secrets

ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0/O, 1/I/L: read aloud and typed without doubt


def parse_code(text: str) -> str | None:
    """A code as typed (any case, with or without its dash) -> its 6 characters, or None."""
    code = text.upper().replace("-", "")
    if len(code) == 6 and all(c in ALPHABET for c in code):
        return code
    return None


def show_code(code: str) -> str:
    """The code as players read it: K7M-2QX."""
    return f"{code[:3]}-{code[3:]}"


def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(6))
