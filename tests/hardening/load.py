"""Several browsers at once against a real threaded server: frames posted, moves saved.

Each client is its own cookie jar (its own cookie and CSRF token) talking HTTP to a
``werkzeug`` server on a free local port, exactly as phones on the table would.
"""

from __future__ import annotations

import hashlib
import http.cookiejar
import json
import logging
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from werkzeug.serving import make_server

from companion.app import create_app

from .crash import digest, states


@contextmanager
def live_server(instance: Path) -> Iterator[str]:
    app = create_app({"INSTANCE_PATH": str(instance)})
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{srv.server_port}"
    finally:
        srv.shutdown()
        thread.join(timeout=10)


class Browser:
    """One client with its own cookie and CSRF token."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        page = self.open("GET", "/")[1].decode()
        self.token = page.split('name="csrf-token" content="', 1)[1].split('"', 1)[0]

    def open(self, method: str, path: str, body: bytes | None = None, ctype: str | None = None) -> tuple[int, bytes]:
        req = urllib.request.Request(self.base + path, data=body, method=method)
        if ctype:
            req.add_header("Content-Type", ctype)
        if method != "GET":
            req.add_header("X-CSRF-Token", getattr(self, "token", ""))
        req.add_header("Accept", "application/json")
        try:
            with self.opener.open(req, timeout=60) as resp:
                return resp.status, resp.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()

    def post_json(self, path: str, doc: Any) -> tuple[int, Any]:
        status, raw = self.open("POST", path, json.dumps(doc).encode(), "application/json")
        return status, json.loads(raw or b"null")

    def post_image(self, path: str, image: bytes) -> tuple[int, Any]:
        boundary = "hardening" + hashlib.sha1(image[:64]).hexdigest()[:8]
        body = (
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"image\"; filename=\"f.jpg\"\r\n"
            f"Content-Type: image/jpeg\r\n\r\n"
        ).encode() + image + f"\r\n--{boundary}--\r\n".encode()
        status, raw = self.open("POST", path, body, f"multipart/form-data; boundary={boundary}")
        return status, json.loads(raw or b"null")


@dataclass
class LoadReport:
    """Every answer the clients got, and the moves the server acknowledged."""

    frames: int = 0
    saves: dict[int, str] = field(default_factory=dict)
    stale: int = 0
    bad: list[str] = field(default_factory=list)
    lock = threading.Lock()


def run_clients(base: str, play: str, image: bytes, *, clients: int, seconds: float) -> LoadReport:
    """``clients`` browsers, each posting frames and, between frames, trying to save a move."""
    report = LoadReport()
    moves = states()
    deadline = time.monotonic() + seconds

    def client(k: int) -> None:
        browser = Browser(base)
        n = 0
        while time.monotonic() < deadline:
            n += 1
            status, body = browser.post_image(f"/api/plays/{play}/frames", image)
            with report.lock:
                report.frames += 1
                if status != 200:
                    report.bad.append(f"frame {status} {str(body)[:100]}")
            status, current = browser.open("GET", f"/api/plays/{play}")
            doc = json.loads(current)
            seq = doc["current"]["seq"] if doc["current"] else 0
            status, body = browser.post_json(
                f"/api/plays/{play}/moves",
                {"state": moves[seq % len(moves)], "based_on": seq, "accept_violations": True},
            )
            with report.lock:
                if status == 201:
                    report.saves[body["accepted"]["seq"]] = digest(body["accepted"]["state"])
                elif status == 409 and body.get("error") == "stale":
                    report.stale += 1
                else:
                    report.bad.append(f"save {status} {str(body)[:100]}")
                if "locked" in json.dumps(body):
                    report.bad.append(f"lock reached a user: {str(body)[:100]}")

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return report
