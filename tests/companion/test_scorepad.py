"""The score pad's view of a sheet: players across, the rulebook's categories down, the
result and the tie-break in sentences, plain words for each cell, neutral scorers aside."""

from __future__ import annotations

import json
import re
from pathlib import Path

from companion.app import scorepad
from scoring import find_game
from scoring.model import Player, PlayerId


def _p(pid: str, name: str, seat: int) -> Player:
    return Player(PlayerId(pid), name, "#123456", seat)


def _line(rule: str, points: int, evidence: str, components: tuple[str, ...] = (), collective: bool = False) -> dict:
    return {"rule": rule, "points": points, "evidence": evidence, "components": list(components),
            "collective": collective}


def test_a_tie_decided_and_the_categories_in_the_rulebooks_order() -> None:
    game = find_game("habitats")
    names = {c.id: c.name for c in game.components()}
    tile = next(c for c in game.components() if c.kind == "tile" or c.id.startswith("T"))
    sheet = {
        "players": [
            {"player": "red", "total": 7, "lines": [
                _line("tourists", 4, "tourists at (2,-2): own forest area has 5 tiles -> 4"),
                _line("animals", 3, f"{tile.name} {tile.id} at (1,-1): needs forest 1 -> 3", (tile.id,)),
            ]},
            {"player": "yellow", "total": 7, "lines": [_line("animals", 7, "no tile code here -> 7")]},
        ],
        "ranking": [{"player": "yellow", "rank": 1, "total": 7}, {"player": "red", "rank": 2, "total": 7}],
        "winners": ["yellow"],
        "tie_break": "yellow has more goal points -> yellow wins",
        "notes": [f"red: {tile.name} at (1,-1) counted once"],
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


def test_outlined_components_come_from_the_sheets_data_not_its_words() -> None:
    game = find_game("borneo")
    names = {c.id: c.name for c in game.components()}
    sheet = {
        "players": [
            {"player": "red", "total": 4, "lines": [
                # The words name a card the line does not count: it is not outlined.
                _line("animals", 4, "Sun Bear (SUNBEAR-1, secondary, on Arboreal Termites (TERMITES-2)): 4",
                      ("SUNBEAR-1", "TERMITES-1")),
                # Words with no id at all: the components are still the line's own.
                _line("global_bonus", 0, "a bonus card: not completed -> 0", ("BONUS-2",)),
                # Words that happen to hold a card's name but count nothing: nothing outlined.
                _line("plants", 0, "no Strangler Fig, no plant cards earned"),
            ]},
        ],
        "ranking": [{"player": "red", "rank": 1, "total": 4}],
        "winners": ["red"],
    }
    pad = scorepad.build(game, sheet, (_p("red", "Ria", 0),))
    cells = {r["rule"]: r["cells"][0] for r in pad["rows"]}
    assert cells["animals"]["components"] == ["SUNBEAR-1", "TERMITES-1"]
    assert cells["animals"]["items"] == [f"{names['SUNBEAR-1']}: 4 points"]
    assert cells["global_bonus"]["components"] == ["BONUS-2"]
    assert cells["global_bonus"]["items"] == [f"{names['BONUS-2']}: nothing scored (not completed)"]
    assert cells["plants"]["components"] == []
    assert cells["plants"]["items"] == ["No Strangler Fig, no plant cards earned"]


def test_a_line_about_many_components_says_what_it_adds_up() -> None:
    game = find_game("rainforest")
    tiles = [c.id for c in game.components() if c.kind == "tile"][:3]
    sheet = {
        "players": [{"player": "frog", "total": 6, "lines": [
            _line("tiles", 6, f"Jungle tiles locked in: J1 {tiles[0]} 2 + J2 {tiles[1]} 2 + J3 {tiles[2]} 2 = 6",
                  tuple(tiles), collective=True),
        ]}],
        "ranking": [{"player": "frog", "rank": 1, "total": 6}],
        "winners": ["frog"],
    }
    cell = scorepad.build(game, sheet, (_p("frog", "Fay", 0),))["rows"][0]["cells"][0]
    assert cell["items"] == ["Jungle tiles locked in: 6 points"]  # not the first tile's name
    assert cell["components"] == tiles


def test_every_shipped_sheet_reads_without_codes() -> None:
    """The pad of every example state and scanner sample: each cell's outlined components are
    exactly its lines' components, and no item or note shows a printed id."""
    root = Path(__file__).resolve().parents[2]
    paths = sorted((root / "scoring" / "data").glob("*/example*.json")) + sorted((root / "vision" / "samples").glob("*.json"))
    assert len(paths) >= 20
    for path in paths:
        doc = json.loads(path.read_text("utf-8"))
        game = find_game(doc["game"])
        state = game.load_state(doc)
        sheet = game.score_sheet(state).to_dict()
        pad = scorepad.build(game, sheet, state.players)
        ids = {c.id for c in game.components()}
        lines = {ps["player"]: ps["lines"] for ps in sheet["players"]}
        for row in pad["rows"]:
            for cell in row["cells"]:
                mine = [line for line in lines[cell["player"]] if line["rule"] == row["rule"]]
                assert set(cell["components"]) == {c for line in mine for c in line["components"]}, path
                for text in cell["items"]:
                    words = set(re.findall(r"[A-Z0-9][A-Z0-9-]+", text))
                    assert not words & ids, (path, text)
                    assert "->" not in text and not re.search(r"\(-?\d+,-?\d+\)", text), (path, text)
        for note in pad["notes"]:
            assert not set(re.findall(r"[A-Z0-9][A-Z0-9-]+", note)) & ids, (path, note)
