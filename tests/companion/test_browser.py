"""A real browser at the table: Debian's Chromium, driven by Playwright, filming a rendered table.

Chromium's fake camera plays a video made of three rendered Habitats tables: the
start position (A), an illegal move (C: a tile taken diagonally from the figure) and
a legal move (B: the tile straight ahead). The test starts a game, sees the overlay
list the components of A, accepts A, sees C flagged, accepts B and reads the score.
Set COMPANION_SCREENSHOTS to a folder to keep screenshots of the main pages.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from werkzeug.serving import make_server

from companion.app import create_app
from scoring import find_game

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
EXAMPLES = Path(__file__).resolve().parents[1] / "scoring" / "examples" / "habitats"
RESOLUTION = (1280, 720)
FPS = 2
SECONDS_PER_SCENE = 6
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--use-fake-ui-for-media-stream",
    "--use-fake-device-for-media-stream",
]


def _require_browser() -> Any:
    """Playwright's sync API, or a skip naming what is missing (a failure under CI)."""
    missing = []
    try:
        from playwright import sync_api
    except ImportError:
        sync_api = None
        missing.append("the playwright package (pip install playwright)")
    if not CHROMIUM.exists():
        missing.append("Debian's chromium (apt-get install chromium)")
    if missing:
        reason = "browser test needs " + " and ".join(missing)
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return sync_api


def page_in(viewport: dict[str, int]) -> Iterator[Any]:
    """A page of a fresh Chromium at this viewport; the test fails on any page error."""
    sync_api = _require_browser()
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport=viewport)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        try:
            yield page
        finally:
            context.close()
            browser.close()
        assert not errors, errors


def _case(name: str) -> dict[str, Any]:
    return json.loads((EXAMPLES / f"{name}.json").read_text("utf-8"))


def write_y4m(path: Path, scenes: list[np.ndarray]) -> None:
    """A Y4M clip (I420) holding each BGR scene for SECONDS_PER_SCENE seconds."""
    w, h = RESOLUTION
    with path.open("wb") as out:
        out.write(f"YUV4MPEG2 W{w} H{h} F{FPS}:1 Ip A1:1 C420jpeg\n".encode("ascii"))
        for image in scenes:
            frame = cv2.cvtColor(image, cv2.COLOR_BGR2YUV_I420).tobytes()
            for _ in range(FPS * SECONDS_PER_SCENE):
                out.write(b"FRAME\n")
                out.write(frame)


def readable_scene(state: Any) -> np.ndarray:
    """A rendered table with every component in view that the scanner reads back whole."""
    from vision import recognise
    from tests.rendering.render import render_scene

    for seed in range(12):
        scene = render_scene(
            "habitats", state, condition="easy", seed=seed,
            resolution=RESOLUTION, supersample=1, clutter=False, foreign=0,
        )
        if scene.hidden:
            continue
        read = recognise(scene.jpeg, "habitats", players=state.players, options=state.options)
        if set(read.state.placements) == set(state.placements):
            return scene.image
    raise AssertionError("no camera position of the renderer shows this table readably")


@pytest.fixture(scope="module")
def table_video(tmp_path_factory: pytest.TempPathFactory) -> Path:
    game = find_game("habitats")
    legal, illegal = _case("move_legal_head"), _case("move_not_in_line")
    scenes = [
        readable_scene(game.load_state(doc))
        for doc in (legal["before"], illegal["after"], legal["after"])
    ]
    path = tmp_path_factory.mktemp("video") / "table.y4m"
    write_y4m(path, scenes)
    return path


@pytest.fixture(scope="module")
def table_clip(tmp_path_factory: pytest.TempPathFactory, table_video: Path) -> Path:
    """The same table as an MJPEG file: what a host camera would film."""
    path = tmp_path_factory.mktemp("clip") / "table.avi"
    w, h = RESOLUTION
    header = len(f"YUV4MPEG2 W{w} H{h} F{FPS}:1 Ip A1:1 C420jpeg\n")
    size = w * h * 3 // 2
    data = table_video.read_bytes()
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), FPS, RESOLUTION)
    for start in range(header, len(data), size + len(b"FRAME\n")):
        yuv = np.frombuffer(data, np.uint8, size, start + len(b"FRAME\n")).reshape(h * 3 // 2, w)
        writer.write(cv2.cvtColor(yuv, cv2.COLOR_YUV2BGR_I420))
    writer.release()
    return path


def _serve(app: Any) -> Iterator[str]:
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=5)
        cam = app.extensions.get("host_camera")
        if cam is not None:
            cam.stop()


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[str]:
    yield from _serve(create_app({"INSTANCE_PATH": str(tmp_path / "instance")}))


@pytest.fixture
def host_camera_server(tmp_path: Path, table_clip: Path) -> Iterator[str]:
    app = create_app({"INSTANCE_PATH": str(tmp_path / "instance"), "HOST_CAMERA": str(table_clip)})
    yield from _serve(app)


@pytest.fixture
def browser_page(table_video: Path) -> Iterator[Any]:
    sync_api = _require_browser()
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM),
            headless=True,
            args=[*CHROMIUM_ARGS, f"--use-file-for-fake-video-capture={table_video}"],
        )
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        try:
            yield page
        finally:
            context.close()
            browser.close()
        assert not [e for e in errors if "Content Security Policy" in e or "TypeError" in e], errors


def shoot(page: Any, name: str) -> None:
    folder = os.environ.get("COMPANION_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)


def wait_for_proposal(page: Any, title: str, *, attempts: int = 6) -> None:
    """The first proposal that matches; other ones (the clip loops) are dismissed."""
    for _ in range(attempts):
        page.wait_for_selector("#proposal:not([hidden])", timeout=60_000)
        if page.text_content("#proposal-title") == title:
            return
        page.click("#dismiss")
    raise AssertionError(f"no proposal titled {title!r}")


def poll(page: Any, script: str, arg: Any = None, *, timeout_s: float = 60.0) -> Any:
    """Evaluate until truthy (Playwright's wait_for_function would need 'unsafe-eval' under our CSP)."""
    import time

    end = time.monotonic() + timeout_s
    while True:
        value = page.evaluate(script, arg)
        if value or time.monotonic() > end:
            assert value, f"timed out waiting for {script}"
            return value
        page.wait_for_timeout(150)


def accepted_count(page: Any) -> str:
    return page.text_content("#accepted-count")


def seen_components(page: Any) -> set[str]:
    return set(page.eval_on_selector_all("#seen li[data-component]", "els => els.map(e => e.dataset.component)"))


def test_play_a_filmed_game_to_the_score_sheet(live_server: str, browser_page: Any) -> None:
    page = browser_page
    page.goto(live_server + "/")
    shoot(page, "home")
    page.goto(live_server + "/new?game=habitats")
    page.fill('input[name="name0"]', "Rosa")
    page.fill('input[name="id0"]', "red")
    page.select_option('select[name="colour0"]', "red")
    page.fill('input[name="name1"]', "Bruno")
    page.fill('input[name="id1"]', "blue")
    page.select_option('select[name="colour1"]', "blue")
    page.fill('input[name="name2"]', "")
    page.fill('input[name="id2"]', "")
    page.select_option('select[name="colour2"]', "")
    shoot(page, "new-game")
    page.click("#new-game button[type=submit]")
    page.wait_for_url("**/table")

    page.click("#camera-start")
    start = {p["component"] for p in _case("move_legal_head")["before"]["placements"]}
    poll(
        page,
        "ids => { const s = new Set([...document.querySelectorAll('#seen li[data-component]')]"
        ".map(e => e.dataset.component)); return ids.every(i => s.has(i)) && s.size === ids.length; }",
        sorted(start),
    )
    assert seen_components(page) == start
    wait_for_proposal(page, "Starting position")
    page.click("#accept")
    poll(page, "() => document.getElementById('accepted-count').textContent === '1'")

    wait_for_proposal(page, "This move breaks a rule")
    flagged = page.text_content('#violation-list li[data-code="market/not_in_line"]')
    names = {c.id: c.name for c in find_game("habitats").components()}
    # In the players' words: the tile's name, never its code.
    assert flagged is not None and names["T003"] in flagged and "T003" not in flagged
    assert "not in a straight line" in flagged
    shoot(page, "table-illegal")
    page.click("#dismiss")

    wait_for_proposal(page, "Legal move")
    moves = page.eval_on_selector_all("#move-list li", "els => els.map(e => e.textContent)")
    assert any(names["T004"].lower() in m.lower() and "Rosa's park" in m for m in moves), moves
    assert not any("park:" in m or "T004" in m for m in moves), moves
    assert "Rosa placed" in page.text_content("#move-summary")
    shoot(page, "table-legal")
    page.click("#accept")
    poll(page, "() => document.getElementById('accepted-count').textContent === '2'")

    page.click("#score-link")
    page.wait_for_selector("#pad")
    totals = page.eval_on_selector_all(
        "#pad tfoot td.total", "cells => cells.map(c => [c.dataset.player, c.textContent])"
    )
    # Rosa: the badger (T004) needs 1 forest in adjacent areas and has T018's forest: 2 points;
    # her chimp needs 2 forests and has none: 0. Bruno's gorilla needs 3 forests, has none: 0.
    assert totals == [["red", "2"], ["blue", "0"]]
    assert "Rosa wins" in page.text_content("#winner")
    shoot(page, "score")
    page.click("#finish")
    page.wait_for_url("**/history/*")
    assert page.locator("ol.timeline li").count() == 2
    shoot(page, "history-detail")
    page.goto(live_server + "/history/")
    assert "Rosa won" in page.text_content("table.history")
    shoot(page, "history")
    page.goto(live_server + "/print")
    shoot(page, "print")


def test_photo_upload_fallback(live_server: str, browser_page: Any) -> None:
    """Without a camera, an uploaded photo gets the same overlay and proposal."""
    import vision

    page = browser_page
    photo = vision.sample_photo("habitats")
    truth = json.loads(photo.with_suffix(".json").read_text("utf-8"))
    page.goto(live_server + "/")
    page.click('form[action="/try/habitats"] button')
    page.wait_for_url("**/table?sample=0")
    wait_for_proposal(page, "Starting position")  # the sample photo is read on arrival
    page.click("#dismiss")
    page.set_input_files("#upload", str(photo))
    poll(page, "() => document.getElementById('status').textContent.startsWith('Photo read')")
    assert seen_components(page) == {p["component"] for p in truth["placements"]}
    wait_for_proposal(page, "Starting position")
    page.click("#accept")
    poll(page, "() => document.getElementById('accepted-count').textContent === '1'")
    shoot(page, "table-sample")


def test_host_camera_is_seen_by_two_browsers(host_camera_server: str, browser_page: Any) -> None:
    """A camera on the server: a second browser sees the same frame and the same overlay."""
    page = browser_page
    page.goto(host_camera_server + "/new?game=habitats")
    page.fill('input[name="name2"]', "")
    page.fill('input[name="id2"]', "")
    page.select_option('select[name="colour2"]', "")
    page.fill('input[name="name0"]', "Rosa")
    page.fill('input[name="id0"]', "red")
    page.fill('input[name="name1"]', "Bruno")
    page.fill('input[name="id1"]', "blue")
    page.click("#new-game button[type=submit]")
    page.wait_for_url("**/table")
    table_url = page.url
    page.click("#host-start")
    poll(page, "() => document.getElementById('status').textContent.includes('Watching the table camera')")
    poll(page, "() => document.querySelectorAll('#seen li[data-component]').length >= 13")
    phone = page.context.new_page()
    phone.goto(table_url)
    phone.click("#host-start")
    poll(phone, "() => document.querySelectorAll('#seen li[data-component]').length >= 13")
    frame_src = phone.get_attribute("#still", "src")
    assert frame_src is not None and frame_src.startswith("/camera/frames/")
    assert len(seen_components(phone)) in (13, 14)
    shoot(phone, "table-host-camera")
    phone.close()
