"""An SVG drawing of the board with every space id, from the board's geometry (``host.board.geometry``).

Used for hardware/board.svg and for the heat map of ``quin doctor``.
"""

from __future__ import annotations

from html import escape

from engine.board import EDGES, IS_HORIZON, RING_OF, SPACE_NAMES
from host.board.geometry import polar_xy

UNIT = 34.0  # pixels between rings
IRIS_RADIUS = 0.95
SIZE = 2 * (10 + 0.7) * UNIT  # the board square: ring 9 sits at radius 10
TOP = 48.0  # room for the title above the board
SPACE_R = 0.42 * UNIT


def position(space: int) -> tuple[float, float]:
    """(x, y) in board units, x east, y north, First Sight at the origin."""
    return polar_xy(space, lambda ring: 1.0 + ring, IRIS_RADIUS)


def _xy(space: int) -> tuple[float, float]:
    x, y = position(space)
    return (SIZE / 2 + x * UNIT, TOP + SIZE / 2 - y * UNIT)


def board_svg(
    labels: dict[int, list[str]] | None = None,
    fills: dict[int, str] | None = None,
    title: str = "Quin board: space ids",
    legend: list[str] | None = None,
) -> str:
    """The board as SVG text.  ``labels[s]`` lines under the space name; ``fills[s]`` its colour."""
    labels = labels or {}
    fills = fills or {}
    c = SIZE / 2
    cy = TOP + SIZE / 2
    height = TOP + SIZE + 16 + 14 * len(legend or [])
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{SIZE:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {SIZE:.0f} {height:.0f}" font-family="sans-serif">',
        f"<title>{escape(title)}</title>",
        '<rect width="100%" height="100%" fill="#fbf8f1"/>',
        f'<text x="10" y="22" font-size="15" font-weight="bold">{escape(title)}</text>',
        f'<text x="10" y="{TOP + 6:.1f}" font-size="12">Black (north)</text>',
        f'<text x="10" y="{TOP + SIZE - 4:.1f}" font-size="12">White (south)</text>',
    ]
    for ring in range(1, 10):
        out.append(f'<circle cx="{c:.1f}" cy="{cy:.1f}" r="{(1 + ring) * UNIT:.1f}" fill="none" stroke="#c9bfa8" stroke-width="1"/>')
    for a, b, _kind in EDGES:
        (x1, y1), (x2, y2) = _xy(a), _xy(b)
        if RING_OF[a] is not None and RING_OF[a] == RING_OF[b] and not (IS_HORIZON[a] and IS_HORIZON[b]):
            continue  # ring steps follow the circles already drawn
        out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="#8c8270" stroke-width="1.5"/>')
    for s, name in enumerate(SPACE_NAMES):
        x, y = _xy(s)
        fill = fills.get(s, "#ffffff")
        out.append(f'<g id="space-{escape(name)}">')
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{SPACE_R:.1f}" fill="{fill}" stroke="#3d3729" stroke-width="1.2"/>')
        lines = [name] + list(labels.get(s, []))
        top = y - 4.5 * (len(lines) - 1)
        for i, text in enumerate(lines):
            weight = ' font-weight="bold"' if i == 0 else ""
            size = 9.5 if i == 0 else 8
            out.append(
                f'<text x="{x:.1f}" y="{top + 9 * i + 3:.1f}" font-size="{size}" text-anchor="middle"{weight}>{escape(text)}</text>'
            )
        out.append("</g>")
    for i, text in enumerate(legend or []):
        out.append(f'<text x="10" y="{TOP + SIZE + 12 + 14 * i:.1f}" font-size="11">{escape(text)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
