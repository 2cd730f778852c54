"""Where each of the 99 spaces is drawn: an SVG layout computed from the engine's geometry.

Rings are concentric circles around First Sight; Sight Lines run radially.
White sits south, Black north.  White's Sight Line k points at 180 + 30k
degrees (line 1 in the west), Black's at 30k degrees (Black's line 1 in the
east), so Sight Line k runs straight through the centre into the rival's line
k.  The Horizon lies on the west (``hw*``) and east (``he*``) axis on Rings
1..5; the Gateways are drawn as a ninth ring.  Every edge of the board is drawn:
line and Horizon steps as straight segments, ring steps as arcs.
"""

from __future__ import annotations

import math
from functools import lru_cache

from engine.board import (
    BLACK,
    BLACK_IRIS,
    EDGES,
    FIRST_SIGHT,
    HALF,
    IS_HORIZON,
    LINE_OF,
    RING_EDGE,
    RING_OF,
    SPACE_NAMES,
    SPACES,
    START_SPACES,
    WHITE,
    WHITE_IRIS,
)

SIZE = 1000
CENTRE = SIZE / 2
IRIS_RADIUS = 48
SPACE_RADIUS = 21


def ring_radius(ring: int) -> float:
    return 62 + ring * 46


def angle_of(space: int) -> float:
    """Direction of a space from the centre, in degrees (0 east, 90 north)."""
    name = SPACE_NAMES[space]
    if HALF[space] == WHITE:
        return 180 + 30 * LINE_OF[space]
    if HALF[space] == BLACK:
        return 30 * LINE_OF[space]
    if IS_HORIZON[space]:
        return 180 if name[1] == "w" else 0
    return 270 if space == WHITE_IRIS else 90


def _point(radius: float, degrees: float) -> tuple[float, float]:
    a = math.radians(degrees)
    return (round(CENTRE + radius * math.cos(a), 1), round(CENTRE - radius * math.sin(a), 1))


def position(space: int) -> tuple[float, float]:
    if space == FIRST_SIGHT:
        return (CENTRE, CENTRE)
    if space in (WHITE_IRIS, BLACK_IRIS):
        return _point(IRIS_RADIUS, angle_of(space))
    return _point(ring_radius(RING_OF[space]), angle_of(space))


def _edge_path(a: int, b: int, kind: str) -> str:
    (x1, y1), (x2, y2) = position(a), position(b)
    if kind != RING_EDGE:
        return f"M{x1} {y1}L{x2} {y2}"
    r = ring_radius(RING_OF[a])
    # the shorter way round; sweep chosen by the sign of the angle step
    da = (angle_of(b) - angle_of(a)) % 360
    sweep = 0 if da <= 180 else 1  # SVG y points down: counter-clockwise on screen is sweep 0
    return f"M{x1} {y1}A{r} {r} 0 0 {sweep} {x2} {y2}"


@lru_cache(maxsize=1)
def layout() -> dict:
    """JSON-ready drawing data shared by every page that shows the board."""
    return {
        "size": SIZE,
        "space_radius": SPACE_RADIUS,
        "spaces": {SPACE_NAMES[s]: position(s) for s in SPACES},
        "edges": [_edge_path(a, b, kind) for a, b, kind in EDGES],
        "start": {p: [SPACE_NAMES[s] for s in START_SPACES[p]] for p in (WHITE, BLACK)},
        "gateway_ring": ring_radius(9),
    }
