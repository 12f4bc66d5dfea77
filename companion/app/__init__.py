"""The companion's web app: live table, score sheets, printables and history in a browser.

``create_app`` builds the Flask app (blueprints per concern, SQLite store and secret key
in the instance folder, the user's data folder by default); ``server.serve`` runs it for
``companion serve``. No game rules live here: every decision is asked of ``scoring``,
``vision`` and ``printables``.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask

from . import db, errors, instance as instances, scanslots, security
__all__ = ["create_app"]

#: Uploads above this are refused with 413 before any decoding (a 1080p JPEG is ~1 MiB).
MAX_UPLOAD_BYTES = 20 * 1024 * 1024


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """The application factory: configuration, instance folder, store, blueprints.

    The instance folder (database, secret key) is the config's ``INSTANCE_PATH``, else the
    environment's ``COMPANION_INSTANCE``, else the user's data folder, where a folder left
    in Flask's old default places is moved once (``INSTANCE_MOVED`` says from where).
    """
    moved = None
    instance = (test_config or {}).get("INSTANCE_PATH")
    if not instance:
        folder, chosen = instances.chosen_folder()
        moved = None if chosen else instances.move_old(folder)
        instance = folder
    app = Flask(__name__, instance_relative_config=True, instance_path=str(Path(instance).absolute()))
    app.config.from_mapping(
        DATABASE=str(Path(app.instance_path) / "companion.sqlite"),
        MAX_CONTENT_LENGTH=MAX_UPLOAD_BYTES,
        MAX_FORM_MEMORY_SIZE=MAX_UPLOAD_BYTES,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        PERMANENT_SESSION_LIFETIME=security.JOIN_LIFETIME_S,
        INSTANCE_MOVED=moved,
        ALLOWED_HOSTS=("localhost", "127.0.0.1", "::1"),
        JOIN_CODE=None,
        LAN=False,
        HOST_CAMERA=None,
        JSON_SORT_KEYS=False,
    )
    if test_config is not None:
        app.config.from_mapping(test_config)
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _secret_key(Path(app.instance_path) / "secret_key")
    app.json.sort_keys = False  # type: ignore[attr-defined]

    db.init_app(app)
    scanslots.init_app(app)
    from .store import local_time

    app.add_template_filter(local_time, "local_time")
    app.add_template_filter(lambda cid, names: names.get(cid, cid), "component_name")
    security.init_app(app)
    errors.init_app(app)

    from . import api, camera, history, pages, prints
    from . import hints as hints_api

    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(history.bp)
    app.register_blueprint(prints.bp)
    app.register_blueprint(camera.bp)
    app.register_blueprint(hints_api.bp)
    camera.init_app(app)
    return app


def _secret_key(path: Path) -> str:
    """Generated once and kept in the instance folder, so sessions survive a restart."""
    try:
        key = path.read_text("ascii").strip()
        if len(key) >= 32:
            return key
    except FileNotFoundError:
        pass
    key = secrets.token_hex(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as fh:
        fh.write(key + "\n")
    return key
