"""The board of spec section 1: ids, adjacency by kind, rings, Gateways, Horizon, halves."""

import json
from collections import Counter

import pytest

from engine import board as B
from engine.errors import InvalidError
from host.cli import main


def expected_ids():
    ids = {"fs", "wi", "bi"}
    for side in "wb":
        for line in range(1, 6):
            inner = 1 if line in (1, 3, 5) else 2
            for ring in range(inner, 10):
                ids.add(f"{side}{line}{ring}")
    for h in "we":
        for ring in range(1, 6):
            ids.add(f"h{h}{ring}")
    return ids


def edge_set(kind=None):
    return {
        frozenset((B.SPACE_NAMES[a], B.SPACE_NAMES[b]))
        for a, b, k in B.EDGES
        if kind is None or k == kind
    }


def nbrs(name, kind=None):
    s = B.parse_space(name)
    return {B.SPACE_NAMES[t] for t, k in B.NEIGHBORS[s] if kind is None or k == kind}


def test_exactly_the_99_spec_ids():
    assert len(B.SPACE_NAMES) == 99
    assert len(set(B.SPACE_NAMES)) == 99
    assert set(B.SPACE_NAMES) == expected_ids()


@pytest.mark.parametrize("name", ["w21", "w41", "b21", "b41", "w10", "w60", "hw6", "he0", "w3", "fs1", ""])
def test_missing_and_bogus_spaces_are_unknown(name):
    assert name not in B.SPACE_IDS
    with pytest.raises(InvalidError, match="unknown space"):
        B.parse_space(name)


def test_parse_space_rejects_non_strings():
    with pytest.raises(InvalidError):
        B.parse_space(35)


def test_edge_counts_by_kind():
    counts = Counter(k for _, _, k in B.EDGES)
    assert len(B.EDGES) == 173
    assert counts == {"line": 82, "ring": 80, "horizon": 8, "iris": 3}
    assert len(edge_set()) == 173  # no duplicate edge


def test_line_edges_follow_each_sight_line_to_the_iris():
    expected = set()
    for side in "wb":
        for k in range(1, 6):
            inner = 1 if k in (1, 3, 5) else 2
            seq = [f"{side}{k}{r}" for r in range(9, inner - 1, -1)]
            if k in (1, 3, 5):
                seq.append(f"{side}i")
            expected |= {frozenset(p) for p in zip(seq, seq[1:])}
    assert edge_set("line") == expected


def test_lines_2_and_4_stop_at_ring_2_and_do_not_touch_the_iris():
    for side in "wb":
        for k in (2, 4):
            assert nbrs(f"{side}{k}2", "line") == {f"{side}{k}3"}
    assert nbrs("wi", "line") == {"w11", "w31", "w51"}
    assert nbrs("bi", "line") == {"b11", "b31", "b51"}


def test_iris_edges():
    assert edge_set("iris") == {frozenset(("wi", "bi")), frozenset(("wi", "fs")), frozenset(("bi", "fs"))}
    assert nbrs("fs") == {"wi", "bi"}


@pytest.mark.parametrize("ring", [1, 2, 3, 4, 5])
def test_inner_rings_are_closed_loops_through_the_horizon(ring):
    order = [f"hw{ring}"]
    order += [f"w{k}{ring}" for k in range(1, 6) if ring > 1 or k in (1, 3, 5)]
    order += [f"he{ring}"]
    order += [f"b{k}{ring}" for k in range(1, 6) if ring > 1 or k in (1, 3, 5)]
    expected = {frozenset((a, b)) for a, b in zip(order, order[1:] + order[:1])}
    ring_edges = {e for e in edge_set("ring") if all(n.endswith(str(ring)) for n in e)}
    assert ring_edges == expected
    assert len(order) == (8 if ring == 1 else 12)
    for name in order:
        assert len(nbrs(name, "ring")) == 2


@pytest.mark.parametrize("ring", [6, 7, 8])
def test_outer_rings_are_two_open_arcs(ring):
    for side in "wb":
        arc = [f"{side}{k}{ring}" for k in range(1, 6)]
        for a, b in zip(arc, arc[1:]):
            assert frozenset((a, b)) in edge_set("ring")
        # the ends of the arc have one ring neighbour: the blue dots are not spaces
        assert nbrs(arc[0], "ring") == {arc[1]}
        assert nbrs(arc[-1], "ring") == {arc[-2]}
    assert f"hw{ring}" not in B.SPACE_IDS and f"he{ring}" not in B.SPACE_IDS


def test_ring_edge_total_is_closed_loops_plus_arcs():
    assert 8 + 4 * 12 + 3 * 2 * 4 == 80 == len(edge_set("ring"))


@pytest.mark.parametrize("side", ["w", "b"])
@pytest.mark.parametrize("line", [1, 2, 3, 4, 5])
def test_gateways_touch_only_their_ring_8_space(side, line):
    assert nbrs(f"{side}{line}9") == {f"{side}{line}8"}


def test_gateways_and_starting_spaces():
    assert [B.SPACE_NAMES[s] for s in B.GATEWAYS["white"]] == [f"w{k}9" for k in range(1, 6)]
    assert [B.SPACE_NAMES[s] for s in B.GATEWAYS["black"]] == [f"b{k}9" for k in range(1, 6)]
    assert {B.SPACE_NAMES[s] for s in B.START_SPACES["white"]} == {f"w{k}{r}" for k in range(1, 6) for r in (8, 9)}


def test_horizon_line_and_it_does_not_touch_the_iris():
    assert edge_set("horizon") == {
        frozenset((f"h{x}{r}", f"h{x}{r + 1}")) for x in "we" for r in range(1, 5)
    }
    for name in ("hw1", "he1"):
        assert nbrs(name) == {"hw2" if name == "hw1" else "he2", "w11" if name == "hw1" else "w51",
                              "b51" if name == "hw1" else "b11"}
    horizon = {f"h{x}{r}" for x in "we" for r in range(1, 6)}
    for iris in ("wi", "bi", "fs"):
        assert not (nbrs(iris) & horizon)
    # hw1 and he1 are not neighbours
    assert frozenset(("hw1", "he1")) not in edge_set()


def test_halves():
    white = {n for n in B.SPACE_NAMES if B.HALF[B.SPACE_IDS[n]] == "white"}
    black = {n for n in B.SPACE_NAMES if B.HALF[B.SPACE_IDS[n]] == "black"}
    neither = {n for n in B.SPACE_NAMES if B.HALF[B.SPACE_IDS[n]] is None}
    assert len(white) == len(black) == 43
    assert all(n[0] == "w" and n != "wi" for n in white)
    assert all(n[0] == "b" and n != "bi" for n in black)
    assert neither == {"fs", "wi", "bi"} | {f"h{x}{r}" for x in "we" for r in range(1, 6)}


def test_sight_line_k_continues_as_the_rivals_line_k():
    assert B.SIGHT_LINES[3][:9] == tuple(B.SPACE_IDS[f"w3{r}"] for r in range(9, 0, -1))
    assert B.SIGHT_LINES[3][9:11] == (B.WHITE_IRIS, B.BLACK_IRIS)
    assert B.SIGHT_LINES[3][11:] == tuple(B.SPACE_IDS[f"b3{r}"] for r in range(1, 10))
    assert [B.SPACE_NAMES[s] for s in B.SIGHT_LINES[2][7:9]] == ["w22", "b22"]


def test_quin_board_json(capsys):
    assert main(["board", "--json"]) == 0
    out = capsys.readouterr().out
    data = json.loads(out)
    assert set(data) == {"spaces", "edges"}
    assert len(data["spaces"]) == 99 and set(data["spaces"]) == expected_ids()
    assert len(data["edges"]) == 173
    kinds = Counter(e[2] for e in data["edges"])
    assert kinds == {"line": 82, "ring": 80, "horizon": 8, "iris": 3}
    assert all(len(e) == 3 and e[0] in data["spaces"] and e[1] in data["spaces"] for e in data["edges"])
    assert {frozenset(e[:2]) for e in data["edges"]} == edge_set()


def test_quin_board_text_shows_every_space(capsys):
    assert main(["board"]) == 0
    out = capsys.readouterr().out
    words = set(out.split())
    assert words == expected_ids()
    lines = out.splitlines()
    # White at the bottom: its Gateways on the last row, Black's on the first
    assert set(lines[-1].split()) == {f"w{k}9" for k in range(1, 6)}
    assert set(lines[0].split()) == {f"b{k}9" for k in range(1, 6)}
