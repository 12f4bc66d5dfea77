"""The home page's promise: each bundled sample photo plays through to a score sheet."""

from __future__ import annotations

import json
import re

import pytest
from flask.testing import FlaskClient

from companion.app import services
from scoring import find_game, game_ids

SAMPLED = [g for g in game_ids() if services.sample_photos(g)]


def test_every_sample_is_offered_on_the_home_page(client: FlaskClient) -> None:
    page = client.get("/").get_data(as_text=True)
    for gid in SAMPLED:
        assert f"/samples/{gid}/0.jpg" in page and f"/try/{gid}" in page
        img = client.get(f"/samples/{gid}/0.jpg")
        assert img.status_code == 200 and img.mimetype == "image/jpeg"
        img.close()


@pytest.mark.parametrize("gid", SAMPLED)
def test_sample_photo_to_score_sheet(client: FlaskClient, token: str, gid: str) -> None:
    r = client.post(f"/try/{gid}", data={"csrf_token": token})
    assert r.status_code == 302
    play_id = re.search(r"/plays/([^/]+)/table\?sample=0", r.headers["Location"]).group(1)
    photo = services.sample_photos(gid)[0]
    truth = json.loads(photo.with_suffix(".json").read_text("utf-8"))

    seen = client.post(
        f"/api/plays/{play_id}/frames", data={"sample": "0"}, headers={"X-CSRF-Token": token}
    ).get_json()
    assert seen["state_error"] is None and seen["setup"] is True
    placed = {(p["component"], p["area"], json.dumps(p.get("cell"))) for p in seen["state"]["placements"]}
    expected = {(p["component"], p["area"], json.dumps(p.get("cell"))) for p in truth["placements"]}
    assert placed == expected

    r = client.post(
        f"/api/plays/{play_id}/moves",
        json={"state": seen["state"], "based_on": 0, "source": "sample", "problems": seen["problems"]},
        headers={"X-CSRF-Token": token},
    )
    assert r.status_code == 201
    doubtful = seen["problems"]["unreadable"] + seen["problems"]["duplicated"]
    r = client.get(f"/api/plays/{play_id}/score")
    if doubtful:  # a code the scanner saw but could not read: no score until confirmed
        assert r.status_code == 409 and r.get_json()["error"] == "unconfirmed_problems"
        r = client.get(f"/api/plays/{play_id}/score?confirm=1")
    sheet = r.get_json()["sheet"]
    game = find_game(gid)
    want = game.score_sheet(game.load_state(truth))
    assert {p["player"]: p["total"] for p in sheet["players"]} == {s.player: s.total for s in want.scores}
    page = client.get(f"/plays/{play_id}/score?confirm=1").get_data(as_text=True)
    for s in want.scores:
        assert f'<td class="num player-total">{s.total}</td>' in page
