"""Biomos (Subverti): planet geometry, turn legality and end-of-game scoring.

Areas, cells and options are documented in docs/games/biomos.md; the catalog lives in
``scoring/data/biomos/``.
"""

from __future__ import annotations

from .catalog import BiomeCard, BiomeKind, Catalog, Side, Terrain, load_catalog
from .game import GAME, Biomos
from .moves import Event, Rule
from .planet import Planet, find_pattern, neighbours, reading_sequence, runs
from .score import ScoreRule, TieBreakKey
from .table import Table

__all__ = [
    "GAME",
    "BiomeCard",
    "BiomeKind",
    "Biomos",
    "Catalog",
    "Event",
    "Planet",
    "Rule",
    "ScoreRule",
    "Side",
    "Terrain",
    "Table",
    "TieBreakKey",
    "find_pattern",
    "load_catalog",
    "neighbours",
    "reading_sequence",
    "runs",
]
