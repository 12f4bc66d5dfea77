"""Hints for the piece in hand: sound on the example states and on random legal continuations."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import BoardState, StateError, find_game
from scoring.catalog import read_data
from scoring.hints import (
    HintError,
    Refusal,
    Spot,
    apply_place,
    explain,
    find_hints,
    hints_to_json,
    holdable,
    market_choices,
)

from .hintcheck import check_answer

GAMES = ("habitats", "borneo", "rainforest", "biomos", "phylo")
HERE = Path(__file__).parent / "hint_states"
#: Where random continuations start: the example before a move, except for BIOME Borneo, whose
#: examples leave no single tile able to earn a card alone; its mid-game state (the example before
#: a move with Termites and a Cicada in the gallery and one more tile per hand) does.
STARTS = {g: "example_before.json" for g in GAMES} | {"borneo": "borneo_midgame.json"}


def load(game_id: str, name: str) -> BoardState:
    if (HERE / name).is_file():
        return find_game(game_id).load_state(json.loads((HERE / name).read_text("utf-8")))
    return find_game(game_id).load_state(read_data(game_id, name))


def questions(state: BoardState, rng: random.Random, per_player: int) -> list[tuple[str, str]]:
    out = []
    for p in state.players:
        held = list(holdable(state, p.id))
        rng.shuffle(held)
        out += [(c, p.id) for c in held[:per_player]]
    return out


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("name", ["example_before.json", "example.json", "start"])
def test_example_states(game_id: str, name: str) -> None:
    name = STARTS[game_id] if name == "start" else name
    rng = random.Random(32)
    state = load(game_id, name)
    asked = questions(state, rng, 2)
    assert asked, "the example offers something to hold"
    for component, player in asked:
        check_answer(state, component, player, rng)


def walk(state: BoardState, rng: random.Random, turns: int) -> BoardState:
    """A random legal continuation: each turn a random player plays a random listed spot."""
    for _ in range(turns):
        options = []
        for component, player in questions(state, rng, 3):
            spots = find_hints(state, component, player).spots
            if spots:
                options.append((component, player, spots))
                break
        if not options:
            return state
        component, player, spots = options[0]
        before = find_hints(state, component, player).before
        state = apply_place(before, rng.choice(spots).place)
    return state


@pytest.mark.parametrize("game_id", GAMES)
@settings(max_examples=4, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**16), turns=st.integers(1, 4))
def test_random_continuations(game_id: str, seed: int, turns: int) -> None:
    rng = random.Random(seed)
    game = find_game(game_id)
    state = walk(load(game_id, STARTS[game_id]), rng, turns)
    state = game.load_state(_doc(state))  # the continuation is a valid state
    for component, player in questions(state, rng, 1)[:2]:
        check_answer(state, component, player, rng, sample=80)


def _doc(state: BoardState) -> dict:
    from scoring.state import state_to_json

    return state_to_json(state)


def test_spots_exist_for_every_game() -> None:
    """The checks above must not pass vacuously: each game's before-example has a legal spot somewhere."""
    for game_id in GAMES:
        state = load(game_id, STARTS[game_id])
        rng = random.Random(1)
        found = any(find_hints(state, c, p).spots for c, p in questions(state, rng, 6))
        assert found, game_id


def test_habitats_road_tile_orientations() -> None:
    """A road tile is proposed once per distinct set of road sides; the roads decide legality."""
    state = load("habitats", "example_before.json")
    hints = find_hints(state, "T095", "yellow", with_refused=True)  # a 3-road tile in the market
    assert {s.place.placement.rotation for s in hints.spots} | {
        r.place.placement.rotation for r in hints.refused
    } == {0, 1, 2, 3}
    codes = {v.code for r in hints.refused for v in r.violations}
    assert {"park/road_blocked", "park/road_line"} <= codes


def test_habitats_best_spot_by_hand() -> None:
    """Yellow's flower T076 beside its butterfly: hand-counted +6 (animals +5 from the butterflies, flowers +1)."""
    state = load("habitats", "example_before.json")
    hints = find_hints(state, "T076", "yellow")
    assert hints.best is not None and hints.best.total == 6
    assert {g.rule: g.points for g in hints.best.gains} == {"animals": 5, "flowers": 1}
    refused = explain(state, "T076", "yellow", {"cell": [0, 1]})
    assert isinstance(refused, Refusal)
    assert [v.code for v in refused.violations] == ["park/entrance_column"]
    assert "column below the entrance" in refused.violations[0].message


def test_explain_agrees_with_the_list() -> None:
    state = load("phylo", "example_before.json")
    hints = find_hints(state, "DOUGFIR", "a")
    best = hints.best
    assert best is not None
    cell = list(best.place.placement.cell)
    verdict = explain(state, "DOUGFIR", "a", {"cell": cell, "rotation": 0})
    assert isinstance(verdict, Spot) and verdict.total == best.total
    wrong = explain(state, "DOUGFIR", "a", {"cell": cell, "rotation": 2})
    assert isinstance(wrong, Refusal)
    assert "phylo/wrong_orientation" in {v.code for v in wrong.violations}


def test_market_choices_ranked_by_best_spot() -> None:
    for game_id, player in (("habitats", "yellow"), ("rainforest", "ana"), ("borneo", "blue")):
        state = load(game_id, "example_before.json")
        choices = market_choices(state, player)
        assert choices, game_id
        totals = [c.best.total for c in choices if c.best is not None]
        assert totals == sorted(totals, reverse=True)
        for c in choices:
            assert c.reason
            if c.best is not None:
                assert c.best.total == find_hints(state, c.component, player).best.total  # type: ignore[union-attr]


def test_habitats_market_choice_is_a_legal_draft() -> None:
    """A ranked market tile, taken with the figure's step and laid at its best spot, passes the whole check."""
    state = load("habitats", "example_before.json")
    game = find_game("habitats")
    from scoring.hints import Place

    for choice in market_choices(state, "yellow"):
        assert choice.best is not None
        whole = Place("draft", "draft", (choice.best.place.changes[0], *choice.take))
        assert game.violations(state, apply_place(state, whole)) == ()


def test_bad_questions() -> None:
    state = load("habitats", "example_before.json")
    with pytest.raises(HintError, match="not a park tile"):
        find_hints(state, "F-RED", "yellow")
    with pytest.raises(HintError, match="unknown component"):
        find_hints(state, "NOPE", "yellow")
    with pytest.raises(HintError, match="placed tiles never move"):
        find_hints(state, "T065", "yellow")
    with pytest.raises(StateError):
        find_hints(state, "T076", "nobody")
    with pytest.raises(HintError, match="'cell'"):
        explain(state, "T076", "yellow", {"cell": "A1"})


def test_json_shape() -> None:
    state = load("biomos", "example_before.json")
    doc = hints_to_json(find_hints(state, "DESERT-03", "red", with_refused=True))
    assert doc["best"] == doc["spots"][0]["total"] == 5
    first = doc["spots"][0]
    assert first["placement"] == {"component": "DESERT-03", "area": "planet:red", "cell": "P2"}
    assert {"component": "B-SHRUBLAND", "to": {"component": "B-SHRUBLAND", "area": "biomes:red"}} in first["changes"] or any(
        c["to"] and c["to"]["area"] == "biomes:red" for c in first["changes"]
    )
    assert first["gains"] == [{"rule": "biomes", "points": 5}]
    assert all(r["violations"] and r["legal"] is False for r in doc["refused"])


def test_board_space_of_a_named_cell() -> None:
    """A spot on a named space is drawn on the printed board it belongs to, at that space's centre."""
    from scoring.hints import board_space

    state = load("biomos", "example_before.json")
    hints = find_hints(state, "DESERT-03", "red")
    spot = next(s for s in hints.spots if s.place.placement.cell == "MOON")
    board = board_space(hints.before, spot.place.placement)
    planet = find_game("biomos").component_index["PLANET1-D"]
    moon = next(s for s in planet.spaces if s.name == "MOON")
    assert board == {"component": "PLANET1-D", "size_mm": list(planet.size_mm), "at_mm": [moon.x_mm, moon.y_mm]}
    state = load("rainforest", "example_before.json")
    hints = find_hints(state, "TILE-G01", "ana")
    assert board_space(hints.before, hints.spots[0].place.placement)["component"] == "BOARD-FROG"  # type: ignore[index]
    park = find_hints(load("habitats", "example_before.json"), "T076", "yellow")
    assert board_space(park.before, park.spots[0].place.placement) is None  # a grid cell: no board


def test_rainforest_full_clearing_says_why() -> None:
    """With three tiles in the clearing a fourth has no spot, and the refusal names the clearing rule."""
    state = load("rainforest", "example_before.json")
    used = {p.cell for p in state.in_area("clearing:ana")}
    assert used >= {"C1", "C2"}
    doc = _doc(state)
    if "C3" not in used:
        doc["placements"].append({"component": "TILE-B01", "area": "clearing:ana", "cell": "C3"})
    full = find_game("rainforest").load_state(doc)
    hints = find_hints(full, "TILE-G01", "ana", with_refused=True)
    assert hints.spots == ()
    assert [v.code for r in hints.refused for v in r.violations] == ["rainforest/clearing_full"]
