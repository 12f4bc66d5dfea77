"""A blurred tag read whole: matched templates instead of thresholded bits.

When blur spreads each module over its neighbours, no single bit can be thresholded, but
the tag as a whole still carries its code. Knowing the table plane and the printed size of
the game's tags, a site where a tag may lie is searched for the one pattern every tag
shares (a black border in a white quiet zone), the pose and the blur are fitted to that
border alone, and only then is the inside compared with each unseen tag of that size,
blurred the same way, in all four turns (normalised correlation over the whole patch).

A reading is accepted only when it explains the patch nearly as well as the border did
(a wrong code leaves its differing modules unexplained) and clearly better than every
other tag (the unexplained energy of the runner-up at least ``min_ratio`` times the
winner's). On rendered hard scenes these thresholds accepted about nine reads in ten and
no wrong one; they were set with the correct tag removed from the candidates, where every
"best" is wrong (see bench/soft_read.py).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

import cv2
import numpy as np

from .detect import Detection, MarkerKind
from .plane import Plane, apply_homography
from .whole_tags import (
    Site,
    SoftConfig,
    pool_near,
)

#: Samples per tag module in the rectified patch, and modules across (8 tag + 1 quiet each side).
_S = 4
_N = 10
_SIDE = _N * _S
#: Finder resolution on the table plane (pixels per millimetre), its angle step (degrees: a
#: picture matches squares half a step either side) and the angles searched first, every other step.
_FIND_PPM = 1.0
_FIND_STEP = 10
_FIND_COARSE = tuple(range(0, 90, 2 * _FIND_STEP))
#: The farthest a site is searched from its centre (a finder patch of at most about 0.5 MB).
_MAX_REACH_MM = 300.0


#: The turns (degrees off the hint) the finder tries for a face square to a known grid: players
#: lay faces up to about 15 degrees off it, and each picture matches squares 5 degrees either
#: side. The hint's own picture finds the square (one 10 degrees off still peaks there); the
#: others are matched only a few pixels about that peak.
HINT_TURNS = (-_FIND_STEP, 0, _FIND_STEP)


def _kernels() -> dict[str, np.ndarray | float]:
    """Blur models in patch pixels: round (defocus) and straight streaks (motion) in four directions."""
    out: dict[str, np.ndarray | float] = {f"g{s}": s for s in (0.8, 1.6, 2.4, 3.2)}
    for length in (5, 9):
        for deg in (0, 45, 90, 135):
            k = np.zeros((length, length), np.float32)
            c = length // 2
            t = np.radians(deg)
            dx, dy = np.cos(t) * c, np.sin(t) * c
            cv2.line(k, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1)
            out[f"m{length}/{deg}"] = k / k.sum()
    return out


_KERNELS = _kernels()


def _blur(image: np.ndarray, kernel: np.ndarray | float) -> np.ndarray:
    if isinstance(kernel, float):
        return cv2.GaussianBlur(image, (0, 0), kernel)
    return cv2.GaussianBlur(cv2.filter2D(image, -1, kernel, borderType=cv2.BORDER_REPLICATE), (0, 0), 1.0)


def _grid(bits: np.ndarray) -> np.ndarray:
    """The 10 x 10 module picture of a tag: quiet zone 1, border 0, then its bits."""
    m = np.ones((_N, _N), np.float32)
    m[1:-1, 1:-1] = 0.0
    m[2:-2, 2:-2] = bits
    return cv2.resize(m, (_SIDE, _SIDE), interpolation=cv2.INTER_NEAREST)


def _unit(rows: np.ndarray) -> np.ndarray:
    """Rows made zero-mean and unit-length (so a dot product is a normalised correlation)."""
    r = rows.reshape(len(rows), -1).astype(np.float32)
    r = r - r.mean(axis=1, keepdims=True)
    return r / np.maximum(np.linalg.norm(r, axis=1, keepdims=True), 1e-6)


def _ring_mask() -> np.ndarray:
    ring = np.zeros((_N, _N), np.uint8)
    ring[:2, :] = ring[-2:, :] = ring[:, :2] = ring[:, -2:] = 1
    return cv2.resize(ring, (_SIDE, _SIDE), interpolation=cv2.INTER_NEAREST).astype(bool).ravel()


_RING = _ring_mask()
_BORDER = {name: _unit(_blur(_grid(np.full((6, 6), 0.5, np.float32)), k)[None].reshape(1, -1)[:, _RING])[0]
           for name, k in _KERNELS.items()}
_KERNEL_NAMES = tuple(_KERNELS)
_BORDERS = np.stack([_BORDER[k] for k in _KERNEL_NAMES])


@cache
def _bits(tag: int) -> np.ndarray:
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_APRILTAG_36h11)
    return cv2.aruco.Dictionary.getBitsFromByteList(d.bytesList[tag : tag + 1], d.markerSize).astype(np.float32)


@lru_cache(maxsize=24)  # at most ~3 MB each (112 tags x 4 turns x 1600 samples): bounded memory
def _templates(ids: tuple[int, ...], kernel: str) -> tuple[np.ndarray, np.ndarray]:
    """Unit template rows of each id in its four quarter turns (row ``4 i + k``: turned k times):
    the plain definition of what ``_scores`` computes through the module basis."""
    rows = [_blur(_grid(np.rot90(_bits(i), k)), _KERNELS[kernel]) for i in ids for k in range(4)]
    return _unit(np.stack(rows)), np.repeat(np.array(ids), 4)


@cache
def _module_basis(kernel: str) -> np.ndarray:
    """(1600, 37) the blurred picture of each of a tag's 36 bit modules alone, then of its
    quiet zone: blurring is linear, so a tag's blurred picture is this times its bits (and 1).
    A patch's correlation with every tag then needs one product with these 37 columns and
    one with the bits, not one with every whole template (an eighth of the work)."""
    cols = []
    for j in range(37):
        m = np.zeros((_N, _N), np.float32)
        if j < 36:
            m[2 + j // 6, 2 + j % 6] = 1.0
        else:
            m[:, :] = 1.0
            m[1:-1, 1:-1] = 0.0
        cols.append(_blur(cv2.resize(m, (_SIDE, _SIDE), interpolation=cv2.INTER_NEAREST), _KERNELS[kernel]).ravel())
    return np.stack(cols, axis=1)


@lru_cache(maxsize=48)  # a few kB each: (tags x 4 turns) rows of 37 numbers
def _scorer(ids: tuple[int, ...], kernel: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What ``_templates`` gives, factored through ``_module_basis``: each row's bits (and a 1
    for the quiet zone), its template's mean and its spread (the length of the template less
    its mean), and the owners. A zero-mean sample vector ``v`` scores
    ``(bits @ (basis.T @ v) - mean * v.sum()) / spread`` against each row, as ``rows @ v``."""
    bits = np.stack([np.append(np.rot90(_bits(i), k).ravel(), 1.0) for i in ids for k in range(4)]).astype(np.float32)
    pictures = bits @ _module_basis(kernel).T
    mean = pictures.mean(axis=1)
    spread = np.maximum(np.linalg.norm(pictures - mean[:, None], axis=1), 1e-6)
    return bits, mean.astype(np.float32), spread.astype(np.float32), np.repeat(np.array(ids), 4)


def _scores(v: np.ndarray, ids: tuple[int, ...], kernel: str) -> tuple[np.ndarray, np.ndarray]:
    """Each template row's normalised correlation with the unit, zero-mean samples ``v`` (as
    ``_templates(ids, kernel)[0] @ v``), and the rows' owners."""
    bits, mean, spread, owners = _scorer(ids, kernel)
    return (bits @ (_module_basis(kernel).T @ v) - mean * float(v.sum())) / spread, owners


@lru_cache(maxsize=512)  # a few sizes x 90 whole degrees, each a few kB
def _finder_template(tag_mm: float, deg: int) -> np.ndarray:
    """The border-and-quiet-zone picture of a square turned ``deg`` at the finder's resolution."""
    n = int(round(tag_mm * 1.5 * _FIND_PPM)) | 1
    s = tag_mm * _FIND_PPM
    q = s / 8
    t = np.radians(deg)
    rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])

    def square(half: float) -> np.ndarray:
        pts = np.array([[-half, -half], [half, -half], [half, half], [-half, half]]) @ rot.T + n / 2
        return np.round(pts * 16).astype(np.int32)

    img = np.full((n, n), 0.5, np.float32)
    cv2.fillConvexPoly(img, square(s / 2 + q), 1.0, cv2.LINE_AA, 4)
    cv2.fillConvexPoly(img, square(s / 2), 0.0, cv2.LINE_AA, 4)
    cv2.fillConvexPoly(img, square(s / 2 - q), 0.5, cv2.LINE_AA, 4)
    return cv2.GaussianBlur(img, (0, 0), 1.0)


def _rectified(gray: np.ndarray, to_image: np.ndarray, corners_mm: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The image over a table quad, warped to ``size`` pixels."""
    w, h = size
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    dst = apply_homography(to_image, corners_mm).astype(np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    return cv2.warpPerspective(gray, m, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE).astype(np.float32)


def _find(
    gray: np.ndarray, to_image: np.ndarray, site: Site, known_mm: np.ndarray | None = None
) -> tuple[float, float, float, float]:
    """Coarse centre (mm), angle and finder correlation of the most tag-like square near a
    site, away from markers read already (a neighbour's sharp tag must not hide a blurred one)."""
    reach = min(site.reach_mm or 0.4 * site.tag_mm, _MAX_REACH_MM)
    half = 0.75 * site.tag_mm + reach
    cx, cy = site.centre_mm
    n = int(round(2 * half * _FIND_PPM))
    box = np.array([[cx - half, cy - half], [cx + half, cy - half], [cx + half, cy + half], [cx - half, cy + half]])
    patch = _rectified(gray, to_image, box, (n, n))
    near = np.zeros((0, 2))
    if known_mm is not None and len(known_mm):
        near = known_mm[(np.abs(known_mm[:, 0] - cx) < half + site.tag_mm) & (np.abs(known_mm[:, 1] - cy) < half + site.tag_mm)]
    if site.turn_hint_deg is None:  # every other angle; the peak's neighbours are tried after
        angles = list(_FIND_COARSE)
    else:
        angles = [int(round(site.turn_hint_deg)) % 90]  # HINT_TURNS' middle one, the others after
    turns = [(deg, tpl) for deg in angles for tpl in (_finder_template(site.tag_mm, deg),) if tpl.shape[0] <= n]
    if not turns:
        return cx, cy, 0.0, -1.0
    # Every turn's response, then the best turn per position: the known markers are masked
    # and the peak found once. (OpenCV's normalised response is finite wherever the patch is:
    # a flat window gives 0, not a division by zero.)
    responses = [cv2.matchTemplate(patch, tpl, cv2.TM_CCOEFF_NORMED) for _, tpl in turns]
    r = responses[0] if len(responses) == 1 else np.max(responses, axis=0)
    t = turns[0][1].shape[0] / 2
    for kx, ky in near:  # response pixel (i, j) is a square centred at (j + t, i + t) patch pixels
        col = (kx - (cx - half)) * _FIND_PPM - t
        row = (ky - (cy - half)) * _FIND_PPM - t
        rad = 0.5 * site.tag_mm * _FIND_PPM
        cv2.circle(r, (int(round(col)), int(round(row))), int(round(rad)), -1.0, -1)
    _, v, _, loc = cv2.minMaxLoc(r)
    deg = turns[int(np.argmax([resp[loc[1], loc[0]] for resp in responses]))][0] if len(turns) > 1 else turns[0][0]
    if v > -1.0:
        # The angles between (with a hint, either side of it): only near the peak, a few pixels either way.
        m, w = turns[0][1].shape[0], 2
        x0, y0 = max(loc[0] - w, 0), max(loc[1] - w, 0)
        window = patch[y0 : loc[1] + w + m, x0 : loc[0] + w + m]
        for d in (deg - _FIND_STEP, deg + _FIND_STEP):
            resp = cv2.matchTemplate(window, _finder_template(site.tag_mm, d % 90), cv2.TM_CCOEFF_NORMED)
            _, fv, _, floc = cv2.minMaxLoc(resp)
            if fv > v:
                v, deg, loc = fv, d % 90, (x0 + floc[0], y0 + floc[1])
    return cx - half + (loc[0] + t) / _FIND_PPM, cy - half + (loc[1] + t) / _FIND_PPM, float(deg), float(v)


def _square_mm(x: float, y: float, deg: float, side: float) -> np.ndarray:
    t = np.radians(deg)
    rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    h = side / 2
    return np.array([[-h, -h], [h, -h], [h, h], [-h, h]]) @ rot.T + [x, y]


#: Sample points of the patch in tag units (the black square spans -0.5..0.5), ring ones only.
_UNIT = ((np.stack(np.meshgrid(np.arange(_SIDE), np.arange(_SIDE)), axis=-1).reshape(-1, 2) + 0.5) / _S - _N / 2) / 8
_UNIT_RING = _UNIT[_RING]
_ROW, _COL = np.divmod(np.arange(_SIDE * _SIDE), _SIDE)
#: The pose fit samples the ring on every other row and column (two samples a module each way):
#: a quarter of the ring places a border as well as half of it did (the same readings in every
#: bench scene) for half the sampling.
_FIT_INDEX = np.flatnonzero(((_ROW % 2 == 0) & (_COL % 2 == 0))[_RING])
_FIT_POINTS = _UNIT_RING[_FIT_INDEX]
_FIT_BORDERS = _unit(_BORDERS[:, _FIT_INDEX])
_FIXED = {id(p): (p, np.vstack([p.T, np.ones(len(p))]).astype(np.float32)) for p in (_UNIT, _UNIT_RING, _FIT_POINTS)}


def _homogeneous(points: np.ndarray) -> np.ndarray:
    """(3, m) homogeneous columns of sample points, single precision (the module's fixed sample
    sets built once)."""
    fixed = _FIXED.get(id(points))
    if fixed is not None and fixed[0] is points:
        return fixed[1]
    return np.vstack([np.asarray(points, float).T, np.ones(len(points))]).astype(np.float32)


def _ring_values(gray: np.ndarray, to_image: np.ndarray, poses: np.ndarray, points: np.ndarray = _UNIT_RING) -> np.ndarray:
    """(k, m) grey values of the ring samples (or other ``points``) for k poses (x, y, angle, side) at once."""
    # Each pose is a similarity from tag units to the table: composed with the plane's map,
    # one 3 x 3 per pose takes every sample point straight to the image.
    t = np.radians(poses[:, 2])
    c, s = np.cos(t) * poses[:, 3], np.sin(t) * poses[:, 3]
    pose = np.zeros((len(poses), 3, 3))
    pose[:, 0, 0], pose[:, 0, 1], pose[:, 0, 2] = c, -s, poses[:, 0]
    pose[:, 1, 0], pose[:, 1, 1], pose[:, 1, 2] = s, c, poses[:, 1]
    pose[:, 2, 2] = 1.0
    # One matrix product for all poses (rows ordered coordinate first, so that each image
    # coordinate of every pose is one contiguous block), then the perspective division.
    # Single precision is plenty (a ten-thousandth of a pixel across a 4K photo) and halves
    # the cost of the product and the division (a fifth off every pose fit).
    m = (to_image @ pose).transpose(1, 0, 2).reshape(-1, 3).astype(np.float32)
    q = (m @ _homogeneous(points)).reshape(3, len(poses), -1)
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = 1.0 / q[2]
    return cv2.remap(gray, q[0] * inv, q[1] * inv, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)


def _kernel_scores(values: np.ndarray, borders: np.ndarray = _BORDERS) -> tuple[np.ndarray, np.ndarray]:
    """For each pose's ring samples (k, m): the index of the blur whose border explains them
    best, and how well (normalised correlation)."""
    v = values - values.mean(axis=1, keepdims=True)
    scores = (v @ borders.T) / np.maximum(np.linalg.norm(v, axis=1), 1e-6)[:, None]
    k = np.argmax(scores, axis=1)
    return k, scores[np.arange(len(k)), k]


#: The pose fit's step per level, coarse then fine (mm in x and y; per millimetre of step the
#: angle moves 4 degrees and the side 3 % of the printed size), and the moves a level may take.
_FIT_STEPS = (0.6, 0.3)
_FIT_MOVES = 12


def _fit_many(gray: np.ndarray, to_image: np.ndarray, poses: np.ndarray, give_up: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Poses (x, y, angle, side) and blurs that best explain each square's border and quiet
    zone alone: steepest ascent over the eight one-parameter moves, coarse to fine, stopping
    early when even the coarse fit is no tag. Every square takes its own path, but each round
    samples all of them in one remap (a frame often has twenty to fit).

    Returns the poses, each one's blur (an index into the kernel names) and its border's
    correlation judged on every ring sample, as the code is."""
    first = np.array(poses, float).reshape(-1, 4)
    current = first.copy()
    alive = np.ones(len(current), bool)
    for level, step in enumerate(_FIT_STEPS):
        idx = np.flatnonzero(alive)
        if not len(idx):
            break
        current[idx], best = _ascend(gray, to_image, current[idx], first[idx, 3], step)
        if level == 0:  # the coarse level hands on to the fine one unless it found no tag
            alive[idx[best < give_up]] = False
    kernel, best = _kernel_scores(_ring_values(gray, to_image, current))
    return current, kernel, best


#: The eight one-parameter moves, and how far each parameter moves per millimetre of step.
_MOVES = np.repeat(np.eye(4), 2, axis=0) * np.tile([-1.0, 1.0], 4)[:, None]
_MOVE_SCALE = np.array([1.0, 1.0, 4.0, 0.0])


def _ascend(gray: np.ndarray, to_image: np.ndarray, start: np.ndarray, sides: np.ndarray, step: float) -> tuple[np.ndarray, np.ndarray]:
    """Steepest ascent at one step size: each square takes the best of its eight moves while it
    improves (at most ``_FIT_MOVES``), its blur chosen at its start; the poses and their
    correlations."""
    current = start.copy()
    kernel, best = _kernel_scores(_ring_values(gray, to_image, current, _FIT_POINTS), _FIT_BORDERS)
    size = np.tile(_MOVE_SCALE * step, (len(current), 1))
    size[:, 3] = 0.03 * sides * step
    active = np.ones(len(current), bool)
    for _move in range(_FIT_MOVES):
        idx = np.flatnonzero(active)
        if not len(idx):
            break
        trial = current[idx, None, :] + _MOVES[None] * size[idx, None, :]  # (a, 8, 4)
        values = _ring_values(gray, to_image, trial.reshape(-1, 4), _FIT_POINTS).reshape(len(idx), 8, -1)
        v = values - values.mean(axis=2, keepdims=True)
        scores = np.matmul(v, _FIT_BORDERS[kernel[idx]][:, :, None])[..., 0] / np.maximum(np.linalg.norm(v, axis=2), 1e-6)
        k = np.argmax(scores, axis=1)
        top = scores[np.arange(len(idx)), k]
        better = top > best[idx] + 1e-4
        up = idx[better]
        current[up], best[up] = trial[better, k[better]], top[better]
        active[idx[~better]] = False
    return current, best


def read_site(
    gray: np.ndarray,
    to_image: np.ndarray,
    site: Site,
    pool: Sequence[int],
    allowed: Collection[int] | None = None,
    config: SoftConfig = SoftConfig(),
    known_mm: np.ndarray | None = None,
) -> Detection | None:
    """The tag at a site, read whole, or None when no tag is there or no reading is clear.

    ``pool`` is every tag of this printed size in the game (its templates are built once);
    only ``allowed`` ones (default: all) may be the answer, but every tag of the pool competes,
    so a tag already seen elsewhere still counts as a close rival. ``known_mm``: centres of
    markers read already (a square found there is not searched again)."""
    found = _found(gray, to_image, site, config, known_mm)
    return None if found is None else _read_many(gray, to_image, [_Hit(site, found, tuple(pool))], allowed, config)[0]


def _found(
    gray: np.ndarray, to_image: np.ndarray, site: Site, config: SoftConfig, known_mm: np.ndarray | None
) -> tuple[float, float, float, float] | None:
    """The finder's square at a site, or None when nothing tag-like (or only a known marker) is there.
    A site from an undecoded quad has its square already: its border is checked where it is."""
    if site.angle_deg is not None:
        return _checked([site], gray, to_image, config, known_mm)[0]
    x, y, deg, v = _find(gray, to_image, site, known_mm)
    if v < config.min_find or _known(x, y, site, known_mm):
        return None
    return x, y, deg, v


def _known(x: float, y: float, site: Site, known_mm: np.ndarray | None) -> bool:
    """Whether a square found here is a marker read already."""
    return known_mm is not None and len(known_mm) > 0 and bool(
        np.min(np.hypot(known_mm[:, 0] - x, known_mm[:, 1] - y)) < 0.5 * site.tag_mm)


def _checked(
    sites: Sequence[Site], gray: np.ndarray, to_image: np.ndarray, config: SoftConfig, known_mm: np.ndarray | None
) -> list[tuple[float, float, float, float] | None]:
    """Sites from undecoded quads (their square known), each kept when its ring looks like a
    tag's border and is no marker read already; all sampled in one remap."""
    if not sites:
        return []
    poses = np.array([[s.centre_mm[0], s.centre_mm[1], s.angle_deg, s.tag_mm] for s in sites], float)
    _, ring = _kernel_scores(_ring_values(gray, to_image, poses))
    out: list[tuple[float, float, float, float] | None] = []
    for site, pose, v in zip(sites, poses, ring):
        keep = v >= config.min_border - 0.15 and not _known(pose[0], pose[1], site, known_mm)
        out.append((float(pose[0]), float(pose[1]), float(pose[2]), float(v)) if keep else None)
    return out


def _read_many(
    gray: np.ndarray,
    to_image: np.ndarray,
    hits: Sequence[_Hit],
    allowed: Collection[int] | None,
    config: SoftConfig,
) -> list[Detection | None]:
    """Fit the border at each found square, then compare its inside with every tag of its
    pool; each stage samples all squares in one remap."""
    out: list[Detection | None] = [None] * len(hits)
    todo = [i for i, h in enumerate(hits) if h.pool]
    if not todo:
        return out
    start = np.array([[*hits[i].found[:3], hits[i].site.tag_mm] for i in todo], float)
    # A square the finder found is worth fitting only if its ring looks like a border.
    searched = np.array([hits[i].site.angle_deg is None for i in todo])
    if searched.any():
        _, ring = _kernel_scores(_ring_values(gray, to_image, start[searched]))
        keep = np.ones(len(todo), bool)
        keep[np.flatnonzero(searched)[ring < config.min_start]] = False
        todo, start = [i for i, k in zip(todo, keep) if k], start[keep]
    if not todo:
        return out
    poses, kernels, borders = _fit_many(gray, to_image, start, config.min_border - 0.1)
    good = borders >= config.min_border
    if not good.any():
        return out
    inside = _ring_values(gray, to_image, poses[good], _UNIT)
    inside = inside - inside.mean(axis=1, keepdims=True)
    inside /= np.maximum(np.linalg.norm(inside, axis=1, keepdims=True), 1e-6)
    rows: dict[tuple[int, ...], np.ndarray] = {}  # each pool's allowed rows, worked out once
    for j, (i, pose, kernel, border) in enumerate(zip(np.array(todo)[good], poses[good], kernels[good], borders[good])):
        pool = hits[int(i)].pool
        ids = tuple(sorted(pool))
        if allowed is not None and ids not in rows:
            rows[ids] = _allowed_rows(ids, allowed)
        out[int(i)] = _compare(to_image, pose, inside[j], pool, _KERNEL_NAMES[int(kernel)], float(border), allowed, config,
                               rows.get(ids))
    return out


def _compare(
    to_image: np.ndarray,
    pose: np.ndarray,
    v: np.ndarray,
    pool: Sequence[int],
    kernel: str,
    border: float,
    allowed: Collection[int] | None,
    config: SoftConfig,
    allowed_rows: np.ndarray | None = None,
) -> Detection | None:
    """The tag whose blurred code explains a fitted square's unit samples ``v`` clearly best, if
    any (``allowed_rows``: which rows' tags are ``allowed``, when known already)."""
    ids = tuple(sorted(pool))
    scores, owners = _scores(v, ids, kernel)
    best = int(np.argmax(scores))
    top = float(scores[best])
    if allowed is not None and int(owners[best]) not in allowed:
        return None
    # The runner-up is among the tags that may lie here: one read elsewhere in the photo
    # (each printed once) is not this one, however alike its code.
    rivals = owners != owners[best]
    if allowed is not None:
        rivals &= _allowed_rows(ids, allowed) if allowed_rows is None else allowed_rows
    others = scores[rivals]
    if top < config.min_score or border - top > config.max_deficit or not len(others):
        return None
    runner = float(others.max())
    if (1.0 - runner**2) < config.min_ratio * (1.0 - top**2):
        return None
    # Row ``best`` is the code turned k quarter turns counter-clockwise: the tag's own
    # top-left corner is k corners back round the square (clockwise order).
    corners = apply_homography(to_image, _square_mm(*pose))[_BACK[best % 4]]
    d = corners - corners[_BACK[3]]  # each corner to the next
    quality = float(np.sqrt((d * d).sum(axis=1)).mean()) / 8
    return Detection(MarkerKind.TAG, corners, tag_id=int(owners[best]), quality=quality)


#: Corner order k corners back round a square (``np.roll`` by k): row k indexes it.
_BACK = np.array([[(i - k) % 4 for i in range(4)] for k in range(4)])


def _allowed_rows(ids: tuple[int, ...], allowed: Collection[int]) -> np.ndarray:
    """Which template rows (four turns per tag, in ``ids`` order) belong to an allowed tag."""
    return np.repeat(np.fromiter((t in allowed for t in ids), bool, len(ids)), 4)


@dataclass(frozen=True, slots=True)
class _Hit:
    """A site where the finder saw a square: the square (x, y, angle, score) and the tags it may be."""

    site: Site
    found: tuple[float, float, float, float]
    pool: tuple[int, ...]


def _distinct(hits: list[_Hit]) -> list[_Hit]:
    """One square per place: sites that found the same square (an undecoded quad tried at
    each printed size it may be, overlapping searches) are fitted once, at the best match."""
    kept: list[_Hit] = []
    for hit in hits:
        x, y = hit.found[:2]
        if all(np.hypot(x - k.found[0], y - k.found[1]) >= 0.4 * min(hit.site.tag_mm, k.site.tag_mm) for k in kept):
            kept.append(hit)
    return kept


def unique_sites(sites: Iterable[Site]) -> list[Site]:
    """Each place searched once per size: a place asked for twice (a cell both faint and
    beside an unread marker, two sources naming one space) keeps its widest search."""
    kept: dict[tuple[float, float, float, float | None], Site] = {}
    for site in sites:
        key = (round(site.centre_mm[0], 1), round(site.centre_mm[1], 1), site.tag_mm, site.angle_deg)
        if key not in kept or _breadth(site) > _breadth(kept[key]):
            kept[key] = site
    return list(kept.values())


def _breadth(site: Site) -> tuple[float, bool]:
    """How widely a site is searched: its reach, then whether every turn is tried."""
    return site.reach_mm or 0.4 * site.tag_mm, site.turn_hint_deg is None


def read_sites(
    gray: np.ndarray,
    plane: Plane,
    sites: Iterable[Site],
    pools: dict[float, tuple[int, ...]],
    allowed: Collection[int],
    config: SoftConfig = SoftConfig(),
    known_mm: np.ndarray | None = None,
) -> list[Detection]:
    """Whole-tag readings at the most tag-like sites (``pools``: the game's tags by printed
    size). Fitting is the costly part, so only the ``max_reads`` sites whose finder matched
    best are fitted. A tag claimed by two sites is trusted at neither."""
    try:
        to_image = np.linalg.inv(plane.homography)
    except np.linalg.LinAlgError:
        return []
    if not np.all(np.isfinite(to_image)):
        return []
    # A size whose every tag is read already has nothing left to find (a PHYLO grid cell's
    # HOME-sized search once both HOME cards are read): its square would only crowd out the
    # reading of a smaller tag found at the same place.
    unread = set(allowed)
    unique = unique_sites(sites)
    pool_of = {size: pool_near(pools, size) for size in {site.tag_mm for site in unique}}  # once per size
    kept = [site for site in unique
            if np.all(np.isfinite(site.centre_mm)) and not unread.isdisjoint(pool_of[site.tag_mm])]
    quads = [site for site in kept if site.angle_deg is not None]
    try:
        checked = dict(zip(map(id, quads), _checked(quads, gray, to_image, config, known_mm)))
    except cv2.error:  # a square that maps outside what OpenCV can warp: nothing to read
        checked = {}
    hits: list[_Hit] = []
    for site in kept:
        if site.angle_deg is not None:
            f = checked.get(id(site))
        else:
            try:
                f = _found(gray, to_image, site, config, known_mm)
            except cv2.error:
                continue
        if f is not None:
            hits.append(_Hit(site, f, pool_of[site.tag_mm]))
    hits.sort(key=lambda h: -h.found[3])
    found: dict[int, list[Detection]] = {}
    try:
        read = _read_many(gray, to_image, _distinct(hits)[: config.max_reads], allowed, config)
    except cv2.error:
        read = []
    for det in read:
        if det is not None and det.tag_id is not None:
            found.setdefault(det.tag_id, []).append(det)
    out = []
    for dets in found.values():
        centres = np.array([d.centre for d in dets])
        if len(dets) == 1 or np.ptp(centres, axis=0).max() < 4.0:
            out.append(dets[0])
    return out
