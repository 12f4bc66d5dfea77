"""The jungle on the platforms: which tile edges face which, conflicts, matches, vine networks
and the plants a new placement can access.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .catalog import EDGE_STEPS, OPEN, VINE, Catalog, Edge, Layer, Platform, Tile

#: A tile slot on the board: (platform id, slot name).
Position = tuple[str, str]


@dataclass(frozen=True, slots=True)
class Facing:
    """Edge ``edge`` of a slot touches edge ``other_edge`` of slot ``other``."""

    edge: Edge
    other: Position
    other_edge: Edge
    same_layer: bool


@dataclass(frozen=True, slots=True)
class PlacedTile:
    """A tile in a slot, turned ``rotation`` sixth turns clockwise."""

    tile: Tile
    position: Position
    layer: Layer
    rotation: int

    def shows(self, edge: Edge) -> str:
        return self.tile.edge_plant(edge, self.rotation)


@dataclass(frozen=True, slots=True)
class Match:
    """Two facing edges showing the same plant (a vine match may cross layers)."""

    a: Position
    b: Position
    plant: str


@dataclass(frozen=True, slots=True)
class Conflict:
    """Two facing edges on one layer showing different plants."""

    a: Position
    b: Position
    plant_a: str
    plant_b: str


@dataclass(frozen=True, slots=True)
class Access:
    """The tiles whose plants a placement may use, and why each is reachable."""

    tiles: tuple[Position, ...]
    plants: Mapping[str, int]
    vine_network: bool
    """True when a vine-to-vine match of a new tile opened a whole vine network."""
    layers: frozenset[Layer]


class Geometry:
    """Which slot edges face which: neighbours on a platform plus the listed contacts."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        facings: dict[Position, list[Facing]] = {}
        for p in catalog.platforms.values():
            for s in p.slots:
                for edge, (dq, dr) in EDGE_STEPS.items():
                    other = p.slot_at(s.q + dq, s.r + dr)
                    if other is not None:
                        facings.setdefault((p.id, s.name), []).append(
                            Facing(edge, (p.id, other.name), edge.opposite, True)
                        )
        for c in catalog.contacts:
            same = catalog.platforms[c.a].layer is catalog.platforms[c.b].layer
            facings.setdefault((c.a, c.a_slot), []).append(Facing(c.a_edge, (c.b, c.b_slot), c.b_edge, same))
            facings.setdefault((c.b, c.b_slot), []).append(Facing(c.b_edge, (c.a, c.a_slot), c.a_edge, same))
        self._facings = {k: tuple(v) for k, v in facings.items()}

    def facings(self, position: Position) -> tuple[Facing, ...]:
        return self._facings.get(position, ())

    def platform(self, position: Position) -> Platform:
        return self.catalog.platforms[position[0]]


class Jungle:
    """The tiles on the platforms at one moment of the game."""

    def __init__(self, geometry: Geometry, tiles: Iterable[PlacedTile]) -> None:
        self.geometry = geometry
        self.tiles: dict[Position, PlacedTile] = {t.position: t for t in tiles}

    def with_tiles(self, tiles: Iterable[PlacedTile]) -> Jungle:
        """The jungle after more tiles are laid (inputs are never mutated)."""
        return Jungle(self.geometry, [*self.tiles.values(), *tiles])

    def neighbours(self, position: Position) -> Iterable[tuple[Facing, PlacedTile]]:
        for f in self.geometry.facings(position):
            other = self.tiles.get(f.other)
            if other is not None:
                yield f, other

    def conflicts(self, position: Position) -> tuple[Conflict, ...]:
        """Facing plants that differ on the same layer (open sides never conflict)."""
        me = self.tiles[position]
        out = []
        for f, other in self.neighbours(position):
            mine, theirs = me.shows(f.edge), other.shows(f.other_edge)
            if f.same_layer and OPEN not in (mine, theirs) and mine != theirs:
                out.append(Conflict(position, f.other, mine, theirs))
        return tuple(out)

    def matches(self, position: Position) -> tuple[Match, ...]:
        """Facing edges with the same plant; across layers only vines match."""
        me = self.tiles[position]
        out = []
        for f, other in self.neighbours(position):
            mine, theirs = me.shows(f.edge), other.shows(f.other_edge)
            if mine != OPEN and mine == theirs and (f.same_layer or mine == VINE):
                out.append(Match(position, f.other, mine))
        return tuple(out)

    def touches(self, a: Position, b: Position) -> bool:
        """Tiles touch for one habitat: same-layer neighbours, or a vine match across layers."""
        for f in self.geometry.facings(a):
            if f.other == b:
                if f.same_layer:
                    return True
                if self.tiles[a].shows(f.edge) == VINE == self.tiles[b].shows(f.other_edge):
                    return True
        return False

    def vine_network(self, position: Position) -> frozenset[Position]:
        """Every tile joined to this one by vine-to-vine matches, across understory and canopy."""
        seen = {position}
        queue = deque([position])
        while queue:
            here = queue.popleft()
            for m in self.matches(here):
                if m.plant == VINE and m.b not in seen:
                    seen.add(m.b)
                    queue.append(m.b)
        return frozenset(seen)

    def access(self, new: Iterable[Position]) -> Access:
        """New tiles, every tile reached from them through chains of matches, and whole vine
        networks where a new tile's active match is a vine."""
        start = list(dict.fromkeys(new))
        new_set = set(start)
        order = list(start)
        reached = set(start)
        # Tiles whose own matches propagate: new tiles and tiles reached by a non-vine match.
        expanded = set(start)
        opened_network = False
        queue = deque(start)
        while queue:
            here = queue.popleft()
            for m in self.matches(here):
                if m.plant == VINE:
                    if here not in new_set:
                        continue  # a vine is only the active match for a new tile
                    opened_network = True
                    reached_now = sorted(self.vine_network(here))
                else:
                    reached_now = [m.b]
                    if m.b not in expanded:
                        expanded.add(m.b)
                        queue.append(m.b)
                for t in reached_now:
                    if t not in reached:
                        reached.add(t)
                        order.append(t)
        plants: dict[str, int] = {}
        for pos in order:
            for plant, n in self.tiles[pos].tile.plants().items():
                plants[plant] = plants.get(plant, 0) + n
        layers = frozenset(self.tiles[p].layer for p in order)
        return Access(tuple(order), plants, opened_network, layers)

    def is_connected(self, positions: Iterable[Position]) -> bool:
        """All the tiles laid for one card touch each other, directly or through one another."""
        group = list(dict.fromkeys(positions))
        if len(group) <= 1:
            return True
        seen = {group[0]}
        queue = deque([group[0]])
        while queue:
            here = queue.popleft()
            for other in group:
                if other not in seen and self.touches(here, other):
                    seen.add(other)
                    queue.append(other)
        return len(seen) == len(group)


def plant_text(plants: Mapping[str, int], names: Mapping[str, str] | None = None) -> str:
    """``fig 2, vine 1`` in a stable order, for evidence and card faces."""
    if not plants:
        return "nothing"
    label = names or {}
    return ", ".join(f"{label.get(p, p)} {n}" for p, n in sorted(plants.items()))
