"""Habitats places for a park tile in hand, and the market drafts ranked by their best spot.

A park spot is judged by the park rules alone (the hand state holds no market: the tile
is already drafted); a market choice is the whole draft, judged with the market on the table.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ..hints import COMPASS, Change, HintError, HintFinder, MarketChoice, Place, apply_place, grid_nearby, moved, where_field, without
from ..model import BoardState, ComponentId, Placement
from ..words import Words, join_and
from .catalog import Side, TileKind
from .legality import MARKET, PARK_PREFIX, _owner
from .park import GridCell, neighbours
from .game import GAME


def _park_tile(component: str) -> None:
    tile = GAME.catalog.tile(component)
    if tile is None:
        raise HintError(f"{component} is not a park tile: only park tiles are placed in a park")


def _rotations(component: str) -> tuple[int, ...]:
    """Rotations with different road sides; orientation matters only for road tiles."""
    tile = GAME.catalog.tile(component)
    if tile is None or tile.kind is not TileKind.ROAD:
        return (0,)
    seen: dict[frozenset[Side], int] = {}
    for r in range(4):
        seen.setdefault(tile.roads_at(r), r)
    return tuple(seen.values())


def _label(state: BoardState, area: str, component: str, cell: GridCell, rotation: int) -> str:
    """``Ana's park, east of Owl (roads north and east)``: the park, the tiles beside, the roads' sides."""
    words = Words.of(GAME.id, state)
    near = grid_nearby(state, area, cell, words)
    if not near:
        near = "touching no tile" if state.in_area(area) else "its first tile"
    text = f"{words.area(area)}, {near}"
    tile = GAME.catalog.tile(component)
    if tile is not None and tile.kind is TileKind.ROAD:
        text += f" (roads {join_and(_side_word(s) for s in Side if s in tile.roads_at(rotation))})"
    return text


def _side_word(side: Side) -> str:
    return COMPASS[side.step]


def park_place(state: BoardState, player: str, component: str, cell: GridCell, rotation: int) -> Place:
    area = PARK_PREFIX + player
    to = Placement(ComponentId(component), area, cell, rotation)
    label = _label(state, area, component, cell, rotation)
    return Place(f"{area} ({cell[0]},{cell[1]}) r{rotation}", label, (Change(to.component, to),))


class HabitatsHints:
    """Candidate park cells: every empty cell beside the park, in each distinct road orientation."""

    def holdable(self, state: BoardState, player: str) -> tuple[str, ...]:
        """The market's tiles; without a market on the table, every tile of the stock."""
        market = [p.component for p in state.in_area(MARKET) if GAME.catalog.tile(p.component) is not None]
        if market:
            return tuple(market)
        on_table = {p.component for p in state.placements}
        return tuple(t.id for t in GAME.catalog.tiles if t.id not in on_table)

    def in_hand(self, state: BoardState, component: str, player: str) -> BoardState:
        _park_tile(component)
        where = state.placement_of(component)
        if where is not None and where.area.startswith(PARK_PREFIX):
            raise HintError(f"{component} already lies in {where.area}: placed tiles never move")
        return without(state, [component, *(p.component for p in state.in_area(MARKET))])

    def places(self, before: BoardState, component: str, player: str) -> Iterator[Place]:
        for cell in frontier_cells(before, player):
            for r in _rotations(component):
                yield park_place(before, player, component, cell, r)

    def place_for(self, before: BoardState, component: str, player: str, where: Mapping[str, Any]) -> Place:
        cell = where_field(where, "cell", list)
        if len(cell) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in cell):
            raise HintError("place: 'cell' must be [x, y] integers")
        rotation = where_field(where, "rotation", int, required=False) or 0
        if not 0 <= rotation <= 3:
            raise HintError("place: 'rotation' must be 0 to 3")
        return park_place(before, player, component, (cell[0], cell[1]), rotation)

    def market(self, state: BoardState, player: str, hints: HintFinder) -> Iterator[MarketChoice]:
        """Each tile the player's figure could draft, with the best spot it then has."""
        figure = self._figure(state, player)
        if figure is None or not isinstance(figure.cell, tuple):
            return
        fx, fy = figure.cell
        refill = self._stock_tile(state)
        for p in state.in_area(MARKET):
            if GAME.catalog.tile(p.component) is None or not isinstance(p.cell, tuple):
                continue
            dx, dy = p.cell[0] - fx, p.cell[1] - fy
            if (dx == 0) == (dy == 0):
                continue  # not in a straight line (or the figure's own cell)
            side = next(s for s in Side if s.step == ((dx > 0) - (dx < 0), (dy > 0) - (dy < 0)))
            take = [Change(figure.component, moved(figure, cell=p.cell, rotation=side.value))]
            if refill is not None:
                take.append(Change(ComponentId(refill), Placement(ComponentId(refill), MARKET, figure.cell)))
            choice = self._choice(state, player, p.component, tuple(take), side, hints)
            if choice is not None:
                yield choice

    def _choice(
        self, state: BoardState, player: str, component: str, take: tuple[Change, ...], side: Side, hints: HintFinder
    ) -> MarketChoice | None:
        found = hints(state, component, player)
        # The draft alone (the tile then lies in the first park spot) must pass the market rules.
        if found.best is None:
            probe = next(iter(self.places(found.before, component, player)), None)
            if probe is None:
                return None
            whole = Place("draft", "draft", (probe.changes[0], *take))
            if any(v.code.startswith("market/") for v in GAME.violations(state, apply_place(state, whole))):
                return None
            return MarketChoice(ComponentId(component), None, f"{_side_word(side)} of the figure; no legal spot in the park", take)
        whole = Place("draft", "draft", (found.best.place.changes[0], *take))
        if GAME.violations(state, apply_place(state, whole)):
            return None
        gains = ", ".join(f"{g.rule} {g.points:+d}" for g in found.best.gains) or "no points"
        return MarketChoice(
            ComponentId(component),
            found.best,
            f"{_side_word(side)} of the figure; best at {found.best.place.label}: {found.best.total:+d} ({gains})",
            take,
        )

    @staticmethod
    def _figure(state: BoardState, player: str) -> Placement | None:
        for p in state.in_area(MARKET):
            colour = GAME.catalog.colour_of_figure(p.component)
            if colour is not None and _owner(state, colour.colour) == player:
                return p
        return None

    @staticmethod
    def _stock_tile(state: BoardState) -> str | None:
        """A tile from the face-down stock: the first park tile not on the table."""
        on_table = {p.component for p in state.placements}
        return next((t.id for t in GAME.catalog.tiles if t.id not in on_table), None)


def frontier_cells(state: BoardState, player: str) -> list[GridCell]:
    """Empty cells beside a tile (or an unread cell) of the player's park."""
    park = GAME.park_of(state, player)
    taken = set(park.entries) | set(park.unknown)
    return sorted({n for c in taken for n in neighbours(c) if n not in taken})


HINTS = HabitatsHints()
