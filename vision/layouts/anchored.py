"""Helpers shared by the board-anchored layouts (Biomos, Rainforest, BIOME Borneo).

A board is located from its anchor tags (or its own tag and QR code) by stages 1-4, so
its ``Located.face_to_table`` already maps the printed board face onto the table. These
helpers answer the questions every board game asks of that pose: which face a point lies
on, which named space, how far outside a face something lies, and who sits at a board.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from scoring.model import Component, Player, Shape, Space

from ..errors import LayoutError
from ..plane import apply_homography
from ..problems import ProblemCode
from . import Located, Problem, TablePose, TableView, rotate, wrap_degrees

#: A point this far (as a fraction of a space's half size) from a space's centre is too close
#: to its border to be trusted: it is reported, not guessed.
SPACE_TRUST = 0.85


@dataclass(frozen=True, slots=True)
class SpaceHit:
    """A named space under a point and how squarely the point sits in it (0 centre .. 1 border)."""

    space: Space
    offset: float


def table_to_face(loc: Located) -> np.ndarray:
    """A located face's table -> face transform (read-only). Layouts ask hundreds of times per
    frame which face a point lies on: each pose is inverted once, not at every question."""
    return _inverse(_pose_key(loc))


def _pose_key(loc: Located) -> bytes:
    key = loc._pose_bytes
    if key is None:
        key = np.ascontiguousarray(loc.face_to_table, np.float64).tobytes()
        object.__setattr__(loc, "_pose_bytes", key)  # a cache of the fixed pose, not a change
    return key


@lru_cache(maxsize=1024)
def _inverse(matrix: bytes) -> np.ndarray:
    out = np.linalg.inv(np.frombuffer(matrix, np.float64).reshape(3, 3))
    out.setflags(write=False)
    return out


@lru_cache(maxsize=1024)
def _floats(matrix: bytes, inverse: bool) -> tuple[float, ...]:
    return tuple((_inverse(matrix) if inverse else np.frombuffer(matrix, np.float64)).ravel().tolist())


def _map(m: tuple[float, ...], x: float, y: float) -> tuple[float, float]:
    a, b, c, d, e, f, g, h, i = m
    w = g * x + h * y + i
    return (a * x + b * y + c) / w, (d * x + e * y + f) / w


def table_points(loc: Located, face_mm: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
    """Points of a located face in table millimetres, in plain floats: a handful of points
    costs less than one array round trip (equal to ``Located.face_point`` up to rounding)."""
    m = _floats(_pose_key(loc), False)
    return [_map(m, x, y) for x, y in face_mm]


def table_squares(places: Sequence[tuple[Located, float, float, float]]) -> np.ndarray:
    """(n, 4, 2) table corners of squares on located faces, each (face, x, y, half side) in
    face millimetres, clockwise from the top-left: ``table_points`` of each square's corners,
    to the bit (the same plain-float steps, one array operation per face)."""
    out = np.empty((len(places), 4, 2))
    by_face: dict[int, list[int]] = {}
    for i, (loc, _, _, _) in enumerate(places):
        by_face.setdefault(id(loc), []).append(i)
    for rows in by_face.values():
        a, b, c, d, e, f, g, h, k = _floats(_pose_key(places[rows[0]][0]), False)
        xyh = np.array([places[i][1:] for i in rows], float)
        x, y, half = xyh[:, 0:1], xyh[:, 1:2], xyh[:, 2:3]
        xs = np.concatenate([x - half, x + half, x + half, x - half], axis=1)
        ys = np.concatenate([y - half, y - half, y + half, y + half], axis=1)
        w = g * xs + h * ys + k
        out[rows, :, 0] = (a * xs + b * ys + c) / w
        out[rows, :, 1] = (d * xs + e * ys + f) / w
    return out


def face_xy(loc: Located, table_xy: Sequence[float]) -> np.ndarray:
    """Table millimetres -> the located component's upright face millimetres."""
    return apply_homography(table_to_face(loc), np.asarray(table_xy, float).reshape(1, 2))[0]


#: ``quick_face_xy`` is within this (mm) of ``face_xy``: closer than this to a threshold, the
#: exact value decides (the quick sum in plain floats may round the other way).
EDGE_MM = 1e-6


def quick_face_xy(loc: Located, table_xy: Sequence[float]) -> tuple[float, float]:
    """``face_xy`` in plain floats (no array round trip), equal to it up to rounding: for
    questions asked of many faces, most answered far from any edge."""
    return _map(_floats(_pose_key(loc), True), float(table_xy[0]), float(table_xy[1]))


def outside_mm(loc: Located, table_xy: Sequence[float]) -> float:
    """How far a table point lies outside a component's face rectangle (0 inside)."""
    f = face_xy(loc, table_xy)
    w, h = loc.component.size_mm
    dx = max(0.0, -f[0], f[0] - w)
    dy = max(0.0, -f[1], f[1] - h)
    return math.hypot(dx, dy)


def is_on(loc: Located, table_xy: Sequence[float], margin_mm: float = 0.0) -> bool:
    """Whether a table point lies on a component's face, at least ``margin_mm`` inside its edge."""
    fx, fy = quick_face_xy(loc, table_xy)
    w, h = loc.component.size_mm
    x1, y1 = w - margin_mm, h - margin_mm
    if min(abs(fx - margin_mm), abs(fx - x1), abs(fy - margin_mm), abs(fy - y1)) < EDGE_MM:
        fx, fy = (float(v) for v in face_xy(loc, table_xy))
    return margin_mm <= fx <= x1 and margin_mm <= fy <= y1


def space_hit(loc: Located, table_xy: Sequence[float], spaces: Iterable[Space] | None = None) -> SpaceHit | None:
    """The printed space of a board (or tile) under a table point, or None off every space (a round
    space by its circle, any other by its bounding box)."""
    fx, fy = (float(v) for v in face_xy(loc, table_xy))
    best: SpaceHit | None = None
    for s in loc.component.spaces if spaces is None else spaces:
        dx, dy = abs(fx - s.x_mm) / (s.w_mm / 2), abs(fy - s.y_mm) / (s.h_mm / 2)
        off = math.hypot(dx, dy) if s.shape is Shape.ROUND else max(dx, dy)
        if off <= 1.0:
            if best is None or off < best.offset:
                best = SpaceHit(s, off)
    return best


def holder(items: Iterable[Located], table_xy: Sequence[float], margin_mm: float = 0.0) -> Located | None:
    """The smallest located face a point lies on (a tile on a board beats the board)."""
    found = [c for c in items if is_on(c, table_xy, margin_mm)]
    if not found:
        return None
    return min(found, key=lambda c: c.component.size_mm[0] * c.component.size_mm[1])


def nearest(items: Iterable[Located], table_xy: Sequence[float]) -> tuple[Located | None, float]:
    """The face nearest a table point (distance outside its rectangle, 0 when on it)."""
    best: tuple[Located | None, float] = (None, math.inf)
    for c in items:
        d = outside_mm(c, table_xy)
        if d < best[1]:
            best = (c, d)
    return best


def relative_angle(loc: Located, reference_deg: float) -> float:
    """Clockwise angle of a component from a reference direction, in (-180, 180]."""
    return wrap_degrees(loc.angle_deg - reference_deg)


def steps_from(loc: Located, reference_deg: float, step_deg: float) -> tuple[int, float]:
    """Clockwise steps of ``step_deg`` relative to a reference, and the leftover error in degrees."""
    rel = relative_angle(loc, reference_deg)
    k = round(rel / step_deg)
    n = round(360.0 / step_deg)
    return int(k % n), abs(rel - step_deg * k)


def seat_players(view: TableView, owners: Sequence[tuple[str, str, str]]) -> tuple[tuple[Player, ...], dict[str, Player]]:
    """Players and which owner component each one sits at.

    ``owners`` are ``(component id, player id, player name)`` of the owner components seen,
    in catalog order. Without a player list each owner is a player of its own (seat by
    catalog order); with one, the k-th seat takes the k-th owner and owners beyond the
    seats belong to nobody.
    """
    by_owner: dict[str, Player] = {}
    if view.players is None:
        players = tuple(Player(pid, name, "", k) for k, (_, pid, name) in enumerate(owners))  # type: ignore[arg-type]
        for (cid, _, _), p in zip(owners, players):
            by_owner[cid] = p
        return players, by_owner
    players = tuple(view.players)
    for (cid, _, _), p in zip(owners, sorted(players, key=lambda p: p.seat)):
        by_owner[cid] = p
    return players, by_owner


def seen_players(players: Sequence[Player], by_owner: dict[str, Player], what: str) -> tuple[tuple[Player, ...], list[Problem]]:
    """Only the seated players whose own board is in view: the rules refuse a player without one."""
    present = {p.id for p in by_owner.values()}
    kept = tuple(p for p in players if p.id in present)
    problems = [
        Problem(ProblemCode.PLAYER_NOT_IN_VIEW, f"no {what} of {p.name or p.id} is in view; that player is left out of this reading")
        for p in players
        if p.id not in present
    ]
    return kept, problems


def along(items: Sequence[Located], axis_deg: float) -> list[Located]:
    """Components ordered along a table direction (a row read from its start)."""
    a = math.radians(axis_deg)
    d = np.array([math.cos(a), math.sin(a)])
    return sorted(items, key=lambda c: float(np.dot(np.array(c.centre_mm), d)))


def point_on(pose: TablePose, comp: Component, x_mm: float, y_mm: float) -> tuple[float, float]:
    """Table position of a point of a component's upright face, the component lying at ``pose``."""
    w, h = comp.size_mm
    v = rotate(np.array([x_mm - w / 2, y_mm - h / 2]), pose.angle_deg)
    return (pose.x_mm + float(v[0]), pose.y_mm + float(v[1]))


def pose_at(pose: TablePose, comp: Component, x_mm: float, y_mm: float, angle_deg: float) -> TablePose:
    """Pose of something centred on a point of a component's face, turned ``angle_deg`` from it."""
    x, y = point_on(pose, comp, x_mm, y_mm)
    return TablePose(x, y, wrap_degrees(pose.angle_deg + angle_deg))


def space_centre(comp: Component, name: str) -> tuple[float, float]:
    """Face position of a named space (LayoutError names the missing space)."""
    for s in comp.spaces:
        if s.name == name:
            return (s.x_mm, s.y_mm)
    raise LayoutError(f"{comp.id} has no space {name!r}")
