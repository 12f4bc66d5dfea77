"""Face geometry the stages share: quads measured on the table, points on located faces."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np

from scoring.model import Component

from .identify import Catalog, Mark
from .layouts import Located


def quad_measures(pts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sides (n, 4) and diagonals (n,), (n,) of table quads (n, 4, 2); NaN, without a warning,
    for a quad with a corner beyond the table's horizon."""
    with np.errstate(invalid="ignore"):
        sides = np.linalg.norm(pts - np.roll(pts, -1, axis=1), axis=2)
        return sides, np.linalg.norm(pts[:, 0] - pts[:, 2], axis=1), np.linalg.norm(pts[:, 1] - pts[:, 3], axis=1)


def rectangles(
    pts: np.ndarray, sides: np.ndarray, d1: np.ndarray, d2: np.ndarray, tolerance: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Which quads (table corners (n, 4, 2), their sides and diagonals) are rectangles (opposite
    sides within ``tolerance``, diagonals within 10 %), with their mean short and long sides.
    A quad beyond the table's horizon has no shape: never a rectangle, and no numpy warning."""
    with np.errstate(invalid="ignore"):
        a, b = (sides[:, 0] + sides[:, 2]) / 2, (sides[:, 1] + sides[:, 3]) / 2
        rectangle = (np.abs(sides[:, 0] - sides[:, 2]) <= tolerance * a) & (np.abs(sides[:, 1] - sides[:, 3]) <= tolerance * b)
        rectangle &= (np.abs(d1 - d2) <= 0.1 * np.maximum(d1, d2)) & np.isfinite(pts).all(axis=(1, 2))
        return rectangle, np.minimum(a, b), np.maximum(a, b)


@cache
def space_table(component: Component) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A board's spaces as arrays (centres, half sizes, longer sides), built once per component:
    a frame checks every undecoded quad against every space of every board."""
    spaces = component.spaces
    return (
        np.array([[sp.x_mm, sp.y_mm] for sp in spaces], float).reshape(-1, 2),
        np.array([[sp.w_mm / 2, sp.h_mm / 2] for sp in spaces], float).reshape(-1, 2),
        np.array([max(sp.w_mm, sp.h_mm) for sp in spaces], float),
    )


def on_faces(located: Sequence[Located], points: np.ndarray) -> np.ndarray:
    """(m, n, 2) table points (n, 2) in each located face's own millimetres, all faces at once."""
    inv = np.linalg.inv(np.stack([loc.face_to_table for loc in located]))  # (m, 3, 3)
    q = np.einsum("mij,nj->mni", inv, np.c_[points, np.ones(len(points))])
    return q[..., :2] / q[..., 2:3]


def own_marks(catalog: Catalog, component: Component) -> list[Mark]:
    """The markers printed on a component's face: its tag, its QR code and its anchors."""
    marks = [catalog.by_tag.get(component.tag), catalog.qr_marks.get(component.id)]
    marks += [catalog.by_tag.get(a.tag) for a in component.anchors]
    return [m for m in marks if m is not None and m.component.id == component.id]


def covered_points(points: np.ndarray, located: Sequence[Located]) -> np.ndarray:
    """Which table points lie on a located face that holds no spaces (not a board or a tile
    with slots: those are where the points lie)."""
    others = [loc for loc in located if not loc.component.spaces]
    if not others or not len(points):
        return np.zeros(len(points), bool)
    face = on_faces(others, points)  # (m, n, 2)
    size = np.array([loc.component.size_mm for loc in others], float)[:, None, :]
    return ((face >= 0) & (face <= size)).all(axis=2).any(axis=0)


NEXT_CORNER = [1, 2, 3, 0]


def holds_any(quads: np.ndarray, points: np.ndarray, *, each: bool = False) -> np.ndarray:
    """Whether each convex quad (k, 4, 2) holds any of the points (n, 2), its border included;
    with ``each``, the (n, k) table of which point lies in which quad."""
    edge = quads[:, NEXT_CORNER] - quads  # (k, 4, 2)
    rel = points[:, None, None, :] - quads[None]  # (n, k, 4, 2)
    cross = edge[None, ..., 0] * rel[..., 1] - edge[None, ..., 1] * rel[..., 0]  # (n, k, 4)
    inside = (cross >= 0).all(axis=2) | (cross <= 0).all(axis=2)  # (n, k)
    return inside if each else inside.any(axis=0)
