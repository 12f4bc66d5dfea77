"""Plane geometry of faces: board space outlines and the largest free area left for text and pictures."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from scoring.markers import outline_polygon
from scoring.model import Shape, Space

Outline = tuple[tuple[float, float], ...]


def space_outline(space: Space) -> Outline:
    """A board space's printed outline in face mm, clockwise (y down).

    Rectangles are ``w_mm x h_mm`` around the centre; a hex slot is the flat-top hexagon
    ``w_mm`` across corners and ``h_mm`` across flats; a round space is its inscribed ellipse
    (as a 48-gon). Every outline lies inside the space's ``w_mm x h_mm`` box.
    """
    w, h = space.w_mm, space.h_mm
    x0, y0 = space.x_mm - w / 2, space.y_mm - h / 2
    if space.shape is Shape.HEX:
        unit = ((0.25, 0.0), (0.75, 0.0), (1.0, 0.5), (0.75, 1.0), (0.25, 1.0), (0.0, 0.5))
    elif space.shape is Shape.ROUND:
        unit = tuple(
            (0.5 + 0.5 * math.cos(2 * math.pi * i / 48), 0.5 + 0.5 * math.sin(2 * math.pi * i / 48)) for i in range(48)
        )
    else:
        unit = ((0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0))
    return tuple((x0 + u * w, y0 + v * h) for u, v in unit)


def boxes_touch_outline(
    outline: Sequence[tuple[float, float]], x0: np.ndarray, y0: np.ndarray, x1: np.ndarray, y1: np.ndarray
) -> np.ndarray:
    """Whether each box ``[x0, x1] x [y0, y1]`` overlaps the convex ``outline`` (touching edges do not count).

    Separating-axis test over the box axes and every edge normal of the outline, vectorised
    over the boxes.
    """
    pts = np.asarray(outline, dtype=np.float64)
    x0, y0, x1, y1 = (np.asarray(v, dtype=np.float64) for v in (x0, y0, x1, y1))
    eps = 1e-9
    hit = (x1 > pts[:, 0].min() + eps) & (x0 < pts[:, 0].max() - eps)
    hit &= (y1 > pts[:, 1].min() + eps) & (y0 < pts[:, 1].max() - eps)
    for i in range(len(pts)):
        ex, ey = pts[(i + 1) % len(pts)] - pts[i]
        nx, ny = -ey, ex
        norm = math.hypot(nx, ny)
        if norm == 0:
            continue
        nx, ny = nx / norm, ny / norm
        proj = pts[:, 0] * nx + pts[:, 1] * ny
        lo = np.minimum(x0 * nx, x1 * nx) + np.minimum(y0 * ny, y1 * ny)
        hi = np.maximum(x0 * nx, x1 * nx) + np.maximum(y0 * ny, y1 * ny)
        hit &= (hi > proj.min() + eps) & (lo < proj.max() - eps)
    return hit


def _inside_grid(shape: Shape, w: float, h: float, xs: np.ndarray, ys: np.ndarray, margin: float) -> np.ndarray:
    """Vectorised ``inside_face`` over the points ``(xs, ys)``."""
    if shape is Shape.ROUND:
        a, b = max(w / 2 - margin, 1e-6), max(h / 2 - margin, 1e-6)
        return ((xs - w / 2) / a) ** 2 + ((ys - h / 2) / b) ** 2 <= 1
    poly = outline_polygon(shape, w, h)
    ok = (xs >= margin) & (xs <= w - margin) & (ys >= margin) & (ys <= h - margin)
    if poly is None:
        return ok
    for i in range(len(poly)):
        (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % len(poly)]
        ex, ey = x2 - x1, y2 - y1
        ok &= (ex * (ys - y1) - ey * (xs - x1)) / math.hypot(ex, ey) >= margin
    return ok


def largest_free_rect(
    w: float,
    h: float,
    blocked: Sequence[tuple[float, float, float, float]],
    shape: Shape,
    *,
    margin: float,
    outlines: Sequence[Outline] = (),
    min_w: float = 0.0,
    min_h: float = 0.0,
) -> tuple[float, float, float, float]:
    """The largest axis-aligned rectangle ``(x, y, w, h)`` of the face clear of ``blocked`` and the outline.

    ``outlines`` are further convex keep-out areas (board spaces), taken at their real shape;
    rectangles narrower than ``min_w`` or lower than ``min_h`` do not count (a board's title
    wants a wide band with room for a few lines).
    """
    cell = max(1.5, max(w, h) / 50)
    cols, rows = max(1, int(w / cell)), max(1, int(h / cell))
    gx, gy = np.meshgrid(np.arange(cols) * cell, np.arange(rows) * cell)
    free = np.ones((rows, cols), dtype=bool)
    for dx in (0.0, cell):
        for dy in (0.0, cell):
            free &= _inside_grid(shape, w, h, gx + dx, gy + dy, margin)
    for bx, by, bw, bh in blocked:
        c0 = max(0, int(math.floor((bx - margin) / cell)))
        c1 = min(cols, int(math.ceil((bx + bw + margin) / cell)))
        r0 = max(0, int(math.floor((by - margin) / cell)))
        r1 = min(rows, int(math.ceil((by + bh + margin) / cell)))
        free[r0:r1, c0:c1] = False
    for outline in outlines:
        free &= ~boxes_touch_outline(outline, gx - margin, gy - margin, gx + cell + margin, gy + cell + margin)
    best_area = 0
    best = (0.0, 0.0, 0.0, 0.0)
    heights = np.zeros(cols, dtype=int)
    for r in range(rows):
        heights = np.where(free[r], heights + 1, 0)
        hs = [int(v) for v in heights] + [0]
        stack: list[int] = []
        for c, hgt in enumerate(hs):
            while stack and hs[stack[-1]] >= hgt:
                top = stack.pop()
                left = stack[-1] + 1 if stack else 0
                area = hs[top] * (c - left)
                if area > best_area and (c - left) * cell >= min_w and hs[top] * cell >= min_h:
                    best_area = area
                    best = (left * cell, (r - hs[top] + 1) * cell, (c - left) * cell, hs[top] * cell)
            stack.append(c)
    return best


