"""Which park cells touch: edge to edge, as the park's rules read them (the market has none)."""

from __future__ import annotations

from collections.abc import Iterable

from ..model import Cell, Placement, parse_area
from .park import neighbours


def touching(placement: Placement) -> Iterable[tuple[str, Cell]]:
    if parse_area(placement.area).kind != "park" or not isinstance(placement.cell, tuple):
        return ()
    return tuple((placement.area, c) for c in neighbours(placement.cell))


TOUCHING = touching
