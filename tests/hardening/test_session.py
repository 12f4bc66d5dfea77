"""Cookies and sessions: Secure under --https, a joined flag and expiry (never the code),
failed joins forgotten, Origin compared with its scheme, player text isolated for bidi."""

from __future__ import annotations

import json
import re
import ssl
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from companion.app import create_app, security

from .crash import new_play
from .load import Browser
from .served import live, serve

LAN = "192.0.2.7"


@pytest.fixture
def lan_app(tmp_path: Path) -> Flask:
    return create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path), "JOIN_CODE": "ABC234", "LAN": True,
                       "ALLOWED_HOSTS": ("localhost", "127.0.0.1", LAN)})


def _cookie_payload(app: Flask, client: Any) -> dict[str, Any]:
    cookie = client.get_cookie(app.config["SESSION_COOKIE_NAME"], domain=LAN)
    assert cookie is not None
    serializer = app.session_interface.get_signing_serializer(app)  # type: ignore[attr-defined]
    return dict(serializer.loads(cookie.value))


def test_https_cookies_are_secure(tmp_path: Path) -> None:
    with serve(tmp_path / "instance", "--https", https=True) as served:
        context = ssl._create_unverified_context()
        with urllib.request.urlopen(served.base + "/", context=context, timeout=30) as r:
            cookies = r.headers.get_all("Set-Cookie") or []
    assert cookies and all("Secure" in c and "HttpOnly" in c and "SameSite=Strict" in c for c in cookies), cookies
    with serve(tmp_path / "plain") as served, urllib.request.urlopen(served.base + "/", timeout=30) as r:
        cookies = r.headers.get_all("Set-Cookie") or []
    assert cookies and not any("Secure" in c for c in cookies), cookies


def test_the_session_holds_a_joined_flag_and_expiry_never_the_code(lan_app: Flask) -> None:
    phone = lan_app.test_client()
    phone.environ_base["REMOTE_ADDR"] = LAN
    r = phone.get("/join?code=abc-234", headers={"Host": LAN})
    assert r.status_code == 302
    doc = _cookie_payload(lan_app, phone)
    assert doc["joined"] is True
    assert time.time() + 11.9 * 3600 < doc["joined_until"] <= time.time() + 12 * 3600
    assert "ABC234" not in json.dumps(doc).upper().replace("-", "")
    assert phone.get("/api/plays", headers={"Host": LAN}).status_code == 200
    assert lan_app.permanent_session_lifetime.total_seconds() == security.JOIN_LIFETIME_S


@pytest.mark.parametrize("forged", [
    {"joined": True, "joined_until": 1},                      # expired
    {"joined": True, "joined_until": 2**40},                  # no tag of this code
    {"joined": "ABC234"},                                      # the old format: the code itself
    {"joined": True, "joined_until": 2**40, "join_tag": "0" * 32},  # another run's code
    {"joined": 1, "joined_until": "x", "join_tag": None},
])
def test_an_expired_or_foreign_session_must_join_again(lan_app: Flask, forged: dict[str, Any]) -> None:
    phone = lan_app.test_client()
    phone.environ_base["REMOTE_ADDR"] = LAN
    with phone.session_transaction() as sess:
        sess.update(forged)
    r = phone.get("/api/plays", headers={"Host": LAN, "Accept": "application/json"})
    assert r.status_code == 401 and r.get_json()["error"] == "join_code"


def test_a_new_code_means_joining_again(tmp_path: Path) -> None:
    first = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path), "JOIN_CODE": "ABC234", "LAN": True,
                        "ALLOWED_HOSTS": (LAN,)})
    phone = first.test_client()
    phone.environ_base["REMOTE_ADDR"] = LAN
    assert phone.get("/join?code=ABC234", headers={"Host": LAN}).status_code == 302
    cookie = phone.get_cookie(first.config["SESSION_COOKIE_NAME"], domain=LAN)
    assert cookie is not None
    second = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path), "JOIN_CODE": "XYZ789", "LAN": True,
                         "ALLOWED_HOSTS": (LAN,)})
    again = second.test_client()
    again.environ_base["REMOTE_ADDR"] = LAN
    again.set_cookie(first.config["SESSION_COOKIE_NAME"], cookie.value, domain=LAN)
    r = again.get("/api/plays", headers={"Host": LAN, "Accept": "application/json"})
    assert r.status_code == 401


def test_failed_joins_are_forgotten(lan_app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [1000.0]
    monkeypatch.setattr(security.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(security, "_failures", {})
    for i in range(security.JOIN_FAILURES_KEPT + 500):
        phone = lan_app.test_client()
        phone.environ_base["REMOTE_ADDR"] = f"10.{i // 65536}.{i // 256 % 256}.{i % 256}"
        assert phone.get("/join?code=WRONG1", headers={"Host": LAN}).status_code == 200
    assert security.failures_kept() == security.JOIN_FAILURES_KEPT
    clock[0] += security.JOIN_PAUSE_S + 1
    phone = lan_app.test_client()
    phone.environ_base["REMOTE_ADDR"] = "10.200.0.1"
    phone.get("/join?code=WRONG1", headers={"Host": LAN})
    assert security.failures_kept() == 1
    # A paused address is still paused within the minute, and free after it.
    for _ in range(security.JOIN_ATTEMPTS):
        phone.get("/join?code=WRONG1", headers={"Host": LAN})
    r = phone.get("/join?code=ABC234", headers={"Host": LAN, "Accept": "application/json"})
    assert r.status_code == 429
    clock[0] += security.JOIN_PAUSE_S + 1
    assert phone.get("/join?code=ABC234", headers={"Host": LAN}).status_code == 302


def test_origin_is_compared_with_its_scheme(tmp_path: Path) -> None:
    with live(tmp_path / "instance") as (base, _app):
        browser = Browser(base)
        port = base.rsplit(":", 1)[1]
        body = json.dumps({"game": "habitats", "players": [{"id": "ana"}]}).encode()
        answers = {}
        for origin in (f"http://127.0.0.1:{port}", f"https://127.0.0.1:{port}", f"ws://127.0.0.1:{port}",
                       f"HTTP://127.0.0.1:{port}", f"http://[::1]:{port}", "http://[::1", f"//127.0.0.1:{port}"):
            req = urllib.request.Request(base + "/api/plays", data=body, method="POST", headers={
                "Content-Type": "application/json", "X-CSRF-Token": browser.token, "Origin": origin,
                "Accept": "application/json"})
            try:
                with browser.opener.open(req, timeout=30) as r:
                    answers[origin] = r.status
            except urllib.error.HTTPError as exc:
                answers[origin] = exc.code
                exc.close()
    assert answers.pop(f"http://127.0.0.1:{port}") == 201
    assert answers.pop(f"HTTP://127.0.0.1:{port}") == 201  # schemes are case-insensitive
    assert set(answers.values()) == {403}, answers


BIDI = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")


def _outside_isolates(html: str) -> list[str]:
    """Direction controls of the page that are not inside an FSI ... PDI isolate we added."""
    loose, depth = [], 0
    for ch in BIDI.findall(html):
        if ch == security.FSI:
            depth += 1
        elif ch == security.PDI and depth:
            depth -= 1
        elif depth == 0:
            loose.append(ch)
    return loose


def test_direction_controls_in_titles_and_names_are_isolated(tmp_path: Path) -> None:
    instance = tmp_path / "instance"
    new_play(instance)
    with live(instance) as (base, _app):
        browser = Browser(base)
        status, play = browser.post_json("/api/plays", {
            "game": "habitats", "title": "Friday \u202e!won gniyalp\u202c game \u2067x",
            "players": [{"id": "ana", "name": "Ana \u202eREVO\u2066"}, {"id": "bo", "name": "\u200fBo\u061c"}]})
        assert status == 201
        pages = ["/", "/history/", f"/history/{play['id']}", f"/plays/{play['id']}/table", f"/plays/{play['id']}/score"]
        seen = 0
        for path in pages:
            status, raw = browser.open("GET", path)
            html = raw.decode()
            assert status in (200, 409), path
            assert _outside_isolates(html) == [], path
            seen += html.count(security.FSI)
        assert seen >= 3  # the title and names were on the pages, isolated
    assert security.isolate_bidi("plain") == "plain"
    assert security.isolate_bidi(security.isolate_bidi("a\u202eb")) == "\u2068a\u202eb\u2069"


def test_player_text_and_code_text_are_stored_and_sent_isolated(tmp_path: Path) -> None:
    """The JSON the pages build text from carries the isolate too (the name itself holds it)."""
    from .scenes import hostile_scene

    with live(tmp_path / "instance") as (base, _app):
        browser = Browser(base)
        status, play = browser.post_json("/api/plays", {
            "game": "habitats", "title": "\u202eevil title",
            "players": [{"id": "ana", "name": "Ana \u202eREVO"}, {"id": "bo", "name": "Bo"}]})
        assert status == 201
        assert play["title"] == "\u2068\u202eevil title\u2069"
        assert [p["name"] for p in play["players"]] == ["\u2068Ana \u202eREVO\u2069", "Bo"]
        status, export = browser.open("GET", f"/api/plays/{play['id']}/export")
        status, again = browser.post_json("/api/plays/import", json.loads(export))
        assert status == 201 and again["players"][0]["name"] == "\u2068Ana \u202eREVO\u2069"  # never twice
        scene = hostile_scene("habitats", "T010", ["x\u202eevil", "plain"], seed=3)
        boundary = "isolate31"
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"game\"\r\n\r\nhabitats\r\n"
                f"--{boundary}\r\nContent-Disposition: form-data; name=\"image\"; filename=\"s.jpg\"\r\n"
                "Content-Type: image/jpeg\r\n\r\n").encode() + scene.jpeg + f"\r\n--{boundary}--\r\n".encode()
        status, raw = browser.open("POST", "/api/scan", body, f"multipart/form-data; boundary={boundary}")
        assert status == 200
        texts = {f["text"] for f in json.loads(raw)["recognition"]["foreign"]}
        assert "\u2068x\u202eevil\u2069" in texts and "plain" in texts, texts
