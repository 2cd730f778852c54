"""Reading a user's file: bounded in size, one line when it cannot be read.

``quin replay``, ``quin legal``, ``quin referee --trace`` and ``quin simulate``
read a whole file into memory.  A file larger than its documented limit (or an
endless one such as ``/dev/zero``) is refused in one line after reading at most
one byte past the limit, never a ``MemoryError``.
"""

from __future__ import annotations

import sys
from pathlib import Path

MB = 1024 * 1024
MAX_RECORD = 4 * MB  # a quin-record/1 game record: a long game's is tens of KB
MAX_TRACE = 32 * MB  # a quin-trace/1 sensor trace: a long noisy game's is a few hundred KB


class FileTooLarge(ValueError):
    pass


def read_text(path: str, limit: int, what: str) -> str:
    """The UTF-8 text of ``path`` ('-': standard input); OSError, UnicodeDecodeError or FileTooLarge."""
    if path == "-":
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:  # a text stream put in its place (tests)
            text = sys.stdin.read(limit + 1)
            if len(text) > limit:
                raise FileTooLarge(f"standard input is larger than {limit // MB} MB, the most a {what} may be")
            return text
        data = stream.read(limit + 1)
    else:
        with Path(path).open("rb") as fp:
            data = fp.read(limit + 1)
    if len(data) > limit:
        shown = "standard input" if path == "-" else path
        raise FileTooLarge(f"{shown} is larger than {limit // MB} MB, the most a {what} may be")
    return data.decode("utf-8")
