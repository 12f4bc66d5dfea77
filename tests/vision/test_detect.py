"""Stage 2: both detectors find every marker with its payload or id and corners in symbol order."""

from __future__ import annotations

import numpy as np
import pytest

from vision.detect import DETECTORS, DetectConfig, Detection, MarkerKind, detect_all, detect_markers

from .conftest import place, qr_image, square_at, tag_image


@pytest.mark.parametrize("angle", [0, 90, 180, 270, 33])
def test_tag_and_qr_corners_follow_the_symbol(angle: float) -> None:
    canvas = np.full((600, 900), 255, np.uint8)
    tag_c = square_at(200, 300, 120, angle)
    qr_c = square_at(600, 300, 210, angle)
    place(canvas, tag_image(17), tag_c)
    place(canvas, qr_image("HA1/T001*Z"), qr_c)
    found = detect_markers(canvas)
    assert [d.kind for d in found] == [MarkerKind.QR, MarkerKind.TAG]
    qr, tag = found
    assert qr.payload == "HA1/T001*Z" and tag.tag_id == 17
    assert np.abs(tag.corners - tag_c).max() < 2.0
    assert np.abs(qr.corners - qr_c).max() < 6.0  # zxing reports whole pixels
    assert tag.quality == pytest.approx(120 / 8, rel=0.05)


def test_empty_frame_gives_nothing() -> None:
    assert detect_markers(np.full((300, 400), 128, np.uint8)) == ()


def test_detectors_are_swappable() -> None:
    calls: list[str] = []

    def fake(gray: np.ndarray, config: DetectConfig) -> tuple[list[Detection], list]:
        calls.append("fake")
        return [Detection(MarkerKind.TAG, square_at(10, 10, 4, 0), tag_id=3)], []

    DETECTORS["fake"] = fake
    try:
        found = detect_all(np.zeros((50, 50), np.uint8), config=DetectConfig(qr=None, tags="fake"))
    finally:
        del DETECTORS["fake"]
    assert calls == ["fake"] and found.markers[0].tag_id == 3
    with pytest.raises(ValueError, match="unknown detector"):
        detect_all(np.zeros((50, 50), np.uint8), config=DetectConfig(qr="nope"))
