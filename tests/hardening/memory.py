"""Photos that cost memory: lying tiny-header JPEGs, a 48-megapixel phone photo, a flood of both.

Shared by ``test_memory.py`` and ``bench/hardening_memory.py``: the flood runs against a
``companion serve`` process and reports the growth of its peak resident size.
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass
from importlib import resources

import cv2
import numpy as np

from .corpus import corpus, jpeg_claiming
from .load import Browser
from .served import Served

GAME = "habitats"
#: The upload limit (the server refuses bigger bodies with 413 before reading them).
UPLOAD_LIMIT = 20 * 1024 * 1024


def padded(data: bytes, size: int) -> bytes:
    """The JPEG with comment segments after its start marker, ``size`` bytes long in all.

    A 691-byte file claiming 6300 x 6300 pixels is refused as a bomb from its header; padded
    past 5000 pixels per byte it is no longer implausible, and must be decoded within budget.
    """
    pad = max(0, size - len(data))
    segments = b""
    while pad > 4:
        n = min(pad - 4, 65_000)
        segments += b"\xff\xfe" + (n + 2).to_bytes(2, "big") + b"\x00" * n
        pad -= n + 4
    return data[:2] + segments + data[2:]


def lying_jpeg(side: int = 6300) -> bytes:
    """A JPEG whose header claims side x side pixels and whose data is a few bytes."""
    return padded(jpeg_claiming(side, side), side * side // 4000)


def sample_photo() -> np.ndarray:
    """The bundled 1080p Habitats table photo (BGR)."""
    data = resources.files("vision").joinpath("samples", f"{GAME}.jpg").read_bytes()
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise RuntimeError("the sample photo does not decode")
    return image


def phone_photo(width: int = 8000, height: int = 6000, quality: int = 92) -> bytes:
    """The sample table as a 48-megapixel phone photo (4:3, baseline JPEG): scaled up and framed."""
    table = sample_photo()
    scale = min(width / table.shape[1], height / table.shape[0])
    w, h = int(table.shape[1] * scale), int(table.shape[0] * scale)
    canvas = np.full((height, width, 3), 118, np.uint8)
    y, x = (height - h) // 2, (width - w) // 2
    canvas[y : y + h, x : x + w] = cv2.resize(table, (w, h), interpolation=cv2.INTER_CUBIC)
    ok, enc = cv2.imencode(".jpg", canvas, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise RuntimeError("cannot encode the phone photo")
    data = enc.tobytes()
    if len(data) > UPLOAD_LIMIT:
        raise RuntimeError(f"the phone photo is over the upload limit ({len(data)} bytes)")
    return data


def hostile_images(count: int = 100) -> list[bytes]:
    """``count`` files of the hostile corpus, every kind in turn (bombs, truncations, renames...)."""
    files = [s.data for s in corpus() if len(s.data) <= UPLOAD_LIMIT]
    return [files[(i * 7) % len(files)] for i in range(count)]


@dataclass(frozen=True, slots=True)
class FloodReport:
    statuses: Counter[int]
    baseline_kib: int
    peak_kib: int

    @property
    def growth_mib(self) -> float:
        return (self.peak_kib - self.baseline_kib) / 1024

    @property
    def server_errors(self) -> int:
        return sum(n for status, n in self.statuses.items() if status >= 500)


def flood(served: Served, *, lying: int = 6, hostile: int = 100, hostile_clients: int = 2) -> FloodReport:
    """``lying`` tiny-header JPEGs posted all at once, beside ``hostile`` files from other clients."""
    warm = Browser(served.base)
    warm.open("POST", "/api/scan", *_form(sample_jpeg()))  # imports, detectors, first allocations
    warm.open("POST", "/api/scan", *_form(lying_jpeg()))
    baseline = served.status_kib("VmRSS")
    served.reset_peak()
    statuses: Counter[int] = Counter()
    lock = threading.Lock()
    bomb = lying_jpeg()
    files = hostile_images(hostile)
    start = threading.Barrier(lying + hostile_clients)

    def post_all(images: list[bytes]) -> None:
        browser = Browser(served.base)
        start.wait()
        for image in images:
            status, _ = browser.open("POST", "/api/scan", *_form(image))
            with lock:
                statuses[status] += 1

    jobs = [[bomb] for _ in range(lying)] + [files[k::hostile_clients] for k in range(hostile_clients)]
    threads = [threading.Thread(target=post_all, args=(job,)) for job in jobs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return FloodReport(statuses, baseline, served.status_kib("VmHWM"))


def sample_jpeg() -> bytes:
    return resources.files("vision").joinpath("samples", f"{GAME}.jpg").read_bytes()


def _form(image: bytes) -> tuple[bytes, str]:
    """A multipart body with the game and the image, and its content type."""
    boundary = "memoryflood7c1e"
    body = (
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"game\"\r\n\r\n{GAME}\r\n"
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"image\"; filename=\"p.jpg\"\r\n"
        "Content-Type: image/jpeg\r\n\r\n"
    ).encode() + image + f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"
