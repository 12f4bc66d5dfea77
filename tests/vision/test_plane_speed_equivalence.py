"""The batched plane and identification steps equal their straightforward one-at-a-time forms."""

from __future__ import annotations

import numpy as np
import pytest

from scoring.payload import encode
from vision.detect import Detection, MarkerKind
from vision.identify import (
    MarkRole,
    Sighting,
    _face_reach,
    _fused_homographies,
    _fused_homography,
    _maybe_near,
    _mark_homography,
    _name,
    _where_mark,
    catalog_for,
)
from vision.plane import (
    RigidGroup,
    _Packed,
    _frame,
    _normaliser,
    apply_homographies,
    apply_homography,
    fit_plane,
    group_residual,
    initial_homography,
    refine,
    square,
    weighted_dlt,
    weighted_dlts,
)


def _camera(rng: np.random.Generator) -> np.ndarray:
    """Table mm -> image px for a tilted 1080p camera."""
    f, a = 1371.0, np.radians(rng.uniform(0, 50))
    k = np.array([[f, 0, 960], [0, f, 540], [0, 0, 1]])
    r = np.array([[1, 0, 0], [0, np.cos(a), -np.sin(a)], [0, np.sin(a), np.cos(a)]])
    return k @ np.column_stack([r[:, 0], r[:, 1], [-200, -100, rng.uniform(500, 800)]])


def _groups(seed: int) -> list[RigidGroup]:
    """Markers, tag + QR pairs, odd point sets and a few of the wrong printed size, with noise."""
    rng = np.random.default_rng(seed)
    cam = _camera(rng)
    out = []
    for _ in range(int(rng.integers(3, 30))):
        c, th = rng.uniform(0, 400, 2), rng.uniform(0, 2 * np.pi)
        rot = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])
        kind = rng.integers(0, 10)
        if kind < 6:
            local = square(16)
        elif kind < 8:
            local = np.vstack([square(16), square(20) + (30, 0)])
        else:
            local = rng.uniform(0, 60, (int(rng.integers(3, 9)), 2))
        scale = 1.0 if rng.random() < 0.85 else 1.4
        image = apply_homography(cam, (local * scale) @ rot.T + c) + rng.normal(0, 0.4, (len(local), 2))
        out.append(RigidGroup(image, local, float(rng.choice([1.0, 0.5]))))
    return out


def _straight_refine(h: np.ndarray, groups: list[RigidGroup], active: list[int], iterations: int) -> np.ndarray:
    """Levenberg-Marquardt with its forward-difference Jacobian taken one column at a time."""
    packed = _Packed(groups, active)
    tn = _normaliser(packed.image)
    hn = h @ np.linalg.inv(tn)
    x = (hn / hn[2, 2]).ravel()[:8]

    def hom(v: np.ndarray) -> np.ndarray:
        return np.append(v, 1.0).reshape(3, 3) @ tn

    r = packed.residuals(hom(x))
    cost = float(r @ r)
    lam = 1e-3
    for _ in range(iterations):
        jac = np.empty((len(r), 8))
        for k in range(8):
            step = 1e-6 * max(1.0, abs(x[k]))
            xk = x.copy()
            xk[k] += step
            jac[:, k] = (packed.residuals(hom(xk)) - r) / step
        jtj, jtr = jac.T @ jac, jac.T @ r
        improved = False
        for _ in range(8):
            xn = x + np.linalg.solve(jtj + lam * np.diag(np.diag(jtj) + 1e-12), -jtr)
            rn = packed.residuals(hom(xn))
            cn = float(rn @ rn)
            if np.isfinite(cn) and cn < cost:
                x, r, lam = xn, rn, lam * 0.3
                improved = cost - cn > 1e-9 * cost
                cost = cn
                break
            lam *= 10
        if not improved:
            break
    return _frame(hom(x), groups, active)


@pytest.mark.parametrize("seed", range(8))
def test_batched_residuals_are_each_groups_own_rigid_fit(seed: int) -> None:
    groups = _groups(seed)
    active = list(np.random.default_rng(seed).permutation(len(groups)))
    packed = _Packed(groups, active)
    h = initial_homography(groups, active)
    assert h is not None
    hs = np.stack([h, h * 1.001, h + 1e-4 * np.eye(3)])
    many = packed.residuals_many(hs)
    for row, hk in zip(many, hs):
        np.testing.assert_array_equal(row, packed.residuals(hk))
        rms = packed.group_rms(hk)
        straight = [group_residual(hk, groups[i]) for i in active]
        np.testing.assert_allclose(rms, straight, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("seed", range(8))
def test_refine_equals_column_by_column_jacobian(seed: int) -> None:
    groups = _groups(seed)
    active = list(range(len(groups)))
    h0 = initial_homography(groups, active)
    assert h0 is not None
    np.testing.assert_allclose(refine(h0, groups, active, 20), _straight_refine(h0, groups, active, 20), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("seed", range(8))
def test_plane_verdict_equals_per_group_residuals(seed: int) -> None:
    groups = _groups(seed)
    plane = fit_plane(groups)
    assert plane is not None
    straight = [group_residual(plane.homography, g) for g in groups]
    np.testing.assert_allclose(plane.residuals_mm, straight, rtol=1e-9, atol=1e-9)
    assert sorted(plane.inliers + plane.outliers) == list(range(len(groups)))
    sq = [len(groups[i].image) * straight[i] ** 2 for i in plane.inliers]
    n = sum(len(groups[i].image) for i in plane.inliers)
    assert plane.rms_mm == pytest.approx(float(np.sqrt(sum(sq) / n)), rel=1e-9)


def test_batched_dlt_and_mapping_equal_one_at_a_time() -> None:
    rng = np.random.default_rng(7)
    for n in (5, 8, 12):
        src = rng.uniform(0, 60, (6, n, 2))
        h = np.eye(3) + rng.normal(0, 0.2, (6, 3, 3)) * [[1, 1, 100], [1, 1, 100], [1e-3, 1e-3, 0]]
        dst = apply_homographies(h, src) + rng.normal(0, 0.3, (6, n, 2))
        w = rng.choice([1.0, 0.5], (6, n))
        for k, got in enumerate(weighted_dlts(src, dst, w)):
            np.testing.assert_allclose(got, weighted_dlt(src[k], dst[k], w[k]), rtol=1e-10, atol=1e-12)
            np.testing.assert_allclose(apply_homographies(h, src)[k], apply_homography(h[k], src[k]), rtol=1e-12)


def _face(rng: np.random.Generator) -> np.ndarray:
    s, th = rng.uniform(1.5, 5), rng.uniform(0, 2 * np.pi)
    x, y = rng.uniform(0, 1200, 2)
    return np.array([[s * np.cos(th), -s * np.sin(th), x], [s * np.sin(th), s * np.cos(th), y], [1e-5, -1e-5, 1.0]])


def _detections(seed: int) -> list[Detection]:
    """Habitats tiles, tag and code: most agree, some codes name another tile or are not ours."""
    rng = np.random.default_rng(seed)
    cat = catalog_for("habitats")
    comps = [c for c in cat.components.values() if c.id in cat.qr_marks]
    out = []
    for _ in range(25):
        c, h = comps[int(rng.integers(len(comps)))], _face(rng)
        if rng.random() < 0.8:
            out.append(Detection(MarkerKind.TAG, apply_homography(h, cat.by_tag[c.tag].face_corners()), tag_id=c.tag))
        if rng.random() < 0.7:
            r = rng.random()
            text = encode("habitats", c.id) if r < 0.7 else encode("habitats", comps[0].id) if r < 0.9 else "https://x.org"
            out.append(Detection(MarkerKind.QR, apply_homography(h, cat.qr_marks[c.id].face_corners()), payload=text))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_batched_identification_steps_equal_one_at_a_time(seed: int) -> None:
    cat = catalog_for("habitats")
    dets = _detections(seed)
    items = [(d, m, _mark_homography(d, m)) for d in dets for m, _ in [_name(d, cat)] if m is not None]
    centres, radii = _face_reach(items)
    for (d, m, h), c, r in zip(items, centres, radii):
        w, hh = m.component.size_mm
        np.testing.assert_allclose(c, apply_homography(h, np.array([[w / 2, hh / 2]]))[0], rtol=1e-12)
        assert r == pytest.approx(0.4 * min(w, hh) * d.side_px / m.size_mm, rel=1e-12)
    faces = [([d], [m]) for d, m, _ in items[:4]] + [([a[0], b[0]], [a[1], b[1]]) for a, b in zip(items[::2], items[1::2])]
    for (ds, ms), got in zip(faces, _fused_homographies(faces)):
        np.testing.assert_allclose(got, _fused_homography(ds, ms), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_near_markers_are_never_missed(seed: int) -> None:
    """Every one-marker sighting whose face's other marker would lie on another marker is
    flagged (the exact check runs only for those flagged)."""
    cat = catalog_for("habitats")
    singles, foreign = [], []
    for d in _detections(seed):
        mark, bad = _name(d, cat)
        if mark is not None:
            singles.append(Sighting(mark.component, "", (d,), (mark,), _mark_homography(d, mark)))
        elif bad is not None:
            foreign.append(bad)
    flagged = _maybe_near(singles, foreign, cat)
    near = 0
    for s, flag in zip(singles, flagged):
        other = MarkRole.QR if s.marks[0].role is MarkRole.TAG else MarkRole.TAG
        where = _where_mark(s, other, cat)
        if where is None:
            continue
        centre, side = where
        others = [t.detections[0].centre for t in singles if t is not s] + [f.detection.centre for f in foreign]
        if any(np.linalg.norm(p - centre) < 0.4 * side for p in others):
            near += 1
            assert flag
    assert near > 0
