"""Request guards: Host check, join code on the network, CSRF and Origin, response headers."""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import time
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import urlsplit

from flask import Flask, Response, current_app, redirect, request, session, url_for
from werkzeug.exceptions import RequestEntityTooLarge

from .errors import AppError, wants_json

F = TypeVar("F", bound=Callable[..., Any])

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"
#: Reachable without the join code: the join page itself, health checks and static files.
OPEN_ENDPOINTS = frozenset({"pages.join", "api.healthz", "static"})
#: Failed join attempts allowed per client address before a pause.
JOIN_ATTEMPTS = 10
JOIN_PAUSE_S = 60.0

CSP = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data: blob:",
        "media-src 'self' blob: mediastream:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)

_exempt: set[str] = set()
_failures: dict[str, tuple[int, float]] = {}


def csrf_exempt(view: F) -> F:
    """For routes that change nothing stored (``POST /api/scan``); Origin is still checked."""
    _exempt.add(f"{view.__module__}.{view.__name__}")
    return view


def csrf_token() -> str:
    """The session's token, created on first use; forms and fetch calls send it back."""
    token = session.get(CSRF_FIELD)
    if not isinstance(token, str):
        token = secrets.token_urlsafe(32)
        session[CSRF_FIELD] = token
    return token


def is_loopback(address: str | None) -> bool:
    if not address:
        return False
    try:
        return ipaddress.ip_address(address.split("%", 1)[0]).is_loopback
    except ValueError:
        return address == "localhost"


def _host_name(host: str) -> str:
    """``example:5000`` -> ``example``; ``[::1]:5000`` -> ``::1``."""
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    if host.count(":") == 1:
        return host.split(":", 1)[0]
    return host


def check_host() -> None:
    allowed = current_app.config["ALLOWED_HOSTS"]
    name = _host_name(request.host).lower()
    if "*" not in allowed and name not in allowed:
        raise AppError(400, "bad_host", f"this companion does not answer to host {name!r}")


def check_origin() -> None:
    """Browsers say where a request comes from; refuse other sites' pages."""
    origin = request.headers.get("Origin")
    if origin is not None:
        parts = urlsplit(origin)
        if origin == "null" or parts.netloc.lower() != request.host.lower():
            raise AppError(403, "bad_origin", "request from another site refused")
    elif request.headers.get("Sec-Fetch-Site") == "cross-site":
        raise AppError(403, "bad_origin", "request from another site refused")


def check_csrf() -> None:
    sent = request.headers.get(CSRF_HEADER) or request.form.get(CSRF_FIELD)
    token = session.get(CSRF_FIELD)
    if not sent or not isinstance(token, str) or not hmac.compare_digest(sent, token):
        raise AppError(
            403, "csrf", "missing or stale form token: reload the page and try again"
        )


def has_joined() -> bool:
    code = current_app.config.get("JOIN_CODE")
    if not code or is_loopback(request.remote_addr):
        return True
    joined = session.get("joined")
    return isinstance(joined, str) and hmac.compare_digest(joined, code)


def try_join(code: str) -> bool:
    """Check a join code, pausing an address after repeated failures."""
    expected = current_app.config.get("JOIN_CODE")
    who = request.remote_addr or "?"
    count, since = _failures.get(who, (0, 0.0))
    now = time.monotonic()
    if count >= JOIN_ATTEMPTS and now - since < JOIN_PAUSE_S:
        raise AppError(429, "too_many_attempts", "too many wrong codes: wait a minute")
    cleaned = "".join(ch for ch in code if ch.isalnum()).upper()
    if expected and hmac.compare_digest(cleaned, expected):
        _failures.pop(who, None)
        session["joined"] = expected
        session.permanent = True
        return True
    _failures[who] = (count + 1 if now - since < JOIN_PAUSE_S else 1, now)
    return False


def check_size() -> None:
    """Refuse a body declared over the upload limit before any of it is read, on every route."""
    limit = current_app.config.get("MAX_CONTENT_LENGTH")
    if limit is not None and (request.content_length or 0) > limit:
        raise RequestEntityTooLarge()


def _guard() -> Response | None:
    check_host()
    check_size()
    endpoint = request.endpoint or ""
    if not has_joined() and endpoint not in OPEN_ENDPOINTS:
        if wants_json() or request.method in UNSAFE_METHODS:
            raise AppError(401, "join_code", "enter the join code shown on the host screen")
        return redirect(url_for("pages.join", next=request.full_path.rstrip("?")))
    if request.method in UNSAFE_METHODS:
        check_origin()
        view = current_app.view_functions.get(endpoint)
        name = f"{view.__module__}.{view.__name__}" if view else ""
        if name not in _exempt:
            check_csrf()
    return None


def _headers(resp: Response) -> Response:
    resp.headers.setdefault("Content-Security-Policy", CSP)
    resp.headers["X-Content-Type-Options"] = "nosniff"
    resp.headers["X-Frame-Options"] = "DENY"
    resp.headers["Referrer-Policy"] = "same-origin"
    resp.headers["Cross-Origin-Opener-Policy"] = "same-origin"
    resp.headers["Permissions-Policy"] = "camera=(self), microphone=(), geolocation=()"
    if resp.mimetype in ("text/html", "application/json"):
        resp.headers.setdefault("Cache-Control", "no-store")
    return resp


def init_app(app: Flask) -> None:
    app.before_request(_guard)
    app.after_request(_headers)
    app.jinja_env.globals["csrf_token"] = csrf_token
