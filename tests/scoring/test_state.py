"""The shared state format: strict parsing with messages that name the entry, and round trips."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from scoring.game import BaseGame
from scoring.model import (
    BoardState,
    CatalogError,
    Component,
    ComponentId,
    GameInfo,
    Option,
    Placement,
    ScoreLine,
    StateError,
    TieBreak,
    build_sheet,
    rank_players,
)
from scoring.state import parse_state, state_to_json


class ToyGame(BaseGame):
    """Three tiles on a 3x3 grid: enough to exercise the shared parser."""

    info = GameInfo("toy", "Toy", "TY", options=(Option("strict", True, "A made-up house rule."),))

    def _components(self) -> tuple[Component, ...]:
        return tuple(
            Component(ComponentId(f"T{i}"), "tile", f"tile {i}", i, (40.0, 40.0)) for i in range(4)
        )

    def check_place(self, placement: Placement) -> str | None:
        if isinstance(placement.cell, tuple) and not all(0 <= v < 3 for v in placement.cell):
            return f"cell {list(placement.cell)} is outside the 3x3 grid"
        return None


GOOD: dict[str, Any] = {
    "format": 1,
    "game": "toy",
    "players": [{"id": "red", "name": "Ann"}, {"id": "blue", "name": "Ben"}],
    "options": {"strict": False},
    "placements": [
        {"component": "T0", "area": "park:red", "cell": [0, 0]},
        {"component": "T1", "area": "park:red", "cell": [1, 0], "rotation": 2},
        {"component": "T2", "area": "park:blue", "cell": "A"},
        {"component": "T3", "area": "park:blue", "on": "T2", "slot": 1, "face_up": False},
    ],
}


def bad(**changes: Any) -> dict[str, Any]:
    doc = copy.deepcopy(GOOD)
    doc.update(changes)
    return doc


def test_good_state_parses_and_round_trips() -> None:
    game = ToyGame()
    state = game.load_state(GOOD)
    assert state.options == {"strict": False}
    assert state.placement_of("T1") == Placement(ComponentId("T1"), "park:red", (1, 0), 2)
    assert state.placement_of("T3").on == "T2" and state.placement_of("T3").face_up is False
    again = game.load_state(json.loads(json.dumps(state_to_json(state))))
    assert again == state


def test_default_options_apply() -> None:
    doc = bad(options={})
    assert ToyGame().load_state(doc).options == {"strict": True}


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        (bad(format=2), r"'format' must be 1"),
        (bad(game="habitats"), r"'game' is 'habitats'"),
        (bad(colour="red"), r"unknown field\(s\) 'colour'"),
        (bad(options={"fast": True}), r"unknown option\(s\) 'fast'"),
        (bad(options={"strict": "yes"}), r"'strict' must be bool"),
        (bad(players=[{"id": "red"}, {"id": "red"}]), r"players\[1\]: player id 'red' appears twice"),
        (
            bad(placements=[{"component": "X9", "area": "park:red", "cell": [0, 0]}]),
            r"placements\[0\] \(X9\): unknown component 'X9'",
        ),
        (
            bad(
                placements=[
                    {"component": "T0", "area": "park:red", "cell": [0, 0]},
                    {"component": "T0", "area": "park:red", "cell": [1, 0]},
                ]
            ),
            r"placements\[1\] \(T0\): the same component appears twice",
        ),
        (
            bad(
                placements=[
                    {"component": "T0", "area": "park:red", "cell": [0, 0]},
                    {"component": "T1", "area": "park:red", "cell": [0, 0]},
                ]
            ),
            r"placements\[1\] \(T1\): cell \[0, 0\] of park:red already holds T0",
        ),
        (
            bad(placements=[{"component": "T0", "area": "park:red", "cell": [5, 0]}]),
            r"placements\[0\] \(T0\): cell \[5, 0\] is outside the 3x3 grid",
        ),
        (
            bad(placements=[{"component": "T0", "area": "park:red", "cell": [0, 0, 1]}]),
            r"cell must be \[x, y\]",
        ),
        (
            bad(placements=[{"component": "T0", "area": "park:red", "rotation": "N"}]),
            r"'rotation' must be an integer",
        ),
        (
            bad(placements=[{"component": "T0", "area": "park:red", "on": "T1"}]),
            r"lies on 'T1', which is not on the table",
        ),
        (bad(placements={"T0": 1}), r"'placements' must be a list"),
        ([1, 2, 3], r"state: expected an object"),
    ],
)
def test_malformed_states_name_the_entry(doc: Any, message: str) -> None:
    with pytest.raises(StateError, match=message):
        ToyGame().load_state(doc)


def test_unknown_places_are_kept() -> None:
    state = ToyGame().load_state(bad(unknown=[{"area": "park:red", "cell": [2, 2]}]))
    assert state.unknown[0].area == "park:red" and state.unknown[0].cell == (2, 2)


def test_catalog_checks_refuse_bad_components() -> None:
    class Dup(ToyGame):
        def _components(self) -> tuple[Component, ...]:
            return (
                Component(ComponentId("A"), "tile", "a", 1, (40.0, 40.0)),
                Component(ComponentId("B"), "tile", "b", 1, (40.0, 40.0)),
            )

    with pytest.raises(CatalogError, match="tag 1 already used by 'A'"):
        Dup().components()

    class Lower(ToyGame):
        def _components(self) -> tuple[Component, ...]:
            return (Component(ComponentId("a1"), "tile", "a", 1, (40.0, 40.0)),)

    with pytest.raises(CatalogError, match="id must match"):
        Lower().components()

    class Tiny(ToyGame):
        def _components(self) -> tuple[Component, ...]:
            return (Component(ComponentId("A1"), "tile", "a", 1, (1.0, 40.0)),)

    with pytest.raises(CatalogError, match="impossible size"):
        Tiny().components()


def test_ranking_shares_ties_and_names_the_deciding_tie_break() -> None:
    standings, winners, decided = rank_players(
        {"a": 10, "b": 10, "c": 7},
        [TieBreak("most apexes", {"a": 1, "b": 2, "c": 0})],
    )
    assert winners == ("b",) and decided == "most apexes"
    assert [(s.player, s.rank) for s in standings] == [("b", 1), ("a", 2), ("c", 3)]

    standings, winners, decided = rank_players({"a": 5, "b": 5, "c": 9})
    assert winners == ("c",) and decided is None
    assert [(s.player, s.rank) for s in standings] == [("c", 1), ("a", 2), ("b", 2)]

    _, winners, decided = rank_players(
        {"a": 5, "b": 5}, [TieBreak("fewest tiles", {"a": 3, "b": 3}, lower_wins=True)]
    )
    assert winners == ("a", "b") and decided is not None and "shared" in decided


def test_lower_wins_tie_break_and_sheet_totals() -> None:
    sheet = build_sheet(
        "toy",
        {
            "a": [ScoreLine("tiles", 4, "4 tiles"), ScoreLine("bonus", 2, "x")],
            "b": [ScoreLine("tiles", 6, "6 tiles")],
        },
        [TieBreak("fewest tiles in hand", {"a": 1, "b": 0}, lower_wins=True)],
    )
    assert sheet.score_of("a").total == 6 and sheet.score_of("a").by_rule() == {"tiles": 4, "bonus": 2}
    assert sheet.winners == ("b",) and sheet.tie_break == "fewest tiles in hand"
    assert sheet.to_dict()["players"][0]["total"] == 6


def test_parse_state_is_independent_of_a_game_object() -> None:
    state = parse_state(GOOD, game="toy", components={"T0", "T1", "T2", "T3"}, options={"strict": True})
    assert isinstance(state, BoardState) and len(state.placements) == 4
