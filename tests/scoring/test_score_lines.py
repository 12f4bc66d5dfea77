"""Score lines carry the components they count as data, for every game and every scored state
we ship: the worked examples, each game's example states and the scanner's sample tables."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring import find_game
from scoring.model import ScoreLine

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = Path(__file__).parent / "examples"


def _scored_states() -> list[tuple[str, str, dict]]:
    """(game, label, state document) of every state that scores."""
    out: list[tuple[str, str, dict]] = []
    for path in sorted(EXAMPLES.glob("*/*.json")):
        case = json.loads(path.read_text("utf-8"))
        if "score" in case.get("expect", {}):
            out.append((path.parent.name, f"{path.parent.name}/{path.stem}", case["state"]))
    for path in sorted((ROOT / "scoring" / "data").glob("*/example*.json")):
        out.append((path.parent.name, f"data/{path.parent.name}/{path.stem}", json.loads(path.read_text("utf-8"))))
    for path in sorted((ROOT / "vision" / "samples").glob("*.json")):
        doc = json.loads(path.read_text("utf-8"))
        out.append((doc["game"], f"samples/{path.stem}", doc))
    return out


STATES = _scored_states()


def test_every_game_is_covered() -> None:
    assert {g for g, _, _ in STATES} == {"biomos", "borneo", "habitats", "phylo", "rainforest"}
    assert len(STATES) > 40


@pytest.mark.parametrize(("gid", "doc"), [(g, d) for g, _, d in STATES], ids=[label for _, label, _ in STATES])
def test_lines_with_points_name_their_components(gid: str, doc: dict) -> None:
    game = find_game(gid)
    state = game.load_state(doc)
    catalog = {c.id for c in game.components()}
    on_table = {p.component for p in state.placements}
    lines: list[ScoreLine] = [line for s in game.score_sheet(state).scores for line in s.lines]
    assert lines
    for line in lines:
        if line.points:
            assert line.components, line  # every rule that pays counts components
            if not line.collective:
                assert line.subject == line.components[0], line
        assert len(set(line.components)) == len(line.components), line
        assert set(line.components) <= catalog, line
        assert set(line.components) <= on_table, line  # what was seen, never guessed
        assert line.to_dict()["components"] == list(line.components)
