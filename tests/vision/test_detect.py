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


@pytest.mark.parametrize("angle,roll", [(0, 0), (90, 1), (200, 2), (300, 3)])
def test_second_look_reads_a_blurred_tag_and_its_turn(angle: float, roll: int) -> None:
    import cv2

    from vision.detect import Candidate
    from vision.rescue import rescue_tags

    canvas = np.full((300, 300), 255, np.uint8)
    corners = square_at(150, 150, 60, angle)
    place(canvas, tag_image(42), corners)
    blurred = cv2.GaussianBlur(canvas, (0, 0), 2.5)
    quad = Candidate(MarkerKind.TAG, np.roll(corners, roll, axis=0))
    found = rescue_tags(blurred, [quad], {41, 42, 43})
    assert [d.tag_id for d, _ in found] == [42]
    assert np.abs(found[0][0].corners - corners).max() < 1e-6
    # Only this game's tags are considered: the same quad names nothing in another game.
    assert rescue_tags(blurred, [quad], {7, 8}) == []
    # A quad with no tag in it names nothing.
    assert rescue_tags(np.full((300, 300), 200, np.uint8), [quad], {42}) == []
