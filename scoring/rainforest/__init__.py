"""Rainforest (Funnyfox): jungle tiles, species tokens, protected areas and diversity, as rules and data."""

from .catalog import Catalog, Colour, JungleTile, Species, SpeciesToken, load_catalog
from .game import GAME, RainforestGame
from .rules import Rule
from .score import ScoreRule

__all__ = [
    "GAME",
    "Catalog",
    "Colour",
    "JungleTile",
    "RainforestGame",
    "Rule",
    "ScoreRule",
    "Species",
    "SpeciesToken",
    "load_catalog",
]
