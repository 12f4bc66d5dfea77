"""A second look at undecoded tag quads, knowing which tags the game prints.

The tag detector gives up on a blurred tag when a few of its 36 bits read wrong. Once the
table plane is known, an undecoded quad of a printed tag's size is sampled again (from the
sharpened frame, each cell's centre, threshold halfway between the tag's black border and
its white quiet zone) and compared with the tags of this game only, in all four turns. It
is accepted only when one tag is clearly nearest: at most ``max_errors`` bits off and
every other candidate at least ``margin`` bits further. AprilTag 36h11 codes differ in at
least 11 bits, so such a match is not a neighbour's code misread.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from functools import cache

import cv2
import numpy as np

from .detect import Candidate, Detection, MarkerKind, MODULES

#: Pixels per tag cell in the rectified sample.
_CELL = 6


@cache
def _codes(ids: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Bits (n * 4, 36) of each id in its four quarter turns, and the id of each row."""
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_APRILTAG_36h11)
    rows, owners = [], []
    for i in ids:
        bits = cv2.aruco.Dictionary.getBitsFromByteList(d.bytesList[i : i + 1], d.markerSize)
        for k in range(4):
            rows.append(np.rot90(bits, k).ravel())
            owners.append(i)
    return np.array(rows, np.int8), np.array(owners)


def _sample(gray: np.ndarray, corners: np.ndarray) -> np.ndarray | None:
    """Mean brightness of each cell of a 10 x 10 grid: the 8 x 8 tag plus one cell of quiet zone."""
    n = MODULES[MarkerKind.TAG]
    side = n * _CELL
    src = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32) + _CELL
    h = cv2.getPerspectiveTransform(src, corners.astype(np.float32))
    size = side + 2 * _CELL
    patch = cv2.warpPerspective(gray, h, (size, size), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                borderMode=cv2.BORDER_REPLICATE)
    inner = patch.reshape(n + 2, _CELL, n + 2, _CELL)[:, 2:4, :, 2:4]
    return inner.mean(axis=(1, 3))


def rescue_tags(
    gray: np.ndarray,
    candidates: Sequence[Candidate],
    allowed: Collection[int],
    *,
    max_errors: int = 4,
    margin: int = 4,
    min_contrast: float = 25.0,
) -> list[tuple[Detection, int]]:
    """Decoded tags among undecoded quads, each with its candidate's index."""
    ids = tuple(sorted(allowed))
    if not ids or not candidates:
        return []
    codes, owners = _codes(ids)
    out: list[tuple[Detection, int]] = []
    n = MODULES[MarkerKind.TAG]
    ring = np.zeros((n + 2, n + 2), bool)
    ring[0, :] = ring[-1, :] = ring[:, 0] = ring[:, -1] = True
    border = np.zeros((n + 2, n + 2), bool)
    border[1:-1, 1:-1] = True
    border[2:-2, 2:-2] = False
    for k, cand in enumerate(candidates):
        if cand.kind is not MarkerKind.TAG:
            continue
        cells = _sample(gray, cand.corners)
        if cells is None:
            continue
        black, white = float(np.median(cells[border])), float(np.median(cells[ring]))
        if white - black < min_contrast:
            continue
        threshold = (black + white) / 2
        if np.count_nonzero(cells[border] > threshold) > 3:
            continue
        bits = (cells[2:-2, 2:-2] > threshold).astype(np.int8).ravel()
        dist = np.count_nonzero(codes != bits, axis=1)
        best = int(np.argmin(dist))
        others = dist[owners != owners[best]]
        if dist[best] > max_errors or (len(others) and others.min() < dist[best] + margin):
            continue
        # Row ``best`` is the code turned k quarter turns counter-clockwise: the tag's own
        # top-left corner is k corners back round the quad (clockwise order).
        turns = best % 4
        corners = np.roll(cand.corners, turns, axis=0)
        quality = float(np.mean(np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1))) / n
        out.append((Detection(MarkerKind.TAG, corners, tag_id=int(owners[best]), quality=quality), k))
    return out
