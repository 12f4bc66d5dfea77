"""Stage 4: the table plane, a homography from image pixels to table millimetres.

Every located component is a rigid group of points whose shape is known in millimetres
(its markers' printed squares, or a board's anchor tags at their printed places). A
closed-form start (the vanishing line from how marker areas shrink across the image,
then the metric part shared by every marker's own affine map) is refined by
Levenberg-Marquardt on the homography's 8 entries, each group's rigid pose on the table
solved in closed form inside the residual. So the markers' printed sizes fix the scale
and their distortion across the image fixes the perspective, without knowing where any
of them lies. Groups that stay far from their printed shape are outliers (a card held in
a hand, a tag printed at another size) and are dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True, slots=True, eq=False)
class RigidGroup:
    """Image points whose relative positions on the table are known (one marker, one board)."""

    image: np.ndarray
    """(n, 2) image pixels."""
    local: np.ndarray
    """(n, 2) the same points in the group's own frame, millimetres (y down)."""
    weight: float = 1.0
    """Trust in the corner positions: sub-pixel tag corners 1.0, integer QR corners less."""


@dataclass(frozen=True, slots=True, eq=False)
class Plane:
    """Image -> table mapping; the table frame is millimetres with y down (clockwise angles)."""

    homography: np.ndarray
    """3x3, image pixels -> table mm."""
    rms_mm: float
    """Root-mean-square distance of inlier points from their printed shapes, in mm."""
    inliers: tuple[int, ...]
    """Indices of the groups used in the final fit."""
    outliers: tuple[int, ...]
    residuals_mm: tuple[float, ...] = ()
    """Per group: RMS distance of its points from its printed shape on this plane."""

    def to_table(self, points: np.ndarray) -> np.ndarray:
        return apply_homography(self.homography, points)

    def to_image(self, points: np.ndarray) -> np.ndarray:
        return apply_homography(np.linalg.inv(self.homography), points)


def apply_homography(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Map (n, 2) points through a 3x3 homography."""
    p = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    q = p @ h[:, :2].T + h[:, 2]
    return q[:, :2] / q[:, 2:3]


def _normaliser(p: np.ndarray) -> np.ndarray:
    c = p.mean(axis=0)
    d = np.sqrt(((p - c) ** 2).sum(axis=1)).mean()
    s = np.sqrt(2) / d if d > 1e-12 else 1.0
    return np.array([[s, 0, -s * c[0]], [0, s, -s * c[1]], [0, 0, 1.0]])


def _normalisers(p: np.ndarray) -> np.ndarray:
    """``_normaliser`` of each of k point sets (k, n, 2): centroid to the origin, mean
    distance sqrt(2)."""
    c = p.mean(axis=1)
    d = np.sqrt(((p - c[:, None, :]) ** 2).sum(axis=2)).mean(axis=1)
    s = np.ones_like(d)
    big = d > 1e-12
    s[big] = np.sqrt(2) / d[big]
    t = np.zeros((len(p), 3, 3))
    t[:, 0, 0] = t[:, 1, 1] = s
    t[:, 0, 2] = -s * c[:, 0]
    t[:, 1, 2] = -s * c[:, 1]
    t[:, 2, 2] = 1.0
    return t


def apply_homographies(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    """``apply_homography`` of k homographies (k, 3, 3) to k point sets (k, n, 2)."""
    q = np.matmul(points, h[:, :, :2].transpose(0, 2, 1)) + h[:, None, :, 2]
    return q[..., :2] / q[..., 2:3]


def weighted_dlt(src: np.ndarray, dst: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Homography src -> dst by a Hartley-normalised, weighted direct linear transform
    (four points fix it exactly: then weights do not matter and OpenCV solves it directly)."""
    if len(src) == 4:
        h = cv2.getPerspectiveTransform(np.asarray(src, np.float32), np.asarray(dst, np.float32)).astype(np.float64)
        if np.all(np.isfinite(h)) and abs(h[2, 2]) > 1e-12:
            return h / h[2, 2]
    return weighted_dlts(
        np.asarray(src, np.float64)[None], np.asarray(dst, np.float64)[None], np.asarray(weights, np.float64)[None]
    )[0]


def weighted_dlts(src: np.ndarray, dst: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``weighted_dlt`` of k problems of one size at once, (k, n, 2) and weights (k, n) ->
    (k, 3, 3), by one stacked SVD (always the linear solution, also for four points)."""
    ts, td = _normalisers(src), _normalisers(dst)
    s = apply_homographies(ts, src)
    d = apply_homographies(td, dst)
    k, n = s.shape[:2]
    a = np.zeros((k, n, 2, 9))
    x, y, u, v = s[..., 0], s[..., 1], d[..., 0], d[..., 1]
    a[:, :, 0, 0], a[:, :, 0, 1], a[:, :, 0, 2] = x, y, 1
    a[:, :, 0, 6], a[:, :, 0, 7], a[:, :, 0, 8] = -u * x, -u * y, -u
    a[:, :, 1, 3], a[:, :, 1, 4], a[:, :, 1, 5] = x, y, 1
    a[:, :, 1, 6], a[:, :, 1, 7], a[:, :, 1, 8] = -v * x, -v * y, -v
    w = np.sqrt(weights)[:, :, None, None]
    _, _, vt = np.linalg.svd((a * w).reshape(k, 2 * n, 9))
    h = np.linalg.inv(td) @ vt[:, -1].reshape(k, 3, 3) @ ts
    return h / h[:, 2:, 2:]


def rigid_fit(local: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rotation R (2x2, no reflection) and translation t minimising |R local + t - target| (closed form)."""
    mc, tc = local.mean(axis=0), target.mean(axis=0)
    lc, tcen = local - mc, target - tc
    cross = float(np.sum(lc[:, 0] * tcen[:, 1] - lc[:, 1] * tcen[:, 0]))
    dot = float(np.sum(lc[:, 0] * tcen[:, 0] + lc[:, 1] * tcen[:, 1]))
    a = np.arctan2(cross, dot)
    c, s = np.cos(a), np.sin(a)
    r = np.array([[c, -s], [s, c]])
    return r, tc - r @ mc


def rigid_fits(local: np.ndarray, target: np.ndarray, group: np.ndarray) -> np.ndarray:
    """``rigid_fit`` of many point sets at once (``group``: each point's set, 0..n-1, every set
    non-empty), as (n, 3, 3) transforms taking ``local`` onto ``target``."""
    count = np.bincount(group).astype(float)

    def mean(p: np.ndarray) -> np.ndarray:
        return np.stack([np.bincount(group, p[:, k]) / count for k in range(2)], axis=1)

    lm, tm = mean(local), mean(target)
    lc, tc = local - lm[group], target - tm[group]
    a = np.arctan2(np.bincount(group, lc[:, 0] * tc[:, 1] - lc[:, 1] * tc[:, 0]),
                   np.bincount(group, lc[:, 0] * tc[:, 0] + lc[:, 1] * tc[:, 1]))
    c, s = np.cos(a), np.sin(a)
    m = np.zeros((len(count), 3, 3))
    m[:, 0, 0], m[:, 0, 1], m[:, 1, 0], m[:, 1, 1], m[:, 2, 2] = c, -s, s, c, 1.0
    m[:, 0, 2] = tm[:, 0] - (c * lm[:, 0] - s * lm[:, 1])
    m[:, 1, 2] = tm[:, 1] - (s * lm[:, 0] + c * lm[:, 1])
    return m


def group_residual(h: np.ndarray, group: RigidGroup) -> float:
    """RMS distance (mm) between a group's mapped points and its best rigid printed shape."""
    mapped = apply_homography(h, group.image)
    r, t = rigid_fit(group.local, mapped)
    return float(np.sqrt(((group.local @ r.T + t - mapped) ** 2).sum(axis=1).mean()))


class _Packed:
    """All groups' points in flat arrays (each group's points contiguous), for vectorised
    residuals of one homography or of a batch of them (a finite-difference Jacobian)."""

    def __init__(self, groups: Sequence[RigidGroup], active: Iterable[int]) -> None:
        chosen = [groups[i] for i in active]
        images = [g.image for g in chosen]
        self.n = len(chosen)
        self.sizes = np.array([len(p) for p in images], dtype=np.intp)
        self.image = np.concatenate(images).astype(np.float64, copy=False)
        self.local = np.concatenate([g.local for g in chosen]).astype(np.float64, copy=False)
        self.index = np.repeat(np.arange(self.n), self.sizes)
        self.count = self.sizes.astype(np.float64)
        self.group_weight = np.array([g.weight for g in chosen], dtype=np.float64)
        self.weight = np.repeat(np.sqrt(self.group_weight), self.sizes)
        self.local_c = self.local - self._mean(self.local)[self.index]
        lx, ly = self.local_c[:, 0], self.local_c[:, 1]
        # The centred printed points (x; y) and the same turned a quarter (-y; x): a rotation
        # by (cos, sin) is cos * the first plus sin * the second.
        self._local = (np.stack([lx, ly]), np.stack([-ly, lx]))
        self._image_t = np.ascontiguousarray(self.image.T)
        self._batches: dict[int, tuple[np.ndarray, ...]] = {}

    def _mean(self, p: np.ndarray) -> np.ndarray:
        return np.stack(
            [np.bincount(self.index, p[:, k], self.n) / self.count for k in range(2)], axis=1
        )

    def _batch(self, k: int) -> tuple[np.ndarray, ...]:
        """Bins for k stacked copies of the points laid out (copy, coordinate, point): copy j's
        x values of group g in bin 2jn + g, its y values in bin (2j + 1)n + g, so that one
        bincount sums every copy's groups in both coordinates."""
        got = self._batches.get(k)
        if got is None:
            both = (self.index + self.n * np.arange(2 * k)[:, None]).ravel()
            got = (both, np.tile(self.count, 2 * k))
            self._batches[k] = got
        return got

    def group_rms(self, h: np.ndarray) -> np.ndarray:
        """Unweighted RMS distance (mm) of each group's points from its best rigid printed shape."""
        return self._rms(self.residuals(h))

    def _rms(self, r: np.ndarray) -> np.ndarray:
        u = r.reshape(-1, 2) / self.weight[:, None]
        return np.sqrt(np.bincount(self.index, (u**2).sum(axis=1), self.n) / self.count)

    def residuals(self, h: np.ndarray) -> np.ndarray:
        """Each mapped point minus its group's best rigid printed shape (mm, weighted)."""
        return self.residuals_many(h[None])[0]

    def residuals_many(self, hs: np.ndarray) -> np.ndarray:
        """``residuals`` of each of k homographies (k, 3, 3), as (k, 2 * points)."""
        k, size = len(hs), self.n * len(hs)
        both, count = self._batch(k)
        local, turned = self._local
        q = np.matmul(hs[:, :, :2], self._image_t) + hs[:, :, 2:]
        m = q[:, :2] / q[:, 2:]
        flat = m.reshape(-1)
        flat -= (np.bincount(both, flat, 2 * size) / count)[both]
        a, b = local * m, turned * m
        terms = np.empty_like(m)
        np.add(b[:, 1], b[:, 0], out=terms[:, 0])
        np.add(a[:, 0], a[:, 1], out=terms[:, 1])
        sums = np.bincount(both, terms.reshape(-1), 2 * size).reshape(k, 2, self.n)
        ang = np.arctan2(sums[:, 0], sums[:, 1])
        c, s = np.cos(ang)[:, None, self.index], np.sin(ang)[:, None, self.index]
        r = (m - (c * local + s * turned)) * self.weight
        out = np.empty((k, len(self.index), 2))
        out[:, :, 0] = r[:, 0]
        out[:, :, 1] = r[:, 1]
        return out.reshape(k, -1)


def _quads(groups: Sequence[RigidGroup], active: Sequence[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every marker square of the active groups: image quads, printed quads, weights."""
    img, loc, wts = [], [], []
    for i in active:
        g = groups[i]
        n = len(g.image) // 4 * 4
        if n:
            img.append(g.image[:n].reshape(-1, 4, 2))
            loc.append(g.local[:n].reshape(-1, 4, 2))
            wts.append(np.full(n // 4, g.weight))
    if not img:
        return np.zeros((0, 4, 2)), np.zeros((0, 4, 2)), np.zeros(0)
    return np.concatenate(img), np.concatenate(loc), np.concatenate(wts)


def _packed_quads(
    packed: _Packed, groups: Sequence[RigidGroup], active: Sequence[int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``_quads`` read off the packed points when every group is whole squares (as markers are)."""
    if not np.all(packed.sizes % 4 == 0):
        return _quads(groups, active)
    weights = np.repeat(packed.group_weight, packed.sizes // 4)
    return packed.image.reshape(-1, 4, 2), packed.local.reshape(-1, 4, 2), weights


def _quad_areas(q: np.ndarray) -> np.ndarray:
    x, y = q[..., 0], q[..., 1]
    nx, ny = x[:, [1, 2, 3, 0]], y[:, [1, 2, 3, 0]]
    return 0.5 * np.abs(np.sum(x * ny - y * nx, axis=1))


def initial_homography(groups: Sequence[RigidGroup], active: Sequence[int]) -> np.ndarray | None:
    """A closed-form guess: vanishing line from how marker areas shrink, then the affine part.

    For a plane, (image area / printed area)^(1/3) of a small marker is linear in its image
    position (it is proportional to the vanishing line's value there); after removing the
    perspective, every marker's own affine map shares one metric part M (M^T M averaged).
    """
    return _initial(_quads(groups, active), groups, active)


def _initial(
    quads: tuple[np.ndarray, np.ndarray, np.ndarray], groups: Sequence[RigidGroup], active: Sequence[int]
) -> np.ndarray | None:
    """``initial_homography`` from the active groups' marker squares (``_quads``)."""
    img, loc, wts = quads
    if len(img) == 0:
        return None
    ai, al = _quad_areas(img), _quad_areas(loc)
    ok = (ai > 0) & (al > 0)
    if not ok.all():
        if not ok.any():
            return None
        img, loc, wts, ai, al = img[ok], loc[ok], wts[ok], ai[ok], al[ok]
    centres = img.mean(axis=1)
    rhs = (ai / al) ** (1 / 3)
    norm = _normaliser(centres) if len(centres) > 1 else np.eye(3)
    pn = apply_homography(norm, centres)
    a = np.column_stack([pn, np.ones(len(pn))])
    line = np.array([0.0, 0.0, float(np.mean(rhs))])
    if len(centres) >= 3 and np.linalg.matrix_rank(a) == 3:
        fitted, *_ = np.linalg.lstsq(a * wts[:, None], rhs * wts, rcond=None)
        if np.all(a @ fitted > 0):
            line = fitted
    persp = np.eye(3)
    persp[2] = line
    p = persp @ norm
    q = apply_homography(p, img.reshape(-1, 2)).reshape(-1, 4, 2)
    design = np.concatenate([q, np.ones((len(q), 4, 1))], axis=2)  # (n, 4, 3)
    dtd = np.einsum("nki,nkj->nij", design, design)
    dtl = np.einsum("nki,nkj->nij", design, loc)
    try:
        sol = np.linalg.solve(dtd, dtl)  # (n, 3, 2): rows x, y, 1
    except np.linalg.LinAlgError:
        return None
    m = np.transpose(sol[:, :2, :], (0, 2, 1))  # (n, 2, 2) local = m @ q + c
    acc = np.einsum("n,nki,nkj->ij", wts, m, m) / wts.sum()
    vals, vecs = np.linalg.eigh(acc)
    if vals.min() <= 0:
        return None
    metric = vecs @ np.diag(np.sqrt(vals)) @ vecs.T
    h = np.eye(3)
    h[:2, :2] = metric
    return _frame(h @ p, groups, active)


def _cross2(u: np.ndarray, v: np.ndarray) -> float:
    return float(u[0] * v[1] - u[1] * v[0])


def _frame(h: np.ndarray, groups: Sequence[RigidGroup], active: Sequence[int]) -> np.ndarray:
    """Put the table origin and axes on the first active group (mirror-free)."""
    g = groups[active[0]]
    m = apply_homography(h, g.image)
    if len(g.local) >= 3:
        a = _cross2(g.local[1] - g.local[0], g.local[2] - g.local[0])
        b = _cross2(m[1] - m[0], m[2] - m[0])
        if a * b < 0:
            h = np.diag([-1.0, 1.0, 1.0]) @ h
            m = apply_homography(h, g.image)
    r, t = rigid_fit(m, g.local)
    frame = np.eye(3)
    frame[:2, :2], frame[:2, 2] = r, t
    out = frame @ h
    return out / out[2, 2]


def refine(h: np.ndarray, groups: Sequence[RigidGroup], active: Sequence[int], iterations: int) -> np.ndarray:
    """Levenberg-Marquardt on the homography's 8 entries; group poses are solved in closed form."""
    return _refine(h, _Packed(groups, active), groups, active, iterations)


def _refine(
    h: np.ndarray, packed: _Packed, groups: Sequence[RigidGroup], active: Sequence[int], iterations: int
) -> np.ndarray:
    """``refine`` on groups already packed; the forward-difference Jacobian's 8 perturbed
    homographies are evaluated in one batched residual call."""
    tn = _normaliser(packed.image)
    tn_inv = np.linalg.inv(tn)
    hn = h @ tn_inv
    x = (hn / hn[2, 2]).ravel()[:8]
    ones = np.ones((8, 1))

    def hom(v: np.ndarray) -> np.ndarray:
        """(k, 8) normalised entries -> (k, 3, 3) homographies of image pixels."""
        return np.concatenate([v, ones[: len(v)]], axis=1).reshape(-1, 3, 3) @ tn

    r = packed.residuals_many(hom(x[None]))[0]
    cost = float(r @ r)
    lam = 1e-3
    for _ in range(iterations):
        steps = 1e-6 * np.maximum(1.0, np.abs(x))
        moved = packed.residuals_many(hom(x + np.diag(steps)))
        jac = np.ascontiguousarray(((moved - r) / steps[:, None]).T)
        jtj, jtr = jac.T @ jac, jac.T @ r
        improved = False
        for _ in range(8):
            dx = np.linalg.solve(jtj + lam * np.diag(np.diag(jtj) + 1e-12), -jtr)
            xn = x + dx
            rn = packed.residuals_many(hom(xn[None]))[0]
            cn = float(rn @ rn)
            if np.isfinite(cn) and cn < cost:
                x, r, lam = xn, rn, lam * 0.3
                improved = cost - cn > 1e-9 * cost
                cost = cn
                break
            lam *= 10
        if not improved:
            break
    return _frame(hom(x[None])[0], groups, active)


def fit_plane(
    groups: Sequence[RigidGroup],
    *,
    iterations: int = 20,
    outlier_mm: float = 2.0,
    start: np.ndarray | None = None,
) -> Plane | None:
    """The table plane from rigid groups, or None when nothing can fix it (no group).
    ``start``: a plane fitted to most of these groups already (a refit after a second look
    read a few more tags), used instead of the closed-form start for the first round."""
    if not groups:
        return None
    everything = _Packed(groups, range(len(groups)))
    order = _by_size(everything)
    active = order
    h: np.ndarray | None = None
    for round_ in range(4):
        packed = _Packed(groups, active)
        if round_ == 0 and start is not None:
            h0 = start
        else:
            h0 = _initial(_packed_quads(packed, groups, active), groups, active)
        if h0 is None:
            return None
        h = _refine(h0, packed, groups, active, iterations)
        res = packed.group_rms(h)
        limit = max(outlier_mm, 3.0 * float(np.median(res)))
        keep = [i for i, r in zip(active, res) if r <= limit]
        if len(keep) == len(active) or not keep:
            break
        active = keep
    if h is None:
        return None
    return _judged(h, everything, groups, outlier_mm, active)


def _by_size(packed: _Packed) -> list[int]:
    """Group indices, the largest in the image (bounding box, times trust) first: the first
    one frames the table."""
    if not packed.sizes.all():
        raise ValueError("a rigid group without points")
    starts = np.concatenate([[0], np.cumsum(packed.sizes)[:-1]])
    span = np.maximum.reduceat(packed.image, starts) - np.minimum.reduceat(packed.image, starts)
    keys = (-(span[:, 0] * span[:, 1]) * packed.group_weight).tolist()
    return sorted(range(packed.n), key=keys.__getitem__)


def extended(plane: Plane, groups: Sequence[RigidGroup], *, outlier_mm: float = 2.0) -> Plane:
    """The same plane judged against a longer list of groups (a last look read a few more
    tags on it): each group's residual and whether it is an inlier, without a refit."""
    return _judged(plane.homography, _Packed(groups, range(len(groups))), groups, outlier_mm, None)


def _judged(
    h: np.ndarray, everything: _Packed, groups: Sequence[RigidGroup], outlier_mm: float, among: Sequence[int] | None
) -> Plane:
    """Every group's residual on the plane h (``everything``: all groups packed in order) and
    the inliers: within ``outlier_mm`` or three times the median residual of the groups
    ``among`` (all when None)."""
    r = everything.residuals(h)
    res_all = everything._rms(r)
    limit = max(outlier_mm, 3.0 * float(np.median(res_all if among is None else res_all[among])))
    inside = res_all <= limit
    inliers = tuple(np.flatnonzero(inside).tolist())
    outliers = tuple(np.flatnonzero(~inside).tolist())
    if not inliers:
        rms = float("inf")
    else:
        if len(inliers) < len(groups):
            part = _Packed(groups, inliers)
            r = part.residuals(h)
        else:
            part = everything
        rms = float(np.sqrt(np.mean((r.reshape(-1, 2) / part.weight[:, None]).ravel() ** 2) * 2))
    return Plane(h, rms, inliers, outliers, tuple(res_all.tolist()))


def square(size_mm: float) -> np.ndarray:
    """A marker's printed corners in its own frame, clockwise from its top-left."""
    return np.array([[0, 0], [size_mm, 0], [size_mm, size_mm], [0, size_mm]], dtype=np.float64)
