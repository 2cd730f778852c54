"""The board drawing's geometry follows spec section 1: rings around First Sight, Sight Lines radial."""

import math

from engine.board import EDGES, SPACE_NAMES
from host.web.layout import CENTRE, layout, ring_radius

L = layout()
P = L["spaces"]


def polar(name):
    x, y = P[name]
    dx, dy = x - CENTRE, CENTRE - y  # y up
    return math.hypot(dx, dy), math.degrees(math.atan2(dy, dx)) % 360


def test_every_space_and_edge_is_drawn_once():
    assert set(P) == set(SPACE_NAMES)
    assert len(L["edges"]) == len(EDGES)
    assert len({tuple(p) for p in P.values()}) == 99  # no two spaces on top of each other


def test_first_sight_in_the_centre_white_south_black_north():
    assert P["fs"] == (CENTRE, CENTRE)
    assert P["wi"][1] > CENTRE and P["bi"][1] < CENTRE  # screen y grows downward
    assert all(P[f"w{k}9"][1] > CENTRE for k in range(1, 6))
    assert all(P[f"b{k}9"][1] < CENTRE for k in range(1, 6))


def test_rings_are_concentric_and_gateways_outermost():
    for name in SPACE_NAMES:
        if name[0] in "wb" and name[1] != "i" or name[0] == "h":
            radius, _ = polar(name)
            assert abs(radius - ring_radius(int(name[2]))) < 0.2, name


def test_sight_lines_are_radial_and_run_through_the_centre():
    for k in range(1, 6):
        white = {round(polar(f"w{k}{r}")[1]) for r in range(3, 10)}
        black = {round(polar(f"b{k}{r}")[1]) for r in range(3, 10)}
        assert len(white) == len(black) == 1
        assert (white.pop() + 180) % 360 == black.pop()  # line k continues as the rival's line k


def test_lines_run_from_each_players_left_and_the_horizon_is_west_and_east():
    assert P["w19"][0] < P["w59"][0]  # White's line 1 in the west
    assert P["b19"][0] > P["b59"][0]  # Black's line 1 in the east
    assert all(polar(f"hw{r}")[1] == 180 and polar(f"he{r}")[1] == 0 for r in range(1, 6))
