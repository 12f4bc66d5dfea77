"""Stage 1: image bytes are decoded only when they are a sound image within the pixel budget."""

from __future__ import annotations

import struct
import zlib

import cv2
import numpy as np
import pytest

from vision import ImageError, frame_from_array, load_image
from vision.load import ImageFormat, probe


def _png(width: int, height: int, *, body: bytes | None = None) -> bytes:
    """A PNG whose header declares any size (the pixel data need not match)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    idat = zlib.compress(body if body is not None else b"\x00" * 16)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def _encoded(ext: str, w: int = 64, h: int = 48) -> bytes:
    img = np.zeros((h, w, 3), np.uint8)
    img[:, : w // 2] = (10, 200, 30)
    ok, buf = cv2.imencode(ext, img)
    assert ok
    return buf.tobytes()


@pytest.mark.parametrize("ext,fmt", [(".png", ImageFormat.PNG), (".jpg", ImageFormat.JPEG), (".bmp", ImageFormat.BMP), (".webp", ImageFormat.WEBP)])
def test_decodes_supported_formats(ext: str, fmt: ImageFormat) -> None:
    frame = load_image(_encoded(ext))
    assert (frame.width, frame.height, frame.format) == (64, 48, fmt)
    assert frame.gray.shape == (48, 64)
    assert abs(int(frame.image[10, 5, 1]) - 200) < 12


def test_header_is_read_without_decoding() -> None:
    assert probe(_png(123, 45)).width == 123
    assert probe(_encoded(".jpg", 70, 30)).height == 30


@pytest.mark.parametrize(
    "data,reason",
    [
        (b"", "no data"),
        (b"GIF89a" + b"\x00" * 40, "not an image"),
        (b"%PDF-1.7 hello", "not an image"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "truncated PNG"),
    ],
)
def test_refuses_what_is_not_an_image(data: bytes, reason: str) -> None:
    with pytest.raises(ImageError, match=reason):
        load_image(data)


def test_refuses_truncated_files() -> None:
    png, jpg = _encoded(".png"), _encoded(".jpg")
    with pytest.raises(ImageError, match="truncated PNG"):
        load_image(png[: len(png) // 2])
    with pytest.raises(ImageError, match="truncated JPEG"):
        load_image(jpg[: len(jpg) - 40])


def test_refuses_over_budget_before_decoding() -> None:
    data = _encoded(".png", 200, 100)
    with pytest.raises(ImageError, match="over the budget of 10000"):
        load_image(data, max_pixels=10_000)
    assert load_image(data, max_pixels=20_000).width == 200


def test_refuses_decompression_bomb() -> None:
    bomb = _png(30_000, 30_000)  # 900 megapixels declared in a few dozen bytes
    with pytest.raises(ImageError, match="decompression bomb"):
        load_image(bomb)


def test_refuses_zero_size() -> None:
    with pytest.raises(ImageError, match="zero-size"):
        load_image(_png(0, 10))


def test_refuses_corrupt_pixel_data() -> None:
    with pytest.raises(ImageError, match="corrupt PNG"):
        load_image(_png(32, 32, body=b"\x00"))


def test_accepts_camera_arrays() -> None:
    gray = np.full((20, 30), 7, np.uint8)
    assert frame_from_array(gray).image.shape == (20, 30, 3)
    bgra = np.zeros((20, 30, 4), np.uint8)
    assert frame_from_array(bgra).gray.shape == (20, 30)
    with pytest.raises(ImageError, match="uint8"):
        frame_from_array(np.zeros((4, 4, 3), np.float32))
    with pytest.raises(ImageError, match="zero-size"):
        frame_from_array(np.zeros((0, 4, 3), np.uint8))
