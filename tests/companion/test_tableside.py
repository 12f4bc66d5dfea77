"""The JSON side of the table page: players from the first photo, another game named, the
photo kept with each state, undo refused to a page that is behind, live events, samples kept."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from flask.testing import FlaskClient

import vision
from companion.app import services, store, tableside
from scoring import find_game
from scoring.model import Player, PlayerId


def _p(pid: str, name: str, seat: int, colour: str = "") -> Player:
    return Player(PlayerId(pid), name, colour, seat)


def test_table_players_keep_the_plays_names_where_they_can() -> None:
    seated = (_p("yellow", "Yara", 0, "#f2b705"), _p("red", "Rick", 1, "#d62828"), _p("blue", "Bea", 2))
    # Habitats: parks are colours, so a park in view keeps the seated player of its colour.
    seen = (_p("red", "Red", 0, "red"), _p("yellow", "Yellow", 1, "yellow"))
    assert [(p.id, p.name, p.seat) for p in tableside.table_players(seen, seated)] == [
        ("red", "Rick", 0), ("yellow", "Yara", 1)
    ]
    # Boards handed out by seat: an unknown board id takes the next seated player not in view.
    seen = (_p("planet1", "Planet 1", 0),)
    assert [(p.id, p.name) for p in tableside.table_players(seen, seated)] == [("yellow", "Yara")]
    # More boards than seats: the extra board keeps its own name.
    seen = (_p("planet1", "Planet 1", 0), _p("planet2", "Planet 2", 1))
    assert [p.name for p in tableside.table_players(seen, seated[:1])] == ["Yara", "Planet 2"]


def _new_play(client: FlaskClient, token: str, game_id: str, players: list[dict[str, Any]] | None = None) -> str:
    game = find_game(game_id)
    body = {"game": game_id, "players": players or services.example_players(game)}
    r = client.post("/api/plays", json=body, headers={"X-CSRF-Token": token})
    assert r.status_code == 201, r.get_json()
    return r.get_json()["id"]


def _frame(client: FlaskClient, token: str, play: str, image: bytes | None = None) -> dict[str, Any]:
    import io

    data: dict[str, Any] = {"sample": "0"} if image is None else {"image": (io.BytesIO(image), "t.jpg")}
    r = client.post(f"/api/plays/{play}/frames", data=data, headers={"X-CSRF-Token": token})
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def _accept(client: FlaskClient, token: str, play: str, seen: dict[str, Any], **extra: Any) -> Any:
    body = {"state": seen["state"], "based_on": seen["based_on"], "source": "sample", "problems": seen["problems"], **extra}
    return client.post(f"/api/plays/{play}/moves", json=body, headers={"X-CSRF-Token": token})


@pytest.mark.parametrize("game_id", ["biomos", "habitats", "rainforest"])
def test_default_players_on_a_sample_become_the_players_in_view(client: FlaskClient, token: str, game_id: str) -> None:
    play = _new_play(client, token, game_id)  # three seats; the sample shows fewer
    seen = _frame(client, token, play)
    assert seen["state_error"] is None and seen["players_changed"] is True
    assert seen["players_left_out"] and seen["problems"]["not_in_view"] == 0
    assert [p["id"] for p in seen["state"]["players"]] == [p["id"] for p in seen["players"]]
    r = _accept(client, token, play, seen, players=seen["players"])
    assert r.status_code == 201, r.get_json()
    now = client.get(f"/api/plays/{play}").get_json()
    assert [p["id"] for p in now["players"]] == [p["id"] for p in seen["players"]]
    assert client.get(f"/api/plays/{play}/score").status_code == 200  # no refusal
    # Once a state is accepted, the seats stay; names and colours may still be corrected.
    renamed = [{**p, "name": f"Grandma {i}"} for i, p in enumerate(now["players"])]
    r = client.post(f"/api/plays/{play}/players", json={"players": renamed}, headers={"X-CSRF-Token": token})
    assert r.status_code == 200 and r.get_json()["players"][0]["name"] == "Grandma 0"
    fewer = renamed[:-1] + [{"id": "zz", "name": "New"}]
    r = client.post(f"/api/plays/{play}/players", json={"players": fewer}, headers={"X-CSRF-Token": token})
    assert r.status_code == 409 and r.get_json()["error"] == "players_set"


def test_another_games_photo_is_named(client: FlaskClient, token: str) -> None:
    play = _new_play(client, token, "biomos")
    seen = _frame(client, token, play, vision.sample_photo("habitats").read_bytes())
    assert seen["other_game"] == {"id": "habitats", "name": "Habitats"}
    own = _frame(client, token, play)
    assert own["other_game"] is None


def test_the_photo_of_each_accepted_state_is_kept_and_undone_with_it(client: FlaskClient, token: str) -> None:
    r = client.post("/try/habitats", data={"csrf_token": token})
    play = re.search(r"/plays/([^/]+)/table", r.headers["Location"]).group(1)
    seen = _frame(client, token, play)
    assert _accept(client, token, play, seen).status_code == 201
    photo = client.get(f"/api/plays/{play}/photos/1")
    assert photo.status_code == 200 and photo.mimetype == "image/jpeg"
    assert photo.data == vision.sample_photo("habitats").read_bytes()
    overlay = client.get(f"/api/plays/{play}/photos/1?overlay=1").get_json()["recognition"]
    assert len(overlay["components"]) == len(seen["recognition"]["components"])
    # Undo refused to a page that is behind, allowed to one that is current.
    r = client.post(f"/api/plays/{play}/undo", json={"based_on": 0}, headers={"X-CSRF-Token": token})
    assert r.status_code == 409 and r.get_json()["error"] == "stale"
    r = client.post(f"/api/plays/{play}/undo", json={"based_on": "one"}, headers={"X-CSRF-Token": token})
    assert r.status_code == 400
    r = client.post(f"/api/plays/{play}/undo", json={"based_on": 1}, headers={"X-CSRF-Token": token})
    assert r.status_code == 200 and r.get_json()["current"] is None
    assert client.get(f"/api/plays/{play}/photos/1").status_code == 404


def test_sample_games_are_kept_only_when_asked(app: Any, client: FlaskClient, token: str) -> None:
    r = client.post("/try/phylo", data={"csrf_token": token})
    play = re.search(r"/plays/([^/]+)/table", r.headers["Location"]).group(1)
    assert play not in {p["id"] for p in client.get("/api/plays").get_json()["plays"]}
    assert client.get(f"/api/plays/{play}").get_json()["kept"] is False
    r = client.post(f"/api/plays/{play}/keep", headers={"X-CSRF-Token": token})
    assert r.status_code == 200 and r.get_json()["kept"] is True
    assert play in {p["id"] for p in client.get("/api/plays").get_json()["plays"]}
    # An unkept sample a day old is cleared when the next sample is tried.
    r = client.post("/try/phylo", data={"csrf_token": token})
    old = re.search(r"/plays/([^/]+)/table", r.headers["Location"]).group(1)
    with app.app_context():
        from companion.app.db import get_db

        get_db().execute("UPDATE play SET created_at = '2000-01-01T00:00:00+00:00' WHERE id = ?", (old,))
    client.post("/try/phylo", data={"csrf_token": token})
    assert client.get(f"/api/plays/{old}").status_code == 404
    assert client.get(f"/api/plays/{play}").status_code == 200


def test_events_tell_each_change(app: Any, client: FlaskClient, token: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from companion.app import api

    monkeypatch.setattr(api, "EVENT_POLL_S", 0.01)
    play = _new_play(client, token, "phylo")
    r = client.get(f"/api/plays/{play}/events")
    assert r.mimetype == "text/event-stream"
    chunks = r.response  # the stream, read as the browser would
    first = next(chunks).decode() + next(chunks).decode()
    assert "retry:" in first and "event: change" in first and json.dumps({"seq": 0, "gone": False}) in first
    seen = _frame(client, token, play)
    assert _accept(client, token, play, seen).status_code == 201
    for _ in range(50):
        chunk = next(chunks).decode()
        if chunk.startswith("event: change"):
            break
    assert json.loads(chunk.split("data: ", 1)[1]) == {"seq": 1, "gone": False}
    r.close()
    with app.app_context():
        assert store.revision(play) != store.revision("nope")


def test_finishing_an_old_score_pad_shows_the_new_one(client: FlaskClient, token: str) -> None:
    r = client.post("/try/habitats", data={"csrf_token": token})
    play = re.search(r"/plays/([^/]+)/table", r.headers["Location"]).group(1)
    seen = _frame(client, token, play)
    assert _accept(client, token, play, seen).status_code == 201
    r = client.post(f"/plays/{play}/finish", data={"csrf_token": token, "based_on": "0"})
    assert r.status_code == 302 and "moved=1" in r.headers["Location"]
    assert client.get(f"/api/plays/{play}").get_json()["finished_at"] is None
    page = client.get(r.headers["Location"]).get_data(as_text=True)
    assert "The game changed before it was finished" in page and 'name="based_on" value="1"' in page
    r = client.post(f"/plays/{play}/finish", data={"csrf_token": token, "based_on": "1"})
    assert r.status_code == 302 and "/history/" in r.headers["Location"]
    done = client.get(f"/api/plays/{play}").get_json()
    assert done["finished_at"] and done["kept"] is True  # finishing a sample game keeps it
