"""Habitats (Cwali): park placement legality, market drafting, yearly goals and park scores."""

from .catalog import (
    Goal,
    HabitatsCatalog,
    Landscape,
    ParkTile,
    Side,
    TileKind,
    Tourist,
    View,
    load_catalog,
)
from .game import GAME, TRACK, HabitatsGame
from .legality import MARKET, PARK_PREFIX, Rule, park_owner
from .score import TileScore

__all__ = [
    "GAME",
    "Goal",
    "HabitatsCatalog",
    "HabitatsGame",
    "MARKET",
    "PARK_PREFIX",
    "TRACK",
    "Landscape",
    "ParkTile",
    "Rule",
    "Side",
    "TileKind",
    "TileScore",
    "Tourist",
    "View",
    "load_catalog",
    "park_owner",
]
