"""Hostile images: every corpus file through the loader, the scan API and ``companion scan``.

Broken files are refused with a reason (ImageError, a 4xx JSON answer, exit status 2);
odd but genuine images decode and scan to an empty table. Nothing crashes, nothing
answers 500, bombs are refused from their header, and the saved game is untouched.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest
from flask.testing import FlaskClient

from companion.cli import main
from scoring import find_game, games
from vision import ImageError, load_image
from vision.load import MAX_PIXELS

from .corpus import Expect, Sample, corpus

CORPUS = corpus()
GAME = "habitats"


def test_the_corpus_is_large_and_covers_every_kind() -> None:
    names = [s.name for s in CORPUS]
    assert len(CORPUS) >= 200
    kinds = Counter(n.split("-")[0] for n in names)
    assert kinds["truncated"] >= 60 and kinds["random"] >= 10 and kinds["renamed"] >= 15
    assert kinds["header"] >= 20 and kinds["bomb"] == 3
    for needed in ("empty", "png-16bit-rgb", "jpeg-cmyk", "jpeg-exif-orientation-6", "animated-png",
                   "animated-webp", "one-pixel.png", "1x100000", "100000x1"):
        assert needed in names
    assert sum(s.bomb for s in CORPUS) >= 15
    assert Counter(s.expect for s in CORPUS)[Expect.REFUSE] >= 200


@pytest.mark.parametrize("sample", CORPUS, ids=[s.name for s in CORPUS])
def test_loader_refuses_or_decodes(sample: Sample) -> None:
    if sample.expect is Expect.REFUSE:
        with pytest.raises(ImageError) as info:
            load_image(sample.data)
        assert len(str(info.value)) > 10
    else:
        frame = load_image(sample.data)
        assert frame.width >= 1 and frame.height >= 1
        assert frame.image.shape == (frame.height, frame.width, 3)
        assert frame.gray.shape == (frame.height, frame.width)


def test_bombs_are_refused_from_the_header(monkeypatch: pytest.MonkeyPatch) -> None:
    """The decoder is never called for a file that declares more pixels than the budget."""

    def no_decoding(*_args: object) -> None:
        raise AssertionError("a bomb reached the decoder")

    monkeypatch.setattr(cv2, "imdecode", no_decoding)
    bombs = [s for s in CORPUS if s.bomb]
    for sample in bombs:
        with pytest.raises(ImageError, match="budget|bomb|side over"):
            load_image(sample.data)
    assert all(len(s.data) < 2_000_000 for s in bombs)


def test_exif_rotation_turns_the_photo_upright() -> None:
    """Orientation 6 (rotated 90 degrees) swaps width and height of the 96x64 original."""
    sample = next(s for s in CORPUS if s.name == "jpeg-exif-orientation-6")
    frame = load_image(sample.data)
    assert (frame.width, frame.height) == (64, 96)
    upright = next(s for s in CORPUS if s.name == "jpeg-exif-orientation-1")
    frame = load_image(upright.data)
    assert (frame.width, frame.height) == (96, 64)


def test_pixel_budget_is_checked_before_decoding(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = cv2.imdecode

    def counting(buf: object, flags: int) -> object:
        calls.append(1)
        return real(buf, flags)

    monkeypatch.setattr(cv2, "imdecode", counting)
    ok, png = cv2.imencode(".png", np.zeros((100, 100, 3), np.uint8))
    assert ok
    with pytest.raises(ImageError, match="over the budget"):
        load_image(png.tobytes(), max_pixels=9_999)
    assert calls == []
    assert load_image(png.tobytes(), max_pixels=10_000).width == 100
    assert calls == [1]
    assert MAX_PIXELS == 200_000_000  # a 200-megapixel sensor; JPEGs are read scaled down


def _accepted_play(client: FlaskClient, token: str) -> tuple[str, dict[str, object]]:
    """A saved game with one accepted state, and its score sheet."""
    game = find_game(GAME)
    doc = game.example_state()
    players = client.get(f"/api/games/{GAME}").get_json()["players"]
    headers = {"X-CSRF-Token": token}
    r = client.post("/api/plays", json={"game": GAME, "players": players}, headers=headers)
    assert r.status_code == 201, r.get_json()
    play = r.get_json()["id"]
    r = client.post(f"/api/plays/{play}/moves", json={"state": doc, "accept_violations": True}, headers=headers)
    assert r.status_code == 201, r.get_json()
    sheet = client.get(f"/api/plays/{play}/score?confirm=1").get_json()
    return play, sheet


def test_every_corpus_file_posted_to_the_app(client: FlaskClient, token: str) -> None:
    """/api/scan and the game's frame route: 4xx with a reason or 200, never a 500."""
    play, sheet_before = _accepted_play(client, token)
    states_before = client.get(f"/api/plays/{play}/states").get_json()
    failures: list[str] = []
    for sample in CORPUS:
        for url, extra in (("/api/scan", {"game": GAME}), (f"/api/plays/{play}/frames", {})):
            data = {**extra, "image": (io.BytesIO(sample.data), f"{sample.name}.jpg")}
            r = client.post(url, data=data, headers={"X-CSRF-Token": token},
                            content_type="multipart/form-data")
            body = r.get_json(silent=True)
            if sample.expect is Expect.REFUSE:
                ok = 400 <= r.status_code < 500 and isinstance(body, dict) and len(body.get("message", "")) > 5
            else:
                ok = r.status_code == 200 and body["recognition"]["components"] == []
            if not ok:
                failures.append(f"{sample.name} {url}: {r.status_code} {str(body)[:120]}")
    assert failures == []
    assert client.get("/healthz").get_json()["status"] == "ok"
    assert client.get(f"/api/plays/{play}/states").get_json() == states_before
    assert client.get(f"/api/plays/{play}/score?confirm=1").get_json() == sheet_before


def test_every_corpus_file_given_to_companion_scan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Exit 2 with one line naming the file for a refused image, exit 0 for an odd one."""
    failures: list[str] = []
    for sample in CORPUS:
        path = tmp_path / f"{sample.name}.jpg"
        path.write_bytes(sample.data)
        code = main(["scan", str(path), "--game", GAME, "--json"])
        out, err = capsys.readouterr()
        if sample.expect is Expect.REFUSE:
            lines = err.strip().splitlines()
            ok = code == 2 and len(lines) == 1 and path.name in lines[0] and "Traceback" not in err
        else:
            ok = code == 0 and json.loads(out)["recognition"]["components"] == []
        if not ok:
            failures.append(f"{sample.name}: exit {code} {err.strip()[:120]}")
    assert failures == []


def test_scan_of_an_odd_image_for_every_game(client: FlaskClient) -> None:
    """Each game's pipeline copes with a 1x1 and an EXIF-rotated photo (an empty table)."""
    odd = [s for s in CORPUS if s.name in ("one-pixel.png", "jpeg-exif-orientation-8", "1x30000")]
    for game in games():
        for sample in odd:
            data = {"game": game.id, "image": (io.BytesIO(sample.data), "x.png")}
            r = client.post("/api/scan", data=data, content_type="multipart/form-data")
            assert r.status_code == 200, (game.id, sample.name, r.get_json())
            assert r.get_json()["recognition"]["components"] == []


_MEMORY_PROBE = r"""
import io, json, resource, sys, tempfile
from companion.app import create_app
from tests.hardening.corpus import corpus
from vision import ImageError, load_image

bombs = [s for s in corpus() if s.bomb]
small = next(s for s in corpus() if s.name == "jpeg-exif-orientation-1")
app = create_app({"TESTING": True, "INSTANCE_PATH": tempfile.mkdtemp()})
client = app.test_client()

def post(data):
    return client.post("/api/scan", data={"game": "habitats", "image": (io.BytesIO(data), "x.png")},
                       content_type="multipart/form-data").status_code

post(small.data)  # warm up: imports, detector set-up, first allocations
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
codes = []
for s in bombs:
    codes.append(post(s.data))
    try:
        load_image(s.data)
        codes.append(200)
    except ImageError:
        codes.append(400)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"growth_kib": after - before, "codes": codes, "bombs": len(bombs)}))
"""


def test_bombs_keep_peak_memory_growth_under_200_mib() -> None:
    """In a fresh process: the peak resident size grows by less than 200 MiB over all bombs."""
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", _MEMORY_PROBE], cwd=root, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["bombs"] >= 15
    assert all(400 <= c < 500 for c in report["codes"]), report["codes"]
    assert report["growth_kib"] < 200 * 1024, report
