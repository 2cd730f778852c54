"""Typed errors.  Each is a ValueError with a message a player can act on."""


class QuinError(ValueError):
    """Base of every error the engine raises on bad input."""


class InvalidError(QuinError):
    """Malformed input: an unknown space or piece, a bad record field, an impossible setup."""


class IllegalError(QuinError):
    """A well-formed action that the rules do not allow now."""


class AmbiguousError(QuinError):
    """An input that fits more than one action."""
