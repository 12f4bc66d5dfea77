"""Park scores per tile and yearly goal points, each with the evidence a player can check."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..model import StateError
from .catalog import Goal, GoalTile, Landscape, ParkTile, Side, TileKind, Tourist, View
from .park import (
    DIAGONAL_STEPS,
    ORTHOGONAL_STEPS,
    RING_STEPS,
    Area,
    Park,
    ParkEntry,
    area_index,
    fmt,
    neighbours,
    shift,
)

ORTHOGONAL_SIDES: tuple[Side, ...] = (Side.N, Side.E, Side.S, Side.W)

#: Score-sheet rule keys of the park score, in sheet order.
RULE_BY_KIND: Mapping[TileKind, str] = {
    TileKind.ANIMAL: "animals",
    TileKind.FLOWER: "flowers",
    TileKind.WATCHTOWER: "watchtowers",
    TileKind.TOURIST: "tourists",
    TileKind.ROAD: "roads",
}


@dataclass(frozen=True, slots=True)
class TileScore:
    """What one park tile scores and why."""

    component: str
    cell: tuple[int, int]
    rule: str
    points: int
    evidence: str
    seen: tuple[str, ...] = ()
    """The tiles it scored by (what a watchtower sees that earns points)."""


@dataclass(frozen=True, slots=True)
class ParkRules:
    """The options that change how a park scores."""

    own_tile_counts: bool = False
    """The animal's own tile counts toward its demand (RULING: it does not)."""
    rays_cross_gaps: bool = True
    """Watchtower rays continue across empty cells (RULING: they do, views are endless)."""


class ParkScorer:
    """Scores one park; areas and fulfilled animals are computed once."""

    def __init__(self, park: Park, rules: ParkRules) -> None:
        self.park = park
        self.rules = rules
        self.areas = park.areas()
        self.area_of = area_index(self.areas)
        self._animal: dict[tuple[int, int], tuple[bool, str]] = {}

    # -- animals ----------------------------------------------------------------------
    def animal(self, entry: ParkEntry) -> tuple[bool, str]:
        """Whether the animal's habitat demand is met, with the counts that decide it."""
        if entry.cell not in self._animal:
            self._animal[entry.cell] = (
                self._judge_animal(entry.cell, entry.tile) if entry.tile else (False, "not an animal")
            )
        return self._animal[entry.cell]

    def _judge_animal(self, cell: tuple[int, int], tile: ParkTile) -> tuple[bool, str]:
        if tile.needs_flowers:
            return self._flower_animal(cell, tile)
        return self._landscape_animal(cell, tile)

    def _landscape_animal(self, cell: tuple[int, int], tile: ParkTile) -> tuple[bool, str]:
        adjacent: dict[frozenset[tuple[int, int]], Area] = {}
        for n in neighbours(cell):
            area = self.area_of.get(n)
            if area is not None:
                adjacent[area.cells] = area
        own = self.area_of.get(cell)
        if self.rules.own_tile_counts and own is not None:
            adjacent[own.cells] = own
        have: dict[Landscape, int] = {}
        for area in adjacent.values():
            n = area.size
            if cell in area.cells and not self.rules.own_tile_counts:
                n -= 1
            have[area.landscape] = have.get(area.landscape, 0) + n
        need = tile.demand
        ok = all(have.get(land, 0) >= count for land, count in need)
        needs = ", ".join(f"{land.value} {count}" for land, count in need)
        has = ", ".join(f"{land.value} {have.get(land, 0)}" for land, _ in need)
        return ok, f"needs {needs} in adjacent areas, has {has}"

    def _flower_animal(self, cell: tuple[int, int], tile: ParkTile) -> tuple[bool, str]:
        chain: set[tuple[int, int]] = set()
        todo = [n for n in neighbours(cell) if self._is_flower(n)]
        chain.update(todo)
        while todo:
            c = todo.pop()
            for n in neighbours(c):
                if n not in chain and self._is_flower(n):
                    chain.add(n)
                    todo.append(n)
        need = tile.flowers
        return len(chain) >= need, f"needs {_count(need, 'flower')} adjacent or chained, has {len(chain)}"

    def _is_flower(self, cell: tuple[int, int]) -> bool:
        e = self.park.at(cell)
        return e is not None and e.kind is TileKind.FLOWER

    # -- per tile ---------------------------------------------------------------------
    def tile_scores(self) -> tuple[TileScore, ...]:
        out: list[TileScore] = []
        for entry in self.park.tiles():
            if entry.tile is None:
                continue
            points, why = self._score(entry, entry.tile)
            out.append(
                TileScore(
                    entry.component,
                    entry.cell,
                    RULE_BY_KIND[entry.tile.kind],
                    points,
                    f"{entry.label()}: {why} -> {points}",
                    self._scored_by(entry, entry.tile),
                )
            )
        return tuple(out)

    def _score(self, entry: ParkEntry, tile: ParkTile) -> tuple[int, str]:
        if tile.kind is TileKind.ANIMAL:
            ok, why = self.animal(entry)
            return (tile.points if ok else 0), f"habitat {'met' if ok else 'not met'}: {why}; worth {tile.points}"
        if tile.kind is TileKind.FLOWER:
            return 1, "a flower always scores 1"
        if tile.kind is TileKind.WATCHTOWER and tile.view is not None:
            return self._watchtower(entry, tile.view)
        if tile.kind is TileKind.TOURIST and tile.landscape is not None:
            return self._tourist(entry, tile, tile.landscape)
        if tile.kind is TileKind.ROAD:
            return self._road(entry, tile)
        return 0, "scores nothing"

    def _value_in_sight(self, seen: ParkEntry, view: View) -> tuple[int, str]:
        name = seen.tile.label() if seen.tile else "entrance"
        if seen.kind is TileKind.FLOWER:
            return view.flower_vp, f"{name} {fmt(seen.cell)} {view.flower_vp}"
        if seen.kind is TileKind.ANIMAL:
            ok, _ = self.animal(seen)
            if ok:
                return view.animal_vp, f"{name} {fmt(seen.cell)} {view.animal_vp}"
            return 0, f"{name} {fmt(seen.cell)} 0 (habitat not met)"
        return 0, ""

    def _seen(self, entry: ParkEntry, view: View) -> list[ParkEntry]:
        """The tiles in a watchtower's view, row by row."""
        seen: list[ParkEntry] = []
        if view in (View.ORTHOGONAL, View.DIAGONAL):
            steps = ORTHOGONAL_STEPS if view is View.ORTHOGONAL else DIAGONAL_STEPS
            for step in steps:
                seen.extend(self.park.ray(entry.cell, step, cross_gaps=self.rules.rays_cross_gaps))
        else:
            steps = ORTHOGONAL_STEPS if view is View.ADJACENT else RING_STEPS
            for step in steps:
                e = self.park.at(shift(entry.cell, step))
                if e is not None:
                    seen.append(e)
        return sorted(seen, key=lambda e: (e.cell[1], e.cell[0]))

    def _scored_by(self, entry: ParkEntry, tile: ParkTile) -> tuple[str, ...]:
        """The tiles a tile's points come from besides itself: what a watchtower sees that pays."""
        if tile.kind is not TileKind.WATCHTOWER or tile.view is None:
            return ()
        view = tile.view
        return tuple(e.component for e in self._seen(entry, view) if self._value_in_sight(e, view)[0])

    def _watchtower(self, entry: ParkEntry, view: View) -> tuple[int, str]:
        total = 0
        parts: list[str] = []
        for e in self._seen(entry, view):
            vp, text = self._value_in_sight(e, view)
            total += vp
            if text:
                parts.append(text)
        what = ", ".join(parts) if parts else "no animal or flower"
        return total, f"{view.label}, {view.animal_vp} per animal with habitat, {view.flower_vp} per flower; sees {what}"

    def _tourist(self, entry: ParkEntry, tile: ParkTile, land: Landscape) -> tuple[int, str]:
        own = self.area_of[entry.cell]
        if tile.tourist is Tourist.BIG:
            return own.size - 1, f"own {land.value} area has {_count(own.size, 'tile')}, not counting itself"
        same = sorted((a.size for a in self.areas if a.landscape is land), reverse=True)
        return len(same) - 1, (
            f"{_count(len(same), land.value + ' area')} (sizes {', '.join(map(str, same))}),"
            " not counting its own"
        )

    def _road(self, entry: ParkEntry, tile: ParkTile) -> tuple[int, str]:
        roads = entry.roads
        open_sides = [s for s in ORTHOGONAL_SIDES if s not in roads]
        missing = [s.name for s in open_sides if not self.park.occupied(shift(entry.cell, s.step))]
        road_names = "/".join(s.name for s in ORTHOGONAL_SIDES if s in roads)
        if missing:
            return 0, f"roads {road_names}; side(s) {', '.join(missing)} without an adjacent tile, worth {tile.points}"
        return tile.points, f"roads {road_names}; every side without a road has a tile"


# -- yearly goals ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GoalResult:
    """One player's points for one year's goal tile."""

    player: str
    points: int
    evidence: str
    goal: str
    """The goal tile's id."""


def rank_goal(
    goal: GoalTile,
    year: int,
    keys: Mapping[str, tuple[int, ...]],
    texts: Mapping[str, str],
    table: Sequence[int],
) -> dict[str, GoalResult]:
    """Rank players on a goal; tied players all get the value of the lowest tied rank."""
    lower = goal.goal.lower_wins
    width = max((len(k) for k in keys.values()), default=0)
    # a missing further area compares as size 0, so 3,2,1 beats 3,2
    padded = {p: k + (0,) * (width - len(k)) for p, k in keys.items()}
    keys = padded
    order = sorted(keys, key=lambda p: keys[p] if lower else tuple(-v for v in keys[p]))
    out: dict[str, GoalResult] = {}
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and keys[order[j + 1]] == keys[order[i]]:
            j += 1
        value = table[j] if j < len(table) else 0
        tied = order[i : j + 1]
        for p in tied:
            if len(tied) > 1:
                others = ", ".join(q for q in tied if q != p)
                place = f"tied {_ordinal(i + 1)}-{_ordinal(j + 1)} with {others}, scores as {_ordinal(j + 1)}"
            else:
                place = f"{_ordinal(i + 1)} place"
            out[p] = GoalResult(
                p,
                value,
                f"year {year} goal {goal.name}: {texts[p]}; {place};"
                f" points by place {'/'.join(map(str, table))} -> {value}",
                goal.id,
            )
        i = j + 1
    return out


def _count(n: int, word: str) -> str:
    """``1 tile``, ``3 tiles``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _ordinal(n: int) -> str:
    return f"{n}" + {1: "st", 2: "nd", 3: "rd"}.get(n if n < 20 else n % 10, "th")


def goal_key(goal: Goal, value: object, where: str) -> tuple[int, ...]:
    """A recorded goal measure (a number, or a list for goals with tie-breaks) as a key."""
    if isinstance(value, bool):
        raise StateError(f"{where}: expected a number or a list of numbers, got {value!r}")
    if isinstance(value, int):
        values: tuple[int, ...] = (value,)
    elif isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        values = tuple(value)
    else:
        raise StateError(f"{where}: expected a number or a list of numbers, got {value!r}")
    if any(v < 0 for v in values):
        raise StateError(f"{where}: measures are never negative, got {value!r}")
    if goal is Goal.BIGGEST_AREA:
        return tuple(sorted(values, reverse=True))
    if goal in (Goal.LANDSCAPE_TYPES, Goal.FLORA_DIVERSITY):
        if len(values) != 2:
            raise StateError(f"{where}: {goal.value} is recorded as [count, tie-break], got {value!r}")
        return values
    if len(values) != 1:
        raise StateError(f"{where}: {goal.value} is recorded as one number, got {value!r}")
    return values


def key_text(goal: Goal, key: tuple[int, ...]) -> str:
    """A recorded measure in words."""
    if goal is Goal.BIGGEST_AREA:
        return "areas " + (", ".join(map(str, key)) or "none")
    if goal is Goal.LANDSCAPE_TYPES:
        return f"{key[0]} landscape types, {key[1]} full sets"
    if goal is Goal.FLORA_DIVERSITY:
        return f"{key[0]} different flowers, {key[1]} in all"
    label = {
        Goal.MANY_AREAS: "{} areas",
        Goal.LONG_PARK: "longest row {}",
        Goal.DIAGONAL_LONG_PARK: "longest diagonal {}",
        Goal.COMPACT_PARK: "rectangle of {} tiles",
        Goal.KEEP_IT_CLOSE: "furthest tile {} steps from the entrance",
        Goal.ACCESSIBILITY: "furthest tile {} steps from a road",
    }[goal]
    return label.format(key[0])
