"""Typed errors.  Each is a ValueError with a message a player can act on."""


class QuinError(ValueError):
    """Base of every error the engine raises on bad input."""


class InvalidError(QuinError):
    """Malformed input: an unknown space or piece, a bad record field, an impossible setup."""


class IllegalError(QuinError):
    """A well-formed action that the rules do not allow now."""


class AmbiguousError(QuinError):
    """An input that fits more than one action."""


QUOTE_LIMIT = 40  # characters of a bad value an error message quotes
MESSAGE_LIMIT = 400  # characters in one error line, at the most


def quoted(value, limit: int = QUOTE_LIMIT) -> str:
    """A bad value as an error message quotes it: its repr, cut to a short prefix when long.

    The one place a value from outside enters an error message: a 1 MB piece name makes a
    one-line message that says how long it was, not a 1 MB line.
    """
    if isinstance(value, (dict, list, tuple, set, frozenset)):
        text = _small_repr(value, limit)
        if text is not None:
            return text
        kind = "an object" if isinstance(value, dict) else "a list"
        return f"{kind} of {len(value)} item{'' if len(value) == 1 else 's'}"
    if isinstance(value, str) and len(value) > limit:
        return f"{value[:limit]!r}… ({len(value)} characters)"
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - an int too long to print, say
        return f"a {type(value).__name__}"
    if len(text) > limit:
        return f"{text[:limit]}… ({len(text)} characters)"
    return text


def _small_repr(value, limit: int) -> str | None:
    """The repr of a small structure of short strings and numbers, or None (too big to quote)."""
    todo, seen = [value], 0
    while todo:
        item = todo.pop()
        seen += 1
        if seen > limit:
            return None
        if isinstance(item, dict):
            todo.extend(item.keys())
            todo.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            todo.extend(item)
        elif isinstance(item, str) and len(item) > limit:
            return None
        elif isinstance(item, int) and not isinstance(item, bool) and item.bit_length() > 4 * limit:
            return None
    text = repr(value)
    return text if len(text) <= limit else None


def bounded(message: str, limit: int = MESSAGE_LIMIT) -> str:
    """One error line of at most ``limit`` characters (the last net, where a message is shown)."""
    text = " ".join(str(message).split("\n"))
    if len(text) <= limit:
        return text
    keep = limit - 30
    return f"{text[:keep - 60]} …[{len(text) - keep} characters]… {text[-60:]}"
