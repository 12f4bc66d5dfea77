"""Stage 5: layouts turn components positioned on the table into placements (no image needed)."""

from __future__ import annotations

import numpy as np
import pytest

from scoring.model import Player
from vision import LayoutError
from vision.layouts import TableView, covered_cells, find_layout

from .boards import located as at


def test_registry_knows_both_games_and_refuses_others() -> None:
    assert find_layout("habitats").game == "habitats"
    assert find_layout("phylo").game == "phylo"
    with pytest.raises(LayoutError, match="no table layout"):
        find_layout("chess")


def test_habitats_park_cells_and_rotations_follow_the_entrance() -> None:
    # The red park photographed turned a quarter: the entrance's upright points along +x.
    located = (
        at("habitats", "E-RED", 500, 300, 90),
        at("habitats", "T001", 500, 248, 90),      # one pitch west of the entrance in its axes, same turn
        at("habitats", "T002", 552, 300, 180),     # one pitch "north", turned once more
        at("habitats", "T003", 552, 248, 0),
    )
    players = (Player("red", "Red", "red", 0),)  # type: ignore[arg-type]
    result = find_layout("habitats").read(TableView("habitats", located, players=players))
    got = {p.placement.component: (p.placement.area, p.placement.cell, p.placement.rotation) for p in result.placed}
    assert got == {
        "E-RED": ("park:red", (0, 0), 0),
        "T001": ("park:red", (-1, 0), 0),
        "T002": ("park:red", (0, -1), 1),
        "T003": ("park:red", (-1, -1), 3),
    }
    assert result.confidence > 0.9


def test_habitats_tiles_without_their_entrance_are_not_guessed() -> None:
    located = (at("habitats", "T001", 0, 0, 0), at("habitats", "T002", 52, 0, 0))
    result = find_layout("habitats").read(TableView("habitats", located, players=(Player("red", "Red", "red", 0),)))  # type: ignore[arg-type]
    assert result.placed == ()
    # The tiles are loose, and the players are told why: red's entrance is not in view.
    assert {p.code for p in result.problems} == {"layout/loose", "layout/player_not_in_view"}


def test_phylo_owner_is_the_way_a_card_faces() -> None:
    located = (
        at("phylo", "HOME-A", 0, 0, 0),
        at("phylo", "HOME-B", 0, -95, 180),
        at("phylo", "REDCEDAR", -95, 0, 2),
        at("phylo", "GIANTKELP", 95, -95, 178),
    )
    result = find_layout("phylo").read(TableView("phylo", located))
    got = {p.placement.component: (p.placement.cell, p.placement.rotation) for p in result.placed}
    assert got == {"HOME-A": ((0, 0), 0), "HOME-B": ((0, -1), 2), "REDCEDAR": ((-1, 0), 0), "GIANTKELP": ((1, -1), 2)}
    assert [p.id for p in result.players] == ["a", "b"]


def test_phylo_without_its_reference_home_places_nothing() -> None:
    located = (at("phylo", "HOME-B", 0, 0, 180), at("phylo", "REDCEDAR", 95, 0, 0))
    result = find_layout("phylo").read(TableView("phylo", located))
    assert result.placed == ()
    assert [p.code for p in result.problems] == ["layout/no_home"]


def test_busy_empty_cells_between_read_neighbours_become_unknown() -> None:
    occupied = {(0, 0): None, (2, 0): None, (1, 1): None, (0, 1): None}
    busy = {(1, 0)}

    def texture(polygon: np.ndarray) -> float:
        cell = tuple(int(round(v / 50.0)) for v in polygon.mean(axis=0))
        return 10.0 if cell in occupied or cell in busy else 1.0

    view = TableView("habitats", (), texture=texture)
    frame = (np.zeros(2), 0.0, 50.0)
    cells = covered_cells(view, frame, occupied, (50.0, 50.0))  # type: ignore[arg-type]
    # (1, 0) is busy with three read neighbours; (-1, 0) and others are bare table.
    assert cells.busy == ((1, 0),)
    assert cells.faint == ()


def test_a_face_blurred_below_the_read_ones_is_faint_and_clutter_beside_one_face_is_not() -> None:
    # Read faces texture 100, bare table 10: the busy bar is 60, the faint bar max(2 x 10,
    # 10 + 0.15 x 90) = 23.5, and a cell beside a single face must pass 1.5 x 23.5 = 35.25
    # to count (as a neighbour of others, or as busy); above 23.5 it is still looked at.
    occupied = {(0, 0): None, (1, 0): None, (2, 0): None, (0, 1): None}
    levels = {(1, 1): 35.0, (2, 1): 30.0, (-1, 0): 40.0, (3, 0): 30.0, (0, 2): 70.0, (0, -1): 20.0, (4, 0): 90.0}

    def texture(polygon: np.ndarray) -> float:
        cell = tuple(int(round(v / 50.0)) for v in polygon.mean(axis=0))
        return 100.0 if cell in occupied else levels.get(cell, 10.0)

    view = TableView("habitats", (), texture=texture)
    cells = covered_cells(view, (np.zeros(2), 0.0, 50.0), occupied, (50.0, 50.0))  # type: ignore[arg-type]
    # (1, 1) has two read neighbours and stands clear of the table; (2, 1) then has two too
    # ((2, 0) and the found (1, 1)); (-1, 0) is beside one face but far busier than the table;
    # (0, 2), beside one face, is as busy as a face but a lone cell is never reported; (3, 0) is
    # beside one face and only a little busy: looked at, but no neighbour to (4, 0), which
    # stays unlooked however busy; (0, -1) stands too little clear of the table.
    assert cells.busy == ()
    assert set(cells.faint) == {(1, 1), (2, 1), (-1, 0), (0, 2), (3, 0)}


def test_phylo_looks_again_at_a_cell_for_species_and_home_cards_only() -> None:
    # An unread marker beside the grid: the cell is looked at again for the tags of the cards
    # that lie in cells; an event lies on a species card, never in a cell of its own.
    from dataclasses import replace

    from vision.detect import MarkerKind
    from vision.identify import catalog_for
    from vision.layouts import Unreadable
    from vision.sites import look_again_sites

    located = (at("phylo", "HOME-A", 0, 0, 0), at("phylo", "HOME-B", 0, -95, 180), at("phylo", "REDCEDAR", -95, 0, 2))
    unread = Unreadable(MarkerKind.TAG, np.zeros((4, 2)), (95.0 - 31.0, 18.0), "undecoded")
    result = find_layout("phylo").read(TableView("phylo", located, (unread,)))
    assert result.look_again and all(a.kinds == ("home", "species") for a in result.look_again)
    catalog = catalog_for("phylo")
    size_of = {kind: {catalog.by_tag[c.tag].size_mm for c in catalog.components.values() if c.kind == kind}
               for kind in ("home", "species", "event")}
    assert size_of["event"].isdisjoint(size_of["home"] | size_of["species"])
    searched = {s.tag_mm for s in look_again_sites(result.look_again, catalog)}
    assert searched == size_of["home"] | size_of["species"]
    # Without the kinds named, every face of a card's size is searched for, events too.
    anyone = [replace(a, kinds=None) for a in result.look_again]
    assert {s.tag_mm for s in look_again_sites(anyone, catalog)} >= size_of["event"]
