"""A push's patches tried on the frame in memory, without a copy (issue 32, a cheaper hub).

The hub checks that a push's patches fit the game's frame before it stores anything.  It used to
check them on a deep copy of the frame (a long game's frame is tens of kilobytes); it now does them
on the frame itself and undoes them (host.hub.frames.trial and undo).  Here, for random frames and
random patches, against the patch rules as docs/hub.md states them (tests/support/pushing_board's
apply_patch, not the hub's code): what trial says fits is exactly what fits, what it leaves in the
frame while tried is the next frame, and undo leaves the frame as it was to the byte (its keys'
order too), with the patch's own values untouched."""

import copy
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from host.hub import frames
from tests.support.pushing_board import apply_patch

KEYS = st.sampled_from(["a", "b", "c", "history", "view", "notices"])
LEAF = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text("xyz", max_size=3))
VALUE = st.recursive(LEAF, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                   st.dictionaries(KEYS, inner, max_size=4)), max_leaves=12)
FRAME = st.dictionaries(KEYS, VALUE, min_size=1, max_size=5)


def by_the_docs(frame, ops):
    """The frame after the operations, by docs/hub.md's rules (tests/support/pushing_board's
    apply_patch), "whole" for a patch that replaces the whole frame, or None where one does not fit
    (a key or index that is not there, a step into a value that has none, 'add' to what is not a
    list)."""
    frame, ops = copy.deepcopy(frame), copy.deepcopy(ops)
    try:
        for op in ops:
            if not op[1]:
                return "whole"  # a patch that replaces the whole frame: not tried in place
            apply_patch(frame, [op])
    except (KeyError, IndexError, TypeError):
        return None
    return frame


def paths_of(value, path=()):
    yield list(path)
    if isinstance(value, dict):
        for k, v in value.items():
            yield from paths_of(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from paths_of(v, path + (i,))


@st.composite
def frame_and_patch(draw):
    frame = draw(FRAME)
    known = list(paths_of(frame))
    ops = []
    for _ in range(draw(st.integers(1, 5))):
        path = draw(st.one_of(st.sampled_from(known), st.lists(st.one_of(KEYS, st.integers(0, 3)), max_size=3)))
        if path and draw(st.booleans()):  # a key that may not be there yet, at a place that is
            path = path[:-1] + [draw(KEYS)]
        kind = draw(st.sampled_from(["set", "del", "add"]))
        if kind == "del":
            ops.append(["del", path])
        elif kind == "add":
            ops.append(["add", path, draw(st.lists(VALUE, max_size=3))])
        else:
            ops.append(["set", path, draw(VALUE)])
    return frame, ops


@settings(max_examples=600, deadline=None)
@given(frame_and_patch())
def test_a_patch_tried_in_place_fits_as_the_rules_say_and_is_undone_to_the_byte(case):
    frame, ops = case
    before, ops_before = json.dumps(frame), json.dumps(ops)
    expected = by_the_docs(frame, ops)
    changes: list = []
    fits = frames.trial(frame, ops, changes, set())
    if fits:
        assert expected not in (None, "whole")
        assert json.dumps(frame) == json.dumps(expected)  # the next frame, keys in order
    elif expected not in ("whole",):
        # not tried: an operation inside a value the same patch placed (apply decides, on a copy)
        inside = any(op[1][:n] == earlier[1] for i, op in enumerate(ops) for earlier in ops[:i]
                     if earlier[0] != "del" for n in range(1, len(op[1])))
        assert expected is None or inside
    frames.undo(changes)
    assert changes == []
    assert json.dumps(frame) == before
    assert json.dumps(ops) == ops_before


@settings(max_examples=200, deadline=None)
@given(frame_and_patch(), st.data())
def test_patches_in_a_row_tried_then_undone(case, data):
    """Several patches of one push, each tried on the frame the one before left."""
    frame, ops = case
    before = json.dumps(frame)
    split = data.draw(st.integers(0, len(ops)))
    first, second = ops[:split], ops[split:]
    changes: list = []
    placed: set = set()
    expected = by_the_docs(frame, first)
    if frames.trial(frame, first, changes, placed):
        after_first = copy.deepcopy(frame)
        assert after_first == expected
        then = by_the_docs(after_first, second)
        if frames.trial(frame, second, changes, placed):
            assert json.dumps(frame) == json.dumps(then)
    frames.undo(changes)
    assert json.dumps(frame) == before


def test_an_operation_inside_a_value_placed_is_not_tried():
    """The value of a 'set' is placed uncopied: a later operation inside it would change the push's
    own data (handed to the streams after), so it is left to apply(), on a copy."""
    frame = {"a": {"x": [1]}}
    ops = [["set", ["a"], {"x": [2]}], ["add", ["a", "x"], [3]]]
    changes: list = []
    assert frames.trial(frame, ops, changes, set()) is False
    frames.undo(changes)
    assert frame == {"a": {"x": [1]}} and ops[0][2] == {"x": [2]}
    assert frames.apply(frame, ops) == {"a": {"x": [2, 3]}}
