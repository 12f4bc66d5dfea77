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
from .legality import Rule
from .rules import GAME, HabitatsGame
from .score import TileScore

__all__ = [
    "GAME",
    "Goal",
    "HabitatsCatalog",
    "HabitatsGame",
    "Landscape",
    "ParkTile",
    "Rule",
    "Side",
    "TileKind",
    "TileScore",
    "Tourist",
    "View",
    "load_catalog",
]
