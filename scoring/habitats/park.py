"""A player's park as a grid: areas, sight lines, distances and the goal tiles' measures."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from .catalog import Goal, Landscape, ParkTile, Side, TileKind

GridCell = tuple[int, int]

ORTHOGONAL_STEPS: tuple[GridCell, ...] = ((0, -1), (1, 0), (0, 1), (-1, 0))
DIAGONAL_STEPS: tuple[GridCell, ...] = ((1, -1), (1, 1), (-1, 1), (-1, -1))
RING_STEPS: tuple[GridCell, ...] = ((-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1))


def shift(cell: GridCell, step: GridCell, times: int = 1) -> GridCell:
    return (cell[0] + step[0] * times, cell[1] + step[1] * times)


def neighbours(cell: GridCell) -> tuple[GridCell, ...]:
    """The 4 orthogonal neighbours, north first, clockwise."""
    return tuple(shift(cell, s) for s in ORTHOGONAL_STEPS)


def fmt(cell: GridCell) -> str:
    return f"({cell[0]},{cell[1]})"


@dataclass(frozen=True, slots=True)
class ParkEntry:
    """A tile lying in a park: a park tile, or the entrance when ``tile`` is None."""

    component: str
    cell: GridCell
    tile: ParkTile | None
    rotation: int = 0

    @property
    def is_entrance(self) -> bool:
        return self.tile is None

    @property
    def landscape(self) -> Landscape | None:
        return None if self.tile is None else self.tile.landscape

    @property
    def kind(self) -> TileKind | None:
        return None if self.tile is None else self.tile.kind

    @property
    def is_watchtower(self) -> bool:
        return self.kind is TileKind.WATCHTOWER

    @property
    def is_road(self) -> bool:
        """Extra access roads and the entrance (which has the entrance road)."""
        return self.tile is None or self.tile.kind is TileKind.ROAD

    @property
    def roads(self) -> frozenset[Side]:
        """Sides with a road, in the park's frame (the entrance road faces south)."""
        if self.tile is None:
            return frozenset({Side.S})
        return self.tile.roads_at(self.rotation)

    def label(self) -> str:
        """Name, printed id and cell, for evidence texts (``grey parrot T025 at (2,-3)``)."""
        name = "entrance" if self.tile is None else self.tile.label()
        return f"{name} {self.component} at {fmt(self.cell)}"

    def place(self) -> str:
        """Name and cell, for notes read out by name (``grey parrot at (2,-3)``)."""
        name = "entrance" if self.tile is None else self.tile.label()
        return f"{name} at {fmt(self.cell)}"


@dataclass(frozen=True, slots=True)
class Area:
    """A maximal group of side-connected tiles of one landscape."""

    landscape: Landscape
    cells: frozenset[GridCell]

    @property
    def size(self) -> int:
        return len(self.cells)


@dataclass(frozen=True, slots=True)
class Park:
    """One player's park: its tiles by cell and the cells the scanner could not read."""

    entries: Mapping[GridCell, ParkEntry]
    entrance: GridCell | None
    unknown: frozenset[GridCell] = frozenset()

    def at(self, cell: GridCell) -> ParkEntry | None:
        return self.entries.get(cell)

    def occupied(self, cell: GridCell) -> bool:
        return cell in self.entries

    def tiles(self) -> Iterator[ParkEntry]:
        """Entries in reading order: top to bottom, left to right."""
        for cell in sorted(self.entries, key=lambda c: (c[1], c[0])):
            yield self.entries[cell]

    def bounds(self) -> tuple[int, int, int, int]:
        xs = [c[0] for c in self.entries] or [0]
        ys = [c[1] for c in self.entries] or [0]
        return min(xs), min(ys), max(xs), max(ys)

    def areas(self) -> tuple[Area, ...]:
        return find_areas(self.entries)

    def ray(self, start: GridCell, step: GridCell, *, cross_gaps: bool) -> Iterator[ParkEntry]:
        """Tiles seen from ``start`` along ``step`` up to the first watchtower (not included)."""
        x0, y0, x1, y1 = self.bounds()
        cell = shift(start, step)
        while x0 <= cell[0] <= x1 and y0 <= cell[1] <= y1:
            entry = self.entries.get(cell)
            if entry is None:
                if not cross_gaps:
                    return
            elif entry.is_watchtower:
                return
            else:
                yield entry
            cell = shift(cell, step)


def find_areas(entries: Mapping[GridCell, ParkEntry]) -> tuple[Area, ...]:
    """Flood fill per landscape; watchtowers and the entrance belong to no area."""
    seen: set[GridCell] = set()
    out: list[Area] = []
    for cell in sorted(entries, key=lambda c: (c[1], c[0])):
        land = entries[cell].landscape
        if cell in seen or land is None:
            continue
        group: set[GridCell] = set()
        todo = [cell]
        seen.add(cell)
        while todo:
            c = todo.pop()
            group.add(c)
            for n in neighbours(c):
                e = entries.get(n)
                if n not in seen and e is not None and e.landscape is land:
                    seen.add(n)
                    todo.append(n)
        out.append(Area(land, frozenset(group)))
    return tuple(out)


def area_index(areas: Iterable[Area]) -> dict[GridCell, Area]:
    return {c: a for a in areas for c in a.cells}


def distances(
    cells: Iterable[GridCell], sources: Iterable[GridCell], passable: Iterable[GridCell] = ()
) -> dict[GridCell, int]:
    """Fewest orthogonal steps from any source to each cell, moving only over ``cells``."""
    walk = set(cells) | set(passable)
    dist: dict[GridCell, int] = {}
    queue: deque[GridCell] = deque()
    for s in sources:
        if s in walk and s not in dist:
            dist[s] = 0
            queue.append(s)
    while queue:
        c = queue.popleft()
        for n in neighbours(c):
            if n in walk and n not in dist:
                dist[n] = dist[c] + 1
                queue.append(n)
    return dist


def longest_run(cells: frozenset[GridCell], steps: Iterable[GridCell]) -> int:
    """Most consecutive occupied cells along one of the step directions."""
    best = 0
    for step in steps:
        for c in cells:
            if shift(c, step, -1) in cells:
                continue
            n = 1
            while shift(c, step, n) in cells:
                n += 1
            best = max(best, n)
    return best


def largest_rectangle(cells: frozenset[GridCell]) -> tuple[int, tuple[int, int]]:
    """Tiles in the biggest completely filled rectangle, and its width x height."""
    if not cells:
        return 0, (0, 0)
    xs = sorted({c[0] for c in cells})
    ys = sorted({c[1] for c in cells})
    best, shape = 0, (0, 0)
    for x0 in range(xs[0], xs[-1] + 1):
        for y0 in range(ys[0], ys[-1] + 1):
            if (x0, y0) not in cells:
                continue
            max_w = 0
            while (x0 + max_w, y0) in cells:
                max_w += 1
            h = 0
            width = max_w
            while width > 0 and (x0, y0 + h) in cells:
                w = 0
                while w < width and (x0 + w, y0 + h) in cells:
                    w += 1
                width = w
                h += 1
                if width * h > best:
                    best, shape = width * h, (width, h)
    return best, shape


@dataclass(frozen=True, slots=True)
class Measure:
    """A goal's measure of one park: the comparable key and a readable account."""

    key: tuple[int, ...]
    text: str


def measure(park: Park, goal: Goal) -> Measure:
    """How well a park fulfils a goal tile; compare ``key`` (lexicographically)."""
    cells = frozenset(park.entries) | park.unknown
    if goal is Goal.BIGGEST_AREA:
        sizes = tuple(sorted((a.size for a in park.areas()), reverse=True))
        return Measure(sizes, "areas " + (", ".join(map(str, sizes)) or "none"))
    if goal is Goal.MANY_AREAS:
        n = len(park.areas())
        return Measure((n,), f"{n} areas")
    if goal is Goal.LONG_PARK:
        n = longest_run(cells, ((1, 0), (0, 1)))
        return Measure((n,), f"longest row {n}")
    if goal is Goal.DIAGONAL_LONG_PARK:
        n = longest_run(cells, ((1, 1), (1, -1)))
        return Measure((n,), f"longest diagonal {n}")
    if goal is Goal.LANDSCAPE_TYPES:
        counts: dict[Landscape, int] = {}
        for e in park.entries.values():
            if e.landscape is not None:
                counts[e.landscape] = counts.get(e.landscape, 0) + 1
        sets = min(counts.values()) if counts else 0
        return Measure((len(counts), sets), f"{len(counts)} landscape types, {sets} full sets")
    if goal is Goal.FLORA_DIVERSITY:
        kinds: set[Landscape] = set()
        total = 0
        for e in park.entries.values():
            if e.kind is TileKind.FLOWER and e.landscape is not None:
                kinds.add(e.landscape)
                total += 1
        return Measure((len(kinds), total), f"{len(kinds)} different flowers, {total} in all")
    if goal is Goal.COMPACT_PARK:
        n, (w, h) = largest_rectangle(cells)
        return Measure((n,), f"rectangle {w}x{h} = {n} tiles")
    if goal is Goal.KEEP_IT_CLOSE:
        sources = [park.entrance] if park.entrance is not None else []
        dist = distances(park.entries, sources, park.unknown)
        far = max((dist.get(c, 0) for c in park.entries), default=0)
        return Measure((far,), f"furthest tile {far} steps from the entrance")
    # ACCESSIBILITY
    roads = [c for c, e in park.entries.items() if e.is_road]
    dist = distances(park.entries, roads, park.unknown)
    far = max((dist.get(c, 0) for c in park.entries), default=0)
    return Measure((far,), f"furthest tile {far} steps from a road")
