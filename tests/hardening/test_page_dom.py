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
from html.parser import HTMLParser
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from werkzeug.serving import make_server

from companion.app import create_app
from scoring.catalog import read_data

from .payloads import SCRIPTS, hostile_payloads
from .scenes import hostile_scene


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


@pytest.mark.browser
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
    assert f"{listed} things on the table are not part of this game and are left out." in problems
    assert not [m for m in console if "Content Security Policy" in m], console


@pytest.mark.browser
def test_the_table_page_says_when_the_camera_is_gone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Unplugged three times while the page watches: it says so, keeps the game, and resumes."""
    from companion.app import camera

    from .test_camera_loss import Device

    sync_api = _playwright()
    monkeypatch.setattr(camera, "RETRY_S", 0.02)
    device = Device()
    app = create_app({"INSTANCE_PATH": str(tmp_path / "instance"), "HOST_CAMERA": device.open})
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{srv.server_port}"

    def status(page: Any, prefix: str) -> str:
        for _ in range(150):  # wait_for_function would need 'unsafe-eval' under our CSP
            text = page.text_content("#status") or ""
            if text.startswith(prefix) or prefix in text:
                return text
            page.wait_for_timeout(100)
        raise AssertionError(f"the page never said {prefix!r}; it says {text!r}")

    try:
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
            try:
                page = browser.new_context().new_page()
                page.goto(base + "/")
                made = page.evaluate(
                    "() => Companion.postJSON('/api/plays', {game: 'rainforest', players: [{id: 'ana'}, {id: 'ben'}]})"
                )
                play = made["body"]["id"]
                accepted = page.evaluate(
                    "([url, state]) => Companion.postJSON(url, {state, accept_violations: true})",
                    [f"/api/plays/{play}/moves", read_data("rainforest", "example_before.json")],
                )
                assert accepted["status"] == 201, accepted
                page.goto(f"{base}/plays/{play}/table")
                page.click("#host-start")
                status(page, "Watching the table camera")
                for _ in range(3):
                    device.unplug()
                    said = status(page, "camera stopped sending frames")
                    assert "the game is kept" in said
                    assert page.text_content("#accepted-count") == "1"
                    device.plug()
                    status(page, "Watching the table camera")
                assert page.text_content("#accepted-count") == "1"
            finally:
                browser.close()
    finally:
        srv.shutdown()
        thread.join(timeout=5)
        app.extensions["host_camera"].stop()


class _Dom(HTMLParser):
    """The parts of a served page that could run code: scripts, handler attributes, script links."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.inline_scripts: list[str] = []
        self.handlers: list[str] = []
        self.script_links: list[str] = []
        self.tags: dict[str, int] = {}
        self._in_script: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags[tag] = self.tags.get(tag, 0) + 1
        names = dict(attrs)
        self.handlers += [f"{tag} {k}" for k in names if k.startswith("on")]
        self.script_links += [v for k, v in names.items() if k in ("href", "src", "action") and v
                              and v.strip().lower().startswith(("javascript:", "data:text", "vbscript:"))]
        if tag == "script":
            self._in_script = "json" if names.get("type") == "application/json" else ("src" if "src" in names else "")

    def handle_data(self, data: str) -> None:
        if self._in_script == "" and data.strip():
            self.inline_scripts.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = None


def test_every_server_page_keeps_markup_names_as_text(tmp_path: Path) -> None:
    """Markup in a game's title and names changes no page's element structure and adds no code.

    Two stores hold the same game, one with plain names and one with markup: every page
    must parse to the same elements in both.
    """
    from .conftest import page_token

    doc = read_data("rainforest", "example_before.json")

    def site(folder: str, title: str, names: list[str]) -> tuple[Any, str]:
        client = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path / folder)}).test_client()
        headers = {"X-CSRF-Token": page_token(client)}
        players = [{"id": "ana", "name": names[0]}, {"id": "ben", "name": names[1]}]
        play = client.post("/api/plays", json={"game": "rainforest", "title": title, "players": players},
                           headers=headers).get_json()["id"]
        assert client.post(f"/api/plays/{play}/moves", json={"state": doc, "accept_violations": True},
                           headers=headers).status_code == 201
        return client, str(play)

    sites = [site("plain", "Sunday game", ["Ana", "Ben"]), site("hostile", TITLE, NAMES)]
    for pattern in ["/", "/history/", "/history/{}", "/history/{}/replay?seq=1", "/plays/{}/table",
                    "/plays/{}/score?confirm=1"]:
        doms = []
        for client, play in sites:
            r = client.get(pattern.format(play))
            assert r.status_code == 200 and r.mimetype == "text/html", pattern
            dom = _Dom()
            dom.feed(r.get_data(as_text=True))
            doms.append(dom)
        assert doms[1].handlers == [] and doms[1].inline_scripts == [] and doms[1].script_links == [], pattern
        assert doms[1].tags == doms[0].tags, pattern
