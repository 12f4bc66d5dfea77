"""Real-table conditions the scene renderer does not make, for tests and the benchmark.

Each condition starts from a rendered scene (``render.render_scene``) and changes the photo
the way a real table does: cards curled up off the table, a shaking camera (one-direction
motion blur with rolling-shutter skew), overlapping components under an arm, low warm
light with sensor noise, a phone held at a steep angle, other games' components and
everyday clutter (a cup, a phone, a pen, a score pad, a QR code that is no game's) beside
the board. ``hand_sequence`` films a hand coming in, placing a component and leaving, for
the live loop. Everything random comes from one seeded generator.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np
import qrcode

from printables.faces import face_mask, face_of, render_component
from scoring import find_game, games
from scoring.model import BoardState, Component

from .render import Condition, Scene, _pose_matrix, render_scene

#: The conditions ``render_condition`` makes, in the order the benchmark lists them.
NAMES = ("curl", "shake", "overlap", "low light", "steep phone", "other games", "clutter")

#: A phone held at the table's edge: steep tilt, close.
STEEP = Condition("steep phone", (40, 60), (55, 62), (0.5, 1.0), (0, 1.0), (2, 3), (0.7, 0.95), 0.2, (80, 90), (-0.03, 0.0))
#: A shaking camera's blur length and rolling-shutter skew over the frame height, at 1080p.
SHAKE_BLUR_PX = (6.0, 12.0)
SHAKE_SKEW_PX = (8.0, 24.0)
#: Lift of a curled card's highest edge above the table.
CURL_LIFT_MM = (4.0, 12.0)


@dataclass(frozen=True, slots=True, eq=False)
class Other:
    """Something on the table that is not this game's: another game's component or clutter."""

    kind: str
    """``game:<id>`` for another game's component, else the object (``cup``, ``phone``...)."""
    label: str
    """Component id of the other game, or the object's name (the QR text for a code)."""
    image_outline: np.ndarray
    """(4, 2) its box in the photo, pixels."""


@dataclass(frozen=True, slots=True, eq=False)
class HardScene:
    """A rendered scene under one real-table condition, and what else lies on the table."""

    scene: Scene
    others: tuple[Other, ...] = ()
    curled: tuple[str, ...] = ()
    base: Scene | None = None
    """The same photo before the other things were laid (other games, clutter)."""


@dataclass(frozen=True, slots=True, eq=False)
class SequenceFrame:
    """One frame of a filmed move."""

    image: np.ndarray
    hand: bool
    """A hand or arm is over the table in this frame."""
    truth: BoardState
    """What lies on the table (the state before the move until the piece is put down)."""


# -- geometry of the photographed table ----------------------------------------------------


def project(scene: Scene, table_mm: np.ndarray, lift_mm: np.ndarray | float = 0.0) -> np.ndarray:
    """(N, 2) table points lifted ``lift_mm`` towards the camera -> ideal (undistorted) pixels."""
    pts = np.asarray(table_mm, float).reshape(-1, 2)
    lift = np.broadcast_to(np.asarray(lift_mm, float), (len(pts),))
    world = np.column_stack([pts, -lift])  # z points into the table
    cam = world @ scene.camera.rotation.T + scene.camera.translation
    hom = cam @ scene.camera.matrix.T
    return hom[:, :2] / hom[:, 2:3]


def _centre_f(scene: Scene) -> tuple[np.ndarray, float]:
    h, w = scene.image.shape[:2]
    return np.array([w / 2, h / 2]), float(scene.camera.matrix[0, 0])


def distort(scene: Scene, ideal: np.ndarray) -> np.ndarray:
    """Ideal pixels -> where the renderer's lens distortion puts them."""
    c, f = _centre_f(scene)
    p = (np.asarray(ideal, float).reshape(-1, 2) - c) / f
    q = p.copy()
    for _ in range(8):
        q = p / (1 + scene.camera.k1 * (q**2).sum(axis=1, keepdims=True))
    return q * f + c


def undistort(scene: Scene, pixels: np.ndarray) -> np.ndarray:
    """Photo pixels -> ideal pixels (the renderer samples the ideal image this way)."""
    c, f = _centre_f(scene)
    d = (np.asarray(pixels, float).reshape(-1, 2) - c) / f
    return d * (1 + scene.camera.k1 * (d**2).sum(axis=1, keepdims=True)) * f + c


def _face_to_table(scene: Scene, cid: str, size: tuple[float, float]) -> np.ndarray:
    return _pose_matrix(scene.poses[cid], size)


def _apply(m: np.ndarray, pts: np.ndarray) -> np.ndarray:
    hom = np.column_stack([pts, np.ones(len(pts))]) @ m.T
    return hom[:, :2] / hom[:, 2:3]


def _encode(image: np.ndarray, quality: int) -> tuple[np.ndarray, bytes]:
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("JPEG encoding failed")
    data = buf.tobytes()
    return cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR), data


# -- curl ------------------------------------------------------------------------------------


def _lift(uv: np.ndarray, size: tuple[float, float], lift: float, shape: str, axis: int) -> np.ndarray:
    """Height above the table of face points (mm): a bow along one axis, or one corner up."""
    w, h = size
    if shape == "bow":
        t = uv[:, axis] / (w if axis == 0 else h)
        return lift * (2 * t - 1) ** 2
    t = (uv[:, 0] / w + uv[:, 1] / h) / 2
    return lift * np.clip(2 * t - 1, 0, 1) ** 2


def curl(image: np.ndarray, scene: Scene, cid: str, size: tuple[float, float], *, lift: float, shape: str, axis: int) -> np.ndarray:
    """The photo with one component curled up off the table (its face no longer one plane)."""
    face_to_table = _face_to_table(scene, cid, size)
    table_to_face = np.linalg.inv(face_to_table)
    image_to_table = np.linalg.inv(scene.camera.table_to_image())
    w, h = size
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], float)
    table_corners = _apply(face_to_table, corners)
    box = np.vstack([distort(scene, project(scene, table_corners)), distort(scene, project(scene, table_corners, lift))])
    H, W = image.shape[:2]
    x0, y0 = np.maximum(np.floor(box.min(axis=0)).astype(int) - 4, 0)
    x1, y1 = np.minimum(np.ceil(box.max(axis=0)).astype(int) + 4, [W, H])
    if x1 <= x0 or y1 <= y0:
        return image
    ys, xs = np.mgrid[y0:y1, x0:x1]
    dst = np.column_stack([xs.ravel(), ys.ravel()]).astype(float)
    ideal = undistort(scene, dst)
    uv = _apply(table_to_face, _apply(image_to_table, ideal))
    shift = np.zeros_like(ideal)
    for _ in range(5):  # find the face point whose lifted image is this pixel
        table = _apply(face_to_table, uv)
        z = _lift(uv, size, lift, shape, axis)
        shift = project(scene, table, z) - project(scene, table)
        uv = _apply(table_to_face, _apply(image_to_table, ideal - shift))
    on_card = (uv[:, 0] >= 0) & (uv[:, 0] <= w) & (uv[:, 1] >= 0) & (uv[:, 1] <= h)
    flat = _apply(table_to_face, _apply(image_to_table, ideal))
    under = (flat[:, 0] >= 0) & (flat[:, 0] <= w) & (flat[:, 1] >= 0) & (flat[:, 1] <= h) & ~on_card
    src = (dst - shift).astype(np.float32).reshape(y1 - y0, x1 - x0, 2)
    moved = cv2.remap(image, src[..., 0], src[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    z = _lift(uv, size, lift, shape, axis).reshape(y1 - y0, x1 - x0)
    shade = (1.0 - 0.12 * z / max(lift, 1e-6))[..., None]
    out = image.copy()
    roi = out[y0:y1, x0:x1]
    card = on_card.reshape(y1 - y0, x1 - x0)
    roi[card] = np.clip(moved[card] * shade[card], 0, 255).astype(np.uint8)
    gap = under.reshape(y1 - y0, x1 - x0)
    if gap.any():  # the table under a lifted edge, in the card's shadow
        ring = roi[~card & ~gap]
        shadow = (ring.reshape(-1, 3).mean(axis=0) if len(ring) else np.array([60, 70, 80])) * 0.45
        roi[gap] = shadow.astype(np.uint8)
    return out


# -- camera shake, light -----------------------------------------------------------------------


def shake(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One-direction motion blur with rolling-shutter skew (rows exposed one after another)."""
    h, w = image.shape[:2]
    scale = w / 1920
    angle = rng.uniform(0, math.pi)
    length = rng.uniform(*SHAKE_BLUR_PX) * scale
    skew = rng.uniform(*SHAKE_SKEW_PX) * scale * (1 if rng.random() < 0.5 else -1)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    t = ys / h - 0.5
    out = cv2.remap(image, xs + skew * t * math.cos(angle), ys + skew * t * math.sin(angle), cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_REFLECT)
    n = int(math.ceil(length)) | 1
    kernel = np.zeros((n, n), np.float32)
    c = n / 2 - 0.5
    d = np.array([math.cos(angle), math.sin(angle)]) * (length / 2)
    cv2.line(kernel, (round(c - d[0]), round(c - d[1])), (round(c + d[0]), round(c + d[1])), 1.0, 1, cv2.LINE_AA)
    return cv2.filter2D(out, -1, kernel / kernel.sum())


def low_light(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Dim warm light, the camera's gain raised: colour cast and amplified sensor noise."""
    dim = rng.uniform(0.25, 0.4)
    tint = np.array([0.7, 0.9, 1.05], np.float32)  # BGR: tungsten light is short of blue
    dark = image.astype(np.float32) * dim * tint
    dark += rng.normal(0, rng.uniform(1.5, 2.5), dark.shape).astype(np.float32)
    dark += rng.normal(0, 1.0, dark.shape[:2]).astype(np.float32)[..., None] * rng.uniform(1.0, 2.0)
    gain = rng.uniform(0.7, 0.85) / dim
    return np.clip(dark * gain, 0, 255).astype(np.uint8)


# -- other things on the table -----------------------------------------------------------------


def _footprints(scene: Scene, game_id: str) -> list[tuple[float, float, float]]:
    index = {c.id: c for c in find_game(game_id).components()}
    out = []
    for cid, pose in scene.poses.items():
        if cid in index:
            out.append((pose.x_mm, pose.y_mm, math.hypot(*index[cid].size_mm) / 2))
    return out


def _free_spot(scene: Scene, taken: list[tuple[float, float, float]], radius: float, rng: np.random.Generator) -> tuple[float, float] | None:
    """A table point well inside the photo, clear of everything laid so far."""
    h, w = scene.image.shape[:2]
    view = np.array([[0.04 * w, 0.05 * h], [0.96 * w, 0.05 * h], [0.96 * w, 0.95 * h], [0.04 * w, 0.95 * h]])
    table = _apply(np.linalg.inv(scene.camera.table_to_image()), undistort(scene, view))
    lo, hi = table.min(axis=0), table.max(axis=0)
    poly = table.astype(np.float32)
    for _ in range(200):
        x, y = rng.uniform(lo[0], hi[0]), rng.uniform(lo[1], hi[1])
        if cv2.pointPolygonTest(poly, (float(x), float(y)), True) < radius * 0.5:
            continue
        if all(math.hypot(x - fx, y - fy) > fr + radius + 8 for fx, fy, fr in taken):
            taken.append((x, y, radius))
            return x, y
    return None


def _lay(image: np.ndarray, scene: Scene, picture: np.ndarray, mask: np.ndarray, size_mm: tuple[float, float],
         spot: tuple[float, float], angle: float, blur: float) -> np.ndarray:
    """Paste a flat picture of ``size_mm`` centred on a table spot; returns its photo outline."""
    w, h = size_mm
    c, s = math.cos(angle), math.sin(angle)
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    table = local @ np.array([[c, s], [-s, c]]) + spot
    outline = distort(scene, project(scene, table))
    ph, pw = picture.shape[:2]
    m = cv2.getPerspectiveTransform(np.float32([[0, 0], [pw, 0], [pw, ph], [0, ph]]), outline.astype(np.float32))
    H, W = image.shape[:2]
    warped = cv2.warpPerspective(picture, m, (W, H), flags=cv2.INTER_AREA if pw > W / 4 else cv2.INTER_LINEAR)
    alpha = cv2.warpPerspective(mask, m, (W, H), flags=cv2.INTER_LINEAR).astype(np.float32) / 255.0
    if blur > 0:
        warped = cv2.GaussianBlur(warped, (0, 0), blur)
        alpha = cv2.GaussianBlur(alpha, (0, 0), blur)
    a = alpha[..., None]
    image[:] = (warped.astype(np.float32) * a + image.astype(np.float32) * (1 - a)).astype(np.uint8)
    return outline


def _other_game_components(game_id: str, rng: np.random.Generator, n: int) -> list[tuple[str, Component]]:
    others = [g.id for g in games() if g.id != game_id]
    out = []
    for k in range(n):
        gid = others[int(rng.integers(0, len(others)))] if k else others[0]
        comps = [c for c in find_game(gid).components() if max(c.size_mm) <= 100]
        out.append((gid, comps[int(rng.integers(0, len(comps)))]))
    return out


def _cup(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, tuple[float, float]]:
    img = np.zeros((260, 340, 3), np.uint8)
    mask = np.zeros((260, 340), np.uint8)
    colour = tuple(int(v) for v in rng.integers(60, 240, 3))
    cv2.ellipse(img, (270, 130), (55, 28), 0, 0, 360, colour, 22)  # the handle
    cv2.ellipse(mask, (270, 130), (55, 28), 0, 0, 360, 255, 22)
    cv2.circle(img, (130, 130), 125, colour, -1)
    cv2.circle(mask, (130, 130), 125, 255, -1)
    cv2.circle(img, (130, 130), 108, (20, 45, 75), -1)  # coffee
    cv2.ellipse(img, (100, 95), (35, 14), -30, 0, 360, (200, 215, 225), -1)  # a reflection
    return img, mask, (110.0, 84.0)


def _phone(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, tuple[float, float]]:
    img = np.full((600, 290, 3), 25, np.uint8)
    cv2.rectangle(img, (15, 40), (275, 560), (70, 50, 40), -1)
    for r in range(5):  # app icons: coloured rounded squares, as a home screen shows them
        for c in range(4):
            colour = tuple(int(v) for v in rng.integers(30, 250, 3))
            x, y = 32 + 62 * c, 70 + 80 * r
            cv2.rectangle(img, (x, y), (x + 46, y + 46), colour, -1)
    return img, np.full(img.shape[:2], 255, np.uint8), (72.0, 150.0)


def _pen(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, tuple[float, float]]:
    img = np.zeros((24, 400, 3), np.uint8)
    img[:] = tuple(int(v) for v in rng.integers(20, 200, 3))
    img[:, 340:] = (40, 40, 40)
    return img, np.full(img.shape[:2], 255, np.uint8), (140.0, 9.0)


def _score_pad(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, tuple[float, float]]:
    """A score pad: a ruled grid of boxes with handwritten numbers and ticked squares."""
    img = np.full((560, 400, 3), 240, np.uint8)
    for k in range(12):
        cv2.line(img, (20, 60 + 40 * k), (380, 60 + 40 * k), (90, 90, 90), 2)
    for x in (20, 140, 260, 380):
        cv2.line(img, (x, 60), (x, 500), (90, 90, 90), 2)
    for k in range(10):
        for x in (40, 160, 280):
            cv2.putText(img, str(int(rng.integers(0, 40))), (x, 92 + 40 * k), cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, 0.9,
                        (120, 60, 30), 2)
    for k in range(4):  # filled tick boxes: black squares, distractors for the tag detector
        cv2.rectangle(img, (300 + 16 * (k % 2), 20), (322 + 16 * (k % 2), 42), (20, 20, 20), -1 if k % 2 else 3)
    return img, np.full(img.shape[:2], 255, np.uint8), (100.0, 140.0)


def _code(text: str) -> tuple[np.ndarray, np.ndarray, tuple[float, float]]:
    qr = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_M, border=4)
    qr.add_data(text)
    qr.make(fit=True)
    rows = np.array([[0 if v else 255 for v in row] for row in qr.get_matrix()], np.uint8)
    img = cv2.cvtColor(cv2.resize(rows, None, fx=10, fy=10, interpolation=cv2.INTER_NEAREST), cv2.COLOR_GRAY2BGR)
    side = 50.0
    return img, np.full(img.shape[:2], 255, np.uint8), (side, side)


CLUTTER = {"cup": _cup, "phone": _phone, "pen": _pen, "score pad": _score_pad}
NON_GAME_CODES = ("https://example.com/menu", "WIFI:S:cafe;T:WPA;P:latte123;;", "tel:+441234567890")


def lay_others(image: np.ndarray, scene: Scene, game_id: str, rng: np.random.Generator, *, games_n: int = 0,
               clutter: Sequence[str] = ()) -> tuple[np.ndarray, tuple[Other, ...]]:
    """Put other games' components and clutter on free table spots of the photo."""
    out = image.copy()
    taken = _footprints(scene, game_id)
    found: list[Other] = []
    for gid, comp in _other_game_components(game_id, rng, games_n):
        spot = _free_spot(scene, taken, math.hypot(*comp.size_mm) / 2, rng)
        if spot is None:
            continue
        ppm = 8.0
        face = render_component(gid, comp, px_per_mm=ppm)
        mask = face_mask(face_of(gid, comp), ppm)
        outline = _lay(out, scene, face, mask, comp.size_mm, spot, rng.uniform(0, 2 * math.pi), 0.8)
        found.append(Other(f"game:{gid}", comp.id, outline))
    for k, name in enumerate(clutter):
        if name == "code":
            text = NON_GAME_CODES[k % len(NON_GAME_CODES)]
            picture, mask, size = _code(text)
        else:
            text = name
            picture, mask, size = CLUTTER[name](rng)
        spot = _free_spot(scene, taken, math.hypot(*size) / 2, rng)
        if spot is None:
            continue
        outline = _lay(out, scene, picture, mask, size, spot, rng.uniform(0, 2 * math.pi), 0.8)
        found.append(Other(name, text, outline))
    return out, tuple(found)


# -- scenes under a condition ----------------------------------------------------------------------


def _overlapped_poses(game_id: str, state: BoardState, rng: np.random.Generator) -> dict:
    """The layout's poses with some components pushed a little over a neighbour."""
    from vision.layouts import find_layout

    poses = dict(find_layout(game_id).arrange(state))
    index = {c.id: c for c in find_game(game_id).components()}
    ids = [cid for cid in poses if not index[cid].spaces]
    for cid in ids:
        if rng.random() > 0.35:
            continue
        here = poses[cid]
        near = min((o for o in ids if o != cid), key=lambda o: math.hypot(poses[o].x_mm - here.x_mm, poses[o].y_mm - here.y_mm),
                   default=None)
        if near is None:
            continue
        d = np.array([poses[near].x_mm - here.x_mm, poses[near].y_mm - here.y_mm])
        dist = float(np.linalg.norm(d)) or 1.0
        push = rng.uniform(0.06, 0.12) * min(index[cid].size_mm)
        poses[cid] = replace(here, x_mm=here.x_mm + d[0] / dist * push, y_mm=here.y_mm + d[1] / dist * push)
    return poses


def render_condition(game_id: str, state: BoardState, *, condition: str, resolution: tuple[int, int] = (1920, 1080),
                     seed: int = 0) -> HardScene:
    """A scene of ``state`` under one of ``NAMES``."""
    if condition not in NAMES:
        raise ValueError(f"unknown condition {condition!r}; one of {', '.join(NAMES)}")
    rng = np.random.default_rng(seed + 7919)
    base = "typical"
    if condition == "steep phone":
        scene = render_scene(game_id, state, condition=STEEP, resolution=resolution, seed=seed)
    elif condition == "overlap":
        poses = _overlapped_poses(game_id, state, rng)
        scene = render_scene(game_id, state, condition=base, resolution=resolution, seed=seed, poses=poses, hand=True)
    else:
        scene = render_scene(game_id, state, condition=base, resolution=resolution, seed=seed,
                             clutter=condition != "clutter", foreign=0 if condition in ("other games", "clutter") else None)
    image, first = scene.image, scene
    others: tuple[Other, ...] = ()
    curled: list[str] = []
    if condition == "curl":
        index = {c.id: c for c in find_game(game_id).components()}
        stacked = {p.on for p in state.placements if p.on} | {p.component for p in state.placements if p.on}
        for p in scene.truth.placements:
            comp = index[p.component]
            # A card with another on it (or on another) is held flat: only a loose one curls.
            if not comp.spaces and max(comp.size_mm) >= 40 and p.component not in stacked and rng.random() < 0.5:
                image = curl(image, scene, p.component, comp.size_mm, lift=float(rng.uniform(*CURL_LIFT_MM)),
                             shape="bow" if rng.random() < 0.6 else "corner", axis=int(rng.integers(0, 2)))
                curled.append(p.component)
    elif condition == "shake":
        image = shake(image, rng)
    elif condition == "low light":
        image = low_light(image, rng)
    elif condition == "other games":
        image, others = lay_others(image, scene, game_id, rng, games_n=int(rng.integers(3, 6)))
    elif condition == "clutter":
        image, others = lay_others(image, scene, game_id, rng, clutter=("cup", "phone", "pen", "score pad", "code"))
    if image is not scene.image:
        quality = int(rng.integers(80, 92))
        image, data = _encode(image, quality)
        scene = replace(scene, image=image, jpeg=data, condition=condition)
        if others:  # the photo without them, compressed the same way: only they differ
            plain, plain_data = _encode(first.image, quality)
            first = replace(first, image=plain, jpeg=plain_data)
    return HardScene(scene, others, tuple(curled), first if others else None)


# -- a filmed move ---------------------------------------------------------------------------------


def _arm(shape: tuple[int, int], tip: np.ndarray, root: np.ndarray, width: float) -> np.ndarray:
    """Float mask (0..1) of a forearm from ``root`` (beyond the picture's edge) to a hand at ``tip``."""
    h, w = shape
    mask = np.zeros((h, w), np.uint8)
    d = tip - root
    d = d / (np.linalg.norm(d) + 1e-9)
    n = np.array([-d[1], d[0]])
    arm = np.array([root + n * width / 2, root - n * width / 2, tip - n * width * 0.55, tip + n * width * 0.55])
    cv2.fillPoly(mask, [np.round(arm).astype(np.int32)], 255)
    cv2.circle(mask, (round(tip[0]), round(tip[1])), round(width * 0.75), 255, -1)
    for k in range(4):  # fingers
        base = tip + n * width * (k - 1.5) * 0.35
        end = base + d * width * (1.0 + 0.15 * (k % 2))
        cv2.line(mask, (round(base[0]), round(base[1])), (round(end[0]), round(end[1])), 255, max(3, round(width * 0.2)))
    return cv2.GaussianBlur(mask, (0, 0), 2).astype(np.float32) / 255.0


def _with_hand(image: np.ndarray, tip: np.ndarray, root: np.ndarray, width: float,
               rng: np.random.Generator) -> tuple[np.ndarray, bool]:
    """The photo with a hand and forearm over it, casting a soft shadow on the table (and
    whether any of the arm is in the picture)."""
    h, w = image.shape[:2]
    arm = _arm((h, w), tip, root, width)
    shadow = cv2.GaussianBlur(np.roll(arm, (round(0.02 * h), round(0.015 * w)), axis=(0, 1)), (0, 0), 0.01 * w)
    out = image.astype(np.float32) * (1 - 0.45 * shadow[..., None])
    yy = np.linspace(0.85, 1.1, h, dtype=np.float32)[:, None, None]
    skin = np.array([110, 145, 200], np.float32) * yy * rng.uniform(0.9, 1.05)
    a = arm[..., None]
    return np.clip(out * (1 - a) + skin * a, 0, 255).astype(np.uint8), bool((arm > 0.1).any())


def _camera_noise(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    noisy = image.astype(np.float32) + rng.normal(0, 1.5, image.shape).astype(np.float32)
    return _encode(np.clip(noisy, 0, 255).astype(np.uint8), 90)[0]


def hand_sequence(game_id: str, before: BoardState, after: BoardState, *, seed: int = 0,
                  resolution: tuple[int, int] = (1920, 1080), settle_before: int = 8, enter: int = 4, hold: int = 3,
                  leave: int = 4, settle_after: int = 12) -> tuple[SequenceFrame, ...]:
    """Frames of a fixed camera: the table still, a hand reaching in to put down what ``after``
    adds to ``before``, holding over it, leaving, then the table still again. Each frame has
    its own sensor noise and JPEG compression, as a camera's would."""
    from vision.layouts import find_layout

    poses = find_layout(game_id).arrange(after)  # one arrangement: the move changes nothing else
    first = render_scene(game_id, before, condition="typical", resolution=resolution, seed=seed, clutter=False,
                         foreign=0, poses=poses)
    last = render_scene(game_id, after, condition="typical", resolution=resolution, seed=seed, clutter=False,
                        foreign=0, poses=poses)
    if not (np.allclose(first.camera.rotation, last.camera.rotation) and np.allclose(first.camera.translation, last.camera.translation)):
        raise ValueError("the move changes the table's extent: the two scenes were taken from different cameras")
    added = [p.component for p in after.placements if p.component not in {q.component for q in before.placements}]
    if not added or added[0] not in last.image_centres:
        raise ValueError("the move must put down a component in view")
    rng = np.random.default_rng(seed + 104729)
    h, w = last.image.shape[:2]
    tip = distort(last, np.array(last.image_centres[added[0]]))[0]
    root = np.array([tip[0] + rng.uniform(-0.2, 0.2) * w, h * 1.15 if tip[1] > h * 0.4 else -0.15 * h])
    width = 0.07 * w
    frames: list[SequenceFrame] = []

    def shot(base: Scene, truth: BoardState, reach: float | None) -> None:
        image, hand = base.image, False
        if reach is not None:
            jitter = rng.normal(0, 0.6, 2)
            image, hand = _with_hand(image, root + (tip - root) * reach + jitter, root, width, rng)
        frames.append(SequenceFrame(_camera_noise(image, rng), hand, truth))

    for _ in range(settle_before):
        shot(first, before, None)
    for k in range(enter):
        shot(first, before, (k + 1) / enter)
    for k in range(hold):
        down = k >= hold // 2
        shot(last if down else first, after if down else before, 1.0)
    for k in range(leave):
        shot(last, after, 1.0 - (k + 1) / (leave + 1))
    for _ in range(settle_after):
        shot(last, after, None)
    return tuple(frames)


def a_move(game_id: str, state: BoardState, *, seed: int = 0) -> tuple[BoardState, BoardState]:
    """(before, after) for ``hand_sequence``: ``state`` less one component that has nothing on
    it and does not bound the table (so both photos are taken by the same camera)."""
    from vision.layouts import find_layout

    poses = find_layout(game_id).arrange(state)
    pts = np.array([[poses[p.component].x_mm, poses[p.component].y_mm] for p in state.placements if p.component in poses])
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    under = {p.on for p in state.placements}
    inner = [p for p in state.placements if p.component in poses and p.component not in under
             and lo[0] < poses[p.component].x_mm < hi[0] and lo[1] < poses[p.component].y_mm < hi[1]]
    if not inner:
        raise ValueError("no component lies inside the table's extent")
    gone = inner[int(np.random.default_rng(seed).integers(0, len(inner)))]
    return replace(state, placements=tuple(p for p in state.placements if p is not gone)), state
