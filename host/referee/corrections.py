"""Correction lists: what to do so that the board shows a wanted occupancy.

Towers all look alike to the sensors, so displaced towers are paired with the
spaces that miss one by the least total distance (breadth-first distances along
the board's adjacency; an exact assignment search up to 10 pairs), then the
rest is "clear x" / "put a tower on y".
"""

from __future__ import annotations

from collections import deque

from engine.board import NEIGHBORS, SPACE_NAMES, SPACES

N = SPACE_NAMES


def _distances() -> tuple[tuple[int, ...], ...]:
    table = []
    for s in SPACES:
        dist = [len(SPACES)] * len(SPACES)
        dist[s] = 0
        queue = deque([s])
        while queue:
            u = queue.popleft()
            for v, _ in NEIGHBORS[u]:
                if dist[v] > dist[u] + 1:
                    dist[v] = dist[u] + 1
                    queue.append(v)
        table.append(tuple(dist))
    return tuple(table)


#: DISTANCE[a][b]: steps between two spaces along the board's adjacency
DISTANCE = _distances()


def _pair(extra: list[int], missing: list[int]) -> list[tuple[int, int]]:
    """Pair as many extras with missing spaces as possible, by the least total distance."""
    if not extra or not missing:
        return []
    swap = len(extra) > len(missing)
    small, large = (missing, extra) if swap else (extra, missing)
    # small is matched completely; large keeps leftovers.
    if len(small) > 10:  # beyond exact search: nearest first
        pairs, free = [], list(large)
        for s in small:
            best = min(free, key=lambda x: DISTANCE[s][x])
            free.remove(best)
            pairs.append((s, best))
    else:
        n = len(small)
        full = (1 << n) - 1
        # dp over the large side: best[mask] = (cost, pairs) using small items in mask
        best: dict[int, tuple[int, tuple]] = {0: (0, ())}
        for x in large:
            nxt = dict(best)
            for mask, (cost, pairs) in best.items():
                for i in range(n):
                    if not mask >> i & 1:
                        m2 = mask | 1 << i
                        c2 = cost + DISTANCE[small[i]][x]
                        if m2 not in nxt or c2 < nxt[m2][0]:
                            nxt[m2] = (c2, pairs + ((small[i], x),))
            best = nxt
        pairs = list(best[full][1])
    if swap:  # (missing, extra) -> (extra, missing)
        return [(x, s) for s, x in pairs]
    return pairs


def corrections(board: frozenset[int], target: frozenset[int]) -> list[dict]:
    """What to do so that ``board`` shows ``target``: towers to move, spaces to clear or fill."""
    extra = sorted(board - target)
    missing = sorted(target - board)
    pairs = _pair(extra, missing)
    used_x = {a for a, _ in pairs}
    used_m = {b for _, b in pairs}
    out: list[dict] = []
    for a, b in sorted(pairs):
        out.append({"do": "move", "from": N[a], "to": N[b], "text": f"move the tower on {N[a]} to {N[b]}"})
    for a in extra:
        if a not in used_x:
            out.append({"do": "clear", "space": N[a], "text": f"clear {N[a]}"})
    for b in missing:
        if b not in used_m:
            out.append({"do": "fill", "space": N[b], "text": f"put a tower on {N[b]}"})
    return out


def say_list(items: list[dict]) -> str:
    return "; ".join(i["text"] for i in items)
