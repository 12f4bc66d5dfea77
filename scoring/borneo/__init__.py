"""BIOME Borneo (Goat Rock Games): catalog, jungle geometry, move legality and scoring."""

from .game import GAME, BorneoGame, Rule

__all__ = ["GAME", "BorneoGame", "Rule"]
