"""The SQLite store: WAL journal, numbered migrations, plays surviving a restart."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

from companion.app import create_app
from companion.app.db import connect, migrate, migrations

from .conftest import csrf_token


def test_migrations_are_numbered_from_one() -> None:
    numbers = [n for n, _ in migrations()]
    assert numbers == list(range(1, len(numbers) + 1))


def test_database_is_wal_and_migrated(tmp_path: Path) -> None:
    create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path)})
    conn = sqlite3.connect(tmp_path / "companion.sqlite")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(migrations())
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"play", "snapshot"} <= tables
    conn.close()


def test_migrate_is_idempotent(tmp_path: Path) -> None:
    conn = connect(str(tmp_path / "x.sqlite"))
    assert migrate(conn) == len(migrations())
    assert migrate(conn) == len(migrations())
    conn.close()


def test_two_companions_starting_at_once_migrate_once(tmp_path: Path, monkeypatch: Any) -> None:
    """Both read version 0 before either migrates: the second must not create the tables again."""
    from companion.app import db

    real = db.migrations
    both_read = threading.Barrier(2, timeout=10)

    def after_reading_the_version() -> list[tuple[int, str]]:
        both_read.wait()
        return real()

    monkeypatch.setattr(db, "migrations", after_reading_the_version)
    path = str(tmp_path / "x.sqlite")
    connect(path).execute("PRAGMA journal_mode = WAL").fetchone()
    results: list[Any] = []

    def start() -> None:
        conn = connect(path)
        try:
            results.append(migrate(conn))
        except sqlite3.Error as exc:  # "table play already exists" before the fix
            results.append(exc)
        finally:
            conn.close()

    threads = [threading.Thread(target=start) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert results == [len(real()), len(real())]


def test_plays_survive_a_restart(tmp_path: Path) -> None:
    first = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path)})
    client = first.test_client()
    token = csrf_token(client)
    r = client.post(
        "/api/plays",
        json={"game": "biomos", "title": "Kept", "players": [{"id": "red", "name": "Ria"}]},
        headers={"X-CSRF-Token": token},
    )
    play = r.get_json()["id"]
    again = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path)}).test_client()
    plays = again.get("/api/plays").get_json()["plays"]
    assert [(p["id"], p["title"], p["players"][0]["name"]) for p in plays] == [(play, "Kept", "Ria")]


def test_deleting_a_play_deletes_its_states(tmp_path: Path) -> None:
    conn = connect(str(tmp_path / "x.sqlite"))
    migrate(conn)
    conn.execute("INSERT INTO play (id, game, title, players, options, created_at) VALUES ('p', 'biomos', 't', '[]', '{}', 'now')")
    conn.execute(
        "INSERT INTO snapshot (play_id, seq, state, source, created_at) VALUES ('p', 1, '{}', 'manual', 'now')"
    )
    conn.execute("DELETE FROM play WHERE id = 'p'")
    assert conn.execute("SELECT COUNT(*) FROM snapshot").fetchone()[0] == 0
    conn.close()
