"""Our own vector pictograms: species, terrains, plants, landscapes and a few signs.

Each icon is a few filled polygons in a unit square (y down), so the PDF and the raster back
end draw it alike (``Poly`` items) and it stays crisp at any size. The pictures are simple
on purpose: a silhouette a child can name from across the table, always printed next to the
word, and in the thing's own colour where it has one. No third-party art is used.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from .items import BLACK, WHITE, Item, Poly, ink_on, shade

Pt = tuple[float, float]
#: One part of an icon: its outline in the unit square and its paint ("fill", "ink" or "light").
Part = tuple[tuple[Pt, ...], str]


def ellipse(cx: float, cy: float, rx: float, ry: float, *, turn_deg: float = 0.0, n: int = 28) -> tuple[Pt, ...]:
    """An ellipse as an ``n``-gon, turned ``turn_deg`` clockwise."""
    a = math.radians(turn_deg)
    ca, sa = math.cos(a), math.sin(a)
    pts = []
    for i in range(n):
        t = 2 * math.pi * i / n
        x, y = rx * math.cos(t), ry * math.sin(t)
        pts.append((cx + x * ca - y * sa, cy + x * sa + y * ca))
    return tuple(pts)


def star(cx: float, cy: float, outer: float, inner: float, points: int = 5, turn_deg: float = -90.0) -> tuple[Pt, ...]:
    out = []
    for i in range(2 * points):
        r = outer if i % 2 == 0 else inner
        t = math.radians(turn_deg) + math.pi * i / points
        out.append((cx + r * math.cos(t), cy + r * math.sin(t)))
    return tuple(out)


def _monkey() -> list[Part]:
    return [
        (ellipse(0.2, 0.42, 0.13, 0.13), "ink"), (ellipse(0.8, 0.42, 0.13, 0.13), "ink"),
        (ellipse(0.5, 0.5, 0.34, 0.36), "ink"), (ellipse(0.5, 0.6, 0.24, 0.2), "light"),
        (ellipse(0.38, 0.43, 0.05, 0.06), "ink"), (ellipse(0.62, 0.43, 0.05, 0.06), "ink"),
        (ellipse(0.5, 0.66, 0.1, 0.04), "ink"),
    ]


def _frog() -> list[Part]:
    return [
        (ellipse(0.5, 0.62, 0.42, 0.27), "ink"),
        (ellipse(0.28, 0.34, 0.13, 0.13), "ink"), (ellipse(0.72, 0.34, 0.13, 0.13), "ink"),
        (ellipse(0.28, 0.34, 0.07, 0.07), "light"), (ellipse(0.72, 0.34, 0.07, 0.07), "light"),
        (ellipse(0.5, 0.7, 0.22, 0.04), "light"),
    ]


def _butterfly() -> list[Part]:
    return [
        (ellipse(0.3, 0.33, 0.2, 0.22, turn_deg=-20), "ink"), (ellipse(0.7, 0.33, 0.2, 0.22, turn_deg=20), "ink"),
        (ellipse(0.33, 0.7, 0.15, 0.16, turn_deg=20), "ink"), (ellipse(0.67, 0.7, 0.15, 0.16, turn_deg=-20), "ink"),
        (ellipse(0.3, 0.33, 0.09, 0.1), "light"), (ellipse(0.7, 0.33, 0.09, 0.1), "light"),
        (ellipse(0.5, 0.52, 0.05, 0.36), "ink"),
    ]


def _parrot() -> list[Part]:
    return [
        (((0.45, 0.7), (0.6, 0.72), (0.5, 0.98), (0.38, 0.96)), "ink"),
        (ellipse(0.52, 0.5, 0.2, 0.3, turn_deg=15), "ink"),
        (ellipse(0.5, 0.24, 0.17, 0.16), "ink"),
        (((0.62, 0.16), (0.86, 0.26), (0.64, 0.36)), "ink"),
        (ellipse(0.5, 0.22, 0.05, 0.05), "light"),
        (ellipse(0.46, 0.52, 0.1, 0.2, turn_deg=15), "light"),
    ]


def _waves() -> list[Part]:
    parts: list[Part] = []
    for k, y in enumerate((0.3, 0.55, 0.8)):
        top = [(i / 16, y - 0.08 * math.sin(i / 16 * 2 * math.pi * 2 + k)) for i in range(17)]
        parts.append((tuple(top + [(x, yy + 0.12) for x, yy in reversed(top)]), "ink"))
    return parts


def _tree() -> list[Part]:
    return [
        (((0.44, 0.72), (0.56, 0.72), (0.56, 0.96), (0.44, 0.96)), "ink"),
        (((0.5, 0.04), (0.8, 0.42), (0.2, 0.42)), "ink"),
        (((0.5, 0.24), (0.88, 0.76), (0.12, 0.76)), "ink"),
    ]


def _mountain() -> list[Part]:
    return [
        (((0.0, 0.92), (0.38, 0.18), (0.76, 0.92)), "ink"),
        (((0.4, 0.92), (0.7, 0.4), (1.0, 0.92)), "ink"),
        (((0.38, 0.18), (0.5, 0.41), (0.42, 0.36), (0.36, 0.44), (0.3, 0.35), (0.26, 0.41)), "light"),
    ]


def _desert() -> list[Part]:
    dune = [(i / 20, 0.95 - 0.32 * math.sin(math.pi * i / 20)) for i in range(21)]
    return [(ellipse(0.7, 0.28, 0.17, 0.17), "ink"), (tuple(dune + [(1.0, 0.97), (0.0, 0.97)]), "ink")]


def _snowflake() -> list[Part]:
    parts: list[Part] = []
    for a in (0, 60, 120):
        t = math.radians(a)
        dx, dy = 0.45 * math.cos(t), 0.45 * math.sin(t)
        nx, ny = -0.06 * math.sin(t), 0.06 * math.cos(t)
        parts.append((((0.5 - dx + nx, 0.5 - dy + ny), (0.5 + dx + nx, 0.5 + dy + ny),
                       (0.5 + dx - nx, 0.5 + dy - ny), (0.5 - dx - nx, 0.5 - dy - ny)), "ink"))
    parts.append((ellipse(0.5, 0.5, 0.12, 0.12, n=6), "light"))
    return parts


def _grass() -> list[Part]:
    blades = [((0.1, 0.95), (0.22, 0.3), (0.3, 0.95)), ((0.3, 0.95), (0.45, 0.08), (0.58, 0.95)),
              ((0.55, 0.95), (0.75, 0.25), (0.8, 0.95)), ((0.75, 0.95), (0.95, 0.45), (0.95, 0.95))]
    return [(b, "ink") for b in blades]


def _joker() -> list[Part]:
    return [(ellipse(0.5, 0.5, 0.46, 0.46), "ink"), (star(0.5, 0.52, 0.36, 0.15), "light")]


def _flower(petals: int, petal: float, centre: float) -> Callable[[], list[Part]]:
    def draw() -> list[Part]:
        parts: list[Part] = []
        for i in range(petals):
            a = 360 * i / petals - 90
            t = math.radians(a)
            parts.append((ellipse(0.5 + 0.24 * math.cos(t), 0.5 + 0.24 * math.sin(t), petal, petal * 0.6,
                                  turn_deg=a), "fill"))
        parts.append((ellipse(0.5, 0.5, centre, centre), "ink"))
        return parts

    return draw


def _leaf(width: float, turn: float = -35) -> Callable[[], list[Part]]:
    def draw() -> list[Part]:
        return [(ellipse(0.5, 0.5, 0.46, width, turn_deg=turn), "fill"),
                (ellipse(0.5, 0.5, 0.4, 0.025, turn_deg=turn), "ink")]

    return draw


def _fern() -> list[Part]:
    parts: list[Part] = [(((0.48, 0.05), (0.52, 0.05), (0.53, 0.97), (0.47, 0.97)), "ink")]
    for i in range(5):
        y = 0.18 + i * 0.16
        w = 0.38 - i * 0.04
        parts.append((ellipse(0.5 - w / 2, y, w / 2, 0.06, turn_deg=20), "fill"))
        parts.append((ellipse(0.5 + w / 2, y, w / 2, 0.06, turn_deg=-20), "fill"))
    return parts


def _vine() -> list[Part]:
    parts: list[Part] = []
    for i in range(4):
        y = 0.16 + i * 0.23
        x = 0.38 if i % 2 else 0.62
        parts.append((ellipse(x, y, 0.2, 0.1, turn_deg=-30 if i % 2 else 30), "fill"))
    parts.append((((0.47, 0.02), (0.53, 0.02), (0.53, 0.98), (0.47, 0.98)), "ink"))
    return parts


def _fruit(rx: float, ry: float, turn: float) -> Callable[[], list[Part]]:
    def draw() -> list[Part]:
        return [(ellipse(0.5, 0.56, rx, ry, turn_deg=turn), "fill"),
                (((0.48, 0.06), (0.56, 0.06), (0.54, 0.24), (0.5, 0.24)), "ink"),
                (ellipse(0.66, 0.14, 0.14, 0.06, turn_deg=-20), "ink")]

    return draw


def _bromeliad() -> list[Part]:
    return [(((0.5 + 0.44 * math.cos(math.radians(a)), 0.9 + 0.8 * math.sin(math.radians(a))),
              (0.5 + 0.08 * math.cos(math.radians(a + 90)), 0.92), (0.5 - 0.08 * math.cos(math.radians(a + 90)), 0.92)),
             "fill") for a in (-165, -135, -110, -90, -70, -45, -15)]


def _pitcher() -> list[Part]:
    cup = ((0.3, 0.3), (0.7, 0.3), (0.74, 0.8), (0.6, 0.96), (0.4, 0.96), (0.26, 0.8))
    return [(cup, "fill"), (ellipse(0.5, 0.3, 0.22, 0.07), "ink"), (((0.62, 0.05), (0.9, 0.15), (0.68, 0.26)), "fill")]


def _arrow() -> list[Part]:
    return [(((0.5, 0.02), (0.95, 0.5), (0.66, 0.5), (0.66, 0.98), (0.34, 0.98), (0.34, 0.5), (0.05, 0.5)), "ink")]


def _binoculars() -> list[Part]:
    return [(ellipse(0.27, 0.62, 0.22, 0.24), "ink"), (ellipse(0.73, 0.62, 0.22, 0.24), "ink"),
            (((0.4, 0.3), (0.6, 0.3), (0.6, 0.55), (0.4, 0.55)), "ink"),
            (ellipse(0.27, 0.62, 0.12, 0.13), "light"), (ellipse(0.73, 0.62, 0.12, 0.13), "light")]


def _shield() -> list[Part]:
    outline = ((0.12, 0.1), (0.88, 0.1), (0.88, 0.5), (0.5, 0.96), (0.12, 0.5))
    return [(outline, "ink"), (_tree_small(), "light")]


def _tree_small() -> tuple[Pt, ...]:
    return ((0.5, 0.2), (0.72, 0.55), (0.56, 0.55), (0.56, 0.75), (0.44, 0.75), (0.44, 0.55), (0.28, 0.55))


def _score() -> list[Part]:
    return [(star(0.5, 0.52, 0.48, 0.2), "ink")]


ICONS: dict[str, Callable[[], list[Part]]] = {
    "monkey": _monkey, "frog": _frog, "butterfly": _butterfly, "parrot": _parrot,
    "ocean": _waves, "water": _waves, "forest": _tree, "mountain": _mountain, "desert": _desert, "dryland": _desert,
    "glacier": _snowflake, "grassland": _grass, "joker": _joker,
    "orchid": _flower(5, 0.2, 0.1), "meranti_flower": _flower(6, 0.14, 0.13), "hibiscus": _flower(5, 0.24, 0.07),
    "meranti_leaf": _leaf(0.16), "broad_leaf": _leaf(0.3, -10), "fern": _fern, "vine": _vine,
    "fig": _fruit(0.3, 0.32, 0), "mango": _fruit(0.26, 0.36, 30), "bromeliad": _bromeliad, "pitcher_plant": _pitcher,
    "arrow": _arrow, "binoculars": _binoculars, "protected": _shield, "score": _score,
}


def icon(name: str, x: float, y: float, size: float, colour: str, *, on: str = WHITE) -> tuple[Item, ...]:
    """The named icon in the ``size`` square at ``(x, y)``: drawn in ``colour`` on a background ``on``.

    "ink" parts take the thing's colour (black where that colour would not show on ``on``),
    "fill" parts the colour itself, "light" parts the background, so details stay visible.
    """
    draw = ICONS.get(name)
    if draw is None:
        return ()
    ink = colour if _contrast(colour, on) else ink_on(on)
    paints = {"ink": ink, "fill": colour, "light": on}
    edge = BLACK if ink_on(on) == BLACK else WHITE
    out: list[Item] = []
    for pts, role in draw():
        stroke = edge if role == "fill" else None
        out.append(Poly(tuple((x + px * size, y + py * size) for px, py in pts), fill=paints[role], stroke=stroke,
                        line_mm=max(0.12, size * 0.02)))
    return tuple(out)


def _contrast(a: str, b: str) -> bool:
    from .items import luminance

    return abs(luminance(a) - luminance(b)) > 0.25


def disc(cx: float, cy: float, r: float, fill: str, stroke: str | None = None, line_mm: float = 0.25) -> Poly:
    return Poly(ellipse(cx, cy, r, r, n=36), fill=fill, stroke=stroke, line_mm=line_mm)


def badge(name: str, cx: float, cy: float, r: float, colour: str) -> tuple[Item, ...]:
    """A round badge: the thing's colour as a disc with its icon in a light ring, readable on any face."""
    light = shade(colour, 1.75)
    return (disc(cx, cy, r, light, BLACK, max(0.15, r * 0.06)),
            *icon(name, cx - r * 0.68, cy - r * 0.68, r * 1.36, colour, on=light))


def polygon_names() -> Sequence[str]:
    """Every icon name (documentation and tests list them)."""
    return tuple(ICONS)
