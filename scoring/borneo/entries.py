"""BIOME Borneo's catalog entries as frozen values: plants, platforms, tiles, species, cards, accessories."""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping
from dataclasses import dataclass
from ..model import Anchor, Shape, Space


GAME_ID = "borneo"

VINE = "vine"

OPEN = "-"

EDGE_COUNT = 6
"""Tiles are hexagons: six edges, rotations are sixth turns."""


class Layer(enum.Enum):
    """The three rainforest layers; a tile's background colour names the layers it may go on."""

    EMERGENT = "emergent"
    CANOPY = "canopy"
    UNDERSTORY = "understory"


class Edge(enum.IntEnum):
    """Edge directions of a flat-topped hexagon, clockwise from the top, in the board's frame."""

    N = 0
    NE = 1
    SE = 2
    S = 3
    SW = 4
    NW = 5

    @property
    def opposite(self) -> Edge:
        return Edge((self + 3) % EDGE_COUNT)


class Tier(enum.Enum):
    """Place of an animal in the food chain (card background colour)."""

    PRIMARY = "primary"
    SECONDARY = "secondary"
    APEX = "apex"


class ActionKind(enum.Enum):
    """Main-deck cards that are never earned."""

    ABILITY = "ability"
    DISASTER = "disaster"


class BonusKind(enum.Enum):
    """The checkable conditions of global bonus cards."""

    CHAIN_LENGTH = "chain_length"
    TIER_COUNT = "tier_count"
    DISTINCT_SPECIES = "distinct_species"
    PLANT_CARDS = "plant_cards"
    GROUP_SPECIES = "group_species"
    CHAINS = "chains"
    EVERY_KIND = "every_kind"


PLANT_CARD_COLOUR = "#38a33c"

BONUS_COLOUR = "#8e7cc3"

CARD_SIZE_MM = (63.0, 88.0)

MAX_CHAIN = 5


@dataclass(frozen=True, slots=True)
class Plant:
    """One of the Bornean plants of the legend and the layers it grows on."""

    id: str
    name: str
    layers: frozenset[Layer]
    colour: str
    edition_data: bool


@dataclass(frozen=True, slots=True)
class Slot:
    """A tile slot of a platform, in axial hexagon coordinates."""

    name: str
    q: int
    r: int


@dataclass(frozen=True, slots=True)
class Platform:
    """A rainforest layer platform: a board of hexagonal tile slots on one layer."""

    id: str
    name: str
    layer: Layer
    tag: int
    size_mm: tuple[float, float]
    origin_mm: tuple[float, float]
    hex_radius_mm: float
    anchors: tuple[Anchor, ...]
    slots: tuple[Slot, ...]
    edition_data: bool

    def slot(self, name: str) -> Slot | None:
        for s in self.slots:
            if s.name == name:
                return s
        return None

    def slot_at(self, q: int, r: int) -> Slot | None:
        for s in self.slots:
            if (s.q, s.r) == (q, r):
                return s
        return None

    def centre_mm(self, slot: Slot) -> tuple[float, float]:
        """Centre of a slot from the board's top-left corner (flat-topped hexagons)."""
        x = self.origin_mm[0] + 1.5 * self.hex_radius_mm * slot.q
        y = self.origin_mm[1] + math.sqrt(3) * self.hex_radius_mm * (slot.r + slot.q / 2)
        return (round(x, 1), round(y, 1))

    def spaces(self) -> tuple[Space, ...]:
        w = 2 * self.hex_radius_mm
        h = round(math.sqrt(3) * self.hex_radius_mm, 1)
        return tuple(Space(s.name, *self.centre_mm(s), w, h, Shape.HEX) for s in self.slots)


@dataclass(frozen=True, slots=True)
class Contact:
    """Two slot edges of different platforms that touch in the classic formation."""

    a: str
    a_slot: str
    a_edge: Edge
    b: str
    b_slot: str
    b_edge: Edge
    edition_data: bool


@dataclass(frozen=True, slots=True)
class Tile:
    """A plant tile: its allowed layers and, at rotation 0, the plant on each edge (or open)."""

    id: str
    tag: int
    layers: frozenset[Layer]
    edges: tuple[str, ...]
    """Plant id per edge N, NE, SE, S, SW, NW at rotation 0; ``-`` for an open side."""
    edition_data: bool

    @property
    def has_vine(self) -> bool:
        return VINE in self.edges

    def plants(self) -> dict[str, int]:
        """The plant icons of the tile: one per plant edge, but one vine however many edges it joins."""
        out: dict[str, int] = {}
        for p in self.edges:
            if p != OPEN and p != VINE:
                out[p] = out.get(p, 0) + 1
        if self.has_vine:
            out[VINE] = 1
        return out

    def edge_plant(self, direction: Edge, rotation: int) -> str:
        """What the tile shows towards a board direction after ``rotation`` clockwise sixth turns."""
        return self.edges[(direction - rotation) % EDGE_COUNT]


@dataclass(frozen=True, slots=True)
class Species:
    """An animal species: tier, points, prey options and predators as printed on its cards."""

    id: str
    name: str
    tier: Tier
    points: int
    group: str
    prey: tuple[str, ...]
    predators: tuple[str, ...]
    points_fact: bool
    prey_fact: bool
    edition_data: bool


@dataclass(frozen=True, slots=True)
class AnimalCard:
    """One animal card: its species and this card's habitat requirement."""

    id: str
    tag: int
    species: Species
    habitat: Mapping[str, int]
    edition_data: bool

    @property
    def points(self) -> int:
        return self.species.points

    @property
    def tier(self) -> Tier:
        return self.species.tier

    @property
    def name(self) -> str:
        return self.species.name


@dataclass(frozen=True, slots=True)
class PlantCard:
    """A plant card: points for a habitat, outside every food chain."""

    id: str
    tag: int
    name: str
    points: int
    habitat: Mapping[str, int]
    spans_layers: bool
    """The accessible tiles must reach both the understory and the canopy (through vines)."""
    edition_data: bool


@dataclass(frozen=True, slots=True)
class ActionCard:
    """An ability or disaster card: played or resolved, never earned."""

    id: str
    tag: int
    kind: ActionKind
    name: str
    text: str
    edition_data: bool


@dataclass(frozen=True, slots=True)
class BonusCondition:
    """What a player must have earned to complete a global bonus card."""

    kind: BonusKind
    at_least: int = 1
    tier: Tier | None = None
    group: str | None = None
    min_length: int = 0


@dataclass(frozen=True, slots=True)
class BonusCard:
    """A global bonus card: 5 points to the only player who completes it."""

    id: str
    tag: int
    name: str
    text: str
    condition: BonusCondition
    edition_data: bool


@dataclass(frozen=True, slots=True)
class Accessory:
    """A component without rules (layer mount, legend card)."""

    id: str
    tag: int
    kind: str
    name: str
    size_mm: tuple[float, float]
    edition_data: bool


@dataclass(frozen=True, slots=True)
class Catalog:
    """The whole edition, indexed by id."""

    plants: Mapping[str, Plant]
    platforms: Mapping[str, Platform]
    contacts: tuple[Contact, ...]
    tiles: Mapping[str, Tile]
    species: Mapping[str, Species]
    animals: Mapping[str, AnimalCard]
    plant_cards: Mapping[str, PlantCard]
    actions: Mapping[str, ActionCard]
    bonuses: Mapping[str, BonusCard]
    accessories: Mapping[str, Accessory]

    def earnable(self, card_id: str) -> AnimalCard | PlantCard | None:
        return self.animals.get(card_id) or self.plant_cards.get(card_id)

    def is_main_deck(self, component: str) -> bool:
        return component in self.animals or component in self.plant_cards or component in self.actions
