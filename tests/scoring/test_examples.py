"""Worked examples as data: every ``examples/<game>/*.json`` file is one case.

A case file holds a ``description`` and either
- ``state`` plus ``expect.score``: ``totals`` {player: points}, optionally ``rules``
  {player: {rule: points}} (sum of lines with that rule key), ``winners`` [players],
  ``tie_break`` (substring of the sheet's tie-break text, or null); or
- ``before`` and ``after`` plus ``expect.violations``: the exact sorted list of
  violation codes (empty for a legal move);
- or ``state`` plus ``expect.state_error``: a substring of the StateError message.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring import StateError, find_game

EXAMPLES = Path(__file__).parent / "examples"
CASES = sorted(EXAMPLES.glob("*/*.json"))


@pytest.mark.parametrize("path", CASES, ids=[f"{p.parent.name}/{p.stem}" for p in CASES])
def test_example(path: Path) -> None:
    case = json.loads(path.read_text("utf-8"))
    game = find_game(path.parent.name)
    expect = case["expect"]
    if "state_error" in expect:
        with pytest.raises(StateError, match=expect["state_error"]):
            game.load_state(case["state"])
        return
    if "violations" in expect:
        before = game.load_state(case["before"])
        after = game.load_state(case["after"])
        codes = sorted(v.code for v in game.violations(before, after))
        assert codes == sorted(expect["violations"])
        return
    sheet = game.score_sheet(game.load_state(case["state"]))
    score = expect["score"]
    assert {s.player: s.total for s in sheet.scores} == score["totals"]
    for player, rules in score.get("rules", {}).items():
        by_rule = sheet.score_of(player).by_rule()
        assert {r: by_rule.get(r, 0) for r in rules} == rules, player
    if "winners" in score:
        assert sorted(sheet.winners) == sorted(score["winners"])
    if "tie_break" in score:
        if score["tie_break"] is None:
            assert sheet.tie_break is None
        else:
            assert sheet.tie_break is not None and score["tie_break"] in sheet.tie_break
