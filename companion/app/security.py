"""Request guards: Host check, join code on the network, CSRF and Origin, response headers."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
import time
import unicodedata
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import urlsplit

from flask import Flask, Response, current_app, redirect, request, session, url_for
from markupsafe import Markup
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
#: Addresses remembered for their failed joins at most (the oldest are forgotten first).
JOIN_FAILURES_KEPT = 1024
#: How long a phone stays joined: an evening's games, not a month.
JOIN_LIFETIME_S = 12 * 3600

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


def same_secret(sent: object, kept: object) -> bool:
    """Constant-time comparison of two texts as UTF-8 bytes: any character, never an exception."""
    if not isinstance(sent, str) or not isinstance(kept, str):
        return False
    return hmac.compare_digest(
        sent.encode("utf-8", "surrogatepass"), kept.encode("utf-8", "surrogatepass")
    )


def check_origin() -> None:
    """Browsers say where a request comes from; refuse other sites' pages (scheme included)."""
    origin = request.headers.get("Origin")
    if origin is not None:
        try:
            parts = urlsplit(origin)
        except ValueError:  # e.g. an unbalanced "[" in the host part
            parts = None
        if (
            origin == "null"
            or parts is None
            or parts.scheme.lower() != request.scheme
            or parts.netloc.lower() != request.host.lower()
        ):
            raise AppError(403, "bad_origin", "request from another site refused")
    elif request.headers.get("Sec-Fetch-Site") == "cross-site":
        raise AppError(403, "bad_origin", "request from another site refused")


def check_csrf() -> None:
    sent = request.headers.get(CSRF_HEADER) or request.form.get(CSRF_FIELD)
    token = session.get(CSRF_FIELD)
    if not sent or not same_secret(sent, token):
        raise AppError(
            403, "csrf", "missing or stale form token: reload the page and try again"
        )


def _join_tag(code: str) -> str:
    """Which join code a session was let in by, without the code: a keyed hash of it.

    A new ``companion serve`` makes a new code, so the phones joined to the last one
    are asked again; the signed (readable) cookie never carries the code itself.
    """
    key = str(current_app.config.get("SECRET_KEY") or "").encode("utf-8", "surrogatepass")
    return hmac.new(key, b"join:" + code.encode("ascii", "replace"), hashlib.sha256).hexdigest()[:32]


def has_joined() -> bool:
    code = current_app.config.get("JOIN_CODE")
    if not code or is_loopback(request.remote_addr):
        return True
    joined = session.get("joined")
    until = session.get("joined_until")
    if joined is not True or not isinstance(until, (int, float)) or isinstance(until, bool):
        return False
    return time.time() < until and same_secret(session.get("join_tag"), _join_tag(code))


def _prune_failures(now: float) -> None:
    """Forget pauses that are over, and the oldest entries beyond what is kept."""
    for who in [w for w, (_, since) in _failures.items() if now - since >= JOIN_PAUSE_S]:
        del _failures[who]
    while len(_failures) > JOIN_FAILURES_KEPT:
        del _failures[min(_failures, key=lambda w: _failures[w][1])]


def clean_code(code: str) -> str:
    """What a player typed, as a code: ASCII letters and digits, upper case (any other text is no code)."""
    text = unicodedata.normalize("NFKC", code)
    return "".join(ch for ch in text if ch.isascii() and ch.isalnum()).upper()


def try_join(code: str) -> bool:
    """Check a join code, pausing an address after repeated failures."""
    expected = current_app.config.get("JOIN_CODE")
    who = request.remote_addr or "?"
    now = time.monotonic()
    count, since = _failures.get(who, (0, 0.0))
    if count >= JOIN_ATTEMPTS and now - since < JOIN_PAUSE_S:
        raise AppError(429, "too_many_attempts", "too many wrong codes: wait a minute")
    if expected and same_secret(clean_code(code), expected):
        _failures.pop(who, None)
        session["joined"] = True
        session["joined_until"] = int(time.time() + JOIN_LIFETIME_S)
        session["join_tag"] = _join_tag(expected)
        session.permanent = True
        return True
    _failures[who] = (count + 1 if now - since < JOIN_PAUSE_S else 1, now)
    _prune_failures(now)
    return False


def failures_kept() -> int:
    """How many addresses the failed-join table holds now (for the checks of its pruning)."""
    return len(_failures)


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


#: Characters that change the direction of the text after them (embeddings, overrides, isolates, marks).
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
FSI, PDI = "\u2068", "\u2069"


def isolate_bidi(value: Any) -> Any:
    """Text carrying direction controls, wrapped in one first-strong isolate (FSI ... PDI).

    The plain-text form of ``<bdi>``: whatever overrides a player name or a code holds end
    at its closing PDI, so they never turn the page's text around them. Used as Jinja's
    ``finalize``: every printed value passes here, markup (already HTML) untouched.
    """
    if not isinstance(value, str) or isinstance(value, Markup) or not BIDI_CONTROLS.intersection(value):
        return value
    while value.startswith(FSI) and value.endswith(PDI) and len(value) >= 2:
        value = value[1:-1]
    return FSI + value + PDI


def init_app(app: Flask) -> None:
    app.before_request(_guard)
    app.after_request(_headers)
    app.jinja_env.globals["csrf_token"] = csrf_token
    app.jinja_env.finalize = isolate_bidi
