"""BIOME Borneo from a photo: platforms and slots, tile rotations, fanned food chains, gallery and bonus cards."""

from __future__ import annotations

import json

import pytest

from scoring import find_game
from scoring.markers import marker_layout
from scoring.model import BoardState, Placement, Player
from scoring.state import state_to_json
from vision import recognise, sample_photo
from vision.layouts import TableView, find_layout
from tests.rendering.render import render_scene

from .boards import judge, located, on_face

GAME = find_game("borneo")


def red_position() -> BoardState:
    """Canopy platform C1 of the example game with Maya's legend, two of her food chains and her hand."""
    doc = dict(GAME.example_state())
    chains = {"TERMITES-1", "SUNBEAR-1", "LEOPARD-1", "CICADA-1", "DRACO-1", "TARSIER-1", "LINSANG-1", "PYTHON-1"}
    doc["placements"] = [
        p for p in doc["placements"]
        if p["area"] == "platform:C1" or p["component"] in chains | {"C1", "T45", "T06"}
    ] + [{"component": "LEGEND-1", "area": "table"}]
    doc["players"] = [p for p in doc["players"] if p["id"] == "red"]
    return GAME.load_state(doc)


@pytest.fixture(scope="module")
def typical():  # noqa: ANN201
    state = red_position()
    scene = render_scene("borneo", state, condition="typical", seed=1)
    return state, scene, recognise(scene.jpeg, "borneo", players=state.players)


@pytest.fixture(scope="module")
def hard():  # noqa: ANN201
    state = red_position()
    scene = render_scene("borneo", state, condition="hard", seed=2, hand=True)
    return state, scene, recognise(scene.jpeg, "borneo", players=state.players)


def test_typical_scene_reads_the_truth(typical) -> None:  # noqa: ANN001
    state, scene, rec = typical
    v = judge(scene.truth, state, rec.state, scene.hidden)
    assert v.wrong == [] and v.stray == []
    assert v.missed == []
    assert len(v.right) >= 15
    # Rotations in sixth turns and the five-card chain, each card on its prey.
    assert rec.state.placement_of("T12") == Placement("T12", "platform:C1", "SW", 3)
    assert rec.state.placement_of("T09") == Placement("T09", "platform:C1", "SE", 5)
    chain = [("DRACO-1", "CICADA-1"), ("TARSIER-1", "DRACO-1"), ("LINSANG-1", "TARSIER-1"), ("PYTHON-1", "LINSANG-1")]
    for card, prey in chain:
        assert rec.state.placement_of(card).on == prey  # type: ignore[union-attr]
    assert rec.state.placement_of("CICADA-1").on is None  # type: ignore[union-attr]


def test_typical_scene_scores_like_the_truth(typical) -> None:  # noqa: ANN001
    _, scene, rec = typical
    if scene.hidden:
        pytest.skip("part of the table is out of frame")
    # Termites 2 + sun bear 4 + clouded leopard 9 + cicada 1 + draco 3 + tarsier 4 + linsang 5 + python 8 = 36.
    assert GAME.score_sheet(rec.state).score_of("red").total == 36


def test_hard_scene_never_places_a_wrong_component(hard) -> None:  # noqa: ANN001
    state, scene, rec = hard
    v = judge(scene.truth, state, rec.state, scene.hidden)
    assert v.wrong == [] and v.stray == []


def test_players_are_named_after_their_legend_without_a_player_list(typical) -> None:  # noqa: ANN001
    _, scene, _ = typical
    rec = recognise(scene.jpeg, "borneo")
    assert [(p.id, p.seat) for p in rec.state.players] == [("player1", 0)]
    assert rec.state.placement_of("SUNBEAR-1") == Placement("SUNBEAR-1", "earned:player1", on="TERMITES-1")  # type: ignore[arg-type]
    GAME.load_state(state_to_json(rec.state))


# -- the layout on hand-placed components (no photo) ----------------------------------------


def _read(*items, players=None):  # noqa: ANN001, ANN002, ANN202
    return find_layout("borneo").read(TableView("borneo", tuple(items), players=players))


def test_slots_and_sixth_turns_follow_the_platform() -> None:
    platform = located("borneo", "U2", 0.0, 0.0, 20.0)
    centre = located("borneo", "T36", *on_face(platform, 110.0 + 2.0, 105.0 - 1.5), 20.0 + 60.0 * 4 + 3.0)
    north = located("borneo", "T34", *on_face(platform, 110.0, 44.4), 20.0 - 60.0)
    edge = located("borneo", "T35", *on_face(platform, 110.0, 105.0 - 30.3), 20.0)  # on the C/N border
    result = _read(platform, centre, north, edge)
    got = {p.placement.component: p.placement for p in result.placed}
    assert got["U2"] == Placement("U2", "jungle")
    assert got["T36"] == Placement("T36", "platform:U2", "C", 4)
    assert got["T34"] == Placement("T34", "platform:U2", "N", 5)
    assert "T35" not in got and [p.code for p in result.problems] == ["layout/between_spaces"]


def test_stacks_hands_gallery_and_bonus_cards() -> None:
    legend_a = located("borneo", "LEGEND-1", 0.0, 0.0)
    legend_b = located("borneo", "LEGEND-3", 1000.0, 0.0)
    prey = located("borneo", "MOTH-1", 120.0, 0.0, 2.0)
    gecko = located("borneo", "GECKO-1", *on_face(prey, 31.5, 44.0 + 30.0), 2.0)
    eagle = located("borneo", "SERPEAGLE-1", *on_face(gecko, 31.5 + 1.0, 44.0 + 28.0), 4.0)
    alone = located("borneo", "ANT-1", 190.0, 0.0)
    theirs = located("borneo", "BEES-1", 1120.0, 0.0)
    hand = located("borneo", "T44", 0.0, 150.0)
    platform = located("borneo", "E1", 500.0, -700.0)
    gallery = located("borneo", "FROG-2", 660.0, -700.0)
    ability = located("borneo", "OPPORT-2", 740.0, -700.0)
    stray = located("borneo", "ANT-2", 500.0, -1200.0)  # near no legend and no platform
    bonus = located("borneo", "BONUS-7", 660.0, -500.0)
    seats = (Player("ann", "Ann", "", 0), Player("bob", "Bob", "", 1))  # type: ignore[arg-type]
    items = (legend_a, legend_b, prey, gecko, eagle, alone, theirs, hand, platform, gallery, ability, stray, bonus)
    result = _read(*items, players=seats)
    got = {p.placement.component: p.placement for p in result.placed}
    assert got["LEGEND-1"] == Placement("LEGEND-1", "table")
    assert got["MOTH-1"] == Placement("MOTH-1", "earned:ann")
    assert got["GECKO-1"] == Placement("GECKO-1", "earned:ann", on="MOTH-1")  # type: ignore[arg-type]
    assert got["SERPEAGLE-1"] == Placement("SERPEAGLE-1", "earned:ann", on="GECKO-1")  # type: ignore[arg-type]
    assert got["ANT-1"] == Placement("ANT-1", "earned:ann")
    assert got["BEES-1"] == Placement("BEES-1", "earned:bob")  # the second legend in legend order
    assert got["T44"] == Placement("T44", "hand:ann")
    assert got["FROG-2"].area == "gallery" and got["OPPORT-2"].area == "gallery"
    assert got["BONUS-7"] == Placement("BONUS-7", "bonus")
    assert "ANT-2" not in got and ("layout/unplaced", ("ANT-2",)) in [(p.code, p.components) for p in result.problems]


def test_a_fanned_chain_without_its_legend_is_not_guessed() -> None:
    platform = located("borneo", "C2", 0.0, 0.0)
    prey = located("borneo", "CICADA-2", 200.0, 0.0)
    gibbon = located("borneo", "GIBBON-1", *on_face(prey, 31.5, 44.0 + 30.0))
    result = _read(platform, prey, gibbon)
    assert {p.placement.component for p in result.placed} == {"C2"}
    assert sorted(c for p in result.problems for c in p.components) == ["CICADA-2", "GIBBON-1"]


def test_sample_photo_reads_its_truth_and_score() -> None:
    truth = GAME.load_state(json.loads(sample_photo("borneo").with_suffix(".json").read_text("utf-8")))
    rec = recognise(sample_photo("borneo").read_bytes(), "borneo")
    assert sorted(map(repr, rec.state.placements)) == sorted(map(repr, truth.placements))
    assert rec.state.unknown == ()
    totals = {s.player: s.total for s in GAME.score_sheet(rec.state).scores}
    # Two chains: termites 2, sun bear 4, clouded leopard 9; cicada 1, draco 3, tarsier 4, linsang 5, python 8.
    assert totals == {"player1": 36}


def test_a_gap_in_a_food_chain_asks_for_the_unread_card_where_its_tag_would_show() -> None:
    # GECKO-1 lies two fan steps below MOTH-1: the card between them was not read. The
    # scanner is asked to read a card's tag one step below MOTH-1's own tag, half a step
    # either way, at the chain's turn.
    legend = located("borneo", "LEGEND-1", 0.0, 0.0)
    prey = located("borneo", "MOTH-1", 120.0, 0.0, 2.0)
    gecko = located("borneo", "GECKO-1", *on_face(prey, 31.5, 44.0 + 60.0), 2.0)
    result = _read(legend, prey, gecko, players=(Player("ann", "Ann", "", 0),))  # type: ignore[arg-type]
    assert "layout/fan_gap" in [p.code for p in result.problems]
    assert "GECKO-1" not in {p.placement.component for p in result.placed}
    tag = marker_layout("borneo", GAME.component_index["MOTH-1"]).tag.centre_mm  # type: ignore[attr-defined]
    want = on_face(prey, tag[0], tag[1] + 30.0)
    asks = [a for a in result.look_again if a.tag_mm is not None]
    assert len(asks) == 1
    assert asks[0].tag_mm == pytest.approx(want, abs=0.01)
    assert asks[0].reach_mm == pytest.approx(15.0) and asks[0].angle_deg == pytest.approx(2.0)


def test_a_card_on_a_prey_that_is_not_placed_is_not_placed_either() -> None:
    # MOTH-1 <- (gap) GECKO-1 <- SERPEAGLE-1: GECKO-1 lies two steps below its prey, so it is
    # not placed, and SERPEAGLE-1 on it is not placed either (not refused later by the rules).
    legend = located("borneo", "LEGEND-1", 0.0, 0.0)
    prey = located("borneo", "MOTH-1", 120.0, 0.0)
    gecko = located("borneo", "GECKO-1", *on_face(prey, 31.5, 44.0 + 60.0))
    eagle = located("borneo", "SERPEAGLE-1", *on_face(gecko, 31.5, 44.0 + 30.0))
    result = _read(legend, prey, gecko, eagle, players=(Player("ann", "Ann", "", 0),))  # type: ignore[arg-type]
    placed = {p.placement.component for p in result.placed}
    assert "MOTH-1" in placed and not placed & {"GECKO-1", "SERPEAGLE-1"}
    named = {c for p in result.problems if p.code == "layout/fan_gap" for c in p.components}
    assert {"GECKO-1", "SERPEAGLE-1"} <= named


def test_a_predator_on_no_read_card_is_reported_not_made_the_bottom_of_a_chain() -> None:
    # A secondary or apex animal always lies on its prey (the rules stack it there and prey is
    # never taken away): read on no card, its prey was not read. GECKO-1 lies alone beside the
    # legend, SERPEAGLE-1 on it; a primary animal alone (ANT-1) starts a chain of its own.
    from tests.plain_words import faults

    legend = located("borneo", "LEGEND-1", 0.0, 0.0)
    gecko = located("borneo", "GECKO-1", 120.0, 30.0, 2.0)
    eagle = located("borneo", "SERPEAGLE-1", *on_face(gecko, 31.5, 44.0 + 30.0), 2.0)
    ant = located("borneo", "ANT-1", 200.0, 0.0)
    result = _read(legend, gecko, eagle, ant, players=(Player("ann", "Ann", "", 0),))  # type: ignore[arg-type]
    got = {p.placement.component: p.placement for p in result.placed}
    assert got["ANT-1"] == Placement("ANT-1", "earned:ann")
    assert not {"GECKO-1", "SERPEAGLE-1"} & set(got)
    said = {p.components: p for p in result.problems}
    assert said[("GECKO-1",)].code == "layout/fan_unread"
    assert "secondary consumer" in said[("GECKO-1",)].message and faults(said[("GECKO-1",)].message, "borneo") == []
    assert said[("SERPEAGLE-1",)].code == "layout/fan_gap"  # on a card that is not placed
    assert [u.area for u in result.unknown] == ["earned:ann"]  # the score sheet says it is not read in full
    # Its prey's tag is looked for one fan step above its own (and two, three steps up).
    tag = marker_layout("borneo", GAME.component_index["GECKO-1"]).tag.centre_mm  # type: ignore[attr-defined]
    asks = [a.tag_mm for a in result.look_again if a.tag_mm is not None]
    assert any(a == pytest.approx(on_face(gecko, tag[0], tag[1] - 30.0), abs=0.01) for a in asks)


def test_a_second_card_on_one_prey_is_not_placed() -> None:
    # A prey holds one card: of two cards fanned on MOTH-1 the nearer lies on it; the other lies
    # on a card that was not read, so it is reported, not placed as the bottom of a chain.
    legend = located("borneo", "LEGEND-1", 0.0, 0.0)
    prey = located("borneo", "MOTH-1", 120.0, 0.0)
    gecko = located("borneo", "GECKO-1", *on_face(prey, 31.5, 44.0 + 30.0))
    spider = located("borneo", "SPIDER-1", *on_face(prey, 31.5 + 10.0, 44.0 + 32.0))
    result = _read(legend, prey, gecko, spider, players=(Player("ann", "Ann", "", 0),))  # type: ignore[arg-type]
    got = {p.placement.component: p.placement for p in result.placed}
    assert got["GECKO-1"].on == "MOTH-1" and "SPIDER-1" not in got
    assert ("layout/two_on_one", ("SPIDER-1", "MOTH-1")) in [(p.code, p.components) for p in result.problems]
    assert [u.area for u in result.unknown] == ["earned:ann"]


def test_a_predator_whose_prey_is_under_an_arm_is_reported_not_placed_on_nothing() -> None:
    """An arm over the table hides Banded Linsang; Reticulated Python, fanned on it, is read. It
    was placed as the bottom of a chain (a silently wrong chain): a python is an apex predator,
    which always lies on its prey, so it is reported and the chain is not scored in full."""
    from tests.rendering.conditions import render_condition

    state = red_position()
    scene = render_condition("borneo", state, condition="overlap", resolution=(1920, 1080), seed=1004).scene
    assert "LINSANG-1" not in {p.component for p in scene.truth.placements}  # hidden in this frame
    rec = recognise(scene.jpeg, "borneo", players=state.players)
    v = judge(scene.truth, state, rec.state, scene.hidden)
    assert v.wrong == [] and v.stray == []
    assert rec.state.placement_of("PYTHON-1") is None
    assert "PYTHON-1" in {c for p in rec.problems if p.code.value == "layout/fan_unread" for c in p.components}
    assert any(u.area == "earned:red" for u in rec.state.unknown)


def test_unread_cards_at_the_top_of_a_blurred_food_chain_are_read() -> None:
    # 76 cm, blurred: neither of the two cards fanned on top of player 1's termites decoded.
    # Where the next card's tag would show, the termites' face is as busy as the read markers
    # (though only 2.6 times its own plain parts): the cards there are asked for and read, one
    # fan step after the other.
    path = sample_photo("borneo").with_suffix(".json")
    state = GAME.load_state(json.loads(path.read_text("utf-8")))
    scene = render_scene("borneo", state, condition="hard", resolution=(1920, 1080), seed=1005)
    rec = recognise(scene.jpeg, "borneo", players=state.players)
    truth = {p.component: p for p in state.placements}
    for card in ("SUNBEAR-1", "LEOPARD-1"):
        assert rec.state.placement_of(card) == truth[card]
    assert all(truth.get(p.component) == p for p in rec.state.placements)


def test_a_food_chain_whose_tags_all_blurred_is_read_beside_the_chain_next_to_it() -> None:
    """In this hard view no marker of the five-card chain decodes and the detector gives no
    quad there (the tags' quiet zones run into the cards' print): the cards are looked for
    beside the chain laid next to it, and the whole chain is read, each card on its prey."""
    state = red_position()
    scene = render_scene("borneo", state, condition="hard", resolution=(1920, 1080), seed=1003)
    rec = recognise(scene.jpeg, "borneo", players=state.players)
    v = judge(scene.truth, state, rec.state, scene.hidden)
    assert v.wrong == [] and v.stray == [] and v.missed == []
    chain = [("DRACO-1", "CICADA-1"), ("TARSIER-1", "DRACO-1"), ("LINSANG-1", "TARSIER-1"), ("PYTHON-1", "LINSANG-1")]
    for card, prey in chain:
        assert rec.state.placement_of(card).on == prey  # type: ignore[union-attr]


def test_chains_beside_the_legend_are_found_when_none_of_their_tags_decoded() -> None:
    """A shaken photo in which no earned card's tag decodes: the first chain is looked for
    beside the player's legend card, the next beside it, and their cards are read (the two
    cards fanned on the first chain's bottom card stay unread in this frame)."""
    from tests.rendering.conditions import render_condition

    state = red_position()
    scene = render_condition("borneo", state, condition="shake", resolution=(1920, 1080), seed=1005).scene
    rec = recognise(scene.jpeg, "borneo", players=state.players)
    v = judge(scene.truth, state, rec.state, scene.hidden)
    assert v.wrong == [] and v.stray == []
    read = {p.component for p in rec.state.placements if p.area.startswith("earned:")}
    assert {"TERMITES-1", "CICADA-1", "DRACO-1", "TARSIER-1", "LINSANG-1", "PYTHON-1"} <= read


def test_tiles_edge_to_edge_on_an_unread_platform_are_not_taken_for_a_hand() -> None:
    """A shaken photo in which none of the platform's markers decodes but some of its tiles do:
    tiles lying edge to edge as a platform's slots hold them are on a platform, not in the hand
    of the player whose legend lies near; they are reported, and the jungle is not read in full."""
    from tests.rendering.conditions import render_condition

    state = red_position()
    scene = render_condition("borneo", state, condition="shake", resolution=(1920, 1080), seed=1004).scene
    rec = recognise(scene.jpeg, "borneo", players=state.players)
    v = judge(scene.truth, state, rec.state, scene.hidden)
    assert v.wrong == [] and v.stray == []
    assert rec.state.placement_of("C1") is None  # the platform is not read in this frame
    assert all(p.area != "hand:red" for p in rec.state.placements if p.component not in ("T45", "T06"))
    assert any(u.area == "jungle" for u in rec.state.unknown)
    assert {"T07", "T09"} <= {c for p in rec.problems if p.code.value == "layout/unplaced" for c in p.components}
