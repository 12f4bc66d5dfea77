"""Screenshot of the live table waiting for the hands: docs/img/live-hands-laptop.png.

    python bench/live_screens.py

Films a Habitats move (``tests.rendering.conditions.hand_sequence``, the hand holding over the table
for several seconds), serves it as the host camera and photographs the table page on a
laptop viewport while the page says what the live loop waits for (the photo and outlines
are the last proposal's, made before the hand came in).
"""

from __future__ import annotations

import json
import sys
import tempfile
import threading
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from werkzeug.serving import make_server  # noqa: E402

from companion.app import create_app  # noqa: E402
from scoring import find_game  # noqa: E402
from vision import sample_photo  # noqa: E402
from tests.rendering.conditions import a_move, hand_sequence  # noqa: E402

OUT = ROOT / "docs" / "img"
FPS = 8


def clip(path: Path) -> list[str]:
    """An MJPEG file: the table still, a hand comes in and holds still over the table."""
    game = find_game("habitats")
    truth = game.load_state(json.loads(sample_photo("habitats").with_suffix(".json").read_text("utf-8")))
    before, after = a_move("habitats", truth, seed=1)
    frames = hand_sequence("habitats", before, after, seed=11, resolution=(1280, 720), settle_before=16,
                           enter=4, hold=60, leave=0, settle_after=0)
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), FPS, (1280, 720))
    for f in frames:
        writer.write(f.image)
    writer.release()
    return [p.id for p in truth.players]


def main() -> None:
    from playwright.sync_api import sync_playwright

    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        video = Path(tmp) / "table.avi"
        players = clip(video)
        app = create_app({"INSTANCE_PATH": str(Path(tmp) / "instance"), "HOST_CAMERA": str(video)})
        srv = make_server("127.0.0.1", 0, app, threaded=True)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{srv.server_port}"
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                            args=["--no-sandbox", "--disable-gpu"])
                for name, viewport in (("laptop", {"width": 1280, "height": 900}),):
                    page = browser.new_context(viewport=viewport).new_page()
                    page.goto(base + "/")
                    made = page.evaluate(
                        "(ids) => Companion.postJSON('/api/plays', {game: 'habitats', players: ids.map((id) => ({id}))})",
                        players,
                    )
                    page.goto(f"{base}/plays/{made['body']['id']}/table")
                    page.click("#host-start")
                    for _ in range(600):
                        if "Waiting for the hands" in (page.text_content("#status") or ""):
                            break
                        page.wait_for_timeout(100)
                    page.wait_for_timeout(300)
                    page.screenshot(path=str(OUT / f"live-hands-{name}.png"), full_page=False)
                    print(name, page.text_content("#status"))
                browser.close()
        finally:
            srv.shutdown()
            app.extensions["host_camera"].stop()


if __name__ == "__main__":
    main()
