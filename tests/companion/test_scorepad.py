"""The score pad's view of a sheet: players across, the rulebook's categories down, the
result and the tie-break in sentences, plain words for each cell, neutral scorers aside."""

from __future__ import annotations

import re

from companion.app import scorepad
from scoring import find_game
from scoring.model import Player, PlayerId


def _p(pid: str, name: str, seat: int) -> Player:
    return Player(PlayerId(pid), name, "#123456", seat)


def _line(rule: str, points: int, evidence: str) -> dict:
    return {"rule": rule, "points": points, "evidence": evidence}


def test_a_tie_decided_and_the_categories_in_the_rulebooks_order() -> None:
    game = find_game("habitats")
    names = {c.id: c.name for c in game.components()}
    tile = next(c for c in game.components() if c.kind == "tile" or c.id.startswith("T"))
    sheet = {
        "players": [
            {"player": "red", "total": 7, "lines": [
                _line("tourists", 4, f"tourists {tile.id} at (2,-2): own forest area has 5 tiles -> 4"),
                _line("animals", 3, f"{tile.name} {tile.id} at (1,-1): needs forest 1 -> 3"),
            ]},
            {"player": "yellow", "total": 7, "lines": [_line("animals", 7, "no tile code here -> 7")]},
        ],
        "ranking": [{"player": "yellow", "rank": 1, "total": 7}, {"player": "red", "rank": 2, "total": 7}],
        "winners": ["yellow"],
        "tie_break": "yellow has more goal points -> yellow wins",
        "notes": [f"red: {tile.id} at (1,-1) counted once"],
    }
    pad = scorepad.build(game, sheet, (_p("yellow", "Yara", 0), _p("red", "Rick", 1)))
    assert [c["name"] for c in pad["columns"]] == ["Yara", "Rick"]  # seat order
    assert [r["label"] for r in pad["rows"]] == ["Animals", "Tourists"]  # the rulebook's order, used rows only
    animals = pad["rows"][0]["cells"]
    assert [c["points"] for c in animals] == [7, 3]
    assert animals[1]["components"] == [tile.id]
    assert animals[1]["items"] == [f"{names[tile.id][:1].upper()}{names[tile.id][1:]}: 3 points"]
    assert pad["result"] == "Yara wins!"
    assert pad["tie_break"] == "Yellow has more goal points: yellow wins."
    for text in [*pad["notes"], *(i for r in pad["rows"] for c in r["cells"] for i in c["items"])]:
        assert tile.id not in text and not re.search(r"\(-?\d+,-?\d+\)|->", text), text
    assert pad["notes"][0].startswith("Rick: ")


def test_the_black_hole_is_no_player_and_shared_wins_read_well() -> None:
    game = find_game("biomos")
    sheet = {
        "players": [
            {"player": "red", "total": 30, "lines": [_line("biomes", 30, "Ocean (giant biome): pattern -> 30")]},
            {"player": "blackhole", "total": 40, "lines": [_line("black_hole_card", 40, "Black Hole, discovery side -> 40")]},
        ],
        "ranking": [{"player": "blackhole", "rank": 1, "total": 40}, {"player": "red", "rank": 2, "total": 30}],
        "winners": ["blackhole"],
    }
    pad = scorepad.build(game, sheet, (_p("red", "Ria", 0),))
    assert [c["player"] for c in pad["columns"]] == ["red"]
    assert pad["neutral"] == [{"player": "blackhole", "name": "the Black Hole", "total": 40, "winner": True}]
    assert pad["result"] == "The Black Hole wins."
    assert [r["label"] for r in pad["rows"]] == ["Biome cards"]  # the neutral's own row is not a player's
    assert pad["rows"][0]["cells"][0]["items"] == ["Ocean: 30 points"]
    shared = dict(sheet, winners=["red", "blackhole"])
    both = scorepad.build(game, {**shared, "players": sheet["players"][:1] * 1}, (_p("red", "Ria", 0), _p("blue", "Bo", 1)))
    assert both["result"] == "Ria and the Black Hole share the win."
