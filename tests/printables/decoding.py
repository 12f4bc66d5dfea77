"""Reading printed sheets back: rasterise a PDF like a 150 dpi scan and decode every marker."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import pypdfium2 as pdfium
import zxingcpp

DPI = 150
PX_PER_MM = DPI / 25.4
PT_PER_MM = 72 / 25.4


@dataclass(frozen=True)
class Seen:
    """One decoded marker: page index, tag id or QR text, and its centre and side in pixels."""

    page: int
    value: int | str
    centre: tuple[float, float]
    side_px: float


@dataclass(frozen=True)
class Scan:
    tags: tuple[Seen, ...]
    qrs: tuple[Seen, ...]
    page_sizes_pt: tuple[tuple[float, float], ...]


def _detector() -> cv2.aruco.ArucoDetector:
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_APRILTAG_36h11)
    return cv2.aruco.ArucoDetector(dictionary, cv2.aruco.DetectorParameters())


def _side(corners: np.ndarray) -> float:
    return float(np.mean([np.linalg.norm(corners[i] - corners[(i + 1) % 4]) for i in range(4)]))


def page_images(pdf: bytes, dpi: int = DPI):  # noqa: ANN201 - generator of (index, grey image)
    doc = pdfium.PdfDocument(pdf)
    try:
        for i in range(len(doc)):
            page = doc[i]
            img = page.render(scale=dpi / 72, grayscale=True).to_numpy()
            yield i, (img[..., 0] if img.ndim == 3 else img).copy(), page.get_size()
    finally:
        doc.close()


def scan(pdf: bytes) -> Scan:
    """Every AprilTag 36h11 and QR code on every page, rendered at 150 dpi."""
    detector = _detector()
    tags: list[Seen] = []
    qrs: list[Seen] = []
    sizes: list[tuple[float, float]] = []
    for i, img, size in page_images(pdf):
        sizes.append(size)
        corners, ids, _ = detector.detectMarkers(img)
        if ids is not None:
            for c, t in zip(corners, ids.ravel()):
                pts = c.reshape(4, 2)
                tags.append(Seen(i, int(t), tuple(pts.mean(axis=0)), _side(pts)))
        for r in zxingcpp.read_barcodes(img, formats=zxingcpp.BarcodeFormat.QRCode):
            p = r.position
            pts = np.array([[p.top_left.x, p.top_left.y], [p.top_right.x, p.top_right.y],
                            [p.bottom_right.x, p.bottom_right.y], [p.bottom_left.x, p.bottom_left.y]], float)
            qrs.append(Seen(i, r.text, tuple(pts.mean(axis=0)), _side(pts)))
    return Scan(tuple(tags), tuple(qrs), tuple(sizes))
