"""The batched grid probes (outline bands of all sides at once, cell polygons of many cells,
tag quads matched together) give what the one-at-a-time versions give."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from scoring import find_game
from scoring.payload import encode
from vision.detect import Candidate, MarkerKind
from vision.layouts import (
    OUTLINE_PIECES,
    OUTLINE_SHIFT_MM,
    OUTLINE_SPARE_PIECES,
    OUTLINE_TILTS_DEG,
    Located,
    OutlineProbe,
    TableView,
    cell_centre,
    cell_polygon,
    cell_polygons,
    face_outlined,
    outline_probe,
)
from vision.plane import apply_homography
from vision.rescue import _codes, _medians, rescue_tags

#: Image px -> table mm of a photo taken at a slant (so bands are not axis-aligned in the image).
HOMOGRAPHY = np.linalg.inv(np.array([[1.9, 0.25, 60.0], [-0.15, 1.7, 40.0], [0.0002, 0.0001, 1.0]]))


def _photo(seed: int = 0) -> np.ndarray:
    """A textured table with a few printed rectangles at odd angles (BGR, 640 x 800)."""
    rng = np.random.default_rng(seed)
    photo = np.clip(np.array([40, 75, 120], float) + rng.normal(0, 6.0, (640, 800, 3)), 0, 255).astype(np.uint8)
    for _ in range(12):
        centre = rng.uniform((50, 50), (750, 590))
        size = rng.uniform(40, 140, 2)
        box = cv2.boxPoints(((float(centre[0]), float(centre[1])), (float(size[0]), float(size[1])), float(rng.uniform(0, 90))))
        cv2.fillConvexPoly(photo, box.astype(np.int32), tuple(int(v) for v in rng.integers(0, 256, 3)))
    return cv2.GaussianBlur(photo, (0, 0), 1.2)


def _side_step(image: np.ndarray, to_image: np.ndarray, a: np.ndarray, b: np.ndarray, outward: np.ndarray) -> float:
    """One side at a time, straightforwardly: the colour step along side a -> b."""
    height, width = image.shape[:2]
    res, (g0, g1) = 2.0, (2.0, 6.0)
    shifts = np.arange(-OUTLINE_SHIFT_MM, OUTLINE_SHIFT_MM + 0.5, 1.0)
    slopes = np.tan(np.radians(OUTLINE_TILTS_DEG))
    length = float(np.hypot(*(b - a)))
    along = (b - a) / length
    t0, span = 0.1 * length, 0.8 * length
    margin = OUTLINE_SHIFT_MM + g1 + float(np.abs(slopes).max()) * span / 2 + 1.0
    n_along, n_across = max(OUTLINE_PIECES, int(span * res)), int(2 * margin * res)
    band_to_table = np.array([
        [along[0] / res, outward[0] / res, a[0] + along[0] * t0 - outward[0] * margin],
        [along[1] / res, outward[1] / res, a[1] + along[1] * t0 - outward[1] * margin],
        [0.0, 0.0, 1.0],
    ])
    m = to_image @ band_to_table
    cuts = np.linspace(0, n_along, OUTLINE_PIECES + 1)
    img = apply_homography(m, np.array([[[c, 0.0], [c, n_across]] for c in cuts]).reshape(-1, 2)).reshape(-1, 2, 2)
    seen = ((img[..., 0] >= 0) & (img[..., 0] < width) & (img[..., 1] >= 0) & (img[..., 1] < height)).all(axis=1)
    pieces = np.flatnonzero(seen[:-1] & seen[1:])
    if len(pieces) < 4:
        return float("nan")
    band = cv2.warpPerspective(image, m, (n_along, n_across), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
    band = band.astype(np.float32).reshape(n_across, n_along, -1)
    edges = cuts.astype(int)
    steps = []
    for piece in pieces:
        column = band[:, edges[piece]:edges[piece + 1]].mean(axis=1)  # (across, channels)
        sums = np.concatenate([np.zeros_like(column[:1]), np.cumsum(column, axis=0)])
        edge = shifts[None, :] + slopes[:, None] * (((piece + 0.5) / OUTLINE_PIECES - 0.5) * span)  # (tilts, shifts)

        def mean(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
            i0 = np.clip(np.round((lo + margin) * res).astype(int), 0, n_across)
            i1 = np.clip(np.round((hi + margin) * res).astype(int), 0, n_across)
            return (sums[i1] - sums[i0]) / np.maximum(i1 - i0, 1)[..., None]

        steps.append(mean(edge - g1, edge - g0) - mean(edge + g0, edge + g1))  # inside minus outside
    ordered = np.sort(np.stack(steps, axis=2), axis=2)  # along the pieces
    spare = min(OUTLINE_SPARE_PIECES, len(pieces) - 3)
    return max(float(ordered[:, :, spare].max()), float(-ordered[:, :, -1 - spare].min()), 0.0)


def _outline(image: np.ndarray, corners: np.ndarray) -> tuple[float, ...]:
    to_image = np.linalg.inv(HOMOGRAPHY)
    centre = corners.mean(axis=0)
    out = []
    for k in range(4):
        a, b = corners[k], corners[(k + 1) % 4]
        normal = np.array([-(b - a)[1], (b - a)[0]])
        normal /= np.hypot(*normal)
        out.append(_side_step(image, to_image, a, b, normal if normal @ ((a + b) / 2 - centre) > 0 else -normal))
    return tuple(out)


def _rectangles(rng: np.random.Generator, count: int) -> list[np.ndarray]:
    """Table rectangles (clockwise), mostly in the photo, a few across or past its edge."""
    out = []
    for k in range(count):
        centre = rng.uniform((-10.0, -10.0), (330.0, 330.0)) if k % 4 else rng.uniform((-80.0, -80.0), (420.0, 420.0))
        w, h = rng.uniform(30.0, 80.0, 2)
        a = math.radians(rng.uniform(-180.0, 180.0))
        c, s = math.cos(a), math.sin(a)
        out.append(np.array([[c * dx - s * dy + centre[0], s * dx + c * dy + centre[1]]
                             for dx, dy in ((-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2))]))
    return out


@pytest.mark.parametrize("grey", [False, True])
def test_the_outline_probe_measures_every_side_as_one_side_at_a_time_does(grey: bool) -> None:
    photo = _photo(1)
    if grey:
        photo = cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY)
    probe = outline_probe(photo, HOMOGRAPHY)
    rectangles = _rectangles(np.random.default_rng(2), 40)
    got = np.array([probe(q) for q in rectangles])
    want = np.array([_outline(photo, q) for q in rectangles])
    assert np.isnan(want).any() and (want > 12).any()  # sides off the photo and sides with a step
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)


def test_the_outline_probe_measures_only_the_sides_asked_for() -> None:
    probe = outline_probe(_photo(3), HOMOGRAPHY)
    assert isinstance(probe, OutlineProbe)
    rng = np.random.default_rng(4)
    for q in _rectangles(rng, 12):
        every = probe(q)
        for sides in ((0,), (1, 3), (2, 0, 1), (3, 3)):
            got = probe.steps(q, sides)
            np.testing.assert_array_equal([got[k] for k in sides], [every[k] for k in sides])
            assert all(math.isnan(got[k]) for k in range(4) if k not in sides)


def test_the_outline_probe_measures_each_side_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # A side asked for first on its own, then with the others, measures as a fresh probe asked
    # for all four does; asked again, nothing is measured again.
    photo = _photo(7)
    fresh, probe = outline_probe(photo, HOMOGRAPHY), outline_probe(photo, HOMOGRAPHY)
    measured = []
    band = OutlineProbe._band

    def counted(self: OutlineProbe, *args: np.ndarray) -> object:
        measured.append(args)
        return band(self, *args)

    monkeypatch.setattr(OutlineProbe, "_band", counted)
    for q in _rectangles(np.random.default_rng(8), 10):
        want = fresh(q)
        before = len(measured)
        np.testing.assert_array_equal(probe.steps(q, (2,))[2], want[2])
        assert len(measured) - before == 1
        np.testing.assert_array_equal(probe(q), want)
        assert len(measured) - before == 4  # then the three sides not asked for yet
        before = len(measured)
        np.testing.assert_array_equal(probe.steps(q, (0, 2)), [want[0], math.nan, want[2], math.nan])
        np.testing.assert_array_equal(probe(q), want)
        assert len(measured) == before


def test_a_plain_outline_callable_answers_as_the_probe_does() -> None:
    photo = _photo(5)
    frame = (np.array([120.0, 110.0]), 0.0, 52.0)
    rng = np.random.default_rng(6)
    for x in range(-1, 3):
        for y in range(-1, 3):
            if (x + y) % 3:  # a printed tile lies in most cells
                corners = apply_homography(np.linalg.inv(HOMOGRAPHY), cell_polygon(frame, (x, y), (25.0, 25.0)))
                cv2.fillConvexPoly(photo, np.round(corners).astype(np.int32), tuple(int(v) for v in rng.integers(150, 256, 3)))
    probe = outline_probe(photo, HOMOGRAPHY)
    comp = find_game("habitats").component_index["T001"]  # type: ignore[attr-defined]

    def tile(cell: tuple[int, int]) -> Located:
        pose = np.eye(3)
        pose[:2, 2] = np.array(cell_centre(frame, cell)) - 25.0
        return Located(comp, encode("habitats", "T001"), pose, np.zeros((4, 2)), "tag")

    answers = set()
    for _ in range(24):
        occupied = {(int(x), int(y)): None for x, y in rng.integers(-1, 3, (3, 2))}
        occupied = {cell: tile(cell) for cell in occupied}
        cell = (int(rng.integers(-1, 3)), int(rng.integers(-1, 3)))
        fast = TableView("habitats", (), outline=probe)
        plain = TableView("habitats", (), outline=lambda corners: probe(corners))
        answer = face_outlined(fast, frame, occupied, cell, (50.0, 50.0))
        assert answer == face_outlined(plain, frame, occupied, cell, (50.0, 50.0))
        answers.add(answer)
    assert answers == {True, False}


def _turned_rectangle(frame, cell, half) -> np.ndarray:  # noqa: ANN001
    """A cell's rectangle the plain way: its centre, and the half-sides turned by the grid's angle."""
    a = math.radians(frame[1])
    c, s = math.cos(a), math.sin(a)
    x, y = cell_centre(frame, cell)
    w, h = half
    return np.array([[(c * dx - s * dy) + x, (s * dx + c * dy) + y] for dx, dy in ((-w, -h), (w, -h), (w, h), (-w, h))])


def test_cell_polygons_are_the_cell_polygons_of_each_cell() -> None:
    rng = np.random.default_rng(7)
    for k in range(200):
        frame = (rng.normal(0.0, 300.0, 2), float(rng.uniform(-180.0, 180.0)), float(rng.uniform(40.0, 70.0)))
        cells = [(int(x), int(y)) for x, y in rng.integers(-5, 6, (int(rng.integers(1, 10)), 2))]
        half = (float(rng.uniform(5.0, 30.0)), float(rng.uniform(5.0, 30.0))) if k % 5 else (0.0, 0.0)
        want = np.array([_turned_rectangle(frame, c, half) for c in cells])
        np.testing.assert_array_equal(cell_polygons(frame, cells, half), want)
        np.testing.assert_array_equal(cell_polygon(frame, cells[0], half), want[0])
    assert cell_polygons((np.zeros(2), 0.0, 50.0), [], (10.0, 10.0)).shape == (0, 4, 2)


def test_a_located_face_maps_table_points_to_its_face_the_same_each_time() -> None:
    comp = find_game("habitats").component_index["T001"]  # type: ignore[attr-defined]
    a = math.radians(33.0)
    pose = np.array([[math.cos(a), -math.sin(a), 140.0], [math.sin(a), math.cos(a), -20.0], [0.0, 0.0, 1.0]])
    loc = Located(comp, encode("habitats", "T001"), pose, np.zeros((4, 2)), "tag")
    points = np.random.default_rng(8).normal(0.0, 100.0, (6, 2))
    first = loc.to_face(points)
    np.testing.assert_array_equal(first, apply_homography(np.linalg.inv(pose), points))
    np.testing.assert_array_equal(loc.to_face(points), first)
    np.testing.assert_allclose(loc.face_point(*loc.to_face(points[:1])[0]), points[0], atol=1e-9)
    w, h = comp.size_mm
    assert loc.centre_mm == (float(pose[0, 0] * w / 2 + pose[0, 1] * h / 2 + pose[0, 2]),
                             float(pose[1, 0] * w / 2 + pose[1, 1] * h / 2 + pose[1, 2]))


# -- tag rescue -----------------------------------------------------------------------------


def _tag_photo(rng: np.random.Generator, ids: np.ndarray) -> tuple[np.ndarray, list[Candidate]]:
    """AprilTags at random turns and slants, blurred and noisy, with their (slightly off) quads."""
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_APRILTAG_36h11)
    photo = np.full((560, 900), 200, np.uint8)
    quads = []
    for j, tag_id in enumerate(ids.tolist()):
        tag = cv2.copyMakeBorder(cv2.aruco.generateImageMarker(d, tag_id, 80), 10, 10, 10, 10, cv2.BORDER_CONSTANT, value=255)
        a, s = rng.uniform(0.0, 2 * math.pi), rng.uniform(0.7, 1.2)
        turn = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        square = np.array([[-40, -40], [40, -40], [40, 40], [-40, 40]], float) * s
        dst = (square @ turn.T + [120 + (j % 6) * 130, 120 + (j // 6) * 150] + rng.normal(0, 2, (4, 2))).astype(np.float32)
        h = cv2.getPerspectiveTransform(np.float32([[10, 10], [90, 10], [90, 90], [10, 90]]), dst)
        warped = cv2.warpPerspective(tag, h, (900, 560), borderValue=0)
        inside = cv2.warpPerspective(np.full_like(tag, 255), h, (900, 560)) > 0
        photo[inside] = warped[inside]
        quads.append(Candidate(MarkerKind.TAG, (dst + rng.normal(0, 0.8, (4, 2))).astype(np.float32)))
    photo = cv2.GaussianBlur(photo, (0, 0), float(rng.uniform(0.3, 3.5)))
    return np.clip(photo + rng.normal(0, rng.uniform(0, 25), photo.shape), 0, 255).astype(np.uint8), quads


def _rescue_one_by_one(gray: np.ndarray, candidates: list[Candidate], allowed: set[int]) -> list[tuple[int, int, int]]:
    """Each quad sampled, thresholded and matched on its own: (candidate, tag id, turns)."""
    ids = tuple(sorted(allowed))
    codes, _, owners = _codes(ids)
    n = 8
    ring = np.zeros((n + 2, n + 2), bool)
    ring[0, :] = ring[-1, :] = ring[:, 0] = ring[:, -1] = True
    border = np.zeros((n + 2, n + 2), bool)
    border[1:-1, 1:-1] = True
    border[2:-2, 2:-2] = False
    out = []
    for k, cand in enumerate(candidates):
        src = np.array([[0, 0], [48, 0], [48, 48], [0, 48]], np.float32) + 6
        h = cv2.getPerspectiveTransform(src, cand.corners.astype(np.float32))
        patch = cv2.warpPerspective(gray, h, (60, 60), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                    borderMode=cv2.BORDER_REPLICATE)
        cells = patch.reshape(10, 6, 10, 6)[:, 2:4, :, 2:4].mean(axis=(1, 3))
        black, white = float(np.median(cells[border])), float(np.median(cells[ring]))
        threshold = (black + white) / 2
        if white - black < 25.0 or np.count_nonzero(cells[border] > threshold) > 3:
            continue
        bits = (cells[2:-2, 2:-2] > threshold).ravel()
        dist = np.count_nonzero(codes.astype(bool) != bits, axis=1)
        best = int(np.argmin(dist))
        others = dist[owners != owners[best]]
        if dist[best] > 4 or (len(others) and others.min() < dist[best] + 4):
            continue
        out.append((k, int(owners[best]), best % 4))
    return out


def test_rescued_tags_are_the_ones_each_quad_matches_on_its_own() -> None:
    rng = np.random.default_rng(9)
    accepted = 0
    for _ in range(12):
        ids = rng.choice(587, size=12, replace=False)
        gray, quads = _tag_photo(rng, ids)
        for allowed in (set(ids.tolist()), set(ids[:5].tolist()) | set(rng.choice(587, 40).tolist()), {int(ids[0])}):
            want = _rescue_one_by_one(gray, quads, allowed)
            got = rescue_tags(gray, quads, allowed)
            assert [(k, d.tag_id) for d, k in got] == [(k, i) for k, i, _ in want]
            for (det, k), (_, _, turns) in zip(got, want):
                np.testing.assert_array_equal(det.corners, np.roll(quads[k].corners, turns, axis=0))
            accepted += len(want)
    assert accepted > 50  # the matching path is exercised, not only the rejections


def test_row_medians_are_numpys() -> None:
    rng = np.random.default_rng(10)
    for width in (1, 2, 7, 28, 36):
        values = np.round(rng.uniform(0, 255, (9, width)) * 4) / 4  # cell means: quarters of a grey level
        np.testing.assert_array_equal(_medians(values), np.median(values, axis=1))
