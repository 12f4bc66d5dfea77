"""BIOME Borneo's rule codes, areas and claims: what the game object and its move checks share."""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass

from ..model import (
    parse_area,
)

TILE_SIZE_MM = (70.0, 60.6)
"""Flat-topped hexagon, 35 mm from centre to corner (matches the platform slots)."""

GALLERY_SIZE = 3

BONUS_IN_PLAY = 2

EXTRAS_KEYS = frozenset({"active", "claims"})


class Rule(enum.Enum):
    """Every broken rule a move can show; the values are stable codes."""

    WRONG_LAYER = "borneo/wrong_layer"
    CONFLICT = "borneo/conflict"
    TILE_WITHOUT_CARD = "borneo/tile_without_card"
    CARD_WITHOUT_TILE = "borneo/card_without_tile"
    TILES_NOT_CONNECTED = "borneo/tiles_not_connected"
    HABITAT_UNMET = "borneo/habitat_unmet"
    PREY_MISSING = "borneo/prey_missing"
    PREY_NOT_LISTED = "borneo/prey_not_listed"
    PREY_CONSUMED = "borneo/prey_consumed"
    SEVERAL_PLAYERS = "borneo/several_players"
    CLAIM_MISMATCH = "borneo/claim_mismatch"
    TILE_REMOVED = "borneo/tile_removed"
    EARNED_CHANGED = "borneo/earned_changed"
    TILE_NOT_IN_HAND = "borneo/tile_not_in_hand"
    CARD_NOT_AVAILABLE = "borneo/card_not_available"


class Area(enum.Enum):
    """Kinds of places on the table; player areas carry ``:<player id>``, platforms ``:<id>``."""

    PLATFORM = "platform"
    HAND = "hand"
    EARNED = "earned"
    GALLERY = "gallery"
    BONUS = "bonus"
    SUPPLY = "supply"
    DECK = "deck"
    DISCARD = "discard"
    BOX = "box"
    JUNGLE = "jungle"
    TABLE = "table"


_PLAYER_AREAS = frozenset({Area.HAND, Area.EARNED})


@functools.lru_cache(maxsize=1024)
def split_area(area: str) -> tuple[Area, str | None] | None:
    """``earned:red`` -> (Area.EARNED, "red"); None for an area this game does not have."""
    parsed = parse_area(area)
    try:
        a = Area(parsed.kind)
    except ValueError:
        return None
    needs_arg = a in _PLAYER_AREAS or a is Area.PLATFORM
    if needs_arg != bool(parsed.owner):
        return None
    return a, parsed.owner


@dataclass(frozen=True, slots=True)
class Claim:
    """One earned card and the new tiles laid for it, in the order cards were earned."""

    card: str
    tiles: tuple[str, ...]
