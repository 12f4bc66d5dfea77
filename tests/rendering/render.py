"""Synthetic table photos with known ground truth, for tests, the benchmark and samples.

Each component's printed face (the printables' own raster, markers included) is laid on
a wood table where the game's layout says it lies, then photographed by a pinhole camera
at a chosen height and tilt, with lens distortion, blur, noise, uneven light, shadows,
glare, JPEG compression, foreign QR codes and clutter. Everything random comes from one
seeded generator, so a scene is the same on every machine.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np
import qrcode
import qrcode.constants

from printables.faces import face_mask, face_of, render_component
from scoring import find_game
from scoring.model import BoardState, Component
from scoring.state import state_to_json

from vision.layouts import TablePose, find_layout
from vision.plane import apply_homography


@dataclass(frozen=True, slots=True)
class Condition:
    """One photographic condition: ranges the scene's random draws come from."""

    name: str
    distance_cm: tuple[float, float]
    """Camera to the table point at the image centre."""
    tilt_deg: tuple[float, float]
    blur_px: tuple[float, float]
    """Gaussian blur sigma at 1080p (scaled with resolution)."""
    motion_px: tuple[float, float]
    noise: tuple[float, float]
    shadow: tuple[float, float]
    """Darkest factor of the shadow band (1 = no shadow)."""
    glare: float
    """Chance of a specular glare blob."""
    jpeg: tuple[int, int]
    distortion: tuple[float, float]
    """Radial k1 of the lens (negative = barrel)."""


CONDITIONS: Mapping[str, Condition] = {
    "easy": Condition("easy", (40, 55), (0, 15), (0.3, 0.6), (0, 0), (1, 2), (0.85, 1.0), 0.0, (90, 95), (-0.04, 0.0)),
    "typical": Condition("typical", (50, 70), (10, 30), (0.5, 1.2), (0, 1.5), (1.5, 3), (0.65, 0.9), 0.0, (85, 92), (-0.06, 0.0)),
    "area": Condition("area", (40, 55), (5, 25), (0.5, 1.0), (0, 1.0), (1.5, 3), (0.7, 0.95), 0.0, (85, 92), (-0.06, 0.0)),
    "hard": Condition("hard", (60, 80), (25, 45), (1.0, 2.0), (1.0, 3.0), (3, 5), (0.5, 0.75), 0.7, (70, 80), (-0.08, 0.0)),
}

#: Horizontal field of view of the simulated webcam.
HFOV_DEG = 70.0

_FOREIGN_TEXTS = (
    "https://example.org/cereal",
    "WIFI:S:kitchen;T:WPA;P:hunter22;;",
    "https://shop.example.com/p/4711",
    "BEGIN:VCARD N:Lee",
    "HA1/T001*Z",
)


@dataclass(frozen=True, slots=True, eq=False)
class Camera:
    """A pinhole camera over the table (table mm, y down, z into the table)."""

    matrix: np.ndarray
    """3x3 intrinsics K."""
    rotation: np.ndarray
    """3x3 world -> camera."""
    translation: np.ndarray
    k1: float
    distance_mm: float
    """From the camera to the table point at the image centre."""
    tilt_deg: float

    def table_to_image(self) -> np.ndarray:
        """3x3 homography table mm -> undistorted image pixels."""
        h = self.matrix @ np.column_stack([self.rotation[:, 0], self.rotation[:, 1], self.translation])
        return h / h[2, 2]


@dataclass(frozen=True, slots=True, eq=False)
class Scene:
    """A rendered photo and what is really on the table."""

    image: np.ndarray
    """BGR uint8 after every degradation, JPEG included."""
    truth: BoardState
    """The state restricted to components fully in view and not covered."""
    poses: Mapping[str, TablePose]
    hidden: tuple[str, ...]
    """Placed components out of frame or under the hand (not expected to be read)."""
    foreign: tuple[str, ...]
    """Texts of the foreign QR codes printed in the scene."""
    camera: Camera
    condition: str
    seed: int
    image_centres: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    jpeg: bytes = b""

    def to_dict(self) -> dict[str, Any]:
        return {
            "condition": self.condition,
            "seed": self.seed,
            "camera": {
                "distance_mm": round(self.camera.distance_mm, 1),
                "tilt_deg": round(self.camera.tilt_deg, 1),
                "k1": round(self.camera.k1, 4),
            },
            "truth": state_to_json(self.truth),
            "hidden": list(self.hidden),
            "foreign": list(self.foreign),
        }


def _rot_x(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def _rot_z(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def make_camera(
    target: tuple[float, float], distance_mm: float, tilt_deg: float, yaw_deg: float, resolution: tuple[int, int], k1: float
) -> Camera:
    """A camera ``distance_mm`` from ``target`` along its tilted optical axis."""
    w, h = resolution
    f = (w / 2) / math.tan(math.radians(HFOV_DEG / 2))
    k = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1.0]])
    r = _rot_x(math.radians(tilt_deg)) @ _rot_z(math.radians(yaw_deg))
    forward = r.T @ np.array([0, 0, 1.0])
    p = np.array([target[0], target[1], 0.0])
    centre = p - forward * distance_mm
    t = -r @ centre
    return Camera(k, r, t, k1, distance_mm, tilt_deg)


def _smooth_noise(rng: np.random.Generator, shape: tuple[int, int], cells: int) -> np.ndarray:
    small = rng.random((max(2, shape[0] // cells), max(2, shape[1] // cells))).astype(np.float32)
    return cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)


def _table_texture(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """A wood-like table top: grain stripes along x, knots of colour, in BGR."""
    h, w = size
    grain = _smooth_noise(rng, (h, max(2, w // 40)), 3)
    grain = cv2.resize(grain, (w, h), interpolation=cv2.INTER_CUBIC)
    y = np.arange(h, dtype=np.float32)[:, None]
    stripes = 0.5 + 0.5 * np.sin(y * 0.35 + grain * 12.0)
    low = _smooth_noise(rng, (h, w), 60)
    base = np.array(rng.choice([[70, 110, 150], [60, 95, 135], [95, 140, 180], [120, 120, 125]]), np.float32)
    shade = 0.75 + 0.18 * stripes + 0.2 * (low - 0.5)
    img = base[None, None, :] * shade[:, :, None]
    return np.clip(img, 0, 255).astype(np.uint8)


def _qr_image(text: str, module_px: int) -> np.ndarray:
    """A QR code with its 4-module quiet zone, ``module_px`` pixels per module."""
    qr = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_M, border=4)
    qr.add_data(text)
    qr.make(fit=True)
    rows = np.array([[0 if v else 255 for v in row] for row in qr.get_matrix()], np.uint8)
    return cv2.resize(rows, None, fx=module_px, fy=module_px, interpolation=cv2.INTER_NEAREST)


def _paste(canvas: np.ndarray, src: np.ndarray, mask: np.ndarray, m: np.ndarray) -> None:
    """Warp ``src`` by homography ``m`` into ``canvas`` where ``mask`` says, touching only its box."""
    h, w = src.shape[:2]
    corners = apply_homography(m, np.array([[0, 0], [w, 0], [w, h], [0, h]], float))
    x0, y0 = np.floor(corners.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + 2
    H, W = canvas.shape[:2]
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
    if x1 <= x0 or y1 <= y0:
        return
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1.0]]) @ m
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpPerspective(src, shift, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    alpha = cv2.warpPerspective(mask, shift, size, flags=cv2.INTER_LINEAR, borderValue=0)
    a = (alpha.astype(np.float32) / 255.0)[:, :, None]
    roi = canvas[y0:y1, x0:x1]
    if warped.ndim == 2:
        warped = cv2.cvtColor(warped, cv2.COLOR_GRAY2BGR)
    roi[:] = (warped.astype(np.float32) * a + roi.astype(np.float32) * (1 - a)).astype(np.uint8)


def _pose_matrix(pose: TablePose, size: tuple[float, float]) -> np.ndarray:
    """Face mm -> table mm for a component centred at the pose."""
    a = math.radians(pose.angle_deg)
    c, s = math.cos(a), math.sin(a)
    w, h = size
    m = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])
    centre = m[:2, :2] @ np.array([w / 2, h / 2])
    m[0, 2], m[1, 2] = pose.x_mm - centre[0], pose.y_mm - centre[1]
    return m


def _hand(rng: np.random.Generator, centre: np.ndarray, scale: float, shape: tuple[int, int]) -> np.ndarray:
    """A mask of a hand and forearm reaching in from the nearest image edge."""
    h, w = shape
    mask = np.zeros((h, w), np.uint8)
    cx, cy = centre
    edge = np.array([cx, h + scale]) if cy > h / 2 else np.array([cx, -scale])
    direction = np.array([cx, cy]) - edge
    direction /= np.linalg.norm(direction) + 1e-9
    normal = np.array([-direction[1], direction[0]])
    arm = [edge + normal * scale * 0.45, edge - normal * scale * 0.45,
           np.array([cx, cy]) - normal * scale * 0.5, np.array([cx, cy]) + normal * scale * 0.5]
    cv2.fillPoly(mask, [np.round(np.array(arm)).astype(np.int32)], 255)
    cv2.ellipse(mask, (int(cx), int(cy)), (int(scale * 0.6), int(scale * 0.55)), 0, 0, 360, 255, -1)
    for k in range(4):
        tip = np.array([cx, cy]) + direction * scale * (0.9 + 0.15 * rng.random()) + normal * scale * (k - 1.5) * 0.3
        cv2.line(mask, (int(cx + normal[0] * scale * (k - 1.5) * 0.3), int(cy + normal[1] * scale * (k - 1.5) * 0.3)),
                 (int(tip[0]), int(tip[1])), 255, max(2, int(scale * 0.16)))
    return mask


def _distort(img: np.ndarray, k1: float, f: float) -> np.ndarray:
    """Radial lens distortion: each output pixel samples the ideal image further out (barrel for k1 < 0)."""
    if k1 == 0:
        return img
    h, w = img.shape[:2]
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    x, y = (xs - w / 2) / f, (ys - h / 2) / f
    r2 = x * x + y * y
    factor = 1 + k1 * r2
    map_x = (x * factor * f + w / 2).astype(np.float32)
    map_y = (y * factor * f + h / 2).astype(np.float32)
    return cv2.remap(img, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)


def render_scene(
    game_id: str,
    state: BoardState,
    *,
    condition: str | Condition = "typical",
    resolution: tuple[int, int] = (1920, 1080),
    seed: int = 0,
    poses: Mapping[str, TablePose] | None = None,
    foreign: int | None = None,
    clutter: bool = True,
    hand: bool = False,
    extra: Sequence[tuple[str, TablePose]] = (),
    supersample: int | None = None,
) -> Scene:
    """Photograph a board state on a table; ``extra`` adds loose components (duplicates, strays)."""
    cond = condition if isinstance(condition, Condition) else CONDITIONS[condition]
    rng = np.random.default_rng(seed)
    game = find_game(game_id)
    index = {c.id: c for c in game.components()}
    layout = find_layout(game.id)
    poses = dict(poses) if poses is not None else dict(layout.arrange(state))
    w, h = resolution
    ss = supersample or (2 if w * h <= 1920 * 1080 else 1)
    W, H = w * ss, h * ss

    items: list[tuple[str, Component, TablePose, bool]] = []
    for p in state.placements:
        if p.component in poses:
            items.append((p.component, index[p.component], poses[p.component], p.face_up))
    for cid, pose in extra:
        items.append((cid, index[cid], pose, True))
    if items:
        pts = np.array([[ps.x_mm, ps.y_mm] for _, _, ps, _ in items])
        lo, hi = pts.min(axis=0), pts.max(axis=0)
    else:
        lo, hi = np.zeros(2), np.array([300.0, 200.0])
    centre = (lo + hi) / 2 + rng.normal(0, 10, 2)
    spread = hi - lo
    base_yaw = 0.0 if spread[0] >= spread[1] else 90.0
    yaw = base_yaw + rng.uniform(-12, 12) + (180.0 if rng.random() < 0.5 else 0.0)
    height = float(rng.uniform(*cond.distance_cm)) * 10
    tilt = float(rng.uniform(*cond.tilt_deg))
    k1 = float(rng.uniform(*cond.distortion))
    cam = make_camera((float(centre[0]), float(centre[1])), height, tilt, yaw, (W, H), k1)
    g = cam.table_to_image()

    # Table top, clutter and foreign codes, drawn in table millimetres then photographed.
    ppm_table = 1.0
    margin = 700.0
    t_lo = lo - margin
    t_size = (hi - lo) + 2 * margin
    tw, th = int(t_size[0] * ppm_table), int(t_size[1] * ppm_table)
    table = _table_texture(rng, (th, tw))
    table_to_tex = np.array([[ppm_table, 0, -t_lo[0] * ppm_table], [0, ppm_table, -t_lo[1] * ppm_table], [0, 0, 1]])
    footprints = []
    for _, comp, pose, _ in items:
        r = math.hypot(*comp.size_mm) / 2
        footprints.append((pose.x_mm, pose.y_mm, r))

    def free_spot(radius: float) -> tuple[float, float] | None:
        view = np.linalg.inv(g)
        corners = apply_homography(view, np.array([[0.1 * W, 0.1 * H], [0.9 * W, 0.1 * H], [0.9 * W, 0.9 * H], [0.1 * W, 0.9 * H]]))
        a, b = corners.min(axis=0), corners.max(axis=0)
        for _ in range(60):
            x, y = rng.uniform(a[0], b[0]), rng.uniform(a[1], b[1])
            if not cv2.pointPolygonTest(corners.astype(np.float32), (float(x), float(y)), False) > 0:
                continue
            if all(math.hypot(x - fx, y - fy) > fr + radius + 5 for fx, fy, fr in footprints):
                footprints.append((x, y, radius))
                return x, y
        return None

    canvas = cv2.warpPerspective(table, g @ np.linalg.inv(table_to_tex), (W, H), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REFLECT)
    if clutter:
        for _ in range(int(rng.integers(2, 5))):
            spot = free_spot(45)
            if spot is None:
                continue
            kind = rng.integers(0, 3)
            if kind == 0:  # a mug seen from above
                ring = np.zeros((200, 200, 3), np.uint8)
                colour = tuple(int(v) for v in rng.integers(40, 220, 3))
                cv2.circle(ring, (100, 100), 95, colour, -1)
                cv2.circle(ring, (100, 100), 75, (30, 40, 50), -1)
                mask = np.zeros((200, 200), np.uint8)
                cv2.circle(mask, (100, 100), 95, 255, -1)
                scale = 80 / 200
            elif kind == 1:  # a pen
                ring = np.zeros((20, 300, 3), np.uint8)
                ring[:] = tuple(int(v) for v in rng.integers(20, 200, 3))
                mask = np.full((20, 300), 255, np.uint8)
                scale = 140 / 300
            else:  # a note with scribbles and black squares (distractors for the detectors)
                ring = np.full((300, 220, 3), 245, np.uint8)
                for k in range(12):
                    cv2.line(ring, (15, 20 + 22 * k), (int(rng.integers(60, 205)), 20 + 22 * k), (60, 60, 60), 3)
                for _k in range(3):
                    x0, y0 = int(rng.integers(10, 180)), int(rng.integers(10, 260))
                    cv2.rectangle(ring, (x0, y0), (x0 + 25, y0 + 25), (0, 0, 0), -1)
                mask = np.full((300, 220), 255, np.uint8)
                scale = 90 / 220
            a = rng.uniform(0, 2 * math.pi)
            m = np.array([[math.cos(a) * scale, -math.sin(a) * scale, spot[0]], [math.sin(a) * scale, math.cos(a) * scale, spot[1]], [0, 0, 1]])
            m = m @ np.array([[1, 0, -ring.shape[1] / 2], [0, 1, -ring.shape[0] / 2], [0, 0, 1]])
            _paste(canvas, ring, mask, g @ m)
    n_foreign = foreign if foreign is not None else int(rng.integers(1, 3))
    foreign_texts: list[str] = []
    for k in range(n_foreign):
        side = float(rng.uniform(45, 65))
        spot = free_spot(side)
        if spot is None:
            continue
        text = _FOREIGN_TEXTS[(seed + k) % len(_FOREIGN_TEXTS)]
        code = _qr_image(text, 8)
        mod_mm = side / code.shape[0]
        a = rng.uniform(0, 2 * math.pi)
        c, s = math.cos(a) * mod_mm, math.sin(a) * mod_mm
        m = np.array([[c, -s, spot[0]], [s, c, spot[1]], [0, 0, 1]]) @ np.array(
            [[1, 0, -code.shape[1] / 2], [0, 1, -code.shape[0] / 2], [0, 0, 1]]
        )
        _paste(canvas, code, np.full(code.shape, 255, np.uint8), g @ m)
        foreign_texts.append(text)

    # Components, bottom first (boards, then tiles and cards, then small tokens).
    def depth(item: tuple[str, Component, TablePose, bool]) -> float:
        return -item[1].size_mm[0] * item[1].size_mm[1]

    centres: dict[str, tuple[float, float]] = {}
    outlines: dict[str, np.ndarray] = {}
    for cid, comp, pose, face_up in sorted(items, key=depth):
        # Face raster density: about twice the image's pixels per mm at that spot.
        cam_pt = cam.rotation @ np.array([pose.x_mm, pose.y_mm, 0.0]) + cam.translation
        img_ppm = cam.matrix[0, 0] / cam_pt[2]
        ppm = float(min(16.0, max(2.0, round(2 * img_ppm))))
        face = render_component(game.id, comp, px_per_mm=ppm, back=not face_up)
        mask = face_mask(face_of(game.id, comp, not face_up), ppm)
        face_px_to_mm = np.diag([comp.size_mm[0] / face.shape[1], comp.size_mm[1] / face.shape[0], 1.0])
        m = g @ _pose_matrix(pose, comp.size_mm) @ face_px_to_mm
        # A little lift shadow under each component.
        _paste(canvas, np.zeros_like(face), (mask * 0.25).astype(np.uint8), np.array([[1, 0, 3 * ss], [0, 1, 3 * ss], [0, 0, 1]]) @ m)
        _paste(canvas, face, mask, m)
        wmm, hmm = comp.size_mm
        outline = apply_homography(g @ _pose_matrix(pose, comp.size_mm), np.array([[0, 0], [wmm, 0], [wmm, hmm], [0, hmm]], float))
        outlines[cid] = outline / ss
        c = outline.mean(axis=0) / ss
        centres[cid] = (float(c[0]), float(c[1]))

    # Light: a broad gradient, a soft shadow band and perhaps glare (smooth, so drawn small).
    lw, lh = max(8, W // 8), max(8, H // 8)
    yy, xx = np.mgrid[0:lh, 0:lw].astype(np.float32)
    ang = rng.uniform(0, 2 * math.pi)
    grad = (xx / lw - 0.5) * math.cos(ang) + (yy / lh - 0.5) * math.sin(ang)
    light = 1.0 + 0.25 * grad * rng.uniform(0.3, 1.0)
    r2 = ((xx - lw / 2) / lw) ** 2 + ((yy - lh / 2) / lh) ** 2
    light *= 1.0 - 0.35 * r2
    dark = float(rng.uniform(*cond.shadow))
    if dark < 0.99:
        band = np.zeros((lh, lw), np.float32)
        p0 = np.array([rng.uniform(0, lw), 0])
        p1 = np.array([rng.uniform(0, lw), lh])
        width = rng.uniform(0.08, 0.2) * lw
        poly = np.array([p0, p1, p1 + [width, 0], p0 + [width, 0]], np.int32)
        cv2.fillPoly(band, [poly], 1.0)
        band = cv2.GaussianBlur(band, (0, 0), 0.03 * lw)
        light *= 1.0 - (1.0 - dark) * band
    glare = np.zeros((lh, lw), np.float32)
    if rng.random() < cond.glare:
        gx, gy = rng.uniform(0.2 * lw, 0.8 * lw), rng.uniform(0.2 * lh, 0.8 * lh)
        sigma = rng.uniform(0.03, 0.07) * lw
        glare = 180.0 * np.exp(-(((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * sigma**2)))
    light = cv2.resize(light.astype(np.float32), (W, H), interpolation=cv2.INTER_LINEAR)
    img = canvas.astype(np.float32)
    img *= light[:, :, None]
    if glare.any():
        img += cv2.resize(glare.astype(np.float32), (W, H), interpolation=cv2.INTER_LINEAR)[:, :, None]
    hidden: set[str] = set()
    if hand and items:
        choice = items[int(rng.integers(0, len(items)))]
        hc = np.array(centres[choice[0]]) * ss
        hmask = _hand(rng, hc, 0.09 * W, (H, W))
        skin = np.array([120, 150, 205], np.float32) * rng.uniform(0.8, 1.1)
        a = (cv2.GaussianBlur(hmask, (0, 0), 2 * ss).astype(np.float32) / 255.0)[:, :, None]
        img = img * (1 - a) + skin[None, None, :] * a * light[:, :, None]
        small = cv2.resize(hmask, (w, h), interpolation=cv2.INTER_AREA)
        for cid, outline in outlines.items():
            poly = np.zeros((h, w), np.uint8)
            cv2.fillPoly(poly, [np.round(outline).astype(np.int32)], 255)
            if np.any((poly > 0) & (small > 0)):
                hidden.add(cid)
    img = np.clip(img, 0, 255).astype(np.uint8)
    img = cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA) if ss > 1 else img
    img = _distort(img, k1, cam.matrix[0, 0] / ss)
    scale = w / 1920
    blur = float(rng.uniform(*cond.blur_px)) * max(scale, 0.5)
    if blur > 0.1:
        img = cv2.GaussianBlur(img, (0, 0), blur)
    motion = float(rng.uniform(*cond.motion_px)) * scale
    if motion >= 1.0:
        n = int(round(motion)) * 2 + 1
        kernel = np.zeros((n, n), np.float32)
        a = rng.uniform(0, math.pi)
        cv2.line(kernel, (int(n / 2 - math.cos(a) * n / 2), int(n / 2 - math.sin(a) * n / 2)),
                 (int(n / 2 + math.cos(a) * n / 2), int(n / 2 + math.sin(a) * n / 2)), 1.0, 1)
        img = cv2.filter2D(img, -1, kernel / kernel.sum())
    noise = float(rng.uniform(*cond.noise))
    img = np.clip(img.astype(np.float32) + rng.normal(0, noise, img.shape).astype(np.float32), 0, 255).astype(np.uint8)
    quality = int(rng.integers(cond.jpeg[0], cond.jpeg[1] + 1))
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("JPEG encoding failed")
    data = buf.tobytes()
    final = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)

    # Truth: components whose whole face is inside the frame and not under the hand.
    for cid, outline in outlines.items():
        inside = np.all((outline[:, 0] >= 2) & (outline[:, 0] <= w - 3) & (outline[:, 1] >= 2) & (outline[:, 1] <= h - 3))
        if not inside:
            hidden.add(cid)
    # Cards in hands and piles are not on the table: they are not in the photo's truth either.
    placed = tuple(p for p in state.placements if p.component in poses and p.component not in hidden)
    truth = replace(state, placements=placed)
    return Scene(
        final,
        truth,
        poses,
        tuple(sorted(hidden & {p.component for p in state.placements})),
        tuple(foreign_texts),
        Camera(cam.matrix / np.array([[ss], [ss], [1]]), cam.rotation, cam.translation, k1, height, tilt),
        cond.name,
        seed,
        centres,
        data,
    )
