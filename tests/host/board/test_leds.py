import pytest

from engine.board import SPACE_IDS
from engine.errors import InvalidError
from host.board import protocol as p
from host.board.leds import COLOURS, DIM_FROM, Guidance, colours, led_frame


def test_each_kind_has_its_colour():
    for kind, rgb in COLOURS.items():
        assert colours([{"kind": kind, "spaces": ["w35"]}]) == {SPACE_IDS["w35"]: rgb}


def test_last_move_from_dim_to_bright():
    lit = colours([Guidance("last_move", (SPACE_IDS["w19"], SPACE_IDS["w18"]))])
    assert lit == {SPACE_IDS["w19"]: DIM_FROM, SPACE_IDS["w18"]: COLOURS["last_move"]}


def test_urgent_instruction_wins_a_shared_space():
    lit = colours([
        {"kind": "last_move", "spaces": ["w19", "w18"]},
        {"kind": "remove", "spaces": ["w18"]},
        {"kind": "correction", "spaces": ["w18", "b11"]},
        {"kind": "swap", "spaces": ["b11", 0]},
    ])
    assert lit[SPACE_IDS["w18"]] == COLOURS["correction"]
    assert lit[SPACE_IDS["b11"]] == COLOURS["correction"]
    assert lit[0] == COLOURS["swap"]


def test_nothing_to_show_is_all_dark():
    assert colours([]) == {}
    d = p.Decoder()
    d.feed(led_frame([], seq=3))
    assert d.next_frame().data == ()


@pytest.mark.parametrize("bad, message", [
    ({"kind": "blink", "spaces": []}, "unknown LED guidance kind 'blink'"),
    ({"kind": "remove", "spaces": ["x99"]}, "x99"),
    ({"kind": "remove", "spaces": [99]}, "no space 99"),
    ("remove w35", "mapping"),
])
def test_bad_instructions_are_named(bad, message):
    with pytest.raises(InvalidError, match=message):
        colours([bad])


def test_led_frame_encodes_the_colours():
    d = p.Decoder()
    d.feed(led_frame([{"kind": "place", "spaces": [5, 2]}], seq=9))
    f = d.next_frame()
    assert f.kind == p.LED and f.seq == 9
    assert f.data == ((2, 0, 255, 0), (5, 0, 255, 0))
