"""Rainforest from a photo: player boards from their anchors, tiles in the jungle, tokens in tile slots."""

from __future__ import annotations

import json
import math

import pytest

from scoring import find_game
from scoring.model import BoardState, Placement, Player
from scoring.state import state_to_json
from vision import recognise, sample_photo
from vision.layouts import TableView, find_layout
from tests.rendering.render import render_scene

from .boards import judge, located, on_face

GAME = find_game("rainforest")


def ana_position() -> BoardState:
    """Ana's board at the end of the example game: her jungle, clearing, reserve and binoculars."""
    doc = dict(GAME.example_state())
    doc["placements"] = [p for p in doc["placements"] if p["area"].endswith(":ana")]
    doc["players"] = [p for p in doc["players"] if p["id"] == "ana"]
    return GAME.load_state(doc)


@pytest.fixture(scope="module")
def typical():  # noqa: ANN201
    state = ana_position()
    scene = render_scene("rainforest", state, condition="typical", seed=2)
    return state, scene, recognise(scene.jpeg, "rainforest", players=state.players)


@pytest.fixture(scope="module")
def hard():  # noqa: ANN201
    state = ana_position()
    scene = render_scene("rainforest", state, condition="hard", seed=4, hand=True)
    return state, scene, recognise(scene.jpeg, "rainforest", players=state.players)


def test_typical_scene_reads_the_truth(typical) -> None:  # noqa: ANN001
    state, scene, rec = typical
    v = judge(scene.truth, state, rec.state, scene.hidden)
    assert v.wrong == [] and v.stray == []
    assert v.missed == []
    assert len(v.right) >= 25
    # A token in the third slot of a three-slot tile, and the protected area over a tile's QR code.
    assert rec.state.placement_of("BUTTERFLY-B1") == Placement("BUTTERFLY-B1", "jungle:ana", None, 0, True, "TILE-R10", 3)  # type: ignore[arg-type]
    assert rec.state.placement_of("PA-GREEN-3") == Placement("PA-GREEN-3", "jungle:ana", None, 0, True, "TILE-G06")  # type: ignore[arg-type]


def test_typical_scene_scores_like_the_truth(typical) -> None:  # noqa: ANN001
    _, scene, rec = typical
    if scene.hidden:
        pytest.skip("part of the table is out of frame")
    # Ana's example jungle (RF1): tiles 23 + frogs 6 + protected area 4 + diversity 4.
    assert GAME.score_sheet(rec.state).score_of("ana").total == 37


def test_hard_scene_never_places_a_wrong_component(hard) -> None:  # noqa: ANN001
    state, scene, rec = hard
    v = judge(scene.truth, state, rec.state, scene.hidden)
    assert v.wrong == [] and v.stray == []
    assert "BOARD-FROG" in v.right


def test_players_are_named_after_their_totem_without_a_player_list(typical) -> None:  # noqa: ANN001
    _, scene, _ = typical
    rec = recognise(scene.jpeg, "rainforest")
    assert [(p.id, p.seat) for p in rec.state.players] == [("frog", 0)]
    assert rec.state.placement_of("TILE-G06").area == "jungle:frog"  # type: ignore[union-attr]
    GAME.load_state(state_to_json(rec.state))


# -- the layout on hand-placed components (no photo) ----------------------------------------


def _read(*items, players=None):  # noqa: ANN001, ANN002, ANN202
    return find_layout("rainforest").read(TableView("rainforest", tuple(items), players=players))


def test_slots_follow_the_tile_face_whatever_its_rotation() -> None:
    board = located("rainforest", "BOARD-PARROT", 0.0, 0.0, 90.0)
    tile = located("rainforest", "TILE-R10", *on_face(board, 210.0, 240.0), 90.0 + 180.0)  # J3, upside down
    first = located("rainforest", "FROG-R1", *on_face(tile, 13.5, 52.0))
    third = located("rainforest", "MONKEY-Y1", *on_face(tile, 61.5 + 2.0, 52.0 - 2.0))
    kept = located("rainforest", "PARROT-B1", *on_face(board, 160.0, 395.0))
    glass = located("rainforest", "BINOCULARS", *on_face(board, 290.0, 380.0))
    pa = located("rainforest", "PA-RED-3", *on_face(tile, 54.0, 22.0))
    spare = located("rainforest", "DIV-2", *on_face(board, 400.0, 0.0))
    result = _read(board, tile, first, third, kept, glass, pa, spare, players=(Player("zoe", "Zoe", "", 0),))  # type: ignore[arg-type]
    got = {p.placement.component: p.placement for p in result.placed}
    assert got["BOARD-PARROT"] == Placement("BOARD-PARROT", "player:zoe")
    assert got["TILE-R10"] == Placement("TILE-R10", "jungle:zoe", "J3", 2)
    assert (got["FROG-R1"].on, got["FROG-R1"].slot, got["FROG-R1"].area) == ("TILE-R10", 1, "jungle:zoe")
    assert (got["MONKEY-Y1"].on, got["MONKEY-Y1"].slot) == ("TILE-R10", 3)
    assert got["PARROT-B1"] == Placement("PARROT-B1", "reserve:zoe", "R2")
    assert got["BINOCULARS"] == Placement("BINOCULARS", "player:zoe")
    assert got["PA-RED-3"] == Placement("PA-RED-3", "jungle:zoe", None, 0, True, "TILE-R10")  # type: ignore[arg-type]
    assert got["DIV-2"] == Placement("DIV-2", "supply")


def test_clearing_tiles_and_tokens_between_slots() -> None:
    board = located("rainforest", "BOARD-FROG", 0.0, 0.0)
    clearing = located("rainforest", "TILE-R10", *on_face(board, 130.0, 330.0))
    between = located("rainforest", "PARROT-R2", *on_face(clearing, 25.0, 52.0))  # on the border of slots 1 and 2
    result = _read(board, clearing, between)
    got = {p.placement.component: p.placement for p in result.placed}
    assert [p.id for p in result.players] == ["frog"]
    assert got["TILE-R10"] == Placement("TILE-R10", "clearing:frog", "C2")
    assert "PARROT-R2" not in got
    assert [p.code for p in result.problems] == ["layout/between_spaces", "layout/binoculars_unseen"]


def test_binoculars_not_seen_while_every_seated_board_is_in_view_are_reported() -> None:
    zoe, ana = Player("zoe", "Zoe", "", 0), Player("ana", "Ana", "", 1)
    parrot = located("rainforest", "BOARD-PARROT", 0.0, 0.0)
    frog = located("rainforest", "BOARD-FROG", 500.0, 0.0)
    tile = located("rainforest", "TILE-R10", *on_face(parrot, 210.0, 240.0))
    both = _read(parrot, frog, tile, players=(zoe, ana))
    unseen = [p for p in both.problems if p.code == "layout/binoculars_unseen"]
    assert [p.components for p in unseen] == [("BINOCULARS",)]
    # Beside a board they are its player's, and nothing is said.
    glass = located("rainforest", "BINOCULARS", *on_face(parrot, 290.0, 380.0))
    seen = _read(parrot, frog, tile, glass, players=(zoe, ana))
    assert "layout/binoculars_unseen" not in [p.code for p in seen.problems]
    state = seen.state("rainforest")
    assert state.placement_of("BINOCULARS").area == state.placement_of("BOARD-PARROT").area  # type: ignore[union-attr]
    # With the other board out of view they may lie beside it: only that player's absence is said.
    part = _read(parrot, tile, players=(zoe, ana))
    assert [p.code for p in part.problems] == ["layout/player_not_in_view"]


def test_main_board_zones() -> None:
    main = located("rainforest", "MAIN-BOARD", 0.0, 0.0, -3.0)
    pile = located("rainforest", "TILE-G11", *on_face(main, 210.0 + 2.0, 80.0), -3.0)
    token = located("rainforest", "MONKEY-Y4", *on_face(main, 277.0, 145.0))
    last = located("rainforest", "PARROT-Y4", *on_face(main, 359.0, 205.0))
    result = _read(main, pile, token, last)
    got = {p.placement.component: p.placement for p in result.placed}
    assert got["MAIN-BOARD"] == Placement("MAIN-BOARD", "table")
    assert got["TILE-G11"] == Placement("TILE-G11", "zone:3", "PILE")
    assert got["MONKEY-Y4"] == Placement("MONKEY-Y4", "zone:4", "S1")
    assert got["PARROT-Y4"] == Placement("PARROT-Y4", "zone:5", "S5")


def test_sample_photo_reads_its_truth_and_score() -> None:
    truth = GAME.load_state(json.loads(sample_photo("rainforest").with_suffix(".json").read_text("utf-8")))
    rec = recognise(sample_photo("rainforest").read_bytes(), "rainforest")
    assert sorted(map(repr, rec.state.placements)) == sorted(map(repr, truth.placements))
    assert rec.state.unknown == ()
    totals = {s.player: s.total for s in GAME.score_sheet(rec.state).scores}
    # The frog player's example jungle: tiles 23 + frogs 6 + protected area 4 + diversity 4.
    assert totals == {"frog": 37}


def _hard_sample_scene(seed: int):  # noqa: ANN202
    """The sample photo's position in a hard 1080p view (one of the benchmark's), and its reading."""
    path = sample_photo("rainforest").with_suffix(".json")
    state = GAME.load_state(json.loads(path.read_text("utf-8")))
    scene = render_scene("rainforest", state, condition="hard", resolution=(1920, 1080), seed=seed)
    return state, recognise(scene.jpeg, "rainforest", players=state.players)


def test_a_bonus_token_over_a_tiles_qr_code_is_read_in_a_blurred_view() -> None:
    # 76 cm, blurred: the diversity token lies over the QR code of its tile, so the tile is read
    # by its tag alone. The token's undecoded tag is no print of the tile: it is read whole
    # and the token placed on its tile (it scores 2 per tile laid after it).
    state, rec = _hard_sample_scene(1006)
    want = state.placement_of("DIV-1")
    assert want is not None and want.on == "TILE-P06"
    assert rec.state.placement_of("DIV-1") == want
    tile = rec.component("TILE-P06")
    assert tile is not None and "qr" not in tile.located.source.split("+")
    truth = {p.component: p for p in state.placements}
    assert all(truth.get(p.component) == p for p in rec.state.placements)


@pytest.mark.parametrize("seed", [1006, 1007])
def test_a_bonus_token_over_a_tiles_qr_code_with_no_quad_is_looked_at_again(seed: int) -> None:
    # Blurred past a quad of its own, the protected-area token over its tile's QR code leaves
    # only a code busier than the photo's other tile codes: that place is looked at again for
    # a bonus token's tag, which reads it, and the token is placed on its tile.
    state, rec = _hard_sample_scene(seed)
    want = state.placement_of("PA-GREEN-3")
    assert want is not None and want.on == "TILE-G06"
    assert rec.state.placement_of("PA-GREEN-3") == want
    truth = {p.component: p for p in state.placements}
    assert all(truth.get(p.component) == p for p in rec.state.placements)


def test_tile_codes_are_looked_at_again_only_where_a_token_may_cover_one(monkeypatch: pytest.MonkeyPatch) -> None:
    # The busy-code look costs a search per place: in a typical view the sharp codes are the
    # busier print and none is asked about; in the blurred view only the covered tile's is.
    from vision.layouts import rainforest as layout_module

    asked: list[tuple[str, ...]] = []
    real = layout_module._covered_codes

    def watched(view, tiles):  # noqa: ANN001, ANN202
        places = real(view, tiles)  # each place's tile: the one whose centre is nearest
        asked.append(tuple(sorted({min(tiles, key=lambda t: math.dist(t.centre_mm, p.centre_mm)).component.id for p in places})))
        return places

    monkeypatch.setattr(layout_module, "_covered_codes", watched)
    state = GAME.load_state(json.loads(sample_photo("rainforest").with_suffix(".json").read_text("utf-8")))
    for seed in range(1000, 1004):
        scene = render_scene("rainforest", state, condition="typical", resolution=(1920, 1080), seed=seed)
        recognise(scene.jpeg, "rainforest", players=state.players)
    assert asked and not any(asked)
    asked.clear()
    _hard_sample_scene(1006)
    assert asked[0] == ("TILE-G06",)


def test_a_red_token_on_a_red_tile_is_reported_in_a_blurred_view() -> None:
    # 80 cm, 42 degrees, blurred: the monkey token in slot 1 of a red tile shows little of its
    # own red rim and does not decode; its slot is under three times as busy as the tile's plain
    # parts, but clearly busier than an empty slot (at most 1.6 times in these views), so it is
    # reported as an unknown place.
    state, rec = _hard_sample_scene(1008)
    want = state.placement_of("MONKEY-R2")
    assert want is not None and (want.on, want.slot) == ("TILE-R01", 1)
    if rec.state.placement_of("MONKEY-R2") != want:
        assert any((u.area, u.on, u.slot) == (want.area, "TILE-R01", 1) for u in rec.state.unknown)
    truth = {p.component: p for p in state.placements}
    assert all(truth.get(p.component) == p for p in rec.state.placements)


def test_the_finder_patterns_of_a_strangers_code_are_not_unread_tags() -> None:
    """A QR code on the table that decodes but names no component (here a damaged code beside
    the board) shows three tag-shaped finder patterns: they are that code's, not unread tags."""
    state = ana_position()
    scene = render_scene("rainforest", state, condition="typical", resolution=(1920, 1080), seed=1009)
    rec = recognise(scene.jpeg, "rainforest", players=state.players)
    assert rec.foreign  # the stranger's code is read, and set aside
    assert rec.unreadable == ()
    assert all(p.code.value != "vision/hold_still" for p in rec.problems)
