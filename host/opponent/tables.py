"""Tables built once from the board: how far each space is from First Sight for a Light."""

from __future__ import annotations

from collections import deque

from engine.board import FIRST_SIGHT, IS_HORIZON, RAY_FIRST_SIGHT, RAY_HORIZON, RAYS, SPACES
from engine.pieces import LIGHT, RANGE


def _light_moves() -> tuple[int, ...]:
    """LIGHT_MOVES[s]: Light moves from s to First Sight on an empty board."""
    reach: list[set[int]] = [set() for _ in SPACES]
    for s in SPACES:
        for kind, path, _ in RAYS[s]:
            for i, t in enumerate(path[: RANGE[LIGHT]]):
                if IS_HORIZON[t] and kind != RAY_HORIZON:
                    break
                if t == FIRST_SIGHT and kind != RAY_FIRST_SIGHT:
                    break
                reach[s].add(t)
    back: list[list[int]] = [[] for _ in SPACES]
    for s in SPACES:
        for t in reach[s]:
            back[t].append(s)
    far = 99
    dist = [far] * len(SPACES)
    dist[FIRST_SIGHT] = 0
    queue = deque([FIRST_SIGHT])
    while queue:
        u = queue.popleft()
        for v in back[u]:
            if dist[v] == far:
                dist[v] = dist[u] + 1
                queue.append(v)
    return tuple(min(d, 12) for d in dist)


LIGHT_MOVES = _light_moves()


#: CAPTURE_RAYS[s]: (along the Horizon line?, the spaces out to a Shadow's range) for
#: every straight path leaving s but the one onto First Sight
CAPTURE_RAYS = tuple(
    tuple((kind == RAY_HORIZON, path[: RANGE["shadow"]]) for kind, path, _ in RAYS[s] if kind != RAY_FIRST_SIGHT)
    for s in SPACES
)
