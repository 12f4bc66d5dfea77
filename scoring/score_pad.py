"""A game's score pad: its scoring categories in the rulebook's order and words.

The score sheet's lines carry rule keys (``animals``, ``black_hole_card``); players read a
pad with one row per category, named as the rulebook names it. Which keys exist, their
order and their words are game data (``scoring/data/<game>/score_pad.toml``), so a
translation or a corrected word needs no code.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from .catalog import read_data
from .model import CatalogError


#: How a piece lies in an area, as the table page words a move ("on the table", "into the park").
PREPOSITIONS = ("in", "on", "among")


@dataclass(frozen=True, slots=True)
class Category:
    """One row of the pad: the sheet's rule key and the rulebook's words for it."""

    rule: str
    label: str


@dataclass(frozen=True, slots=True)
class ScorePad:
    """The rows of a game's pad, and the scorers that are not players (a solo opponent)."""

    game: str
    categories: tuple[Category, ...]
    neutral: tuple[tuple[str, str], ...] = ()
    """(player id, name) of scorers that are part of the game, not people at the table."""
    areas: tuple[tuple[str, str], ...] = ()
    """(area kind, words): what players call each kind of area ("park", "planet board")."""
    prepositions: tuple[tuple[str, str], ...] = ()
    """(area kind, preposition) where a piece is not "in" that area: "on" a board, "among" cards."""
    spaces: tuple[tuple[str, str], ...] = ()
    """(space name or its letters, words): how players say a cell (``P`` -> ``space {n}`` says
    ``P3`` as ``space 3``; ``MOON`` -> ``the Moon``)."""

    def space(self, name: str) -> str:
        """A named space of a board in words (the name itself where the pad has no words for it)."""
        words = dict(self.spaces)
        if name in words:
            return words[name]
        letters, number = name.rstrip("0123456789"), name[len(name.rstrip("0123456789")):]
        if number and letters in words:
            return words[letters].format(n=int(number))
        return name

    def label(self, rule: str) -> str:
        """The rulebook's words for a rule key; an unknown key in plain words as a fallback."""
        for c in self.categories:
            if c.rule == rule:
                return c.label
        return rule.replace("_", " ").capitalize()

    def order(self, rule: str) -> int:
        for i, c in enumerate(self.categories):
            if c.rule == rule:
                return i
        return len(self.categories)

    def neutral_name(self, player: str) -> str | None:
        return dict(self.neutral).get(player)


@cache
def score_pad(game_id: str) -> ScorePad:
    """The pad of a game, read once from its data file."""
    doc: Any = read_data(game_id, "score_pad.toml")
    rows = doc.get("category") if isinstance(doc, dict) else None
    if not isinstance(rows, list) or not rows:
        raise CatalogError(f"{game_id}/score_pad.toml: no [[category]] rows")
    categories = []
    for i, row in enumerate(rows):
        rule, label = row.get("rule"), row.get("label")
        if not isinstance(rule, str) or not isinstance(label, str) or not rule or not label:
            raise CatalogError(f"{game_id}/score_pad.toml: category {i + 1} needs a rule and a label")
        categories.append(Category(rule, label))
    neutral = doc.get("neutral", {})
    if not isinstance(neutral, dict) or not all(isinstance(v, str) for v in neutral.values()):
        raise CatalogError(f"{game_id}/score_pad.toml: [neutral] maps player ids to names")
    areas = doc.get("areas", {})
    if not isinstance(areas, dict) or not all(isinstance(v, str) for v in areas.values()):
        raise CatalogError(f"{game_id}/score_pad.toml: [areas] maps area kinds to words")
    preps = doc.get("prepositions", {})
    if not isinstance(preps, dict) or not all(v in PREPOSITIONS for v in preps.values()):
        raise CatalogError(
            f"{game_id}/score_pad.toml: [prepositions] maps area kinds to one of {', '.join(PREPOSITIONS)}"
        )
    spaces = doc.get("spaces", {})
    if not isinstance(spaces, dict) or not all(isinstance(v, str) for v in spaces.values()):
        raise CatalogError(f"{game_id}/score_pad.toml: [spaces] maps space names or their letters to words")
    return ScorePad(
        game_id, tuple(categories), tuple(neutral.items()), tuple(areas.items()), tuple(preps.items()),
        tuple(spaces.items()),
    )
