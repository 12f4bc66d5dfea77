"""PHYLO's catalog entries as frozen values: species and event cards, decks, the edition."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass


GAME_ID = "phylo"


class Climate(enum.Enum):
    """The four climate preferences printed on a species card."""

    COLD = "cold"
    COOL = "cool"
    WARM = "warm"
    HOT = "hot"


class Terrain(enum.Enum):
    """Terrains in PHYLO's card vocabulary (ocean = salt water, rocky/tundra = tundra)."""

    FOREST = "forest"
    GRASSLAND = "grassland"
    TUNDRA = "tundra"
    URBAN = "urban"
    DESERT = "desert"
    FRESH_WATER = "fresh_water"
    SALT_WATER = "salt_water"


class Diet(enum.Enum):
    """The five PHYLO diet colours plus black (read the card text)."""

    PHOTOSYNTHETIC = "photosynthetic"
    MOLECULAR_CARBON = "molecular_carbon"
    HERBIVORE = "herbivore"
    OMNIVORE = "omnivore"
    CARNIVORE = "carnivore"
    SPECIAL = "special"

    @property
    def is_autotroph(self) -> bool:
        return self in (Diet.PHOTOSYNTHETIC, Diet.MOLECULAR_CARBON)


class Keyword(enum.Enum):
    """Card-text keywords this edition knows (the glossary has more)."""

    INVASIVE = "invasive"
    POLLINATOR = "pollinator"
    PARASITE = "parasite"


class PointsSource(enum.Enum):
    """Where a card's points come from: the printed card or the published formula."""

    PRINTED = "printed"
    FORMULA = "formula"


class CardKind(enum.Enum):
    """The three kinds of PHYLO card."""

    SPECIES = "species"
    EVENT = "event"
    HOME = "home"


class Effect(enum.Enum):
    """What an event card does to the species it reaches."""

    DISCARD = "discard"
    LOSE_CLIMATE = "lose_climate"
    TERRAIN_BECOMES = "terrain_becomes"


class Duration(enum.Enum):
    """Immediate events go to the discard pile; persistent ones stay on their target."""

    IMMEDIATE = "immediate"
    PERSISTENT = "persistent"


@dataclass(frozen=True, slots=True)
class Species:
    """A species card's facts: everything the compatibility rules read."""

    key: str
    common_name: str
    latin_name: str
    kingdom: str
    phylum: str
    class_: str
    diet: Diet
    foodchain: int
    scale: int
    climates: frozenset[Climate]
    terrains: frozenset[Terrain]
    move: int
    """MOVE#: orthogonal steps per action (0 = cannot move)."""
    flight: bool
    """FLIGHT: moves may also go diagonally."""
    keywords: frozenset[Keyword]
    prey_foodchains: tuple[int, ...]
    """Only for the black (special) diet: the FOODCHAIN numbers it may eat."""
    points: int
    points_source: PointsSource
    edition_data: bool
    text: str

    @property
    def is_invasive(self) -> bool:
        return Keyword.INVASIVE in self.keywords


@dataclass(frozen=True, slots=True)
class Event:
    """An event card's play condition and effect."""

    key: str
    name: str
    text: str
    target_kingdoms: frozenset[str]
    target_terrains: frozenset[Terrain]
    target_climates: frozenset[Climate]
    effect: Effect
    climates: frozenset[Climate]
    """Climates lost (lose_climate only)."""
    terrain: Terrain | None
    """The only terrain left (terrain_becomes only)."""
    radius: int
    affects_kingdoms: frozenset[str]
    affects_terrains: frozenset[Terrain]
    duration: Duration
    edition_data: bool


@dataclass(frozen=True, slots=True)
class Card:
    """One physical card with its own id and tag; ``ref`` names its species or event."""

    id: str
    deck: str
    kind: CardKind
    ref: str | None
    tag: int


@dataclass(frozen=True, slots=True)
class Deck:
    """A starter deck: one HOME card plus species and event cards."""

    id: str
    name: str
    cards: tuple[str, ...]
    edition_data: bool


@dataclass(frozen=True, slots=True)
class PointsFormula:
    """The PHYLO project's published points formula: diet base plus range and mobility modifiers."""

    base: Mapping[Diet, int]
    one_terrain: int
    two_terrains: int
    three_or_more_terrains: int
    one_climate: int
    two_climates: int
    three_or_more_climates: int
    mobile_threshold: int
    mobile: int
    invasive: int
    minimum: int

    def points(self, s: Species) -> int | None:
        """The formula's value for a species; None where the formula has no base (black diet)."""
        if s.diet not in self.base:
            return None
        total = self.base[s.diet]
        total += _by_count(len(s.terrains), self.one_terrain, self.two_terrains, self.three_or_more_terrains)
        total += _by_count(len(s.climates), self.one_climate, self.two_climates, self.three_or_more_climates)
        if s.move >= self.mobile_threshold:
            total += self.mobile
        if s.is_invasive:
            total += self.invasive
        return max(total, self.minimum)


def _by_count(n: int, one: int, two: int, more: int) -> int:
    return one if n <= 1 else two if n == 2 else more


@dataclass(frozen=True, slots=True)
class Edition:
    """Print facts of the edition: sizes, colours and the table's extent."""

    number: int
    card_size_mm: tuple[float, float]
    grid_pitch_mm: float
    max_cell: int
    scale_bands: int
    """How many SCALE values the edition defines (1..scale_bands)."""
    home_colour: str
    event_colour: str
    diet_colours: Mapping[Diet, str]


@dataclass(frozen=True, slots=True)
class Catalog:
    """The whole PHYLO edition: every card, its facts and the starter decks."""

    edition: Edition
    formula: PointsFormula
    species: Mapping[str, Species]
    events: Mapping[str, Event]
    cards: Mapping[str, Card]
    decks: tuple[Deck, ...]

    def species_of(self, card_id: str) -> Species | None:
        card = self.cards.get(card_id)
        if card is None or card.kind is not CardKind.SPECIES or card.ref is None:
            return None
        return self.species[card.ref]

    def event_of(self, card_id: str) -> Event | None:
        card = self.cards.get(card_id)
        if card is None or card.kind is not CardKind.EVENT or card.ref is None:
            return None
        return self.events[card.ref]

    def kind_of(self, card_id: str) -> CardKind | None:
        card = self.cards.get(card_id)
        return None if card is None else card.kind
