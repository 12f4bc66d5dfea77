"""Move legality between two states: the park placement rules and the market draft."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..model import BoardState, Cell, ComponentId, Placement, Violation, parse_area
from .catalog import HabitatsCatalog, Side, TileKind
from ..words import Words
from .park import GridCell, Park, ParkEntry, neighbours, shift

MARKET = "market"
PARK = "park"
PARK_PREFIX = PARK + ":"


def park_owner(area: str) -> str | None:
    """Whose park an area is (``park:red`` -> ``red``); None for any other area."""
    parsed = parse_area(area)
    return parsed.owner if parsed.kind == PARK else None


class Rule(enum.Enum):
    """Every rule a turn can break; the values are the stable violation codes."""

    TILE_COUNT = "turn/tile_count"
    TILE_MOVED = "park/tile_moved"
    NOT_ADJACENT = "park/not_adjacent"
    ENTRANCE_COLUMN = "park/entrance_column"
    ROAD_BLOCKED = "park/road_blocked"
    ROAD_LINE = "park/road_line"
    NOT_FROM_MARKET = "market/not_from_market"
    NOT_IN_LINE = "market/not_in_line"
    NOT_FIRST = "market/not_first_tile"
    BACKSIDE = "market/backside"
    FIGURE_NOT_MOVED = "market/figure_not_moved"
    FIGURE_FACING = "market/figure_facing"
    GAP_NOT_FILLED = "market/gap_not_filled"
    OTHER_CHANGE = "market/other_change"
    WRONG_PARK = "market/wrong_park"


def make_violation(
    rule: Rule, message: str, cells: Iterable[Cell] = (), area: str | None = None, components: Iterable[str] = ()
) -> Violation:
    return Violation(rule.value, message, tuple(cells), area, tuple(ComponentId(c) for c in components))


@dataclass(frozen=True, slots=True)
class NewTile:
    """A park tile that lies in a park after the move and did not before."""

    placement: Placement
    before: Placement | None


def _grid(cell: Cell | None) -> GridCell | None:
    return cell if isinstance(cell, tuple) else None


# -- park placement ------------------------------------------------------------------


def placement_violations(
    park: Park, entry: ParkEntry, area: str, words: Words, *, roads_infinite: bool
) -> list[Violation]:
    """Rules L1-L4 for ``entry`` newly placed in ``park`` (which already holds it)."""
    out: list[Violation] = []
    c = entry.cell
    others = {cell: e for cell, e in park.entries.items() if cell != c}
    name = words.name(entry.component)

    def taken(cell: GridCell) -> bool:
        return cell in others or cell in park.unknown

    if not any(taken(n) for n in neighbours(c)):
        out.append(
            make_violation(Rule.NOT_ADJACENT, f"{name} touches no tile of {words.area(area)}: a new tile must touch one side to side",
                       [c], area, [entry.component])
        )
    if park.entrance is not None and c[0] == park.entrance[0] and c[1] > park.entrance[1]:
        out.append(
            make_violation(Rule.ENTRANCE_COLUMN,
                       f"{name} lies in the column below the entrance: no park tile may lie on the entrance road",
                       [c, park.entrance], area, [entry.component])
        )
    blocked: list[GridCell] = []
    lined: list[GridCell] = []
    x0, y0, x1, y1 = park.bounds()
    for side in entry.roads:
        step = side.step
        if taken(shift(c, step)):
            blocked.append(shift(c, step))
        if roads_infinite:
            k = 2
            while x0 - 1 <= c[0] + step[0] * k <= x1 + 1 and y0 - 1 <= c[1] + step[1] * k <= y1 + 1:
                if taken(shift(c, step, k)):
                    lined.append(shift(c, step, k))
                k += 1
    for other in others.values():
        if other.is_entrance:
            continue  # the entrance road is the entrance-column rule
        for side in other.roads:
            if shift(other.cell, side.step) == c:
                blocked.append(other.cell)
            elif roads_infinite and _on_ray(other.cell, side, c):
                lined.append(other.cell)
    if blocked:
        out.append(
            make_violation(Rule.ROAD_BLOCKED,
                       f"{name} touches {words.listing(_component(park, b) for b in blocked)} by a road side: a road side may"
                       " never touch a tile",
                       [c, *blocked], area, [entry.component, *(_component(park, b) for b in blocked)])
        )
    if lined:
        out.append(
            make_violation(Rule.ROAD_LINE,
                       f"{name} and {words.listing(_component(park, b) for b in lined)} lie on one road's line:"
                       " access roads run on forever, and no tile may lie on a road's line",
                       [c, *lined], area, [entry.component, *(_component(park, b) for b in lined)])
        )
    return out


def _on_ray(origin: GridCell, side: Side, cell: GridCell) -> bool:
    """True when ``cell`` lies 2 or more steps from ``origin`` in the direction of ``side``."""
    dx, dy = side.step
    ox, oy = cell[0] - origin[0], cell[1] - origin[1]
    if dx:
        return oy == 0 and ox * dx >= 2
    return ox == 0 and oy * dy >= 2


def _component(park: Park, cell: GridCell) -> str:
    e = park.at(cell)
    return e.component if e is not None else "?"


# -- the turn as a whole -------------------------------------------------------------


def _by_component(state: BoardState) -> dict[str, Placement]:
    return {p.component: p for p in state.placements}


def _in_park(p: Placement | None) -> bool:
    return p is not None and park_owner(p.area) is not None


def park_changes(
    before: BoardState, after: BoardState, catalog: HabitatsCatalog, words: Words
) -> tuple[list[NewTile], list[Violation]]:
    """New park tiles, and tiles that moved, turned their roads or left a park."""
    b, a = _by_component(before), _by_component(after)
    unknown_cells = {(u.area, u.cell) for u in after.unknown}
    moved: list[Violation] = []
    new: list[NewTile] = []
    for comp, pb in b.items():
        if not _in_park(pb):
            continue
        pa = a.get(comp)
        if pa is None and (pb.area, pb.cell) in unknown_cells:
            continue  # hidden from the scanner, not gone
        tile = catalog.tile(comp)
        turned = (
            pa is not None
            and pa.rotation % 4 != pb.rotation % 4
            and (tile is None or tile.kind is TileKind.ROAD)
        )
        if pa is None or pa.area != pb.area or pa.cell != pb.cell or turned:
            where = f"left {words.area(pb.area)}" if pa is None else (
                "turned its roads" if turned and pa.cell == pb.cell and pa.area == pb.area
                else f"moved within {words.area(pa.area)}" if pa.area == pb.area
                else f"moved from {words.area(pb.area)} to {words.area(pa.area)}"
            )
            cells = [c for c in (pb.cell,) if c is not None]
            moved.append(
                make_violation(Rule.TILE_MOVED,
                           f"{words.name(comp)} {where}: placed tiles never move",
                           cells, pb.area, [comp])
            )
    for comp, pa in a.items():
        if _in_park(pa) and not _in_park(b.get(comp)):
            new.append(NewTile(pa, b.get(comp)))
    return new, moved


def market_violations(
    before: BoardState, after: BoardState, new: NewTile, catalog: HabitatsCatalog, words: Words
) -> list[Violation]:
    """The draft: take the first tile ahead/left/right, move there facing away, refill the gap."""
    mb = {p.component: p for p in before.in_area(MARKET)}
    ma = {p.component: p for p in after.in_area(MARKET)}
    if not mb or not ma:
        return []  # the market was not on both photos: nothing to compare
    taken = new.placement.component
    origin_of_tile = new.before
    target = _grid(origin_of_tile.cell) if origin_of_tile is not None else None
    if origin_of_tile is None or origin_of_tile.area != MARKET or target is None:
        return [
            make_violation(Rule.NOT_FROM_MARKET, f"{words.name(taken)} was not in the market: every tile is taken from the market",
                       [], MARKET, [taken])
        ]
    out: list[Violation] = []
    figure_after = next(
        (p for p in ma.values() if catalog.colour_of_figure(p.component) and p.cell == target), None
    )
    expected = {taken}
    gap_tile: str | None = None
    if figure_after is None or figure_after.component not in mb:
        out.append(
            make_violation(Rule.FIGURE_NOT_MOVED,
                       f"no figure moved to the space where {words.name(taken)} was taken",
                       [target], MARKET, [taken])
        )
    else:
        figure = figure_after.component
        expected.add(figure)
        fb = mb[figure]
        origin = _grid(fb.cell)
        if origin is not None:
            out.extend(_draft_direction(mb, catalog, (figure, fb, figure_after), origin, target, taken, words))
            gap = next((p for p in ma.values() if p.cell == origin), None)
            if gap is None or catalog.tile(gap.component) is None or gap.component in _by_component(before):
                what = "is empty" if gap is None else f"holds {words.name(gap.component)}, not a new tile from the stock"
                out.append(
                    make_violation(Rule.GAP_NOT_FILLED,
                               f"the space {words.name(figure)} left {what}",
                               [origin], MARKET, [] if gap is None else [gap.component])
                )
            else:
                gap_tile = gap.component
        colour = catalog.colour_of_figure(figure)
        owner = _owner(after, colour.colour if colour else "")
        if owner is not None and new.placement.area != PARK_PREFIX + owner:
            out.append(
                make_violation(Rule.WRONG_PARK,
                           f"{words.name(figure)} drafted {words.name(taken)}, but it went to"
                           f" {words.area(new.placement.area)}, not {words.area(PARK_PREFIX + owner)}",
                           [], new.placement.area, [figure, taken])
            )
    others: list[str] = []
    for comp, pb in mb.items():
        if comp in expected:
            continue
        pa = ma.get(comp)
        if pa is None or pa.cell != pb.cell or (catalog.colour_of_figure(comp) and pa.rotation != pb.rotation):
            others.append(comp)
    for comp in ma:
        if comp not in mb and comp != gap_tile and comp not in expected:
            others.append(comp)
    if others:
        out.append(
            make_violation(Rule.OTHER_CHANGE,
                       f"the market changed beyond one draft: {words.listing(sorted(others))}",
                       [], MARKET, sorted(others))
        )
    return out


def _owner(state: BoardState, colour: str) -> str | None:
    """The player of a figure's colour (by the player's colour, else by its id)."""
    for p in state.players:
        if colour and (p.colour.lower() == colour or (not p.colour and p.id.lower() == colour)):
            return p.id
    return None


_SIDE_OF_STEP: Mapping[GridCell, Side] = {s.step: s for s in Side}


def _first_tile(market: Mapping[GridCell, str], catalog: HabitatsCatalog, start: GridCell, side: Side) -> GridCell | None:
    """The first tile from ``start`` in direction ``side``; figures and gaps do not block."""
    if not market:
        return None
    xs = [c[0] for c in market]
    ys = [c[1] for c in market]
    cell = shift(start, side.step)
    while min(xs) <= cell[0] <= max(xs) and min(ys) <= cell[1] <= max(ys):
        comp = market.get(cell)
        if comp is not None and catalog.tile(comp) is not None:
            return cell
        cell = shift(cell, side.step)
    return None


def _draft_direction(
    mb: Mapping[str, Placement],
    catalog: HabitatsCatalog,
    moved: tuple[str, Placement, Placement],
    origin: GridCell,
    target: GridCell,
    taken: str,
    words: Words,
) -> list[Violation]:
    """The figure's move: in a straight line, not backwards, to the first tile, facing the way it went
    (``moved`` is the figure, where it stood and where it stands)."""
    figure, fb, figure_after = moved
    out: list[Violation] = []
    grid = {c: p.component for p in mb.values() if (c := _grid(p.cell)) is not None}
    dx, dy = target[0] - origin[0], target[1] - origin[1]
    if dx and dy:
        out.append(
            make_violation(Rule.NOT_IN_LINE,
                       f"{words.name(taken)} is not in a straight line from {words.name(figure)}",
                       [origin, target], MARKET, [figure, taken])
        )
        return out
    side = _SIDE_OF_STEP[((dx > 0) - (dx < 0), (dy > 0) - (dy < 0))]
    head = Side(fb.rotation % 4)
    if side is head.turned(2):
        allowed = [h for h in (head, head.turned(1), head.turned(3)) if _first_tile(grid, catalog, origin, h)]
        if allowed:
            out.append(
                make_violation(Rule.BACKSIDE,
                           f"{words.name(figure)} took {words.name(taken)} at its back while a tile lay ahead, left or right",
                           [origin, target], MARKET, [figure, taken])
            )
    first = _first_tile(grid, catalog, origin, side)
    if first != target and first is not None:
        out.append(
            make_violation(Rule.NOT_FIRST,
                       f"{words.name(taken)} is not the first tile in that direction from {words.name(figure)};"
                       f" {words.name(grid[first])} is",
                       [origin, target, first], MARKET, [figure, taken, grid[first]])
        )
    if figure_after.rotation % 4 != side.value:
        out.append(
            make_violation(Rule.FIGURE_FACING,
                       f"{words.name(figure)} must face the way it moved, its back towards the space it came from",
                       [target], MARKET, [figure])
        )
    return out
