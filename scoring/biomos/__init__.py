"""Biomos (Subverti): planet geometry, turn legality and end-of-game scoring.

Areas, cells and options are documented in docs/games/biomos.md; the catalog lives in
``scoring/data/biomos/``.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from ..game import BaseGame
from ..model import BoardState, Component, Placement, ScoreSheet, StateError, Violation
from .catalog import BiomeCard, BiomeKind, Catalog, Side, Terrain, components, load_catalog
from .moves import Event, Rule, turn_violations
from .planet import Planet, find_pattern, neighbours, reading_sequence, runs
from .score import ScoreRule, TieBreakKey, score_sheet
from .table import Table, place_problem, read_table


class Biomos(BaseGame):
    """Young planets place terrain tokens on their ring to complete biome cards."""

    id = "biomos"
    name = "Biomos"
    OPTIONS: Mapping[str, Any] = {
        "gaps_ignored": False,
        "tiebreak": TieBreakKey.RULEBOOK.value,
        "exclude_great_sand_dunes": False,
        "melt_moon": False,
    }

    @functools.cached_property
    def catalog(self) -> Catalog:
        """The edition's rich catalog (tokens, biome cards, board sides, Black Hole)."""
        return load_catalog()

    def _components(self) -> tuple[Component, ...]:
        return components(self.catalog)

    def check_place(self, placement: Placement) -> str | None:
        return place_problem(self.catalog, placement)

    def check_state(self, state: BoardState) -> None:
        key = state.options.get("tiebreak")
        if key not in {k.value for k in TieBreakKey}:
            raise StateError(f"options: 'tiebreak' must be 'rulebook' or 'bga', got {key!r}")
        read_table(self.catalog, state)

    def table(self, state: BoardState) -> Table:
        """The Biomos reading of a state (who holds which planet, cards and tokens)."""
        return read_table(self.catalog, state)

    def violations(self, before: BoardState, after: BoardState) -> tuple[Violation, ...]:
        return turn_violations(self.catalog, self.table(before), self.table(after), after.options)

    def score_sheet(self, state: BoardState) -> ScoreSheet:
        return score_sheet(self.catalog, self.table(state), state.options, len(state.unknown))


GAME = Biomos()

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
    "TieBreakKey",
    "find_pattern",
    "neighbours",
    "reading_sequence",
    "runs",
]
