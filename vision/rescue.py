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
def _codes(ids: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bits (n * 4, 36) of each id in its four quarter turns (as 0.0 / 1.0: bit distances are
    then one matrix product), how many are set in each row, and the id of each row."""
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_APRILTAG_36h11)
    rows, owners = [], []
    for i in ids:
        bits = cv2.aruco.Dictionary.getBitsFromByteList(d.bytesList[i : i + 1], d.markerSize)
        for k in range(4):
            rows.append(np.rot90(bits, k).ravel())
            owners.append(i)
    codes = np.array(rows, np.float32)
    return codes, codes.sum(axis=1), np.array(owners)


_TAG_PX = MODULES[MarkerKind.TAG] * _CELL
#: The tag's corners in the rectified sample (one cell of quiet zone around it) and its size.
_SQUARE = np.array([[0, 0], [_TAG_PX, 0], [_TAG_PX, _TAG_PX], [0, _TAG_PX]], np.float32) + _CELL
_SIZE = _TAG_PX + 2 * _CELL


def _patch(gray: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """The quad rectified to a 10 x 10 grid of cells: the 8 x 8 tag plus one cell of quiet zone."""
    h = cv2.getPerspectiveTransform(_SQUARE, corners.astype(np.float32))
    return cv2.warpPerspective(gray, h, (_SIZE, _SIZE), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)


def _cells(patches: np.ndarray) -> np.ndarray:
    """Mean brightness of each cell's centre (its middle 2 x 2 pixels) of rectified quads: (quads, 10, 10)."""
    n = MODULES[MarkerKind.TAG] + 2
    return patches.reshape(len(patches), n, _CELL, n, _CELL)[:, :, 2:4, :, 2:4].mean(axis=(2, 4))


def _rings() -> tuple[np.ndarray, np.ndarray]:
    """Masks of the sampled grid: the white quiet zone around the tag and its black border."""
    n = MODULES[MarkerKind.TAG]
    ring = np.zeros((n + 2, n + 2), bool)
    ring[0, :] = ring[-1, :] = ring[:, 0] = ring[:, -1] = True
    border = np.zeros((n + 2, n + 2), bool)
    border[1:-1, 1:-1] = True
    border[2:-2, 2:-2] = False
    return ring, border


_RING, _BORDER = _rings()


def _medians(values: np.ndarray) -> np.ndarray:
    """``np.median`` of each row (the same numbers), without its overhead: a few quads a frame."""
    half = values.shape[1] // 2
    if values.shape[1] % 2:
        return np.partition(values, half, axis=1)[:, half]
    part = np.partition(values, (half - 1, half), axis=1)
    return (part[:, half - 1] + part[:, half]) / 2


def rescue_tags(
    gray: np.ndarray,
    candidates: Sequence[Candidate],
    allowed: Collection[int],
    *,
    max_errors: int = 4,
    margin: int = 4,
    min_contrast: float = 25.0,
) -> list[tuple[Detection, int]]:
    """Decoded tags among undecoded quads, each with its candidate's index. The quads are
    sampled one by one, then thresholded and matched all at once."""
    ids = tuple(sorted(set(allowed)))
    tags = [k for k, cand in enumerate(candidates) if cand.kind is MarkerKind.TAG]
    if not ids or not tags:
        return []
    codes, weights, owners = _codes(ids)
    n = MODULES[MarkerKind.TAG]
    cells = _cells(np.stack([_patch(gray, candidates[k].corners) for k in tags]))
    black, white = _medians(cells[:, _BORDER]), _medians(cells[:, _RING])
    threshold = (black + white) / 2
    clear = (white - black >= min_contrast) & (np.count_nonzero(cells[:, _BORDER] > threshold[:, None], axis=1) <= 3)
    bits = (cells[:, 2:-2, 2:-2] > threshold[:, None, None]).astype(np.float32).reshape(len(tags), -1)
    # Bits that differ: ones in either minus twice the ones in both (small integers, exact in float32).
    both = bits @ codes.T
    dist = (bits.sum(axis=1)[:, None] + weights[None] - 2 * both).astype(np.intp)  # (quads, ids * 4 turns)
    best = dist.argmin(axis=1)
    nearest = dist[np.arange(len(tags)), best]
    # The nearest other tag: each id's best turn, the best id's own left out.
    per_id = dist.reshape(len(tags), len(ids), 4).min(axis=2)
    per_id[np.arange(len(tags)), best // 4] = np.iinfo(per_id.dtype).max
    runner_up = per_id.min(axis=1)
    accepted = clear & (nearest <= max_errors) & (runner_up - nearest >= margin)
    out: list[tuple[Detection, int]] = []
    for q in np.flatnonzero(accepted).tolist():
        k, row = tags[q], int(best[q])
        # Row ``row`` is the code turned t quarter turns counter-clockwise: the tag's own
        # top-left corner is t corners back round the quad (clockwise order).
        turns = row % 4
        corners = np.roll(candidates[k].corners, turns, axis=0)
        quality = float(np.mean(np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1))) / n
        out.append((Detection(MarkerKind.TAG, corners, tag_id=int(owners[row]), quality=quality), k))
    return out
