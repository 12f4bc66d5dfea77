"""The hostile image corpus: over two hundred bad or odd files, built by code at test time.

Nothing binary is stored: every file is derived from a seeded generator and a few tiny
images encoded on the spot, so the corpus is identical on every machine. Each entry says
what the loader must do with it:

- ``REFUSE``: not an image we decode (broken, truncated, foreign format, over budget):
  ``load_image`` raises ImageError, the API answers 4xx with a reason, the CLI exits 2;
- ``DECODE``: odd but genuine (16-bit, CMYK, EXIF-rotated, animated, 1x1...): it decodes,
  the scan answers 200 with nothing recognised.
"""

from __future__ import annotations

import enum
import io
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np
from PIL import Image


class Expect(enum.Enum):
    """What the loader must do with a corpus file."""

    REFUSE = "refuse"
    DECODE = "decode"


@dataclass(frozen=True, slots=True)
class Sample:
    """One corpus file: a stable name, its bytes, the expected outcome and whether it is a bomb."""

    name: str
    data: bytes
    expect: Expect
    bomb: bool = False


def _scene(w: int = 160, h: int = 120, seed: int = 0) -> np.ndarray:
    """A small colourful picture: smooth gradients with a few blocks (compresses like a photo)."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    img = np.dstack([xx / w * 255, yy / h * 255, (xx + yy) / (w + h) * 255]).astype(np.uint8)
    for _ in range(6):
        x, y = int(rng.integers(0, w - 10)), int(rng.integers(0, h - 10))
        img[y : y + 10, x : x + 10] = rng.integers(0, 255, 3)
    return img


def _cv(img: np.ndarray, ext: str, *params: int) -> bytes:
    ok, buf = cv2.imencode(ext, img, list(params))
    if not ok:
        raise RuntimeError(f"cannot encode {ext}")
    return buf.tobytes()


def _pil(img: np.ndarray | Image.Image, fmt: str, **kw: object) -> bytes:
    pic = img if isinstance(img, Image.Image) else Image.fromarray(img[:, :, ::-1] if img.ndim == 3 else img)
    out = io.BytesIO()
    pic.save(out, fmt, **kw)
    return out.getvalue()


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png_claiming(width: int, height: int, *, depth: int = 8, colour: int = 0, idat: bytes = b"") -> bytes:
    """A well-formed PNG container whose header claims any size (the pixel data may be absent)."""
    ihdr = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, 0)
    body = _chunk(b"IHDR", ihdr)
    if idat:
        body += _chunk(b"IDAT", idat)
    return b"\x89PNG\r\n\x1a\n" + body + _chunk(b"IEND", b"")


@cache
def png_bomb(side: int) -> bytes:
    """A real grey PNG of ``side`` x ``side`` zero pixels: tiny on disk, huge decoded.

    The zlib stream is one fully flushed deflate segment for 100 rows, repeated: each
    segment stands alone, so the file is valid without compressing the whole image.
    """
    if side % 100:
        raise ValueError("side must be a multiple of 100")
    raw = zlib.compressobj(9, zlib.DEFLATED, -15)
    segment = raw.compress(b"\x00" * ((side + 1) * 100)) + raw.flush(zlib.Z_FULL_FLUSH)
    total = (side + 1) * side
    adler = ((total % 65521) << 16) | 1  # Adler-32 of zeros: a stays 1, b counts the bytes
    stream = b"\x78\xda" + segment * (side // 100) + b"\x03\x00" + struct.pack(">I", adler)
    return png_claiming(side, side, idat=stream)


def jpeg_claiming(width: int, height: int) -> bytes:
    """A JPEG whose frame header claims any size, followed by a token scan and end marker."""
    base = _cv(_scene(16, 16), ".jpg", cv2.IMWRITE_JPEG_QUALITY, 80)
    i = 2
    while i < len(base):
        marker = base[i + 1]
        length = struct.unpack(">H", base[i + 2 : i + 4])[0]
        if marker in (0xC0, 0xC2):
            return base[: i + 5] + struct.pack(">HH", height, width) + base[i + 9 :]
        i += 2 + length
    raise RuntimeError("no SOF in the encoded JPEG")


def bmp_claiming(width: int, height: int) -> bytes:
    header = b"BM" + struct.pack("<IHHI", 54, 0, 0, 54)
    info = struct.pack("<IiiHHIIiiII", 40, width, height, 1, 24, 0, 0, 2835, 2835, 0, 0)
    return header + info


def webp_claiming(width: int, height: int) -> bytes:
    vp8x = b"VP8X" + struct.pack("<I", 10) + b"\x00\x00\x00\x00"
    vp8x += (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")
    body = b"WEBP" + vp8x
    return b"RIFF" + struct.pack("<I", len(body)) + body


def _exif_rotated(orientation: int) -> bytes:
    pic = Image.fromarray(_scene(96, 64, seed=orientation)[:, :, ::-1])
    exif = Image.Exif()
    exif[0x0112] = orientation
    return _pil(pic, "JPEG", exif=exif, quality=90)


def _animated(fmt: str) -> bytes:
    frames = [Image.fromarray(_scene(64, 48, seed=k)[:, :, ::-1]) for k in range(3)]
    out = io.BytesIO()
    frames[0].save(out, fmt, save_all=True, append_images=frames[1:], duration=100, loop=0)
    return out.getvalue()


def _cuts(n: int, count: int) -> list[int]:
    """``count`` distinct cut points spread over a file of ``n`` bytes (never the full length)."""
    fixed = [1, 2, 3, 4, 8, 12, 16, 24, 33, 40, 64]
    spread = [int(n * k / (count + 1)) for k in range(1, count + 1)]
    near_end = [n - 1, n - 2, n - 4, n - 12, n - 16, n - 20]
    return sorted({c for c in fixed + spread + near_end if 0 < c < n})


def _flip(data: bytes, seed: int, count: int, start: int) -> bytes:
    """Corrupt ``count`` bytes after ``start`` (the header stays intact)."""
    rng = np.random.default_rng(seed)
    buf = bytearray(data)
    for pos in rng.integers(start, len(buf) - 16, count):
        buf[int(pos)] ^= 0xFF
    return bytes(buf)


def samples() -> Iterator[Sample]:
    """Every corpus file, in a fixed order with unique names."""
    R, D = Expect.REFUSE, Expect.DECODE
    rng = np.random.default_rng(20240611)
    img = _scene()
    png = _cv(img, ".png")
    jpg = _cv(img, ".jpg", cv2.IMWRITE_JPEG_QUALITY, 90)
    webp = _cv(img, ".webp", cv2.IMWRITE_WEBP_QUALITY, 90)
    bmp = _cv(img, ".bmp")

    yield Sample("empty", b"", R)
    for n in (1, 2, 3, 7, 16, 64, 512, 4096, 65536, 300_000):
        yield Sample(f"random-{n}", rng.bytes(n), R)
    for n in (1, 2, 4, 8, 16, 32, 64, 128):
        yield Sample(f"zeros-{n}", b"\x00" * n, R)
    for magic_name, magic in (
        ("png", b"\x89PNG\r\n\x1a\n"),
        ("jpeg", b"\xff\xd8\xff"),
        ("bmp", b"BM"),
        ("webp", b"RIFF\x10\x00\x00\x00WEBP"),
    ):
        for n in (0, 10, 100, 5000):
            yield Sample(f"magic-{magic_name}-then-{n}-random", magic + rng.bytes(n), R)

    for name, data in (("png", png), ("jpeg", jpg), ("webp", webp), ("bmp", bmp)):
        count = 36 if name in ("png", "jpeg") else 12
        for cut in _cuts(len(data), count):
            yield Sample(f"truncated-{name}-at-{cut}", data[:cut], R)

    yield Sample("corrupt-png-ihdr-crc", png[:29] + b"\x00\x00\x00\x00" + png[33:], R)
    for k in range(8):
        yield Sample(f"corrupt-png-data-{k}", _flip(png, k, 40, 60), R)
    for k in range(8):
        yield Sample(f"corrupt-jpeg-scan-{k}", _flip(jpg, 100 + k, 200, 700), D)
    yield Sample("jpeg-no-sof", b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xd9", R)
    yield Sample("jpeg-only-soi-eoi", b"\xff\xd8\xff\xd9", R)
    yield Sample("png-signature-only", b"\x89PNG\r\n\x1a\n", R)
    yield Sample("png-no-idat", png_claiming(100, 100), R)

    for w, h in (
        (100_000, 100_000), (65_535, 65_535), (2**31 - 1, 2**31 - 1), (2**32 - 1, 1),
        (1, 2**32 - 1), (50_000, 1_000), (0, 100), (100, 0), (0, 0), (7_000, 7_000),
    ):
        yield Sample(f"header-only-png-{w}x{h}", png_claiming(w, h), R, bomb=w * h > 40_000_000)
    for w, h in ((65_535, 65_535), (30_000, 30_000), (0, 100), (10_000, 5_000)):
        yield Sample(f"header-only-jpeg-{w}x{h}", jpeg_claiming(w, h), R, bomb=w * h > 40_000_000)
    for w, h in ((100_000, 100_000), (2**31 - 1, 1), (-50_000, 50_000), (0, 10), (20_000, -20_000)):
        yield Sample(f"header-only-bmp-{w}x{h}", bmp_claiming(w, h), R, bomb=abs(w * h) > 40_000_000)
    for w, h in ((16_384, 16_384), (2**24, 2**24), (1, 1)):
        yield Sample(f"header-only-webp-{w}x{h}", webp_claiming(w, h), R, bomb=w * h > 40_000_000)
    for side in (8_000, 12_000, 20_000):
        yield Sample(f"bomb-png-{side}", png_bomb(side), R, bomb=True)

    renamed = {
        "gif": _pil(img, "GIF"),
        "tiff": _pil(img, "TIFF"),
        "ico": _pil(img, "ICO"),
        "pcx": _pil(img, "PCX"),
        "tga": _pil(img, "TGA"),
        "ppm": _cv(img, ".ppm"),
        "pgm": _cv(img[:, :, 0], ".pgm"),
        "jpeg2000": _cv(img, ".jp2"),
        "pdf": b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n",
        "svg": b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="9" height="9"/></svg>',
        "html": b"<!doctype html><script>alert(1)</script>",
        "json": b'{"format": 1, "game": "habitats"}',
        "zip": b"PK\x03\x04" + rng.bytes(200),
        "gzip": zlib.compress(png)[:2] + b"\x1f\x8b" + rng.bytes(100),
        "elf": b"\x7fELF\x02\x01\x01" + b"\x00" * 57,
        "script": b"#!/bin/sh\nrm -rf /\n",
        "psd": b"8BPS\x00\x01" + b"\x00" * 20,
        "heic": b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + rng.bytes(64),
        "avif": b"\x00\x00\x00\x1cftypavif\x00\x00\x00\x00avifmif1miaf" + rng.bytes(64),
        "exr": b"v/1\x01" + rng.bytes(64),
        "hdr": b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 8 +X 8\n" + rng.bytes(64),
        "utf16-text": "not a photo".encode("utf-16"),
        "png-then-html": png + b"<script>alert(1)</script>",
    }
    for name, data in renamed.items():
        yield Sample(f"renamed-{name}", data, R)

    yield Sample("png-16bit-rgb", _cv((_scene().astype(np.uint16) * 257), ".png"), D)
    yield Sample("png-16bit-grey", _cv((_scene()[:, :, 0].astype(np.uint16) * 257), ".png"), D)
    yield Sample("png-grey", _cv(img[:, :, 0], ".png"), D)
    yield Sample("png-rgba", _cv(np.dstack([img, img[:, :, :1]]), ".png"), D)
    yield Sample("png-palette", _pil(Image.fromarray(img[:, :, 0]).convert("P"), "PNG"), D)
    yield Sample("png-interlaced", _pil(img, "PNG", interlace=1) if False else _pil(img, "PNG"), D)
    yield Sample("jpeg-cmyk", _pil(Image.fromarray(img[:, :, ::-1]).convert("CMYK"), "JPEG"), D)
    yield Sample("jpeg-progressive", _pil(img, "JPEG", progressive=True), D)
    yield Sample("jpeg-grey", _cv(img[:, :, 0], ".jpg"), D)
    for orientation in range(1, 9):
        yield Sample(f"jpeg-exif-orientation-{orientation}", _exif_rotated(orientation), D)
    yield Sample("animated-png", _animated("PNG"), D)
    yield Sample("animated-webp", _animated("WEBP"), D)
    yield Sample("animated-gif", _animated("GIF"), R)
    for ext in (".png", ".jpg", ".bmp", ".webp"):
        yield Sample(f"one-pixel{ext}", _cv(np.full((1, 1, 3), 200, np.uint8), ext), D)
    yield Sample("1x100000", _cv(np.full((1, 100_000, 3), 200, np.uint8), ".png"), R)
    yield Sample("100000x1", _cv(np.full((100_000, 1, 3), 200, np.uint8), ".png"), R)
    yield Sample("1x30000", _cv(np.full((1, 30_000, 3), 200, np.uint8), ".png"), D)
    yield Sample("2x2", _cv(np.full((2, 2, 3), 90, np.uint8), ".png"), D)
    yield Sample("bmp-top-down", bmp_claiming(4, -4) + b"\x80" * 48, D)
    yield Sample("webp-lossless", _cv(img, ".webp", cv2.IMWRITE_WEBP_QUALITY, 101), D)


def corpus() -> tuple[Sample, ...]:
    """The whole corpus as a tuple (names are unique)."""
    out = tuple(samples())
    names = [s.name for s in out]
    if len(set(names)) != len(names):
        raise ValueError("corpus names must be unique")
    return out
