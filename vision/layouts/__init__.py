"""Stage 5: per-game layouts turning components positioned on the table into a BoardState.

Stages 1-4 know no game rules: they hand every layout the same ``TableView`` (each
component's pose in table millimetres, boards with their anchors and spaces, markers
that could not be read). A game plugs in with one ``GameLayout`` — ``read`` for the
scanner and ``arrange`` (the inverse, where each placed component lies on the table)
for the scene renderer — in the module ``vision/layouts/<game id>``.

``base`` holds the view and result types, ``grid`` the helpers of grid layouts, ``outline``
the check that a face lies where a grid expects one; all are named here.
"""

from __future__ import annotations

from ..problems import Problem
from .base import (
    Draft,
    GameLayout,
    LayoutResult,
    Located,
    LookAgain,
    Placed,
    TablePose,
    TableView,
    Unreadable,
    find_layout,
    layout_games,
    wrap_degrees,
)
from .grid import (
    cell_centre,
    cell_fit,
    cell_polygon,
    cell_polygons,
    connected_groups,
    grid_cell,
    rotate,
    space_at,
    space_pose,
)
from .outline import (
    OUTLINE_PIECES,
    OUTLINE_SHIFT_MM,
    OUTLINE_SPARE_PIECES,
    OUTLINE_TILTS_DEG,
    CoveredCells,
    OutlineProbe,
    covered_cells,
    face_outlined,
    outline_probe,
    outlined_cells,
    probe_all,
)

__all__ = [
    "OUTLINE_PIECES",
    "OUTLINE_SHIFT_MM",
    "OUTLINE_SPARE_PIECES",
    "OUTLINE_TILTS_DEG",
    "CoveredCells",
    "Draft",
    "GameLayout",
    "LayoutResult",
    "Located",
    "LookAgain",
    "OutlineProbe",
    "Placed",
    "Problem",
    "TablePose",
    "TableView",
    "Unreadable",
    "cell_centre",
    "cell_fit",
    "cell_polygon",
    "cell_polygons",
    "connected_groups",
    "covered_cells",
    "face_outlined",
    "find_layout",
    "grid_cell",
    "layout_games",
    "outline_probe",
    "outlined_cells",
    "probe_all",
    "rotate",
    "space_at",
    "space_pose",
    "wrap_degrees",
]
