"""Clutter on the table is not an unreadable component: a cup's dark inside, the shadow
between two cards, a stranger's QR code softened by JPEG."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import vision
from vision.detect import DetectConfig, MarkerKind, detect_all

from .conftest import place, square_at, tag_image


def _damaged_tag(canvas: np.ndarray, corners: np.ndarray) -> None:
    """A tag whose bits were scribbled over: still black and white, but no code."""
    symbol = tag_image(42).copy()
    rng = np.random.default_rng(3)
    for _ in range(6):
        y, x = rng.integers(1, 7, size=2)
        symbol[y * 10:(y + 1) * 10, x * 10:(x + 1) * 10] = 255 - symbol[y * 10:(y + 1) * 10, x * 10:(x + 1) * 10]
    place(canvas, symbol, corners)


def _tag_candidates(gray: np.ndarray, config: DetectConfig = DetectConfig()) -> list[np.ndarray]:
    found = detect_all(gray, config=config)
    return [c.centre for c in found.candidates if c.kind is MarkerKind.TAG]


def test_a_plain_dark_square_is_not_a_tag_but_a_damaged_tag_still_is() -> None:
    canvas = np.full((400, 700), 200, np.uint8)
    cup = square_at(180, 200, 110, 20)  # a cup seen from above: dark and even inside
    cv2.fillPoly(canvas, [cup.astype(np.int32)], 40)
    _damaged_tag(canvas, square_at(500, 200, 110, 10))
    canvas = cv2.GaussianBlur(canvas, (0, 0), 1.0)

    kept = _tag_candidates(canvas)
    assert not any(np.linalg.norm(c - (180, 200)) < 20 for c in kept)
    assert any(np.linalg.norm(c - (500, 200)) < 20 for c in kept)  # reported, never dropped
    # With the contrast test off, the cup is a candidate again: the test is what drops it.
    everything = _tag_candidates(canvas, DetectConfig(min_candidate_contrast=0))
    assert any(np.linalg.norm(c - (180, 200)) < 20 for c in everything)


@pytest.mark.parametrize("game_id", ["borneo", "phylo", "habitats", "rainforest", "biomos"])
@pytest.mark.parametrize("quality", [95, 75, 40])
def test_bundled_samples_resaved_as_jpeg_have_nothing_unreadable(game_id: str, quality: int) -> None:
    """The samples hold a cup, a ruler-like score pad, pens and a stranger's QR code: none of
    them is a component the players must turn or fix, however the photo was saved."""
    photo = cv2.imread(str(vision.sample_photo(game_id)))
    ok, data = cv2.imencode(".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    rec = vision.recognise(data.tobytes(), game_id)
    assert rec.unreadable == ()
    assert len(rec.components) > 15
