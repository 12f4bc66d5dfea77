"""Every route of the app through the Flask test client, with good and bad input."""

from __future__ import annotations

import io
import json
import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from scoring import game_ids

from .conftest import ScriptedCamera, rainforest_move
from .test_flow import PLAYERS, frame, new_play


def test_healthz_lists_games(client: FlaskClient) -> None:
    r = client.get("/healthz")
    assert r.status_code == 200
    assert r.get_json() == {"status": "ok", "games": list(game_ids())}


@pytest.mark.parametrize("url", ["/", "/new", "/history/", "/print", "/join"])
def test_pages_render(client: FlaskClient, url: str) -> None:
    r = client.get(url)
    assert r.status_code == 200
    assert r.mimetype == "text/html"
    assert b"Table companion" in r.data


def test_home_names_every_game(client: FlaskClient) -> None:
    page = client.get("/").get_data(as_text=True)
    for g in client.get("/api/games").get_json()["games"]:
        assert f'data-game="{g["id"]}"' in page
        assert g["name"] in page


def test_api_games_and_one_game(client: FlaskClient) -> None:
    games = client.get("/api/games").get_json()["games"]
    assert [g["id"] for g in games] == list(game_ids())
    rf = client.get("/api/games/rainforest").get_json()
    assert rf["name"] == "Rainforest"
    assert [p["id"] for p in rf["players"]] == ["ana", "ben", "chloe"]
    ids = {c["id"] for c in rf["components"]}
    assert len(ids) == len(rf["components"]) > 100
    assert client.get("/api/games/Rainforest").get_json()["id"] == "rainforest"


def test_unknown_things_are_404_json(client: FlaskClient) -> None:
    for url in ["/api/games/chess", "/api/plays/nope", "/api/plays/nope/score", "/api/plays/nope/export",
                "/nowhere/at/all.json", "/print/chess.pdf", "/samples/chess/0.jpg"]:
        r = client.get(url)
        assert r.status_code == 404, url
        if url.startswith(("/api/", "/print/", "/samples/")):
            body = r.get_json()
            assert body["status"] == 404 and body["error"] and body["message"], url


def test_unknown_page_is_html_404(client: FlaskClient) -> None:
    r = client.get("/plays/nope/table")
    assert r.status_code == 404 and r.mimetype == "text/html"
    page = r.get_data(as_text=True)
    assert "No saved game" in page and "We could not find that" in page
    assert "404" not in page.split("<main>")[1]  # no internal numbers in what players read


def test_wrong_method_is_405_json(client: FlaskClient) -> None:
    r = client.get("/api/scan")
    assert r.status_code == 405 and r.get_json()["error"] == "method_not_allowed"


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ({"game": "chess", "players": PLAYERS}, "unknown_game"),
        ({"game": "rainforest"}, "bad_players"),
        ({"game": "rainforest", "players": []}, "bad_players"),
        ({"game": "rainforest", "players": "ana"}, "bad_players"),
        ({"game": "rainforest", "players": [{"id": "Ana Maria!"}]}, "bad_players"),
        ({"game": "rainforest", "players": [{"id": "a"}, {"id": "a"}]}, "bad_players"),
        ({"game": "rainforest", "players": [{"id": "a", "colour": "red"}]}, "bad_players"),
        ({"game": "rainforest", "players": [{"id": "a"}], "options": {"nope": True}}, "bad_options"),
        ({"game": "rainforest", "players": [{"id": "a"}], "options": []}, "bad_options"),
        ({"game": "rainforest", "players": [{"id": f"p{i}"} for i in range(9)]}, "bad_players"),
    ],
)
def test_create_play_bad_input(client: FlaskClient, token: str, body: dict, reason: str) -> None:
    r = client.post("/api/plays", json=body, headers={"X-CSRF-Token": token})
    assert r.status_code in (400, 404)
    assert r.get_json()["error"] == reason


def test_create_play_needs_json_object(client: FlaskClient, token: str) -> None:
    for data, ctype in [("[1, 2]", "application/json"), ("{not json", "application/json"), ("x=1", "text/plain")]:
        r = client.post("/api/plays", data=data, content_type=ctype, headers={"X-CSRF-Token": token})
        assert r.status_code == 400 and r.get_json()["error"] == "bad_json"


def test_deeply_nested_json_is_400(client: FlaskClient, token: str) -> None:
    play = new_play(client, token)["id"]
    deep = "[" * 100_000 + "]" * 100_000
    r = client.post(f"/api/plays/{play}/moves", data=deep, content_type="application/json",
                    headers={"X-CSRF-Token": token})
    assert r.status_code == 400


def test_play_list_show_delete(client: FlaskClient, token: str) -> None:
    play = new_play(client, token)
    listed = client.get("/api/plays").get_json()["plays"]
    assert [(p["id"], p["states"]) for p in listed] == [(play["id"], 0)]
    shown = client.get(f"/api/plays/{play['id']}").get_json()
    assert shown["current"] is None and shown["players"][0]["name"] == "Ana"
    assert client.get(f"/api/plays/{play['id']}/states").get_json() == {"states": []}
    r = client.delete(f"/api/plays/{play['id']}", headers={"X-CSRF-Token": token})
    assert r.get_json() == {"deleted": play["id"]}
    assert client.get(f"/api/plays/{play['id']}").status_code == 404


def test_score_before_any_state_is_refused(client: FlaskClient, token: str) -> None:
    play = new_play(client, token)["id"]
    r = client.get(f"/api/plays/{play}/score")
    assert r.status_code == 409 and r.get_json()["error"] == "no_state"
    page = client.get(f"/plays/{play}/score")
    assert page.status_code == 200 and b"scan the table first" in page.data  # the page says what to do
    assert client.get(f"/api/plays/{play}/score?seq=x").status_code == 400
    assert client.get(f"/api/plays/{play}/score?seq=7").status_code == 404
    assert client.get(f"/api/plays/{play}/states/3").status_code == 404
    assert client.get(f"/history/{play}/replay").status_code == 404


@pytest.mark.parametrize(
    ("body", "status", "reason"),
    [
        ({}, 400, "bad_state"),
        ({"state": "x"}, 400, "bad_state"),
        ({"state": {"format": 1, "game": "biomos"}}, 400, "bad_state"),
        ({"state": {"format": 1, "game": "rainforest", "placements": [{"component": "NOPE", "area": "x"}]}}, 400, "bad_state"),
        ({"state": {"format": 1, "game": "rainforest", "players": [{"id": "ana"}], "placements": []}, "source": "telepathy"}, 400, "bad_source"),
        ({"state": {"format": 1, "game": "rainforest", "players": [{"id": "ana"}], "placements": []}, "based_on": "one"}, 400, "bad_argument"),
        ({"state": rainforest_move()["before"], "based_on": 5}, 409, "stale"),
    ],
)
def test_moves_bad_input(client: FlaskClient, token: str, body: dict, status: int, reason: str) -> None:
    play = new_play(client, token)["id"]
    r = client.post(f"/api/plays/{play}/moves", json=body, headers={"X-CSRF-Token": token})
    assert r.status_code == status, r.get_json()
    assert r.get_json()["error"] == reason


def test_frames_bad_input(client: FlaskClient, token: str, camera: ScriptedCamera) -> None:
    play = new_play(client, token)["id"]
    h = {"X-CSRF-Token": token}
    r = client.post(f"/api/plays/{play}/frames", data={}, headers=h)
    assert r.status_code == 400 and r.get_json()["error"] == "no_image"
    r = client.post(f"/api/plays/{play}/frames", data={"image": (io.BytesIO(b""), "a.jpg")}, headers=h)
    assert r.status_code == 400 and r.get_json()["error"] == "no_image"
    r = frame(client, token, play, b"not a photo")
    assert r.status_code == 400 and r.get_json()["error"] == "bad_image"
    r = client.post(f"/api/plays/{play}/frames", data={"sample": "x"}, headers=h)
    assert r.status_code == 400
    r = client.post(f"/api/plays/{play}/frames", data={"sample": "99"}, headers=h)
    assert r.status_code == 404 and r.get_json()["error"] == "no_sample"


def test_frame_with_state_the_game_refuses(client: FlaskClient, token: str, camera: ScriptedCamera) -> None:
    """Players seated differently from the photo: the overlay still answers, with the reason."""
    r = client.post(
        "/api/plays",
        json={"game": "rainforest", "players": [{"id": "zoe", "name": "Zoe"}]},
        headers={"X-CSRF-Token": token},
    )
    play = r.get_json()["id"]
    camera.show(b"scene", rainforest_move()["after"])
    body = frame(client, token, play, b"scene").get_json()
    assert body["state_error"] and "ana" in body["state_error"]
    assert body["changed"] is False and body["move"] is None


@pytest.mark.parametrize("data", [b"\x00\x01 definitely not an image", b"GIF89a\x01\x00\x01\x00", b"\xff\xd8\xff"])
def test_real_image_error_from_vision(client: FlaskClient, data: bytes) -> None:
    """The real recogniser refuses bytes that are not a photo: a 400, never a 500."""
    r = client.post("/api/scan", data={"game": "habitats", "image": (io.BytesIO(data), "x.jpg")})
    assert r.status_code == 400 and r.get_json()["error"] == "bad_image"


def test_scan_bad_input(client: FlaskClient, camera: ScriptedCamera) -> None:
    camera.show(b"ok", rainforest_move()["after"])
    cases = [
        ({}, 400, "no_game"),
        ({"game": "chess"}, 404, "unknown_game"),
        ({"game": "rainforest"}, 400, "no_image"),
        ({"game": "rainforest", "players": "[", "image": (io.BytesIO(b"ok"), "a.jpg")}, 400, "bad_players"),
        ({"game": "rainforest", "options": "[]", "image": (io.BytesIO(b"ok"), "a.jpg")}, 400, "bad_options"),
        ({"game": "rainforest", "options": "{", "image": (io.BytesIO(b"ok"), "a.jpg")}, 400, "bad_options"),
    ]
    for data, status, reason in cases:
        r = client.post("/api/scan", data=data)
        assert (r.status_code, r.get_json()["error"]) == (status, reason), data


def test_upload_over_20_mib_is_413_json(client: FlaskClient) -> None:
    big = b"\xff" * (20 * 1024 * 1024 + 10)
    r = client.post("/api/scan", data=big, content_type="multipart/form-data; boundary=x")
    assert r.status_code == 413
    assert r.get_json()["error"] == "request_entity_too_large"


def test_new_game_form_creates_a_play(client: FlaskClient, token: str) -> None:
    page = client.get("/new?game=biomos").get_data(as_text=True)
    assert 'name="opt_gaps_ignored"' in page and 'value="rulebook"' in page
    r = client.post(
        "/new",
        data={
            "csrf_token": token, "game": "biomos", "title": "Planets",
            "name0": "Ria", "colour0": "red", "seat0": "2",
            "name1": "Bo", "colour1": "blue", "seat1": "1",
            "opt_gaps_ignored": "on", "opt_tiebreak": "rulebook",
        },
    )
    assert r.status_code == 302
    play_id = re.search(r"/plays/([^/]+)/table", r.headers["Location"]).group(1)
    play = client.get(f"/api/plays/{play_id}").get_json()
    assert play["title"] == "Planets"
    assert [(p["id"], p["name"], p["seat"], p["colour"]) for p in play["players"]] == [
        ("blue", "Bo", 0, "#1d4ed8"), ("red", "Ria", 1, "#d62828"),
    ]
    assert play["options"] == {"gaps_ignored": True, "exclude_great_sand_dunes": False,
                               "melt_moon": False, "tiebreak": "rulebook"}
    table = client.get(r.headers["Location"]).get_data(as_text=True)
    data = json.loads(re.search(r'id="page-data">(.*?)</script>', table, re.S).group(1))
    assert data["play"]["id"] == play_id and data["urls"]["frames"].endswith("/frames")


def test_new_game_form_errors_are_400_html(client: FlaskClient, token: str) -> None:
    r = client.post("/new", data={"csrf_token": token, "game": "biomos"})
    assert r.status_code == 400 and b"name at least one player" in r.data
    r = client.post("/new", data={"csrf_token": token, "game": "biomos", "name0": "A", "colour0": "mauve"})
    assert r.status_code == 400 and b"unknown colour" in r.data
    r = client.post("/new", data={"csrf_token": token, "game": "biomos", "name0": "A", "seat0": "first"})
    assert r.status_code == 400 and b"seat must be a number" in r.data


def test_history_and_replay_of_unknown_play(client: FlaskClient, token: str) -> None:
    assert client.get("/history/nope").status_code == 404
    assert client.get("/history/nope/replay").status_code == 404
    assert client.post("/history/nope/delete", data={"csrf_token": token}).status_code == 404


def test_delete_from_history(client: FlaskClient, token: str) -> None:
    play = new_play(client, token)["id"]
    r = client.post(f"/history/{play}/delete", data={"csrf_token": token})
    assert r.status_code == 302
    assert client.get("/api/plays").get_json() == {"plays": []}


def test_camera_routes_without_host_camera(client: FlaskClient, token: str) -> None:
    assert client.get("/camera/status").get_json() == {"host_camera": False}
    assert client.get("/camera/frames/1.jpg").status_code == 404
    play = new_play(client, token)["id"]
    r = client.get(f"/api/plays/{play}/host-frame")
    assert r.status_code == 404 and r.get_json()["error"] == "no_host_camera"


def test_history_lists_a_state_the_rules_no_longer_accept(app, client: FlaskClient, token: str) -> None:
    """A timeline saved under older rules still opens; the odd state is named, not a 500."""
    from companion.app import db

    play = new_play(client, token)["id"]
    with app.app_context():
        conn = db.get_db()
        conn.execute(
            "INSERT INTO snapshot (play_id, seq, state, source, created_at)"
            " VALUES (?, 1, '{\"format\": 1, \"game\": \"rainforest\", \"placements\": [{\"component\": \"GONE\", \"area\": \"x\"}]}', 'manual', 'now')",
            (play,),
        )
    page = client.get(f"/history/{play}")
    assert page.status_code == 200
    assert "the code &#39;GONE&#39; names no piece of this game" in page.get_data(as_text=True)


def test_times_are_shown_on_the_tables_clock(app: Any, client: FlaskClient, token: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Stored in UTC; pages and the BG Stats play date show this machine's local time."""
    import time

    from companion.app.db import connect

    monkeypatch.setenv("TZ", "TABLE+5")  # five hours behind UTC, no time-zone data needed
    time.tzset()
    try:
        play = new_play(client, token)["id"]
        conn = connect(app.config["DATABASE"])
        conn.execute(
            "UPDATE play SET created_at = ?, finished_at = ? WHERE id = ?",
            ("2026-07-01T12:00:00+00:00", "2026-07-01T13:30:00+00:00", play),
        )
        conn.close()
        for url in ("/", "/history/", f"/history/{play}"):
            page = client.get(url).get_data(as_text=True)
            assert "2026-07-01 07:00" in page and "2026-07-01 12:00" not in page, url
        assert "finished 2026-07-01 08:30" in client.get(f"/history/{play}").get_data(as_text=True)
        data = client.get(f"/api/plays/{play}/bgstats").get_json()["data"]
        assert data["playDate"] == "2026-07-01 07:00:00"
        assert data["durationMin"] == 90
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_replay_lists_the_pieces_by_name_not_code(app: Any, client: FlaskClient) -> None:
    """The board at a move in the players' words: names by area, no codes or coordinates."""
    import re

    from companion.app import services, store
    from scoring import find_game

    game = find_game("habitats")
    with app.app_context():
        players = services.parse_players(services.example_players(game))
        play = store.create_play(game.id, "Replay", players, {})
        state = services.with_seats(services.load_state(game, game.example_state()), players, {})
        store.append(play.id, services.state_doc(state), [], {}, "manual")
    page = client.get(f"/history/{play.id}/replay?seq=1").get_data(as_text=True)
    board = re.sub(r"<[^>]+>", " ", page.split('id="board-list"')[1].split("</ul>")[0])
    names = services.names_of(game)
    for p in state.placements:
        assert names[p.component] in board
    shown = set(re.findall(r"[A-Z][A-Z0-9-]+", board))
    assert not shown & {p.component for p in state.placements if p.component != names[p.component]}
    assert "park:" not in board and not re.search(r"-?\d+,\s*-?\d+", board)
