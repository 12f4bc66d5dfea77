"""Habitats: catalog, geometry, evidence and example states (worked examples are data files)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from scoring import CatalogError, StateError, find_game
from scoring.catalog import read_data
from scoring.habitats import GAME, Goal, Landscape, Side, TileKind, View
from scoring.habitats.catalog import (
    parse_colours,
    parse_goals,
    parse_markets,
    parse_tile,
    parse_tiles,
    parse_track,
)
from scoring.habitats.park import largest_rectangle, longest_run, measure
from scoring.state import state_to_json

EXAMPLES = Path(__file__).parent / "examples" / "habitats"
CAT = GAME.catalog


def case(name: str) -> dict[str, Any]:
    return json.loads((EXAMPLES / f"{name}.json").read_text("utf-8"))


def tile_named(name: str):
    (tile,) = [t for t in CAT.tiles if t.name == name]
    return tile


# -- catalog --------------------------------------------------------------------------


def test_registry_finds_the_game_by_name() -> None:
    assert find_game("Habitats") is GAME
    assert GAME.info.defaults() == {"roads_infinite": True, "own_tile_counts": False, "rays_cross_gaps": True}


def test_edition_has_the_rulebook_tile_mix() -> None:
    kinds = Counter(t.kind for t in CAT.tiles)
    assert len(CAT.tiles) == 112
    assert kinds == {
        TileKind.ANIMAL: 68,
        TileKind.FLOWER: 16,
        TileKind.TOURIST: 8,
        TileKind.ROAD: 12,
        TileKind.WATCHTOWER: 8,
    }
    assert Counter(t.view for t in CAT.tiles if t.view) == {v: 2 for v in View}
    assert {len(t.road_sides): t.points for t in CAT.tiles if t.kind is TileKind.ROAD} == {1: 4, 2: 3, 3: 2}
    flowers = Counter(t.landscape for t in CAT.tiles if t.kind is TileKind.FLOWER)
    assert flowers == {land: 4 for land in Landscape}
    assert all(t.landscape is None for t in CAT.tiles if t.kind is TileKind.WATCHTOWER)
    assert len({t.name for t in CAT.tiles if t.kind is TileKind.ANIMAL}) == 68


def test_rulebook_animal_facts_hold() -> None:
    g, f, d, w = Landscape.GRASSLAND, Landscape.FOREST, Landscape.DRYLAND, Landscape.WATER
    assert dict(tile_named("Hippo").demand) == {g: 1, d: 1, w: 2}
    assert (tile_named("Otter").points, dict(tile_named("Otter").demand)) == (4, {f: 3, w: 1})
    assert (tile_named("Bee").points, tile_named("Bee").flowers) == (2, 1)
    assert (tile_named("Bumblebee").points, tile_named("Bumblebee").flowers) == (3, 2)
    assert tile_named("Meerkat").points == 2 and tile_named("Bushpig").points == 3
    assert dict(tile_named("Impala").demand) == {g: 3}
    assert tile_named("Badger").landscape is g and dict(tile_named("Badger").demand) == {f: 1}
    assert dict(tile_named("Vulture").demand) == {g: 2, d: 1}
    assert tile_named("Giraffe").landscape is g and dict(tile_named("Giraffe").demand) == {g: 1, f: 1, w: 1}
    assert dict(tile_named("Salamander").demand) == {f: 2}
    assert dict(tile_named("Warthog").demand) == {g: 1, f: 1, d: 1, w: 1}
    assert tile_named("Zebra").landscape is g and tile_named("Chimp").landscape is f
    assert tile_named("Croc").landscape is w and tile_named("Ant").landscape is d


def test_year_tables_and_market_layouts() -> None:
    assert CAT.year_scores[(4, 1)] == (3, 2, 1, 0)
    assert CAT.year_scores_edition[(4, 1)] is False
    assert all(CAT.year_scores_edition[k] for k in CAT.year_scores if k != (4, 1))
    assert {n: m.tile_count for n, m in CAT.markets.items()} == {2: 7, 3: 13, 4: 12, 5: 20}
    for layout in CAT.markets.values():
        for (x, y), facing in layout.figures:
            dx, dy = facing.step
            # every figure starts facing across the grid: at least one cell lies ahead
            assert 0 <= x + dx < layout.columns and 0 <= y + dy < layout.rows


def test_road_sides_turn_clockwise() -> None:
    corner = CAT.tile("T094")
    assert corner is not None and corner.road_sides == {Side.E, Side.S}
    assert corner.roads_at(1) == {Side.S, Side.W}
    assert corner.roads_at(3) == {Side.N, Side.E}


ROW = {
    "id": "T900", "tag": "400", "kind": "animal", "name": "Aardwolf", "landscape": "dryland",
    "points": "3", "demand": "G1 D1", "flowers": "", "view": "", "tourist": "", "road_sides": "",
    "edition_data": "true",
}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"kind": "plant"}, "kind 'plant' is not one of"),
        ({"extra": "x"}, "unknown field"),
        ({"demand": "G1 G2"}, "names grassland twice"),
        ({"demand": "X1"}, "must be G/F/D/W"),
        ({"flowers": "2"}, "either a demand or flowers"),
        ({"id": "t900"}, "must match"),
        ({"kind": "watchtower", "points": "", "demand": "", "view": "ring"}, "watchtowers have no landscape"),
        ({"kind": "road", "demand": "", "road_sides": "E S", "points": "4"}, "worth 3 vp, not 4"),
        ({"kind": "road", "demand": "", "road_sides": "E E", "points": "3"}, "distinct road sides"),
        ({"kind": "flower", "demand": "", "points": ""}, ""),
        ({"kind": "tourist", "demand": "", "points": "", "tourist": "HUGE"}, "tourist 'HUGE'"),
        ({"tag": "600"}, "outside 0..586"),
    ],
)
def test_bad_tile_rows_are_refused(change: dict[str, str], message: str) -> None:
    row = {**ROW, **change}
    if change.get("kind") == "flower":
        tile = parse_tile(row, "row")
        assert tile.kind is TileKind.FLOWER and tile.landscape is Landscape.DRYLAND
        return
    with pytest.raises(CatalogError, match=message):
        parse_tile(row, "tiles.csv row 2")


def test_tile_file_needs_112_unique_tiles() -> None:
    rows = read_data("habitats", "tiles.csv")
    with pytest.raises(CatalogError, match="112 park tiles, the file lists 111"):
        parse_tiles(rows[:-1])
    with pytest.raises(CatalogError, match="duplicate id"):
        parse_tiles([*rows[:-1], dict(rows[0])])
    with pytest.raises(CatalogError, match="tag 0 already used by T001"):
        parse_tiles([*rows[:-1], {**rows[-1], "tag": "0"}])


def test_other_catalog_files_are_validated() -> None:
    goals = read_data("habitats", "goals.toml")
    with pytest.raises(CatalogError, match="one tile per goal"):
        parse_goals({"goal": goals["goal"][:-1]})
    track = read_data("habitats", "track.toml")
    with pytest.raises(CatalogError, match="no score table for 5 players, year 3"):
        parse_track({**track, "scores": track["scores"][:-1]})
    bad_scores = [dict(s) for s in track["scores"]]
    bad_scores[0]["points"] = [0, 3]
    with pytest.raises(CatalogError, match="must not grow"):
        parse_track({**track, "scores": bad_scores})
    market = read_data("habitats", "market.toml")
    big = [dict(m) for m in market["layout"]]
    big[3] = {**big[3], "columns": 6}
    with pytest.raises(CatalogError, match="need 115 of the 112 tiles"):
        parse_markets({"layout": big})
    pieces = read_data("habitats", "pieces.toml")
    with pytest.raises(CatalogError, match="5 player colours"):
        parse_colours({"colour": pieces["colour"][:4]})


# -- components -----------------------------------------------------------------------


def test_component_summary() -> None:
    comps = GAME.components()
    kinds = Counter(c.kind for c in comps)
    assert kinds == {"tile": 113, "entrance": 5, "figure": 5, "marker": 5, "goal": 9, "board": 1}
    index = GAME.component_index
    assert index["T001"].tag == 0 and index["T112"].tag == 576 and index["E-RED"].tag == 545
    assert index["T053"].lines[:3] == ("Hippo", "5 vp", "needs 1 grassland, 1 dryland, 2 water in adjacent areas")
    assert index["T094"].lines[2] == "roads: E S"
    for c in comps:
        assert c.lines, c.id
        side = min(c.size_mm)
        assert side >= 22, c.id  # room for a 16 mm tag
        if side >= 40 and c.kind != "board":
            assert side >= 16 + 20 + 6, c.id  # a tag and a 20 mm QR code side by side, with margins
    board = index["TRACK"]
    assert len(board.anchors) == 4 and all(16 <= a.size_mm <= 20 for a in board.anchors)
    names = [s.name for s in board.spaces]
    assert names[:2] == ["S0", "S1"] and "S70" in names and {"Y1", "Y2", "Y3", "TABLE"} <= set(names)
    s11, s12 = (next(s for s in board.spaces if s.name == n) for n in ("S11", "S12"))
    assert (s11.x_mm, s11.y_mm, s12.x_mm, s12.y_mm) == (270.0, 45.0, 270.0, 65.0)  # the track snakes back
    assert index["TRACK-23"].edition_data and not index["G-LONG"].edition_data


# -- worked example H1 ----------------------------------------------------------------


def test_h1_itemised_values_and_total_34() -> None:
    doc = case("H1_park_score")
    state = GAME.load_state(doc["state"])
    scores = {ts.component: ts.points for ts in GAME.tile_scores(state, "yellow")}
    assert scores == doc["expect"]["tiles"]
    assert len(scores) == 17
    total = GAME.score_sheet(state).score_of("yellow").total
    assert total == 34  # the rulebook prints 37; its own itemisation sums to 34


def test_h1_evidence_explains_each_tile() -> None:
    state = GAME.load_state(case("H1_park_score")["state"])
    ev = {ts.component: ts.evidence for ts in GAME.tile_scores(state, "yellow")}
    assert ev["T053"] == (
        "hippo T053 at (0,1): habitat not met: needs grassland 1, dryland 1, water 2 in adjacent areas,"
        " has grassland 1, dryland 3, water 1; worth 5 -> 0"
    )
    assert "sees forest flower (0,-1) 1, meerkat (1,0) 2, bushpig (1,2) 2 -> 5" in ev["T107"]
    assert "3 grassland areas (sizes 2, 2, 1)" in ev["T086"]
    assert ev["T094"].endswith("side(s) W without an adjacent tile, worth 3 -> 0")


# -- geometry and goal measures ---------------------------------------------------------


def test_rectangle_and_runs() -> None:
    l_shape = frozenset({(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (0, 2)})
    assert largest_rectangle(l_shape) == (4, (2, 2))
    assert longest_run(l_shape, ((1, 0), (0, 1))) == 3
    assert longest_run(l_shape, ((1, 1), (1, -1))) == 3  # (0,2) (1,1) (2,0)
    assert largest_rectangle(frozenset()) == (0, (0, 0))


MEASURES = {
    Goal.BIGGEST_AREA: ((2, 2, 1, 1, 1, 1), (3, 3, 2, 1, 1)),
    Goal.MANY_AREAS: ((6,), (5,)),
    Goal.LONG_PARK: ((5,), (5,)),
    Goal.DIAGONAL_LONG_PARK: ((3,), (3,)),
    Goal.LANDSCAPE_TYPES: ((4, 2), (4, 1)),
    Goal.FLORA_DIVERSITY: ((3, 4), (3, 6)),
    Goal.COMPACT_PARK: ((6,), (10,)),
    Goal.KEEP_IT_CLOSE: ((4,), (4,)),
    Goal.ACCESSIBILITY: ((4,), (3,)),
}


@pytest.mark.parametrize("goal", list(Goal))
def test_goal_measures_on_two_parks(goal: Goal) -> None:
    state = GAME.load_state(case("goal_many_areas_measured")["state"])
    red, blue = (measure(GAME.park_of(state, p), goal).key for p in ("red", "blue"))
    assert (red, blue) == MEASURES[goal]


def test_biggest_area_extra_area_beats_none() -> None:
    doc = case("H3_biggest_area_tiebreak")["state"]
    doc = {**doc, "extras": {"goal_results": {"Y1": {"red": [3, 2], "blue": [2, 3, 1]}}}}
    sheet = GAME.score_sheet(GAME.load_state(doc))
    assert {s.player: s.total for s in sheet.scores} == {"red": 0, "blue": 3}


def test_goal_evidence_names_the_tie() -> None:
    sheet = GAME.score_sheet(GAME.load_state(case("H2_goal_tie")["state"]))
    (line,) = sheet.score_of("red").lines
    assert line.evidence == (
        "year 1 goal Many areas: 7 areas, as recorded; tied 1st-2nd with blue, scores as 2nd;"
        " points by place 3/2/1/0 -> 2"
    )
    assert sheet.tie_break == "shared victory: still tied after every tie-break"


# -- notes, options and states -----------------------------------------------------------


def test_unknown_places_make_the_sheet_incomplete() -> None:
    doc = case("H1_park_score")["state"]
    doc = {**doc, "unknown": [{"area": "park:yellow", "cell": [3, 2], "note": "glare"}]}
    sheet = GAME.score_sheet(GAME.load_state(doc))
    assert any(n.startswith("incomplete: the scanner could not read 1 place(s) (park:yellow (3,2))") for n in sheet.notes)
    assert sheet.score_of("yellow").total == 34


def test_unknown_cell_counts_as_occupied_for_adjacency() -> None:
    before = GAME.load_state(case("park_not_adjacent")["before"])
    doc = case("park_not_adjacent")["after"]
    after = GAME.load_state({**doc, "unknown": [{"area": "park:red", "cell": [3, -1]}]})
    assert [v.code for v in GAME.violations(before, after)] == []


def test_loose_tiles_get_a_note() -> None:
    after = GAME.load_state(case("park_not_adjacent")["after"])
    notes = GAME.score_sheet(after).notes
    assert any("not connected to the entrance: bonobo at (3,-2)" in n for n in notes)


def test_missing_year_results_are_noted_not_guessed() -> None:
    doc = case("goal_three_years")["state"]
    doc = {**doc, "extras": {"goal_results": {"Y2": {"red": 2, "blue": 3}}}}
    sheet = GAME.score_sheet(GAME.load_state(doc))
    assert sheet.score_of("red").by_rule().get("year1_goal", 0) == 0
    assert any("year 1 goal Long park: results not recorded" in n for n in sheet.notes)


def test_violation_details_point_at_the_cells() -> None:
    doc = case("H4_road_side_touched")
    (v,) = GAME.violations(GAME.load_state(doc["before"]), GAME.load_state(doc["after"]))
    assert (v.code, v.area, v.cells, v.components) == ("park/road_blocked", "park:red", ((2, 0), (1, 0)), ("T018", "T093"))


def test_identical_states_are_no_move() -> None:
    state = GAME.load_state(case("move_legal_head")["before"])
    assert GAME.violations(state, state) == ()


def test_state_round_trips() -> None:
    state = GAME.load_state(GAME.example_state())
    assert GAME.load_state(state_to_json(state)) == state


# -- shipped examples -------------------------------------------------------------------


def test_example_is_a_complete_three_player_game() -> None:
    state = GAME.load_state(GAME.example_state())
    assert [p.id for p in state.players] == ["yellow", "red", "blue"]
    for p in state.players:
        # 8 + 6 + 6 turns with 3 players, plus the entrance
        assert len(state.in_area(f"park:{p.id}")) == 21
    market = state.in_area("market")
    assert len(market) == 16 and sum(1 for m in market if m.component.startswith("F-")) == 3
    sheet = GAME.score_sheet(state)
    assert sheet.notes == ()
    for score in sheet.scores:
        goal_points = sum(line.points for line in score.lines if line.rule.endswith("_goal"))
        marker = next(p for p in state.in_area("track") if p.component == f"M-{score.player.upper()}")
        assert marker.cell == f"S{goal_points}"  # the track shows the yearly goal points
        assert {"year1_goal", "year2_goal", "year3_goal", "animals", "flowers"} <= set(score.by_rule())


def test_example_move_is_illegal() -> None:
    before = GAME.load_state(read_data("habitats", "example_before.json"))
    after = GAME.load_state(read_data("habitats", "example_after.json"))
    assert sorted(v.code for v in GAME.violations(before, after)) == [
        "market/figure_facing",
        "park/entrance_column",
    ]


def test_state_errors_name_the_entry() -> None:
    doc = {
        "format": 1,
        "game": "habitats",
        "players": [{"id": "red"}],
        "placements": [
            {"component": "E-RED", "area": "park:red", "cell": [0, 0]},
            {"component": "T001", "area": "park:red", "cell": "P1"},
        ],
    }
    with pytest.raises(StateError, match=r"placements\[1\] \(T001\): park:red cells are \[x, y\]"):
        GAME.load_state(doc)
