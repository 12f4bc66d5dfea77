"""Whether the photo is too blurred where something was not read: then the players are asked
to hold the camera still and take it again, rather than left to trust a reading with holes.

A whole-frame blur measure costs more than the rest of a scan's checks together, and a
frame read in full needs none. So only a frame that reports something unread is measured,
and only in small patches: the decoded tags nearest to what was not read (a tag is the one
print whose sharp picture is known: square edges and square modules in both directions), or,
with no tag decoded, the unread quads themselves. Each patch is rectified to a square (so a
tag seen at a slant looks like one seen from above) and its gradients' structure tensor gives
how sharp it is in its least sharp direction, relative to its own contrast: motion blur
smears every edge across the streak, defocus all of them, and both leave a tag's bits
unreadable once they spread over a module or more.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import cv2
import numpy as np

from .detect import Detection, MarkerKind
from .layouts import Unreadable
from .problems import Problem, ProblemCode

#: Problems that say something lies where nothing could be read: what a blur check is about.
UNREAD_CODES = frozenset({
    ProblemCode.FAN_GAP,
    ProblemCode.FAN_UNREAD,
    ProblemCode.UNREAD,
    ProblemCode.UNREAD_CARD,
    ProblemCode.UNREAD_TILE,
    ProblemCode.UNREAD_TOKEN,
    ProblemCode.UNREADABLE,
})
#: Side (pixels) of the square each patch is rectified to: a tag with a quarter of its side
#: around it, about five pixels a module.
PATCH_PX = 40
#: Decoded tags measured per unread place (the nearest), and patches measured in all.
NEAREST = 3
MAX_PATCHES = 12
#: Below this (the median patch's least-sharp gradient energy, per cent of its squared
#: contrast) the photo is too blurred to trust. Measured on the bench's rendered scenes, 10 per
#: game and setup, in the frames that report something unread: typical and clutter photos 1.48
#: or more, shaken ones with a component missed 0.91 or less (`docs/vision.md`).
SHARPNESS_MIN = 1.0


def patch_sharpness(gray: np.ndarray, quad: np.ndarray) -> float | None:
    """How sharp a quad's patch is in its least sharp direction: the structure tensor's smaller
    eigenvalue over the squared contrast (5th to 95th percentile), in per cent; None for a
    flat patch."""
    q = np.asarray(quad, np.float32).reshape(4, 2)
    c = q.mean(axis=0)
    q = c + (q - c) * 1.25
    square = np.array([[0, 0], [PATCH_PX, 0], [PATCH_PX, PATCH_PX], [0, PATCH_PX]], np.float32)
    patch = cv2.warpPerspective(gray, cv2.getPerspectiveTransform(q, square), (PATCH_PX, PATCH_PX),
                                flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    lo, hi = np.percentile(patch, (5, 95))
    contrast = float(hi - lo)
    if contrast < 10.0:
        return None
    gx = cv2.Sobel(patch, cv2.CV_32F, 1, 0, ksize=3) / 8.0
    gy = cv2.Sobel(patch, cv2.CV_32F, 0, 1, ksize=3) / 8.0
    jxx, jyy, jxy = float((gx * gx).mean()), float((gy * gy).mean()), float((gx * gy).mean())
    smaller = 0.5 * (jxx + jyy - np.hypot(jxx - jyy, 2.0 * jxy))
    return 100.0 * smaller / (contrast * contrast)


def _patches(markers: Sequence[Detection], points: np.ndarray, quads: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The decoded tags nearest each unread place (each tag once, at most ``MAX_PATCHES``), or
    the unread quads when no tag was decoded."""
    tags = [m for m in markers if m.kind is MarkerKind.TAG]
    if not tags:
        return list(quads[:MAX_PATCHES])
    centres = np.array([t.centre for t in tags])
    far = np.linalg.norm(points[:, None] - centres[None], axis=2)  # (places, tags)
    chosen: list[int] = []
    for row in np.argsort(far, axis=1)[:, :NEAREST].T.ravel():  # each place's nearest first
        if int(row) not in chosen:
            chosen.append(int(row))
    return [tags[i].corners for i in chosen[:MAX_PATCHES]]


def sharpness(gray: np.ndarray, markers: Sequence[Detection], points: Iterable[tuple[float, float]],
              quads: Sequence[np.ndarray] = ()) -> float | None:
    """The median sharpness (``patch_sharpness``) near these unread places; None when there is
    nothing to measure."""
    pts = np.array(list(points), float).reshape(-1, 2)
    if not len(pts):
        return None
    values = [v for v in (patch_sharpness(gray, q) for q in _patches(markers, pts, quads)) if v is not None]
    return float(np.median(values)) if values else None


def unread_places(problems: Sequence[Problem], unreadable: Sequence[Unreadable]) -> tuple[list[tuple[float, float]], list[np.ndarray]]:
    """Where the reading reports something not read (image points), and the unread quads."""
    points = [pt for pr in problems if pr.code in UNREAD_CODES for pt in pr.image_points]
    quads = [np.asarray(u.image_corners) for u in unreadable]
    points += [tuple(map(float, q.mean(axis=0))) for q in quads]
    return points, quads


def hold_still(gray: np.ndarray, markers: Sequence[Detection], problems: Sequence[Problem],
               unreadable: Sequence[Unreadable], unknown: int = 0) -> Problem | None:
    """A ``vision/hold_still`` problem when something was not read and the photo is too blurred
    around it; None otherwise (a sharp photo, or nothing unread)."""
    points, quads = unread_places(problems, unreadable)
    if not points and unknown:  # unknown places with no point of their own: the tags anywhere
        points = [tuple(map(float, m.centre)) for m in markers if m.kind is MarkerKind.TAG][:MAX_PATCHES]
    value = sharpness(gray, markers, points, quads)
    if value is None or value >= SHARPNESS_MIN:
        return None
    return Problem(
        ProblemCode.HOLD_STILL,
        "the photo is blurred where pieces could not be read: hold the camera still and take the photo again",
        (),
        tuple(points[:MAX_PATCHES]),
    )
