"""Bounded memory for any photo: reduced decoding, a 48-megapixel photo read, scans queued.

The memory figure is measured on a ``companion serve`` process (its own /proc peak), with
six lying tiny-header JPEGs posted at once beside a hundred hostile files: outcomes and
sizes are counted, never times.
"""

from __future__ import annotations

import threading
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision
from vision import ImageError, load_image
from vision.load import MAX_COEFFICIENT_BYTES, WORK_PIXELS, WORK_SIDE, probe

from .corpus import jpeg_claiming
from .load import Browser
from .memory import GAME, _form, flood, lying_jpeg, phone_photo, sample_jpeg
from .served import live, serve

#: The issue's figure: the server's peak grows by at most this over the whole flood.
PEAK_GROWTH_MIB = 400


def test_a_flood_of_lying_and_hostile_photos_stays_within_400_mib(tmp_path: Path) -> None:
    with serve(tmp_path / "instance") as served:
        report = flood(served, lying=6, hostile=100)
    assert report.server_errors == 0, report.statuses
    assert sum(report.statuses.values()) == 106
    assert report.growth_mib <= PEAK_GROWTH_MIB, report


def test_a_lying_header_is_decoded_at_the_working_resolution() -> None:
    """6300 x 6300 declared in 10 kB: read scaled down to 3150 x 3150, never in full."""
    data = lying_jpeg(6300)
    assert probe(data).width == 6300 and len(data) < 12_000
    frame = load_image(data)
    assert (frame.width, frame.height) == (3150, 3150)
    # The same header in 691 bytes is a bomb: refused before the decoder.
    with pytest.raises(ImageError, match="bomb"):
        load_image(jpeg_claiming(6300, 6300))


def test_a_48_megapixel_phone_photo_is_read_like_the_original() -> None:
    photo = phone_photo(8000, 6000)
    original = vision.recognise(sample_jpeg(), GAME)
    frame = load_image(photo)
    assert (frame.width, frame.height) == (4000, 3000)
    assert max(frame.width, frame.height) <= WORK_SIDE and frame.width * frame.height <= WORK_PIXELS
    big = vision.recognise(photo, GAME)
    assert sorted(c.id for c in big.components) == sorted(c.id for c in original.components)
    assert len(original.components) >= 10
    assert big.state.placements and set(big.state.placements) == set(original.state.placements)


def test_any_jpeg_up_to_the_limit_is_read_within_the_working_size() -> None:
    """Every side up to 32768 px is decoded reduced (1/2, 1/4, 1/8) to at most 4096 px."""
    for w, h in ((4096, 3072), (4097, 3000), (12000, 9000), (16320, 12240), (32000, 2000)):
        data = jpeg_claiming(w, h)
        data = data[:2] + b"\xff\xfe\xff\xff" + b"\x00" * 65533 + data[2:]
        while len(data) * 5000 < w * h:
            data = data[:2] + b"\xff\xfe\xff\xff" + b"\x00" * 65533 + data[2:]
        frame = load_image(data)
        assert max(frame.width, frame.height) <= WORK_SIDE, (w, h, frame.width, frame.height)
        assert frame.width * frame.height <= WORK_PIXELS, (w, h)


def test_progressive_and_other_formats_are_decoded_only_up_to_the_fixed_size() -> None:
    """No reduced decoding there: a progressive JPEG holds every coefficient, a PNG every row."""
    big = np.full((3000, 8000, 3), 90, np.uint8)
    progressive = cv2.imencode(".jpg", big, [cv2.IMWRITE_JPEG_PROGRESSIVE, 1])[1].tobytes()
    assert probe(progressive).coefficients > MAX_COEFFICIENT_BYTES
    with pytest.raises(ImageError, match="progressive JPEG .* baseline"):
        load_image(progressive)
    small = cv2.imencode(".jpg", big[:1500, :2000], [cv2.IMWRITE_JPEG_PROGRESSIVE, 1])[1].tobytes()
    assert load_image(small).width == 2000
    png = cv2.imencode(".png", np.zeros((4200, 4200, 3), np.uint8))[1].tobytes()
    with pytest.raises(ImageError, match="PNG .* over the budget"):
        load_image(png)
    frame = load_image(cv2.imencode(".png", np.zeros((3000, 4096, 3), np.uint8))[1].tobytes())
    assert (frame.width, frame.height) == (4096, 3000)


def test_scans_beyond_the_queue_get_503_with_retry_after(tmp_path: Path) -> None:
    """One slot and one place in the queue: the third photo at once is turned away, then served."""
    photo = sample_jpeg()
    with live(tmp_path / "instance", SCAN_SLOTS=1, SCAN_QUEUE=1) as (base, app):
        slots = app.extensions["scan_slots"]
        browser = Browser(base)
        answers: list[int] = []
        with slots.held():  # a scan in progress holds the only slot
            waiting = threading.Thread(
                target=lambda: answers.append(browser.open("POST", "/api/scan", *_form(photo))[0])
            )
            waiting.start()
            for _ in range(6000):  # counted, not timed: until the queued request is inside
                if slots.inside == 2:
                    break
                threading.Event().wait(0.01)
            assert slots.inside == 2
            req_status, body = Browser(base).open("POST", "/api/scan", *_form(photo))
            assert req_status == 503 and b'"busy"' in body
            assert answers == []  # the queued one still waits its turn
        waiting.join(60)
        assert answers == [200]
        assert browser.open("POST", "/api/scan", *_form(photo))[0] == 200
        assert slots.inside == 0


def test_busy_answer_carries_retry_after(tmp_path: Path) -> None:
    import urllib.error
    import urllib.request

    with live(tmp_path / "instance", SCAN_SLOTS=1, SCAN_QUEUE=0) as (base, app), app.extensions["scan_slots"].held():
        body, ctype = _form(sample_jpeg())
        req = urllib.request.Request(base + "/api/scan", data=body, method="POST",
                                     headers={"Content-Type": ctype, "Accept": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(req, timeout=30)
        assert info.value.code == 503
        assert info.value.headers["Retry-After"] == "2"
        info.value.close()
