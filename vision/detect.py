"""Stage 2: every QR code and every fiducial tag in a frame, with four corners each.

Each detector is one function ``(gray, config) -> list[Detection]`` registered by name,
so a different decoder can be swapped in through ``DetectConfig`` without touching
the later stages.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np
import zxingcpp

from .load import Frame


class MarkerKind(enum.Enum):
    """The two marker families printed on every component."""

    QR = "qr"
    TAG = "tag"


#: Modules across the symbol including its black border: QR version 1 and AprilTag 36h11.
MODULES = {MarkerKind.QR: 21, MarkerKind.TAG: 8}


@dataclass(frozen=True, slots=True, eq=False)
class Detection:
    """One decoded marker in image pixels."""

    kind: MarkerKind
    corners: np.ndarray
    """(4, 2) float64: clockwise from the symbol's own top-left corner, in image pixels."""
    payload: str | None = None
    """Decoded text (QR only)."""
    tag_id: int | None = None
    """AprilTag 36h11 id (tags only)."""
    quality: float = 0.0
    """Estimated image pixels per symbol module; below ~2.5 decoding gets unreliable."""

    @property
    def centre(self) -> np.ndarray:
        return self.corners.mean(axis=0)

    @property
    def side_px(self) -> float:
        """Mean side length in pixels."""
        c = self.corners
        return float(np.mean(np.linalg.norm(c - np.roll(c, -1, axis=0), axis=1)))

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"kind": self.kind.value}
        if self.payload is not None:
            out["payload"] = self.payload
        if self.tag_id is not None:
            out["tag_id"] = self.tag_id
        out["corners"] = [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners]
        out["quality"] = round(self.quality, 2)
        return out


@dataclass(frozen=True, slots=True)
class DetectConfig:
    """Which detectors run and their tunables."""

    qr: str | None = "zxing"
    """Name of the QR detector in DETECTORS, or None to skip QR codes."""
    tags: str | None = "aruco"
    """Name of the tag detector in DETECTORS, or None to skip tags."""
    tag_refine: bool = True
    """Sub-pixel corner refinement of tags: better plane fits for ~10 % more time."""
    tag_decimate: float = 1.0
    """AprilTag quad decimation; 1.0 finds the smallest tags, 2.0 is faster on close views."""


Detector = Callable[[np.ndarray, DetectConfig], list[Detection]]


def _ordered(points: np.ndarray) -> np.ndarray:
    """Keep a symbol's own corner order but make sure it winds clockwise on screen."""
    p = np.asarray(points, dtype=np.float64).reshape(4, 2)
    d1, d2 = p[1] - p[0], p[3] - p[0]
    if d1[0] * d2[1] - d1[1] * d2[0] < 0:  # mirrored: counter-clockwise in image coordinates
        p = p[[0, 3, 2, 1]]
    return p


def _quality(kind: MarkerKind, corners: np.ndarray) -> float:
    side = float(np.mean(np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)))
    return side / MODULES[kind]


def detect_qr_zxing(gray: np.ndarray, config: DetectConfig) -> list[Detection]:
    """QR codes through zxing-cpp, which returns corners in the symbol's own order."""
    out: list[Detection] = []
    for r in zxingcpp.read_barcodes(gray, formats=zxingcpp.BarcodeFormat.QRCode):
        if not r.valid:
            continue
        pos = r.position
        pts = np.array(
            [
                [pos.top_left.x, pos.top_left.y],
                [pos.top_right.x, pos.top_right.y],
                [pos.bottom_right.x, pos.bottom_right.y],
                [pos.bottom_left.x, pos.bottom_left.y],
            ],
            dtype=np.float64,
        )
        # zxing reports module centres of the outermost modules; grow by half a module.
        centre = pts.mean(axis=0)
        pts = centre + (pts - centre) * (MODULES[MarkerKind.QR] / (MODULES[MarkerKind.QR] - 1))
        corners = _ordered(pts)
        out.append(
            Detection(MarkerKind.QR, corners, payload=r.text, quality=_quality(MarkerKind.QR, corners))
        )
    return out


@cache
def _aruco_detector(refine: bool, decimate: float) -> cv2.aruco.ArucoDetector:
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_APRILTAG_36h11)
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = (
        cv2.aruco.CORNER_REFINE_SUBPIX if refine else cv2.aruco.CORNER_REFINE_NONE
    )
    params.aprilTagQuadDecimate = decimate
    return cv2.aruco.ArucoDetector(dictionary, params)


def detect_tags_aruco(gray: np.ndarray, config: DetectConfig) -> list[Detection]:
    """AprilTag 36h11 through OpenCV's aruco module (corners clockwise from the tag's top-left)."""
    detector = _aruco_detector(config.tag_refine, config.tag_decimate)
    corners, ids, _rejected = detector.detectMarkers(gray)
    out: list[Detection] = []
    if ids is None:
        return out
    for c, i in zip(corners, ids.ravel()):
        pts = _ordered(c.reshape(4, 2))
        out.append(
            Detection(MarkerKind.TAG, pts, tag_id=int(i), quality=_quality(MarkerKind.TAG, pts))
        )
    return out


#: Detector name -> function; register another decoder here to swap it in.
DETECTORS: dict[str, Detector] = {
    "zxing": detect_qr_zxing,
    "aruco": detect_tags_aruco,
}


def detect_markers(frame: Frame | np.ndarray, *, config: DetectConfig = DetectConfig()) -> tuple[Detection, ...]:
    """Every QR code and tag of the frame, QR codes first, each in a stable order."""
    gray = frame.gray if isinstance(frame, Frame) else frame
    if gray.ndim == 3:
        gray = cv2.cvtColor(gray, cv2.COLOR_BGR2GRAY)
    found: list[Detection] = []
    for name in (config.qr, config.tags):
        if name is None:
            continue
        if name not in DETECTORS:
            raise ValueError(f"unknown detector {name!r}; known: {', '.join(DETECTORS)}")
        found.extend(DETECTORS[name](gray, config))
    return tuple(sorted(found, key=lambda d: (d.kind.value, float(d.centre[1]), float(d.centre[0]))))
