"""A whole game through the API with a scripted camera: setup, legal move, illegal move, score."""

from __future__ import annotations

import io
import json
from typing import Any
from urllib.parse import parse_qs, urlsplit

from flask.testing import FlaskClient

from .conftest import ScriptedCamera, rainforest_move

PLAYERS = [
    {"id": "ana", "name": "Ana", "colour": "#d62828"},
    {"id": "ben", "name": "Ben", "colour": "#1d4ed8"},
]


def new_play(client: FlaskClient, token: str, game: str = "rainforest") -> dict[str, Any]:
    r = client.post(
        "/api/plays",
        json={"game": game, "title": "Friday", "players": PLAYERS},
        headers={"X-CSRF-Token": token},
    )
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def frame(client: FlaskClient, token: str, play: str, image: bytes) -> Any:
    return client.post(
        f"/api/plays/{play}/frames",
        data={"image": (io.BytesIO(image), "frame.jpg")},
        headers={"X-CSRF-Token": token},
        content_type="multipart/form-data",
    )


def accept(client: FlaskClient, token: str, play: str, result: dict[str, Any], **extra: Any) -> Any:
    body = {"state": result["state"], "based_on": result["based_on"], "source": "camera", **extra}
    return client.post(f"/api/plays/{play}/moves", json=body, headers={"X-CSRF-Token": token})


def test_setup_then_legal_move_then_illegal_move(client: FlaskClient, token: str, camera: ScriptedCamera) -> None:
    case = rainforest_move()
    before = camera.show(b"scene-before", case["before"])
    after = camera.show(b"scene-after", case["after"])
    play = new_play(client, token)["id"]

    first = frame(client, token, play, before).get_json()
    assert first["setup"] is True and first["changed"] is True and first["violations"] == []
    assert first["based_on"] == 0
    # The recogniser was told who sits at the table.
    assert [p.id for p in camera.calls[-1]["players"]] == ["ana", "ben"]
    assert accept(client, token, play, first).status_code == 201

    again = frame(client, token, play, before).get_json()
    assert again["changed"] is False and again["based_on"] == 1

    move = frame(client, token, play, after).get_json()
    assert move["changed"] is True and move["legal"] is True and move["setup"] is False
    assert len(move["move"]["added"]) == 3  # 54 placements after, 51 before
    r = accept(client, token, play, move)
    assert r.status_code == 201 and r.get_json()["accepted"]["seq"] == 2

    # Taking the turn back off the table moves locked tiles: the rules refuse it.
    back = frame(client, token, play, before).get_json()
    assert back["legal"] is False
    codes = sorted({v["code"] for v in back["violations"]})
    assert codes == ["rainforest/tile_moved", "rainforest/token_moved"]
    refused = accept(client, token, play, back)
    assert refused.status_code == 409
    assert refused.get_json()["error"] == "illegal_move"
    assert len(refused.get_json()["violations"]) == 6

    score = client.get(f"/api/plays/{play}/score").get_json()
    assert score["seq"] == 2
    totals = {p["player"]: p["total"] for p in score["sheet"]["players"]}
    assert totals == {"ana": 15, "ben": 0}
    assert score["sheet"]["winners"] == ["ana"]
    assert score["names"] == {"ana": "Ana", "ben": "Ben"}


def test_accept_anyway_and_undo(client: FlaskClient, token: str, camera: ScriptedCamera) -> None:
    case = rainforest_move()
    before = camera.show(b"b", case["before"])
    after = camera.show(b"a", case["after"])
    play = new_play(client, token)["id"]
    accept(client, token, play, frame(client, token, play, after).get_json())
    back = frame(client, token, play, before).get_json()
    r = accept(client, token, play, back, accept_violations=True)
    assert r.status_code == 201
    snap = r.get_json()["accepted"]
    assert snap["seq"] == 2 and len(snap["violations"]) == 6

    undone = client.post(f"/api/plays/{play}/undo", headers={"X-CSRF-Token": token}).get_json()
    assert undone["current"]["seq"] == 1
    client.post(f"/api/plays/{play}/undo", headers={"X-CSRF-Token": token})
    r = client.post(f"/api/plays/{play}/undo", headers={"X-CSRF-Token": token})
    assert r.status_code == 409 and r.get_json()["error"] == "nothing_to_undo"


def test_stale_frame_is_refused(client: FlaskClient, token: str, camera: ScriptedCamera) -> None:
    case = rainforest_move()
    after = camera.show(b"a", case["after"])
    play = new_play(client, token)["id"]
    seen = frame(client, token, play, after).get_json()
    assert accept(client, token, play, seen).status_code == 201
    r = accept(client, token, play, seen)  # a second device accepts the same frame
    assert r.status_code == 409 and r.get_json()["error"] == "stale"


def test_score_refuses_unreadable_until_confirmed(client: FlaskClient, token: str, camera: ScriptedCamera) -> None:
    case = rainforest_move()
    blurry = camera.show(b"blurry", case["after"], unreadable=1)
    play = new_play(client, token)["id"]
    seen = frame(client, token, play, blurry).get_json()
    assert seen["problems"] == {"unreadable": 1, "face_down": 0, "duplicated": 0, "foreign": 0, "not_in_view": 0}
    assert accept(client, token, play, seen, problems=seen["problems"]).status_code == 201

    r = client.get(f"/api/plays/{play}/score")
    assert r.status_code == 409
    body = r.get_json()
    assert body["error"] == "unconfirmed_problems" and "1 component(s) could not be read" in body["message"]
    page = client.get(f"/plays/{play}/score")
    assert page.status_code == 200 and b"score anyway" in page.data

    ok = client.get(f"/api/plays/{play}/score?confirm=1").get_json()
    assert {p["player"]: p["total"] for p in ok["sheet"]["players"]} == {"ana": 15, "ben": 0}
    page = client.get(f"/plays/{play}/score?confirm=1").get_data(as_text=True)
    assert "Scored although: 1 component(s) could not be read" in page


def test_score_refuses_a_player_out_of_view_until_confirmed(client: FlaskClient, token: str, camera: ScriptedCamera) -> None:
    from vision.problems import Problem, ProblemCode

    case = rainforest_move()
    gone = Problem(ProblemCode.PLAYER_NOT_IN_VIEW, "no player board of Ben (ben) is in view; that player is left out of this reading")
    half = camera.show(b"half the table", case["after"], problems=(gone,))
    play = new_play(client, token)["id"]
    seen = frame(client, token, play, half).get_json()
    assert seen["problems"]["not_in_view"] == 1 and seen["problems"]["unreadable"] == 0
    assert accept(client, token, play, seen, problems=seen["problems"]).status_code == 201

    r = client.get(f"/api/plays/{play}/score")
    assert r.status_code == 409 and "1 player(s)' board or park is not in view" in r.get_json()["message"]
    assert client.get(f"/api/plays/{play}/score?confirm=1").status_code == 200


def test_finish_history_export_and_bgstats(client: FlaskClient, token: str, camera: ScriptedCamera) -> None:
    case = rainforest_move()
    before = camera.show(b"b", case["before"])
    after = camera.show(b"a", case["after"])
    play = new_play(client, token)["id"]
    accept(client, token, play, frame(client, token, play, before).get_json())
    accept(client, token, play, frame(client, token, play, after).get_json())

    r = client.post(f"/plays/{play}/finish", data={"csrf_token": token})
    assert r.status_code == 302 and r.headers["Location"].endswith(f"/history/{play}")
    listing = client.get("/history/").get_data(as_text=True)
    assert "Friday" in listing and "Ana won" in listing
    detail = client.get(f"/history/{play}").get_data(as_text=True)
    assert detail.count('<li data-seq="') == 2
    assert "3 added" in detail

    replay = client.get(f"/history/{play}/replay?seq=2").get_data(as_text=True)
    assert "move 2 of 2" in replay and 'id="prev"' in replay and 'id="next"' not in replay

    export = client.get(f"/api/plays/{play}/export")
    assert export.headers["Content-Disposition"].startswith("attachment")
    doc = json.loads(export.data)
    assert doc["format"] == "table-companion-play"
    assert [s["seq"] for s in doc["states"]] == [1, 2]
    assert doc["play"]["final_sheet"]["winners"] == ["ana"]
    assert len(doc["states"][1]["state"]["placements"]) == 54

    link = client.get(f"/api/plays/{play}/bgstats").get_json()
    url = urlsplit(link["url"])
    assert url.netloc == "app.bgstatsapp.com" and url.path == "/addPlay.html"
    pushed = json.loads(parse_qs(url.query)["data"][0])
    assert pushed == link["data"]
    assert pushed["game"]["name"] == "Rainforest" or pushed["game"]["name"]
    assert pushed["players"] == [
        {"name": "Ana", "startPlayer": True, "score": 15, "rank": 1, "winner": True},
        {"name": "Ben", "startPlayer": False, "score": 0, "rank": 2, "winner": False},
    ]
    assert pushed["sourcePlayId"] == play and "durationMin" in pushed


def test_scan_endpoint_scores_a_photo(client: FlaskClient, camera: ScriptedCamera) -> None:
    camera.show(b"photo", rainforest_move()["after"])
    r = client.post(
        "/api/scan",
        data={"game": "rainforest", "image": (io.BytesIO(b"photo"), "t.jpg")},
        content_type="multipart/form-data",
    )
    assert r.status_code == 200
    body = r.get_json()
    assert body["game"] == "rainforest"
    assert len(body["recognition"]["components"]) == 54
    assert {p["player"]: p["total"] for p in body["score_sheet"]["players"]} == {"ana": 15, "ben": 0}
    assert body["score_refused"] == []


def test_scan_endpoint_refuses_duplicates_unless_confirmed(client: FlaskClient, camera: ScriptedCamera) -> None:
    camera.show(b"dup", rainforest_move()["after"], duplicated=1)
    data = {"game": "rainforest"}
    r = client.post("/api/scan", data={**data, "image": (io.BytesIO(b"dup"), "t.jpg")})
    body = r.get_json()
    assert body["score_sheet"] is None and body["score_refused"] == ["1 code(s) appear more than once"]
    r = client.post("/api/scan", data={**data, "confirm": "1", "image": (io.BytesIO(b"dup"), "t.jpg")})
    assert r.get_json()["score_sheet"]["winners"] == ["ana"]


def test_api_finish_and_single_state(client: FlaskClient, token: str, camera: ScriptedCamera) -> None:
    case = rainforest_move()
    after = camera.show(b"a", case["after"], unreadable=1)
    play = new_play(client, token)["id"]
    h = {"X-CSRF-Token": token}
    r = client.post(f"/api/plays/{play}/finish", json={}, headers=h)
    assert r.status_code == 409 and r.get_json()["error"] == "no_state"
    r = client.post(f"/plays/{play}/finish", data={"csrf_token": token})
    assert r.status_code == 409
    seen = frame(client, token, play, after).get_json()
    accept(client, token, play, seen, problems=seen["problems"])
    r = client.post(f"/api/plays/{play}/finish", json={}, headers=h)
    assert r.status_code == 409 and r.get_json()["problems"]["unreadable"] == 1
    done = client.post(f"/api/plays/{play}/finish", json={"confirm": True}, headers=h).get_json()
    assert done["finished_at"] and done["final_sheet"]["winners"] == ["ana"]
    one = client.get(f"/api/plays/{play}/states/1").get_json()
    assert one["seq"] == 1 and one["source"] == "camera" and one["problems"]["unreadable"] == 1
    assert client.get(f"/history/{play}/replay?seq=9").status_code == 404
    # A move after the finish reopens the game.
    client.post(f"/api/plays/{play}/undo", headers=h)
    assert client.get(f"/api/plays/{play}").get_json()["finished_at"] is None
