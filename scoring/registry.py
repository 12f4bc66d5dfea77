"""The registry of supported games: ``find_game("habitats")`` and friends."""

from __future__ import annotations

import importlib
from functools import cache

from .model import Game, UnknownGameError

#: Game id -> module exposing ``GAME``. Adding a game is one line here.
_GAME_MODULES: dict[str, str] = {
    "borneo": "scoring.borneo",
    "biomos": "scoring.biomos",
    "rainforest": "scoring.rainforest",
    "habitats": "scoring.habitats",
    "phylo": "scoring.phylo",
}


@cache
def _load(game_id: str) -> Game:
    module = importlib.import_module(_GAME_MODULES[game_id])
    game = module.GAME
    if not isinstance(game, Game):
        raise TypeError(f"{_GAME_MODULES[game_id]}.GAME does not implement the Game surface")
    return game


def game_ids() -> tuple[str, ...]:
    return tuple(_GAME_MODULES)


def games() -> tuple[Game, ...]:
    """Every supported game, in a stable order."""
    return tuple(_load(g) for g in _GAME_MODULES)


def find_game(name: str) -> Game:
    """A game by id or by name, case-insensitively (``"Habitats"``, ``"habitats"``)."""
    key = name.strip().lower()
    if key in _GAME_MODULES:
        return _load(key)
    for game in games():
        if game.name.lower() == key:
            return game
    raise UnknownGameError(
        f"unknown game {name!r}; supported: {', '.join(_GAME_MODULES)}"
    )
