"""One error handler: bad input becomes a 4xx JSON answer with a reason, never a 500."""

from __future__ import annotations

import errno
import logging
import sqlite3
from typing import Any

from flask import Flask, Response, current_app, jsonify, render_template, request
from flask.globals import request_ctx
from werkzeug.exceptions import HTTPException

from scoring import ScoringError

log = logging.getLogger(__name__)

#: Path prefixes answered in JSON; pages get an HTML error page with the same status.
JSON_PREFIXES = ("/api/", "/camera/", "/healthz", "/print/", "/samples/")


class AppError(Exception):
    """A refusal the client can act on: HTTP status, stable reason code and a sentence."""

    def __init__(self, status: int, reason: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.reason = reason
        self.message = message
        self.extra = extra


def wants_json() -> bool:
    """API routes, and any client that asked for JSON, get JSON errors."""
    if request.path.startswith(JSON_PREFIXES):
        return True
    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    return best == "application/json"


def error_response(status: int, reason: str, message: str, **extra: Any) -> Response:
    # A request whose Host cannot even be routed has no URLs to build a page with: JSON then.
    if wants_json() or request_ctx.url_adapter is None:
        resp = jsonify({"error": reason, "message": message, "status": status, **extra})
    else:
        html = render_template("error.html", status=status, reason=reason, message=message)
        resp = Response(html, mimetype="text/html")
    resp.status_code = status
    return resp


def _reason_of(exc: HTTPException) -> str:
    name = (exc.name or "error").lower().replace(" ", "_")
    return "".join(ch for ch in name if ch.isalnum() or ch == "_")


def init_app(app: Flask) -> None:
    @app.errorhandler(AppError)
    def _app_error(exc: AppError) -> Response:
        resp = error_response(exc.status, exc.reason, exc.message, **exc.extra)
        if exc.extra.get("retry_after") is not None:
            resp.headers["Retry-After"] = str(int(exc.extra["retry_after"]))
        return resp

    @app.errorhandler(sqlite3.Error)
    def _storage_error(exc: sqlite3.Error) -> Response:
        refusal = storage_refusal(exc)
        if refusal is None:
            log.error("database error on %s %s", request.method, request.path, exc_info=exc)
            return error_response(500, "internal_server_error", "the companion hit an internal error")
        log.warning("storage fault on %s %s: %s", request.method, request.path, exc)
        return _app_error(refusal)

    @app.errorhandler(OSError)
    def _os_error(exc: OSError) -> Response:
        if exc.errno not in _DISK_FAULTS:
            log.error("internal error on %s %s", request.method, request.path, exc_info=exc)
            return error_response(500, "internal_server_error", "the companion hit an internal error")
        log.warning("storage fault on %s %s: %s", request.method, request.path, exc)
        return _app_error(AppError(
            503, "storage_unavailable",
            f"{_DISK_FAULTS[exc.errno]}: the saved games can still be read. Free some space or fix the folder and try again.",
            retry_after=30,
        ))

    @app.errorhandler(ScoringError)
    def _scoring_error(exc: ScoringError) -> Response:
        return error_response(400, "bad_state", str(exc))

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException) -> Response:
        status = exc.code or 500
        message = exc.description or exc.name
        if status >= 500:
            original = getattr(exc, "original_exception", None)
            log.error(
                "internal error on %s %s", request.method, request.path,
                exc_info=(type(original), original, original.__traceback__) if original else None,
            )
            message = "the companion hit an internal error"
        if status == 413:
            limit = int(current_app.config.get("MAX_CONTENT_LENGTH") or 0)
            size = f"{limit / 1048576:g} MiB" if limit >= 1048576 else f"{limit} bytes"
            message = f"upload too large: at most {size}"
        resp = error_response(status, _reason_of(exc), message)
        if status == 405 and hasattr(exc, "valid_methods") and exc.valid_methods:
            resp.headers["Allow"] = ", ".join(exc.valid_methods)
        return resp

    @app.errorhandler(RecursionError)
    def _too_deep(_exc: RecursionError) -> Response:
        return error_response(400, "bad_json", "JSON nested too deeply")


#: SQLite result codes that mean the disk or folder refuses writes (primary codes, low byte).
_STORAGE_FAULTS = {
    sqlite3.SQLITE_FULL: "the disk holding the saved games is full",
    sqlite3.SQLITE_READONLY: "the saved games' folder has become read-only",
    sqlite3.SQLITE_IOERR: "the disk holding the saved games failed to write",
    sqlite3.SQLITE_CANTOPEN: "the saved games' database cannot be opened",
    sqlite3.SQLITE_PERM: "the saved games' folder refuses writes",
    sqlite3.SQLITE_BUSY: "another program holds the saved games' database",
    sqlite3.SQLITE_LOCKED: "another program holds the saved games' database",
}


#: What the operating system says when the instance folder refuses a write.
_DISK_FAULTS = {
    errno.ENOSPC: "the disk holding the saved games is full",
    errno.EDQUOT: "the disk quota of the saved games' folder is used up",
    errno.EROFS: "the saved games' folder has become read-only",
    errno.EFBIG: "the saved games' files cannot grow any more",
    errno.EIO: "the disk holding the saved games failed",
}


def storage_refusal(exc: sqlite3.Error) -> AppError | None:
    """A storage fault as a 503 the players can act on; None for anything else (a bug)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if not isinstance(code, int) or (code & 0xFF) not in _STORAGE_FAULTS:
        return None
    why = _STORAGE_FAULTS[code & 0xFF]
    return AppError(
        503, "storage_unavailable",
        f"{why}: nothing was changed; the saved games can still be read. Free some space or fix the folder and try again.",
        retry_after=30,
    )
