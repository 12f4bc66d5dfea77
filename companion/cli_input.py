"""What every ``companion`` subcommand shares: exit codes, the one-line user error, and
reading a state file (a missing file, broken JSON or an unknown game is one line, never a
traceback).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NoReturn

from scoring import ScoringError, find_game
from scoring.model import BoardState, Game

EXIT_OK = 0
EXIT_ILLEGAL = 1
EXIT_BAD_INPUT = 2
MAX_STATE_BYTES = 5 * 1024 * 1024
MAX_PHOTO_BYTES = 20 * 1024 * 1024


class UserError(Exception):
    """A problem the user can fix; printed as one line."""


def _fail(message: str) -> NoReturn:
    raise UserError(message)


def _read_json(path: str) -> Any:
    p = Path(path)
    try:
        if p.stat().st_size > MAX_STATE_BYTES:
            _fail(f"{path}: larger than {MAX_STATE_BYTES // (1024 * 1024)} MiB; not a state file")
        text = p.read_text("utf-8")
    except FileNotFoundError:
        _fail(f"{path}: no such file")
    except IsADirectoryError:
        _fail(f"{path}: is a directory, expected a JSON state file")
    except UnicodeDecodeError:
        _fail(f"{path}: not UTF-8 text; expected a JSON state file")
    except OSError as exc:
        _fail(f"{path}: cannot read ({exc.strerror})")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        _fail(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})")
    except RecursionError:
        _fail(f"{path}: JSON nested too deeply")
    except ValueError:  # Python's integer-string limit: a number of thousands of digits
        _fail(f"{path}: a number in it is too long to be a count of anything in a game")


def _game_of(doc: Any, path: str, override: str | None) -> Game:
    name = override or (doc.get("game") if isinstance(doc, dict) else None)
    if not isinstance(name, str):
        _fail(f"{path}: no 'game' field; pass --game")
    return find_game(name)


def _load_state(path: str, override: str | None = None) -> tuple[Game, BoardState]:
    doc = _read_json(path)
    game = _game_of(doc, path, override)
    try:
        return game, game.load_state(doc)
    except ScoringError as exc:
        _fail(f"{path}: {exc}")
    except RecursionError:
        _fail(f"{path}: state nested too deeply")
