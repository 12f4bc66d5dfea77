"""Biomos from a photo: planet boards from their anchors, tokens on their spaces, biome cards beside them."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import numpy as np
import pytest

from scoring import find_game
from scoring.model import BoardState, Placement, Player, UnknownPlace
from scoring.state import state_to_json
from vision import recognise, sample_photo
from vision.detect import Detection, MarkerKind
from vision.identify import FaceDown
from vision.layouts import TablePose, TableView, find_layout
from vision.layouts.biomos import canonical
from tests.rendering.render import render_scene

from .boards import judge, located, on_face

GAME = find_game("biomos")


def red_position() -> BoardState:
    """Red's finished discovery planet, its biomes, two centre tokens and part of the offer."""
    doc = dict(GAME.example_state())
    keep = {"planet:red", "biomes:red", "centre"}
    offer = {"B07", "B12", "G01"}
    doc["placements"] = [p for p in doc["placements"] if p["area"] in keep or p["component"] in offer]
    doc["players"] = [p for p in doc["players"] if p["id"] == "red"]
    return GAME.load_state(doc)


@pytest.fixture(scope="module")
def typical():  # noqa: ANN201
    state = red_position()
    scene = render_scene("biomos", state, condition="typical", seed=0)
    return state, scene, recognise(scene.jpeg, "biomos", players=state.players)


@pytest.fixture(scope="module")
def hard():  # noqa: ANN201
    state = red_position()
    scene = render_scene("biomos", state, condition="hard", seed=5, hand=True)
    return state, scene, recognise(scene.jpeg, "biomos", players=state.players)


def test_typical_scene_reads_the_truth(typical) -> None:  # noqa: ANN001
    state, scene, rec = typical
    v = judge(canonical(scene.truth), state, rec.state, scene.hidden)
    assert v.wrong == [] and v.stray == []
    assert v.missed == []
    assert len(v.right) >= 20
    # The planet and the Moon, by name.
    assert rec.state.placement_of("FOREST-04") == Placement("FOREST-04", "planet:red", "MOON")
    assert rec.state.placement_of("OCEAN-06") == Placement("OCEAN-06", "planet:red", "P12")


def test_typical_scene_scores_like_the_truth(typical) -> None:  # noqa: ANN001
    state, scene, rec = typical
    if scene.hidden:
        pytest.skip("part of the table is out of frame")
    # Red's example planet: B11 7 + B19 5 + B27 5 + G06 10 + B04 3 + B09 3 = 33, forest Moon x 3 forests = 9.
    assert GAME.score_sheet(rec.state).score_of("red").total == 42


def test_hard_scene_never_places_a_wrong_component(hard) -> None:  # noqa: ANN001
    state, scene, rec = hard
    v = judge(canonical(scene.truth), state, rec.state, scene.hidden)
    assert v.wrong == [] and v.stray == []
    # Blur, glare and a hand: what is read is right, and the planet itself is always found.
    assert "PLANET1-D" in v.right


def test_players_are_named_after_their_board_without_a_player_list(typical) -> None:  # noqa: ANN001
    _, scene, _ = typical
    rec = recognise(scene.jpeg, "biomos")
    assert [p.id for p in rec.state.players] == ["planet1"]
    assert rec.state.placement_of("PLANET1-D") == Placement("PLANET1-D", "planet:planet1")
    GAME.load_state(state_to_json(rec.state))


# -- the layout on hand-placed components (no photo) ----------------------------------------


def _read(*items, players=None):  # noqa: ANN001, ANN002, ANN202
    return find_layout("biomos").read(TableView("biomos", tuple(items), players=players))


def test_advanced_side_recesses_moon_and_off_board_tokens() -> None:
    board = located("biomos", "PLANET2-A", 0.0, 0.0, 30.0)
    r1 = located("biomos", "OCEAN-01", *on_face(board, 206.0 + 4.0, 61.0 - 3.0))
    r2 = located("biomos", "OCEAN-02", *on_face(board, 221.0, 87.0))
    moon = located("biomos", "GLACIER-01", *on_face(board, 40.0, 45.0))
    p1 = located("biomos", "DESERT-01", *on_face(board, 225.0, 118.5))
    slid = located("biomos", "DESERT-02", *on_face(board, 330.0, 120.0))  # 20 mm beyond the right edge
    between = located("biomos", "FOREST-01", *on_face(board, 161.0, 178.0 - 13.5))  # on P4's top border
    far = located("biomos", "MOUNTAIN-01", *on_face(board, 155.0, -150.0))  # the centre row, across the table
    result = _read(board, r1, r2, moon, p1, slid, between, far, players=(Player("ann", "Ann", "", 0),))  # type: ignore[arg-type]
    got = {p.placement.component: p.placement for p in result.placed}
    assert got["PLANET2-A"] == Placement("PLANET2-A", "planet:ann")
    assert got["OCEAN-01"].cell == "R1" and got["OCEAN-02"].cell == "R2"
    assert got["GLACIER-01"].cell == "MOON" and got["DESERT-01"].cell == "P1"
    assert got["MOUNTAIN-01"] == Placement("MOUNTAIN-01", "centre")
    assert "DESERT-02" not in got and "FOREST-01" not in got
    codes = {p.code: p.components for p in result.problems}
    assert codes["layout/off_board"] == ("DESERT-02",)
    assert codes["layout/between_spaces"] == ("FOREST-01",)


def test_cards_in_front_of_a_board_are_its_biomes_the_rest_is_the_offer() -> None:
    one = located("biomos", "PLANET1-D", 0.0, 0.0)
    two = located("biomos", "PLANET3-D", 500.0, 0.0)
    mine = located("biomos", "B11", *on_face(one, 155.0, 217.0 + 60.0))
    theirs = located("biomos", "G06", *on_face(two, 100.0, 217.0 + 130.0))
    offered = [located("biomos", cid, x, -250.0) for cid, x in (("B30", 300.0), ("B07", 100.0), ("G02", 200.0))]
    result = _read(one, two, mine, theirs, *offered)
    got = {p.placement.component: p.placement for p in result.placed}
    assert [p.id for p in result.players] == ["planet1", "planet3"]
    assert got["B11"].area == "biomes:planet1" and got["G06"].area == "biomes:planet3"
    # The offer without cells: a count along the row would shift when a card is unreadable.
    assert [got[c] for c in ("B07", "B30", "G02")] == [Placement(c, "offer") for c in ("B07", "B30", "G02")]


def test_solo_black_hole_tokens_and_established_biomes() -> None:
    board = located("biomos", "PLANET1-D", 0.0, 0.0)
    hole = located("biomos", "BLACKHOLE-20", 300.0, 0.0)
    on_hole = located("biomos", "OCEAN-05", *on_face(hole, 60.0, 40.0))
    card = located("biomos", "B02", *on_face(hole, 63.0, 88.0 + 50.0))
    absorbed = located("biomos", "DESERT-05", *on_face(card, 40.0, 20.0))
    result = _read(board, hole, on_hole, card, absorbed)
    got = {p.placement.component: p.placement for p in result.placed}
    assert got["BLACKHOLE-20"] == Placement("BLACKHOLE-20", "blackhole")
    assert got["OCEAN-05"] == Placement("OCEAN-05", "blackhole", on="BLACKHOLE-20")  # type: ignore[arg-type]
    assert got["B02"] == Placement("B02", "blackhole")
    assert got["DESERT-05"] == Placement("DESERT-05", "blackhole", on="B02")  # type: ignore[arg-type]


def test_canonical_drops_what_a_photo_cannot_show() -> None:
    state = GAME.load_state(GAME.example_state())
    seen = canonical(state)
    assert seen.placement_of("B03") is None  # kept face down: only its back shows
    assert UnknownPlace("biomes:blue") in seen.unknown  # ... an unknown card of Blue's biomes
    assert seen.placement_of("B01") == Placement("B01", "biomes:blue")
    assert seen.placement_of("OCEAN-09") == Placement("OCEAN-09", "centre")
    assert seen.placement_of("G08") == Placement("G08", "offer")
    assert len(seen.placements) == len(state.placements) - 1


def test_sample_photo_reads_its_truth_and_score() -> None:
    truth = GAME.load_state(json.loads(sample_photo("biomos").with_suffix(".json").read_text("utf-8")))
    rec = recognise(sample_photo("biomos").read_bytes(), "biomos")
    assert sorted(map(repr, rec.state.placements)) == sorted(map(repr, truth.placements))
    assert rec.state.unknown == ()
    totals = {s.player: s.total for s in GAME.score_sheet(rec.state).scores}
    # Solo end of game: Stone Forest 7 + Mangrove 5 + Geyser Field 5 + Ocean 10 + forest Moon 3 x 3;
    # the Black Hole 20 + Grassland 3 + Iceberg 5.
    assert totals == {"planet1": 36, "blackhole": 28}


# -- face-down biome cards: seen as such, never guessed --------------------------------------


def face_down_position() -> BoardState:
    """Red's position with the claimed Mangrove (B19, 5 points) kept face down."""
    state = red_position()
    turned = tuple(replace(p, face_up=False) if p.component == "B19" else p for p in state.placements)
    return replace(state, placements=turned)


@pytest.fixture(scope="module")
def face_down():  # noqa: ANN201
    state = face_down_position()
    scene = render_scene("biomos", state, condition="typical", seed=0)
    return state, scene, recognise(scene.jpeg, "biomos", players=state.players)


def _on_board(board: TablePose, size: tuple[float, float], x: float, y: float) -> np.ndarray:
    """A table point in a board's upright face millimetres (the scene's truth)."""
    a = math.radians(-board.angle_deg)
    dx, dy = x - board.x_mm, y - board.y_mm
    return np.array([math.cos(a) * dx - math.sin(a) * dy + size[0] / 2, math.sin(a) * dx + math.cos(a) * dy + size[1] / 2])


def test_a_face_down_biome_card_is_seen_where_it_lies_and_never_guessed(face_down) -> None:  # noqa: ANN001
    state, scene, rec = face_down
    assert "B19" not in scene.hidden
    # Never a component: not read, not placed, not named by any problem.
    assert rec.component("B19") is None and rec.state.placement_of("B19") is None
    assert all("B19" not in p.components for p in rec.problems)
    assert all(not f.text.startswith("tag 586") for f in rec.foreign)
    # The rest of the table reads as before.
    v = judge(canonical(scene.truth), state, rec.state, scene.hidden)
    assert v.wrong == [] and v.stray == [] and v.missed == []
    assert len(v.right) >= 20
    # Seen where it lies: its centre relative to the planet, as in the scene.
    (card,) = rec.face_down
    assert card.kind == "card" and card.centre_mm is not None
    board = rec.component("PLANET1-D")
    assert board is not None
    got = board.located.to_face(np.array([card.centre_mm]))[0]
    pose, size = scene.poses["B19"], board.located.component.size_mm
    want = _on_board(scene.poses["PLANET1-D"], size, pose.x_mm, pose.y_mm)
    assert np.linalg.norm(got - want) < 8.0
    assert np.linalg.norm(np.array(card.image_centre) - scene.image_centres["B19"]) < 12.0


def test_a_face_down_biome_card_is_an_unknown_biome_of_its_player(face_down) -> None:  # noqa: ANN001
    _, scene, rec = face_down
    assert rec.state.unknown == canonical(scene.truth).unknown == (UnknownPlace("biomes:red"),)
    (problem,) = [p for p in rec.problems if p.code == "layout/face_down"]
    assert "Planet board 1 (discovery)" in problem.message and problem.components == ()
    assert np.linalg.norm(np.array(problem.image_points[0]) - scene.image_centres["B19"]) < 12.0
    # The sheet counts what was seen (42 without the Mangrove's 5) and says it is incomplete.
    sheet = GAME.score_sheet(rec.state)
    assert sheet.score_of("red").total == 37
    assert any("incomplete" in n for n in sheet.notes)
    doc = json.loads(json.dumps(rec.to_dict()))
    assert [(f["kind"], f["label"]) for f in doc["face_down"]] == [("card", "a face-down card")]
    assert doc["face_down"][0]["centre_mm"] is not None and len(doc["face_down"][0]["image_corners"]) == 4


def _face_down_at(xy: tuple[float, float] | None) -> FaceDown:
    det = Detection(MarkerKind.TAG, np.array([[0, 0], [26, 0], [26, 26], [0, 26]], float), tag_id=586)
    return FaceDown("card", "biomos", det, np.eye(3), (88.0, 63.0), xy)


def test_face_down_cards_beside_a_planet_in_the_middle_and_loose() -> None:
    one = located("biomos", "PLANET1-D", 0.0, 0.0)
    hole = located("biomos", "BLACKHOLE-20", 400.0, 0.0)
    beside = _face_down_at(on_face(one, 155.0, 217.0 + 60.0))
    below_hole = _face_down_at(on_face(hole, 63.0, 88.0 + 50.0))
    deck = _face_down_at((100.0, -250.0))  # across the table: the draw deck
    loose = _face_down_at(on_face(one, -150.0, 100.0))  # to the side of the planet, not in front of it
    unseen = _face_down_at(None)  # no plane to place it
    view = TableView("biomos", (one, hole), face_down=(beside, below_hole, deck, loose, unseen))
    result = find_layout("biomos").read(view)
    assert sorted(result.unknown, key=lambda p: p.area) == [UnknownPlace("biomes:planet1"), UnknownPlace("blackhole")]  # type: ignore[arg-type]
    found = [p for p in result.problems if p.code == "layout/face_down"]
    assert len(found) == 4  # beside the planet, below the Black Hole, loose, unplaceable; the deck is no problem
    assert all(p.components == () for p in found)
    assert "beside Planet board 1 (discovery)" in found[0].message and "below Black Hole (discovery)" in found[1].message
    assert [p.placement.component for p in result.placed] == ["PLANET1-D", "BLACKHOLE-20"]
