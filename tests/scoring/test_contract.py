"""The game contract: every registered game has every part, in the same shape, declared once.

A sixth game copies one package; this test names what it still lacks.
"""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path

import pytest

from scoring import find_game, game_ids, games
from scoring.model import Game, GameInfo, Option
from scoring.payload import encode, game_codes, parse_payload

ROOT = Path(__file__).resolve().parents[2]
#: The modules every game package has (a template a new game copies).
PACKAGE_MODULES = ("__init__", "catalog", "game", "hints")
#: The data files every game ships beside its catalog.
DATA_FILES = ("example.json", "example_before.json", "example_after.json", "markers.toml", "score_pad.toml")


@pytest.mark.parametrize("game_id", game_ids())
def test_every_game_declares_itself_once(game_id: str) -> None:
    game = find_game(game_id)
    assert isinstance(game, Game)
    info = game.info
    assert isinstance(info, GameInfo)
    assert (info.id, game.id, game.name) == (game_id, game_id, info.name)
    assert info.name and len(info.qr_prefix) == 2 and info.qr_prefix.isalpha() and info.qr_prefix.isupper()
    assert info.bgg_id is None or info.bgg_id > 0
    for option in info.options:
        assert isinstance(option, Option)
        assert option.rulebook.strip(), f"{game_id} option {option.name} has no rulebook words"
        assert type(option.default) in (bool, int, str)
        if option.choices:
            assert option.type is str and option.default in option.choices
    assert len({o.name for o in info.options}) == len(info.options)
    # The options a state plays with are the declared ones, with their defaults.
    assert dict(game.load_state(game.example_state()).options).keys() == info.defaults().keys()


@pytest.mark.parametrize("game_id", game_ids())
def test_every_game_package_has_the_same_shape(game_id: str) -> None:
    for module in PACKAGE_MODULES:
        name = f"scoring.{game_id}" + ("" if module == "__init__" else f".{module}")
        assert importlib.util.find_spec(name) is not None, f"{game_id} lacks {name}"
    package = importlib.import_module(f"scoring.{game_id}")
    assert package.GAME is importlib.import_module(f"scoring.{game_id}.game").GAME
    catalog = importlib.import_module(f"scoring.{game_id}.catalog")
    assert callable(catalog.load_catalog)
    assert package.GAME.catalog is not None and package.GAME.components()
    for name in DATA_FILES:
        assert (ROOT / "scoring" / "data" / game_id / name).is_file(), f"{game_id} lacks data/{name}"


@pytest.mark.parametrize("game_id", game_ids())
def test_every_game_has_every_part_in_every_room(game_id: str) -> None:
    from vision.layouts import find_layout

    assert find_layout(game_id).game == game_id
    assert (ROOT / "docs" / "games" / f"{game_id}.md").is_file()
    assert (ROOT / "tests" / "scoring" / f"test_{game_id}.py").is_file()
    assert list((ROOT / "tests" / "scoring" / "examples" / game_id).glob("*.json"))
    # Its components travel in QR payloads under its own prefix, and read back as its own.
    component = find_game(game_id).components()[0]
    text = encode(game_id, component.id)
    assert text.startswith(find_game(game_id).info.qr_prefix)
    ref = parse_payload(text)
    assert (getattr(ref, "game", None), getattr(ref, "component", None)) == (game_id, component.id)


def test_games_are_told_apart_by_id_name_and_prefix() -> None:
    infos = [g.info for g in games()]
    for field in ("id", "name", "qr_prefix"):
        values = [getattr(i, field) for i in infos]
        assert len(set(values)) == len(values), field
    assert dict(game_codes()) == {i.id: i.qr_prefix for i in infos}
