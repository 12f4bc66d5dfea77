"""The board layouts' shared geometry and texture verdicts: the fast paths answer exactly as the
plain definitions do (no image needed: a synthetic texture stands in for the photo)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vision.layouts import Located, TableView
from vision.layouts.anchored import face_xy, holder, is_on, quick_face_xy, table_points, table_squares
from vision.layouts.spaces import Spot, busy_spots, plain_spots, remembering, verdicts

from .boards import located


def _exactly_on(loc: Located, xy: tuple[float, float], margin: float = 0.0) -> bool:
    f = loc.to_face(np.array([xy]))[0]
    w, h = loc.component.size_mm
    return bool(margin <= f[0] <= w - margin and margin <= f[1] <= h - margin)


def test_squares_on_many_faces_at_once_are_each_face_s_own_squares_to_the_bit() -> None:
    faces = [located("rainforest", "BOARD-MONKEY", 412.0, -37.5, 7.5), located("rainforest", "BOARD-MONKEY", -80.0, 220.0, -133.0)]
    rng = np.random.default_rng(3)
    places = [(faces[i % 2], float(x), float(y), float(h))
              for i, (x, y, h) in enumerate(zip(rng.uniform(0, 200, 40), rng.uniform(0, 150, 40), rng.choice([5.0, 7.5, 11.0], 40)))]
    one_by_one = [table_points(loc, ((x - h, y - h), (x + h, y - h), (x + h, y + h), (x - h, y + h))) for loc, x, y, h in places]
    assert np.array_equal(table_squares(places), np.array(one_by_one))
    assert table_squares([]).shape == (0, 4, 2)


@pytest.mark.parametrize("angle", [0.0, 7.5, 90.0, -133.0, 180.0])
def test_quick_face_geometry_agrees_with_the_exact_transform(angle: float) -> None:
    board = located("rainforest", "BOARD-MONKEY", 412.0, -37.5, angle)
    rng = np.random.default_rng(5)
    for x, y in rng.uniform(-300, 900, (300, 2)).tolist():
        assert np.allclose(quick_face_xy(board, (x, y)), face_xy(board, (x, y)), atol=1e-9)
        assert is_on(board, (x, y)) == _exactly_on(board, (x, y))
        assert is_on(board, (x, y), 20.0) == _exactly_on(board, (x, y), 20.0)
    face = rng.uniform(0, 200, (20, 2))
    assert np.allclose(table_points(board, face.tolist()), [board.face_point(x, y) for x, y in face], atol=1e-9)


def test_is_on_counts_a_point_on_the_edge() -> None:
    board = located("rainforest", "BOARD-MONKEY", 130.0, 210.0)  # face origin at the table origin
    w, h = board.component.size_mm
    assert is_on(board, (0.0, 100.0)) and is_on(board, (w, h))
    assert not is_on(board, (-1e-9, 100.0)) and not is_on(board, (w, h + 1e-9))
    assert is_on(board, (5.0, 5.0), 5.0) and not is_on(board, (4.999999, 5.0), 5.0)


def test_holder_is_the_smallest_face_under_a_point() -> None:
    board = located("rainforest", "BOARD-MONKEY", 300.0, 300.0, 12.0)
    tile = located("rainforest", "TILE-R09", 300.0, 300.0, 40.0)
    assert holder([board, tile], (300.0, 300.0)) is tile
    assert holder([board, tile], (board.face_point(10.0, 10.0)[0], board.face_point(10.0, 10.0)[1])) is board
    assert holder([board, tile], (-500.0, 0.0)) is None


def test_remembering_probes_each_polygon_once() -> None:
    calls: list[float] = []

    def texture(poly: np.ndarray) -> float:
        calls.append(float(poly[0, 0]))
        return float(poly[0, 0]) % 7.0

    board = located("rainforest", "BOARD-MONKEY", 300.0, 300.0, 12.0)
    view = remembering(TableView("rainforest", (board,), texture=texture))
    squares = table_squares([(board, x, 50.0, 5.0) for x in (20.0, 40.0, 20.0, 40.0, 60.0)])
    first = [view.texture(sq) for sq in squares]  # type: ignore[misc]
    assert first == [texture(sq) for sq in squares]
    assert len(calls) == 3 + 5


def _scene(seed: int) -> tuple[TableView, list[Spot], list[Located]]:
    """A board with tiles on it (a token on one slot) and a synthetic photo: each place's texture
    drawn at random, some as busy as a marker, with a random share of probes seeing nothing (0)."""
    rng = np.random.default_rng(seed)
    board = located("rainforest", "BOARD-MONKEY", 300.0, 300.0, float(rng.uniform(-180, 180)))
    tiles = [
        located("rainforest", cid, *(float(v) for v in board.face_point(s.x_mm, s.y_mm)), float(rng.uniform(-180, 180)))
        for cid, s in zip(("TILE-R01", "TILE-R09", "TILE-R05"), board.component.spaces[:3])
    ]
    slot = tiles[1].component.spaces[0]
    token = located("rainforest", "MONKEY-R1", *(float(v) for v in tiles[1].face_point(slot.x_mm, slot.y_mm)), 30.0)
    values: dict[tuple[float, float], float] = {}

    def texture(poly: np.ndarray) -> float:
        key = tuple(np.round(np.asarray(poly).mean(axis=0), 6))
        if key not in values:
            values[key] = 0.0 if rng.random() < 0.05 else float(rng.choice([rng.uniform(1, 4), rng.uniform(8, 40)]))
        return values[key]

    spots = [Spot(t, s.x_mm, s.y_mm, (t.component.id, s.name)) for t in tiles for s in t.component.spaces]
    spots += [Spot(board, s.x_mm, s.y_mm, s.name) for s in board.component.spaces[3:] if s.name[0] == "R"]
    view = TableView("rainforest", (board, *tiles, token), texture=texture)
    return view, spots, [board, *tiles]


@pytest.mark.parametrize("seed", range(12))
def test_busy_and_plain_places_are_the_verdicts(seed: int) -> None:
    view, spots, faces = _scene(seed)
    for reference in (0.0, 5.0, 12.0, 30.0, 90.0):
        found = verdicts(view, spots, reference)
        assert busy_spots(view, spots, reference) == [s for s, v in zip(spots, found) if v is True]
        assert busy_spots(view, spots, lambda r=reference: r) == [s for s, v in zip(spots, found) if v is True]
        with_others = verdicts(view, spots, reference, faces)
        assert plain_spots(view, spots, lambda r=reference: r, faces) == [v is False for v in with_others]


def test_the_markers_are_probed_only_when_a_place_needs_them() -> None:
    board = located("rainforest", "BOARD-MONKEY", 300.0, 300.0, 3.0)
    spots = [Spot(board, s.x_mm, s.y_mm, s.name) for s in board.component.spaces if s.name[0] == "R"]
    asked: list[int] = []

    def reference() -> float:
        asked.append(1)
        return 30.0

    plain = TableView("rainforest", (board,), texture=lambda poly: 2.0)
    assert busy_spots(plain, spots, reference) == [] and not asked
    assert plain_spots(plain, spots, reference) == [True] * len(spots) and len(asked) == 1
    centre = board.face_point(spots[0].x_mm, spots[0].y_mm)
    busy = TableView("rainforest", (board,), texture=lambda poly: 20.0 if math.dist(poly.mean(axis=0), centre) < 1 else 2.0)
    asked.clear()
    assert busy_spots(busy, spots, reference) == spots[:1] and len(asked) == 1
    assert plain_spots(busy, spots[:1], reference) == [False] and len(asked) == 1


def test_a_place_as_busy_as_a_read_marker_needs_less_over_its_plain_face() -> None:
    from vision.layouts.spaces import _verdict

    marker, floor = 100.0, 30.0  # a card whose print is busy: its plain parts at 0.3 of a marker
    assert _verdict(85.0, floor, marker) is True  # a tag's worth of texture, 2.8 times the print
    assert _verdict(70.0, floor, marker) is None  # busier than a plain place, but neither enough
    assert _verdict(20.0, floor, marker) is False
    assert _verdict(95.0, floor, marker) is True  # over 3 times the print: busy either way
    # A print at 0.4 of a marker: only a place as busy as a marker itself can be told from it.
    assert _verdict(90.0, 40.0, marker) is True
    assert _verdict(60.0, 40.0, marker) is None


def test_a_round_planet_space_holds_a_point_by_its_circle_not_its_box() -> None:
    """The Biomos planet spaces are printed round: a token inside the circle is on the space, one
    in the box's corner beyond the circle is on none (so it is reported, not placed)."""
    from vision.layouts.anchored import space_hit

    board = located("biomos", "PLANET1-D", 0.0, 0.0)
    p1 = next(s for s in board.component.spaces if s.name == "P1")
    r = p1.w_mm / 2

    def at(dx: float, dy: float):  # noqa: ANN202
        return space_hit(board, table_points(board, [(p1.x_mm + dx, p1.y_mm + dy)])[0])

    inside, corner = at(0.6 * r, 0.6 * r), at(0.8 * r, 0.8 * r)
    assert inside is not None and inside.space.name == "P1"
    assert math.isclose(inside.offset, math.hypot(0.6, 0.6), rel_tol=1e-6)
    assert corner is None or corner.space.name != "P1"
