"""What lies next to a placed piece, so a move can be told where it happened.

Players say "Yellow placed Kudu next to the Owl", not a cell. Which cells touch is each
game's geometry, declared by the game in ``scoring/<game>/nearby.py`` as ``TOUCHING``: the
places (area, cell) that touch a placement's place. This module only looks up what lies
there, so the app never needs to know a board's shape.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from functools import cache

from .model import BoardState, Cell, ComponentId, Placement
from .registry import GAME_IDS

#: A game's geometry: the places that touch a placement's place (none where it has no cell).
Touching = Callable[[Placement], Iterable[tuple[str, Cell]]]


@cache
def _touching(game_id: str) -> Touching | None:
    if game_id not in GAME_IDS:
        return None
    try:
        module = importlib.import_module(f"scoring.{game_id}.nearby")
    except ModuleNotFoundError:
        return None
    return getattr(module, "TOUCHING", None)


def beside(state: BoardState, placement: Placement) -> tuple[ComponentId, ...]:
    """The pieces lying on the places that touch ``placement``'s, in the game's order.

    Only pieces lying on a place of their own count (a token on a tile is part of the tile);
    empty for a piece without a cell, a stacked piece, or a game without a geometry.
    """
    touching = _touching(state.game)
    if touching is None or placement.cell is None or placement.on is not None:
        return ()
    at = {(p.area, p.cell): p.component for p in state.placements if p.on is None and p.cell is not None}
    out: list[ComponentId] = []
    for place in touching(placement):
        found = at.get(place)
        if found is not None and found != placement.component and found not in out:
            out.append(found)
    return tuple(out)
