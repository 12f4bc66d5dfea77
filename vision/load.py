"""Stage 1: bytes -> image, within a fixed memory budget whatever the file says.

The header is read first: a file that is not an image, or whose declared size is absurd
for its length (a decompression bomb), never reaches the decoder. A JPEG larger than the
scanner's working resolution is decoded already scaled down (libjpeg's 1/2, 1/4 and 1/8
reduced decoding), so a 48-megapixel phone photo costs what a 12-megapixel one does and
a lying header costs no more than the working resolution. Formats without reduced
decoding (PNG, BMP, WebP), and JPEGs whose decoder must hold every coefficient
(progressive or multi-scan), are decoded only up to a fixed size.
"""

from __future__ import annotations

import enum
import struct
from dataclasses import dataclass

import cv2
import numpy as np

from .errors import ImageError

#: Largest declared size accepted: a 200-megapixel phone sensor (JPEGs are read scaled down).
MAX_PIXELS = 200_000_000
#: Largest image any decoder produces in full: 4096 x 4096 (48 MiB of colour).
MAX_DECODE_PIXELS = 4096 * 4096
#: The scanner's working resolution: a 4K frame is read whole, larger photos scaled down.
WORK_SIDE = 4096
WORK_PIXELS = 4096 * 3072
#: Memory a progressive or multi-scan JPEG's decoder may hold for its coefficients.
MAX_COEFFICIENT_BYTES = 64 * 1024 * 1024
#: Reduced JPEG decodings OpenCV offers (libjpeg's DCT scaling), by scale.
_REDUCED = {1: cv2.IMREAD_COLOR, 2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4,
            8: cv2.IMREAD_REDUCED_COLOR_8}
#: A real photo compresses at best ~1000:1; far beyond that the file is a bomb.
_MAX_PIXELS_PER_BYTE = 5_000
#: Below this many pixels the compression ratio is not checked (tiny flat images are fine).
_RATIO_FROM_PIXELS = 1_000_000
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
    coefficients: int = 0
    """Bytes a JPEG decoder must buffer before the first row comes out (progressive or
    multi-scan files); 0 when it decodes row by row."""


def _png_header(data: bytes) -> Header:
    if len(data) < 33 or data[12:16] != b"IHDR":
        raise ImageError("truncated PNG: no complete IHDR header")
    width, height = struct.unpack(">II", data[16:24])
    if b"IEND" not in data[-16:]:
        raise ImageError("truncated PNG: the file ends before its IEND chunk")
    return Header(ImageFormat.PNG, width, height)


_SOF_MARKERS = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}
#: Frame types whose decoder buffers the whole image's coefficients (progressive, hierarchical).
_BUFFERED_SOF = {0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


@dataclass(frozen=True, slots=True)
class _Sof:
    marker: int
    width: int
    height: int
    sampling: tuple[tuple[int, int], ...]
    """(horizontal, vertical) sampling factor of each component."""

    def coefficient_bytes(self) -> int:
        """What libjpeg keeps for a buffered decode: 2 bytes per coefficient, blocks rounded up."""
        hmax = max(h for h, _ in self.sampling)
        vmax = max(v for _, v in self.sampling)
        total = 0
        for h, v in self.sampling:
            cols = -(-self.width * h // (hmax * 8)) * 8
            rows = -(-self.height * v // (vmax * 8)) * 8
            total += cols * rows * 2
        return total


def _sof(data: bytes, i: int, marker: int) -> _Sof | None:
    if i + 10 > len(data):
        return None
    height, width = struct.unpack(">HH", data[i + 5 : i + 9])
    count = data[i + 9]
    comps = data[i + 10 : i + 10 + 3 * count]
    if count == 0 or len(comps) < 3 * count:
        return None
    sampling = tuple((max(1, comps[k + 1] >> 4), max(1, comps[k + 1] & 0x0F)) for k in range(0, 3 * count, 3))
    return _Sof(marker, width, height, sampling)


def _jpeg_header(data: bytes) -> Header:
    i = 2
    n = len(data)
    frame: _Sof | None = None
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
        if marker == 0xD9:
            break
        if marker == 0xDA:
            if frame is not None:
                # A first scan without every component makes the decoder buffer the image.
                in_scan = data[i + 4] if i + 4 < n else 0
                return _jpeg_frame(data, frame, in_scan < len(frame.sampling))
            break
        (length,) = struct.unpack(">H", data[i + 2 : i + 4])
        if marker in _SOF_MARKERS and frame is None:
            frame = _sof(data, i, marker)
            if frame is None:
                break
        i += 2 + length
    if frame is not None:
        return _jpeg_frame(data, frame, False)
    raise ImageError("truncated JPEG: no frame header (SOF) found")


def _jpeg_frame(data: bytes, frame: _Sof, multi_scan: bool) -> Header:
    if b"\xff\xd9" not in data[-64:]:
        raise ImageError("truncated JPEG: the file ends before its end-of-image marker")
    buffered = multi_scan or frame.marker in _BUFFERED_SOF
    return Header(ImageFormat.JPEG, frame.width, frame.height, frame.coefficient_bytes() if buffered else 0)


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
    if nbytes is not None and pixels > max(_RATIO_FROM_PIXELS, _MAX_PIXELS_PER_BYTE * nbytes):
        raise ImageError(
            f"decompression bomb: {width}x{height} pixels declared in {nbytes} bytes"
        )
    if pixels > max_pixels:
        raise ImageError(
            f"image of {width}x{height} = {pixels} pixels is over the budget of {max_pixels}"
        )


def reduction(header: Header) -> int:
    """The JPEG scale (1, 2, 4 or 8) that brings the photo within the working resolution."""
    for scale in (1, 2, 4, 8):
        w, h = -(-header.width // scale), -(-header.height // scale)
        if max(w, h) <= WORK_SIDE and w * h <= WORK_PIXELS:
            return scale
    return 8


def _decode_budget(header: Header, max_pixels: int) -> None:
    """Refuse what a decoder would have to hold in full beyond the fixed budget."""
    pixels = header.width * header.height
    name = header.format.value.upper()
    if header.format is ImageFormat.JPEG:
        if header.coefficients > MAX_COEFFICIENT_BYTES:
            raise ImageError(
                f"progressive JPEG of {header.width}x{header.height} is over the decoding budget "
                f"({MAX_COEFFICIENT_BYTES // 2**20} MiB of coefficients): save it as a baseline JPEG"
            )
        return
    if pixels > min(max_pixels, MAX_DECODE_PIXELS):
        raise ImageError(
            f"{name} of {header.width}x{header.height} = {pixels} pixels is over the budget of "
            f"{min(max_pixels, MAX_DECODE_PIXELS)} for {name} files: send a JPEG or a smaller image"
        )


def _to_working_size(image: np.ndarray) -> np.ndarray:
    """Scale an image decoded larger than the working resolution down to it (area averaging)."""
    h, w = image.shape[:2]
    factor = min(1.0, WORK_SIDE / max(w, h), (WORK_PIXELS / (w * h)) ** 0.5)
    if factor >= 1.0:
        return image
    size = (max(1, int(w * factor)), max(1, int(h * factor)))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA)


def load_image(data: bytes, *, max_pixels: int = MAX_PIXELS) -> Frame:
    """Decode image bytes into a Frame, refusing with a clear reason what is unsafe or broken."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ImageError(f"expected image bytes, got {type(data).__name__}")
    data = bytes(data)
    if not data:
        raise ImageError("not an image: no data")
    header = probe(data)
    check_size(header.width, header.height, len(data), max_pixels)
    _decode_budget(header, max_pixels)
    scale = reduction(header) if header.format is ImageFormat.JPEG else 1
    image = cv2.imdecode(np.frombuffer(data, np.uint8), _REDUCED[scale])
    if image is None or image.size == 0:
        raise ImageError(f"corrupt {header.format.value.upper()}: the decoder could not read it")
    decoded = (int(image.shape[1]), int(image.shape[0]))
    expected = (-(-header.width // scale), -(-header.height // scale))
    # The decoder turns a photo upright by its EXIF orientation, swapping width and height.
    if decoded not in (expected, expected[::-1]):
        raise ImageError(
            f"corrupt {header.format.value.upper()}: decoded size differs from its header"
        )
    image = _to_working_size(image)
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
