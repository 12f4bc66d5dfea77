"""The host camera: frames read on the server, recognised once, shared by every browser."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from flask import Flask

from companion.app import create_app
from companion.app.camera import KEEP_FRAMES, HostCamera, HostFrame

from .conftest import ScriptedCamera, csrf_token, rainforest_move


class FakeReader:
    """A camera that shows numbered grey frames, then nothing more."""

    def __init__(self, frames: int = 100, period_s: float = 0.002) -> None:
        self.left = frames
        self.period_s = period_s
        self.released = False

    def read(self) -> tuple[bool, Any]:
        time.sleep(self.period_s)  # a real camera blocks until its next frame
        if self.left <= 0:
            return False, None
        self.left -= 1
        img = np.full((48, 64, 3), 100 - self.left % 50, np.uint8)
        return True, img

    def release(self) -> None:
        self.released = True


def wait_for(predicate: Any, timeout: float = 5.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.01)
    raise AssertionError("timed out")


def test_frames_above_the_rate_limit_are_dropped() -> None:
    cam = HostCamera(lambda: FakeReader(40, period_s=0.005), max_fps=50)
    cam.start()
    try:
        wait_for(lambda: cam.error is not None)
    finally:
        cam.stop()
    last = cam.latest()
    assert last is not None and 5 <= last.seq <= 25  # 40 frames over ~0.2 s at 50 per second


def test_keeps_only_the_last_frames() -> None:
    cam = HostCamera(lambda: FakeReader(30), max_fps=100_000)
    cam.start()
    try:
        wait_for(lambda: (cam.latest() is not None and cam.latest().seq >= 30) or cam.error is not None)
    finally:
        cam.stop()
    last = cam.latest()
    assert last is not None and last.seq == 30
    assert cam.frame(30 - KEEP_FRAMES) is None and cam.frame(30 - KEEP_FRAMES + 1) is not None
    decoded = cv2.imdecode(np.frombuffer(last.jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert decoded.shape == (48, 64, 3)
    assert cam.error == "the camera stopped sending frames"


def test_result_is_computed_once_per_frame_and_game() -> None:
    cam = HostCamera(lambda: FakeReader(1), max_fps=1000)
    cam._push(b"jpeg-1")
    frame = cam.latest()
    calls: list[bytes] = []

    def compute(shot: HostFrame) -> dict[str, Any]:
        calls.append(shot.jpeg)
        return {"n": len(calls)}

    assert cam.result(frame, "play@0", compute) == {"n": 1}
    assert cam.result(frame, "play@0", compute) == {"n": 1}
    assert cam.result(frame, "play@1", compute) == {"n": 2}
    assert calls == [b"jpeg-1", b"jpeg-1"]


def test_video_file_source_loops(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    for i in range(3):
        writer.write(np.full((48, 64, 3), i * 60, np.uint8))
    writer.release()
    cam = HostCamera(str(path), max_fps=200)
    cam.start()
    try:
        wait_for(lambda: cam.latest() is not None and cam.latest().seq >= 7)
    finally:
        cam.stop()
    assert cam.error is None


@pytest.fixture
def host_app(tmp_path: Path) -> Flask:
    return create_app(
        {"TESTING": True, "INSTANCE_PATH": str(tmp_path), "HOST_CAMERA": lambda: FakeReader(10**6)}
    )


def test_every_browser_sees_the_same_frame_and_overlay(host_app: Flask, camera: ScriptedCamera) -> None:
    cam: HostCamera = host_app.extensions["host_camera"]
    try:
        wait_for(lambda: cam.latest() is not None)
        tablet, phone = host_app.test_client(), host_app.test_client()
        token = csrf_token(tablet)
        r = tablet.post(
            "/api/plays",
            json={"game": "rainforest", "players": [{"id": "ana"}, {"id": "ben"}]},
            headers={"X-CSRF-Token": token},
        )
        play = r.get_json()["id"]
        camera.array_scene = (rainforest_move()["before"], {})
        # The live loop proposes only once the table has been still for a few frames.
        first = tablet.get(f"/api/plays/{play}/host-frame")
        assert first.status_code == 503 and first.get_json()["error"] == "table_settling"
        # A complete reading is proposed from one still frame, then merged with the next one.
        wait_for(lambda: (tablet.get(f"/api/plays/{play}/host-frame").get_json().get("live") or {}).get("frames") == 2)
        cam.stop()  # freeze the frame so both browsers ask about the same one
        frame = cam.latest()
        calls = len(camera.calls)
        a = tablet.get(f"/api/plays/{play}/host-frame").get_json()
        b = phone.get(f"/api/plays/{play}/host-frame").get_json()
        assert a["frame"]["seq"] == b["frame"]["seq"] == frame.seq
        assert a["recognition"] == b["recognition"] and len(a["state"]["placements"]) == 51
        assert a["live"]["frames"] == 2  # two still frames merged into the proposal
        assert len(camera.calls) == calls == 2  # a still, unchanged table is not recognised again
        assert camera.calls[0]["image"].shape == (48, 64, 3)  # the decoded frame, not the JPEG
        img = phone.get(a["frame"]["url"])
        assert img.status_code == 200 and img.mimetype == "image/jpeg" and img.data == frame.jpeg
        status = phone.get("/camera/status").get_json()
        assert status["host_camera"] is True and status["frames"] == frame.seq
        table = tablet.get(f"/plays/{play}/table").get_data(as_text=True)
        assert 'id="host-start"' in table
    finally:
        cam.stop()
