"""Comparing a recognised board state with a rendered scene's truth (board-anchored games)."""

from __future__ import annotations

from dataclasses import dataclass, field

from scoring.model import BoardState, Placement


def where(p: Placement) -> tuple[object, ...]:
    """Everything a placement says about a component's place."""
    return (p.area, p.cell, p.rotation, p.face_up, p.on, p.slot)


@dataclass
class Verdict:
    """How a recognised state compares with the truth of its scene."""

    right: list[str] = field(default_factory=list)
    wrong: list[tuple[str, object, object]] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    """In view but not read."""
    stray: list[str] = field(default_factory=list)
    """Read but on no place of the state (a component that is not on the table)."""


def judge(truth: BoardState, whole: BoardState, got: BoardState, hidden: tuple[str, ...]) -> Verdict:
    """Right, wrong, missed and stray components; partly hidden ones may be read, but then rightly."""
    want = {p.component: where(p) for p in truth.placements}
    full = {p.component: where(p) for p in whole.placements}
    v = Verdict()
    seen = set()
    for p in got.placements:
        seen.add(p.component)
        expected = want.get(p.component)
        if expected is None and p.component in hidden:
            expected = full.get(p.component)
        if expected is None:
            v.stray.append(p.component)
        elif expected == where(p):
            v.right.append(p.component)
        else:
            v.wrong.append((p.component, expected, where(p)))
    v.missed = sorted(c for c in want if c not in seen)
    return v


def located(game_id: str, component_id: str, x_mm: float, y_mm: float, angle_deg: float = 0.0):  # noqa: ANN201
    """A component lying centred at a table point, turned clockwise, as stages 1-4 would hand it over."""
    import math

    import numpy as np

    from scoring import find_game
    from scoring.payload import encode
    from vision.layouts import Located

    comp = find_game(game_id).component_index[component_id]  # type: ignore[attr-defined]
    w, h = comp.size_mm
    a = math.radians(angle_deg)
    m = np.array([[math.cos(a), -math.sin(a), 0.0], [math.sin(a), math.cos(a), 0.0], [0.0, 0.0, 1.0]])
    centre = m[:2, :2] @ np.array([w / 2, h / 2])
    m[0, 2], m[1, 2] = x_mm - centre[0], y_mm - centre[1]
    outline = np.array([[0, 0], [w, 0], [w, h], [0, h]], float)
    return Located(comp, encode(game_id, comp.id), m, outline, "tag")


def on_face(board, x_mm: float, y_mm: float) -> tuple[float, float]:  # noqa: ANN001
    """Table position of a point of a located board's face."""
    p = board.face_point(x_mm, y_mm)
    return float(p[0]), float(p[1])
