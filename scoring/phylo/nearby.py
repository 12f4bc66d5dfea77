"""Which cards touch on the table: edge to edge, PHYLO's own adjacency."""

from __future__ import annotations

from collections.abc import Iterable

from ..model import Cell, Placement
from .table import neighbours


def touching(placement: Placement) -> Iterable[tuple[str, Cell]]:
    if not isinstance(placement.cell, tuple):
        return ()
    return tuple((placement.area, c) for c in neighbours(placement.cell))


TOUCHING = touching
