"""Duplicates and moves, through the real scanner and the app.

One tile seen twice (a second copy printed from the same sheet) is reported with both
positions and blocks the score sheet until the table is fixed; the same tile moved from
one cell to another between two frames is a move, never a duplicate.
"""

from __future__ import annotations

import copy
import io
import json
import math
from functools import cache
from typing import Any

from flask.testing import FlaskClient

from scoring import find_game
from vision.layouts import TablePose, find_layout
from tests.rendering.render import Scene, render_scene

START: dict[str, Any] = {
    "format": 1, "game": "habitats", "players": [{"id": "red", "name": "Red"}], "options": {},
    "placements": [
        {"component": "E-RED", "area": "park:red", "cell": [0, 0]},
        {"component": "T018", "area": "park:red", "cell": [-1, 0]},
        {"component": "T004", "area": "park:red", "cell": [1, 0]},
    ],
}
PLAYERS = [{"id": "red", "name": "Red", "colour": "#d62828"}]


@cache
def scene(kind: str) -> Scene:
    """``start``; ``twice``: T018 plus a second T018 loose below the park; ``moved``: T018 at (0, 1)."""
    game = find_game("habitats")
    doc = copy.deepcopy(START)
    extra: list[tuple[str, TablePose]] = []
    if kind == "twice":
        pose = find_layout("habitats").arrange(game.load_state(doc))["T018"]
        extra = [("T018", TablePose(pose.x_mm, pose.y_mm + 120, 30))]
    if kind == "moved":
        doc["placements"][1]["cell"] = [0, 1]
    return render_scene("habitats", game.load_state(doc), condition="easy", resolution=(1280, 720), seed=4,
                        foreign=0, clutter=False, extra=extra)


def post_image(client: FlaskClient, url: str, jpeg: bytes, token: str, **form: str) -> Any:
    data: dict[str, Any] = {**form, "image": (io.BytesIO(jpeg), "table.jpg")}
    r = client.post(url, data=data, content_type="multipart/form-data", headers={"X-CSRF-Token": token})
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def test_a_component_twice_in_view_is_reported_at_both_places(client: FlaskClient, token: str) -> None:
    twice = scene("twice")
    body = post_image(client, "/api/scan", twice.jpeg, token, game="habitats", players=json.dumps(PLAYERS))
    dups = body["recognition"]["duplicated"]
    assert [d["component"] for d in dups] == ["T018"]
    a, b = dups[0]["image_centres"]
    assert math.dist(a, b) > 100
    assert min(math.dist(a, twice.image_centres["T018"]), math.dist(b, twice.image_centres["T018"])) < 15
    assert "T018" not in {c["component"] for c in body["recognition"]["components"]}
    assert body["score_sheet"] is None
    assert any("more than once" in reason for reason in body["score_refused"])
    confirmed = post_image(client, "/api/scan", twice.jpeg, token, game="habitats",
                           players=json.dumps(PLAYERS), confirm="1")
    assert confirmed["score_sheet"] is not None


def test_a_duplicate_blocks_scoring_until_resolved(client: FlaskClient, token: str) -> None:
    headers = {"X-CSRF-Token": token}
    play = client.post("/api/plays", json={"game": "habitats", "players": PLAYERS}, headers=headers).get_json()["id"]
    frames = f"/api/plays/{play}/frames"

    seen = post_image(client, frames, scene("twice").jpeg, token)
    assert seen["problems"]["duplicated"] == 1
    r = client.post(f"/api/plays/{play}/moves", headers=headers, json={
        "state": seen["state"], "based_on": seen["based_on"], "problems": seen["problems"], "source": "upload"})
    assert r.status_code == 201
    r = client.get(f"/api/plays/{play}/score")
    assert r.status_code == 409 and r.get_json()["error"] == "unconfirmed_problems"
    assert "more than once" in r.get_json()["message"]

    fixed = post_image(client, frames, scene("start").jpeg, token)
    assert fixed["problems"]["duplicated"] == 0 and fixed["changed"]
    assert [m["component"] for m in fixed["move"]["added"]] == ["T018"]
    r = client.post(f"/api/plays/{play}/moves", headers=headers, json={
        "state": fixed["state"], "based_on": fixed["based_on"], "problems": fixed["problems"], "source": "upload"})
    assert r.status_code == 201
    r = client.get(f"/api/plays/{play}/score")
    assert r.status_code == 200 and r.get_json()["confirmed_problems"] == []


def test_a_component_moved_between_frames_is_a_move(client: FlaskClient, token: str) -> None:
    headers = {"X-CSRF-Token": token}
    play = client.post("/api/plays", json={"game": "habitats", "players": PLAYERS}, headers=headers).get_json()["id"]
    frames = f"/api/plays/{play}/frames"
    first = post_image(client, frames, scene("start").jpeg, token)
    assert sorted(p["component"] for p in first["state"]["placements"]) == ["E-RED", "T004", "T018"]
    r = client.post(f"/api/plays/{play}/moves", headers=headers, json={
        "state": first["state"], "based_on": 0, "problems": first["problems"], "source": "upload"})
    assert r.status_code == 201
    second = post_image(client, frames, scene("moved").jpeg, token)
    assert second["problems"]["duplicated"] == 0 and second["recognition"]["duplicated"] == []
    assert second["changed"] is True
    move = second["move"]
    assert move["added"] == [] and move["removed"] == []
    assert [(m["from"]["cell"], m["to"]["cell"]) for m in move["moved"] if m["to"]["component"] == "T018"] == [
        ([-1, 0], [0, 1])
    ]
