"""Biomos asks the scanner to look again where it sees something it could not read: tokens on
the Black Hole and its cards, biome cards in front of a planet, an unread Black Hole."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

import numpy as np
import pytest

from scoring import find_game
from scoring.model import BoardState, Placement, UnknownPlace
from vision import recognise, sample_photo
from vision.layouts import Located, TableView, find_layout
from vision.layouts.biomos import canonical
from tests.rendering.render import render_scene

from .boards import judge, located, on_face

GAME = find_game("biomos")
TOKEN = (28.0, 28.0)
CARD = (88.0, 63.0)


def _texture(busy: Sequence[tuple[float, float]], level: float = 100.0, bare: float = 5.0):  # noqa: ANN202
    """A photo's texture probe: ``level`` inside any printed tag (within 9 mm of a busy point), ``bare`` elsewhere."""

    def texture(polygon: np.ndarray) -> float:
        cx, cy = np.asarray(polygon, float)[:4].mean(axis=0)
        return level if any(math.hypot(cx - x, cy - y) < 9.0 for x, y in busy) else bare

    return texture


def _tags(*faces: Located) -> list[tuple[float, float]]:
    """Table centres of the read faces' printed markers (the reference of a tag's texture)."""
    from vision.layouts.spaces import marker_boxes

    return [tuple(float(v) for v in f.face_point(x, y)) for f in faces for x, y, _ in marker_boxes("biomos", f)]  # type: ignore[misc]


def _solo() -> tuple[Located, Located, Located, Located]:
    board = located("biomos", "PLANET1-D", 155.0, 108.0)
    hole = located("biomos", "BLACKHOLE-20", 500.0, 108.0)
    read_token = located("biomos", "GLACIER-01", *on_face(hole, 42.0, 17.0))
    card = located("biomos", "B15", *on_face(hole, 40.0, 88.0 + 76.0))
    return board, hole, read_token, card


def _view(faces: Sequence[Located], busy: Sequence[tuple[float, float]]) -> TableView:
    return TableView("biomos", tuple(faces), players=None, texture=_texture(list(busy) + _tags(*faces)))


def test_an_unread_token_on_the_black_hole_is_looked_at_again_and_is_an_unknown_of_the_black_hole() -> None:
    board, hole, read_token, card = _solo()
    unread = on_face(hole, 102.0, 17.0)
    result = find_layout("biomos").read(_view((board, hole, read_token, card), [unread]))
    tokens = [a for a in result.look_again if a.face_mm == TOKEN]
    assert len(tokens) == 1
    assert math.dist(tokens[0].centre_mm, unread) < 10.0
    assert result.unknown == (UnknownPlace("blackhole"),)
    problem = next(p for p in result.problems if p.code == "layout/unread_token")
    assert "Black Hole (discovery)" in problem.message and problem.image_points
    # The token that was read is placed, and nothing is looked for over it.
    got = {p.placement.component: p.placement for p in result.placed}
    assert got["GLACIER-01"] == Placement("GLACIER-01", "blackhole", on="BLACKHOLE-20")  # type: ignore[arg-type]
    assert all(math.dist(a.centre_mm, read_token.centre_mm) > 14.0 for a in result.look_again)


def test_an_unread_token_on_an_established_card_is_looked_at_again() -> None:
    board, hole, read_token, card = _solo()
    unread = on_face(card, 46.0, 17.0)
    result = find_layout("biomos").read(_view((board, hole, read_token, card), [unread]))
    tokens = [a for a in result.look_again if a.face_mm == TOKEN]
    assert len(tokens) == 1 and math.dist(tokens[0].centre_mm, unread) < 10.0
    assert result.unknown == (UnknownPlace("blackhole"),)


@pytest.mark.parametrize(("on_card", "reported"), [(True, True), (False, False)])
def test_a_faint_token_counts_on_a_plain_biome_card_not_on_the_busier_black_hole(on_card: bool, reported: bool) -> None:
    # A token blurred to a quarter of the read markers' texture: on an established card (whose
    # face is plain) it stands out; on the Black Hole (whose art is busier) it is not told
    # from the art.
    board, hole, read_token, card = _solo()
    faint = on_face(card, 46.0, 17.0) if on_card else on_face(hole, 102.0, 17.0)
    marks = _tags(board, hole, read_token, card)

    def texture(polygon: np.ndarray) -> float:
        cx, cy = np.asarray(polygon, float)[:4].mean(axis=0)
        if any(math.hypot(cx - x, cy - y) < 9.0 for x, y in marks):
            return 100.0
        return 25.0 if math.hypot(cx - faint[0], cy - faint[1]) < 9.0 else 5.0

    view = TableView("biomos", (board, hole, read_token, card), players=None, texture=texture)
    result = find_layout("biomos").read(view)
    assert (result.unknown == (UnknownPlace("blackhole"),)) is reported  # type: ignore[arg-type]
    assert any(a.face_mm == TOKEN and math.dist(a.centre_mm, faint) < 10.0 for a in result.look_again) is reported


def test_plain_cards_ask_for_nothing_and_report_nothing() -> None:
    board, hole, read_token, card = _solo()
    result = find_layout("biomos").read(_view((board, hole, read_token, card), []))
    assert result.look_again == ()
    assert result.unknown == ()
    assert not [p for p in result.problems if p.code.startswith("layout/unread")]


def test_a_busy_place_in_front_of_a_planet_is_looked_at_for_a_card_and_shown_not_counted() -> None:
    board, hole, read_token, card = _solo()
    # An unread card's tag in front of the planet (off every read face).
    w, h = board.component.size_mm
    tag = on_face(board, 120.0, h + 40.0)
    result = find_layout("biomos").read(_view((board, hole, read_token, card), [tag]))
    cards = [a for a in result.look_again if a.face_mm == CARD]
    assert len(cards) == 1 and math.dist(cards[0].centre_mm, tag) < 20.0
    # It may be a sheet of notes as well: shown to the players, not an unknown biome.
    assert any(p.code == "layout/unread_card" and p.image_points for p in result.problems)
    assert result.unknown == ()


def test_solo_without_a_black_hole_looks_for_it_under_loose_tokens() -> None:
    board = located("biomos", "PLANET1-D", 155.0, 108.0)
    loose = located("biomos", "DESERT-02", 520.0, 90.0)  # on a Black Hole that was not read
    result = find_layout("biomos").read(_view((board, loose), []))
    holes = [a for a in result.look_again if a.face_mm == (127.0, 88.0)]
    assert len(holes) == 1 and holes[0].centre_mm == pytest.approx(loose.centre_mm)
    assert any(p.code == "layout/unplaced" and "DESERT-02" in p.components for p in result.problems)


def _bench_position() -> BoardState:
    """The solo end of game of the benchmark and the bundled sample photo: the Black Hole with
    tokens on it and on its cards."""
    return GAME.load_state(json.loads(sample_photo("biomos").with_suffix(".json").read_text("utf-8")))


def test_a_hard_view_reads_the_token_on_the_black_hole_the_decoders_missed() -> None:
    state = _bench_position()
    # A blurred view in which the decoders miss GLACIER-01 on the Black Hole (no quad shows it).
    scene = render_scene("biomos", state, condition="hard", resolution=(1920, 1080), seed=1000)
    rec = recognise(scene.jpeg, "biomos", players=state.players)
    assert rec.state.placement_of("GLACIER-01") == Placement("GLACIER-01", "blackhole", on="BLACKHOLE-20")  # type: ignore[arg-type]
    v = judge(canonical(scene.truth), state, rec.state, scene.hidden)
    assert v.wrong == [] and v.stray == []
