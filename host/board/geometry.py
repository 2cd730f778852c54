"""Where each space lies on the round board: one place for every drawing of it.

Rings are concentric circles around First Sight; Sight Lines are radial.
White sits south, Black north.  White's Sight Line k points at 180 + 30k
degrees (line 1 in the south-west), Black's at 30k degrees (Black's line 1 in
the north-east), so Sight Line k runs straight through the centre into the
rival's line k.  The Horizon lies on the west (``hw*``) and east (``he*``)
axis on Rings 1..5; the Gateways are ring 9.
"""

from __future__ import annotations

import math
from typing import Callable

from engine.board import BLACK, FIRST_SIGHT, HALF, IS_HORIZON, LINE_OF, RING_OF, SPACE_NAMES, WHITE, WHITE_IRIS


def angle_of(space: int) -> float:
    """Direction of a space from the centre, in degrees (0 east, 90 north)."""
    if HALF[space] == WHITE:
        return 180 + 30 * LINE_OF[space]
    if HALF[space] == BLACK:
        return 30 * LINE_OF[space]
    if IS_HORIZON[space]:
        return 180 if SPACE_NAMES[space][1] == "w" else 0
    return 270 if space == WHITE_IRIS else 90


def polar_xy(space: int, ring_radius: Callable[[int], float], iris_radius: float) -> tuple[float, float]:
    """(x, y) with x east and y north, First Sight at the origin, in the caller's units."""
    if space == FIRST_SIGHT:
        return (0.0, 0.0)
    ring = RING_OF[space]
    radius = iris_radius if ring is None else ring_radius(ring)
    a = math.radians(angle_of(space))
    return (radius * math.cos(a), radius * math.sin(a))
