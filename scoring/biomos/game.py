"""The Biomos game object: the one declaration of the game and its rules hooks."""

from __future__ import annotations

import functools

from ..game import BaseGame
from ..model import (
    BoardState,
    Component,
    GameInfo,
    Option,
    Placement,
    ScoreSheet,
    StateError,
    Violation,
)
from .catalog import Catalog, components, load_catalog
from ..words import Words
from .moves import turn_violations
from .score import TieBreakKey, score_sheet
from .table import Table, place_problem, read_table


class Biomos(BaseGame):
    """Young planets place terrain tokens on their ring to complete biome cards."""

    info = GameInfo(
        id="biomos",
        name="Biomos",
        qr_prefix="BI",
        bgg_id=362700,
        options=(
            Option("gaps_ignored", False, "The rulebook's patterns are exact: an empty space breaks a pattern and"
                   " adjacency. On, only occupied spaces are read, as the online version does."),
            Option("tiebreak", TieBreakKey.RULEBOOK.value, "Ties: \"rulebook\" gives the win to the most different"
                   " terrain types on the planet; \"bga\" compares the online version's finer key (the five terrain"
                   " counts, the Moon excluded, from the smallest).", tuple(k.value for k in TieBreakKey)),
            Option("exclude_great_sand_dunes", False, "The rulebook plays all 10 giant cards; on, the Great Sand"
                   " Dunes stay out, as in the online version."),
            Option("melt_moon", False, "The Moon is fixed once formed; on, Melting ice may target it."),
        ),
    )

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
        words = Words.of(self.id, before, after)
        return turn_violations(self.catalog, self.table(before), self.table(after), after.options, words)

    def score_sheet(self, state: BoardState) -> ScoreSheet:
        return score_sheet(self.catalog, self.table(state), state.options, len(state.unknown))


GAME = Biomos()
