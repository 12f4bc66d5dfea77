"""Rainforest's catalog entries as frozen values: tiles, species tokens, boards, zones, the edition."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass


GAME_ID = "rainforest"

TILES_FILE = "tiles.csv"

TOKENS_FILE = "tokens.csv"

EDITION_FILE = "edition.toml"


class Colour(enum.Enum):
    """The five jungle colours; species tokens come in four of them (never green)."""

    RED = "red"
    YELLOW = "yellow"
    GREEN = "green"
    PURPLE = "purple"
    BLUE = "blue"


class Species(enum.Enum):
    """The four species of the species tokens, one of which is each player's totem."""

    MONKEY = "monkey"
    FROG = "frog"
    BUTTERFLY = "butterfly"
    PARROT = "parrot"


class SlotKind(enum.Enum):
    """What a token slot on a jungle tile accepts."""

    ANY = "any"
    SPECIES = "species"
    COLOUR = "colour"


@dataclass(frozen=True, slots=True)
class SpeciesToken:
    """One wooden species disc: a species in a colour, with a serial to tell twins apart."""

    id: str
    tag: int
    species: Species
    colour: Colour
    serial: int

    @property
    def label(self) -> str:
        return f"{self.colour.value} {self.species.value}"


@dataclass(frozen=True, slots=True)
class SlotRule:
    """The constraint printed in one token slot of a jungle tile."""

    kind: SlotKind
    species: Species | None = None
    colour: Colour | None = None

    def accepts(self, token: SpeciesToken) -> bool:
        if self.kind is SlotKind.SPECIES:
            return token.species is self.species
        if self.kind is SlotKind.COLOUR:
            return token.colour is self.colour
        return True

    @property
    def wanted(self) -> str:
        """What the slot asks for, in a sentence: ``any token``, ``a frog``, ``a blue token``."""
        if self.species is not None:
            return f"a {self.species.value}"
        if self.colour is not None:
            return f"a {self.colour.value} token"
        return "any token"

    @property
    def text(self) -> str:
        """The word used in the data file and on the printed slot: any, a species or a colour."""
        if self.species is not None:
            return self.species.value
        if self.colour is not None:
            return self.colour.value
        return "any"


@dataclass(frozen=True, slots=True)
class JungleTile:
    """A jungle tile: its pile, the colours it shows, its points and its token slots."""

    id: str
    tag: int
    pile: Colour
    colours: tuple[Colour, ...]
    """First the dominant colour (the pile's), then the second colour of a bicolour tile."""
    points: int
    slots: tuple[SlotRule, ...]
    edition_data: bool

    @property
    def is_bicolour(self) -> bool:
        return len(self.colours) == 2

    def shows(self, colour: Colour) -> bool:
        return colour in self.colours

    @property
    def colour_text(self) -> str:
        return "+".join(c.value for c in self.colours)


@dataclass(frozen=True, slots=True)
class PlayerBoard:
    """A player board; its totem species earns a point per token on a locked tile."""

    id: str
    tag: int
    totem: Species
    anchor_tags: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ProtectedArea:
    """A protected-area token: multiplies one tile of a connected group of its colour."""

    id: str
    tag: int
    colour: Colour
    size: int
    """Tiles the connected group must have: 3 or 4."""
    multiplier: int
    edition_data: bool


@dataclass(frozen=True, slots=True)
class BonusToken:
    """A token with no attributes beyond its identity (diversity tokens, the binoculars)."""

    id: str
    tag: int


@dataclass(frozen=True, slots=True)
class Zone:
    """One zone of the main board: a tile pile and its token spaces (centres in mm)."""

    number: int
    pile: tuple[float, float]
    token_spaces: tuple[tuple[float, float], ...]

    @property
    def space_names(self) -> tuple[str, ...]:
        return tuple(f"S{i}" for i in range(1, len(self.token_spaces) + 1))


@dataclass(frozen=True, slots=True)
class MainBoard:
    """The main board with the five zones every player draws from."""

    id: str
    tag: int
    anchor_tags: tuple[int, ...]
    anchors: tuple[tuple[float, float], ...]
    anchor_mm: float
    size_mm: tuple[float, float]
    pile_mm: tuple[float, float]
    token_space_mm: tuple[float, float]
    zones: tuple[Zone, ...]

    def zone(self, number: int) -> Zone | None:
        for z in self.zones:
            if z.number == number:
                return z
        return None


@dataclass(frozen=True, slots=True)
class BoardLayout:
    """Where the jungle positions, clearing and reserve lie on every player board (mm)."""

    size_mm: tuple[float, float]
    cell_mm: tuple[float, float]
    reserve_mm: tuple[float, float]
    anchor_mm: float
    anchors: tuple[tuple[float, float], ...]
    spaces: Mapping[str, tuple[float, float]]


@dataclass(frozen=True, slots=True)
class Sizes:
    """Printed sizes of the small components, in mm."""

    tile_mm: tuple[float, float]
    species_token_mm: float
    protected_area_mm: float
    diversity_mm: float
    binoculars_mm: tuple[float, float]


@dataclass(frozen=True, slots=True)
class Catalog:
    """Every component of the edition, plus the numbers the rules read from the edition."""

    edition: int
    tiles: Mapping[str, JungleTile]
    tokens: Mapping[str, SpeciesToken]
    boards: Mapping[str, PlayerBoard]
    protected_areas: Mapping[str, ProtectedArea]
    diversity_tokens: Mapping[str, BonusToken]
    binoculars: BonusToken
    main_board: MainBoard
    layout: BoardLayout
    sizes: Sizes
    hex_colours: Mapping[Colour, str]
    slot_positions: Mapping[int, tuple[tuple[float, float], ...]]
    """Slot centres on a tile in mm, by the tile's number of slots."""
    slot_mm: float
    points_per_later_tile: int
