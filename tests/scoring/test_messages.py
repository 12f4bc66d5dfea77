"""Every violation the worked illegal moves produce reads as it is: printed names, no ids,
coordinates or arrows; what a program needs (components, cells, area) is in its fields."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring import find_game
from tests.plain_words import faults

EXAMPLES = Path(__file__).parent / "examples"
ILLEGAL = sorted(
    p for p in EXAMPLES.glob("*/*.json") if json.loads(p.read_text("utf-8"))["expect"].get("violations")
)


@pytest.mark.parametrize("path", ILLEGAL, ids=[f"{p.parent.name}/{p.stem}" for p in ILLEGAL])
def test_violations_read_in_players_words(path: Path) -> None:
    case = json.loads(path.read_text("utf-8"))
    game = find_game(path.parent.name)
    before, after = game.load_state(case["before"]), game.load_state(case["after"])
    found = game.violations(before, after)
    assert found
    on_table = {p.component for s in (before, after) for p in s.placements}
    areas = {p.area for s in (before, after) for p in s.placements}
    for v in found:
        assert faults(v.message, game.id) == [], v.message
        assert set(v.components) <= on_table, v  # pieces of one of the two tables, by catalog id
        # the place is data: an area of one of the two tables (or the kind of area a rule is about)
        assert v.area is None or v.area in areas or ":" not in v.area, v


def test_the_check_finds_what_players_cannot_read() -> None:
    assert faults("T020 at (3,-2) -> 0", "habitats") == ["id T020", "arrow ->", "coordinates (3,-2)"]
    assert faults("placements[3] (FOREST-01): taken", "biomos") == ["id FOREST-01", "index s[3]"]
    assert faults("Plant tile T12 was laid without earning a card", "borneo") == []
    assert faults("Bonobo touches no tile of Ana's park", "habitats") == []
