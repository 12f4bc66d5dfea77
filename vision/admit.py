"""Admission to the rules: the game loads the reading, or the placements it refuses are left out."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scoring import find_game
from scoring.model import BoardState, StateError, UnknownPlace
from scoring.state import state_to_json
from scoring.words import Words

from .layouts import Placed
from .problems import Problem, ProblemCode


@dataclass(frozen=True, slots=True, eq=False)
class Admission:
    """The reading as the rules take it: the state the game loads, the placements kept, and
    why any were left out."""

    state: BoardState
    placed: tuple[Placed, ...]
    problems: tuple[Problem, ...] = ()


def admit(state: BoardState, placed: Sequence[Placed]) -> Admission:
    """Make the state loadable by the game: placements the rules refuse (the StateError names
    each by its index) become unknown places, one at a time."""
    game = find_game(state.game)
    kept = list(placed)
    unknown = list(state.unknown)
    problems: list[Problem] = []
    for _ in range(len(kept) + 1):
        current = BoardState(
            state.game, state.players, tuple(p.placement for p in kept), state.options, state.extras, tuple(unknown)
        )
        try:
            game.load_state(state_to_json(current))
            return Admission(current, tuple(kept), tuple(problems))
        except StateError as exc:
            if exc.placement is None or exc.placement >= len(kept):
                said = Words.of(state.game, state).refusal(exc)
                problems.append(Problem(ProblemCode.STATE_REFUSED, f"the rules refuse this reading: {said}"))
                return Admission(BoardState(state.game, state.players, (), state.options, state.extras, ()), (), tuple(problems))
            bad = kept.pop(exc.placement)
            problems.append(
                Problem(
                    ProblemCode.REFUSED_PLACEMENT,
                    f"{Words.of(state.game, state).name(bad.placement.component)} left out: {exc.reason}",
                    (bad.placement.component,),
                    (bad.located.image_centre,),
                )
            )
            if bad.placement.area:
                unknown.append(UnknownPlace(bad.placement.area, bad.placement.cell))
    return Admission(state, tuple(kept), tuple(problems))
