"""Habitats market seen only in part: completed from the cells that look printed, or reported."""

from __future__ import annotations

import numpy as np
import pytest

from scoring.model import Player
from vision.layouts import TableView, cell_polygon, connected_groups, find_layout

from .boards import located as at

PLAYERS = (Player("red", "Red", "red", 0), Player("yellow", "Yellow", "yellow", 1))  # type: ignore[arg-type]
#: The 2-player market (3 x 3): component per cell, the figures on their start cells.
MARKET = {
    (0, 0): "T001", (1, 0): "F-RED", (2, 0): "T002",
    (0, 1): "T003", (1, 1): "T011", (2, 1): "T015",
    (0, 2): "T017", (1, 2): "F-YELLOW", (2, 2): "T022",
}
ORIGIN = np.array([-200.0, -300.0])
PITCH = 52.0
BUSY, BARE = 100.0, 10.0


def _centre(cell: tuple[int, int]) -> np.ndarray:
    return ORIGIN + np.array(cell, float) * PITCH


def _texture(printed: set[tuple[int, int]], unseen: frozenset[tuple[int, int]] = frozenset()):  # noqa: ANN202
    """A photo where the given market cells look printed, ``unseen`` ones lie outside it and the rest is bare table."""

    def texture(polygon: np.ndarray) -> float:
        centre = np.asarray(polygon, float).mean(axis=0)
        cell = tuple(int(v) for v in np.round((centre - ORIGIN) / PITCH))
        if np.linalg.norm(centre - _centre(cell)) > 20:  # type: ignore[arg-type]
            return BARE
        return 0.0 if cell in unseen else BUSY if cell in printed else BARE

    return texture


def _read(unread: set[tuple[int, int]], printed: set[tuple[int, int]], unseen: frozenset[tuple[int, int]] = frozenset()):  # noqa: ANN202
    """Read a table with the red entrance (seat 0, upright) and the market minus its unread cells."""
    located = [at("habitats", "E-RED", 0.0, 300.0)]
    located += [at("habitats", cid, *_centre(cell)) for cell, cid in MARKET.items() if cell not in unread]
    view = TableView("habitats", tuple(located), players=PLAYERS, texture=_texture(printed, unseen))
    result = find_layout("habitats").read(view)
    market = {p.placement.component: p.placement.cell for p in result.placed if p.placement.area == "market"}
    unknown = {u.cell for u in result.unknown if u.area == "market"}
    return market, unknown, {p.code for p in result.problems}


@pytest.mark.parametrize(
    "unread",
    [
        {(0, 0), (1, 0), (2, 0)},                  # the near row blurred
        {(0, 0), (1, 0), (2, 0), (2, 1), (2, 2)},  # a row and a column: 2 x 2 read
        {(2, 0), (2, 1), (2, 2)},                  # a column
    ],
)
def test_a_partly_read_market_is_completed_by_the_cells_that_look_printed(unread: set[tuple[int, int]]) -> None:
    market, unknown, codes = _read(unread, printed=set(MARKET))
    assert market == {cid: cell for cell, cid in MARKET.items() if cell not in unread}
    assert unknown == unread
    assert "layout/market_partial" not in codes


def test_a_market_printed_on_both_sides_could_be_shifted_and_is_reported() -> None:
    # The row beyond the read cells looks printed too: the missing row could lie on either side.
    row = {(0, 0), (1, 0), (2, 0)}
    market, unknown, codes = _read(row, printed=set(MARKET) | {(0, 3), (1, 3), (2, 3)})
    assert market == {} and unknown == set()
    assert "layout/market_partial" in codes


def test_bare_table_around_a_partial_market_makes_no_unknown_cells() -> None:
    # Nothing lies where the missing row would be (on either side): no cell is reported as a component.
    row = {(0, 0), (1, 0), (2, 0)}
    market, unknown, codes = _read(row, printed=set(MARKET) - row)
    assert market == {} and unknown == set()
    assert "layout/market_partial" in codes


def test_a_market_row_outside_the_photo_is_not_guessed() -> None:
    row = frozenset({(0, 0), (1, 0), (2, 0)})
    market, unknown, codes = _read(set(row), printed=set(MARKET), unseen=row)
    assert market == {} and unknown == set()
    assert "layout/market_partial" in codes


def test_a_market_larger_than_the_player_count_is_not_completed() -> None:
    # Printed cells go on beyond the completed 3 x 3 grid: it is not the 2-player market.
    row = {(0, 0), (1, 0), (2, 0)}
    market, unknown, codes = _read(row, printed=set(MARKET) | {(0, -1), (1, -1), (2, -1)})
    assert market == {} and unknown == set()
    assert "layout/market_partial" in codes


def test_clutter_beside_the_market_does_not_stop_its_completion() -> None:
    # A note lies left of the market over two cells: the missing row still fits one way only.
    row = {(0, 0), (1, 0), (2, 0)}
    market, unknown, _ = _read(row, printed=set(MARKET) | {(-1, 0), (-1, 1)})
    assert market == {cid: cell for cell, cid in MARKET.items() if cell not in row}
    assert unknown == row


def test_a_fully_read_market_needs_no_texture() -> None:
    located = [at("habitats", "E-RED", 0.0, 300.0)] + [at("habitats", cid, *_centre(cell)) for cell, cid in MARKET.items()]
    result = find_layout("habitats").read(TableView("habitats", tuple(located), players=PLAYERS))
    assert {p.placement.component: p.placement.cell for p in result.placed if p.placement.area == "market"} == {
        cid: cell for cell, cid in MARKET.items()
    }


def test_cell_polygon_is_centred_on_the_cell_and_turns_with_the_grid() -> None:
    poly = cell_polygon((np.array([10.0, 20.0]), 90.0, 50.0), (1, 0), (15.0, 5.0))
    np.testing.assert_allclose(poly.mean(axis=0), [10.0, 70.0], atol=1e-9)  # +x of the grid points down the table
    np.testing.assert_allclose(poly[0], [15.0, 55.0], atol=1e-9)  # face top-left (-15, -5) turned a quarter


def test_connected_groups_chain_neighbours() -> None:
    items = [at("habitats", "T001", 0, 0), at("habitats", "T002", 52, 0), at("habitats", "T003", 300, 0), at("habitats", "T011", 104, 0)]
    assert connected_groups(items, 76.0) == [[0, 1, 3], [2]]
    assert connected_groups([], 76.0) == []
