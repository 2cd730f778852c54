"""Request bodies: one strict JSON object, checked field by field before anything changes.

Every POST route reads its body through :func:`json_body`, which

- refuses a body over ``MAX_BODY`` bytes (413, ``host.web.errors``: the server refuses it even
  before reading it, see ``host.web.server``);
- parses it strictly: a single JSON object, no duplicate keys, no ``NaN`` or
  ``Infinity``, no number of more than a few hundred digits, no nesting deeper
  than :data:`MAX_DEPTH`;
- refuses fields the route does not know (``fields``), each with a 400 that
  names the field.

The helpers :func:`boolean` and :func:`choice` type-check one field: a string
is not a boolean, a number is not a name.
"""

from __future__ import annotations

import json

from flask import request

from engine.errors import quoted

from .errors import MAX_BODY, bad_request, too_large

MAX_DEPTH = 16  # nesting of arrays and objects; the deepest real body (a 'choose' input) has 4
MAX_NUMBER = 40  # characters in one JSON number


class _Malformed(ValueError):
    pass


def _no_duplicates(pairs):
    out = {}
    for key, value in pairs:
        if key in out:
            raise _Malformed(f"field {key!r} is given twice")
        out[key] = value
    return out


def _no_constant(name):
    raise _Malformed(f"{name} is not a number JSON allows")


def _number(text: str):
    if len(text) > MAX_NUMBER:
        raise _Malformed("a number of more than 40 characters")
    return text


def _int(text: str) -> int:
    return int(_number(text))


def _float(text: str) -> float:
    return float(_number(text))


def _depth(data) -> int:
    """The nesting depth of parsed JSON, without recursion."""
    deepest = 0
    todo = [(data, 1)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth)
            if depth > MAX_DEPTH:
                return depth
            todo.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict) else item))
    return deepest


def parse(raw: bytes) -> object:
    """Strictly parsed JSON; ApiError(400) in one line otherwise."""
    try:
        data = json.loads(
            raw,
            object_pairs_hook=_no_duplicates,
            parse_constant=_no_constant,
            parse_int=_int,
            parse_float=_float,
        )
    except _Malformed as exc:
        raise bad_request(f"the request body is not usable JSON: {exc}") from None
    except RecursionError:
        raise bad_request("the request body is not usable JSON: nested too deeply") from None
    except ValueError:  # JSONDecodeError, UnicodeDecodeError
        raise bad_request("expected a JSON object as the request body") from None
    if _depth(data) > MAX_DEPTH:
        raise bad_request(f"the request body is not usable JSON: nested more than {MAX_DEPTH} deep")
    return data


def json_body(fields: tuple[str, ...] | None = None) -> dict:
    """The request's JSON object.  ``fields``: the only fields allowed (None: the caller checks)."""
    if request.content_length is not None and request.content_length > MAX_BODY:
        raise too_large()
    data = parse(request.get_data(cache=True))
    if not isinstance(data, dict):
        raise bad_request("expected a JSON object as the request body")
    if fields is not None:
        unknown = sorted(set(data) - set(fields))
        if unknown:
            raise bad_request(f"unknown field {unknown[0]!r} (expected {', '.join(map(repr, fields))})")
    return data


def boolean(data: dict, key: str, default: bool) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise bad_request(f"{key}: expected true or false, got {quoted(value)}")
    return value


def choice(data: dict, key: str, options: tuple[str, ...], default: str | None = None) -> str:
    if key not in data and default is not None:
        return default
    if key not in data:
        raise bad_request(f"missing field {key!r}")
    value = data[key]
    if not isinstance(value, str) or value not in options:
        raise bad_request(f"{key}: expected {' or '.join(map(repr, options))}, got {quoted(value)}")
    return value
