"""Security basics: host check, CSRF and Origin, headers, join code, debug never on the network."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.app import create_app
from companion.app.server import serve
from companion.app.server import JOIN_ALPHABET, JOIN_LENGTH, join_code

from .conftest import csrf_token


def test_headers_on_every_response(client: FlaskClient) -> None:
    for url in ["/", "/healthz", "/api/plays/nope", "/static/app.css"]:
        with client.get(url) as r:
            headers = r.headers
        csp = headers["Content-Security-Policy"]
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp
        assert "unsafe-inline" not in csp
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["X-Frame-Options"] == "DENY"


def test_unknown_host_is_refused(client: FlaskClient) -> None:
    r = client.get("/healthz", headers={"Host": "evil.example"})
    assert r.status_code == 400 and r.get_json()["error"] == "bad_host"
    assert client.get("/healthz", headers={"Host": "127.0.0.1:5000"}).status_code == 200
    assert client.get("/healthz", headers={"Host": "[::1]:5000"}).status_code == 200


def test_state_changes_need_the_csrf_token(client: FlaskClient) -> None:
    body = {"game": "rainforest", "players": [{"id": "ana"}]}
    r = client.post("/api/plays", json=body)
    assert r.status_code == 403 and r.get_json()["error"] == "csrf"
    r = client.post("/api/plays", json=body, headers={"X-CSRF-Token": "forged"})
    assert r.status_code == 403
    token = csrf_token(client)
    assert client.post("/api/plays", json=body, headers={"X-CSRF-Token": token}).status_code == 201
    # Forms carry it as a field; without it a page post is refused as HTML.
    r = client.post("/try/rainforest", headers={"Accept": "text/html"})
    assert r.status_code == 403 and r.mimetype == "text/html"
    assert client.post("/try/rainforest", data={"csrf_token": token}).status_code == 302


def test_other_sites_are_refused(client: FlaskClient) -> None:
    token = csrf_token(client)
    h = {"X-CSRF-Token": token, "Origin": "https://evil.example"}
    r = client.post("/api/plays", json={"game": "rainforest", "players": [{"id": "a"}]}, headers=h)
    assert r.status_code == 403 and r.get_json()["error"] == "bad_origin"
    r = client.post("/api/scan", data={"game": "habitats"}, headers={"Origin": "null"})
    assert r.status_code == 403
    r = client.post("/api/scan", data={"game": "habitats"}, headers={"Sec-Fetch-Site": "cross-site"})
    assert r.status_code == 403
    ok = client.post("/api/scan", data={"game": "habitats"}, headers={"Origin": "http://localhost"})
    assert ok.status_code == 400 and ok.get_json()["error"] == "no_image"  # past the guards


def test_scan_text_is_escaped_in_pages(client: FlaskClient) -> None:
    token = csrf_token(client)
    evil = "<script>alert(1)</script>"
    r = client.post(
        "/api/plays",
        json={"game": "rainforest", "title": evil, "players": [{"id": "ana", "name": evil}]},
        headers={"X-CSRF-Token": token},
    )
    play = r.get_json()["id"]
    for url in [f"/plays/{play}/table", f"/history/{play}", "/history/", "/"]:
        page = client.get(url).get_data(as_text=True)
        assert evil not in page, url
    table = client.get(f"/plays/{play}/table").get_data(as_text=True)
    assert "\\u003cscript\\u003e" in table  # inside the JSON data block, escaped


def test_no_inline_script_or_style_in_templates() -> None:
    """The CSP forbids inline code; a template that needs it would silently break."""
    folder = Path(__file__).resolve().parents[2] / "companion" / "app" / "templates"
    for path in folder.glob("*.html"):
        text = path.read_text("utf-8")
        assert not re.search(r"<script(?![^>]*\bsrc=)(?![^>]*application/json)", text), path.name
        assert " style=" not in text and "<style" not in text, path.name
        assert not re.search(r"<[^>]+\son[a-z]+=", text), path.name


def test_secret_key_is_generated_once_and_kept(tmp_path: Path) -> None:
    a = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path)})
    key_file = tmp_path / "secret_key"
    assert key_file.stat().st_mode & 0o777 == 0o600
    b = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path)})
    assert a.secret_key == b.secret_key and len(str(a.secret_key)) == 64
    other = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path / "other")})
    assert other.secret_key != a.secret_key


def test_upload_limit_is_20_mib(app: Flask) -> None:
    assert app.config["MAX_CONTENT_LENGTH"] == 20 * 1024 * 1024


@pytest.fixture
def lan_app(tmp_path: Path) -> Flask:
    return create_app(
        {
            "TESTING": True,
            "INSTANCE_PATH": str(tmp_path),
            "JOIN_CODE": "ABC234",
            "JOIN_URLS": ["http://192.0.2.7:5000/join?code=ABC234"],
            "ALLOWED_HOSTS": ("localhost", "192.0.2.7"),
            "LAN": True,
        }
    )


PHONE = {"REMOTE_ADDR": "192.0.2.50"}


def test_lan_needs_the_join_code(lan_app: Flask) -> None:
    phone = lan_app.test_client()
    r = phone.get("/", environ_base=PHONE)
    assert r.status_code == 302 and "/join" in r.headers["Location"]
    r = phone.get("/api/plays", environ_base=PHONE)
    assert r.status_code == 401 and r.get_json()["error"] == "join_code"
    assert phone.get("/healthz", environ_base=PHONE).status_code == 200
    assert phone.get("/join/qr.svg", environ_base=PHONE).status_code in (302, 404)
    r = phone.get("/join?code=WRONG1", environ_base=PHONE)
    assert r.status_code == 200 and b"not the one on the host screen" in r.data
    r = phone.get("/join?code=abc-234&next=/history/", environ_base=PHONE)
    assert r.status_code == 302 and r.headers["Location"] == "/history/"
    assert phone.get("/api/plays", environ_base=PHONE).status_code == 200


def test_join_refuses_open_redirects(lan_app: Flask) -> None:
    phone = lan_app.test_client()
    r = phone.get("/join?code=ABC234&next=//evil.example/x", environ_base=PHONE)
    assert r.headers["Location"] == "/"


def test_join_pauses_after_many_wrong_codes(lan_app: Flask) -> None:
    phone = lan_app.test_client()
    env = {"REMOTE_ADDR": "192.0.2.99"}
    for _ in range(10):
        assert phone.get("/join?code=NOPE22", environ_base=env).status_code == 200
    r = phone.get("/join?code=ABC234", environ_base=env)
    assert r.status_code == 429


def test_host_screen_shows_code_and_qr(lan_app: Flask) -> None:
    host = lan_app.test_client()
    page = host.get("/").get_data(as_text=True)
    assert "ABC234" in page and "/join/qr.svg" in page
    svg = host.get("/join/qr.svg")
    assert svg.status_code == 200 and svg.mimetype == "image/svg+xml" and b"<svg" in svg.data
    phone = lan_app.test_client()
    phone.get("/join?code=ABC234", environ_base=PHONE)
    assert "ABC234" not in phone.get("/", environ_base=PHONE).get_data(as_text=True)


def test_join_codes_are_random_and_readable() -> None:
    codes = {join_code() for _ in range(50)}
    assert len(codes) == 50
    assert all(len(c) == JOIN_LENGTH and set(c) <= set(JOIN_ALPHABET) for c in codes)


def test_serve_refuses_debug_on_the_network(capsys: pytest.CaptureFixture[str]) -> None:
    assert serve(host="127.0.0.1", port=5000, lan=True, camera=None, debug=True) == 2
    assert "never listens on the network" in capsys.readouterr().err
    assert serve(host="0.0.0.0", port=5000, lan=False, camera=None, debug=False) == 2
    assert "--lan" in capsys.readouterr().err
    assert serve(host="127.0.0.1", port=0, lan=False, camera=None, debug=False) == 2


def test_serve_refuses_a_missing_camera(capsys: pytest.CaptureFixture[str]) -> None:
    assert serve(host="127.0.0.1", port=5000, lan=False, camera=97, debug=False) == 2
    assert "camera" in capsys.readouterr().err


def test_allowed_hosts_on_the_network_are_this_machines_own() -> None:
    import socket

    from companion.app.server import allowed_hosts, local_addresses

    assert allowed_hosts("127.0.0.1", False) == ("127.0.0.1", "::1", "localhost")
    lan = allowed_hosts("0.0.0.0", True)
    name = socket.gethostname().lower()
    assert {"localhost", name, f"{name}.local", *local_addresses()} <= set(lan)
    assert "0.0.0.0" not in lan and "*" not in lan
