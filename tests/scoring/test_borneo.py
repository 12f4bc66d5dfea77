"""BIOME Borneo: catalog facts and validation, jungle geometry, access, evidence texts, options."""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import CatalogError, StateError, find_game
from scoring.borneo import GAME, Rule
from scoring.borneo import catalog as catalog_module
from scoring.borneo.catalog import Edge, Layer, Tier, load_catalog
from scoring.borneo.jungle import Jungle, PlacedTile
from scoring.model import Shape
from scoring.state import state_to_json

EXAMPLES = Path(__file__).parent / "examples" / "borneo"
CAT = GAME.catalog


def _case(name: str) -> dict[str, Any]:
    return json.loads((EXAMPLES / f"{name}.json").read_text("utf-8"))


def _state(placements: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "format": 1,
        "game": "borneo",
        "players": [{"id": "red", "name": "Red"}, {"id": "blue", "name": "Blue"}],
        "placements": placements,
        **extra,
    }


def _placed(tile: str, platform: str, slot: str, rotation: int = 0) -> PlacedTile:
    return PlacedTile(CAT.tiles[tile], (platform, slot), CAT.platforms[platform].layer, rotation)


# -- catalog facts -----------------------------------------------------------------------


def test_component_counts_match_the_rulebook() -> None:
    layers = Counter(p.layer for p in CAT.platforms.values())
    assert layers == {Layer.EMERGENT: 1, Layer.CANOPY: 3, Layer.UNDERSTORY: 3}
    assert len(CAT.tiles) == 45
    assert len(CAT.animals) == 83
    assert Counter(s.tier for s in CAT.species.values()) == {Tier.PRIMARY: 7, Tier.SECONDARY: 15, Tier.APEX: 5}
    assert len(CAT.plant_cards) == 6
    assert Counter(a.name for a in CAT.actions.values()) == {
        "Winds of Change": 2, "Blight": 2, "Opportunist": 2,
        "Forest Fire": 1, "Flood": 1, "Logging": 1, "Drought": 1,
    }
    assert len(CAT.bonuses) == 8
    main_deck = len(CAT.animals) + len(CAT.plant_cards) + len(CAT.actions)
    assert main_deck == 99
    assert len(CAT.plants) == 11
    assert len(GAME.components()) == 7 + 45 + 99 + 8 + 4 + 4


def test_stated_points_and_prey_lists() -> None:
    points = {s: CAT.species[s].points for s in (
        "BEES", "LANTERN", "CICADA", "SPIDER", "TADPOLES", "HORNBILL", "TERMITES", "SUNBEAR", "MOTH")}
    assert points == {"BEES": 2, "LANTERN": 1, "CICADA": 1, "SPIDER": 3, "TADPOLES": 2, "HORNBILL": 4,
                      "TERMITES": 2, "SUNBEAR": 4, "MOTH": 1}
    assert set(CAT.species["VIPER"].prey) == {"TADPOLES", "DRACO", "FROG"}
    assert CAT.species["VIPER"].tier is Tier.SECONDARY
    assert set(CAT.species["PYTHON"].prey) == {"LINSANG", "HORNBILL", "TARSIER", "VIPER"}
    assert CAT.species["PYTHON"].tier is Tier.APEX
    # the first-round example's food chains
    assert "TADPOLES" in CAT.species["HORNBILL"].prey
    assert "TERMITES" in CAT.species["SUNBEAR"].prey
    assert "CICADA" in CAT.species["SPIDER"].prey


def test_plant_legend_layers() -> None:
    layers = {p.id: {layer.value for layer in p.layers} for p in CAT.plants.values()}
    assert layers["orchid"] == {"emergent", "canopy", "understory"}
    assert layers["meranti_flower"] == {"emergent"}
    assert layers["meranti_leaf"] == {"emergent", "canopy"}
    assert layers["fern"] == layers["vine"] == {"canopy", "understory"}
    assert layers["hibiscus"] == {"understory"}
    assert [p.id for p in CAT.plants.values() if p.edition_data] == ["pitcher_plant"]


def test_rulebook_tiles_and_vine_counting() -> None:
    hybrid = CAT.tiles["T07"]
    assert hybrid.layers == {Layer.EMERGENT, Layer.CANOPY}
    assert hybrid.plants() == {"meranti_leaf": 2, "orchid": 1}
    assert CAT.tiles["T30"].layers == {Layer.UNDERSTORY}
    assert CAT.tiles["T30"].plants() == {"broad_leaf": 2, "mango": 1}
    # a Y-shaped vine touches three edges but is one vine
    assert CAT.tiles["T19"].edges.count("vine") == 3
    assert CAT.tiles["T19"].plants() == {"vine": 1, "fern": 1}


def test_rotation_turns_edges_clockwise() -> None:
    tile = CAT.tiles["T12"]  # fig N, fern SE, orchid SW at rotation 0
    assert tile.edge_plant(Edge.N, 0) == "fig"
    assert tile.edge_plant(Edge.NE, 1) == "fig"
    assert tile.edge_plant(Edge.S, 3) == "fig"
    assert tile.edge_plant(Edge.NW, 3) == "fern"
    assert tile.edge_plant(Edge.N, 6 + 3) == tile.edge_plant(Edge.N, 3)


def test_longest_food_chain_is_five_and_apexes_eat_secondaries() -> None:
    for s in CAT.species.values():
        if s.tier is Tier.APEX:
            assert all(CAT.species[p].tier is Tier.SECONDARY for p in s.prey)
            assert s.predators == ()
    # cicada -> draco lizard -> western tarsier -> banded linsang -> reticulated python
    chain = ["CICADA", "DRACO", "TARSIER", "LINSANG", "PYTHON"]
    for prey, predator in zip(chain, chain[1:]):
        assert prey in CAT.species[predator].prey
        assert predator in CAT.species[prey].predators


def test_every_habitat_can_be_met_somewhere() -> None:
    """Each habitat's plants exist on tiles of one layer or of the vine-linked understory/canopy."""
    supply: dict[frozenset[Layer], Counter[str]] = {}
    for layers in ({Layer.EMERGENT}, {Layer.CANOPY}, {Layer.UNDERSTORY}, {Layer.CANOPY, Layer.UNDERSTORY}):
        total: Counter[str] = Counter()
        for t in CAT.tiles.values():
            if t.layers & layers:
                total.update(t.plants())
        supply[frozenset(layers)] = total
    for card in [*CAT.animals.values(), *CAT.plant_cards.values()]:
        assert any(all(s[p] >= n for p, n in card.habitat.items()) for s in supply.values()), card.id


def test_components_are_printable() -> None:
    comps = GAME.components()
    tags = [c.tag for c in comps] + [a.tag for c in comps for a in c.anchors]
    assert len(tags) == len(set(tags))
    boards = [c for c in comps if c.kind == "board"]
    assert len(boards) == 7
    for b in boards:
        assert len(b.anchors) >= 3
        assert all(16 <= a.size_mm <= 20 for a in b.anchors)
        w, h = b.size_mm
        for s in b.spaces:
            assert s.w_mm / 2 <= s.x_mm <= w - s.w_mm / 2 and s.h_mm / 2 <= s.y_mm <= h - s.h_mm / 2
    c1 = GAME.component_index["C1"]
    centre = next(s for s in c1.spaces if s.name == "C")
    north = next(s for s in c1.spaces if s.name == "N")
    assert (centre.x_mm, centre.y_mm) == (110.0, 105.0)
    assert (north.x_mm, north.y_mm) == (110.0, 44.4)
    tile = GAME.component_index["T07"]
    assert tile.shape is Shape.HEX and tile.size_mm == (70.0, 60.6)
    assert tile.lines[0] == "Emergent / Canopy"
    for c in comps:
        assert min(c.size_mm) >= 22
        assert c.lines
    hornbill = GAME.component_index["HORNBILL-1"]
    assert hornbill.lines[:3] == ("Rhinoceros Hornbill", "4 pts - secondary", "Habitat: Broad Leaf 1, Hibiscus 2")
    assert any(line.startswith("Prey (+ any): Tadpoles") for line in hornbill.lines)


# -- catalog validation -----------------------------------------------------------------


def _patch(monkeypatch: pytest.MonkeyPatch, filename: str, mutate: Callable[[Any], None]) -> None:
    real = catalog_module.read_data

    def fake(game: str, name: str) -> Any:
        data = copy.deepcopy(real(game, name))
        if name == filename:
            mutate(data)
        return data

    monkeypatch.setattr(catalog_module, "read_data", fake)


@pytest.mark.parametrize(
    ("filename", "mutate", "message"),
    [
        ("tiles.csv", lambda rows: rows[0].update(colour="red"), "unknown field"),
        ("tiles.csv", lambda rows: rows[1].update(id="T01"), "tile 'T01' appears twice"),
        ("tiles.csv", lambda rows: rows[0].update(edges="fig|-|-|-|-|-"), "fig does not grow on every layer"),
        ("tiles.csv", lambda rows: rows[0].update(edges="orchid|-|-"), "6 edges"),
        ("tiles.csv", lambda rows: rows[0].update(layers="jungle"), "'jungle' is not one of"),
        ("tiles.csv", lambda rows: rows[0].update(id="t01"), "must match"),
        ("animal_cards.csv", lambda rows: rows[0].update(habitat="cactus:1"), "unknown plant 'cactus'"),
        ("animal_cards.csv", lambda rows: rows[0].update(habitat="meranti_flower:1 mango:1"), "cannot be met"),
        ("animal_cards.csv", lambda rows: rows[0].update(habitat="fig:0"), "outside 1..9"),
        ("animal_cards.csv", lambda rows: rows[0].update(species="DODO"), "unknown species 'DODO'"),
        ("species.toml", lambda d: d["species"][0].update(predators=[]), "predators [] should be"),
        ("species.toml", lambda d: d["species"][0].update(prey=["CICADA"]), "primary consumers have no prey"),
        ("species.toml", lambda d: d["species"][22].update(prey=["CICADA"]), "apex eats secondary"),
        ("species.toml", lambda d: d["species"][26].update(points=-1), "outside 0..20"),
        ("platforms.toml", lambda d: d["platform"][0].update(anchors=d["platform"][0]["anchors"][:2]), "at least 3 anchor"),
        ("platforms.toml", lambda d: d["platform"][0]["anchors"][0].update(size_mm=12), "16-20 mm"),
        ("platforms.toml", lambda d: d["platform"][0]["slots"][0].update(q=4), "not inside the board"),
        ("platforms.toml", lambda d: d["contact"][0].update(b_slot="Q"), "has no slot 'Q'"),
        ("bonus.toml", lambda d: d["bonus"][0]["condition"].update(kind="richest"), "'richest' is not one of"),
        ("bonus.toml", lambda d: d["bonus"][4]["condition"].update(group="fish"), "group 'fish'"),
        ("bonus.toml", lambda d: d["bonus"][1]["condition"].pop("tier"), "missing field(s) tier"),
        ("main_deck.toml", lambda d: d["plant_card"][0].update(spans_layers="maybe"), "true or false"),
        ("accessories.toml", lambda d: d["accessory"][0].update(id="T01"), "both a tile and a accessory"),
    ],
)
def test_catalog_refuses_bad_data(
    monkeypatch: pytest.MonkeyPatch, filename: str, mutate: Callable[[Any], None], message: str
) -> None:
    _patch(monkeypatch, filename, mutate)
    with pytest.raises(CatalogError) as err:
        load_catalog()
    assert message in str(err.value)
    assert "borneo" in str(err.value)


def test_chain_longer_than_five_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    def longer(d: Any) -> None:
        by_id = {s["id"]: s for s in d["species"]}
        # the banded linsang (3rd secondary level) becomes prey of the keeled pit viper
        by_id["VIPER"]["prey"].append("LINSANG")
        by_id["LINSANG"]["predators"].append("VIPER")

    _patch(monkeypatch, "species.toml", longer)
    with pytest.raises(CatalogError, match="exceeds 5 cards"):
        load_catalog()


# -- geometry and access ------------------------------------------------------------------


def test_slot_neighbours_and_contacts() -> None:
    geo = GAME.geometry
    centre = {(f.edge, f.other) for f in geo.facings(("C1", "C"))}
    assert centre == {
        (Edge.N, ("C1", "N")), (Edge.NE, ("C1", "NE")), (Edge.SE, ("C1", "SE")),
        (Edge.S, ("C1", "S")), (Edge.SW, ("C1", "SW")), (Edge.NW, ("C1", "NW")),
    }
    u_north = {(f.edge, f.other, f.other_edge, f.same_layer) for f in geo.facings(("U2", "N"))}
    assert (Edge.N, ("C2", "S"), Edge.S, False) in u_north
    assert len(u_north) == 4  # three understory neighbours plus the canopy contact
    assert len(geo.facings(("E1", "C"))) == 4


def test_vine_network_crosses_layers_only_through_vines() -> None:
    jungle = Jungle(GAME.geometry, [
        _placed("T15", "C1", "C"), _placed("T14", "C1", "S"), _placed("T33", "U1", "N"),
        _placed("T39", "U1", "NE"),
    ])
    network = jungle.vine_network(("U1", "N"))
    assert network == {("U1", "N"), ("C1", "S"), ("C1", "C")}
    access = jungle.access([("U1", "N")])
    assert access.vine_network
    assert set(access.tiles) == network
    assert access.plants == {"vine": 3, "hibiscus": 1, "broad_leaf": 1, "fig": 2, "bromeliad": 1, "orchid": 1}
    assert access.layers == {Layer.CANOPY, Layer.UNDERSTORY}
    assert jungle.touches(("U1", "N"), ("C1", "S"))
    assert not jungle.touches(("U1", "N"), ("C1", "C"))


def test_access_is_transitive_over_matches_but_not_from_old_vines() -> None:
    # B7 geometry: the new T12 matches T16 by fig; T16's vine is matched with T14 below it
    jungle = Jungle(GAME.geometry, [_placed("T16", "C1", "C"), _placed("T14", "C1", "S"),
                                    _placed("T12", "C1", "N", 3)])
    access = jungle.access([("C1", "N")])
    assert set(access.tiles) == {("C1", "N"), ("C1", "C")}
    assert not access.vine_network
    # the old tile's own vine match does not open the network, but a new vine tile would
    assert jungle.vine_network(("C1", "C")) == {("C1", "C"), ("C1", "S")}


def test_open_sides_never_conflict_or_match() -> None:
    jungle = Jungle(GAME.geometry, [_placed("T13", "C1", "C"), _placed("T12", "C1", "S")])
    assert jungle.conflicts(("C1", "S")) == ()
    assert jungle.matches(("C1", "S")) == ()
    assert jungle.touches(("C1", "C"), ("C1", "S"))


def test_layers_do_not_conflict_across_a_contact() -> None:
    # canopy T13 turned 3 shows bromeliad S, understory T39 shows mango N: different layers never conflict
    jungle = Jungle(GAME.geometry, [_placed("T13", "C1", "S", 3), _placed("T39", "U1", "N")])
    assert GAME.catalog.tiles["T13"].edge_plant(Edge.S, 3) == "bromeliad"
    assert jungle.conflicts(("U1", "N")) == ()
    assert jungle.matches(("U1", "N")) == ()
    assert not jungle.is_connected([("U1", "N"), ("C1", "S")])


# -- states -------------------------------------------------------------------------------


def test_example_state_round_trips_and_scores() -> None:
    doc = GAME.example_state()
    state = GAME.load_state(doc)
    again = GAME.load_state(state_to_json(state))
    assert again == state
    sheet = GAME.score_sheet(state)
    totals = {s.player: s.total for s in sheet.scores}
    assert totals == {"red": 41, "blue": 41, "green": 44}
    assert sheet.winners == ("green",)
    ranks = {s.player: s.rank for s in sheet.ranking}
    # red and blue tie on 41 and on 2 apexes each; blue holds 3 tiles, red 4
    assert ranks == {"green": 1, "blue": 2, "red": 3}
    assert sheet.score_of("green").by_rule() == {"animals": 39, "plants": 0, "global_bonus": 5}
    assert sheet.score_of("blue").by_rule() == {"animals": 36, "plants": 5, "global_bonus": 0}
    # the example board itself is conflict-free
    jungle = GAME.jungle(state)
    assert len(jungle.tiles) == 35
    assert all(not jungle.conflicts(pos) for pos in jungle.tiles)


def test_example_move_is_illegal_for_three_reasons() -> None:
    from scoring.catalog import read_data

    before = GAME.load_state(read_data("borneo", "example_before.json"))
    after = GAME.load_state(read_data("borneo", "example_after.json"))
    codes = sorted(v.code for v in GAME.violations(before, after))
    assert codes == ["borneo/habitat_unmet", "borneo/prey_missing", "borneo/wrong_layer"]
    assert GAME.violations(before, before) == ()


def test_evidence_texts() -> None:
    sheet = GAME.score_sheet(GAME.load_state(_case("score_bonus_tie_nobody")["state"]))
    red = [line.evidence for line in sheet.score_of("red").lines]
    assert "Clouded Leopard (LEOPARD-1, apex, on Sun Bear (SUNBEAR-1)): 9" in red
    assert red[-1] == (
        "Apex Collector (BONUS-2): 2 apex cards, needs 2; completed, but so did blue: tie, nobody scores -> 0"
    )
    sole = GAME.score_sheet(GAME.load_state(_case("score_bonus_sole_achiever")["state"]))
    assert sole.score_of("red").lines[-2].evidence == (
        "Top of the Food Chain (BONUS-1): longest food chain 5 cards, needs 5; completed alone -> 5"
    )
    case = _case("B4_no_match_unmet")
    [v] = GAME.violations(GAME.load_state(case["before"]), GAME.load_state(case["after"]))
    assert v.code == Rule.HABITAT_UNMET.value
    assert v.message == (
        "Rhinoceros Hornbill needs broad leaf 1, hibiscus 2; Plant tile T31 gives fern 1, hibiscus 1,"
        " mango 1: missing broad leaf 1, hibiscus 1"
    )
    assert v.components == ("HORNBILL-1", "T31")


def test_conflict_violation_names_both_tiles_and_cells() -> None:
    case = _case("B3_conflict")
    [v] = GAME.violations(GAME.load_state(case["before"]), GAME.load_state(case["after"]))
    assert v.area == "platform:U1"
    assert v.cells == ("SE", "C")
    assert v.components == ("T31", "T34")


def test_unknown_places_make_the_sheet_incomplete() -> None:
    doc = _state([{"component": "MOTH-1", "area": "earned:red"}],
                 unknown=[{"area": "earned:blue", "note": "card under glare"}])
    sheet = GAME.score_sheet(GAME.load_state(doc))
    assert {s.player: s.total for s in sheet.scores} == {"red": 1, "blue": 0}
    assert sheet.notes and "incomplete" in sheet.notes[0]
    assert GAME.score_sheet(GAME.load_state(_state([]))).notes == ()


def test_options_default_and_override() -> None:
    assert GAME.info.defaults() == {"bonus_points": 5}
    assert GAME.load_state(_state([])).options == {"bonus_points": 5}
    with pytest.raises(StateError, match="'bonus_points' must be int"):
        GAME.load_state(_state([], options={"bonus_points": "5"}))
    with pytest.raises(StateError, match="unknown option"):
        GAME.load_state(_state([], options={"bonus": 5}))


def test_registry_finds_the_game_by_name() -> None:
    assert find_game("BIOME Borneo") is GAME
    assert find_game("borneo").name == "BIOME Borneo"


def test_claims_shape_is_checked() -> None:
    with pytest.raises(StateError, match="exactly card and tiles"):
        GAME.load_state(_state([], extras={"claims": [{"card": "MOTH-1"}]}))
    with pytest.raises(StateError, match="list of plant tile ids"):
        GAME.load_state(_state([], extras={"claims": [{"card": "MOTH-1", "tiles": ["MOTH-2"]}]}))
    with pytest.raises(StateError, match="not a player"):
        GAME.load_state(_state([], extras={"active": "purple"}))


# -- coverage of the data-driven cases ------------------------------------------------------


def _all_cases() -> list[dict[str, Any]]:
    return [json.loads(p.read_text("utf-8")) for p in sorted(EXAMPLES.glob("*.json"))]


def test_every_violation_code_has_a_case() -> None:
    seen = {code for c in _all_cases() for code in c["expect"].get("violations", [])}
    assert seen == {r.value for r in Rule}


def test_every_score_rule_is_exercised_twice() -> None:
    counts: Counter[str] = Counter()
    for c in _all_cases():
        for rules in c["expect"].get("score", {}).get("rules", {}).values():
            counts.update(rule for rule, points in rules.items() if points)
    assert all(counts[rule] >= 2 for rule in ("animals", "plants", "global_bonus")), counts


def test_golden_examples_are_all_present() -> None:
    names = {p.stem.split("_")[0] for p in EXAMPLES.glob("B*.json")}
    assert names == {f"B{i}" for i in range(1, 11)}
    assert len(list(EXAMPLES.glob("*.json"))) >= 30


@given(
    tile=st.sampled_from(sorted(CAT.tiles)),
    edge=st.sampled_from(list(Edge)),
    rotation=st.integers(min_value=0, max_value=5),
)
@settings(max_examples=200, deadline=None)
def test_turning_a_tile_moves_every_edge_one_step(tile: str, edge: Edge, rotation: int) -> None:
    t = CAT.tiles[tile]
    turned_edge = Edge((edge + 1) % 6)
    assert t.edge_plant(turned_edge, rotation + 1) == t.edge_plant(edge, rotation)
    # a tile shows the same plants whichever way it is turned
    shown = Counter(t.edge_plant(e, rotation) for e in Edge)
    assert shown == Counter(t.edges)
