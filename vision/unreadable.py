"""Markers that did not decode: undecoded quads shaped like a printed tag, or like a whole face."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from .detect import Candidate, Detection, MarkerKind
from .faces import holds_any, on_faces, own_marks, quad_measures, rectangles, space_table
from .identify import Catalog
from .layouts import Located, Unreadable
from .plane import Plane


def unreadable_markers(
    candidates: Sequence[Candidate],
    plane: Plane | None,
    located: Sequence[Located],
    markers: Sequence[Detection],
    tag_sizes: Sequence[float],
    tolerance: float,
    catalog: Catalog | None = None,
    face_tolerance: float = 0.0,
    quiet_tolerance: float = 0.0,
) -> list[Unreadable]:
    """Undecoded quads of a printed tag's size, or (with ``face_tolerance``) of the whole face
    of a read component beside them, that lie on no located face and no decoded marker. A pale
    square on a darker ground counts only with the size of a tag's quiet zone (within
    ``quiet_tolerance``): a tag blurred into its white margin."""
    if plane is None or not tag_sizes or not candidates:
        return []
    lo, hi = min(tag_sizes) * (1 - tolerance), max(tag_sizes) * (1 + tolerance)
    img = np.stack([c.corners for c in candidates])  # (n, 4, 2)
    pts = plane.to_table(img.reshape(-1, 2)).reshape(-1, 4, 2)
    sides, d1, d2 = quad_measures(pts)
    is_tag = np.array([c.kind is MarkerKind.TAG for c in candidates])
    square_ok = (sides.min(axis=1) >= lo) & (sides.max(axis=1) <= hi) & (np.abs(d1 - d2) <= 0.15 * np.maximum(d1, d2))
    inverted = np.array([c.is_inverted for c in candidates])  # a pale square on a dark ground
    quiet = np.array(catalog.quiet_sizes_mm if catalog is not None else (), float)
    if quiet.size and quiet_tolerance > 0:
        near_quiet = (np.abs(sides[:, :, None] - quiet[None, None]) <= quiet_tolerance * quiet[None, None]).all(axis=1).any(axis=1)
    else:
        near_quiet = np.zeros(len(candidates), bool)
    square_ok &= ~inverted | near_quiet
    face_ok = is_tag & unread_faces(pts, sides, d1, d2, located, face_tolerance)
    keep = ~is_tag | square_ok | face_ok
    centres = pts.mean(axis=1)
    side_mean = sides.mean(axis=1)
    img_centres = img.mean(axis=1)
    if markers:
        dec = np.array([d.centre for d in markers])
        reach = 0.5 * np.linalg.norm(img[:, 0] - img[:, 2], axis=1)
        near = np.linalg.norm(img_centres[:, None] - dec[None], axis=2).min(axis=1) < np.maximum(reach, 4.0)
        keep &= ~near
        # A tag-shaped quad inside a decoded QR code is one of its finder patterns (a stranger's
        # code, or one with a damaged check character, is decoded yet read as no component).
        codes = [d.corners for d in markers if d.kind is MarkerKind.QR]
        if codes:
            keep &= ~(is_tag & holds_any(np.stack(codes), img_centres, each=True).any(axis=1))
    if located:
        size = np.array([loc.component.size_mm for loc in located])
        face = on_faces(located, centres).transpose(1, 0, 2)  # (n, m, 2)
        inside = ((face >= -2) & (face <= size[None] + 2)).all(axis=2)  # (n, m)
        # A face with printed spaces (a board, a tile with slots) holds other components: a quad
        # on one of its spaces (and not on the face's own markers) lies on top and is reported.
        explained = np.zeros(len(candidates), bool)
        for j in np.flatnonzero(inside.any(axis=0)).tolist():  # the faces with quads on them (most have none)
            loc, rows = located[j], np.flatnonzero(inside[:, j])
            if not loc.component.spaces or catalog is None:
                explained[rows] = True
                continue
            fx, fy = face[rows, j, 0:1], face[rows, j, 1:2]  # (r, 1) against every space at once
            xy, half, span = space_table(loc.component)
            here = (np.abs(fx - xy[:, 0]) <= half[:, 0] + 3) & (np.abs(fy - xy[:, 1]) <= half[:, 1] + 3)
            # The space's own printed outline, seen as a quad: the board, not a marker on it.
            outline = (np.abs(side_mean[rows, None] - span) <= 0.15 * span) & (np.hypot(fx - xy[:, 0], fy - xy[:, 1]) <= 0.15 * span)
            on_space = (here & ~outline).any(axis=1)
            for mark in own_marks(catalog, loc.component):
                on_mark = (fx[:, 0] >= mark.x_mm - 3) & (fx[:, 0] <= mark.x_mm + mark.size_mm + 3)
                on_mark &= (fy[:, 0] >= mark.y_mm - 3) & (fy[:, 0] <= mark.y_mm + mark.size_mm + 3)
                on_space &= ~on_mark
            explained[rows] |= ~on_space
        # A face-sized quad on a located face is a printed space or panel of it: the layouts
        # look at spaces themselves (a face on one shows as busy, not as an outline).
        keep &= ~explained & ~(face_ok & inside.any(axis=1))
    out: list[Unreadable] = []
    kept: list[np.ndarray] = []
    faces: list[np.ndarray] = []
    # Whole faces first: a marker quad inside an unread face is that same component.
    for i in sorted(np.nonzero(keep)[0], key=lambda i: not face_ok[i]):
        centre = centres[i]
        if any(np.linalg.norm(centre - k) < 10 for k in kept):
            continue
        if not face_ok[i] and any(cv2.pointPolygonTest(f, (float(centre[0]), float(centre[1])), False) >= 0 for f in faces):
            continue
        kept.append(centre)
        cand = candidates[i]
        if face_ok[i]:
            faces.append(pts[i].astype(np.float32))
            reason = "a component whose markers did not decode"
        elif cand.kind is MarkerKind.TAG:
            reason = "a tag that did not decode"
        else:
            reason = "a QR code that did not decode"
        out.append(Unreadable(cand.kind, cand.corners, (float(centre[0]), float(centre[1])), reason))
    return out


#: A face-shaped quad counts as an unread component only this many long sides of a face
#: from a read component of the same size (a lone one is more often a note or a phone) ...
_FACE_BESIDE = 1.6

#: ... and turned at most this many degrees off it (modulo quarter turns).
_FACE_SQUARE_DEG = 12.0


def unread_faces(
    pts: np.ndarray, sides: np.ndarray, d1: np.ndarray, d2: np.ndarray, located: Sequence[Located], tolerance: float
) -> np.ndarray:
    """Which quads (table corners (n, 4, 2), their sides and diagonals) outline a face like a
    read card's, tile's or token's lying beside it: a rectangle (opposite sides alike,
    diagonals alike) whose sides are within ``tolerance`` of that component's, at most
    ``_FACE_BESIDE`` of its long sides away and square to it."""
    located = [loc for loc in located if not loc.component.spaces]  # cards, tiles, tokens: not boards
    if tolerance <= 0 or not located or not len(pts):
        return np.zeros(len(pts), bool)
    size = np.array([(min(loc.component.size_mm), max(loc.component.size_mm)) for loc in located])  # (m, 2)
    rectangle, short, long = rectangles(pts, sides, d1, d2, tolerance)
    short, long = short[:, None], long[:, None]
    with np.errstate(invalid="ignore"):
        alike = (np.abs(short - size[None, :, 0]) <= tolerance * size[None, :, 0]) & (np.abs(long - size[None, :, 1]) <= tolerance * size[None, :, 1])
        gap = np.linalg.norm(pts.mean(axis=1)[:, None] - np.array([loc.centre_mm for loc in located])[None], axis=2)
        # Laid square to it (players line faces up; a note or a phone lies at any angle).
        edge = pts[:, 1] - pts[:, 0]
        turn = np.degrees(np.arctan2(edge[:, 1], edge[:, 0]))[:, None] - np.array([loc.angle_deg for loc in located])[None]
        square = np.abs((turn + 45.0) % 90.0 - 45.0) <= _FACE_SQUARE_DEG
        return rectangle & (alike & square & (gap <= _FACE_BESIDE * size[None, :, 1])).any(axis=1)
