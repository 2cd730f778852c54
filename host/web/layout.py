"""The web pages' board: an SVG layout from the board's geometry (``host.board.geometry``).

The Gateways are drawn as a ninth ring.  Every edge of the board is drawn:
line and Horizon steps as straight segments, ring steps as arcs.
"""

from __future__ import annotations

from functools import lru_cache

from engine.board import BLACK, EDGES, RING_EDGE, RING_OF, SPACE_NAMES, SPACES, START_SPACES, WHITE
from host.board.geometry import angle_of, polar_xy

SIZE = 1000
CENTRE = SIZE / 2
IRIS_RADIUS = 48
SPACE_RADIUS = 21


def ring_radius(ring: int) -> float:
    return 62 + ring * 46


def position(space: int) -> tuple[float, float]:
    """Where a space is drawn, in SVG coordinates (y points down)."""
    x, y = polar_xy(space, ring_radius, IRIS_RADIUS)
    return (round(CENTRE + x, 1), round(CENTRE - y, 1))


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
