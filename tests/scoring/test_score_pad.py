"""Every score sheet line has a row on its game's pad, in the rulebook's words and order."""

from __future__ import annotations

import pytest

from scoring import find_game, game_ids
from scoring.biomos.score import ScoreRule as BiomosRule
from scoring.habitats.score import RULE_BY_KIND
from scoring.rainforest.score import ScoreRule as RainforestRule
from scoring.score_pad import score_pad


@pytest.mark.parametrize("game_id", game_ids())
def test_the_example_sheet_lines_all_have_a_row(game_id: str) -> None:
    game = find_game(game_id)
    pad = score_pad(game_id)
    rules = {c.rule for c in pad.categories}
    for name in ("example.json", "example_after.json"):
        sheet = game.score_sheet(game.load_state(game.example_state() if name == "example.json" else _doc(game_id, name)))
        for ps in sheet.scores:
            for line in ps.lines:
                assert line.rule in rules, (game_id, line.rule)


def _doc(game_id: str, name: str) -> dict:
    from scoring.catalog import read_data

    return read_data(game_id, name)


def test_every_rule_key_the_scorers_know_is_on_a_pad() -> None:
    assert {r.value for r in BiomosRule} <= {c.rule for c in score_pad("biomos").categories}
    assert {r.value for r in RainforestRule} <= {c.rule for c in score_pad("rainforest").categories}
    habitats = [c.rule for c in score_pad("habitats").categories]
    assert set(RULE_BY_KIND.values()) | {f"year{n}_goal" for n in (1, 2, 3)} <= set(habitats)
    # The rulebook's order: the goals of the score track by year, then the park by kind of tile.
    assert habitats[:3] == ["year1_goal", "year2_goal", "year3_goal"]
    assert habitats[3:] == ["animals", "flowers", "watchtowers", "tourists", "roads"]


def test_words_and_neutral_scorers() -> None:
    pad = score_pad("biomos")
    assert pad.label("black_hole_card") == "Black Hole card"
    assert pad.neutral_name("blackhole") == "the Black Hole" and pad.neutral_name("red") is None
    assert pad.label("something_new") == "Something new"  # never the bare key
    assert pad.order("biomes") < pad.order("moon") < pad.order("something_new")
