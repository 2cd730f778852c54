"""Everything a hub is sent, checked before anything is stored: one schema for pushes (their games,
events, patches and finals) and for the bodies of the remote-play routes.

Any JSON a client sends passes :func:`parse` (bytes to a value) and :func:`check` (a value), which
bound what the rest of the hub and PostgreSQL could choke on: nesting (``MAX_DEPTH``), numbers that
are not finite (``NaN``, ``Infinity``, ``1e999``) or too large, text with a NUL character or half a
UTF-16 pair (PostgreSQL's text and JSONB hold neither), very long keys.  Each refusal is an
:class:`Invalid` (a ``ValueError``) whose message is one line that starts with the field
(``games[0].events[3].data.patch[1]: ...``); its ``status`` is 400, or 422 for a finished game's
record that reads but is not the game it claims (:mod:`host.hub.finals`).

The same :func:`check` guards what the hub reads back from its own database (a frame stored
before these checks existed): a value it refuses is skipped by the reader, never handed on.
"""

from __future__ import annotations

import json
import math
import re

import orjson

from . import frames

MAX_DEPTH = 32  # levels of lists and objects in a frame or a body (a public frame has about 8)
MAX_NUMBER = 40  # characters of one JSON number
MAX_INT = 2**63  # whole numbers above this are refused (PostgreSQL's bigint, and any reader's)
MAX_KEY = 256  # characters of an object's key
MAX_EVENTS = 500  # events in one push
MAX_GAMES = 50  # games in one push (a board's outbox sends at most 8 games' events and 20 finals at once)
MAX_EVENT = 256 * 1024  # bytes of one event (a public state with a long game's history)
MAX_NAME = 64  # characters of a player's name or code in a final
MAX_TIME = 1e11  # seconds since 1970 (a board's clock: created, finished)
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
_BAD_TEXT = re.compile("[\x00\ud800-\udfff]")  # NUL, or half of a UTF-16 pair


class Invalid(ValueError):
    """A refusal in one line naming the field; ``status``: 400 (malformed) or 422 (not the game);
    ``game``: the game (UUID) it is about, ``final``: whether it is that game's final."""

    def __init__(self, message: str, status: int = 400, game: str | None = None, final: bool = False,
                 path: tuple = ()):
        super().__init__(message)
        self.status, self.game, self.final, self.path = status, game, final, path


class _Bad(Exception):
    """Raised inside :func:`check`; the path is gathered on the way out."""

    def __init__(self, reason: str):
        self.reason = reason
        self.path: list = []


class _Long:
    """A number of more than MAX_NUMBER characters, as parsed (refused by :func:`check`, by name)."""


_LONG = _Long()


def _int(text: str):
    return _LONG if len(text) > MAX_NUMBER else int(text)


def _float(text: str):
    return _LONG if len(text) > MAX_NUMBER else float(text)  # 1e999: inf, refused by check, by name


_ESCAPES = re.compile(rb"\\u(?:0000|[dD][89a-fA-F])")


def _suspect(data: bytes) -> bool:
    """Whether a JSON text may hold a value check() refuses: a NUL or half a UTF-16 pair (escaped,
    or as the bytes of a surrogate, which json.loads lets through), NaN or Infinity (numbers too
    long or not finite, like 1e999, are caught as they are parsed).  A text with none of them (the
    usual push) needs only its lists and objects looked at (depth, keys); one with any (perhaps
    only inside a string) is looked at whole."""
    return (b"NaN" in data or b"Infinity" in data or b"\xed" in data
            or (b"\\u" in data and _ESCAPES.search(data) is not None))


class _Suspect(Exception):
    pass


# A number of more than 18 characters (after [ : or , as numbers in JSON are, or the whole text):
# what the hooks of the standard parser look at (it is parsed there), and what orjson does not say
# (it reads a whole number too large for 64 bits as a float).  Digits in a string may match too,
# which only sends that text the standard parser's way.
_LONG_NUMBER = re.compile(rb"(?:^|[\[:,])[ \t\r\n]*[-0-9][-+.eE0-9]{18}")
# (looked for only where 19 characters that may make a number stand together: a quick look first)
_NUMBERY = bytes(48 if c in b"0123456789.eE+-" else 32 for c in range(256))
_RUN = b"0" * 19


_ORJSON_NESTS = 20000  # lists and objects in a text parsed by orjson (it parsed 100,000 nested; 2,000,000 crashed)


def _long_number(data: bytes) -> bool:
    return _RUN in data.translate(_NUMBERY) and _LONG_NUMBER.search(data) is not None


def _float_seen(text: str) -> float:
    value = float(text)
    if len(text) > MAX_NUMBER or not math.isfinite(value):
        raise _Suspect
    return value


def _int_seen(text: str) -> int:
    if len(text) > 18:  # perhaps 2**63 or more: looked at whole
        raise _Suspect
    return int(text)


def parse(raw: bytes | str, field: str = "body") -> object:
    """The JSON value of a request's body, checked (:func:`check`); Invalid naming the field
    (``field`` for the body as a whole, then the path within it)."""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    try:
        if data.count(b"[") + data.count(b"{") <= _ORJSON_NESTS and not _suspect(data) and not _long_number(data):
            # the usual text, parsed by orjson (several times faster; the same values as the
            # standard parser for every text that reaches here, and it refuses what that parser
            # would let through to be refused below: numbers not finite, half a UTF-16 pair,
            # UTF-8 that is not): anything it refuses, or _shape does, is parsed again below, to be
            # named as before.  Not a text of very many lists and objects: orjson 3.8 parses
            # nesting on the thread's own stack, and a body of 4 MB nested lists would overflow it
            try:
                value = orjson.loads(data)
            except orjson.JSONDecodeError:
                value = None
            if type(value) is dict or type(value) is list:
                try:
                    _shape(value, MAX_DEPTH)
                    return value
                except (_Bad, RecursionError):
                    pass  # (the standard parser's way names what is wrong, as it did)
        if not _suspect(data):
            try:
                value = json.loads(data, parse_float=_float_seen, parse_int=_int_seen)
            except _Suspect:
                value = None
            else:
                if type(value) is dict or type(value) is list:
                    _shape_checked(value, "" if field == "body" else field)
                else:
                    check(value, "" if field == "body" else field)
                return value
        # NaN, Infinity, 1e999 and long numbers are parsed to be refused by check(), which names the field
        value = json.loads(data, parse_int=_int, parse_float=_float, parse_constant=float)
    except Invalid:
        raise
    except json.JSONDecodeError as exc:
        raise Invalid(f"{field}: JSON is expected ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    except UnicodeDecodeError:
        raise Invalid(f"{field}: JSON in UTF-8 is expected") from None
    except RecursionError:
        raise Invalid(f"{field}: nested more than {MAX_DEPTH} levels deep") from None
    except ValueError as exc:
        raise Invalid(f"{field}: {str(exc).splitlines()[0][:120]}") from None
    check(value, "" if field == "body" else field)
    return value


# What in orjson's text may differ from the standard library's (ensure_ascii, its float format): an
# exponent (a digit then e: 1e+16 there, 1e16 here), a number below 1e-4 (1e-05 there, 0.00001
# here), a character past ASCII (escaped there) or DEL; such a text is written the standard way.
_DIGIT_E = bytes(48 if c in b"0123456789" else 101 if c in b"eE" else 32 for c in range(256))


def compact(value) -> str:
    """``json.dumps(value, separators=(",", ":"))``, byte for byte, of a value :func:`check` takes
    (finite numbers, text keys), in a fifth of the time where orjson writes the same text (almost
    always: ASCII text, no exponent)."""
    try:
        out = orjson.dumps(value)
    except TypeError:  # (orjson.JSONEncodeError: a value it does not write, such as a very large number)
        out = b"\xff"
    if out.isascii() and b"\x7f" not in out and b"0.0000" not in out and b"0e" not in out.translate(_DIGIT_E):
        return out.decode("ascii")
    return json.dumps(value, separators=(",", ":"))


def check(value, field: str = "", depth: int = MAX_DEPTH) -> None:
    """Invalid naming the first part of ``value`` a hub does not take (see the module's doc);
    ``field``: the value's own name ("": the body, whose fields are then named from its top)."""
    try:
        _walk(value, depth)
    except _Bad as bad:
        path = tuple(reversed(bad.path))
        top = field or ("body" if path and type(path[0]) is int else "")
        name = (top + "".join(f"[{p}]" if type(p) is int else f".{p}" for p in path)).lstrip(".")
        raise Invalid(f"{name or 'body'}: {bad.reason}", path=path) from None
    except RecursionError:
        raise Invalid(f"{field or 'body'}: nested more than {MAX_DEPTH} levels deep") from None


def _shape_checked(value, field: str) -> None:
    """check() of a value whose text held nothing _SUSPECT: its lists and objects only."""
    try:
        _shape(value, MAX_DEPTH)
    except _Bad:
        check(value, field)  # the same look, whole, names the field
    except RecursionError:
        raise Invalid(f"{field or 'body'}: nested more than {MAX_DEPTH} levels deep") from None


def _shape(value, depth: int) -> None:
    if depth <= 0:
        raise _Bad("too deep")
    if type(value) is dict:
        for key, item in value.items():
            if len(key) > MAX_KEY:
                raise _Bad("a long key")
            if type(item) is dict or type(item) is list:
                _shape(item, depth - 1)
    else:
        for item in value:
            if type(item) is dict or type(item) is list:
                _shape(item, depth - 1)


def _walk(value, depth: int) -> None:
    kind = type(value)
    if kind is str:
        if _BAD_TEXT.search(value):
            raise _Bad("text with a NUL character or half a UTF-16 pair")
    elif kind is dict:
        if depth <= 0:
            raise _Bad(f"nested more than {MAX_DEPTH} levels deep")
        for key, item in value.items():
            if type(key) is not str or len(key) > MAX_KEY or _BAD_TEXT.search(key):
                raise _Bad(f"a key of at most {MAX_KEY} characters without NUL is expected")
            if type(item) in _CHECKED:
                try:
                    _walk(item, depth - 1)
                except _Bad as bad:
                    bad.path.append(_shown(key))
                    raise
    elif kind is list:
        if depth <= 0:
            raise _Bad(f"nested more than {MAX_DEPTH} levels deep")
        for n, item in enumerate(value):
            if type(item) in _CHECKED:
                try:
                    _walk(item, depth - 1)
                except _Bad as bad:
                    bad.path.append(n)
                    raise
    elif kind is float:
        if not math.isfinite(value):
            raise _Bad("a finite number is expected")
    elif kind is int:
        if not -MAX_INT < value < MAX_INT:
            raise _Bad("a number of at most 19 digits is expected")
    elif kind is _Long:
        raise _Bad(f"a number of at most {MAX_NUMBER} characters is expected")
    elif value is not None and kind is not bool:
        raise _Bad("a JSON value is expected")


_CHECKED = {dict, list, str, float, int, _Long}  # (None and booleans need no look)


def _shown(key: str) -> str:
    return key if key.isidentifier() else json.dumps(key[:40])


def text(value, field: str, most: int = MAX_NAME, empty: bool = False) -> str | None:
    """A name or a code: None, or printable text of at most ``most`` characters; Invalid naming ``field``."""
    if value is None:
        return None
    if (type(value) is not str or len(value) > most or not value.isprintable()
            or (not empty and not value.strip())):
        raise Invalid(f"{field}: printable text of 1 to {most} characters is expected")
    return value


def time(value, field: str) -> float | None:
    """A time of the board's clock (seconds since 1970), or None."""
    if value is None:
        return None
    if type(value) not in (int, float) or not 0 <= value < MAX_TIME:
        raise Invalid(f"{field}: a time (seconds since 1970) is expected")
    return float(value) if type(value) is float else value


# --- pushes -----------------------------------------------------------------------------------------


class Events(list):
    """A game's pushed events, [(seq, data text)], with their data parsed and the game's mode."""

    def __init__(self):
        super().__init__()
        self.parsed: dict[int, dict] = {}
        self.mode: str | None = None


def push(raw: bytes) -> tuple[object, list[tuple[str, Events, dict | None]]]:
    """A push's body: (its board identity, (uuid, events, final or None) of each game); Invalid
    naming the field (and, for a refused final, its game and ``final``: a board sets the final
    aside rather than send it again).  A final is checked here for its shape only; its record
    against the game by :func:`host.hub.finals.check`."""
    try:
        body = parse(raw)
    except Invalid as exc:
        path = exc.path
        if len(path) >= 3 and path[0] == "games" and path[2] == "final":  # e.g. NaN in its record
            game = body_game(raw, path[1])
            if game is not None:
                raise Invalid(str(exc), game=game, final=True) from None
        raise
    return body.get("board") if isinstance(body, dict) else None, games(body)


def body_game(raw: bytes, n: int) -> str | None:
    """The UUID of the ``n``th game of a body that parses as plain JSON (None if not)."""
    try:
        uuid = json.loads(raw)["games"][n]["uuid"]
    except (ValueError, KeyError, IndexError, TypeError, RecursionError):
        return None
    return uuid if isinstance(uuid, str) and UUID.match(uuid) else None


def games(body) -> list[tuple[str, Events, dict | None]]:
    """(uuid, events, final or None) of each game of a parsed push's body; Invalid naming the field."""
    if not isinstance(body, dict):
        raise Invalid("body: a JSON object is expected")
    games = body.get("games")
    if not isinstance(games, list) or not games:
        raise Invalid("games: a list of games is expected")
    board = body.get("board")
    if board is not None and (type(board) is not str or len(board) > 64):
        raise Invalid("board: the board's table identity (text) is expected")
    if len(games) > MAX_GAMES:
        raise Invalid(f"games: at most {MAX_GAMES} in one push ({len(games)} were sent)")
    if sum(len(g["events"]) for g in games if isinstance(g, dict) and isinstance(g.get("events"), list)) > MAX_EVENTS:
        raise Invalid(f"events: at most {MAX_EVENTS} in one push")
    out = [_game(g, i) for i, g in enumerate(games)]
    seen: set[str] = set()
    for i, (uuid, events, final) in enumerate(out):
        if uuid in seen:
            raise Invalid(f"games[{i}].uuid: game {uuid} is twice in one push", game=uuid)
        seen.add(uuid)
        if not events and final is None:
            raise Invalid(f"games[{i}]: game {uuid} has neither events nor a final", game=uuid)
    return out


def _game(g: object, i: int) -> tuple[str, Events, dict | None]:
    if not isinstance(g, dict):
        raise Invalid(f"games[{i}]: an object is expected")
    uuid = g.get("uuid")
    if not isinstance(uuid, str) or not UUID.match(uuid):
        raise Invalid(f"games[{i}].uuid: a UUID is expected")
    raw = g.get("events")
    if raw is not None and not isinstance(raw, list):
        raise Invalid(f"games[{i}].events: a list of events is expected", game=uuid)
    events = Events()
    for j, e in enumerate(raw or []):
        where = f"games[{i}].events[{j}]"
        if not isinstance(e, dict) or type(e.get("seq")) is not int or not 0 < e["seq"] < 2**31:
            raise Invalid(f"{where}.seq: a positive number is expected", game=uuid)
        if e["seq"] in events.parsed:
            raise Invalid(f"{where}.seq: {e['seq']} is twice in game {uuid}", game=uuid)
        data = e.get("data")
        event(data, f"{where}.data", uuid, checked=True)
        text_ = compact(data)
        if len(text_) > MAX_EVENT:
            raise Invalid(f"{where}.data: at most {MAX_EVENT} bytes", game=uuid)
        events.append((e["seq"], text_))
        events.parsed[e["seq"]] = data
        if events.mode is None and not frames.is_patch(data):
            state = data.get("state")
            mode = state.get("mode") if isinstance(state, dict) else None
            events.mode = mode if isinstance(mode, str) and len(mode) <= 32 else None
    final = g.get("final")
    if final is not None:
        _final(final, f"games[{i}].final", uuid)
    return uuid, events, final


# How deep a push's look at its whole body (parse) let an operation's value be: body, games, a game,
# its events, an event, its data, the patch, the operation, then the value (MAX_DEPTH - 8 levels).
_SEEN = MAX_DEPTH - 8


def event(data, where: str, uuid: str | None = None, checked: bool = False) -> None:
    """An event's data: a public frame (an object), or a patch of the one before (``{"patch": ops}``)
    whose every operation stays within ``MAX_DEPTH`` of the frame's top (a patch cannot build a
    frame deeper than a frame may be).  Invalid naming ``where``'s field.  ``checked``: the data
    passed :func:`parse` already (its shape only is looked at here)."""
    if not isinstance(data, dict):
        raise Invalid(f"{where}: an object is expected", game=uuid)
    if not frames.is_patch(data):
        if not checked:
            check(data, where)
        return
    if len(data) != 1:
        raise Invalid(f"{where}: a patch is an object with 'patch' only", game=uuid)
    try:
        frames.check(data["patch"])
    except ValueError as exc:
        raise Invalid(f"{where}.patch{exc}", game=uuid) from None
    for n, op in enumerate(data["patch"]):
        room = MAX_DEPTH - len(op[1]) - (op[0] == "add")
        if room < 0:
            raise Invalid(f"{where}.patch[{n}]: a path of at most {MAX_DEPTH} keys is expected", game=uuid)
        if len(op) == 3 and (type(op[2]) is dict or type(op[2]) is list) and not (checked and room >= _SEEN):
            try:
                (_shape if checked else _walk)(op[2], room)  # (parse() looked at its values already)
            except (_Bad, RecursionError):
                try:
                    check(op[2], f"{where}.patch[{n}][2]", depth=room)  # the same look, naming the field
                except Invalid as exc:
                    raise Invalid(str(exc), game=uuid) from None


def _final(final, where: str, uuid: str) -> None:
    def bad(field, message):
        raise Invalid(f"{where}{field}: {message}", game=uuid, final=True)

    if not isinstance(final, dict) or final.get("status") not in ("over", "abandoned"):
        bad(".status", "over or abandoned is expected")
    for field in ("created", "finished"):
        try:
            time(final.get(field), f"{where}.{field}")
        except Invalid as exc:
            raise Invalid(str(exc), game=uuid, final=True) from None
    if final.get("record") is not None and not isinstance(final["record"], dict):
        bad(".record", "an object (quin-record/1) is expected")
    if final.get("result") is not None and not isinstance(final["result"], dict):
        bad(".result", "an object (status, winner, reason) is expected")
    if final.get("mode") is not None and final["mode"] not in ("classic", "third_eye"):
        bad(".mode", "classic or third_eye is expected")
    players = final.get("players")
    if players is not None and not isinstance(players, dict):
        bad(".players", "an object with white and black is expected")
    for colour, who in (players or {}).items():
        if colour not in ("white", "black"):
            bad(".players", f"white and black are expected, not {colour[:20]!r}")
        if who is not None and not isinstance(who, dict):
            bad(f".players.{colour}", "an object with name and code is expected")
        for field in ("name", "code"):
            try:
                text((who or {}).get(field), f"{where}.players.{colour}.{field}")
            except Invalid as exc:
                raise Invalid(str(exc), game=uuid, final=True) from None
