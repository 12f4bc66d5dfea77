"""Saved-game imports: a malformed one is refused whole, and nothing already saved changes.

A good export imports as a new game with the same timeline and score sheet. Each damaged
export (the last state broken, a gap in the timeline, another game's state, wrong types...)
answers 400 naming the bad entry, adds no game and no state, and leaves the existing
game's export byte for byte as it was. A database failure half-way through the write
leaves nothing behind either: the import is one transaction.
"""

from __future__ import annotations

import copy
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.app import create_app
from scoring.catalog import read_data

from .conftest import page_token

GAME = "habitats"


def saved_game(client: FlaskClient, token: str) -> str:
    headers = {"X-CSRF-Token": token}
    players = client.get(f"/api/games/{GAME}").get_json()["players"]
    play = client.post("/api/plays", json={"game": GAME, "title": "Sunday", "players": players},
                       headers=headers).get_json()["id"]
    for name in ("example_before.json", "example_after.json", "example.json"):
        r = client.post(f"/api/plays/{play}/moves", headers=headers,
                        json={"state": read_data(GAME, name), "accept_violations": True})
        assert r.status_code == 201, r.get_json()
    return play


def counts(app: Flask) -> tuple[int, int]:
    conn = sqlite3.connect(app.config["DATABASE"])
    try:
        return (conn.execute("SELECT COUNT(*) FROM play").fetchone()[0],
                conn.execute("SELECT COUNT(*) FROM snapshot").fetchone()[0])
    finally:
        conn.close()


def _set(path: list[Any], value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        target = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return edit


def _drop_state(i: int) -> Callable[[dict[str, Any]], None]:
    return lambda doc: doc["states"].pop(i)


def _other_game_state(doc: dict[str, Any]) -> None:
    doc["states"][2]["state"] = read_data("rainforest", "example_before.json")


BROKEN: dict[str, Callable[[dict[str, Any]], None]] = {
    "wrong-format": _set(["format"], "something-else"),
    "future-version": _set(["version"], 2),
    "no-play": lambda doc: doc.pop("play"),
    "unknown-game": _set(["play", "game"], "chess"),
    "players-not-a-list": _set(["play", "players"], "everyone"),
    "player-markup-id": _set(["play", "players", 0, "id"], "<script>"),
    "unknown-option": _set(["play", "options"], {"turbo": True}),
    "title-not-text": _set(["play", "title"], {"$gt": ""}),
    "final-sheet-a-list": _set(["play", "final_sheet"], [1, 2]),
    "states-not-a-list": _set(["states"], {"1": {}}),
    "gap-in-timeline": _drop_state(1),
    "seq-repeated": _set(["states", 2, "seq"], 2),
    "seq-as-text": _set(["states", 0, "seq"], "1"),
    "seq-as-bool": _set(["states", 0, "seq"], True),
    "last-state-unknown-tile": _set(["states", 2, "state", "placements", 0, "component"], "T999"),
    "last-state-not-an-object": _set(["states", 2, "state"], "DROP TABLE play"),
    "last-state-other-game": _other_game_state,
    "last-state-bad-format": _set(["states", 2, "state", "format"], 99),
    "bad-source": _set(["states", 1, "source"], "telepathy"),
    "negative-problem-count": _set(["states", 1, "problems"], {"unreadable": -1}),
    "violations-not-objects": _set(["states", 1, "violations"], ["x"]),
    "created-at-huge": _set(["states", 0, "created_at"], "9" * 5000),
    "created-at-not-a-time": _set(["play", "created_at"], "last Sunday"),
    "finished-at-without-offset": _set(["play", "finished_at"], "2026-01-04T18:00:00"),
    "state-time-not-a-time": _set(["states", 1, "created_at"], "soon"),
}


def test_a_good_export_imports_as_a_new_game(client: FlaskClient, token: str) -> None:
    play = saved_game(client, token)
    doc = json.loads(client.get(f"/api/plays/{play}/export").get_data())
    r = client.post("/api/plays/import", json=doc, headers={"X-CSRF-Token": token})
    assert r.status_code == 201, r.get_json()
    copy_id = r.get_json()["id"]
    assert copy_id != play and r.get_json()["states"] == 3
    mine = client.get(f"/api/plays/{play}/states").get_json()["states"]
    theirs = client.get(f"/api/plays/{copy_id}/states").get_json()["states"]
    assert [s["state"] for s in theirs] == [s["state"] for s in mine]
    assert client.get(f"/api/plays/{copy_id}/score?confirm=1").get_json()["sheet"] == \
        client.get(f"/api/plays/{play}/score?confirm=1").get_json()["sheet"]
    for url in (f"/history/{copy_id}", f"/history/{copy_id}/replay?seq=3", f"/api/plays/{copy_id}/bgstats",
                f"/plays/{copy_id}/score?confirm=1"):
        assert client.get(url).status_code == 200, url


def test_a_finished_game_imports_with_its_times(client: FlaskClient, token: str) -> None:
    play = saved_game(client, token)
    assert client.post(f"/api/plays/{play}/finish", json={"confirm": True},
                       headers={"X-CSRF-Token": token}).status_code == 200
    doc = json.loads(client.get(f"/api/plays/{play}/export").get_data())
    true_sheet = doc["play"]["final_sheet"]
    doc["play"]["created_at"], doc["play"]["finished_at"] = "2026-01-04T17:00:00+00:00", "2026-01-04T18:30:00+00:00"
    doc["play"]["final_sheet"] = {"ranking": [1, "<b>"], "winners": "everyone"}  # tampered: the rules decide
    doc["states"][1]["violations"] = [{"code": "none/really", "message": "<i>trust me</i>"}]
    r = client.post("/api/plays/import", json=doc, headers={"X-CSRF-Token": token})
    assert r.status_code == 201, r.get_json()
    copy_id = r.get_json()["id"]
    assert r.get_json()["final_sheet"] == true_sheet
    mine = client.get(f"/api/plays/{play}/states").get_json()["states"]
    theirs = client.get(f"/api/plays/{copy_id}/states").get_json()["states"]
    assert [s["violations"] for s in theirs] == [s["violations"] for s in mine]
    link = client.get(f"/api/plays/{copy_id}/bgstats").get_json()
    assert link["data"]["durationMin"] == 90
    assert client.get("/history/").status_code == 200 and client.get(f"/history/{copy_id}").status_code == 200


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_malformed_import_is_refused_whole(app: Flask, client: FlaskClient, token: str, name: str) -> None:
    play = saved_game(client, token)
    export_before = client.get(f"/api/plays/{play}/export").get_data()
    before = counts(app)
    doc = json.loads(export_before)
    BROKEN[name](doc)
    r = client.post("/api/plays/import", json=doc, headers={"X-CSRF-Token": token})
    assert r.status_code == 400, (name, r.status_code, r.get_json())
    body = r.get_json()
    assert body["error"] == "bad_import" and "nothing was imported" in body["message"]
    assert counts(app) == before
    assert client.get(f"/api/plays/{play}/export").get_data() == export_before


def test_not_json_and_too_deep_are_refused(app: Flask, client: FlaskClient, token: str) -> None:
    before = counts(app)
    for body, ctype in ((b"not json", "application/json"), (b"[" * 100_000 + b"]" * 100_000, "application/json"),
                        (b"[]", "application/json"), (b"{}", "text/plain")):
        r = client.post("/api/plays/import", data=body, content_type=ctype, headers={"X-CSRF-Token": token})
        assert r.status_code == 400, body[:20]
    assert counts(app) == before


def test_a_failure_half_way_through_the_write_leaves_nothing(tmp_path: Path) -> None:
    """The database refuses the third state of any new game: the import rolls back whole."""
    app = create_app({"INSTANCE_PATH": str(tmp_path)})  # not TESTING: the error becomes a 500 answer
    client = app.test_client()
    token = page_token(client)
    play = saved_game(client, token)
    doc = json.loads(client.get(f"/api/plays/{play}/export").get_data())
    conn = sqlite3.connect(app.config["DATABASE"])
    conn.execute(
        "CREATE TRIGGER disk_full BEFORE INSERT ON snapshot WHEN NEW.seq = 3 AND NEW.play_id != "
        f"'{play}' BEGIN SELECT RAISE(ABORT, 'disk full'); END"
    )
    conn.commit()
    conn.close()
    before = counts(app)
    r = client.post("/api/plays/import", json=copy.deepcopy(doc), headers={"X-CSRF-Token": token})
    assert r.status_code == 500 and "disk full" not in r.get_data(as_text=True)
    assert counts(app) == before
    assert len(client.get("/api/plays").get_json()["plays"]) == 1
    assert client.get("/healthz").status_code == 200
