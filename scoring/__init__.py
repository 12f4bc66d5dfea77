"""Rules engine of the table companion: catalogs, board states, move legality, scoring.

Pure Python: no I/O beyond reading its own catalog data files.
"""

from .model import (
    BoardState,
    CatalogError,
    Component,
    Game,
    Placement,
    Player,
    ScoreLine,
    ScoreSheet,
    ScoringError,
    StateError,
    UnknownGameError,
    Violation,
)
from .registry import find_game, game_ids, games

__all__ = [
    "BoardState",
    "CatalogError",
    "Component",
    "Game",
    "Placement",
    "Player",
    "ScoreLine",
    "ScoreSheet",
    "ScoringError",
    "StateError",
    "UnknownGameError",
    "Violation",
    "find_game",
    "game_ids",
    "games",
]
