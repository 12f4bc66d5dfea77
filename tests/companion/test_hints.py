"""`companion hints` and the hints API: the same spots as the engine, one-line errors, no 500s."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from companion.cli import main
from scoring import find_game
from scoring.hints import find_hints
from tests.plain_words import faults


def data_file(game: str, name: str) -> Path:
    return Path(str(resources.files("scoring").joinpath("data", game, name)))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_lists_the_spots_best_first(capsys: pytest.CaptureFixture[str]) -> None:
    state = str(data_file("habitats", "example_before.json"))
    code, out, err = run(capsys, "hints", state, "T076", "--player", "yellow")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "Habitats: where can Forest flower go? (Yellow)"
    assert lines[1].split()[:2] == ["1.", "+6"] and "animals +5, flowers +1" in lines[1]
    assert "Yellow's park, " in lines[1] and all(not faults(line, "habitats") for line in lines)
    assert len(lines) == 1 + 12


def test_cli_json_matches_the_engine(capsys: pytest.CaptureFixture[str]) -> None:
    path = data_file("biomos", "example_before.json")
    code, out, _ = run(capsys, "hints", str(path), "DESERT-03", "--player", "red", "--json")
    assert code == 0
    doc = json.loads(out)
    game = find_game("biomos")
    hints = find_hints(game.load_state(json.loads(path.read_text("utf-8"))), "DESERT-03", "red")
    assert [s["key"] for s in doc["spots"]] == [s.place.key for s in hints.spots]
    assert doc["best"] == 5 and doc["spots"][0]["gains"] == [{"rule": "biomes", "points": 5}]


def test_cli_saved_spots_pass_companion_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = str(data_file("phylo", "example_before.json"))
    code, _, _ = run(capsys, "hints", state, "DOUGFIR", "--player", "b", "--save", str(tmp_path))
    assert code == 0
    spots = sorted(tmp_path.glob("spot-*.json"))
    assert len(spots) == 10
    for spot in spots[:3]:
        code, out, _ = run(capsys, "check", str(tmp_path / "before.json"), str(spot))
        assert (code, out.strip()) == (0, "Legal move: no rule broken.")


def test_cli_explains_a_refused_place(capsys: pytest.CaptureFixture[str]) -> None:
    state = str(data_file("habitats", "example_before.json"))
    code, out, _ = run(capsys, "hints", state, "T076", "--player", "yellow", "--at", '{"cell": [0, 1]}')
    assert code == 1
    assert "park/entrance_column" in out and "column below the entrance" in out


def test_cli_says_why_nowhere(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "hints", str(data_file("borneo", "example.json")), "T45")
    assert code == 0
    assert "nowhere legal now" in out and "borneo/tile_without_card" in out


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["T076", "--player", "nobody"], "no player 'nobody'"),
        (["NOPE"], "unknown component 'NOPE'"),
        (["F-RED"], "not a park tile"),
        (["T065", "--player", "yellow"], "placed tiles never move"),
        (["T076", "--at", "[1"], "--at: not valid JSON"),
        (["T076", "--at", "[1]"], "--at: a place is a JSON object"),
        (["T076", "--at", '{"cell": "A1"}'], "'cell'"),
    ],
)
def test_cli_bad_input_is_one_line_exit_2(argv: list[str], needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    state = str(data_file("habitats", "example_before.json"))
    code, out, err = run(capsys, "hints", state, *argv)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and needle in err


def test_cli_bad_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{", "utf-8")
    for path in (str(bad), str(tmp_path / "missing.json"), str(tmp_path)):
        code, _, err = run(capsys, "hints", path, "T076")
        assert code == 2 and len(err.strip().splitlines()) == 1


# -- the API -----------------------------------------------------------------------------


def play_with(client: FlaskClient, token: str, game: str, name: str) -> tuple[str, dict[str, Any]]:
    doc = json.loads(data_file(game, name).read_text("utf-8"))
    players = [{"id": p["id"], "name": p.get("name", p["id"])} for p in doc["players"]]
    r = client.post("/api/plays", json={"game": game, "players": players}, headers={"X-CSRF-Token": token})
    assert r.status_code == 201, r.get_json()
    play = r.get_json()["id"]
    r = client.post(f"/api/plays/{play}/moves", json={"state": doc, "accept_violations": True},
                    headers={"X-CSRF-Token": token})
    assert r.status_code == 201, r.get_json()
    return play, doc


def test_api_hints_on_the_accepted_state(client: FlaskClient, token: str) -> None:
    play, _ = play_with(client, token, "phylo", "example_before.json")
    r = client.get(f"/api/plays/{play}/hints?player=a")
    assert r.status_code == 200
    doc = r.get_json()
    assert "spots" not in doc and any(c["id"] == "DOUGFIR" for c in doc["holdable"])
    fir = next(c for c in doc["holdable"] if c["id"] == "DOUGFIR")
    assert fir["label"] == fir["name"] == "Douglas Fir"  # the printed name alone: no other card bears it
    doc = client.get(f"/api/plays/{play}/hints?player=a&component=DOUGFIR").get_json()
    assert doc["best"] == 3 and len(doc["spots"]) == 10 and doc["based_on"] == 1
    at = json.dumps({"cell": doc["spots"][0]["placement"]["cell"], "rotation": 2})
    verdict = client.get(f"/api/plays/{play}/hints", query_string={"player": "a", "component": "DOUGFIR", "at": at})
    assert verdict.get_json()["verdict"]["legal"] is False
    codes = {v["code"] for v in verdict.get_json()["verdict"]["violations"]}
    assert "phylo/wrong_orientation" in codes


def test_api_market_choices(client: FlaskClient, token: str) -> None:
    play, _ = play_with(client, token, "habitats", "example_before.json")
    doc = client.get(f"/api/plays/{play}/hints?player=yellow&market=1").get_json()
    assert [m["component"] for m in doc["market"]] == ["T070", "T006"]
    assert doc["market"][0]["best"]["total"] == 4


def test_api_stateless(client: FlaskClient) -> None:
    doc = json.loads(data_file("habitats", "example_before.json").read_text("utf-8"))
    r = client.post("/api/hints", json={"state": doc, "component": "T076", "player": "yellow"})
    assert r.status_code == 200 and r.get_json()["best"] == 6


@pytest.mark.parametrize(
    ("query", "status", "reason"),
    [
        ({}, 400, "no_player"),
        ({"player": "zed"}, 404, "no_player"),
        ({"player": "a", "component": "NOPE"}, 404, "no_component"),
        ({"player": "a", "component": "HOME-A"}, 400, "bad_question"),
        ({"player": "a", "component": "DOUGFIR", "at": "{"}, 400, "bad_place"),
        ({"player": "a", "component": "DOUGFIR", "at": "[]"}, 400, "bad_place"),
        ({"player": "a", "component": "DOUGFIR", "at": '{"cell": [1]}'}, 400, "bad_question"),
        ({"player": "a", "component": "DOUGFIR", "at": "x" * 600}, 400, "bad_place"),
    ],
)
def test_api_bad_input_is_4xx(client: FlaskClient, token: str, query: dict, status: int, reason: str) -> None:
    play, _ = play_with(client, token, "phylo", "example_before.json")
    r = client.get(f"/api/plays/{play}/hints", query_string=query)
    assert r.status_code == status, r.get_json()
    assert r.get_json()["error"] == reason


def test_api_stateless_bad_input(client: FlaskClient) -> None:
    assert client.post("/api/hints", data="x", content_type="application/json").status_code == 400
    assert client.post("/api/hints", json={"state": 3}).get_json()["error"] == "bad_state"
    assert client.post("/api/hints", json={"state": {"game": "chess"}}).status_code == 404
    r = client.post("/api/hints", json={"state": {"format": 1, "game": "phylo"}, "player": "a"})
    assert r.status_code == 400


def test_api_before_any_state(client: FlaskClient, token: str) -> None:
    r = client.post("/api/plays", json={"game": "phylo", "players": [{"id": "a", "name": "A"}, {"id": "b", "name": "B"}]},
                    headers={"X-CSRF-Token": token})
    play = r.get_json()["id"]
    r = client.get(f"/api/plays/{play}/hints?player=a")
    assert r.status_code == 409 and r.get_json()["error"] == "no_state"
