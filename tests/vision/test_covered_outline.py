"""Covered cells need a face's outline: clutter beside the grid is as busy as a face, but its
edges lie elsewhere and at another angle."""

from __future__ import annotations

import importlib
import json
import math
from dataclasses import replace

import cv2
import numpy as np
import pytest

from scoring import find_game
from scoring.payload import encode
from vision import recognise, sample_photo
from vision.layouts import Located, TableView, covered_cells, face_outlined, outline_probe, outlined_cells
from vision.plane import Plane
from vision.texture import texture_probe
from tests.rendering.render import render_scene

#: The recogniser's module (``vision.recognise`` names the function), and the stages it runs.
recognise_module = importlib.import_module("vision.recognise")
passes_module = importlib.import_module("vision.passes")
looks_module = importlib.import_module("vision.looks")

#: Image pixels -> table mm: 2 px per mm, the table's origin at pixel (100, 100).
PLANE = Plane(np.array([[0.5, 0.0, -50.0], [0.0, 0.5, -50.0], [0.0, 0.0, 1.0]]), 0.0, (), ())
PITCH = 52.0
FRAME = (np.array([100.0, 100.0]), 0.0, PITCH)
READ = ((0, 0), (1, 0), (0, 1))


def _centre(cell: tuple[int, int]) -> tuple[float, float]:
    return 100.0 + cell[0] * PITCH, 100.0 + cell[1] * PITCH


def _tile(cell: tuple[int, int]) -> Located:
    """A tile read upright in a cell."""
    comp = find_game("habitats").component_index["T001"]  # type: ignore[attr-defined]
    w, h = comp.size_mm
    x, y = _centre(cell)
    m = np.eye(3)
    m[:2, 2] = [x - w / 2, y - h / 2]
    return Located(comp, encode("habitats", "T001"), m, np.zeros((4, 2)), "tag")


def _px(x_mm: float, y_mm: float) -> tuple[float, float]:
    return 2 * x_mm + 100, 2 * y_mm + 100


def _face(photo: np.ndarray, cell: tuple[int, int]) -> None:
    """A printed 50 mm tile, square to the grid: green with a tag and lines of text."""
    x, y = _centre(cell)
    (x0, y0), (x1, y1) = _px(x - 25, y - 25), _px(x + 25, y + 25)
    cv2.rectangle(photo, (int(x0), int(y0)), (int(x1), int(y1)), (60, 150, 70), -1)
    cv2.rectangle(photo, (int(x0) + 8, int(y0) + 8), (int(x0) + 48, int(y0) + 48), (0, 0, 0), -1)
    cv2.rectangle(photo, (int(x0) + 18, int(y0) + 18), (int(x0) + 30, int(y0) + 30), (255, 255, 255), -1)
    for k in range(5):
        cv2.line(photo, (int(x0) + 56, int(y0) + 14 + 12 * k), (int(x1) - 8, int(y0) + 14 + 12 * k), (20, 20, 20), 2)


def _sheet(photo: np.ndarray, centre: tuple[float, float], angle_deg: float) -> None:
    """A white sheet of notes (70 x 95 mm) with black lines and squares, turned on the table."""
    sheet = np.full((190, 140, 3), 245, np.uint8)
    for k in range(10):
        cv2.line(sheet, (12, 14 + 17 * k), (120 - 7 * (k % 3), 14 + 17 * k), (50, 50, 50), 3)
    cv2.rectangle(sheet, (20, 60), (44, 84), (0, 0, 0), -1)
    cv2.rectangle(sheet, (90, 130), (114, 154), (0, 0, 0), -1)
    a = math.radians(angle_deg)
    cx, cy = _px(*centre)
    m = np.array([[math.cos(a), -math.sin(a), cx], [math.sin(a), math.cos(a), cy]]) @ np.array(
        [[1, 0, -70], [0, 1, -95], [0, 0, 1]], float)
    warped = cv2.warpAffine(sheet, m, (photo.shape[1], photo.shape[0]))
    mask = cv2.warpAffine(np.full((190, 140), 255, np.uint8), m, (photo.shape[1], photo.shape[0]))
    photo[mask > 127] = warped[mask > 127]


def _view(unread_face: bool, sheet: bool, with_outline: bool = True) -> TableView:
    """Three read tiles around cell (1, 1) on a brown table; in (1, 1) an unread face or a turned sheet."""
    rng = np.random.default_rng(0)
    photo = np.clip(np.array([40, 75, 120], float) + rng.normal(0, 2.0, (600, 700, 3)), 0, 255).astype(np.uint8)
    if sheet:
        _sheet(photo, (_centre((1, 1))[0] + 8, _centre((1, 1))[1] + 10), 28.0)
    for cell in READ + (((1, 1),) if unread_face else ()):
        _face(photo, cell)
    located = tuple(_tile(c) for c in READ)
    gray = cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY)
    return TableView(
        "habitats", located, texture=texture_probe(gray, PLANE, located=located),
        outline=outline_probe(photo, PLANE.homography) if with_outline else None,
    )


def _occupied(view: TableView) -> dict[tuple[int, int], Located]:
    return dict(zip(READ, view.located))


def test_a_grid_aligned_unread_face_is_reported() -> None:
    view = _view(unread_face=True, sheet=False)
    cells = covered_cells(view, FRAME, _occupied(view), (50.0, 50.0))
    assert cells.busy == ((1, 1),)
    assert face_outlined(view, FRAME, _occupied(view), (1, 1), (50.0, 50.0))


def test_a_turned_sheet_beside_the_grid_is_not_a_face() -> None:
    # Busy enough to pass for a face on texture alone...
    blind = _view(unread_face=False, sheet=True, with_outline=False)
    assert (1, 1) in covered_cells(blind, FRAME, _occupied(blind), (50.0, 50.0)).busy
    # ...but its edges are not where a tile's would be: only looked at again, never reported.
    view = _view(unread_face=False, sheet=True)
    cells = covered_cells(view, FRAME, _occupied(view), (50.0, 50.0))
    assert (1, 1) not in cells.busy
    assert (1, 1) in cells.faint
    assert not face_outlined(view, FRAME, _occupied(view), (1, 1), (50.0, 50.0))


@pytest.mark.parametrize("unread_face, sheet", [(True, False), (False, True), (False, False), (True, True)])
def test_cells_measured_together_get_each_cell_s_own_answer(unread_face: bool, sheet: bool) -> None:
    # Every busy cell's outlines are measured in one batch: the answer for each cell is the one
    # it gets alone, on a fresh probe (no side measured before).
    cells = [(1, 1), (2, 0), (0, 2), (2, 1), (1, 2), (-1, 0)]
    together = _view(unread_face=unread_face, sheet=sheet)
    alone = {c for c in cells if face_outlined(_view(unread_face=unread_face, sheet=sheet), FRAME, _occupied(together), c, (50.0, 50.0))}
    assert outlined_cells(together, FRAME, _occupied(together), cells, (50.0, 50.0)) == alone
    if unread_face != sheet:  # a face alone shows its outline, a sheet alone does not
        assert ((1, 1) in alone) == unread_face


@pytest.mark.parametrize("unread_face, sheet", [(True, False), (False, True), (False, False), (True, True)])
def test_measuring_one_side_first_gives_the_answer_of_measuring_every_side(unread_face: bool, sheet: bool) -> None:
    # Cells whose first free side shows no edge are not measured further; the cells held are
    # those a probe measuring every side of every face holds (the plain callable is measured
    # whole), and bare table or a sheet costs one side per cell.
    cells = [(1, 1), (2, 0), (0, 2), (2, 1), (1, 2), (-1, 0)]
    view = _view(unread_face=unread_face, sheet=sheet)
    whole = view.outline
    every = replace(view, outline=lambda corners: whole(corners))
    staged = _view(unread_face=unread_face, sheet=sheet)
    held = outlined_cells(staged, FRAME, _occupied(staged), cells, (50.0, 50.0))
    assert held == outlined_cells(every, FRAME, _occupied(view), cells, (50.0, 50.0))
    measured = len(staged.outline.memo)
    free = sum(1 for c in cells for n in ((c[0], c[1] - 1), (c[0] + 1, c[1]), (c[0], c[1] + 1), (c[0] - 1, c[1])) if n not in READ)
    if not held:
        assert measured < free


def test_bare_table_beside_the_grid_has_no_outline() -> None:
    view = _view(unread_face=False, sheet=False)
    assert not face_outlined(view, FRAME, _occupied(view), (1, 1), (50.0, 50.0))
    assert covered_cells(view, FRAME, _occupied(view), (50.0, 50.0)).busy == ()


def test_the_outline_probe_sees_a_face_edges_square_to_the_grid_only() -> None:
    view = _view(unread_face=True, sheet=False)
    assert view.outline is not None
    x, y = _centre((1, 1))
    face = np.array([[x - 25, y - 25], [x + 25, y - 25], [x + 25, y + 25], [x - 25, y + 25]])
    steps = view.outline(face)
    assert min(steps[1], steps[2]) > 40  # right and bottom step from green to the brown table
    a = math.radians(30.0)
    r = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    turned = (face - [x, y]) @ r.T + [x, y]
    assert sum(v > 12 for v in view.outline(turned)) <= 1
    off_photo = face + [-400.0, 0.0]
    assert all(math.isnan(v) for v in view.outline(off_photo))


@pytest.mark.parametrize(("game", "seed"), [("phylo", 1000), ("phylo", 1003), ("habitats", 1004)])
def test_typical_scenes_with_clutter_beside_the_grid_report_no_unknown_cell(game: str, seed: int) -> None:
    # PHYLO 1000 and 1003: a sheet of notes lies beside the grid; Habitats 1004: an undecoded
    # quad spans the table between the two parks. Every component is read.
    path = sample_photo(game).with_suffix(".json")
    state = find_game(game).load_state(json.loads(path.read_text("utf-8")))
    scene = render_scene(game, state, condition="typical", resolution=(1920, 1080), seed=seed)
    rec = recognise(scene.jpeg, game, players=state.players)
    assert rec.state.unknown == ()


def _blurred_band(photo: np.ndarray, cells: tuple[tuple[int, int], ...]) -> None:
    """Unread faces in a straight run of cells, blurred into one band (no table between
    them), each face's print blurred clear of its edges."""
    (x0, y0) = _px(*(np.array(_centre(cells[0])) - 25))
    (x1, y1) = _px(*(np.array(_centre(cells[-1])) + 25))
    cv2.rectangle(photo, (int(x0), int(y0)), (int(x1), int(y1)), (60, 150, 70), -1)
    for cell in cells:
        cx, cy = _px(*_centre(cell))
        cv2.rectangle(photo, (int(cx) - 26, int(cy) - 26), (int(cx) + 26, int(cy) + 26), (0, 0, 0), -1)
        cv2.rectangle(photo, (int(cx) - 10, int(cy) - 10), (int(cx) + 10, int(cy) + 10), (255, 255, 255), -1)


def _grid_view(photo: np.ndarray, read: tuple[tuple[int, int], ...]) -> tuple[TableView, dict[tuple[int, int], Located]]:
    """The view of a photo whose faces in ``read`` were read, with its texture and outline probes."""
    located = tuple(_tile(c) for c in read)
    gray = cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY)
    view = TableView("habitats", located, texture=texture_probe(gray, PLANE, located=located),
                     outline=outline_probe(photo, PLANE.homography))
    return view, dict(zip(read, located))


def _column_view(sheet: bool) -> tuple[TableView, dict[tuple[int, int], Located]]:
    """Read tiles in column 0; column 1 holds three faces blurred into one band (no table
    between them), or a turned sheet of notes across two of its cells."""
    read = ((0, 0), (0, 1), (0, 2))
    rng = np.random.default_rng(1)
    photo = np.clip(np.array([40, 75, 120], float) + rng.normal(0, 2.0, (600, 700, 3)), 0, 255).astype(np.uint8)
    for cell in read:
        _face(photo, cell)
    if sheet:
        _sheet(photo, (_centre((1, 1))[0] + 15, _centre((1, 1))[1] - 30), 30.0)
    else:
        _blurred_band(photo, ((1, 0), (1, 1), (1, 2)))
    return _grid_view(photo, read)


def test_a_run_of_faces_blurred_together_beside_read_ones_is_reported() -> None:
    # No edge shows between the three unread faces: each leans on its neighbours there, and
    # shows a face's edge on every side against the table.
    view, occupied = _column_view(sheet=False)
    cells = covered_cells(view, FRAME, occupied, (50.0, 50.0))
    assert set(cells.busy) == {(1, 0), (1, 1), (1, 2)}
    assert not face_outlined(view, FRAME, occupied, (1, 1), (50.0, 50.0))  # alone it has no outline


def test_a_sheet_across_two_cells_does_not_vouch_for_itself() -> None:
    view, occupied = _column_view(sheet=True)
    assert covered_cells(view, FRAME, occupied, (50.0, 50.0)).busy == ()


def test_a_full_market_with_one_unread_tile_measures_the_table_outside_it() -> None:
    # A 3 x 3 market read but for one cell: every other cell beside it lies outside the grid
    # (skipped), yet still tells the bare table's texture, so a tile blurred to a third of the
    # read ones' texture is reported, not taken for table.
    market = {(i, j): None for i in range(3) for j in range(3) if (i, j) != (2, 0)}

    def texture(polygon: np.ndarray) -> float:
        cell = tuple(int(round((v - 100.0) / PITCH)) for v in polygon.mean(axis=0))
        return 150.0 if cell in market else 60.0 if cell == (2, 0) else 12.0

    view = TableView("habitats", (), texture=texture)

    def outside(cell: tuple[int, int]) -> bool:
        return not (0 <= cell[0] < 3 and 0 <= cell[1] < 3)

    cells = covered_cells(view, FRAME, market, (50.0, 50.0), skip=outside)  # type: ignore[arg-type]
    assert cells.busy == ((2, 0),)


def _row_view(unread: str) -> tuple[TableView, dict[tuple[int, int], Located]]:
    """Read tiles at (0, 0) and (0, 1); beside (0, 0) only, in (1, 0): one unread face
    ("one"), two unread faces blurred into one band along the row, (1, 0) and (2, 0)
    ("two"), or a turned sheet of notes ("sheet")."""
    read = ((0, 0), (0, 1))
    rng = np.random.default_rng(2)
    photo = np.clip(np.array([40, 75, 120], float) + rng.normal(0, 2.0, (600, 700, 3)), 0, 255).astype(np.uint8)
    for cell in read:
        _face(photo, cell)
    if unread == "one":
        _face(photo, (1, 0))
    elif unread == "two":
        _blurred_band(photo, ((1, 0), (2, 0)))
    else:
        _sheet(photo, (_centre((1, 0))[0] + 10, _centre((1, 0))[1] + 5), 28.0)
    return _grid_view(photo, read)


def test_a_lone_unread_face_beside_one_read_face_is_reported_by_its_outline() -> None:
    # Beside a single read face, but a face's edge shows on all three sides against the table.
    view, occupied = _row_view("one")
    cells = covered_cells(view, FRAME, occupied, (50.0, 50.0))
    assert cells.busy == ((1, 0),)


def test_a_sheet_beside_one_read_face_is_only_looked_at() -> None:
    view, occupied = _row_view("sheet")
    cells = covered_cells(view, FRAME, occupied, (50.0, 50.0))
    assert cells.busy == ()
    assert (1, 0) in cells.faint


def test_the_far_end_of_a_run_of_unread_faces_is_reported_with_the_run() -> None:
    # (2, 0) touches no read face, only the unread (1, 0): it joins the run through it, and the
    # two lean on each other where blur hid the gap between them.
    view, occupied = _row_view("two")
    cells = covered_cells(view, FRAME, occupied, (50.0, 50.0))
    assert set(cells.busy) == {(1, 0), (2, 0)}


@pytest.mark.parametrize("make", [
    lambda: _column_view(sheet=False), lambda: _column_view(sheet=True),
    lambda: _row_view("one"), lambda: _row_view("two"), lambda: _row_view("sheet"),
])
def test_the_outline_decides_only_how_a_looked_at_cell_is_reported(make) -> None:  # noqa: ANN001
    # The scanner measures outlines only on its last reading (GameLayout.outlines): without
    # the probe, the same cells must be looked at again, busy or faint.
    view, occupied = make()
    with_outline = covered_cells(view, FRAME, occupied, (50.0, 50.0))
    without = covered_cells(replace(view, outline=None), FRAME, occupied, (50.0, 50.0))
    assert set(with_outline.busy) | set(with_outline.faint) == set(without.busy) | set(without.faint)


def _hard_scene_watched(game: str, seed: int, monkeypatch: pytest.MonkeyPatch):  # noqa: ANN202
    """A hard scene of the game's sample position, its layout, and the list every view the
    scanner hands that layout from now on is appended to."""
    path = sample_photo(game).with_suffix(".json")
    state = find_game(game).load_state(json.loads(path.read_text("utf-8")))
    scene = render_scene(game, state, condition="hard", resolution=(1920, 1080), seed=seed)
    layout = recognise_module.find_layout(game)
    views: list[TableView] = []
    monkeypatch.setattr(recognise_module, "find_layout", lambda game_id: replace(layout, read=lambda v: views.append(v) or layout.read(v)))
    return state, scene, layout, views


@pytest.mark.parametrize(("game", "seed"), [("habitats", 1005), ("habitats", 1009), ("phylo", 1005), ("phylo", 1003)])
def test_measuring_outlines_only_on_the_last_reading_reads_the_same(game: str, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # Hard scenes whose second looks read blurred tags, with unread tiles or cards, several
    # later looks and places looked at in vain: the recognition equals the one that measures
    # outlines on every reading.
    state, scene, layout, views = _hard_scene_watched(game, seed, monkeypatch)
    deferred = recognise(scene.jpeg, game, players=state.players)
    assert any(v.outline is None for v in views)  # outlines were put off in this frame
    assert layout.outlines
    monkeypatch.setattr(recognise_module, "find_layout", lambda game_id: replace(layout, outlines=False))
    every = recognise(scene.jpeg, game, players=state.players)
    assert deferred.state == every.state
    assert deferred.state.unknown == every.state.unknown
    assert [u.centre_mm for u in deferred.unreadable] == [u.centre_mm for u in every.unreadable]
    assert [p.code for p in deferred.problems] == [p.code for p in every.problems]


def test_the_run_with_outlines_after_a_last_look_that_read_nothing_keeps_its_unreadable_markers(monkeypatch: pytest.MonkeyPatch) -> None:
    # The unreadable markers depend on the quads, the plane, the located faces and the
    # markers: when none changed since the run before, they are not worked out again.
    game = "habitats"
    state, scene, _, views = _hard_scene_watched(game, 1009, monkeypatch)
    real = passes_module.unreadable_markers
    calls: list[int] = []
    monkeypatch.setattr(passes_module, "unreadable_markers", lambda *a, **k: calls.append(1) or real(*a, **k))
    rec = recognise(scene.jpeg, game, players=state.players)
    assert views[-1].outline is not None and views[-2].outline is None  # outlines on the last reading only
    assert len(calls) == len(views) - 1
    assert views[-1].unreadable == views[-2].unreadable
    assert rec.unreadable == views[-1].unreadable


def test_a_loose_figure_gets_no_search_beside_it_and_the_reading_stays(monkeypatch: pytest.MonkeyPatch) -> None:
    # A hard frame whose market is not placed: its tiles and figures are loose. Beside a tile
    # its unread neighbours are searched; a figure stands in a 50 mm market cell, so a place
    # one figure (30 mm) away holds nothing of its own: it is not searched.
    game = "habitats"
    state, scene, layout, _ = _hard_scene_watched(game, 1005, monkeypatch)
    real = looks_module.neighbour_sites
    beside: list[str] = []

    def watched(loose, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        beside.extend(loc.component.kind for loc in loose)
        return real(loose, *args, **kwargs)

    monkeypatch.setattr(looks_module, "neighbour_sites", watched)
    kept = recognise(scene.jpeg, game, players=state.players)
    assert "tile" in beside and "figure" not in beside
    beside.clear()
    monkeypatch.setattr(recognise_module, "find_layout", lambda game_id: replace(layout, neighbour_kinds=None))
    every = recognise(scene.jpeg, game, players=state.players)
    assert "figure" in beside
    assert kept.state == every.state and kept.state.unknown == every.state.unknown
    assert [p.code for p in kept.problems] == [p.code for p in every.problems]


def test_the_reading_with_outlines_reports_each_problem_once() -> None:
    # A shaken frame whose market shows one figure: the layout reports the partial market on
    # its reading without outlines and again on the last one, with outlines; only the last
    # reading's problems are reported (they once came twice).
    from tests.rendering.conditions import render_condition

    path = sample_photo("habitats").with_suffix(".json")
    state = find_game("habitats").load_state(json.loads(path.read_text("utf-8")))
    scene = render_condition("habitats", state, condition="shake", resolution=(1920, 1080), seed=1004).scene
    rec = recognise(scene.jpeg, "habitats", players=state.players)
    said = [(p.code, p.message, p.components) for p in rec.problems]
    assert said and len(said) == len(set(said))
