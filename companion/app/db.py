"""The SQLite store: one connection per request, WAL journal, migrations by user_version."""

from __future__ import annotations

import re
import sqlite3
from importlib import resources

from flask import Flask, current_app, g

_SECTION = re.compile(r"^-- migration: (\d+)\s*$", re.MULTILINE)


def migrations() -> list[tuple[int, str]]:
    """The numbered sections of schema.sql, in order (a gap or repeat is a packaging bug)."""
    text = resources.files("companion.app").joinpath("schema.sql").read_text("utf-8")
    parts = _SECTION.split(text)
    found = [(int(parts[i]), parts[i + 1]) for i in range(1, len(parts), 2)]
    numbers = [n for n, _ in found]
    if numbers != list(range(1, len(numbers) + 1)):
        raise RuntimeError(f"schema.sql migrations must be numbered 1..n, got {numbers}")
    return found


def connect(path: str) -> sqlite3.Connection:
    """A connection with foreign keys on and rows addressable by column name."""
    conn = sqlite3.connect(path, timeout=10, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA busy_timeout = 10000")
    return conn


def migrate(conn: sqlite3.Connection) -> int:
    """Bring the schema up to date; returns the resulting user_version."""
    conn.execute("PRAGMA journal_mode = WAL")
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    for number, sql in migrations():
        if number <= version:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Read again under the write lock: another companion starting on the same folder
            # may have applied this migration while this one waited for the lock.
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if number <= version:
                conn.execute("COMMIT")
                continue
            for statement in _statements(sql):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {number:d}")
            conn.execute("COMMIT")
        except sqlite3.Error:
            conn.execute("ROLLBACK")
            raise
        version = number
    return version


def _statements(sql: str) -> list[str]:
    """Split a migration into statements (the schema has no semicolons inside literals)."""
    lines = [line.split("--", 1)[0] for line in sql.splitlines()]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


def get_db() -> sqlite3.Connection:
    """This request's connection, opened on first use."""
    if "db" not in g:
        g.db = connect(current_app.config["DATABASE"])
    return g.db


def close_db(_exc: BaseException | None = None) -> None:
    conn = g.pop("db", None)
    if conn is not None:
        conn.close()


def init_app(app: Flask) -> None:
    """Migrate once at start-up and close each request's connection afterwards."""
    conn = connect(app.config["DATABASE"])
    try:
        migrate(conn)
    finally:
        conn.close()
    app.teardown_appcontext(close_db)
