"""The texture probe layouts use to notice faces whose markers could not be read."""

from __future__ import annotations

import math

import numpy as np

from scoring import find_game
from scoring.payload import encode
from vision.layouts import Located
from vision.plane import Plane
from vision.texture import texture_probe

#: Image pixels -> table mm: 2 px per mm, the table's origin at pixel (100, 100).
PLANE = Plane(np.array([[0.5, 0.0, -50.0], [0.0, 0.5, -50.0], [0.0, 0.0, 1.0]]), 0.0, (), ())


def _photo() -> np.ndarray:
    """Bare grey table with a printed (checkered) square over table mm 100..150 x 100..150."""
    gray = np.full((600, 800), 120, np.uint8)
    yy, xx = np.mgrid[0:100, 0:100]
    gray[300:400, 300:400] = np.where((xx // 8 + yy // 8) % 2 == 0, 30, 220).astype(np.uint8)
    return gray


def _square(x: float, y: float, half: float = 15.0) -> np.ndarray:
    return np.array([[x - half, y - half], [x + half, y - half], [x + half, y + half], [x - half, y + half]])


def _tile(x: float, y: float) -> Located:
    """A tile lying upright with its face centre at (x, y) mm."""
    comp = find_game("habitats").component_index["T001"]  # type: ignore[attr-defined]
    w, h = comp.size_mm
    m = np.eye(3)
    m[:2, 2] = [x - w / 2, y - h / 2]
    return Located(comp, encode("habitats", "T001"), m, np.zeros((4, 2)), "tag")


def test_printed_faces_are_busy_and_bare_table_is_not() -> None:
    texture = texture_probe(_photo(), PLANE)
    assert texture(_square(125, 125)) > 20 * max(texture(_square(40, 40)), 1.0)
    assert texture(_square(40, 40)) < 1.0


def test_nothing_is_measured_outside_the_photo_or_on_an_explained_marker() -> None:
    assert texture_probe(_photo(), PLANE)(_square(-60, 40)) == 0.0
    foreign = np.array([[340.0, 340.0], [360.0, 340.0], [360.0, 360.0], [340.0, 360.0]])  # image px, inside (125, 125) mm
    assert texture_probe(_photo(), PLANE, [foreign])(_square(125, 125)) == 0.0


def test_a_read_face_counts_only_for_polygons_centred_on_it() -> None:
    tile = _tile(125.0, 125.0)
    bare = texture_probe(_photo(), PLANE)
    known = texture_probe(_photo(), PLANE, located=[tile])
    beside = _square(125 + 36, 125)  # half over the read face, centred off it
    assert known(beside) < 0.1 * bare(beside)
    assert math.isclose(known(_square(125, 125)), bare(_square(125, 125)))


def test_a_photo_remembers_its_probes_until_a_face_read_later_lies_near_them() -> None:
    memo: dict[bytes, float] = {}
    beside = _square(125 + 36, 125)
    first = texture_probe(_photo(), PLANE, memo=memo)
    assert first(beside) == texture_probe(_photo(), PLANE)(beside) and len(memo) == 1
    # The layout runs again after a later look read the tile under the polygon: the value
    # it remembered no longer holds, and the probe measures again with the tile masked.
    again = texture_probe(_photo(), PLANE, located=[_tile(125.0, 125.0)], memo=memo)
    assert again(beside) == texture_probe(_photo(), PLANE, located=[_tile(125.0, 125.0)])(beside)
    assert again(beside) < 0.1 * first(beside) and len(memo) == 2
    # A face read far away changes nothing here: the remembered value is used.
    far = texture_probe(_photo(), PLANE, located=[_tile(125.0, 125.0), _tile(400.0, 60.0)], memo=memo)
    assert far(beside) == again(beside) and len(memo) == 2


def _one_patch(gray: np.ndarray, polygon_mm: np.ndarray) -> float:
    """The probe's definition on one polygon, the straightforward way: the polygon's image
    warped to 24 x 24 px, mean absolute Sobel gradient."""
    import cv2

    quad = cv2.perspectiveTransform(polygon_mm.reshape(1, -1, 2), np.linalg.inv(PLANE.homography)).reshape(4, 2)
    square = np.array([[0, 0], [24, 0], [24, 24], [0, 24]], np.float32)
    patch = cv2.warpPerspective(gray, cv2.getPerspectiveTransform(quad.astype(np.float32), square), (24, 24)).astype(np.float32)
    return float(np.mean(np.abs(cv2.Sobel(patch, cv2.CV_32F, 1, 0)) + np.abs(cv2.Sobel(patch, cv2.CV_32F, 0, 1))))


def test_many_polygons_probed_at_once_give_each_one_its_own_value() -> None:
    rng = np.random.default_rng(3)
    gray = np.clip(_photo().astype(float) + rng.normal(0, 12, (600, 800)), 0, 255).astype(np.uint8)
    foreign = np.array([[340.0, 440.0], [360.0, 440.0], [360.0, 460.0], [340.0, 460.0]])  # image px: (125, 175) mm
    tile = _tile(60.0, 60.0)
    probe = texture_probe(gray, PLANE, [foreign], located=[tile])
    polygons = [_square(float(x), float(y), float(h)) for x, y, h in rng.uniform((10, 10, 4), (300, 230, 20), (40, 3))]
    polygons += [_square(-60, 40), _square(125, 175), _square(60, 60), _square(60 + 28, 60)]
    together = probe.many(polygons)
    assert together == [probe(p) for p in polygons]
    assert together[-4] == 0.0 and together[-3] == 0.0  # out of the photo; on the foreign code
    assert math.isclose(together[-2], _one_patch(gray, polygons[-2]), rel_tol=2e-3)  # centred on the tile: all counts
    assert together[-1] < 0.75 * _one_patch(gray, polygons[-1])  # half over the tile, centred off it: masked
    compared = 0
    for polygon, value in zip(polygons[:40], together[:40]):
        quad = polygon.mean(axis=0)
        clear = np.abs(quad - [60.0, 60.0]).max() > 40 + 20 and np.abs(quad - [125.0, 175.0]).max() > 35
        inside = (polygon.min() > -50) and polygon[:, 0].max() < 350 and polygon[:, 1].max() < 250
        if clear and inside:
            assert math.isclose(value, _one_patch(gray, polygon), rel_tol=2e-3)
            compared += 1
    assert compared >= 20


def test_each_patch_map_is_the_one_opencv_solves_for_its_quad() -> None:
    import cv2

    from vision.texture import square_to_quads

    rng = np.random.default_rng(3)
    corners = np.array([[0, 0], [100, 0], [100, 100], [0, 100]], float)
    quads = (corners + rng.uniform(-30, 30, (50, 4, 2))).astype(np.float32)
    side = np.array([[0, 0], [24, 0], [24, 24], [0, 24]], np.float32)
    expected = np.stack([cv2.getPerspectiveTransform(side, q) for q in quads])
    got = square_to_quads(quads.astype(float), 24.0)
    points = np.array([[0.0, 0.0, 1.0], [12.0, 7.0, 1.0], [24.0, 24.0, 1.0]])
    a, b = points @ expected.transpose(0, 2, 1), points @ got.transpose(0, 2, 1)
    assert np.allclose(a[..., :2] / a[..., 2:], b[..., :2] / b[..., 2:], atol=1e-6)


def test_a_degenerate_polygon_reads_as_nothing_without_a_warning() -> None:
    probe = texture_probe(_photo(), PLANE)
    flat = np.array([[120.0, 120.0]] * 4)
    line = np.array([[100.0, 120.0], [120.0, 120.0], [140.0, 120.0], [160.0, 120.0]])
    assert probe.many([flat, line, _square(125, 125)])[:2] == [0.0, 0.0]
