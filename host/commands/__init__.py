"""Subcommands of `quin`, one module per concern (``host.cli`` registers them), and the one error
they raise: :class:`UserError`, reported by ``host.cli`` in one line with its exit code."""

from __future__ import annotations


class UserError(Exception):
    """A problem to report in one line with an exit code, never a traceback."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code
