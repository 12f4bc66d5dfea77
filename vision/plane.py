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


def weighted_dlt(src: np.ndarray, dst: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Homography src -> dst by a Hartley-normalised, weighted direct linear transform
    (four points fix it exactly: then weights do not matter and OpenCV solves it directly)."""
    if len(src) == 4:
        h = cv2.getPerspectiveTransform(np.asarray(src, np.float32), np.asarray(dst, np.float32)).astype(np.float64)
        if np.all(np.isfinite(h)) and abs(h[2, 2]) > 1e-12:
            return h / h[2, 2]
    ts, td = _normaliser(src), _normaliser(dst)
    s = apply_homography(ts, src)
    d = apply_homography(td, dst)
    n = len(s)
    a = np.zeros((2 * n, 9))
    x, y, u, v = s[:, 0], s[:, 1], d[:, 0], d[:, 1]
    a[0::2, 0], a[0::2, 1], a[0::2, 2] = x, y, 1
    a[0::2, 6], a[0::2, 7], a[0::2, 8] = -u * x, -u * y, -u
    a[1::2, 3], a[1::2, 4], a[1::2, 5] = x, y, 1
    a[1::2, 6], a[1::2, 7], a[1::2, 8] = -v * x, -v * y, -v
    w = np.repeat(np.sqrt(weights), 2)
    _, _, vt = np.linalg.svd(a * w[:, None])
    h = np.linalg.inv(td) @ vt[-1].reshape(3, 3) @ ts
    return h / h[2, 2]


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


def group_residual(h: np.ndarray, group: RigidGroup) -> float:
    """RMS distance (mm) between a group's mapped points and its best rigid printed shape."""
    mapped = apply_homography(h, group.image)
    r, t = rigid_fit(group.local, mapped)
    return float(np.sqrt(((group.local @ r.T + t - mapped) ** 2).sum(axis=1).mean()))


class _Packed:
    """All groups' points in flat arrays, for vectorised residuals."""

    def __init__(self, groups: Sequence[RigidGroup], active: Iterable[int]) -> None:
        active = list(active)
        self.image = np.vstack([groups[i].image for i in active])
        self.local = np.vstack([groups[i].local for i in active])
        self.index = np.concatenate([np.full(len(groups[i].image), k) for k, i in enumerate(active)])
        self.count = np.bincount(self.index).astype(np.float64)
        self.weight = np.sqrt(
            np.concatenate([np.full(len(groups[i].image), groups[i].weight) for i in active])
        )
        self.n = len(active)
        self.local_c = self.local - self._mean(self.local)[self.index]

    def _mean(self, p: np.ndarray) -> np.ndarray:
        return np.stack(
            [np.bincount(self.index, p[:, k], self.n) / self.count for k in range(2)], axis=1
        )

    def group_rms(self, h: np.ndarray) -> np.ndarray:
        """Unweighted RMS distance (mm) of each group's points from its best rigid printed shape."""
        r = self.residuals(h).reshape(-1, 2) / self.weight[:, None]
        return np.sqrt(np.bincount(self.index, (r**2).sum(axis=1), self.n) / self.count)

    def residuals(self, h: np.ndarray) -> np.ndarray:
        """Each mapped point minus its group's best rigid printed shape (mm, weighted)."""
        m = apply_homography(h, self.image)
        mean = self._mean(m)
        mc = m - mean[self.index]
        lc = self.local_c
        cross = np.bincount(self.index, lc[:, 0] * mc[:, 1] - lc[:, 1] * mc[:, 0], self.n)
        dot = np.bincount(self.index, lc[:, 0] * mc[:, 0] + lc[:, 1] * mc[:, 1], self.n)
        ang = np.arctan2(cross, dot)[self.index]
        c, s = np.cos(ang), np.sin(ang)
        tx = c * lc[:, 0] - s * lc[:, 1]
        ty = s * lc[:, 0] + c * lc[:, 1]
        r = np.stack([mc[:, 0] - tx, mc[:, 1] - ty], axis=1) * self.weight[:, None]
        return r.ravel()


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


def _quad_areas(q: np.ndarray) -> np.ndarray:
    x, y = q[..., 0], q[..., 1]
    return 0.5 * np.abs(np.sum(x * np.roll(y, -1, axis=1) - y * np.roll(x, -1, axis=1), axis=1))


def initial_homography(groups: Sequence[RigidGroup], active: Sequence[int]) -> np.ndarray | None:
    """A closed-form guess: vanishing line from how marker areas shrink, then the affine part.

    For a plane, (image area / printed area)^(1/3) of a small marker is linear in its image
    position (it is proportional to the vanishing line's value there); after removing the
    perspective, every marker's own affine map shares one metric part M (M^T M averaged).
    """
    img, loc, wts = _quads(groups, active)
    if len(img) == 0:
        return None
    ai, al = _quad_areas(img), _quad_areas(loc)
    ok = (ai > 0) & (al > 0)
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
    packed = _Packed(groups, active)
    tn = _normaliser(packed.image)
    tn_inv = np.linalg.inv(tn)
    hn = h @ tn_inv
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
            dx = np.linalg.solve(jtj + lam * np.diag(np.diag(jtj) + 1e-12), -jtr)
            xn = x + dx
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
    order = sorted(
        range(len(groups)),
        key=lambda i: -float(np.ptp(groups[i].image, axis=0).prod()) * groups[i].weight,
    )
    active = order
    h: np.ndarray | None = None
    for round_ in range(4):
        h0 = start if round_ == 0 and start is not None else initial_homography(groups, active)
        if h0 is None:
            return None
        h = refine(h0, groups, active, iterations)
        res = _Packed(groups, active).group_rms(h)
        limit = max(outlier_mm, 3.0 * float(np.median(res)))
        keep = [i for i, r in zip(active, res) if r <= limit]
        if len(keep) == len(active) or not keep:
            break
        active = keep
    if h is None:
        return None
    res_all = _Packed(groups, range(len(groups))).group_rms(h)
    limit = max(outlier_mm, 3.0 * float(np.median(res_all[active])))
    inliers = tuple(int(i) for i in np.nonzero(res_all <= limit)[0])
    outliers = tuple(i for i in range(len(groups)) if i not in inliers)
    packed = _Packed(groups, inliers) if inliers else None
    rms = float(np.sqrt(np.mean((packed.residuals(h) / np.repeat(packed.weight, 2)) ** 2) * 2)) if packed else float("inf")
    residuals = tuple(float(v) for v in res_all)
    return Plane(h, rms, inliers, outliers, residuals)


def extended(plane: Plane, groups: Sequence[RigidGroup], *, outlier_mm: float = 2.0) -> Plane:
    """The same plane judged against a longer list of groups (a last look read a few more
    tags on it): each group's residual and whether it is an inlier, without a refit."""
    h = plane.homography
    res_all = _Packed(groups, range(len(groups))).group_rms(h)
    limit = max(outlier_mm, 3.0 * float(np.median(res_all)))
    inliers = tuple(int(i) for i in np.nonzero(res_all <= limit)[0])
    outliers = tuple(i for i in range(len(groups)) if i not in inliers)
    packed = _Packed(groups, inliers) if inliers else None
    rms = float(np.sqrt(np.mean((packed.residuals(h) / np.repeat(packed.weight, 2)) ** 2) * 2)) if packed else float("inf")
    return Plane(h, rms, inliers, outliers, tuple(float(v) for v in res_all))


def square(size_mm: float) -> np.ndarray:
    """A marker's printed corners in its own frame, clockwise from its top-left."""
    return np.array([[0, 0], [size_mm, 0], [size_mm, size_mm], [0, size_mm]], dtype=np.float64)
