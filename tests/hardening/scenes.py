"""Table scenes that carry hostile QR codes beside one genuine component.

A scene is a wood-coloured table photographed from slightly above: every code is
warped by its own small rotation and perspective, then the whole frame gets blur,
noise and JPEG compression. Everything random comes from one seeded generator.
"""

from __future__ import annotations

import math
from functools import cache
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import segno

from printables.faces import render_face

#: ASCII control characters as zxing-cpp spells them in decoded text.
_CONTROL_NAMES = (
    "NUL SOH STX ETX EOT ENQ ACK BEL BS HT LF VT FF CR SO SI "
    "DLE DC1 DC2 DC3 DC4 NAK SYN ETB CAN EM SUB ESC FS GS RS US"
).split()


def as_decoded(text: str) -> str:
    """The text a QR decoder reports for ``text``: unprintable controls become ``<NAME>``."""
    out = []
    for ch in text:
        code = ord(ch)
        if code < 32 and ch not in "\t\n\r":
            out.append(f"<{_CONTROL_NAMES[code]}>")
        else:
            out.append(ch)
    return "".join(out)


@dataclass(frozen=True, slots=True)
class PlacedCode:
    """One hostile code in a scene and where its centre landed in the image."""

    text: str
    centre: tuple[float, float]


@dataclass(frozen=True, slots=True, eq=False)
class HostileScene:
    """A JPEG of the table, the codes on it and the genuine component beside them."""

    jpeg: bytes
    codes: tuple[PlacedCode, ...]
    genuine: str
    genuine_centre: tuple[float, float]


def qr_raster(text: str, module_px: int) -> np.ndarray:
    """A black-on-white QR symbol with its quiet zone, at a whole number of pixels per module."""
    symbol = segno.make(text, error="m")
    rows = np.array([[0 if v else 255 for v in row] for row in symbol.matrix], np.uint8)
    rows = np.pad(rows, 4, constant_values=255)
    return cv2.resize(rows, None, fx=module_px, fy=module_px, interpolation=cv2.INTER_NEAREST)


@cache
def _table(w: int, h: int) -> np.ndarray:
    """The bare table top (the same wood under every scene of one size; read-only)."""
    rng = np.random.default_rng(7)
    small = rng.random((max(2, h // 40), max(2, w // 40))).astype(np.float32)
    grain = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    y = np.arange(h, dtype=np.float32)[:, None]
    stripes = 0.5 + 0.5 * np.sin(y * 0.3 + grain * 10.0)
    base = np.array([70, 110, 150], np.float32)
    shade = 0.8 + 0.15 * stripes
    table = np.clip(base[None, None, :] * shade[:, :, None], 0, 255).astype(np.uint8)
    table.flags.writeable = False
    return table


def _paste(canvas: np.ndarray, src: np.ndarray, centre: tuple[float, float], angle: float,
           rng: np.random.Generator) -> tuple[float, float]:
    """Warp ``src`` (grey or BGR) onto the canvas around ``centre`` with a mild perspective."""
    h, w = src.shape[:2]
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32) - (w / 2, h / 2)
    c, s = math.cos(angle), math.sin(angle)
    rot = corners @ np.array([[c, s], [-s, c]], np.float32)
    jitter = rng.uniform(-0.025, 0.025, (4, 2)).astype(np.float32) * max(w, h)
    dst = (rot + jitter + np.array(centre, np.float32)).astype(np.float32)
    x0, y0 = np.floor(dst.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(dst.max(axis=0)).astype(int) + 2
    x0, y0 = max(0, int(x0)), max(0, int(y0))
    x1, y1 = min(canvas.shape[1], int(x1)), min(canvas.shape[0], int(y1))
    local = (dst - np.array([x0, y0], np.float32)).astype(np.float32)
    m = cv2.getPerspectiveTransform(np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32), local)
    colour = src if src.ndim == 3 else cv2.cvtColor(src, cv2.COLOR_GRAY2BGR)
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpPerspective(colour, m, size, flags=cv2.INTER_LINEAR).astype(np.float32)
    mask = cv2.warpPerspective(np.full((h, w), 255, np.uint8), m, size, flags=cv2.INTER_LINEAR)
    a = (mask.astype(np.float32) / 255.0)[:, :, None]
    roi = canvas[y0:y1, x0:x1]
    roi[:] = (warped * a + roi.astype(np.float32) * (1 - a)).astype(np.uint8)
    centre_img = dst.mean(axis=0)
    return float(centre_img[0]), float(centre_img[1])


def hostile_scene(
    game_id: str,
    genuine: str,
    texts: Sequence[str],
    *,
    seed: int,
    columns: int = 6,
    rows: int = 4,
    size: tuple[int, int] = (1920, 1080),
    module_px: int = 7,
) -> HostileScene:
    """Lay ``texts`` out in a grid (one cell keeps the genuine component) and photograph it."""
    if len(texts) > columns * rows - 1:
        raise ValueError("more codes than free grid cells")
    rng = np.random.default_rng(seed)
    w, h = size
    canvas = _table(w, h).copy()
    cell_w, cell_h = w / columns, h / rows
    cells = [((i % columns + 0.5) * cell_w, (i // columns + 0.5) * cell_h) for i in range(columns * rows)]
    genuine_cell = int(rng.integers(0, len(cells)))
    face = render_face(game_id, genuine, px_per_mm=4.0).copy()
    scale = min(cell_w, cell_h) * 0.85 / max(face.shape[:2])
    if scale < 1:
        face = cv2.resize(face, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    genuine_centre = _paste(canvas, face, cells[genuine_cell], float(rng.uniform(-0.3, 0.3)), rng)
    placed = []
    free = [c for i, c in enumerate(cells) if i != genuine_cell]
    for text, cell in zip(texts, free, strict=False):
        modules = len(segno.make(text, error="m").matrix) + 8
        px = max(2, min(module_px, int(0.65 * min(cell_w, cell_h) // modules)))
        code = qr_raster(text, px)
        centre = _paste(canvas, code, cell, float(rng.uniform(-math.pi, math.pi)), rng)
        placed.append(PlacedCode(text, centre))
    canvas = cv2.GaussianBlur(canvas, (0, 0), 0.6)
    noise = np.zeros(canvas.shape, np.int16)
    cv2.randn(noise, 0, 2)
    canvas = np.clip(canvas.astype(np.int16) + noise, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", canvas, [cv2.IMWRITE_JPEG_QUALITY, 92])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return HostileScene(buf.tobytes(), tuple(placed), genuine, genuine_centre)


def big_code_scene(text: str, *, seed: int, size: tuple[int, int] = (1920, 1080)) -> HostileScene:
    """One large symbol alone on the table: for texts that need a high QR version."""
    rng = np.random.default_rng(seed)
    w, h = size
    canvas = _table(w, h).copy()
    modules = len(segno.make(text, error="m").matrix) + 8
    px = max(3, int(0.85 * h // modules))
    centre = _paste(canvas, qr_raster(text, px), (w / 2, h / 2), float(rng.uniform(-0.2, 0.2)), rng)
    ok, buf = cv2.imencode(".jpg", canvas, [cv2.IMWRITE_JPEG_QUALITY, 92])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return HostileScene(buf.tobytes(), (PlacedCode(text, centre),), "", (0.0, 0.0))
