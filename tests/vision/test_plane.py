"""Stage 4: the table plane from markers' printed sizes, robust to an outlier."""

from __future__ import annotations

import numpy as np

from vision.plane import RigidGroup, apply_homography, fit_plane, square


def _camera(tilt_deg: float) -> np.ndarray:
    """Table mm -> image px for a 1080p camera 650 mm away, tilted about the x axis."""
    f = 1371.0
    k = np.array([[f, 0, 960], [0, f, 540], [0, 0, 1]])
    a = np.radians(tilt_deg)
    r = np.array([[1, 0, 0], [0, np.cos(a), -np.sin(a)], [0, np.sin(a), np.cos(a)]])
    return k @ np.column_stack([r[:, 0], r[:, 1], [-200, -100, 650.0]])


def _scene(tilt: float, noise: float, seed: int) -> tuple[list[RigidGroup], list[np.ndarray], np.ndarray]:
    rng = np.random.default_rng(seed)
    g = _camera(tilt)
    groups, truth = [], []
    for _ in range(30):
        c, th = rng.uniform(0, 400, 2), rng.uniform(0, 2 * np.pi)
        rot = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])
        pts = square(16) @ rot.T + c
        groups.append(RigidGroup(apply_homography(g, pts) + rng.normal(0, noise, (4, 2)), square(16)))
        truth.append(pts)
    return groups, truth, g


def _max_distance_error(plane, groups, truth) -> float:
    a = np.array([t.mean(axis=0) for t in truth])
    b = plane.to_table(np.array([gr.image.mean(axis=0) for gr in groups[: len(truth)]]))
    da = np.linalg.norm(a[:, None] - a[None], axis=2)
    db = np.linalg.norm(b[:, None] - b[None], axis=2)
    return float(np.abs(da - db).max())


def test_exact_markers_give_exact_plane() -> None:
    groups, truth, _ = _scene(35, 0.0, 1)
    plane = fit_plane(groups)
    assert plane is not None and plane.rms_mm < 1e-6
    assert _max_distance_error(plane, groups, truth) < 0.05


def test_noisy_tilted_markers_give_millimetre_distances() -> None:
    groups, truth, _ = _scene(40, 0.3, 2)
    plane = fit_plane(groups)
    assert plane is not None
    # 30 tags of 16 mm spread over 40 cm: distances across the table within 1.5 mm.
    assert _max_distance_error(plane, groups, truth) < 1.5
    assert plane.rms_mm < 0.5


def test_a_marker_of_another_size_is_an_outlier() -> None:
    groups, truth, g = _scene(25, 0.2, 3)
    wrong = RigidGroup(apply_homography(g, square(30) + 200), square(16))
    plane = fit_plane(groups + [wrong])
    assert plane is not None
    assert plane.outliers == (30,)
    assert _max_distance_error(plane, groups, truth) < 1.5


def test_no_markers_no_plane() -> None:
    assert fit_plane([]) is None
