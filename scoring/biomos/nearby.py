"""Which planet spaces touch: the spaces before and after along the planet's reading sequence."""

from __future__ import annotations

from collections.abc import Iterable

from ..model import Cell, Placement, parse_area
from .catalog import Side
from .planet import reading_sequence


def touching(placement: Placement) -> Iterable[tuple[str, Cell]]:
    space = placement.cell
    if parse_area(placement.area).kind != "planet" or not isinstance(space, str):
        return ()
    # The recesses join the sequence only where filled, so the advanced side's reading
    # holds for both sides (a discovery planet has no recess to fill).
    seq, ring = reading_sequence(Side.ADVANCED, {"R1", "R2"})
    if space not in seq:
        return ()
    i, n = seq.index(space), len(seq)
    near = [seq[j % n] for j in (i - 1, i + 1) if ring or 0 <= j < n]
    return tuple((placement.area, s) for s in near)


TOUCHING = touching
