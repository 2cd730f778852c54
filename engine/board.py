"""The Quin board: 99 spaces as small ints, with names and tables built once.

Geometry follows spec section 1.  White sits south, Black north.  Each side
numbers its Sight Lines 1..5 from its own left, and Sight Line k runs straight
through the centre into the rival's Sight Line k (the board is
point-symmetric).  Rings count outward from the Iris: Ring 1..8, then the
Gateways (written as ring 9 in the ids).

Everything here is data.  Space ids are ints 0..98; names appear only at the
edges (``parse_space`` / ``space_name``).
"""

from __future__ import annotations

from .errors import InvalidError, quoted

WHITE = "white"
BLACK = "black"
PLAYERS = (WHITE, BLACK)
SIDE_LETTER = {WHITE: "w", BLACK: "b"}


def other(player: str) -> str:
    return BLACK if player == WHITE else WHITE


LINES = (1, 2, 3, 4, 5)
IRIS_LINES = (1, 3, 5)  # Sight Lines that reach Ring 1 and the Iris
GATEWAY_RING = 9


def _innermost_ring(line: int) -> int:
    return 1 if line in IRIS_LINES else 2


# --- names -------------------------------------------------------------------

_names: list[str] = ["fs", "wi", "bi"]
for _letter in "wb":
    for _line in LINES:
        for _ring in range(_innermost_ring(_line), GATEWAY_RING + 1):
            _names.append(f"{_letter}{_line}{_ring}")
for _letter in "we":
    for _ring in range(1, 6):
        _names.append(f"h{_letter}{_ring}")

SPACE_NAMES: tuple[str, ...] = tuple(_names)
SPACE_IDS: dict[str, int] = {name: i for i, name in enumerate(SPACE_NAMES)}
SPACES = range(len(SPACE_NAMES))
assert len(SPACE_NAMES) == 99

FIRST_SIGHT = SPACE_IDS["fs"]
WHITE_IRIS = SPACE_IDS["wi"]
BLACK_IRIS = SPACE_IDS["bi"]
IRIS = frozenset((WHITE_IRIS, BLACK_IRIS))
IRIS_OF = {WHITE: WHITE_IRIS, BLACK: BLACK_IRIS}


def space_name(space: int) -> str:
    return SPACE_NAMES[space]


def parse_space(name: object) -> int:
    """Space id for a name such as ``"w35"``; InvalidError names the bad value."""
    if isinstance(name, str):
        space = SPACE_IDS.get(name)
        if space is not None:
            return space
    raise InvalidError(f"unknown space {quoted(name)}")


def sight_space(side: str, line: int, ring: int) -> int:
    return SPACE_IDS[f"{SIDE_LETTER[side]}{line}{ring}"]


# --- properties of each space ---------------------------------------------------

#: half of the board a space belongs to: "white", "black" or None
HALF: tuple[str | None, ...] = tuple(
    WHITE if n[0] == "w" and n != "wi" else BLACK if n[0] == "b" and n != "bi" else None
    for n in SPACE_NAMES
)
#: Sight Line of a side space (1..5), else None
LINE_OF: tuple[int | None, ...] = tuple(
    int(n[1]) if HALF[i] is not None else None for i, n in enumerate(SPACE_NAMES)
)
#: ring of a side or Horizon space (Gateways are 9), else None
RING_OF: tuple[int | None, ...] = tuple(
    int(n[2]) if HALF[i] is not None else int(n[2]) if n[0] == "h" else None
    for i, n in enumerate(SPACE_NAMES)
)
IS_HORIZON: tuple[bool, ...] = tuple(n[0] == "h" for n in SPACE_NAMES)
HORIZON = frozenset(i for i in SPACES if IS_HORIZON[i])
IS_IRIS: tuple[bool, ...] = tuple(i in IRIS for i in SPACES)

GATEWAYS: dict[str, tuple[int, ...]] = {
    p: tuple(sight_space(p, k, GATEWAY_RING) for k in LINES) for p in PLAYERS
}
START_SPACES: dict[str, tuple[int, ...]] = {
    p: GATEWAYS[p] + tuple(sight_space(p, k, 8) for k in LINES) for p in PLAYERS
}

# --- adjacency -------------------------------------------------------------------

LINE_EDGE, RING_EDGE, HORIZON_EDGE, IRIS_EDGE = "line", "ring", "horizon", "iris"


def _ring_order(ring: int) -> list[int]:
    """Spaces of a closed ring r <= 5 in loop order, starting at the west Horizon."""
    names = [f"hw{ring}"]
    names += [f"w{k}{ring}" for k in LINES if ring >= _innermost_ring(k)]
    names += [f"he{ring}"]
    names += [f"b{k}{ring}" for k in LINES if ring >= _innermost_ring(k)]
    return [SPACE_IDS[n] for n in names]


def _build_edges() -> list[tuple[int, int, str]]:
    edges: list[tuple[int, int, str]] = []
    for side in PLAYERS:
        for k in LINES:
            rings = range(GATEWAY_RING, _innermost_ring(k) - 1, -1)
            seq = [sight_space(side, k, r) for r in rings]
            edges += [(a, b, LINE_EDGE) for a, b in zip(seq, seq[1:])]
            if k in IRIS_LINES:
                edges.append((sight_space(side, k, 1), IRIS_OF[side], LINE_EDGE))
        for r in (6, 7, 8):
            arc = [sight_space(side, k, r) for k in LINES]
            edges += [(a, b, RING_EDGE) for a, b in zip(arc, arc[1:])]
    for r in range(1, 6):
        loop = _ring_order(r)
        edges += [(a, b, RING_EDGE) for a, b in zip(loop, loop[1:] + loop[:1])]
    for letter in "we":
        seq = [SPACE_IDS[f"h{letter}{r}"] for r in range(1, 6)]
        edges += [(a, b, HORIZON_EDGE) for a, b in zip(seq, seq[1:])]
    edges += [
        (WHITE_IRIS, BLACK_IRIS, IRIS_EDGE),
        (WHITE_IRIS, FIRST_SIGHT, IRIS_EDGE),
        (BLACK_IRIS, FIRST_SIGHT, IRIS_EDGE),
    ]
    return edges


EDGES: tuple[tuple[int, int, str], ...] = tuple(_build_edges())
assert len(EDGES) == 173

_nbrs: list[list[tuple[int, str]]] = [[] for _ in SPACES]
for _a, _b, _kind in EDGES:
    _nbrs[_a].append((_b, _kind))
    _nbrs[_b].append((_a, _kind))
#: NEIGHBORS[s] = ((t, kind), ...)
NEIGHBORS: tuple[tuple[tuple[int, str], ...], ...] = tuple(tuple(n) for n in _nbrs)
RING_NEIGHBORS: tuple[tuple[int, ...], ...] = tuple(
    tuple(t for t, kind in n if kind == RING_EDGE) for n in NEIGHBORS
)
#: neighbours one "line step" away: a Sight Line step (into or out of an Iris
#: space included), a Horizon-line step, or wi-bi.  Never First Sight.
LINE_STEP_NEIGHBORS: tuple[tuple[int, ...], ...] = tuple(
    tuple(t for t, kind in n if kind != RING_EDGE and t != FIRST_SIGHT) for n in NEIGHBORS
)
#: spaces a Void may be pulled onto around an anchor Void (never an Iris space)
GRAVITY_NEIGHBORS: tuple[tuple[int, ...], ...] = tuple(
    tuple(t for t, _ in n if t not in IRIS and t != FIRST_SIGHT) for n in NEIGHBORS
)

# --- straight paths for movement ---------------------------------------------------
#
# A move follows one straight path: along a Sight Line (crossing the Iris when
# it reaches it), along a ring, or along the Horizon line.  Paths that branch
# at the far Iris space are listed once per branch; ``skip`` says how many
# leading spaces an earlier branch already offered, so each destination is
# produced once.

RAY_LINE, RAY_RING, RAY_HORIZON, RAY_FIRST_SIGHT = 0, 1, 2, 3


def _outward(side: str, line: int, from_ring: int) -> list[int]:
    return [sight_space(side, line, r) for r in range(from_ring, GATEWAY_RING + 1)]


def _across(side: str) -> list[tuple[list[int], int]]:
    """Branches after entering ``side``'s Iris: cross to the other Iris and out."""
    far = other(side)
    branches = []
    for n, k in enumerate(IRIS_LINES):
        path = [IRIS_OF[far]] + _outward(far, k, 1)
        branches.append((path, 0 if n == 0 else 1))
    return branches


def _build_rays() -> tuple[tuple[tuple[int, tuple[int, ...], int], ...], ...]:
    rays: list[list[tuple[int, tuple[int, ...], int]]] = [[] for _ in SPACES]
    for s in SPACES:
        name = SPACE_NAMES[s]
        out = rays[s]
        if s in IRIS:
            side = WHITE if s == WHITE_IRIS else BLACK
            for k in IRIS_LINES:
                out.append((RAY_LINE, tuple(_outward(side, k, 1)), 0))
            for path, skip in _across(side):
                out.append((RAY_LINE, tuple(path), skip))
            out.append((RAY_FIRST_SIGHT, (FIRST_SIGHT,), 0))
        elif HALF[s] is not None:
            side, k, r = HALF[s], LINE_OF[s], RING_OF[s]
            if r < GATEWAY_RING:
                out.append((RAY_LINE, tuple(_outward(side, k, r + 1)), 0))
            inward = [sight_space(side, k, q) for q in range(r - 1, _innermost_ring(k) - 1, -1)]
            if k in IRIS_LINES:
                inward.append(IRIS_OF[side])
                n = len(inward)
                for path, skip in _across(side):
                    out.append((RAY_LINE, tuple(inward + path), 0 if skip == 0 else n + skip))
                out.append((RAY_FIRST_SIGHT, tuple(inward + [FIRST_SIGHT]), n))
            elif inward:
                out.append((RAY_LINE, tuple(inward), 0))
        elif name[0] == "h":
            letter, r = name[1], int(name[2])
            inward = [SPACE_IDS[f"h{letter}{q}"] for q in range(r - 1, 0, -1)]
            outward = [SPACE_IDS[f"h{letter}{q}"] for q in range(r + 1, 6)]
            for path in (inward, outward):
                if path:
                    out.append((RAY_HORIZON, tuple(path), 0))
        # rings
        r = RING_OF[s]
        if r is not None and r <= 5:
            loop = _ring_order(r)
            i = loop.index(s)
            n = len(loop)
            out.append((RAY_RING, tuple(loop[(i + d) % n] for d in range(1, n)), 0))
            out.append((RAY_RING, tuple(loop[(i - d) % n] for d in range(1, n)), 0))
        elif r is not None and r <= 8:
            arc = [sight_space(HALF[s], k, r) for k in LINES]
            i = arc.index(s)
            for path in (arc[i + 1 :], arc[:i][::-1]):
                if path:
                    out.append((RAY_RING, tuple(path), 0))
    return tuple(tuple(r) for r in rays)


#: RAYS[s] = ((kind, spaces, skip), ...): every straight path leaving s
RAYS = _build_rays()

# --- whole Sight Lines for Reflection and the Time push ---------------------------------


def _sight_line(k: int) -> tuple[int, ...]:
    """Sight Line k from White's Gateway to Black's, Iris spaces included."""
    white = [sight_space(WHITE, k, r) for r in range(GATEWAY_RING, _innermost_ring(k) - 1, -1)]
    black = [sight_space(BLACK, k, r) for r in range(_innermost_ring(k), GATEWAY_RING + 1)]
    middle = [WHITE_IRIS, BLACK_IRIS] if k in IRIS_LINES else []
    return tuple(white + middle + black)


SIGHT_LINES: dict[int, tuple[int, ...]] = {k: _sight_line(k) for k in LINES}
#: the Horizon taken as one line for Third Eye Reflection: hw5..hw1, he1..he5
HORIZON_LINE: tuple[int, ...] = tuple(
    [SPACE_IDS[f"hw{r}"] for r in range(5, 0, -1)] + [SPACE_IDS[f"he{r}"] for r in range(1, 6)]
)


def _line_neighbours(seq: tuple[int, ...], kinds: tuple[str, ...]) -> dict[int, tuple[int, ...]]:
    """For each space of a line, its neighbours along that line by real edges."""
    linked = {frozenset((a, b)) for a, b, kind in EDGES if kind in kinds}
    result = {}
    for i, s in enumerate(seq):
        near = []
        for j in (i - 1, i + 1):
            if 0 <= j < len(seq) and frozenset((s, seq[j])) in linked:
                near.append(seq[j])
        result[s] = tuple(near)
    return result


#: REFLECT_TARGETS[s]: where a Reflector on s can send a tower along its Sight
#: Line (the space in front of or behind it; never an Iris space)
REFLECT_TARGETS: dict[int, tuple[int, ...]] = {}
for _k, _seq in SIGHT_LINES.items():
    for _s, _near in _line_neighbours(_seq, (LINE_EDGE, IRIS_EDGE)).items():
        if _s not in IRIS:
            REFLECT_TARGETS[_s] = tuple(t for t in _near if t not in IRIS)
#: the same along the Horizon line (Third Eye)
HORIZON_REFLECT_TARGETS: dict[int, tuple[int, ...]] = _line_neighbours(HORIZON_LINE, (HORIZON_EDGE,))

#: LINE_POSITION[s] = (k, index of s in SIGHT_LINES[k]) for side and Iris spaces
LINE_POSITION: dict[int, tuple[int, int]] = {}
for _k, _seq in SIGHT_LINES.items():
    for _i, _s in enumerate(_seq):
        if _s not in IRIS:
            LINE_POSITION[_s] = (_k, _i)

#: PUSH_PATHS[(space, owner)]: spaces a Third Eye Time push may move a tower of
#: ``owner`` through, in order, back along its Sight Line toward owner's Gateways.
#: The path stops before the Iris and never crosses the gap of lines 2 and 4.
PUSH_PATHS: dict[tuple[int, str], tuple[int, ...]] = {}
for _s, (_k, _i) in LINE_POSITION.items():
    _seq = SIGHT_LINES[_k]
    _near = _line_neighbours(_seq, (LINE_EDGE,))
    for _owner, _step in ((BLACK, 1), (WHITE, -1)):
        _path: list[int] = []
        _cur, _j = _s, _i + _step
        while 0 <= _j < len(_seq) and _seq[_j] in _near[_cur] and _seq[_j] not in IRIS:
            _cur = _seq[_j]
            _path.append(_cur)
            _j += _step
        PUSH_PATHS[(_s, _owner)] = tuple(_path)


def draw(marks: dict[int, str] | None = None) -> str:
    """A text drawing of the board as White sees it: White at the bottom, west left.

    ``marks`` maps spaces to a short label to show instead of the space name.
    """
    marks = marks or {}
    blank = "    "

    def cell(s: int) -> str:
        return f"{marks.get(s, SPACE_NAMES[s]):>4}"

    def row(side: str, r: int) -> str:
        west = cell(SPACE_IDS[f"hw{r}"]) if r <= 5 else blank
        east = cell(SPACE_IDS[f"he{r}"]) if r <= 5 else blank
        order = LINES if side == WHITE else LINES[::-1]  # Black's line 1 is in the east
        middle = [cell(sight_space(side, k, r)) if r >= _innermost_ring(k) else blank for k in order]
        return " ".join([west, *middle, east])

    def centre(s: int) -> str:
        return " ".join([blank] * 3 + [cell(s)] + [blank] * 3)

    rows = [row(BLACK, r) for r in range(GATEWAY_RING, 0, -1)]
    rows += [centre(BLACK_IRIS), centre(FIRST_SIGHT), centre(WHITE_IRIS)]
    rows += [row(WHITE, r) for r in range(1, GATEWAY_RING + 1)]
    return "\n".join(rows)
