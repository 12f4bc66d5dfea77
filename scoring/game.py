"""The common base of every game object: state loading on top of the shared format."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, ClassVar

from .catalog import read_data
from .markers import checked_components
from .model import BoardState, Component, GameInfo, Placement, ScoreSheet, Violation
from .state import parse_state


class BaseGame:
    """Subclasses set ``info`` (the game's one declaration) and implement the rules hooks."""

    info: ClassVar[GameInfo]

    @property
    def id(self) -> str:
        return self.info.id

    @property
    def name(self) -> str:
        return self.info.name

    # -- catalog -------------------------------------------------------------
    def _components(self) -> tuple[Component, ...]:
        raise NotImplementedError

    @functools.cached_property
    def _component_cache(self) -> tuple[Component, ...]:
        return checked_components(self.id, self._components())

    def components(self) -> tuple[Component, ...]:
        return self._component_cache

    @functools.cached_property
    def component_index(self) -> Mapping[str, Component]:
        return {c.id: c for c in self.components()}

    # -- state ---------------------------------------------------------------
    def check_place(self, placement: Placement) -> str | None:
        """A problem sentence when the placement's area/cell is outside the geometry."""
        return None

    def check_state(self, state: BoardState) -> None:
        """Game-specific consistency of a whole state; raise StateError naming the entry."""

    def load_state(self, data: Mapping[str, Any]) -> BoardState:
        state = parse_state(
            data,
            game=self.id,
            components=self.component_index.keys(),
            options=self.info.defaults(),
            check_place=self.check_place,
        )
        self.check_state(state)
        return state

    def example_state(self) -> Mapping[str, Any]:
        return read_data(self.id, "example.json")

    # -- rules ---------------------------------------------------------------
    def violations(self, before: BoardState, after: BoardState) -> tuple[Violation, ...]:
        raise NotImplementedError

    def score_sheet(self, state: BoardState) -> ScoreSheet:
        raise NotImplementedError
