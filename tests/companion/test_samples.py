"""The home page's promise: each bundled sample photo plays through to a score sheet."""

from __future__ import annotations

import re

import pytest
from flask.testing import FlaskClient

import vision
from companion.app import services
from scoring import find_game, game_ids
from scoring.state import state_to_json

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
    play = client.get(f"/api/plays/{play_id}").get_json()
    game = find_game(gid)
    seats = services.parse_players(play["players"])
    direct = vision.recognise(photo.read_bytes(), gid, players=seats)

    seen = client.post(
        f"/api/plays/{play_id}/frames", data={"sample": "0"}, headers={"X-CSRF-Token": token}
    ).get_json()
    assert seen["state_error"] is None and seen["setup"] is True
    # The table page shows exactly what the scanner read, with the play's seats.
    assert [p["id"] for p in seen["state"]["players"]] == [p.id for p in seats]
    assert seen["state"]["placements"] == state_to_json(direct.state)["placements"]
    assert len(seen["recognition"]["components"]) == len(direct.components) > 0

    r = client.post(
        f"/api/plays/{play_id}/moves",
        json={"state": seen["state"], "based_on": 0, "source": "sample", "problems": seen["problems"]},
        headers={"X-CSRF-Token": token},
    )
    assert r.status_code == 201
    # Every bundled sample scores at once: the clutter on it (a cup, a pad, a stranger's
    # code) is never an unreadable component, and the players are the ones in view.
    assert seen["problems"]["unreadable"] == seen["problems"]["duplicated"] == 0
    assert seen["problems"]["not_in_view"] == 0
    r = client.get(f"/api/plays/{play_id}/score")
    assert r.status_code == 200
    sheet = r.get_json()["sheet"]
    want = game.score_sheet(game.load_state(seen["state"]))
    assert {p["player"]: p["total"] for p in sheet["players"]} == {s.player: s.total for s in want.scores}
    assert {p.id for p in seats} <= {p["player"] for p in sheet["players"]}  # (a solo automa may add one)
    page = client.get(f"/plays/{play_id}/score").get_data(as_text=True)
    seated = {p.id for p in seats}
    for s in want.scores:
        if s.player in seated:
            assert f'<td class="num total" data-player="{s.player}">{s.total}</td>' in page
        else:  # a neutral scorer (Biomos's Black Hole) is named beside the pad, never a column
            assert f'data-player="{s.player}"' not in page and f"<strong>{s.total}</strong>" in page
