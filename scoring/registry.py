"""The registry of supported games: ``find_game("habitats")`` and friends.

Every room finds its games here and only here: a game is one package ``scoring/<id>``
exposing ``GAME`` (whose ``info`` declares its name, QR prefix, options...), and one id
in ``GAME_IDS``. Vision finds the table layout ``vision/layouts/<id>`` by the same id.
"""

from __future__ import annotations

import importlib
from functools import cache

from .model import Game, GameInfo, UnknownGameError

#: Every supported game, in the order the app lists them. Adding a game is one id here.
GAME_IDS: tuple[str, ...] = ("borneo", "biomos", "rainforest", "habitats", "phylo")


@cache
def _load(game_id: str) -> Game:
    module_name = f"scoring.{game_id}"
    game = importlib.import_module(module_name).GAME
    if not isinstance(game, Game):
        raise TypeError(f"{module_name}.GAME does not implement the Game surface")
    if game.info.id != game_id:
        raise TypeError(f"{module_name}.GAME declares the id {game.info.id!r}")
    return game


def game_ids() -> tuple[str, ...]:
    return GAME_IDS


def games() -> tuple[Game, ...]:
    """Every supported game, in a stable order."""
    return tuple(_load(g) for g in GAME_IDS)


def infos() -> tuple[GameInfo, ...]:
    """Every supported game's declaration, in the same order."""
    return tuple(g.info for g in games())


def find_game(name: str) -> Game:
    """A game by id or by name, case-insensitively (``"Habitats"``, ``"habitats"``)."""
    key = name.strip().lower()
    if key in GAME_IDS:
        return _load(key)
    for game in games():
        if game.name.lower() == key:
            return game
    raise UnknownGameError(
        f"unknown game {name!r}; supported: {', '.join(GAME_IDS)}"
    )
