"""Habitats' catalog entries as frozen values: landscapes, park tiles, goals, the track, markets."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from ..model import Anchor, Space


GAME_ID = "habitats"

PARK_TILE_COUNT = 112
"""The rulebook's count of park tiles."""

TRACK_SPACES = 71
"""The score track is numbered 0-70."""


class Landscape(enum.Enum):
    """The four landscape types; watchtowers and entrances have none."""

    GRASSLAND = "grassland"
    FOREST = "forest"
    DRYLAND = "dryland"
    WATER = "water"

    @property
    def letter(self) -> str:
        return _LETTERS[self]


_LETTERS = {
    Landscape.GRASSLAND: "G",
    Landscape.FOREST: "F",
    Landscape.DRYLAND: "D",
    Landscape.WATER: "W",
}

_BY_LETTER = {v: k for k, v in _LETTERS.items()}


class TileKind(enum.Enum):
    """What a park tile is, which decides how it scores."""

    ANIMAL = "animal"
    FLOWER = "flower"
    WATCHTOWER = "watchtower"
    TOURIST = "tourist"
    ROAD = "road"


class View(enum.Enum):
    """The four kinds of watchtower sight, with the rulebook's vp per animal and per flower."""

    ORTHOGONAL = "orthogonal"
    DIAGONAL = "diagonal"
    ADJACENT = "adjacent"
    RING = "ring"

    @property
    def animal_vp(self) -> int:
        return 1 if self in (View.ORTHOGONAL, View.RING) else 2

    @property
    def flower_vp(self) -> int:
        return 1

    @property
    def label(self) -> str:
        return _VIEW_LABELS[self]


_VIEW_LABELS = {
    View.ORTHOGONAL: "straight view",
    View.DIAGONAL: "diagonal view",
    View.ADJACENT: "view on 4 neighbours",
    View.RING: "view on 8 around",
}


class Tourist(enum.Enum):
    """BIG pays per tile of its own area, MANY per other area of its landscape."""

    BIG = "BIG"
    MANY = "MANY"


class Side(enum.Enum):
    """A tile side in the park grid; y grows to the south."""

    N = 0
    E = 1
    S = 2
    W = 3

    @property
    def step(self) -> tuple[int, int]:
        return _STEPS[self]

    def turned(self, quarter_turns: int) -> Side:
        """The side this printed side faces after clockwise quarter turns."""
        return Side((self.value + quarter_turns) % 4)


_STEPS = {Side.N: (0, -1), Side.E: (1, 0), Side.S: (0, 1), Side.W: (-1, 0)}


class Goal(enum.Enum):
    """The nine goal tiles' rules; ``lower_wins`` where fewer steps is better."""

    BIGGEST_AREA = "biggest_area"
    MANY_AREAS = "many_areas"
    LONG_PARK = "long_park"
    DIAGONAL_LONG_PARK = "diagonal_long_park"
    LANDSCAPE_TYPES = "landscape_types"
    FLORA_DIVERSITY = "flora_diversity"
    COMPACT_PARK = "compact_park"
    KEEP_IT_CLOSE = "keep_it_close"
    ACCESSIBILITY = "accessibility"

    @property
    def lower_wins(self) -> bool:
        return self in (Goal.KEEP_IT_CLOSE, Goal.ACCESSIBILITY)


#: Turns per player in years 1, 2 and 3 by player count (rulebook table).
TURNS_PER_YEAR: Mapping[int, tuple[int, int, int]] = {
    2: (9, 6, 6),
    3: (8, 6, 6),
    4: (7, 6, 6),
    5: (6, 6, 6),
}

#: Printed points of an extra access road by its number of road sides (rulebook).
ROAD_POINTS: Mapping[int, int] = {1: 4, 2: 3, 3: 2}


@dataclass(frozen=True, slots=True)
class ParkTile:
    """One of the 112 park tiles as printed (road sides in its upright orientation)."""

    id: str
    tag: int
    kind: TileKind
    name: str
    landscape: Landscape | None
    points: int = 0
    """Printed vp of animals and roads; flowers, watchtowers and tourists score by rule."""
    demand: tuple[tuple[Landscape, int], ...] = ()
    """Landscape tiles the animal needs in adjacent areas."""
    flowers: int = 0
    """Flowers a bee, bumblebee or butterfly needs in an adjacent chain."""
    view: View | None = None
    tourist: Tourist | None = None
    road_sides: frozenset[Side] = frozenset()
    edition_data: bool = True

    @property
    def needs_flowers(self) -> bool:
        return self.kind is TileKind.ANIMAL and self.flowers > 0

    def roads_at(self, rotation: int) -> frozenset[Side]:
        """Road sides after the tile was turned clockwise ``rotation`` quarter turns."""
        return frozenset(s.turned(rotation) for s in self.road_sides)

    def label(self) -> str:
        """Short name for evidence texts."""
        return self.name.lower()


@dataclass(frozen=True, slots=True)
class ColourSet:
    """A player colour's entrance tile, figure and score marker."""

    colour: str
    hex: str
    entrance_id: str
    entrance_tag: int
    figure_id: str
    figure_tag: int
    marker_id: str
    marker_tag: int
    edition_data: bool


@dataclass(frozen=True, slots=True)
class GoalTile:
    """A yearly goal tile."""

    id: str
    tag: int
    goal: Goal
    name: str
    text: str


@dataclass(frozen=True, slots=True)
class TrackBoard:
    """The score track board with its anchors and named spaces."""

    id: str
    tag: int
    name: str
    size_mm: tuple[float, float]
    colour: str
    anchors: tuple[Anchor, ...]
    spaces: tuple[Space, ...]
    edition_data: bool


@dataclass(frozen=True, slots=True)
class ReplacementTile:
    """The tile laid on the track in 2 and 3 player games (their score tables)."""

    id: str
    tag: int
    name: str
    size_mm: tuple[float, float]
    colour: str
    edition_data: bool


@dataclass(frozen=True, slots=True)
class MarketLayout:
    """The market grid for one player count and the figures' start cells and facings."""

    players: int
    columns: int
    rows: int
    figures: tuple[tuple[tuple[int, int], Side], ...]
    edition_data: bool

    @property
    def tile_count(self) -> int:
        return self.columns * self.rows - len(self.figures)


@dataclass(frozen=True, slots=True)
class HabitatsCatalog:
    """Everything printed for a Habitats edition."""

    tiles: tuple[ParkTile, ...]
    colours: tuple[ColourSet, ...]
    goals: tuple[GoalTile, ...]
    track: TrackBoard
    replacement: ReplacementTile
    year_scores: Mapping[tuple[int, int], tuple[int, ...]]
    """(players, year) -> vp by rank, first place first."""
    year_scores_edition: Mapping[tuple[int, int], bool]
    markets: Mapping[int, MarketLayout]
    tile_index: Mapping[str, ParkTile]

    def tile(self, component: str) -> ParkTile | None:
        return self.tile_index.get(component)

    def goal_tile(self, component: str) -> GoalTile | None:
        for g in self.goals:
            if g.id == component:
                return g
        return None

    def colour_of_entrance(self, component: str) -> ColourSet | None:
        for c in self.colours:
            if c.entrance_id == component:
                return c
        return None

    def colour_of_figure(self, component: str) -> ColourSet | None:
        for c in self.colours:
            if c.figure_id == component:
                return c
        return None

    def colour_of_marker(self, component: str) -> ColourSet | None:
        for c in self.colours:
            if c.marker_id == component:
                return c
        return None
