"""What a message players read must not contain: ids, coordinates, arrows (shared by the rooms' tests)."""

from __future__ import annotations

import re
from functools import cache

from scoring import find_game

_ARROW = re.compile(r"->|→")
_COORDINATES = re.compile(r"[(\[]\s*-?\d+(?:\.\d+)?\s*,\s*-?\d+(?:\.\d+)?\s*[)\]]")
_INDEX = re.compile(r"\w\[\d+\]")


@cache
def _catalog(game_id: str) -> tuple[dict[str, str], tuple[str, ...]]:
    names = {c.id: c.name for c in find_game(game_id).components()}
    return names, tuple(sorted(set(names.values()), key=len, reverse=True))


def faults(message: str, game_id: str) -> list[str]:
    """Why a player could not read ``message`` as it is (empty when it reads well): a component
    id that is not part of the printed name around it, an arrow, coordinates or an index."""
    names, by_length = _catalog(game_id)
    text = message
    for name in by_length:
        text = text.replace(name, " ")
    out = [f"id {i}" for i in names if re.search(rf"(?<![\w-]){re.escape(i)}(?![\w-])", text)]
    out += [f"arrow {m.group()}" for m in _ARROW.finditer(message)]
    out += [f"coordinates {m.group()}" for m in _COORDINATES.finditer(message)]
    out += [f"index {m.group()}" for m in _INDEX.finditer(message)]
    return out
