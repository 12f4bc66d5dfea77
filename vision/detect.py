"""Stage 2: every QR code and every fiducial tag in a frame, with four corners each.

Each detector is one function ``(gray, config) -> list[Detection]`` registered by name,
so a different decoder can be swapped in through ``DetectConfig`` without touching
the later stages.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field, replace
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
    centre: np.ndarray = field(init=False, repr=False, compare=False)
    """Mean of the corners (kept: every later stage asks for it, many times)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "centre", self.corners.mean(axis=0))

    @property
    def side_px(self) -> float:
        """Mean side length in pixels."""
        d = self.corners[[1, 2, 3, 0]] - self.corners
        return float(np.sqrt(d[:, 0] ** 2 + d[:, 1] ** 2).sum() / 4)

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
    tag_sharpen: float = 2.5
    """Unsharp-mask amount (sigma 2 px) applied to the frame the tag detector reads; 0 turns it off.
    Blurred frames give up a third more tags with it (2.5 read 5 % more tags in hard frames than
    1.0, at the same cost); sharp frames lose none."""
    min_tag_perimeter: float = 0.04
    """Smallest tag perimeter as a fraction of the image's longer side (0.04: 19 px sides at
    1080p, below what decodes); skipping smaller quads makes the tag detector a third faster."""
    min_candidate_px: float = 12.0
    """Undecoded tag quads smaller than this side (pixels) are noise, not unreadable markers."""
    min_candidate_contrast: float = 20.0
    """Undecoded tag quads whose inside spans fewer grey levels than this (5th to 95th
    percentile) hold no black and white bits: a cup, a shadow between two cards, never a tag
    (the faintest tag decoded in the hard benchmark scenes spans 75); 0 keeps them all."""
    max_rim_lightening: float = 20.0
    """A tag quad whose rim (where a tag prints its black border) is more than this many grey
    levels lighter than the band just outside it (where a tag has its white quiet zone) is
    marked inverted: never an undecoded tag (decoded tags' rims measure 190 or more levels
    darker). 0 marks none."""


@dataclass(frozen=True, slots=True, eq=False)
class Candidate:
    """Something shaped like a marker that did not decode (a tag quad, a damaged QR code)."""

    kind: MarkerKind
    corners: np.ndarray
    """(4, 2) float64 image pixels, in the detector's order."""
    is_inverted: bool = False
    """A tag quad whose rim is clearly lighter than the band around it (a pale icon on a dark
    phone screen): it may still be a whole face, never an undecoded tag."""

    @property
    def centre(self) -> np.ndarray:
        return self.corners.mean(axis=0)


@dataclass(frozen=True, slots=True)
class Detected:
    """Everything the detectors saw in a frame: decoded markers and undecoded candidates."""

    markers: tuple[Detection, ...]
    candidates: tuple[Candidate, ...]
    tag_gray: np.ndarray | None = None
    """The grey frame the tag detector read (sharpened), for a second look at candidates."""


Detector = Callable[[np.ndarray, DetectConfig], tuple[list[Detection], list[Candidate]]]


def _ordered(points: np.ndarray) -> np.ndarray:
    """Keep a symbol's own corner order but make sure it winds clockwise on screen."""
    p = np.asarray(points, dtype=np.float64).reshape(4, 2)
    d1, d2 = p[1] - p[0], p[3] - p[0]
    if d1[0] * d2[1] - d1[1] * d2[0] < 0:  # mirrored: counter-clockwise in image coordinates
        p = p[[0, 3, 2, 1]]
    return p


def _quality(kind: MarkerKind, corners: np.ndarray) -> float:
    d = corners[[1, 2, 3, 0]] - corners
    return float(np.sqrt(d[:, 0] ** 2 + d[:, 1] ** 2).sum() / 4) / MODULES[kind]


def detect_qr_zxing(gray: np.ndarray, config: DetectConfig) -> tuple[list[Detection], list[Candidate]]:
    """QR codes through zxing-cpp, which returns corners in the symbol's own order."""
    out: list[Detection] = []
    failed: list[Candidate] = []
    results = zxingcpp.read_barcodes(
        gray, formats=zxingcpp.BarcodeFormat.QRCode, try_invert=False, return_errors=True
    )
    for r in results:
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
        corners = _ordered(pts)
        if not r.valid:
            # zxing-cpp also reports errors it could not place (all corners at the origin):
            # only a failed code with a real outline is something on the table. A failed
            # Micro QR or rMQR symbol ("M4", "R15x59") is a misreading of part of somebody
            # else's code (a JPEG-softened leaflet): the games print only full QR codes.
            version = str((r.extra or {}).get("Version", "")) if hasattr(r, "extra") else ""
            if version[:1] in ("M", "R"):
                continue
            if abs(cv2.contourArea(pts.astype(np.float32))) >= 16.0:
                failed.append(Candidate(MarkerKind.QR, corners))
            continue
        out.append(
            Detection(MarkerKind.QR, corners, payload=r.text, quality=_quality(MarkerKind.QR, corners))
        )
    return out, failed


def sharpened(gray: np.ndarray, amount: float) -> np.ndarray:
    """Unsharp mask (sigma 2 px); the same array when ``amount`` is 0."""
    if amount <= 0:
        return gray
    soft = cv2.GaussianBlur(gray, (0, 0), 2.0)
    return cv2.addWeighted(gray, 1.0 + amount, soft, -amount, 0)


@cache
def _aruco_detector(refine: bool, decimate: float, min_perimeter: float) -> cv2.aruco.ArucoDetector:
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_APRILTAG_36h11)
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = (
        cv2.aruco.CORNER_REFINE_SUBPIX if refine else cv2.aruco.CORNER_REFINE_NONE
    )
    params.aprilTagQuadDecimate = decimate
    params.minMarkerPerimeterRate = min_perimeter
    # Sample each bit cell more finely and ignore its blurred rim: reads a third more tags
    # in blurred, tilted frames at little cost.
    params.perspectiveRemovePixelPerCell = 8
    params.perspectiveRemoveIgnoredMarginPerCell = 0.3
    # Blur rounds a tag's corners: a looser polygon fit keeps such squares as quads, so they
    # are decoded or at least handed to the second looks (more tags read in hard frames, same time).
    params.polygonalApproxAccuracyRate = 0.08
    return cv2.aruco.ArucoDetector(dictionary, params)


#: Cells a side of the grid an undecoded quad's inside is sampled on (its outer ring skipped).
_SAMPLE = 16


def _inside_contrast(gray: np.ndarray, corners: np.ndarray) -> float:
    """Grey levels spanned (5th to 95th percentile) inside a quad, its rim left out."""
    grid = np.array([[0, 0], [_SAMPLE - 1, 0], [_SAMPLE - 1, _SAMPLE - 1], [0, _SAMPLE - 1]], np.float32)
    warp = cv2.warpPerspective(
        gray, cv2.getPerspectiveTransform(corners.astype(np.float32), grid), (_SAMPLE, _SAMPLE)
    )
    lo, hi = np.percentile(warp[2:-2, 2:-2], (5, 95))
    return float(hi - lo)


def _rim_darkening(gray: np.ndarray, corners: np.ndarray) -> float:
    """Grey levels by which a quad's rim (its outer eighth, a tag's black border) is darker than
    a band of the same width just outside it (a tag's white quiet zone)."""
    n = 40  # 8 modules of 4 samples, a module of margin each side
    grid = np.array([[4, 4], [n - 4, 4], [n - 4, n - 4], [4, n - 4]], np.float32)
    warp = cv2.warpPerspective(gray, cv2.getPerspectiveTransform(corners.astype(np.float32), grid), (n, n),
                               borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    outer = np.ones((n, n), bool)
    outer[4:-4, 4:-4] = False
    rim = np.zeros((n, n), bool)
    rim[4:-4, 4:-4] = True
    rim[8:-8, 8:-8] = False
    return float(np.median(warp[outer]) - np.median(warp[rim]))


def detect_tags_aruco(gray: np.ndarray, config: DetectConfig) -> tuple[list[Detection], list[Candidate]]:
    """AprilTag 36h11 through OpenCV's aruco module (corners clockwise from the tag's top-left)."""
    detector = _aruco_detector(config.tag_refine, config.tag_decimate, config.min_tag_perimeter)
    corners, ids, rejected = detector.detectMarkers(gray)
    out: list[Detection] = []
    failed = [
        Candidate(MarkerKind.TAG, _ordered(c.reshape(4, 2)))
        for c in rejected
        if cv2.contourArea(c.reshape(4, 2).astype(np.float32)) >= config.min_candidate_px**2
    ]
    if ids is None:
        return out, failed
    for c, i in zip(corners, ids.ravel()):
        pts = _ordered(c.reshape(4, 2))
        out.append(
            Detection(MarkerKind.TAG, pts, tag_id=int(i), quality=_quality(MarkerKind.TAG, pts))
        )
    return out, failed


#: Detector name -> function; register another decoder here to swap it in.
DETECTORS: dict[str, Detector] = {
    "zxing": detect_qr_zxing,
    "aruco": detect_tags_aruco,
}


def detect_all(frame: Frame | np.ndarray, *, config: DetectConfig = DetectConfig()) -> Detected:
    """Decoded markers (QR codes first, in reading order) and undecoded candidates."""
    gray = frame.gray if isinstance(frame, Frame) else frame
    if gray.ndim == 3:
        gray = cv2.cvtColor(gray, cv2.COLOR_BGR2GRAY)
    found: list[Detection] = []
    failed: list[Candidate] = []
    tag_gray: np.ndarray | None = None
    for name, is_tags in ((config.qr, False), (config.tags, True)):
        if name is None:
            continue
        if name not in DETECTORS:
            raise ValueError(f"unknown detector {name!r}; known: {', '.join(DETECTORS)}")
        image = gray
        if is_tags:
            image = tag_gray = sharpened(gray, config.tag_sharpen)
        markers, candidates = DETECTORS[name](image, config)
        if is_tags and config.min_candidate_contrast > 0:  # measured unsharpened: noise stays small
            candidates = [c for c in candidates if _inside_contrast(gray, c.corners) >= config.min_candidate_contrast]
        if is_tags and config.max_rim_lightening > 0:
            candidates = [
                replace(c, is_inverted=True) if _rim_darkening(gray, c.corners) < -config.max_rim_lightening else c
                for c in candidates
            ]
        found.extend(markers)
        failed.extend(candidates)
    found.sort(key=lambda d: (d.kind.value, float(d.centre[1]), float(d.centre[0])))
    return Detected(tuple(found), tuple(failed), tag_gray)


def detect_markers(
    frame: Frame | np.ndarray, *, config: DetectConfig = DetectConfig()
) -> tuple[Detection, ...]:
    """Every QR code and tag of the frame, QR codes first, each in reading order."""
    return detect_all(frame, config=config).markers

