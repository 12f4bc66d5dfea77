"""Rainforest: catalog validation, jungle geometry, evidence texts, options and move details."""

from __future__ import annotations

import copy
import json
from collections import Counter
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import CatalogError, StateError, find_game
from scoring.catalog import read_data
from scoring.model import Shape
from scoring.rainforest import GAME, Colour, Rule, ScoreRule, Species
from scoring.rainforest.catalog import build_catalog
from scoring.rainforest.jungle import (
    colour_group,
    fifth_colour_position,
    grid_xy,
    largest_group,
    neighbours,
)
from scoring.state import state_to_json

EXAMPLES = Path(__file__).parent / "examples" / "rainforest"
CAT = GAME.catalog


def _case(name: str) -> dict[str, Any]:
    return json.loads((EXAMPLES / f"{name}.json").read_text("utf-8"))


def _raw() -> tuple[dict[str, Any], list[dict[str, str]], list[dict[str, str]]]:
    edition = copy.deepcopy(read_data("rainforest", "edition.toml"))
    return edition, read_data("rainforest", "tiles.csv"), read_data("rainforest", "tokens.csv")


# -- catalog -----------------------------------------------------------------------


def test_catalog_counts_match_the_box() -> None:
    assert len(CAT.tiles) == 55
    assert Counter(t.pile for t in CAT.tiles.values()) == {c: 11 for c in Colour}
    assert len(CAT.tokens) == 112
    assert Counter((t.species, t.colour) for t in CAT.tokens.values()) == {
        (s, c): 7 for s in Species for c in (Colour.RED, Colour.YELLOW, Colour.BLUE, Colour.PURPLE)
    }
    assert sorted(b.totem.value for b in CAT.boards.values()) == ["butterfly", "frog", "monkey", "parrot"]
    assert len(CAT.protected_areas) == 10
    assert len(CAT.diversity_tokens) == 4
    assert len(GAME.components()) == 55 + 112 + 4 + 1 + 10 + 4 + 1


def test_tiles_respect_the_known_facts() -> None:
    for t in CAT.tiles.values():
        assert 1 <= t.points <= 5 and 1 <= len(t.slots) <= 3
        assert t.colours[0] is t.pile
        assert all(s.colour is not Colour.GREEN for s in t.slots)
    pairs = {frozenset(t.colours) for t in CAT.tiles.values() if t.is_bicolour}
    assert pairs == {frozenset(p) for p in combinations(Colour, 2)}


def test_rulebook_multipliers_and_edition_flags() -> None:
    pa = CAT.protected_areas
    assert (pa["PA-GREEN-3"].size, pa["PA-GREEN-3"].multiplier) == (3, 2)
    assert (pa["PA-GREEN-4"].size, pa["PA-GREEN-4"].multiplier) == (4, 3)
    comps = GAME.component_index
    assert comps["TILE-G06"].edition_data and comps["PA-RED-3"].edition_data
    assert comps["TILE-G06"].lines == ("Green", "3 points", "Slots: any, frog")
    assert comps["TILE-R02"].lines[0] == "Red + Yellow"


def test_component_faces_hold_their_markers() -> None:
    tags = set()
    for c in GAME.components():
        w, h = c.size_mm
        assert min(w, h) >= 22, c.id  # a 16 mm tag with a margin
        if c.kind == "tile":
            # the band above the token slots holds the 16 mm tag and a 20 mm QR code side by side
            assert min(s.y_mm - s.h_mm / 2 for s in c.spaces) >= 20 + 2 * 4 and w >= 16 + 20 + 3 * 4
        for a in c.anchors:
            assert 16 <= a.size_mm <= 20
            assert a.size_mm / 2 <= a.x_mm <= w - a.size_mm / 2
            assert a.size_mm / 2 <= a.y_mm <= h - a.size_mm / 2
        for s in c.spaces:
            assert s.w_mm / 2 <= s.x_mm <= w - s.w_mm / 2, (c.id, s.name)
            assert s.h_mm / 2 <= s.y_mm <= h - s.h_mm / 2, (c.id, s.name)
        tags.update([c.tag, *(a.tag for a in c.anchors)])
    boards = [c for c in GAME.components() if c.kind == "board"]
    assert len(boards) == 5 and all(len(b.anchors) >= 3 for b in boards)
    assert len(tags) == 187 + 5 * 4
    assert GAME.component_index["FROG-R1"].shape is Shape.ROUND
    assert GAME.component_index["FROG-R1"].size_mm == (24.0, 24.0)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda e, t, k: t[0].update(extra="x"), r"tiles.csv row 2: unknown field\(s\) extra"),
        (lambda e, t, k: t[1].update(id="TILE-R01"), "duplicate id 'TILE-R01'"),
        (lambda e, t, k: t[0].update(slots="any|green"), "no species token is green"),
        (lambda e, t, k: t[0].update(points="6"), r"points: 6 outside 1\.\.5"),
        (lambda e, t, k: t[0].update(slots="any|any|any|any"), "1 to 3 token slots"),
        (lambda e, t, k: t[0].update(colours="yellow+red"), "first colour must be the pile's"),
        (lambda e, t, k: t[0].update(pile="blue", colours="blue"), "the red pile has 10 tiles"),
        (lambda e, t, k: t[0].update(tag="360"), "tag 360 of MONKEY-R1 is already used by TILE-R01"),
        (lambda e, t, k: t[0].update(id="tile r01"), "must match"),
        (lambda e, t, k: k.pop(), "6 purple parrot tokens"),
        (lambda e, t, k: k[0].update(colour="green"), "species tokens are never green"),
        (lambda e, t, k: e["protected_areas"].pop(), "one 3-tile and one 4-tile token per colour"),
        (
            lambda e, t, k: e["player_board"]["boards"][0].update(totem="frog"),
            "each totem species exactly once",
        ),
        (
            lambda e, t, k: e["player_board"].update(anchors=[[14.0, 14.0], [246.0, 14.0]]),
            "at least 3 anchor",
        ),
        (lambda e, t, k: e["player_board"].update(J9=[250.0, 80.0]), "space J9 is not inside the board"),
        (
            lambda e, t, k: e["main_board"]["zones"][0].update(token_spaces=[[31.0, 145.0]]),
            "2 to 6 token spaces",
        ),
        (lambda e, t, k: e["sizes"].update(species_token_mm=15.0), "at least 22 mm"),
        (lambda e, t, k: e["colours"]["hex"].update(red="red"), "expected #rrggbb"),
    ],
)
def test_catalog_refuses_bad_data(edit: Any, message: str) -> None:
    edition, tiles, tokens = _raw()
    tiles = [dict(r) for r in tiles]
    tokens = [dict(r) for r in tokens]
    edit(edition, tiles, tokens)
    with pytest.raises(CatalogError, match=message):
        build_catalog(edition, tiles, tokens)


# -- geometry ------------------------------------------------------------------------


def test_placement_order_starts_bottom_left() -> None:
    assert [grid_xy(p) for p in (1, 2, 3, 4, 7, 9)] == [(0, 2), (1, 2), (2, 2), (0, 1), (0, 0), (2, 0)]
    assert sorted(neighbours(1)) == [2, 4]
    assert sorted(neighbours(5)) == [2, 4, 6, 8]
    assert sorted(neighbours(9)) == [6, 8]


def test_colour_groups_count_bicolour_tiles_for_both_colours() -> None:
    t = CAT.tiles
    jungle = {1: t["TILE-Y01"], 2: t["TILE-Y05"], 3: t["TILE-P03"], 4: t["TILE-Y03"], 5: t["TILE-P01"]}
    assert colour_group(jungle, 1, Colour.YELLOW) == {1, 2, 4}
    assert colour_group(jungle, 3, Colour.PURPLE) == {2, 3, 5}
    assert colour_group(jungle, 3, Colour.YELLOW) == frozenset()
    assert largest_group(jungle, Colour.GREEN) == 0
    assert fifth_colour_position(jungle) is None
    jungle[6] = t["TILE-G05"]  # green + blue: two new colours at once
    jungle[7] = t["TILE-R01"]
    assert fifth_colour_position(jungle) == 7


# -- scoring evidence and options ------------------------------------------------------


def test_rf1_evidence_explains_every_point() -> None:
    sheet = GAME.score_sheet(GAME.load_state(_case("RF1_frog_jungle_score")["state"]))
    lines = {line.rule: line for line in sheet.score_of("ana").lines}
    assert [line.rule for line in sheet.score_of("ana").lines] == [r.value for r in ScoreRule]
    assert lines["totem"].evidence == "frog totem: J1 1 + J2 1 + J3 1 + J7 2 + J9 1 = 6"
    assert lines["protected_area"].evidence == (
        "PA-GREEN-3 (x2) on J1 TILE-G06: (3 points + 1 frog) x 2 = 8 -> +4"
    )
    assert lines["diversity"].evidence == "DIV-1 on J7 TILE-P06: 2 tiles placed after it (J8, J9) x 2 = 4"
    assert lines["tiles"].evidence.endswith("J9 TILE-B04 2 = 23")
    assert sheet.notes == ()


def test_unreadable_places_make_a_note() -> None:
    sheet = GAME.score_sheet(GAME.load_state(_case("score_unreadable_place_scores_what_was_read")["state"]))
    assert sheet.score_of("ana").total == 32
    assert any(n.startswith("incomplete: 1 place(s) could not be read (jungle:ana J9)") for n in sheet.notes)


def test_clearing_tiles_are_noted_not_scored() -> None:
    sheet = GAME.score_sheet(GAME.load_state(_case("score_clearing_scores_nothing")["state"]))
    assert sheet.notes == ("ana: 2 tiles in the clearing score nothing (Jungle tile P11, Jungle tile B01)",)
    pa = [line for line in sheet.score_of("ana").lines if line.rule == "protected_area"]
    assert pa[0].points == 0 and "clearing" in pa[0].evidence


def test_options_are_strict() -> None:
    doc = copy.deepcopy(_case("RF1_frog_jungle_score")["state"])
    doc["options"] = {"diversity_counts_unfilled": "yes"}
    with pytest.raises(StateError, match="must be bool"):
        GAME.load_state(doc)
    doc["options"] = {"pa_multiplier": 2}
    with pytest.raises(StateError, match="unknown option"):
        GAME.load_state(doc)
    assert GAME.load_state(_case("RF1_frog_jungle_score")["state"]).options == {
        "diversity_counts_unfilled": False
    }


# -- registry, packaged states, violations ------------------------------------------------


def test_registry_and_packaged_states() -> None:
    assert find_game("Rainforest") is GAME and find_game("rainforest") is GAME
    state = GAME.load_state(GAME.example_state())
    assert GAME.violations(state, state) == ()
    assert GAME.load_state(state_to_json(state)) == state
    assert {s.player: s.total for s in GAME.score_sheet(state).scores} == {"ana": 37, "ben": 40, "chloe": 30}
    before = GAME.load_state(read_data("rainforest", "example_before.json"))
    after = GAME.load_state(read_data("rainforest", "example_after.json"))
    found = GAME.violations(before, after)
    assert {v.code for v in found} == {"rainforest/slot_constraint", "rainforest/take_all"}
    slot = next(v for v in found if v.code == "rainforest/slot_constraint")
    assert slot.message == "Frog (yellow) #1 is in slot 3 of Jungle tile R10, which takes only a blue token"
    assert slot.cells == ("C1",) and slot.area == "clearing:ana"
    assert slot.components == ("FROG-Y1", "TILE-R10")


def test_every_rule_code_has_a_case() -> None:
    seen: set[str] = set()
    for path in EXAMPLES.glob("*.json"):
        seen.update(json.loads(path.read_text("utf-8"))["expect"].get("violations", []))
    assert seen == {r.value for r in Rule}


def test_fill_order_names_the_gap() -> None:
    case = _case("move_fill_order_gap")
    (v,) = GAME.violations(GAME.load_state(case["before"]), GAME.load_state(case["after"]))
    assert v.cells == ("J3",) and v.components == ("TILE-R10",)
    assert "jungle position 3 is empty while jungle position 4 holds a tile" in v.message


def test_violations_report_every_fault_at_once() -> None:
    case = _case("RF3a_purple_parrot_in_blue_slot")
    after = copy.deepcopy(case["after"])
    for p in after["placements"]:
        if p["component"] == "PA-GREEN-4":
            p.clear()
            p.update(component="PA-GREEN-4", area="jungle:ana", on="TILE-G09")
    codes = sorted(v.code for v in GAME.violations(GAME.load_state(case["before"]), GAME.load_state(after)))
    assert codes == ["rainforest/pa_colour_twice", "rainforest/slot_constraint"]


def test_a_clearing_tile_leaves_only_for_the_jungle() -> None:
    case = _case("move_legal_turn_locks_two_tiles")
    after = copy.deepcopy(case["after"])
    after["placements"] = [p for p in after["placements"] if p["component"] != "TILE-Y04"]
    found = GAME.violations(GAME.load_state(case["before"]), GAME.load_state(after))
    assert [(v.code, v.message) for v in found] == [
        ("rainforest/tile_moved", "Jungle tile Y04 left the clearing without being locked into the jungle")
    ]


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.sampled_from(sorted(CAT.tiles)), min_size=0, max_size=9, unique=True),
    st.sampled_from(sorted(CAT.boards)),
)
def test_any_legally_filled_jungle_scores_its_printed_points(tiles: list[str], board: str) -> None:
    """Fill each tile's slots with fitting tokens; no slot fault, and tiles + totem lines add up."""
    free = sorted(CAT.tokens)
    placements: list[dict[str, Any]] = [{"component": board, "area": "player:p"}]
    totem = CAT.boards[board].totem
    expected_totem = 0
    for position, tile_id in enumerate(tiles, 1):
        placements.append({"component": tile_id, "area": "jungle:p", "cell": f"J{position}"})
        for slot, rule in enumerate(CAT.tiles[tile_id].slots, 1):
            token = next(t for t in free if rule.accepts(CAT.tokens[t]))
            free.remove(token)
            expected_totem += CAT.tokens[token].species is totem
            placements.append({"component": token, "area": "jungle:p", "on": tile_id, "slot": slot})
    state = GAME.load_state(
        {"format": 1, "game": "rainforest", "players": [{"id": "p"}], "placements": placements}
    )
    codes = {v.code for v in GAME.violations(state, state)}
    assert not codes & {"rainforest/slot_constraint", "rainforest/fill_order", "rainforest/locked_incomplete"}
    by_rule = GAME.score_sheet(state).score_of("p").by_rule()
    assert by_rule["tiles"] == sum(CAT.tiles[t].points for t in tiles)
    assert by_rule["totem"] == expected_totem


def test_exchanging_the_only_token_taken_keeps_its_zone() -> None:
    """Zone 2 held one frog: Ana takes it (emptying the zone) with the zone's tile and exchanges that very
    frog for zone 1's purple parrot. She holds no token from zone 2, yet her draft was from zone 2."""
    case = _case("review_exchange_a_token_taken_this_turn")
    before, after = copy.deepcopy(case["before"]), copy.deepcopy(case["after"])
    before["placements"] = [p for p in before["placements"] if p["component"] != "FROG-B1"]
    after["placements"] = [p for p in after["placements"] if p["component"] != "FROG-B1"]
    assert GAME.violations(GAME.load_state(before), GAME.load_state(after)) == ()


def test_a_token_from_a_second_zone_needs_the_first_emptied() -> None:
    """Ana takes one of zone 2's two frogs and zone 1's purple parrot: zone 2 was not emptied, so no exchange."""
    case = _case("review_exchange_a_token_taken_this_turn")
    after = copy.deepcopy(case["after"])
    after["placements"] = [
        p for p in after["placements"] if not (p["area"] in ("zone:1", "zone:2") and p.get("cell") != "PILE")
    ] + [
        {"component": "MONKEY-Y1", "area": "zone:1", "cell": "S2"},
        {"component": "FROG-P1", "area": "zone:2", "cell": "S2"},
    ]
    codes = sorted(v.code for v in GAME.violations(GAME.load_state(case["before"]), GAME.load_state(after)))
    assert "rainforest/take_one_kind" in codes
