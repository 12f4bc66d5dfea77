"""The geometry of a player's table: jungle positions, clearing, reserve and zones, and what lies where."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field

from .. import model
from ..model import BoardState, Placement
from .catalog import Catalog, Colour, JungleTile

#: Jungle positions in placement order; J1 is the bottom-left space, rows fill left to right, bottom row first.
JUNGLE_CELLS = tuple(f"J{i}" for i in range(1, 10))
CLEARING_CELLS = ("C1", "C2", "C3")
RESERVE_CELLS = ("R1", "R2")
CLEARING_LIMIT = 3
RESERVE_LIMIT = 2
PILE_CELL = "PILE"


class AreaKind(enum.Enum):
    """The places of a Rainforest table a state may name."""

    JUNGLE = "jungle"
    CLEARING = "clearing"
    RESERVE = "reserve"
    PLAYER = "player"
    ZONE = "zone"
    SUPPLY = "supply"
    TABLE = "table"


@dataclass(frozen=True, slots=True)
class Area:
    """A parsed area name: its kind and its owner (a player id, or a zone number as text)."""

    kind: AreaKind
    owner: str | None = None

    @property
    def is_player_area(self) -> bool:
        return self.kind in (AreaKind.JUNGLE, AreaKind.CLEARING, AreaKind.RESERVE, AreaKind.PLAYER)


def parse_area(area: str) -> Area | None:
    """``jungle:red`` -> Area(JUNGLE, "red"); None for a name outside this game's geometry."""
    parsed = model.parse_area(area)
    try:
        kind = AreaKind(parsed.kind)
    except ValueError:
        return None
    owned = kind not in (AreaKind.SUPPLY, AreaKind.TABLE)
    if (not parsed.owner) if owned else (parsed.owner is not None):
        return None
    return Area(kind, parsed.owner)


def position_number(cell: str) -> int:
    """``"J4"`` -> 4, the placement-order number of a jungle cell."""
    return int(cell[1:])


def grid_xy(position: int) -> tuple[int, int]:
    """Column and row (row 0 at the top) of a jungle position; J1 is bottom left."""
    return ((position - 1) % 3, 2 - (position - 1) // 3)


def neighbours(position: int) -> tuple[int, ...]:
    """Orthogonally adjacent jungle positions."""
    x, y = grid_xy(position)
    out = []
    for other in range(1, 10):
        ox, oy = grid_xy(other)
        if abs(ox - x) + abs(oy - y) == 1:
            out.append(other)
    return tuple(out)


def colour_group(jungle: Mapping[int, JungleTile], start: int, colour: Colour) -> frozenset[int]:
    """The orthogonally connected positions showing ``colour`` that include ``start`` (bicolour tiles count)."""
    if start not in jungle or not jungle[start].shows(colour):
        return frozenset()
    seen = {start}
    todo = [start]
    while todo:
        here = todo.pop()
        for n in neighbours(here):
            if n not in seen and n in jungle and jungle[n].shows(colour):
                seen.add(n)
                todo.append(n)
    return frozenset(seen)


def largest_group(jungle: Mapping[int, JungleTile], colour: Colour) -> int:
    """Size of the largest connected group of ``colour`` in a jungle."""
    return max((len(colour_group(jungle, p, colour)) for p in jungle), default=0)


def fifth_colour_position(jungle: Mapping[int, JungleTile]) -> int | None:
    """The position whose tile brought the jungle's fifth colour, following the placement order."""
    seen: set[Colour] = set()
    for position in sorted(jungle):
        seen.update(jungle[position].colours)
        if len(seen) == len(Colour):
            return position
    return None


@dataclass(frozen=True, slots=True)
class PlayerTable:
    """What one player has: jungle tiles by position, clearing tiles, reserve, tokens on tiles."""

    player: str
    board: str | None
    jungle: Mapping[int, str]
    """Position (1..9) -> tile id."""
    clearing: tuple[str, ...]
    reserve: tuple[str, ...]
    clearing_cells: Mapping[str, str | None] = field(default_factory=dict)
    """Clearing tile id -> its space (C1..C3), None when it lies in the clearing without one."""
    tokens_on: Mapping[str, Mapping[int, str]] = field(default_factory=dict)
    """Tile id -> slot number -> species token id."""
    protected_on: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Tile id -> protected-area tokens lying on it."""
    diversity_on: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Tile id -> diversity tokens lying on it."""

    def tiles(self) -> tuple[str, ...]:
        return tuple(self.jungle[p] for p in sorted(self.jungle)) + self.clearing

    def position_of(self, tile: str) -> int | None:
        for p, t in self.jungle.items():
            if t == tile:
                return p
        return None

    def where(self, tile: str) -> str:
        """A reader's name for a tile's place: ``J4 TILE-G01`` or ``clearing TILE-G01``."""
        p = self.position_of(tile)
        return f"J{p} {tile}" if p is not None else f"clearing {tile}"


def player_table(state: BoardState, catalog: Catalog, player: str) -> PlayerTable:
    """Collect one player's components from a state (assumed to have passed check_state)."""
    jungle: dict[int, str] = {}
    clearing: list[str] = []
    clearing_cells: dict[str, str | None] = {}
    reserve: list[str] = []
    board: str | None = None
    mine = {
        f"{k.value}:{player}" for k in (AreaKind.JUNGLE, AreaKind.CLEARING, AreaKind.RESERVE, AreaKind.PLAYER)
    }
    on: list[Placement] = []
    for p in state.placements:
        if p.area not in mine:
            continue
        kind = parse_area(p.area)
        if p.on is not None:
            on.append(p)
        elif p.component in catalog.tiles and kind is not None and kind.kind is AreaKind.JUNGLE:
            if isinstance(p.cell, str):
                jungle[position_number(p.cell)] = p.component
        elif p.component in catalog.tiles:
            clearing.append(p.component)
            clearing_cells[p.component] = p.cell if isinstance(p.cell, str) else None
        elif p.component in catalog.tokens:
            reserve.append(p.component)
        elif p.component in catalog.boards:
            board = p.component
    tokens_on: dict[str, dict[int, str]] = {}
    protected_on: dict[str, list[str]] = {}
    diversity_on: dict[str, list[str]] = {}
    for p in on:
        target = p.on
        if target is None:
            continue
        if p.component in catalog.tokens and p.slot is not None:
            tokens_on.setdefault(target, {})[p.slot] = p.component
        elif p.component in catalog.protected_areas:
            protected_on.setdefault(target, []).append(p.component)
        elif p.component in catalog.diversity_tokens:
            diversity_on.setdefault(target, []).append(p.component)
    return PlayerTable(
        player=player,
        board=board,
        jungle=jungle,
        clearing=tuple(clearing),
        reserve=tuple(reserve),
        clearing_cells=clearing_cells,
        tokens_on={k: dict(v) for k, v in tokens_on.items()},
        protected_on={k: tuple(v) for k, v in protected_on.items()},
        diversity_on={k: tuple(v) for k, v in diversity_on.items()},
    )


def jungle_tiles(table: PlayerTable, catalog: Catalog) -> dict[int, JungleTile]:
    return {p: catalog.tiles[t] for p, t in table.jungle.items()}
