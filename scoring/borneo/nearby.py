"""Which platform slots touch: neighbours on a platform and the listed contacts between them."""

from __future__ import annotations

from collections.abc import Iterable

from ..model import Cell, Placement, parse_area


def touching(placement: Placement) -> Iterable[tuple[str, Cell]]:
    from . import GAME  # the geometry is built once, from the catalog

    area = parse_area(placement.area)
    if area.kind != "platform" or not area.owner or not isinstance(placement.cell, str):
        return ()
    facings = GAME.geometry.facings((area.owner, placement.cell))
    return tuple((f"platform:{f.other[0]}", f.other[1]) for f in facings)


TOUCHING = touching
