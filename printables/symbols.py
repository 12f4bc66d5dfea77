"""Module matrices of the two printed symbols, read by both the PDF and the raster back end."""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np
import qrcode
import qrcode.constants
import qrcode.util

from scoring.catalog import TAG_COUNT

#: One symbol as rows of dark (True) / light (False) modules, top row first, upright.
Matrix = tuple[tuple[bool, ...], ...]


@lru_cache(maxsize=4096)
def qr_matrix(payload: str) -> Matrix:
    """QR version 1, level M, alphanumeric mode, no quiet zone (the face draws its own)."""
    code = qrcode.QRCode(version=1, error_correction=qrcode.constants.ERROR_CORRECT_M, border=0)
    code.add_data(qrcode.util.QRData(payload, mode=qrcode.util.MODE_ALPHA_NUM))
    code.make(fit=False)
    return tuple(tuple(bool(v) for v in row) for row in code.get_matrix())


@lru_cache(maxsize=1)
def _tag_dictionary() -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_APRILTAG_36h11)


@lru_cache(maxsize=1024)
def tag_matrix(tag: int) -> Matrix:
    """AprilTag 36h11 as 8x8 modules including its black border, upright as cv2.aruco reads it."""
    if not 0 <= tag < TAG_COUNT:
        raise ValueError(f"tag {tag} outside 0..{TAG_COUNT - 1}")
    img = cv2.aruco.generateImageMarker(_tag_dictionary(), tag, 8, borderBits=1)
    return tuple(tuple(bool(v < 128) for v in row) for row in np.asarray(img))


def dark_runs(matrix: Matrix) -> tuple[tuple[int, int, int], ...]:
    """Horizontal runs of dark modules as ``(row, first column, length)``: fewer PDF rectangles."""
    runs: list[tuple[int, int, int]] = []
    for r, row in enumerate(matrix):
        c = 0
        n = len(row)
        while c < n:
            if row[c]:
                start = c
                while c < n and row[c]:
                    c += 1
                runs.append((r, start, c - start))
            else:
                c += 1
    return tuple(runs)
