"""PHYLO: catalog validation, the points formula, geometry, food links, evidence texts and options."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from scoring import CatalogError, StateError, find_game
from scoring.catalog import ID_PATTERN
from scoring.phylo import GAME
from scoring.phylo.catalog import (
    CardKind,
    Climate,
    Diet,
    Terrain,
    build_decks,
    parse_cards,
    parse_events,
    parse_species,
)
from scoring.phylo.rules import Rule
from scoring.phylo.table import food_link, owner_of, steps
from scoring.state import state_to_json

EXAMPLES = Path(__file__).parent / "examples" / "phylo"
CAT = GAME.catalog

PLAYERS = [{"id": "a", "name": "Ana", "seat": 0}, {"id": "b", "name": "Ben", "seat": 1}]
HOMES = [
    {"component": "HOME-A", "area": "table", "cell": [0, 0]},
    {"component": "HOME-B", "area": "table", "cell": [0, -1], "rotation": 2},
]


def state(*placements: dict[str, Any], **top: Any) -> dict[str, Any]:
    doc = {"format": 1, "game": "phylo", "players": PLAYERS, "placements": [*HOMES, *placements]}
    doc.update(top)
    return doc


def card(cid: str, x: int, y: int, rotation: int = 0) -> dict[str, Any]:
    return {"component": cid, "area": "table", "cell": [x, y], "rotation": rotation}


def species_row(**over: Any) -> dict[str, Any]:
    row = {
        "key": "TESTFISH",
        "common_name": "Test Fish",
        "latin_name": "Piscis probatus",
        "kingdom": "Animalia",
        "phylum": "Chordata",
        "class": "Actinopterygii",
        "diet": "carnivore",
        "foodchain": "3",
        "scale": "5",
        "climates": "cool",
        "terrains": "salt_water",
        "move": "1",
        "flight": "no",
        "keywords": "",
        "prey_foodchains": "",
        "points": "9",
        "points_source": "formula",
        "edition_data": "true",
        "text": "A fish for tests.",
    }
    row.update(over)
    return row


# -- catalog ---------------------------------------------------------------------


def test_registry_finds_phylo_by_id_and_name() -> None:
    assert find_game("phylo") is GAME
    assert find_game("PHYLO") is GAME


def test_every_card_is_a_marker_safe_component_with_its_own_tag() -> None:
    comps = GAME.components()
    assert len(comps) == 45
    assert len({c.id for c in comps}) == 45 and len({c.tag for c in comps}) == 45
    assert all(ID_PATTERN.fullmatch(c.id) for c in comps)
    assert {c.kind for c in comps} == {"species", "event", "home"}
    assert all(c.size_mm == (63.5, 88.9) for c in comps)


def test_two_starter_decks_each_with_one_home() -> None:
    sizes = {d.id: len(d.cards) for d in CAT.decks}
    assert sizes == {"A": 23, "B": 22}
    for deck in CAT.decks:
        homes = [c for c in deck.cards if CAT.cards[c].kind is CardKind.HOME]
        assert len(homes) == 1


def test_events_cover_wildfire_oil_spill_climate_change_and_habitat_loss() -> None:
    assert {e.name for e in CAT.events.values()} == {
        "Wildfire",
        "Oil Spill",
        "Climate Change",
        "Habitat Loss",
    }


def test_face_lines_show_points_requirements_and_diet_colour() -> None:
    orca = GAME.component_index["ORCA"]
    assert orca.lines[0] == "Killer Whale - 10 pts"
    assert orca.lines[2] == "FOODCHAIN#3 carnivore SCALE 8"
    assert orca.lines[3] == "Climate: cold, cool"
    assert orca.colour == "#c0392b"  # red: the rulebook's carnivore colour
    assert GAME.component_index["GULL"].lines[5] == "FLIGHT 4"


def test_points_formula_by_hand() -> None:
    f = CAT.formula
    # carnivore 7, one terrain +1, two climates 0 -> 8; the printed card says 10
    assert f.points(CAT.species["ORCA"]) == 8 and CAT.species["ORCA"].points == 10
    # autotroph 2, one terrain +1, two climates 0 -> 3; printed 4
    assert f.points(CAT.species["GIANTKELP"]) == 3
    # 2 - 1 (three terrains) + 0 - 1 (invasive) = 0, raised to the minimum 1
    assert f.points(CAT.species["HBLACKBRY"]) == 1
    # 7 - 1 (4 terrains) - 1 (4 climates) - 1 (FLIGHT 3) = 4
    assert f.points(CAT.species["HORNEDOWL"]) == 4
    # omnivore 3 + 1 (salt water only) + 0 - 1 (invasive) = 3
    assert f.points(CAT.species["GREENCRAB"]) == 3


def test_formula_points_are_checked_on_load() -> None:
    with pytest.raises(CatalogError, match="species TESTFISH: points 8 but the published formula gives 9"):
        parse_species([species_row(points="8")], CAT.formula, source="phylo/species.csv")
    fish = parse_species([species_row(points="9")], CAT.formula, source="phylo/species.csv")["TESTFISH"]
    assert fish.points == 9  # 7 + 1 (one terrain) + 1 (one climate)


@pytest.mark.parametrize(
    ("over", "message"),
    [
        ({"climates": "cool;balmy"}, "unknown value 'balmy'"),
        ({"diet": "herbivore", "foodchain": "1"}, "autotrophs and only autotrophs"),
        ({"terrains": ""}, "needs at least one value"),
        ({"prey_foodchains": "2"}, "only for the black"),
        ({"diet": "special", "points_source": "printed"}, "must list prey_foodchains"),
        ({"flight": "yes", "move": "0"}, "FLIGHT needs a MOVE"),
        ({"key": "bad key"}, "must match"),
    ],
)
def test_bad_species_rows_name_file_and_entry(over: dict[str, Any], message: str) -> None:
    with pytest.raises(CatalogError, match=message) as info:
        parse_species([species_row(**over)], CAT.formula, source="phylo/species.csv")
    assert "phylo/species.csv" in str(info.value)


def test_duplicate_species_and_unknown_fields_are_refused() -> None:
    with pytest.raises(CatalogError, match="duplicate key"):
        parse_species([species_row(), species_row()], CAT.formula, source="s.csv")
    with pytest.raises(CatalogError, match="unknown field"):
        parse_species([species_row(colour="red")], CAT.formula, source="s.csv")


def test_event_effects_need_their_parameter() -> None:
    row = {
        "key": "FLOOD",
        "name": "Flood",
        "text": "Water everywhere.",
        "target_kingdoms": [],
        "target_terrains": [],
        "target_climates": [],
        "effect": "terrain_becomes",
        "radius": 0,
        "affects_kingdoms": [],
        "affects_terrains": [],
        "duration": "persistent",
        "edition_data": True,
    }
    with pytest.raises(CatalogError, match="terrain_becomes needs `terrain`"):
        parse_events([row], source="phylo/events.toml")
    ev = parse_events([{**row, "terrain": "fresh_water"}], source="phylo/events.toml")["FLOOD"]
    assert ev.terrain is Terrain.FRESH_WATER
    with pytest.raises(CatalogError, match="discard effect is immediate"):
        parse_events([{**row, "effect": "discard"}], source="phylo/events.toml")


def test_cards_need_known_refs_and_unique_tags() -> None:
    rows = [
        {"id": "ORCA", "deck": "B", "kind": "species", "ref": "ORCA", "tag": "7"},
        {"id": "ORCA-2", "deck": "B", "kind": "species", "ref": "ORCA", "tag": "7"},
    ]
    with pytest.raises(CatalogError, match="tag 7 already used by ORCA"):
        parse_cards(rows, CAT.species, CAT.events, ["B"], source="phylo/cards.csv")
    with pytest.raises(CatalogError, match="unknown species 'NESSIE'"):
        parse_cards([{**rows[0], "ref": "NESSIE"}], CAT.species, CAT.events, ["B"], source="c.csv")


def test_a_deck_holds_20_to_25_cards() -> None:
    small = {k: v for k, v in list(CAT.cards.items())[:10]}
    with pytest.raises(CatalogError, match="deck A: 10 cards"):
        build_decks([{"id": "A", "name": "Small", "edition_data": True}], small, source="e.toml")


# -- geometry and food links -----------------------------------------------------------


def test_rotation_maps_to_seats_for_four_players() -> None:
    four = GAME.load_state(
        {
            "format": 1,
            "game": "phylo",
            "placements": [],
            "players": [{"id": p, "seat": s} for p, s in (("s", 0), ("n", 1), ("w", 2), ("e", 3))],
        }
    )
    assert [owner_of(four, r) for r in range(4)] == ["s", "w", "n", "e"]


def test_flight_counts_king_steps() -> None:
    assert steps((3, 0), (0, 3), flight=True) == 3
    assert steps((3, 0), (0, 3), flight=False) == 6
    assert steps((0, 0), (0, -2), flight=False) == 2


def test_food_links_by_diet() -> None:
    s = CAT.species
    crab, urchin, kelp, herring = s["GREENCRAB"], s["PURPURCHN"], s["BULLKELP"], s["HERRING"]
    assert food_link(crab, kelp) == (True, False)  # omnivore eating a plant: no scale limit
    assert food_link(crab, urchin) == (True, True)  # omnivore eating meat: scale limited
    assert food_link(crab, herring) == (False, True)  # same level is never food
    assert food_link(s["TARDIGRAD"], kelp) == (True, False)
    assert food_link(s["BALDEAGLE"], s["DAPHNIA"])[0] is False  # FC4 needs FC3
    special = replace(herring, diet=Diet.SPECIAL, prey_foodchains=(1,))
    assert food_link(special, kelp) == (True, False)
    assert food_link(special, urchin)[0] is False


def test_habitat_loss_makes_the_space_urban() -> None:
    st = GAME.load_state(
        state(
            card("DOUGFIR", 1, -1, 2),
            card("BEAVER", 2, -1, 2),
            {"component": "HABLOSS-1", "area": "table", "on": "BEAVER"},
        )
    )
    from scoring.phylo.table import build_table

    table = build_table(st, CAT)
    assert table.by_id["BEAVER"].terrains == frozenset({Terrain.URBAN})
    assert table.by_id["BEAVER"].climates == frozenset({Climate.COOL, Climate.WARM})
    assert not table.is_viable("BEAVER") and table.is_viable("DOUGFIR")


# -- moves: evidence texts -----------------------------------------------------------


def test_violation_names_card_cell_and_reason() -> None:
    before = GAME.load_state(state(card("DOUGFIR", 1, 0), card("MULEDEER", 2, 0)))
    after = GAME.load_state(state(card("DOUGFIR", 1, 0), card("MULEDEER", 2, 0), card("HORNEDOWL", 3, 0)))
    (v,) = GAME.violations(before, after)
    assert v.code == Rule.PREY_TOO_LARGE.value
    assert v.message == "Great Horned Owl played: prey Mule Deer (scale 7) is larger than scale 6"
    assert v.components == ("HORNEDOWL",) and v.cells == ((3, 0),)
    assert v.cells == ((3, 0),) and v.components == ("HORNEDOWL",) and v.area == "table"


def test_every_rule_code_is_produced_by_an_example_case() -> None:
    seen: set[str] = set()
    for path in EXAMPLES.glob("*.json"):
        seen.update(json.loads(path.read_text("utf-8"))["expect"].get("violations", []))
    assert {r.value for r in Rule} <= seen


def test_move_without_extras_infers_the_active_player_from_orientation() -> None:
    before = GAME.load_state(state())
    after = GAME.load_state(state(card("SALAL", 1, 0, 2), card("REDCEDAR", -1, 0)))
    codes = [v.code for v in GAME.violations(before, after)]
    assert codes == [Rule.WRONG_ORIENTATION.value]  # the first new card faces b; the cedar faces a


# -- score sheets and options -----------------------------------------------------------


def test_score_evidence_and_notes() -> None:
    doc = state(
        card("GIANTKELP", 1, 0),
        card("TARDIGRAD", 2, 0),
        card("ORCA", 3, 0),
        card("STELLER", 4, 0, 2),
        unknown=[{"area": "table", "cell": [5, 0], "note": "glare"}],
        extras={"end": {"last_card_drawn_by": "a", "turns_since": 0}},
    )
    sheet = GAME.score_sheet(GAME.load_state(doc))
    a_lines = [line.evidence for line in sheet.score_of("a").lines]
    assert a_lines[-1] == "Killer Whale at (3,0): 10 points (eats Water Bear at (2,0))"
    (b_line,) = sheet.score_of("b").lines
    assert (b_line.rule, b_line.points) == ("discarded", 0)
    assert "no compatible neighbour is food for a FOODCHAIN#3 carnivore" in b_line.evidence
    assert any(n.startswith("incomplete: 1 place") for n in sheet.notes)
    assert any("not over yet" in n for n in sheet.notes)
    assert sheet.winners == ("a",)


def test_keywords_option_defaults_on_and_is_typed() -> None:
    assert GAME.load_state(state()).options == {"keywords": True}
    with pytest.raises(StateError, match="'keywords' must be bool"):
        GAME.load_state(state(options={"keywords": "no"}))
    with pytest.raises(StateError, match="unknown option"):
        GAME.load_state(state(options={"challenge": True}))


def test_unknown_extras_are_refused() -> None:
    with pytest.raises(StateError, match="unknown key"):
        GAME.load_state(state(extras={"turn": 4}))
    with pytest.raises(StateError, match="extras.end"):
        GAME.load_state(state(extras={"end": {"last_card_drawn_by": "a", "turns_since": -1}}))


def test_shipped_examples_score_and_fail_as_documented() -> None:
    example = GAME.load_state(GAME.example_state())
    sheet = GAME.score_sheet(example)
    assert {s.player: s.total for s in sheet.scores} == {"a": 48, "b": 44}
    assert not any("not over" in n for n in sheet.notes)
    assert GAME.load_state(state_to_json(example)) == example
    from scoring.catalog import read_data

    before = GAME.load_state(read_data("phylo", "example_before.json"))
    after = GAME.load_state(read_data("phylo", "example_after.json"))
    assert sorted(v.code for v in GAME.violations(before, after)) == [
        "phylo/invasive_mismatch",
        "phylo/no_food",
    ]
    assert GAME.violations(before, before) == ()


def test_discarded_line_names_the_event_that_changed_the_card() -> None:
    example = GAME.load_state(GAME.example_state())
    lines = GAME.score_sheet(example).score_of("b").lines
    (orca,) = [line for line in lines if line.rule == "discarded"]
    assert orca.evidence == (
        "Killer Whale at (3,-1): worth 10, discarded with no food chain: no neighbour shares a climate"
        " and a terrain with it; changed by Climate Change -> 0"
    )


def test_reaction_turn_without_extras_infers_the_player_from_the_discarded_cards() -> None:
    # B's Beaver lost its Douglas Fir to A's Wildfire; in B's next turn B cannot save it and
    # discards it. Nothing new lies on the table, so no card's orientation names the player:
    # the player is the owner of the cards discarded without a food chain, and the move is legal.
    before = GAME.load_state(state(card("BEAVER", 2, -1, 2), card("SALAL", -1, 0)))
    after = GAME.load_state(
        state(card("SALAL", -1, 0), {"component": "BEAVER", "area": "discard:b"})
    )
    assert GAME.violations(before, after) == ()


def test_event_turn_without_active_infers_the_player_from_the_event_card() -> None:
    # A's Snowshoe Hare has had no food since B's last turn. In A's turn A only plays an Oil
    # Spill (now in A's discard pile) and leaves the hare on the table: A's reaction turn is
    # over, so the hare had to go to the discard pile.
    before = GAME.load_state(
        state(card("SNOWHARE", 1, 0), card("GIANTKELP", 1, -1, 2), card("TARDIGRAD", 2, -1, 2))
    )
    after = GAME.load_state(
        state(
            card("SNOWHARE", 1, 0),
            {"component": "OILSPILL-1", "area": "discard:a"},
            {"component": "GIANTKELP", "area": "discard:b"},
            {"component": "TARDIGRAD", "area": "discard:b"},
            extras={"events": [{"card": "OILSPILL-1", "target": "GIANTKELP"}]},
        )
    )
    assert [v.code for v in GAME.violations(before, after)] == [Rule.NOT_DISCARDED.value]


def test_p3_scale_three_carnivore_may_not_eat_scale_six_prey() -> None:
    # P3 as stated: a FOODCHAIN#3 carnivore of SCALE 3 next to a FOODCHAIN#2 species of SCALE 6.
    from scoring.phylo.table import scale_ok

    s = CAT.species
    hunter = replace(s["HERRING"], scale=3)
    prey = replace(s["PURPURCHN"], scale=6)
    assert food_link(hunter, prey) == (True, True)  # the right level, and meat: the scale limit applies
    assert scale_ok(hunter, prey) is False
    assert scale_ok(hunter, replace(prey, scale=3)) is True  # equal SCALE may be eaten
