"""The table camera is unplugged and plugged back 50 times during a game.

Each time it goes, the table page's poll is answered 503 with a sentence saying the
camera is gone (the page shows that sentence), the accepted game is untouched, and once
the camera is back the frames resume without restarting anything.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from flask.testing import FlaskClient

from companion.app import camera, create_app
from scoring.catalog import read_data

from .conftest import page_token

LOSSES = 50


class Device:
    """A USB camera: frames while plugged in; unplugged, reads fail and it cannot be opened."""

    def __init__(self) -> None:
        self.present = True
        self.generation = 0
        self.lock = threading.Lock()

    def open(self) -> Reader:
        with self.lock:
            if not self.present:
                raise OSError("no camera at index 0")
            return Reader(self, self.generation)

    def unplug(self) -> None:
        with self.lock:
            self.present = False
            self.generation += 1

    def plug(self) -> None:
        with self.lock:
            self.present = True


class Reader:
    """One opened handle: dead for good once its device was unplugged (like a real one)."""

    def __init__(self, device: Device, generation: int) -> None:
        self.device, self.generation = device, generation

    def read(self) -> tuple[bool, Any]:
        time.sleep(0.003)
        if not self.device.present or self.device.generation != self.generation:
            return False, None
        return True, np.full((48, 64, 3), 120, np.uint8)

    def release(self) -> None:
        pass


def until(check: Callable[[], Any], what: str, timeout: float = 10.0) -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = check()
        if value:
            return value
        time.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


def test_camera_lost_and_back_fifty_times(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(camera, "RETRY_S", 0.01)
    device = Device()
    app = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path), "HOST_CAMERA": device.open})
    cam = app.extensions["host_camera"]
    try:
        client: FlaskClient = app.test_client()
        token = page_token(client)
        headers = {"X-CSRF-Token": token}
        play = client.post("/api/plays", json={"game": "rainforest", "players": [{"id": "ana"}, {"id": "ben"}]},
                           headers=headers).get_json()["id"]
        move = read_data("rainforest", "example_before.json")
        assert client.post(f"/api/plays/{play}/moves", json={"state": move, "accept_violations": True},
                           headers=headers).status_code == 201
        accepted = client.get(f"/api/plays/{play}").get_json()["current"]
        poll = f"/api/plays/{play}/host-frame"

        def answer() -> tuple[int, Any]:
            r = client.get(poll)
            return r.status_code, r.get_json()

        last_seq = until(lambda: answer()[0] == 200 and answer()[1]["frame"]["seq"], "the first frame")
        for _ in range(LOSSES):
            device.unplug()
            status, body = until(lambda: (a := answer())[0] == 503 and a, "the page to say the camera is gone")
            assert body["error"] == "camera_lost" and "camera" in body["message"]
            assert client.get("/camera/status").get_json()["error"]
            assert client.get(f"/api/plays/{play}").get_json()["current"] == accepted
            device.plug()
            seq = until(lambda: (a := answer())[0] == 200 and a[1]["frame"]["seq"] > last_seq and a[1]["frame"]["seq"],
                        "frames to resume")
            last_seq = seq
        assert client.get("/camera/status").get_json()["error"] is None
        assert client.get(f"/api/plays/{play}").get_json()["current"] == accepted
    finally:
        cam.stop()
