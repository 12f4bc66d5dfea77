"""Which jungle spaces touch: orthogonal neighbours on a player's 3 x 3 jungle."""

from __future__ import annotations

from collections.abc import Iterable

from ..model import Cell, Placement
from .jungle import AreaKind, neighbours, parse_area, position_number


def touching(placement: Placement) -> Iterable[tuple[str, Cell]]:
    area = parse_area(placement.area)
    cell = placement.cell
    if area is None or area.kind is not AreaKind.JUNGLE or not isinstance(cell, str) or not cell[1:].isdigit():
        return ()
    return tuple((placement.area, f"J{n}") for n in neighbours(position_number(cell)))


TOUCHING = touching
