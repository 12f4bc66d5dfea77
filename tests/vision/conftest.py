"""Shared drawing helpers for the vision tests: synthetic markers with known corners."""

from __future__ import annotations

import cv2
import numpy as np
import qrcode
import qrcode.constants


def tag_image(tag_id: int, module_px: int = 10) -> np.ndarray:
    """An AprilTag 36h11 (8 modules incl. border) without quiet zone."""
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_APRILTAG_36h11)
    return cv2.aruco.generateImageMarker(d, tag_id, 8 * module_px)


def qr_image(text: str, module_px: int = 8) -> np.ndarray:
    """A QR code's 21 modules (version 1) without quiet zone."""
    qr = qrcode.QRCode(version=1, error_correction=qrcode.constants.ERROR_CORRECT_M, border=0)
    qr.add_data(text)
    qr.make(fit=False)
    m = np.array([[0 if v else 255 for v in row] for row in qr.get_matrix()], np.uint8)
    return cv2.resize(m, None, fx=module_px, fy=module_px, interpolation=cv2.INTER_NEAREST)


def place(canvas: np.ndarray, symbol: np.ndarray, corners: np.ndarray) -> None:
    """Warp a symbol so that its top-left, top-right, bottom-right, bottom-left land on ``corners``."""
    h, w = symbol.shape[:2]
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    m = cv2.getPerspectiveTransform(src, corners.astype(np.float32))
    warped = cv2.warpPerspective(symbol, m, (canvas.shape[1], canvas.shape[0]), flags=cv2.INTER_LINEAR, borderValue=255)
    mask = cv2.warpPerspective(np.full_like(symbol, 255), m, (canvas.shape[1], canvas.shape[0]), borderValue=0)
    canvas[mask > 127] = warped[mask > 127]


def square_at(cx: float, cy: float, side: float, angle_deg: float) -> np.ndarray:
    """Corners of a square turned clockwise by ``angle_deg`` (image y down), from its own top-left."""
    a = np.radians(angle_deg)
    r = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    base = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], float) * side / 2
    return base @ r.T + (cx, cy)
