"""A face blurred past its markers can still show as one quad of its own size: it is reported
as an unread component when it lies square beside a read face of that size, and not when it
is only face-sized (a note, a phone) somewhere on the table.

The plane here is the identity (image pixels are table millimetres), so quads are drawn in mm.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from scoring.model import Player
from vision.detect import Candidate, MarkerKind
from vision.identify import catalog_for
from vision.layouts import TableView, find_layout
from vision.plane import Plane
from vision.config import RecogniseConfig
from vision import sites as site_module
from vision.sites import neighbour_sites
from vision.unreadable import unread_faces, unreadable_markers

from .boards import located

PLANE = Plane(np.eye(3), 0.5, (0,), ())
FACE_TOLERANCE = RecogniseConfig().unreadable_face_tolerance


def quad(cx: float, cy: float, w: float, h: float, angle_deg: float = 0.0) -> Candidate:
    a = math.radians(angle_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    corners = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]]) @ rot.T + (cx, cy)
    return Candidate(MarkerKind.TAG, corners)


def unread(game_id: str, candidates: list[Candidate], faces: tuple) -> list:  # noqa: ANN001
    catalog = catalog_for(game_id)
    return unreadable_markers(candidates, PLANE, faces, (), catalog.tag_sizes_mm, 0.3, catalog, FACE_TOLERANCE)


def test_a_tile_sized_quad_square_beside_a_read_tile_is_an_unread_component() -> None:
    faces = (located("habitats", "T001", 100, 100, 0),)
    got = unread("habitats", [quad(152, 101, 51, 49, 3)], faces)
    assert len(got) == 1
    assert got[0].reason == "a component whose markers did not decode"
    assert np.allclose(got[0].centre_mm, (152, 101), atol=0.5)


def test_face_sized_quads_that_are_not_beside_a_like_face_are_not_reported() -> None:
    faces = (located("habitats", "T001", 100, 100, 0),)
    assert unread("habitats", [quad(152, 100, 50, 50, 30)], faces) == []   # turned like a dropped note
    assert unread("habitats", [quad(400, 100, 50, 50, 0)], faces) == []    # far from every tile
    assert unread("habitats", [quad(155, 100, 62, 50, 0)], faces) == []    # not a tile's size
    assert unread("habitats", [quad(100, 100, 50, 50, 0)], faces) == []    # the read tile's own outline
    assert unread("habitats", [quad(152, 100, 50, 50, 0)], ()) == []       # no read face to compare


def test_a_marker_quad_inside_an_unread_face_is_the_same_component() -> None:
    # PHYLO: the card's outline and its tag's quad, both undecoded: one report, the card's.
    faces = (located("phylo", "HOME-A", 100, 100, 0),)
    card = quad(100 + 64, 100, 63.5, 88.9, 2)
    tag = quad(100 + 64 - 18.5, 100 - 31, 21, 21, 2)
    got = unread("phylo", [tag, card], faces)
    assert [u.reason for u in got] == ["a component whose markers did not decode"]


def test_a_seated_player_whose_entrance_is_not_in_view_is_said() -> None:
    faces = (
        located("habitats", "E-RED", 500, 300, 0),
        located("habitats", "T001", 552, 300, 0),
    )
    players = (Player("red", "Red", "red", 0), Player("yellow", "Yellow", "yellow", 1))  # type: ignore[arg-type]
    result = find_layout("habitats").read(TableView("habitats", faces, players=players))
    missing = [p for p in result.problems if p.code == "layout/player_not_in_view"]
    assert len(missing) == 1 and "yellow" in missing[0].message.lower()
    assert missing[0].areas == ("park:yellow",)
    assert {p.placement.component for p in result.placed} == {"E-RED", "T001"}


def test_a_player_named_by_id_with_another_colour_code_is_seen_by_their_entrance() -> None:
    # The companion seats players with their id as the park's colour and a display colour.
    faces = (located("habitats", "E-RED", 500, 300, 0),)
    players = (Player("red", "Rosa", "#d62828", 0),)  # type: ignore[arg-type]
    result = find_layout("habitats").read(TableView("habitats", faces, players=players))
    assert "layout/player_not_in_view" not in [p.code for p in result.problems]


def test_a_quad_beyond_the_horizon_is_no_face() -> None:
    # A corner the plane maps to infinity (a quad on the wall behind the table): no shape, no
    # report, and no warning (the suite turns warnings into errors).
    faces = (located("habitats", "T001", 100, 100, 0),)
    pts = np.array([[[127.0, 75.0], [np.inf, 75.0], [np.inf, 125.0], [127.0, 125.0]],
                    [[127.0, 76.0], [177.0, 76.0], [177.0, 126.0], [127.0, 126.0]]])
    with np.errstate(invalid="ignore"):
        sides = np.linalg.norm(pts - np.roll(pts, -1, axis=1), axis=2)
        d1 = np.linalg.norm(pts[:, 0] - pts[:, 2], axis=1)
        d2 = np.linalg.norm(pts[:, 1] - pts[:, 3], axis=1)
    assert unread_faces(pts, sides, d1, d2, faces, FACE_TOLERANCE).tolist() == [False, True]


def face_sites(game_id: str, candidates: list[Candidate], faces: tuple) -> list:  # noqa: ANN001
    return site_module.face_sites(candidates, PLANE, faces, catalog_for(game_id), RecogniseConfig())


def test_a_lone_tile_sized_rectangle_is_searched_for_a_tiles_tag() -> None:
    # A whole park out of focus: no read face beside it to report it by, but its tiles' quads
    # are searched where a tile's tag lies (its centre, at most that far off, turned like it).
    sites = face_sites("habitats", [quad(300, 200, 53, 49, 7)], ())
    tag_mm = catalog_for("habitats").by_tag[catalog_for("habitats").components["T001"].tag].size_mm
    assert sites and all(np.allclose(s.centre_mm, (300, 200), atol=0.5) for s in sites)
    assert tag_mm in {s.tag_mm for s in sites}
    assert all(0 < s.reach_mm < 50 and abs(s.turn_hint_deg - 7) < 1 for s in sites)


@pytest.mark.parametrize("angle", [10.0, 100.0, 190.0, -80.0])
def test_an_oblong_faces_tag_is_searched_only_where_its_outline_puts_it(angle: float) -> None:
    # A Black Hole blurred into one quad: its tag lies near a corner, far from its centre. The
    # two places its outline allows (one per way round) are searched, a few millimetres each,
    # not a disc round the centre as wide as that offset; one of them is where the tag lies.
    from vision.sites import FACE_TAG_SLACK_MM

    hole = located("biomos", "BLACKHOLE-20", 300, 200, angle)
    mark = catalog_for("biomos").by_tag[hole.component.tag]
    tag_at = hole.face_point(mark.x_mm + mark.size_mm / 2, mark.y_mm + mark.size_mm / 2)
    sites = face_sites("biomos", [quad(300, 200, 127, 88, angle)], ())
    assert len(sites) == 2 and all(s.tag_mm == mark.size_mm and s.reach_mm == FACE_TAG_SLACK_MM for s in sites)
    assert np.allclose(sites[0].centre_mm, 2 * np.array([300.0, 200.0]) - sites[1].centre_mm)
    assert min(math.dist(s.centre_mm, tag_at) for s in sites) < 0.5


def test_only_face_sized_rectangles_off_read_faces_are_searched() -> None:
    faces = (located("habitats", "T001", 100, 100, 0),)
    assert face_sites("habitats", [quad(100, 100, 50, 50, 0)], faces) == []   # the read tile's outline
    assert face_sites("habitats", [quad(300, 100, 70, 50, 0)], faces) == []   # no face of that size
    assert face_sites("habitats", [quad(300, 100, 20, 20, 0)], faces) == []   # a tag's quad, searched elsewhere
    skew = Candidate(MarkerKind.TAG, np.array([[275.0, 75.0], [325.0, 75.0], [345.0, 125.0], [295.0, 125.0]]))
    assert face_sites("habitats", [skew], faces) == []                        # a parallelogram, not a face


def test_neighbour_places_are_shared_out_among_the_unplaced_components() -> None:
    # Ten unplaced market tiles side by side, then one lone tile far away: with room for only a
    # few places, the lone tile's first place is among them.
    market = tuple(located("habitats", f"T{i:03d}", 100 + 52 * (i % 5), 100 + 52 * (i // 5), 0) for i in range(1, 11))
    lone = located("habitats", "T081", 600, 400, 0)
    loose = market + (lone,)
    sites = neighbour_sites(loose, loose, catalog_for("habitats"), limit=12)
    near_lone = [s for s in sites if math.hypot(s.centre_mm[0] - 600, s.centre_mm[1] - 400) < 60]
    assert near_lone


def test_neighbours_of_a_face_laid_edge_to_edge_are_searched_in_its_turn() -> None:
    # A tile turned 97 degrees: in a park its neighbours lie square to it, so each place is
    # searched about 7 degrees (97 mod 90); elsewhere (tokens strewn about) in every turn.
    tile = located("habitats", "T001", 300, 200, 97)
    square = neighbour_sites((tile,), (tile,), catalog_for("habitats"), square=True)
    anyhow = neighbour_sites((tile,), (tile,), catalog_for("habitats"))
    assert len(square) == len(anyhow) >= 4
    assert all(s.turn_hint_deg is not None and abs(s.turn_hint_deg - 7.0) < 0.5 for s in square)
    assert all(s.turn_hint_deg is None for s in anyhow)


def test_a_place_beside_an_unplaced_face_that_looks_like_bare_table_is_not_searched() -> None:
    # A tile at (300, 200), 0 degrees: its four neighbour places lie left, right, above and
    # below. Its own print measures 100; beside it, bare table (5), a blurred face (40) and a
    # place the photo cannot show (0, searched all the same).
    from vision.texture import TextureProbe

    tile = located("habitats", "T001", 300, 200, 0)
    w = tile.component.size_mm[0]

    def level(polygons: np.ndarray) -> list[float]:
        out = []
        for poly in np.asarray(polygons):
            x, y = poly.mean(axis=0)
            out.append(100.0 if math.hypot(x - 300, y - 200) < 5 else 0.0 if y < 190 else 40.0 if x > 310 else 5.0)
        return out

    sites = neighbour_sites((tile,), (tile,), catalog_for("habitats"), texture=TextureProbe(level))
    places = {(round(s.centre_mm[0]), round(s.centre_mm[1])) for s in sites}
    assert places == {(round(300 + w), 200), (300, round(200 - w))}
    assert len({(round(s.centre_mm[0]), round(s.centre_mm[1])) for s in neighbour_sites((tile,), (tile,), catalog_for("habitats"))}) == 4


def test_neighbours_lie_square_in_the_grid_games_and_the_food_chains_only() -> None:
    # Parks and the card grid lie edge to edge, BIOME Borneo's earned cards fan parallel into
    # chains; Biomos and Rainforest tokens lie at any turn beside one another.
    from vision.layouts import find_layout

    assert all(find_layout(g).square_neighbours for g in ("habitats", "phylo", "borneo"))
    assert not any(find_layout(g).square_neighbours for g in ("biomos", "rainforest"))


def test_a_quad_over_a_tiles_unread_qr_code_is_searched_for_a_token_tag() -> None:
    # A protected-area token lies over a Rainforest tile's QR code: the tile was located by its
    # tag alone, so the quad there is no print of the tile and is searched for 22 mm tags; with
    # the QR code read, the same quad is that code.
    from dataclasses import replace

    from vision.sites import soft_sites, tag_pools_of

    catalog = catalog_for("rainforest")
    tile = located("rainforest", "TILE-G06", 200, 200)
    over_qr = [quad(200 - 37.5 + 60, 200 - 37.5 + 15, 24, 24, 5)]  # the QR code spans x 48-72, y 3-27

    def sizes(face) -> set[float]:  # noqa: ANN001
        return {s.tag_mm for s in soft_sites(over_qr, PLANE, [face], catalog, tag_pools_of(catalog), RecogniseConfig())}

    assert 22.0 in sizes(tile)
    assert 22.0 not in sizes(replace(tile, source="qr+tag"))
