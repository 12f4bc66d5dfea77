"""Fixtures of the hardening tests: a fresh app per test and its CSRF token."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.app import create_app


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    yield create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path / "instance")})


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def page_token(client: FlaskClient) -> str:
    """The CSRF token the home page hands this client's browser."""
    page = client.get("/").get_data(as_text=True)
    match = re.search(r'name="csrf-token" content="([^"]+)"', page)
    if match is None:
        raise LookupError("the home page carries no csrf-token meta tag")
    return match.group(1)


@pytest.fixture
def token(client: FlaskClient) -> str:
    return page_token(client)
