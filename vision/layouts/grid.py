"""Helpers shared by grid layouts: cells, turns, board spaces, groups of faces."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from scoring.model import Component

from ..errors import LayoutError
from .base import Located, TablePose

# -- helpers shared by grid layouts ---------------------------------------------------------


def grid_cell(offset: np.ndarray, pitch: tuple[float, float]) -> tuple[tuple[int, int], float]:
    """Nearest grid cell of an offset (mm, already in the grid's axes) and how far off it is (0..0.5 of a pitch)."""
    gx, gy = offset[0] / pitch[0], offset[1] / pitch[1]
    cx, cy = round(gx), round(gy)
    return (int(cx), int(cy)), float(max(abs(gx - cx), abs(gy - cy)))


def rotate(v: np.ndarray, angle_deg: float) -> np.ndarray:
    """Rotate a vector clockwise (y down) by an angle in degrees."""
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def cell_fit(error: float) -> float:
    """Confidence 1 at a cell's centre falling to 0 at its border (half a pitch off)."""
    return max(0.0, 1.0 - max(0.0, error - 0.15) / 0.35)


def space_at(board: Located, table_xy: np.ndarray) -> str | None:
    """Name of the board space under a table point (the board's spaces are printed on its face)."""
    f = board.to_face(np.asarray(table_xy, float).reshape(1, 2))[0]
    best: tuple[float, str] | None = None
    for s in board.component.spaces:
        dx, dy = abs(f[0] - s.x_mm), abs(f[1] - s.y_mm)
        if dx <= s.w_mm / 2 and dy <= s.h_mm / 2:
            d = dx / s.w_mm + dy / s.h_mm
            if best is None or d < best[0]:
                best = (d, s.name)
    return None if best is None else best[1]


def space_pose(board_pose: TablePose, board: Component, space_name: str, offset: tuple[float, float] = (0.0, 0.0)) -> TablePose:
    """Table pose of something lying on a board space (for arranging scenes)."""
    w, h = board.size_mm
    for s in board.spaces:
        if s.name == space_name:
            v = rotate(np.array([s.x_mm - w / 2 + offset[0], s.y_mm - h / 2 + offset[1]]), board_pose.angle_deg)
            return TablePose(board_pose.x_mm + float(v[0]), board_pose.y_mm + float(v[1]), board_pose.angle_deg)
    raise LayoutError(f"{board.id} has no space {space_name!r}")


def connected_groups(items: list[Located], reach_mm: float) -> list[list[int]]:
    """Groups of components whose centres chain together within ``reach_mm`` (4-neighbours on a grid)."""
    n = len(items)
    if n == 0:
        return []
    centres = np.array([c.centre_mm for c in items])
    near = (np.linalg.norm(centres[:, None] - centres[None], axis=2) < reach_mm).tolist()
    seen = [False] * n
    out: list[list[int]] = []
    for i in range(n):
        if seen[i]:
            continue
        stack, group = [i], []
        seen[i] = True
        while stack:
            k = stack.pop()
            group.append(k)
            for j, close in enumerate(near[k]):
                if close and not seen[j]:
                    seen[j] = True
                    stack.append(j)
        out.append(sorted(group))
    return out


def cell_centre(frame: tuple[np.ndarray, float, float], cell: tuple[int, int]) -> tuple[float, float]:
    """Table millimetres of a grid cell's centre (the grid's origin, clockwise angle and pitch):
    where a face lying in that cell has its centre."""
    origin, angle, pitch = frame
    a = math.radians(angle)
    c, s = math.cos(a), math.sin(a)
    vx, vy = float(cell[0]) * pitch, float(cell[1]) * pitch
    return float(origin[0]) + (c * vx - s * vy), float(origin[1]) + (s * vx + c * vy)


def cell_polygon(frame: tuple[np.ndarray, float, float], cell: tuple[int, int], half_mm: tuple[float, float]) -> np.ndarray:
    """(4, 2) table corners of a rectangle of half-sides ``half_mm`` centred on a grid cell
    (the grid's origin, clockwise angle and pitch): where a texture probe looks for a face."""
    return cell_polygons(frame, [cell], half_mm)[0]


def cell_polygons(
    frame: tuple[np.ndarray, float, float], cells: Sequence[tuple[int, int]], half_mm: tuple[float, float]
) -> np.ndarray:
    """(n, 4, 2) ``cell_polygon`` of many cells, in a few array operations (the same numbers)."""
    origin, angle, pitch = frame
    a = math.radians(angle)
    c, s = math.cos(a), math.sin(a)
    v = np.array(cells, float).reshape(-1, 2) * pitch
    x = float(origin[0]) + (c * v[:, 0] - s * v[:, 1])
    y = float(origin[1]) + (s * v[:, 0] + c * v[:, 1])
    w, h = half_mm
    d = np.array([(-w, -h), (w, -h), (w, h), (-w, h)], float)
    return np.stack([(c * d[:, 0] - s * d[:, 1]) + x[:, None], (s * d[:, 0] + c * d[:, 1]) + y[:, None]], axis=2)
