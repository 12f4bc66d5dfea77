"""The host camera: a camera on the machine running the app (a Pi over the table).

One thread reads frames with OpenCV and keeps the last few as JPEG; every browser
watching a game asks for the newest frame's recognition, which is computed once per
frame and game and shared, so a tablet and the players' phones see the same overlay.
Each game's frames go through the live loop (``vision.live``): a frame is recognised
only when the table is still and no hand is over it, and a move is proposed from
several still frames merged; meanwhile the last proposal is shown with what the loop
is waiting for.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Protocol

from flask import Blueprint, Flask, Response, current_app, jsonify, url_for

from . import services, store, tableside
from .errors import AppError

bp = Blueprint("camera", __name__)

#: Frames kept so that a browser can fetch the exact image its overlay was computed on.
KEEP_FRAMES = 4
#: JPEG encodes per second at most: the live loop never needs more, and a Pi has 4 cores.
MAX_FPS = 8.0
JPEG_QUALITY = 85
#: Seconds between attempts to reopen a camera that stopped sending frames (unplugged).
RETRY_S = 0.5


class FrameReader(Protocol):
    """Anything with OpenCV's ``read() -> (ok, frame)`` and ``release()``."""

    def read(self) -> tuple[bool, Any]: ...

    def release(self) -> None: ...


@dataclass(frozen=True, slots=True)
class HostFrame:
    seq: int
    jpeg: bytes
    taken: float
    """time.monotonic() when the frame was read."""
    image: Any = None
    """The decoded BGR frame, so recognition skips decoding the JPEG again."""


class HostCamera:
    """Reads a camera (index) or a video file (path, looped) on a background thread."""

    def __init__(self, source: int | str | Callable[[], FrameReader], *, max_fps: float = MAX_FPS) -> None:
        self.source = source
        self.max_fps = max_fps
        self._frames: OrderedDict[int, HostFrame] = OrderedDict()
        self._lock = threading.Lock()
        self._results: OrderedDict[tuple[int, str], dict[str, Any]] = OrderedDict()
        self._recognise_lock = threading.Lock()
        self._live: dict[str, Any] = {}
        """Per game: its ``vision.live.LiveTable`` (fed under the recognise lock, in frame order)."""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.error: str | None = None
        self._seq = 0

    def _open(self) -> FrameReader:
        import cv2

        if callable(self.source):
            return self.source()
        cap = cv2.VideoCapture(self.source)
        if isinstance(self.source, int):
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, 1920)
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, 1080)
        if not cap.isOpened():
            raise OSError(f"cannot open camera {self.source!r}")
        return cap

    def check(self) -> None:
        """Open and close the source once, so ``serve`` can refuse a missing camera."""
        self._open().release()

    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="host-camera", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def _run(self) -> None:
        import cv2

        is_file = isinstance(self.source, str)
        period = 1.0 / self.max_fps
        next_at = time.monotonic()
        reader: FrameReader | None = None
        try:
            while not self._stop.is_set():
                if reader is None:
                    try:
                        reader = self._open()
                    except OSError as exc:  # unplugged: keep trying until it is back
                        self.error = self.error or str(exc)
                        self._stop.wait(RETRY_S)
                        continue
                ok, image = reader.read()
                if not ok or image is None:
                    reader.release()
                    reader = None  # a camera that stopped is reopened, a video file rewound
                    if not is_file:
                        self.error = "the camera stopped sending frames"
                        self._stop.wait(RETRY_S)
                    continue
                now = time.monotonic()
                if now < next_at:
                    if is_file:
                        time.sleep(next_at - now)
                    else:
                        continue
                next_at = max(next_at + period, time.monotonic())
                ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
                if ok:
                    self._push(buf.tobytes(), image)
                    self.error = None
        finally:
            if reader is not None:
                reader.release()

    def _push(self, jpeg: bytes, image: Any = None) -> None:
        with self._lock:
            self._seq += 1
            self._frames[self._seq] = HostFrame(self._seq, jpeg, time.monotonic(), image)
            while len(self._frames) > KEEP_FRAMES:
                self._frames.popitem(last=False)

    def latest(self) -> HostFrame | None:
        with self._lock:
            if not self._frames:
                return None
            return next(reversed(self._frames.values()))

    def frame(self, seq: int) -> HostFrame | None:
        with self._lock:
            return self._frames.get(seq)

    def live(self, play_id: str, recognise: Callable[[Any], Any]) -> Any:
        """The live loop of one game's table on this camera (made on first use)."""
        from vision.live import LiveTable

        with self._lock:
            table = self._live.get(play_id)
            if table is None:
                table = self._live[play_id] = LiveTable(recognise, is_complete=_complete)
            return table

    def result(self, frame: HostFrame, play_id: str, compute: Callable[[HostFrame], dict[str, Any]]) -> dict[str, Any]:
        """Recognise a frame once per game, whoever asks first; the others share it."""
        key = (frame.seq, play_id)
        with self._recognise_lock:
            cached = self._results.get(key)
            if cached is None:
                cached = compute(frame)
                self._results[key] = cached
                while len(self._results) > 2 * KEEP_FRAMES:
                    self._results.popitem(last=False)
            return cached


def _complete(scan: Any) -> bool:
    """A frame whose reading leaves nothing to look at is proposed at once (the live loop
    still merges the next still frame with it)."""
    doc = scan.overlay
    return not scan.state.unknown and not any(doc.get(k) for k in ("problems", "unreadable", "duplicated", "disagreements"))


def _decoded(shot: HostFrame) -> Any:
    if shot.image is not None:
        return shot.image
    import cv2
    import numpy as np

    image = cv2.imdecode(np.frombuffer(shot.jpeg, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise AppError(503, "camera_lost", "the camera sent a frame that is not an image")
    return image


def init_app(app: Flask) -> None:
    source = app.config.get("HOST_CAMERA")
    if source is None:
        return
    cam = HostCamera(source)
    app.extensions["host_camera"] = cam
    cam.start()


def host_camera() -> HostCamera:
    cam = current_app.extensions.get("host_camera")
    if cam is None:
        raise AppError(404, "no_host_camera", "this companion was started without --camera")
    return cam


@bp.get("/camera/status")
def status() -> Response:
    cam = current_app.extensions.get("host_camera")
    if cam is None:
        return jsonify({"host_camera": False})
    last = cam.latest()
    return jsonify(
        {"host_camera": True, "frames": last.seq if last else 0, "error": cam.error}
    )


@bp.get("/camera/frames/<int:seq>.jpg")
def frame_image(seq: int) -> Response:
    frame = host_camera().frame(seq)
    if frame is None:
        raise AppError(404, "frame_gone", f"frame {seq} is no longer kept")
    resp = Response(frame.jpeg, mimetype="image/jpeg")
    resp.headers["Cache-Control"] = "private, max-age=60"
    return resp


@bp.get("/api/plays/<play_id>/host-frame")
def host_frame(play_id: str) -> Response:
    """The newest host-camera frame of this game's table, recognised, with its image link."""
    from .api import frame_result

    cam = host_camera()
    play = store.get_play(play_id)
    game = services.game_or_404(play.game)
    frame = cam.latest()
    if frame is None:
        raise AppError(503, "camera_starting", cam.error or "no frame from the host camera yet")
    if cam.error:
        raise AppError(
            503, "camera_lost", f"{cam.error}: the game is kept and the table resumes when the camera is back"
        )

    live = cam.live(play.id, lambda image: services.recognise(image, game, play.players, play.options))

    def compute(shot: HostFrame) -> dict[str, Any]:
        step = live.feed(_decoded(shot))
        status = {"status": step.status.value, "message": step.message, "recognised": step.recognised}
        if step.proposal is None:
            return {"live": status}
        merged = step.proposal
        scan = replace(merged.shown, state=merged.state)
        doc = frame_result(play, scan)
        status["frames"] = len(merged.recognitions)
        status["disagreements"] = [
            {"components": list(d.components), "message": d.message} for d in merged.disagreements
        ]
        doc["live"] = status
        tableside.remember(play.id, doc["state"], shot.jpeg, scan.overlay)
        return doc

    last = store.latest(play.id)
    doc = dict(cam.result(frame, f"{play.id}@{last.seq if last else 0}", compute))
    if "state" not in doc:  # nothing proposed yet: say what the loop waits for
        raise AppError(503, "table_settling", doc["live"]["message"])
    doc["frame"] = {
        "seq": frame.seq,
        "url": url_for("camera.frame_image", seq=frame.seq),
        "age_ms": round((time.monotonic() - frame.taken) * 1000),
    }
    return jsonify(doc)
