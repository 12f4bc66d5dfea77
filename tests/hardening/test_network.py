"""The network edge: every route enumerated, so a new route is covered the day it is added.

- every state-changing route refuses a request without the CSRF token of the browser, from a
  foreign Origin, or marked cross-site by the browser; only ``POST /api/scan`` (which
  stores nothing) skips the token, never the Origin check;
- every route refuses a Host this companion does not answer to;
- on the network every route but the join page, health check and static files needs
  the join code;
- every response carries the Content-Security-Policy (with frame-ancestors) and nosniff;
- uploads over the limit get 413 before the body is read; debug never listens on the network.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.serving import make_server
from werkzeug.test import TestResponse

from companion.app import create_app
from companion.app.security import OPEN_ENDPOINTS
from companion.cli import main

from .conftest import page_token

UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}
#: Routes that take no CSRF token because they store nothing (the Origin is still checked).
STATELESS = {"api.scan", "hints.stateless_hints"}
EVIL = "https://evil.example"


def routes(app: Flask) -> list[tuple[str, str, str]]:
    """(endpoint, method, rule) for every route and method of the app."""
    out = []
    for rule in app.url_map.iter_rules():
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            out.append((rule.endpoint, method, rule.rule))
    return sorted(out)


def url_for_rule(app: Flask, endpoint: str, play_id: str) -> str:
    rule = next(r for r in app.url_map.iter_rules() if r.endpoint == endpoint)
    values: dict[str, Any] = {}
    for arg in rule.arguments:
        if arg == "play_id":
            values[arg] = play_id
        elif arg == "game_id":
            values[arg] = "nogame" if endpoint == "prints.pdf" else "habitats"
        elif arg == "filename":
            values[arg] = "app.css"
        else:
            values[arg] = 1
    with app.test_request_context():
        from flask import url_for

        return url_for(endpoint, **values)


def call(client: FlaskClient, method: str, url: str, **kw: Any) -> TestResponse:
    """One request, its body read and the response closed (static files hold a file open).

    An event stream's body lasts minutes by design: its headers are what is checked.
    """
    r = client.open(url, method=method, **kw)
    if r.mimetype != "text/event-stream":
        r.get_data()
    r.close()
    return r


def assert_guarded_headers(r: TestResponse, where: str) -> None:
    csp = r.headers.get("Content-Security-Policy", "")
    assert "frame-ancestors 'none'" in csp and "default-src 'self'" in csp, where
    assert r.headers.get("X-Content-Type-Options") == "nosniff", where


@pytest.fixture
def play(client: FlaskClient, token: str) -> str:
    r = client.post("/api/plays", json={"game": "rainforest", "players": [{"id": "ana"}, {"id": "ben"}]},
                    headers={"X-CSRF-Token": token})
    assert r.status_code == 201
    return r.get_json()["id"]


def test_the_route_list_is_complete(app: Flask) -> None:
    found = {(e, m) for e, m, _ in routes(app)}
    for needed in [("api.accept_move", "POST"), ("api.delete_play", "DELETE"), ("api.scan", "POST"),
                   ("history.delete", "POST"), ("pages.new_game", "POST"), ("api.undo", "POST")]:
        assert needed in found
    assert sum(m in UNSAFE for _, m in found) >= 10


def test_every_state_changing_route_needs_the_token_and_our_origin(
    app: Flask, client: FlaskClient, token: str, play: str
) -> None:
    failures = []
    for endpoint, method, _rule in routes(app):
        if method not in UNSAFE:
            continue
        url = url_for_rule(app, endpoint, play)
        if endpoint not in STATELESS:
            for headers in ({}, {"X-CSRF-Token": "forged-" + token[:10]}, {"X-CSRF-Token": ""}):
                r = call(client, method, url, headers=headers, data={"csrf_token": "wrong"})
                body = r.get_json(silent=True) or {}
                if r.status_code != 403 or (r.is_json and body.get("error") != "csrf"):
                    failures.append(f"{method} {url} {headers}: {r.status_code}")
                assert_guarded_headers(r, url)
        for headers in (
            {"X-CSRF-Token": token, "Origin": EVIL},
            {"X-CSRF-Token": token, "Origin": "null"},
            {"X-CSRF-Token": token, "Origin": "http://localhost.evil.example"},
            {"X-CSRF-Token": token, "Sec-Fetch-Site": "cross-site"},
        ):
            r = call(client, method, url, headers=headers)
            if r.status_code != 403:
                failures.append(f"{method} {url} {headers}: {r.status_code}")
            assert_guarded_headers(r, url)
    assert failures == []
    # Nothing above changed the stored game, and the token-free scan stores nothing.
    r = call(client, "POST", "/api/scan", data={"game": "habitats"})
    assert r.status_code == 400 and r.get_json()["error"] == "no_image"
    assert len(client.get("/api/plays").get_json()["plays"]) == 1
    assert client.get(f"/api/plays/{play}").status_code == 200
    assert client.get(f"/api/plays/{play}/states").get_json()["states"] == []


def test_the_token_is_tied_to_the_browser(app: Flask, play: str) -> None:
    """A token from one browser is worthless in another."""
    alice, mallory = app.test_client(), app.test_client()
    stolen = page_token(alice)
    page_token(mallory)
    r = mallory.post(f"/api/plays/{play}/undo", headers={"X-CSRF-Token": stolen})
    assert r.status_code == 403 and r.get_json()["error"] == "csrf"


def test_every_route_refuses_a_bad_host(app: Flask, client: FlaskClient, token: str, play: str) -> None:
    for endpoint, method, _rule in routes(app):
        url = url_for_rule(app, endpoint, play)
        for host in ("evil.example", "localhost.evil.example", "127.0.0.1.nip.io", "[::2]:5000", ""):
            r = call(client, method, url, headers={"Host": host, "X-CSRF-Token": token})
            assert r.status_code == 400, (method, url, host, r.status_code)
            assert_guarded_headers(r, url)


def test_every_response_carries_the_security_headers(app: Flask, client: FlaskClient, play: str) -> None:
    for endpoint, method, _rule in routes(app):
        if method != "GET":
            continue
        r = call(client, "GET", url_for_rule(app, endpoint, play))
        assert r.status_code < 500, endpoint
        assert_guarded_headers(r, endpoint)
    for url in ("/no/such/page", "/api/nothing"):
        assert_guarded_headers(call(client, "GET", url), url)
    assert_guarded_headers(call(client, "PUT", "/api/plays"), "405")


def test_an_internal_error_is_a_500_page_with_headers(tmp_path: Path) -> None:
    app = create_app({"INSTANCE_PATH": str(tmp_path)})

    def boom() -> str:
        raise RuntimeError("a bug")

    app.add_url_rule("/api/boom", "boom", boom)
    r = app.test_client().get("/api/boom")
    assert r.status_code == 500 and r.get_json()["error"] == "internal_server_error"
    assert "a bug" not in r.get_data(as_text=True)
    assert_guarded_headers(r, "500")


@pytest.fixture
def lan_app(tmp_path: Path) -> Flask:
    return create_app({
        "TESTING": True, "INSTANCE_PATH": str(tmp_path), "JOIN_CODE": "ABC234", "LAN": True,
        "ALLOWED_HOSTS": ("localhost", "127.0.0.1", "192.0.2.7"),
    })


def test_on_the_network_every_route_needs_the_join_code(lan_app: Flask) -> None:
    host = lan_app.test_client()
    token = page_token(host)
    r = host.post("/api/plays", json={"game": "rainforest", "players": [{"id": "ana"}]},
                  headers={"X-CSRF-Token": token})
    play = r.get_json()["id"]
    phone = lan_app.test_client()
    env = {"REMOTE_ADDR": "192.0.2.50"}
    checked = 0
    for endpoint, method, _rule in routes(lan_app):
        url = url_for_rule(lan_app, endpoint, play)
        r = call(phone, method, url, environ_base=env, headers={"Host": "192.0.2.7:5000"})
        if endpoint in OPEN_ENDPOINTS:
            continue
        checked += 1
        if method in UNSAFE or url.startswith(("/api/", "/camera/", "/print/", "/samples/")):
            assert r.status_code == 401, (method, url, r.status_code)
            if r.is_json:
                assert r.get_json()["error"] == "join_code"
            else:
                assert "join code" in r.get_data(as_text=True)
        else:
            assert r.status_code == 302 and "/join" in r.headers["Location"], (method, url, r.status_code)
        assert_guarded_headers(r, url)
    assert checked >= 25
    assert host.get(f"/api/plays/{play}/states").get_json()["states"] == []


def test_debug_never_listens_on_the_network(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--lan", "--debug", "--port", "5999"]) == 2
    assert "never listens on the network" in capsys.readouterr().err
    assert main(["serve", "--host", "0.0.0.0", "--debug", "--port", "5999"]) == 2
    assert main(["serve", "--host", "0.0.0.0", "--port", "5999"]) == 2  # the network needs --lan
    assert "--lan" in capsys.readouterr().err


class CountingStream:
    """A request body that counts what the app reads of it."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.read_bytes = 0
        self.pos = 0

    def tell(self) -> int:
        return self.pos

    def seek(self, offset: int, whence: int = 0) -> int:
        self.pos = self.size if whence == 2 else offset
        return self.pos

    def read(self, n: int = -1) -> bytes:
        n = self.size - self.read_bytes if n is None or n < 0 else min(n, self.size - self.read_bytes)
        self.read_bytes += n
        return b"x" * n

    def readline(self, n: int = -1) -> bytes:
        return self.read(min(n, 80) if n and n > 0 else 80)


@pytest.mark.parametrize("url", ["/api/scan", "/api/plays/PLAY/frames", "/api/plays", "/new"])
def test_oversized_bodies_get_413_unread(app: Flask, client: FlaskClient, token: str, play: str, url: str) -> None:
    size = app.config["MAX_CONTENT_LENGTH"] + 1
    assert app.config["MAX_CONTENT_LENGTH"] <= 20 * 1024 * 1024
    body = CountingStream(size)
    r = client.post(
        url.replace("PLAY", play), input_stream=body,
        headers={"Content-Length": str(size), "Content-Type": "multipart/form-data; boundary=x",
                 "X-CSRF-Token": token},
    )
    assert r.status_code == 413, r.status_code
    assert body.read_bytes == 0
    assert_guarded_headers(r, url)


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[str, int]]:
    app = create_app({"INSTANCE_PATH": str(tmp_path / "instance")})
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield "127.0.0.1", srv.server_port
    finally:
        srv.shutdown()
        thread.join(timeout=5)


def test_a_real_server_answers_413_without_waiting_for_the_body(live: tuple[str, int]) -> None:
    """Only the headers of a 100 MiB upload are sent: the answer comes at once."""
    host, port = live
    with socket.create_connection((host, port), timeout=10) as s:
        s.sendall(
            b"POST /api/scan HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: multipart/form-data; boundary=x\r\n"
            b"Content-Length: 104857600\r\n\r\n--x\r\n"
        )
        start = time.monotonic()
        reply = s.recv(4096)
        assert time.monotonic() - start < 5
    assert reply.startswith(b"HTTP/1.1 413"), reply[:80]
    assert b"nosniff" in reply


def test_the_upload_limit_is_configurable(tmp_path: Path) -> None:
    app = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path), "MAX_CONTENT_LENGTH": 1024 * 1024})
    client = app.test_client()
    body = CountingStream(1024 * 1024 + 1)
    r = client.post("/api/scan", input_stream=body,
                    headers={"Content-Length": str(body.size), "Content-Type": "multipart/form-data; boundary=x"})
    assert r.status_code == 413 and body.read_bytes == 0
    assert r.get_json() == {"error": "request_entity_too_large", "message": "upload too large: at most 1 MiB",
                            "status": 413}
    small = client.post("/api/scan", data={"game": "habitats"})
    assert small.status_code == 400 and small.get_json()["error"] == "no_image"


def test_a_chunked_body_without_length_is_cut_at_the_limit(live: tuple[str, int]) -> None:
    """No declared length to refuse early: the server reads up to the limit, then answers 413."""
    host, port = live
    chunk = b"x" * (1024 * 1024)
    with socket.create_connection((host, port), timeout=30) as s:
        s.sendall(b"POST /api/scan HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n"
                  b"Content-Type: multipart/form-data; boundary=x\r\n\r\n")
        try:
            for _ in range(22):
                s.sendall(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
            s.sendall(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server may stop reading once it has answered
        reply = s.recv(4096)
    assert reply.startswith(b"HTTP/1.1 413"), reply[:80]
