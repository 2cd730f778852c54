"""The hub reads and writes JSON through orjson where it gives what the standard library gave, byte
for byte and value for value (host/hub/validate.py: parse, compact): what is stored, streamed and
refused does not depend on which of the two did the work."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from host.hub import validate

SCALARS = (st.none() | st.booleans() | st.integers(min_value=-(2**63) + 1, max_value=2**63 - 1)
           | st.floats(allow_nan=False, allow_infinity=False)
           | st.sampled_from([1e-5, 1.5e-5, 9.99e-5, 1e-4, 1e15, 1e16, 1e22, -0.0, 123456789.125, 5e-324])
           | st.text(max_size=12) | st.sampled_from(["\x7f", "é", "\u2028", "0.00001", "2e", "\x00\x1f\"\\"]))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=5)
                      | st.dictionaries(st.text(max_size=6), inner, max_size=5), max_leaves=30)


def standard(value) -> str:
    return json.dumps(value, separators=(",", ":"))


@settings(max_examples=400, deadline=None)
@given(VALUES)
def test_compact_writes_the_standard_text(value):
    assert validate.compact(value) == standard(value)


def by_the_standard_parser(monkeypatch, data: bytes):
    """What parse gives (a value, or the Invalid's message) the standard library's way only."""
    with monkeypatch.context() as m:
        m.setattr(validate, "_long_number", lambda data: True)  # (orjson is used only where this is False)
        return outcome(data)


def outcome(data: bytes):
    try:
        value = validate.parse(data)
    except validate.Invalid as exc:
        return "refused", str(exc)
    return "taken", json.dumps(value), repr(value)  # (repr: -0.0, key order, int or float)


TEXTS = [
    b'{"a":1,"b":2,"a":3}', b'{"a":[1,2.5,-0.0,1E5,1e-7,0.1]}', b' {"x" : [ true , false , null ] } ',
    b'{"a":12345678901234567890}', b'{"a":-9223372036854775808}', b'{"a":9223372036854775807}',
    b'{"a":1234567890123456789}', b'{"a":123456789012345678}', b'{"a":1e400}', b'{"a":-1e400}', b'{"a":NaN}',
    b'{"a":Infinity}', b'{"a":"\\ud800"}', b'{"a":"\xed\xa0\x80"}', b'{"a":"\\u0000"}', b'{"a":"\xff"}',
    b'{"a":1.00000000000000000000000000000000000000000000001}', b'{"a":[1.000000000000000000001]}',
    b'{"a":"00000000-0000-4000-8000-000000000001","b":1}', b'12345678901234567890123', b'"text"', b'[]',
    b'{"a":' + b"[" * 40 + b"]" * 40 + b"}", b'{"games": ' + b"[" * 5000 + b"]" * 5000 + b"}",
    b"[" * 2_000_000 + b"]" * 2_000_000,  # (orjson 3.8 parsing this nesting would crash the process)
    b'{"' + b"k" * 300 + b'":1}', b'{"a":1', b'{"a":01}',
    '{"a":"é"}'.encode("utf-16"), b'\xef\xbb\xbf{"a":1}', b'{"a":1} x', b'{"a":"\\u00e9\\n"}',
]


@pytest.mark.parametrize("data", TEXTS)
def test_parse_takes_and_refuses_as_the_standard_parser(monkeypatch, data):
    assert outcome(data) == by_the_standard_parser(monkeypatch, data)


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_parse_of_any_value_is_the_standard_parsers(value):
    data = json.dumps({"v": value}).encode()
    with pytest.MonkeyPatch.context() as m:
        m.setattr(validate, "_long_number", lambda data: True)
        expected = outcome(data)
    assert outcome(data) == expected
