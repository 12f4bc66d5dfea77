"""Stage 1: bytes -> image, refusing what should not be decoded before decoding it.

The pixel budget is checked against the dimensions declared in the file header, so a
small file that claims to be a gigapixel image (a decompression bomb) never reaches
the decoder.
"""

from __future__ import annotations

import enum
import struct
from dataclasses import dataclass

import cv2
import numpy as np

from .errors import ImageError

#: Default refusal threshold: 40 megapixels is well above a 12 MP phone photo or 4K frame.
MAX_PIXELS = 40_000_000
#: A real photo compresses at best ~1000:1; far beyond that the file is a bomb.
_MAX_PIXELS_PER_BYTE = 5_000
#: Longest side accepted: the QR decoder refuses sides over 65535 px; no camera comes close.
MAX_SIDE = 32_768


class ImageFormat(enum.Enum):
    """Containers we decode; everything else is refused as not an image."""

    PNG = "png"
    JPEG = "jpeg"
    BMP = "bmp"
    WEBP = "webp"
    ARRAY = "array"


@dataclass(frozen=True, slots=True)
class Frame:
    """A decoded frame: BGR colour and its grey version (the detectors read grey)."""

    image: np.ndarray
    """BGR, uint8, shape (height, width, 3)."""
    gray: np.ndarray
    """uint8, shape (height, width)."""
    format: ImageFormat

    @property
    def width(self) -> int:
        return int(self.image.shape[1])

    @property
    def height(self) -> int:
        return int(self.image.shape[0])


@dataclass(frozen=True, slots=True)
class Header:
    """What a file header declares, read without decoding any pixel data."""

    format: ImageFormat
    width: int
    height: int


def _png_header(data: bytes) -> Header:
    if len(data) < 33 or data[12:16] != b"IHDR":
        raise ImageError("truncated PNG: no complete IHDR header")
    width, height = struct.unpack(">II", data[16:24])
    if b"IEND" not in data[-16:]:
        raise ImageError("truncated PNG: the file ends before its IEND chunk")
    return Header(ImageFormat.PNG, width, height)


_SOF_MARKERS = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def _jpeg_header(data: bytes) -> Header:
    i = 2
    n = len(data)
    while i + 4 <= n:
        if data[i] != 0xFF:
            raise ImageError("corrupt JPEG: expected a marker segment")
        marker = data[i + 1]
        if marker == 0xFF:
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        if marker == 0xD9 or marker == 0xDA:
            break
        (length,) = struct.unpack(">H", data[i + 2 : i + 4])
        if marker in _SOF_MARKERS:
            if i + 9 > n:
                break
            height, width = struct.unpack(">HH", data[i + 5 : i + 9])
            if b"\xff\xd9" not in data[-64:]:
                raise ImageError("truncated JPEG: the file ends before its end-of-image marker")
            return Header(ImageFormat.JPEG, width, height)
        i += 2 + length
    raise ImageError("truncated JPEG: no frame header (SOF) found")


def _bmp_header(data: bytes) -> Header:
    if len(data) < 26:
        raise ImageError("truncated BMP header")
    (size,) = struct.unpack("<I", data[2:6])
    width, height = struct.unpack("<ii", data[18:26])
    if size > len(data):
        raise ImageError("truncated BMP: shorter than its declared size")
    return Header(ImageFormat.BMP, abs(width), abs(height))


def _webp_header(data: bytes) -> Header:
    if len(data) < 30:
        raise ImageError("truncated WebP header")
    (riff_size,) = struct.unpack("<I", data[4:8])
    if riff_size + 8 > len(data):
        raise ImageError("truncated WebP: shorter than its declared size")
    chunk = data[12:16]
    if chunk == b"VP8 ":
        w, h = struct.unpack("<HH", data[26:30])
        return Header(ImageFormat.WEBP, w & 0x3FFF, h & 0x3FFF)
    if chunk == b"VP8L":
        b = data[21:25]
        bits = int.from_bytes(b, "little")
        return Header(ImageFormat.WEBP, (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
    if chunk == b"VP8X":
        w = int.from_bytes(data[24:27], "little") + 1
        h = int.from_bytes(data[27:30], "little") + 1
        return Header(ImageFormat.WEBP, w, h)
    raise ImageError("unsupported WebP variant")


def probe(data: bytes) -> Header:
    """Format and declared size from the header alone; ImageError for anything else."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return _png_header(data)
    if data.startswith(b"\xff\xd8\xff"):
        return _jpeg_header(data)
    if data.startswith(b"BM"):
        return _bmp_header(data)
    if data.startswith(b"RIFF") and data[8:12] == b"WEBP":
        return _webp_header(data)
    raise ImageError("not an image: expected PNG, JPEG, BMP or WebP data")


def check_size(width: int, height: int, nbytes: int | None, max_pixels: int) -> None:
    """Refuse zero-size images, images over the budget and implausible compression ratios."""
    if width <= 0 or height <= 0:
        raise ImageError(f"zero-size image ({width}x{height})")
    if max(width, height) > MAX_SIDE:
        raise ImageError(f"image of {width}x{height} has a side over {MAX_SIDE} pixels")
    pixels = width * height
    if pixels > max_pixels:
        if nbytes is not None and pixels > _MAX_PIXELS_PER_BYTE * nbytes:
            raise ImageError(
                f"decompression bomb: {width}x{height} pixels declared in {nbytes} bytes"
            )
        raise ImageError(
            f"image of {width}x{height} = {pixels} pixels is over the budget of {max_pixels}"
        )


def load_image(data: bytes, *, max_pixels: int = MAX_PIXELS) -> Frame:
    """Decode image bytes into a Frame, refusing with a clear reason what is unsafe or broken."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ImageError(f"expected image bytes, got {type(data).__name__}")
    data = bytes(data)
    if not data:
        raise ImageError("not an image: no data")
    header = probe(data)
    check_size(header.width, header.height, len(data), max_pixels)
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None or image.size == 0:
        raise ImageError(f"corrupt {header.format.value.upper()}: the decoder could not read it")
    decoded = (int(image.shape[1]), int(image.shape[0]))
    # The decoder turns a photo upright by its EXIF orientation, swapping width and height.
    if decoded not in ((header.width, header.height), (header.height, header.width)):
        raise ImageError(
            f"corrupt {header.format.value.upper()}: decoded size differs from its header"
        )
    return Frame(image, cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), header.format)


def frame_from_array(array: np.ndarray, *, max_pixels: int = MAX_PIXELS) -> Frame:
    """Wrap a camera frame (grey, BGR or BGRA uint8 array) without copying more than needed."""
    if not isinstance(array, np.ndarray):
        raise ImageError(f"expected a numpy array, got {type(array).__name__}")
    if array.ndim not in (2, 3) or (array.ndim == 3 and array.shape[2] not in (1, 3, 4)):
        raise ImageError(f"expected a grey, BGR or BGRA array, got shape {array.shape}")
    check_size(int(array.shape[1]), int(array.shape[0]), None, max_pixels)
    if array.dtype != np.uint8:
        raise ImageError(f"expected uint8 pixels, got {array.dtype}")
    if array.ndim == 2 or array.shape[2] == 1:
        gray = np.ascontiguousarray(array.reshape(array.shape[0], array.shape[1]))
        return Frame(cv2.cvtColor(gray, cv2.COLOR_GRAY2BGR), gray, ImageFormat.ARRAY)
    bgr = array if array.shape[2] == 3 else cv2.cvtColor(array, cv2.COLOR_BGRA2BGR)
    bgr = np.ascontiguousarray(bgr)
    return Frame(bgr, cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY), ImageFormat.ARRAY)
