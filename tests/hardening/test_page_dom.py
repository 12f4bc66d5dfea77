"""Hostile payloads reach a real browser's table page only as text.

A photo full of script and markup payloads is uploaded on the table page of a game whose
title and player names are markup too. The page's DOM afterwards must hold no new script,
frame, handler attribute or element from a payload, nothing may have run, the page must
say how many codes were not ours, and the Content-Security-Policy must not have had to
block anything.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from werkzeug.serving import make_server

from companion.app import create_app

from .payloads import SCRIPTS, hostile_payloads
from .scenes import hostile_scene

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
TITLE = "<img src=x onerror=window.__pwned=90>"
NAMES = ["<script>window.__pwned=91</script>", "\"><svg onload=window.__pwned=92>"]

#: Tags whose count a payload could raise if it were parsed as HTML.
WATCHED = ["script", "iframe", "object", "embed", "svg", "img", "style", "math", "details", "a", "b", "x", "mglyph"]

_DOM_FACTS = """tags => ({
  pwned: window.__pwned === undefined ? null : String(window.__pwned),
  handlers: [...document.querySelectorAll('*')].flatMap(e => [...e.attributes].filter(a => a.name.startsWith('on')).map(a => e.tagName + ' ' + a.name)),
  counts: Object.fromEntries(tags.map(t => [t, document.getElementsByTagName(t).length])),
  jsLinks: [...document.querySelectorAll('[href],[src]')].map(e => e.getAttribute('href') || e.getAttribute('src')).filter(u => /^\\s*(javascript|data|vbscript):/i.test(u)),
})"""


def _playwright() -> Any:
    try:
        from playwright import sync_api
    except ImportError:
        sync_api = None
    if sync_api is None or not CHROMIUM.exists():
        reason = "needs playwright and Debian's chromium"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return sync_api


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    app = create_app({"INSTANCE_PATH": str(tmp_path / "instance")})
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{srv.server_port}"
    finally:
        srv.shutdown()
        thread.join(timeout=5)


def test_hostile_payloads_stay_text_in_the_table_page(server: str, tmp_path: Path) -> None:
    sync_api = _playwright()
    payloads = [p for p in hostile_payloads("habitats") if p in SCRIPTS or "<" in p][:23]
    scene = hostile_scene("habitats", "T010", payloads, seed=3)
    photo = tmp_path / "table.jpg"
    photo.write_bytes(scene.jpeg)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        page = browser.new_context().new_page()
        console: list[str] = []
        page.on("console", lambda m: console.append(m.text))
        page.on("pageerror", lambda e: console.append(str(e)))
        try:
            page.goto(server + "/")
            made = page.evaluate(
                """([title, names]) => Companion.postJSON('/api/plays', {game: 'habitats', title,
                     players: [{id: 'red', name: names[0]}, {id: 'blue', name: names[1]}]})""",
                [TITLE, NAMES],
            )
            assert made["status"] == 201, made
            page.goto(f"{server}/plays/{made['body']['id']}/table")
            before = page.evaluate(_DOM_FACTS, WATCHED)
            assert page.text_content("h1") == TITLE
            with page.expect_response(lambda r: "/frames" in r.url) as answer:
                page.set_input_files("#upload", str(photo))
            body = answer.value.json()
            listed = len(body["recognition"]["foreign"])
            assert listed >= len(payloads) - 2
            for _ in range(100):  # wait_for_function would need 'unsafe-eval' under our CSP
                if (page.text_content("#status") or "").startswith("Frame read"):
                    break
                page.wait_for_timeout(100)
            after = page.evaluate(_DOM_FACTS, WATCHED)
            problems = page.text_content("#problems") or ""
        finally:
            browser.close()
    assert after["pwned"] is None and before["pwned"] is None
    assert after["handlers"] == [] and after["jsLinks"] == []
    assert after["counts"] == before["counts"]
    assert f"{listed} not ours" in problems
    assert not [m for m in console if "Content Security Policy" in m], console
