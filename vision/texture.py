"""How busy the photo is inside table polygons: printed faces are, bare table is not."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

import cv2
import numpy as np

from .faces import NEXT_CORNER, holds_any
from .identify import Identified
from .layouts import Located
from .plane import Plane

#: A texture probe's memo, one per photo: (the plane's image map, the polygon, the faces near
#: it) -> its texture (see ``texture_probe``).
TextureMemo = dict[tuple[bytes, bytes, int], float]


def square_to_quads(quads: np.ndarray, side: float) -> np.ndarray:
    """(k, 3, 3) homographies taking the square [0, side]^2 (corners clockwise from the
    origin) onto each quad (k, 4, 2): the closed form of the unit square's projective map,
    all quads at once (what cv2.getPerspectiveTransform solves one by one), both image
    coordinates in each step."""
    q0, q1, q2, q3 = quads[:, 0], quads[:, 1], quads[:, 2], quads[:, 3]
    s = q0 - q1 + q2 - q3
    d1, d2 = q1 - q2, q3 - q2
    den = d1[:, 0] * d2[:, 1] - d2[:, 0] * d1[:, 1]
    with np.errstate(divide="ignore", invalid="ignore"):  # a degenerate quad: no finite map, nothing sampled
        g = (s[:, 0] * d2[:, 1] - d2[:, 0] * s[:, 1]) / den
        h = (d1[:, 0] * s[:, 1] - s[:, 0] * d1[:, 1]) / den
    m = np.empty((len(quads), 3, 3))
    m[:, :2, 0] = (q1 - q0 + g[:, None] * q1) / side
    m[:, :2, 1] = (q3 - q0 + h[:, None] * q3) / side
    m[:, :2, 2] = q0
    m[:, 2, 0], m[:, 2, 1], m[:, 2, 2] = g / side, h / side, 1.0
    return m


#: A unit face's corners, clockwise from its origin.
_CORNERS = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])

#: A texture probe's patch side (pixels), and its pixel grid as homogeneous columns (x, y, 1).
_PATCH = 24

_SQUARE = np.array([[0, 0], [_PATCH, 0], [_PATCH, _PATCH], [0, _PATCH]], np.float32)
_PATCH_GRID = np.vstack([np.tile(np.arange(_PATCH), _PATCH), np.repeat(np.arange(_PATCH), _PATCH),
                         np.ones(_PATCH * _PATCH)]).astype(np.float32)


@dataclass(frozen=True, slots=True)
class TextureProbe:
    """A photo's texture probe: one polygon's texture when called, or many at once (a layout
    probing a grid's cells pays one warp and one gradient pass for all of them)."""

    many: Callable[[Sequence[np.ndarray] | np.ndarray], list[float]]
    """The texture of each polygon (a list of (4, 2) arrays, or one (n, 4, 2) array)."""

    def __call__(self, polygon_mm: np.ndarray) -> float:
        return self.many([polygon_mm])[0]


@dataclass(frozen=True, slots=True, eq=False)
class _Photo:
    """What a texture probe works out once per photo and plane (see ``texture_probe``)."""

    gray: np.ndarray
    to_image: np.ndarray
    height: int
    width: int
    known: np.ndarray
    """Image corners of markers accounted for (foreign, duplicated, disputed)."""
    faces: np.ndarray
    """(m, 4, 2) the located faces' outlines on the table."""
    face_centres: np.ndarray
    face_reach: np.ndarray
    face_lo: np.ndarray
    face_hi: np.ndarray
    face_hash: np.ndarray
    plane_key: bytes
    memo: TextureMemo | None


def texture_probe(
    gray: np.ndarray,
    plane: Plane,
    explained: Sequence[np.ndarray] = (),
    located: Sequence[Located] = (),
    memo: TextureMemo | None = None,
) -> TextureProbe:
    """Mean gradient magnitude of the photo inside a table polygon (rectified to 24 x 24 px);
    0 where it cannot look: a corner outside the photo, or a marker already accounted for (a
    foreign code, a duplicate) inside. A polygon centred off every located face does not count
    the parts that located faces cover (a card lying across into a neighbouring cell is read
    already); one centred on a located face (the reference of a printed face's texture) counts
    everything. Layouts probe dozens of polygons per frame: what does not depend on the polygon
    is computed once here, and ``many`` samples a batch of polygons with one remap and one
    gradient pass (a grid's cells, a board's places). ``memo`` (one per
    photo) keeps each value with everything it depends on (the plane, the polygon, the faces
    near it), so a layout run again after a later look pays only for probes near what it read."""
    to_image = np.linalg.inv(plane.homography)
    height, width = gray.shape[:2]
    known = (
        np.concatenate([np.asarray(c, np.float32).reshape(-1, 2) for c in explained])
        if len(explained) else np.zeros((0, 2), np.float32)
    )
    faces = np.zeros((0, 4, 2))
    if located:
        outlines = np.array([loc.component.size_mm for loc in located], float)[:, None, :] * _CORNERS[None]
        poses = np.stack([loc.face_to_table for loc in located])
        q = outlines @ poses[:, :2, :2].transpose(0, 2, 1) + poses[:, None, :2, 2]
        faces = q / (outlines @ poses[:, 2:, :2].transpose(0, 2, 1) + poses[:, None, 2:, 2])
    face_centres = faces.mean(axis=1)
    face_reach = np.linalg.norm(faces - face_centres[:, None], axis=2).max(axis=1) if len(faces) else np.zeros(0)
    face_lo, face_hi = (faces.min(axis=1), faces.max(axis=1)) if len(faces) else (np.zeros((0, 2)), np.zeros((0, 2)))

    # A memo key names the faces near a polygon by the sum of their outlines' hashes (any
    # order, any list: the same faces give the same key in a later run with more faces).
    face_hash = np.array([hash(f.tobytes()) & 0xFFFFFFFFFFFFFFFF for f in faces], np.uint64)
    plane_key = to_image.tobytes()
    photo = _Photo(gray, to_image, height, width, known, faces, face_centres, face_reach, face_lo, face_hi,
                   face_hash, plane_key, memo)
    return TextureProbe(partial(_many, photo))


def _masked(photo: _Photo, grad: np.ndarray, poly: np.ndarray, cover: np.ndarray) -> None:
    """Zero the parts of a patch that these located faces cover."""
    to_patch = cv2.getPerspectiveTransform(poly.astype(np.float32), _SQUARE)
    mask = np.zeros((_PATCH, _PATCH), np.uint8)
    corners = np.round(cv2.perspectiveTransform(photo.faces[cover].reshape(1, -1, 2), to_patch)).astype(np.int32)
    for f in corners.reshape(-1, 4, 2):
        cv2.fillConvexPoly(mask, f, 1)
    grad[mask > 0] = 0.0


def _sampled(photo: _Photo, quads: np.ndarray) -> np.ndarray:
    """The (k, size, size) gradient magnitudes of k image quads, each warped to the patch
    square as warpPerspective would (bilinear): one remap and one Sobel pass for all."""
    k = len(quads)
    back = square_to_quads(quads.astype(np.float64), float(_PATCH))
    # One product for all quads, each image coordinate one contiguous block (single
    # precision: a ten-thousandth of a pixel across a 4K photo), then the division.
    pts = (back.transpose(1, 0, 2).reshape(-1, 3).astype(np.float32) @ _PATCH_GRID).reshape(3, k * _PATCH, _PATCH)
    with np.errstate(divide="ignore", invalid="ignore"):  # a degenerate quad samples nothing (NaN)
        inv = 1.0 / pts[2]
    patches = cv2.remap(photo.gray, pts[0] * inv, pts[1] * inv, cv2.INTER_LINEAR).astype(np.float32).reshape(k, _PATCH, _PATCH)
    # Each patch padded as Sobel pads one image (reflect 101), then all stacked: the
    # borders between them never mix two patches.
    tall = np.empty((k, _PATCH + 2, _PATCH + 2), np.float32)
    tall[:, 1:-1, 1:-1] = patches
    tall[:, 0, 1:-1], tall[:, -1, 1:-1] = patches[:, 1], patches[:, -2]
    tall[:, :, 0], tall[:, :, -1] = tall[:, :, 2], tall[:, :, -3]
    tall = tall.reshape(k * (_PATCH + 2), _PATCH + 2)
    grad = np.abs(cv2.Sobel(tall, cv2.CV_32F, 1, 0))
    grad += np.abs(cv2.Sobel(tall, cv2.CV_32F, 0, 1))
    return grad.reshape(k, _PATCH + 2, _PATCH + 2)[:, 1:-1, 1:-1]


def _many(photo: _Photo, polygons_mm: Sequence[np.ndarray] | np.ndarray) -> list[float]:
    """The texture of each polygon, the patches of all of them sampled at once."""
    values = [0.0] * len(polygons_mm)
    if not len(polygons_mm):
        return values
    try:  # most often quads alike: one conversion for all
        polys = np.array(polygons_mm, float)
    except ValueError:  # polygons of different lengths
        polys = None
    if polys is None or polys.ndim != 3 or polys.shape[2] != 2:
        polys = np.stack([np.asarray(p, float)[:4] for p in polygons_mm])
    polys = np.ascontiguousarray(polys[:, :4])
    quads = cv2.perspectiveTransform(polys.reshape(1, -1, 2), photo.to_image).reshape(-1, 4, 2).astype(np.float32)
    lo, hi = quads.min(axis=1), quads.max(axis=1)
    inside = (lo >= 0).all(axis=1) & (hi[:, 0] < photo.width) & (hi[:, 1] < photo.height)
    if len(photo.known):  # a marker accounted for inside: no looking there (its border counts)
        inside &= ~holds_any(quads.astype(float), photo.known.astype(float))
    if not inside.any():
        return values
    # The located faces that may reach each polygon; a polygon centred on one of them (the
    # reference of a printed face's texture) counts everything, else only the faces
    # reaching into its box are masked (in a grid of abutting tiles, a cell's central
    # square touches none of its neighbours).
    centres = polys.sum(axis=1) * 0.25
    reach = np.sqrt(((polys - centres[:, None]) ** 2).sum(axis=2).max(axis=1))
    near = np.sqrt(((centres[:, None] - photo.face_centres[None]) ** 2).sum(axis=2)) < photo.face_reach[None] + reach[:, None]
    todo: list[tuple[int, object]] = []
    idx = np.flatnonzero(inside)
    if photo.memo is None:
        todo = [(i, None) for i in idx.tolist()]
    else:  # the value depends on the plane, the polygon and the faces near it
        sigs = (near[idx].astype(np.uint64) @ photo.face_hash).tolist() if len(photo.faces) else [0] * len(idx)
        for i, sig in zip(idx.tolist(), sigs):
            key = (photo.plane_key, polys[i].tobytes(), sig)
            if key in photo.memo:
                values[i] = photo.memo[key]
            else:
                todo.append((i, key))
    if not todo:
        return values
    rows = np.array([i for i, _ in todo])
    # Which faces each polygon still to sample must not count: those reaching into its box,
    # unless it is centred on one of them.
    near_rows, poly_rows = near[rows], polys[rows]
    centred = np.zeros(len(rows), bool)
    pi, fj = np.nonzero(near_rows)  # only a face near a polygon can hold its centre
    if len(pi):
        quad = photo.faces[fj]  # (p, 4, 2) each pair's face, tested against its polygon's centre
        edge = quad[:, NEXT_CORNER] - quad
        rel = centres[rows][pi][:, None, :] - quad
        cross = edge[..., 0] * rel[..., 1] - edge[..., 1] * rel[..., 0]
        holds = (cross >= 0).all(axis=1) | (cross <= 0).all(axis=1)
        centred[pi[holds]] = True
    plo, phi = poly_rows.min(axis=1), poly_rows.max(axis=1)
    cover = near_rows & (photo.face_lo[None] < phi[:, None]).all(axis=2) & (photo.face_hi[None] > plo[:, None]).all(axis=2)
    cover &= ~centred[:, None]
    grads = _sampled(photo, quads[rows])
    for j in np.flatnonzero(cover.any(axis=1)).tolist():
        _masked(photo, grads[j], poly_rows[j], cover[j])
    means = (grads.sum(axis=(1, 2)) / (_PATCH * _PATCH)).tolist()
    for (i, key), mean in zip(todo, means):
        values[i] = mean
        if photo.memo is not None:
            photo.memo[key] = mean
    return values


def explained_corners(ident: Identified) -> list[np.ndarray]:
    """Image corners of decoded markers that are not placed components (foreign, duplicated, disputed)."""
    out = [f.detection.corners for f in ident.foreign]
    out += [d.corners for dup in ident.duplicated for s in dup.sightings for d in s.detections]
    out += [d.corners for dis in ident.disagreements for d in dis.detections]
    return out
