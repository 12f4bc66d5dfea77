"""Biomos: catalog, planet geometry, patterns, evidence texts and options."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import pytest

from scoring import CatalogError, StateError, find_game
from scoring.biomos import GAME, BiomeKind, Rule, Side, Terrain
from scoring.biomos.catalog import (
    TerrainToken,
    parse_biomes,
    parse_boards,
    parse_tokens,
    parse_terrains,
)
from scoring.biomos.planet import Planet, find_pattern, neighbours, reading_sequence, runs
from scoring.catalog import read_data
from scoring.model import ComponentId
from scoring.state import state_to_json

CAT = GAME.catalog


def _token(terrain: Terrain, n: int) -> TerrainToken:
    return TerrainToken(ComponentId(f"{terrain.name}-{n:02d}"), terrain, n, n, True)


def planet(spec: str, side: Side = Side.DISCOVERY, **extra: str) -> Planet:
    """``"O F . D"`` on P1.. (``.`` empty); extra spaces as keyword letters (R1="M", MOON="G")."""
    letters = {t.letter: t for t in Terrain}
    tokens = {}
    for i, sym in enumerate(spec.split()):
        if sym != ".":
            tokens[f"P{i + 1}"] = _token(letters[sym], i)
    for space, sym in extra.items():
        tokens[space] = _token(letters[sym], 40 + len(tokens))
    return Planet(side, tokens)


# -- catalog ------------------------------------------------------------------------


def test_catalog_counts_match_the_box() -> None:
    assert len(CAT.tokens) == 60
    for t in Terrain:
        assert sum(1 for tok in CAT.tokens if tok.terrain is t) == 12
    assert sorted(tok.serial for tok in CAT.tokens) == list(range(1, 61))
    assert sum(1 for b in CAT.biomes if b.kind is BiomeKind.BASIC) == 30
    assert sum(1 for b in CAT.biomes if b.kind is BiomeKind.GIANT) == 10
    assert len(CAT.faces) == 8 and len(CAT.black_holes) == 2
    assert len(GAME.components()) == 110


def test_biome_cards_carry_rulebook_data() -> None:
    stone = CAT.biome("B11")
    assert stone is not None and (stone.name, stone.pattern_text, stone.points) == ("Stone Forest", "F M M F", 7)
    salt = CAT.biome("G08")
    assert salt is not None and (salt.name, salt.pattern_text, salt.points) == ("Salt Pan", "G G * * G G", 10)
    steppe = CAT.biome("B07")
    assert steppe is not None and steppe.pattern_text == "D * D" and steppe.points == 3
    # points by pattern length: pairs and jokers 3, three terrains 5, four terrains 7
    for card in CAT.biomes:
        if card.kind is BiomeKind.BASIC:
            expected = {2: 3, 3: 5 if None not in card.pattern else 3, 4: 7}[len(card.pattern)]
            assert card.points == expected, card.name
    assert {b.points for b in CAT.biomes if b.kind is BiomeKind.GIANT} == {10}


def test_black_hole_absorbs_non_joker_terrains() -> None:
    cordillera = CAT.biome("G01")
    assert cordillera is not None and cordillera.terrains_needed == {Terrain.MOUNTAIN: 4}
    inselberg = CAT.biome("B18")
    assert inselberg is not None and inselberg.terrains_needed == {Terrain.DESERT: 2, Terrain.MOUNTAIN: 1}


def test_advanced_planet_types() -> None:
    types = {f.board: f.planet_type for f in CAT.faces if f.side is Side.ADVANCED}
    assert types == {1: Terrain.FOREST, 2: Terrain.MOUNTAIN, 3: Terrain.DESERT, 4: Terrain.GLACIER}
    assert all(f.planet_type is None for f in CAT.faces if f.side is Side.DISCOVERY)
    assert {h.side: h.base_points for h in CAT.black_holes} == {Side.DISCOVERY: 20, Side.ADVANCED: 40}


def test_components_fit_their_markers() -> None:
    for c in GAME.components():
        w, h = c.size_mm
        if c.kind == "token":
            # a 16 mm tag must fit in the round face: inscribed square side = diameter / sqrt 2
            assert w / math.sqrt(2) >= 16
        else:
            assert min(w, h) >= 40, c.id  # room for a 20 mm QR code
        assert c.lines, c.id
    boards = [c for c in GAME.components() if c.kind == "board"]
    for b in boards:
        assert len(b.anchors) >= 3
        assert all(16 <= a.size_mm <= 20 for a in b.anchors)
        names = {s.name for s in b.spaces}
        assert names >= {f"P{i}" for i in range(1, 13)} | {"MOON"}
        assert ("R1" in names) == b.id.endswith("-A")
        for a in b.anchors:
            for s in b.spaces:  # anchors never cover a space
                apart_x = abs(a.x_mm - s.x_mm) > (a.size_mm + s.w_mm) / 2
                assert apart_x or abs(a.y_mm - s.y_mm) > (a.size_mm + s.h_mm) / 2


def _centres(side: Side) -> dict[str, tuple[float, float]]:
    face = next(f for f in CAT.faces if f.side is side)
    return {s.name: (s.x_mm, s.y_mm) for s in face.layout.spaces}


def test_planet_spaces_form_an_arc() -> None:
    for side in Side:
        c = _centres(side)
        steps = [math.dist(c[f"P{i}"], c[f"P{i + 1}"]) for i in range(1, 12)]
        assert all(28 <= d <= 34 for d in steps), steps
    disc = _centres(Side.DISCOVERY)
    assert math.dist(disc["P12"], disc["P1"]) > 80  # the open gap of the ring
    adv = _centres(Side.ADVANCED)
    # the recesses sit in that gap, in ring order P12, R1, R2, P1
    for a, b in (("P12", "R1"), ("R1", "R2"), ("R2", "P1")):
        assert 28 <= math.dist(adv[a], adv[b]) <= 34
    # mirrored layout: the Moon is upper right on discovery, upper left on advanced
    assert disc["MOON"][0] > 200 and adv["MOON"][0] < 110


# -- catalog validation ---------------------------------------------------------------


def _biome_rows() -> list[dict[str, Any]]:
    return [dict(r) for r in read_data("biomos", "biomes.csv")]


def test_bad_pattern_letter_names_row() -> None:
    rows = _biome_rows()
    rows[3]["pattern"] = "O X"
    with pytest.raises(CatalogError, match=r"biomes.csv row 5 \(B04\).*unknown terrain letter 'X'"):
        parse_biomes(rows, {}, {})


def test_impossible_points_and_duplicates_refused() -> None:
    rows = _biome_rows()
    rows[0]["points"] = "4"
    with pytest.raises(CatalogError, match=r"row 2 \(B01\).*worth"):
        parse_biomes(rows, {}, {})
    rows = _biome_rows()
    rows[1]["id"] = "B01"
    with pytest.raises(CatalogError, match="duplicate id 'B01'"):
        parse_biomes(rows, {}, {})
    rows = _biome_rows()
    rows[2]["tag"] = rows[1]["tag"]
    with pytest.raises(CatalogError, match="tag 101 already used"):
        parse_biomes(rows, {}, {})


def test_unknown_field_and_missing_card_refused() -> None:
    rows = _biome_rows()
    rows[0]["colour"] = "red"
    with pytest.raises(CatalogError, match="unknown field"):
        parse_biomes(rows, {}, {})
    with pytest.raises(CatalogError, match="29 basic biome cards, the game has 30"):
        parse_biomes(_biome_rows()[1:], {}, {})
    rows = _biome_rows()
    rows[5]["pattern"] = "* G"
    with pytest.raises(CatalogError, match="starts and ends with a terrain"):
        parse_biomes(rows, {}, {})


def test_token_counts_checked_against_terrains() -> None:
    terrains, _ = parse_terrains(read_data("biomos", "terrains.toml"))
    rows = [dict(r) for r in read_data("biomos", "tokens.csv")]
    rows[0]["terrain"] = "desert"
    with pytest.raises(CatalogError, match="11 ocean tokens, the game has 12"):
        parse_tokens(rows, terrains, {}, {})
    rows = [dict(r) for r in read_data("biomos", "tokens.csv")]
    rows[1]["serial"] = "1"
    with pytest.raises(CatalogError, match=r"row 3 \(OCEAN-02\): serial 1 already used"):
        parse_tokens(rows, terrains, {}, {})


def test_board_data_refused_when_impossible() -> None:
    doc = copy.deepcopy(read_data("biomos", "boards.toml"))
    doc["layout"]["advanced"]["spaces"] = [s for s in doc["layout"]["advanced"]["spaces"] if s["name"] != "R2"]
    with pytest.raises(CatalogError, match=r"layout.advanced\]: missing space\(s\) R2"):
        parse_boards(doc, {}, {})
    doc = copy.deepcopy(read_data("biomos", "boards.toml"))
    doc["face"][0]["anchors"][0][3] = 30.0
    with pytest.raises(CatalogError, match=r"face #1 \(PLANET1-D\) anchor #1"):
        parse_boards(doc, {}, {})
    doc = copy.deepcopy(read_data("biomos", "boards.toml"))
    doc["face"][3]["planet_type"] = "forest"
    with pytest.raises(CatalogError, match="share a planet type"):
        parse_boards(doc, {}, {})
    doc = copy.deepcopy(read_data("biomos", "boards.toml"))
    doc["layout"]["discovery"]["spaces"][0]["x_mm"] = 400.0
    with pytest.raises(CatalogError, match="space #1"):
        parse_boards(doc, {}, {})


# -- reading sequence and adjacency ----------------------------------------------------


def test_reading_sequence_by_recesses() -> None:
    p = tuple(f"P{i}" for i in range(1, 13))
    assert reading_sequence(Side.DISCOVERY, {"R1", "R2"}) == (p, False)
    assert reading_sequence(Side.ADVANCED, set()) == (p, False)
    assert reading_sequence(Side.ADVANCED, {"R1"}) == (p + ("R1",), False)
    assert reading_sequence(Side.ADVANCED, {"R2"}) == (("R2",) + p, False)
    assert reading_sequence(Side.ADVANCED, {"R1", "R2"}) == (p + ("R1", "R2"), True)


def test_runs_break_at_empty_spaces_and_wrap_on_closed_ring() -> None:
    pl = planet("O O . F F F F F F F . O", Side.ADVANCED, R1="M", R2="M")
    assert [r.spaces for r in runs(pl)] == [
        ("P4", "P5", "P6", "P7", "P8", "P9", "P10"),
        ("P12", "R1", "R2", "P1", "P2"),
    ]
    assert runs(pl, gaps_ignored=True)[0].circular


def test_neighbours_follow_the_ring() -> None:
    full = planet("O D F M G O D F M G O D", Side.ADVANCED, R1="M", R2="F")
    assert set(neighbours(full, "P1")) == {"R2", "P2"}
    assert set(neighbours(full, "R1")) == {"P12", "R2"}
    open_ring = planet("O D F M G O D F M G O D", Side.ADVANCED, R1="M")
    assert set(neighbours(open_ring, "P1")) == {"P2"}
    gap = planet("O . F")
    assert neighbours(gap, "P1") == ()
    assert neighbours(gap, "P1", gaps_ignored=True) == ("P3",)
    assert neighbours(planet("O", MOON="G"), "MOON") == ()


# -- every biome pattern matched once and failed once ------------------------------------

_FILL = {Terrain.OCEAN: "D", Terrain.DESERT: "O", Terrain.FOREST: "G", Terrain.MOUNTAIN: "O", Terrain.GLACIER: "F"}


def _spec(symbols: list[str]) -> str:
    return " ".join(symbols + ["."] * (12 - len(symbols)))


def _pattern_symbols(card_id: str, joker: str) -> list[str]:
    card = CAT.biome(card_id)
    assert card is not None
    return [joker if s is None else s.letter for s in card.pattern]


ALL_CARDS = [b.id for b in CAT.biomes]


@pytest.mark.parametrize("card_id", ALL_CARDS)
def test_every_pattern_matches_where_it_is_laid(card_id: str) -> None:
    card = CAT.biome(card_id)
    assert card is not None
    symbols = ["."] + _pattern_symbols(card_id, "G" if card.pattern[0] is not Terrain.GLACIER else "O")
    window = find_pattern(planet(_spec(symbols)), card.pattern)
    assert window == tuple(f"P{i}" for i in range(2, 2 + len(card.pattern)))


@pytest.mark.parametrize("card_id", ALL_CARDS)
def test_every_pattern_fails_with_one_wrong_terrain(card_id: str) -> None:
    card = CAT.biome(card_id)
    assert card is not None
    symbols = _pattern_symbols(card_id, "M")
    last = len(symbols) - 1
    symbols[last] = _FILL[card.pattern[-1]]  # the last terrain is wrong
    assert find_pattern(planet(_spec(symbols)), card.pattern) is None


@pytest.mark.parametrize("card_id", [b.id for b in CAT.biomes if None in b.pattern])
def test_joker_never_matches_an_empty_space(card_id: str) -> None:
    card = CAT.biome(card_id)
    assert card is not None
    symbols = _pattern_symbols(card_id, "M")
    symbols[card.pattern.index(None)] = "."
    assert find_pattern(planet(_spec(symbols)), card.pattern) is None


def test_gap_breaks_pattern_unless_option() -> None:
    lagoon = CAT.biome("B28")
    assert lagoon is not None
    pl = planet("D O . O D")
    assert find_pattern(pl, lagoon.pattern) is None
    assert find_pattern(pl, lagoon.pattern, gaps_ignored=True) == ("P1", "P2", "P4", "P5")


def test_wrap_around_only_on_closed_ring() -> None:
    fjord = CAT.biome("B16")  # G O O G
    assert fjord is not None
    closed = planet("G F M F M F M F M F M G", Side.ADVANCED, R1="O", R2="O")
    assert find_pattern(closed, fjord.pattern) == ("P12", "R1", "R2", "P1")
    open_ring = planet("G F M F M F M F M F M G", Side.ADVANCED, R1="O")
    assert find_pattern(open_ring, fjord.pattern) is None


def test_giant_wraps_across_both_recesses() -> None:
    archipelago = CAT.biome("G07")  # O * O * O * O
    assert archipelago is not None
    ring = planet("F O F O F F F F F O F O", Side.ADVANCED, R1="F", R2="O")
    # P10 O, P11 F, P12 O, R1 F, R2 O, P1 F, P2 O: the window crosses both recesses
    assert find_pattern(ring, archipelago.pattern) == ("P10", "P11", "P12", "R1", "R2", "P1", "P2")
    without_r2 = planet("F O F O F F F F F O F O", Side.ADVANCED, R1="F")
    assert find_pattern(without_r2, archipelago.pattern) is None


# -- states, violations, sheets ---------------------------------------------------------------


def _example(name: str) -> dict[str, Any]:
    data = read_data("biomos", name)
    assert isinstance(data, dict)
    return data


def test_example_states_load_and_roundtrip() -> None:
    state = GAME.load_state(GAME.example_state())
    assert GAME.load_state(state_to_json(state)) == state
    before = GAME.load_state(_example("example_before.json"))
    after = GAME.load_state(_example("example_after.json"))
    assert {v.code for v in GAME.violations(before, after)} == {Rule.ORDER_CHANGED.value, Rule.PATTERN_MISSING.value}
    assert find_game("Biomos") is GAME


def test_violation_messages_name_the_tokens() -> None:
    before = GAME.load_state(_example("example_before.json"))
    after = GAME.load_state(_example("example_after.json"))
    by_code = {v.code: v for v in GAME.violations(before, after)}
    order = by_code[Rule.ORDER_CHANGED.value]
    assert order.area == "planet:red"
    assert order.components == ("OCEAN-01", "DESERT-01", "FOREST-01") and order.cells == ("P1", "P3", "P4")
    assert "ocean, forest, desert to ocean, desert, forest" in order.message  # the terrains, not the ids
    missing = by_code[Rule.PATTERN_MISSING.value]
    assert missing.components == ("B19",) and missing.message.startswith("Mangrove needs forest, ocean, forest")


def test_players_changed() -> None:
    before = GAME.load_state(_example("example_before.json"))
    doc = _example("example_after.json")
    doc["players"][1]["id"] = "green"
    for p in doc["placements"]:
        p["area"] = p["area"].replace(":blue", ":green")
    after = GAME.load_state(doc)
    assert [v.code for v in GAME.violations(before, after)] == [Rule.PLAYERS_CHANGED.value]


def test_evidence_texts() -> None:
    sheet = GAME.score_sheet(GAME.load_state(GAME.example_state()))
    red = {line.evidence for line in sheet.score_of("red").lines}
    assert "Stone Forest (basic biome F M M F): pattern at P1-P4 -> 7" in red
    assert "forest Moon: forest tokens on the planet, P1, P4, P6 -> 3 x 3 = 9" in red
    blue = [line.evidence for line in sheet.score_of("blue").lines]
    assert any("kept face down" in e for e in blue)
    assert sheet.notes == ("face-down biome cards are scored from the cards recorded in the state",)


def test_unknown_places_make_the_sheet_incomplete() -> None:
    doc = GAME.example_state()
    doc = dict(doc, unknown=[{"area": "planet:red", "cell": "P3", "note": "glare"}])
    sheet = GAME.score_sheet(GAME.load_state(doc))
    assert sheet.score_of("red").total == 42
    assert any(n.startswith("incomplete: 1 place") for n in sheet.notes)


def test_advanced_sheet_lines_in_order() -> None:
    case = json.loads((Path(__file__).parent / "examples/biomos/G4_advanced_bonuses.json").read_text("utf-8"))
    sheet = GAME.score_sheet(GAME.load_state(case["state"]))
    rules = [line.rule for line in sheet.score_of("red").lines]
    assert rules == ["biomes", "moon", "forest_bonus", "planet_bonus"]
    texts = [line.evidence for line in sheet.score_of("red").lines]
    assert texts[3] == "Planet bonus, forest planet: forest tokens, P1, P4, P8, P12 -> 4"


def test_options_are_typed() -> None:
    doc = GAME.example_state()
    with pytest.raises(StateError, match="unknown option"):
        GAME.load_state(dict(doc, options={"gaps": True}))
    with pytest.raises(StateError, match="'gaps_ignored' must be bool"):
        GAME.load_state(dict(doc, options={"gaps_ignored": "yes"}))
    state = GAME.load_state(dict(doc, options={"exclude_great_sand_dunes": True}))
    assert state.options["exclude_great_sand_dunes"] is True
