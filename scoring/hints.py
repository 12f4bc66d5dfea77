"""Hints for the piece in hand: every legal place with its points, and why the others are refused.

The engine decides nothing itself. A game's hint module (``scoring/<game>/hints.py``) only
proposes places for a component; each proposal becomes a move that the game's own
``violations`` judges, and its points are the difference of the player's score sheets
before and after. So a hint can never disagree with ``companion check`` or the score pad.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol

from .model import BoardState, ComponentId, Game, Placement, PlayerId, ScoreSheet, ScoringError, Violation, parse_area
from .registry import GAME_IDS, find_game
from .state import placement_to_json
from .words import Words, join_and


class HintError(ScoringError):
    """A hint question that cannot be answered: unknown component, player or place."""


@dataclass(frozen=True, slots=True)
class Change:
    """One component's placement after a move; ``to`` is None when it leaves the table."""

    component: ComponentId
    to: Placement | None


@dataclass(frozen=True, slots=True)
class Place:
    """Where the piece in hand goes, as the whole move it makes on the table.

    ``changes`` starts with the piece itself; further changes are what the rules make
    the same move do (a drafted figure, an earned card, a completed tile locked in).
    """

    key: str
    """Stable id of the place within one question, e.g. ``park:red (2,-1) r1``."""
    label: str
    """What a player reads: ``Ana's park, east of Owl (roads east and south)``."""
    changes: tuple[Change, ...]
    extras: tuple[tuple[str, Any], ...] = ()
    """``extras`` keys the move sets on the state after it (the active player, claims...)."""

    @property
    def placement(self) -> Placement | None:
        return self.changes[0].to if self.changes else None


@dataclass(frozen=True, slots=True)
class Gain:
    """The change of one score-sheet rule for the player; ``points`` may be negative."""

    rule: str
    points: int


@dataclass(frozen=True, slots=True)
class Spot:
    """A legal place with the points it is worth now."""

    place: Place
    gains: tuple[Gain, ...]
    total: int


@dataclass(frozen=True, slots=True)
class Refusal:
    """A place the rules forbid, with every rule it breaks in the rulebook's words."""

    place: Place
    violations: tuple[Violation, ...]


@dataclass(frozen=True, slots=True)
class MarketChoice:
    """Something the player may take from the market or piles, ranked by its best spot."""

    component: ComponentId
    best: Spot | None
    reason: str
    take: tuple[Change, ...] = ()
    """What taking it changes besides the piece (a figure's step, a refill)."""


@dataclass(frozen=True, slots=True)
class Hints:
    """The answer to "where can this go?" for one component and one player."""

    game: str
    player: PlayerId
    component: ComponentId
    before: BoardState
    """The table with the piece in the player's hand: every spot is a move from here."""
    spots: tuple[Spot, ...]
    """Legal places, best first."""
    refused: tuple[Refusal, ...] = ()

    @property
    def best(self) -> Spot | None:
        return self.spots[0] if self.spots else None


class GameHints(Protocol):
    """What a game's hint module provides: a hand, candidate places and market takes."""

    def holdable(self, state: BoardState, player: str) -> tuple[str, ...]:
        """What the player could hold now: their hand, the market, the piles (for the list to pick from)."""

    def in_hand(self, state: BoardState, component: str, player: str) -> BoardState:
        """The table with ``component`` in ``player``'s hand; HintError when it cannot be held."""

    def places(self, before: BoardState, component: str, player: str) -> Iterable[Place]:
        """Every place that might be legal (a superset: the rules judge each one)."""

    def place_for(self, before: BoardState, component: str, player: str, where: Mapping[str, Any]) -> Place:
        """The place a player points at (JSON fields of a placement); HintError when malformed."""

    def market(self, state: BoardState, player: str, hints: HintFinder) -> Iterable[MarketChoice]:
        """Market or pile choices, each with its best spot (empty for games without one)."""


class HintFinder(Protocol):
    def __call__(self, state: BoardState, component: str, player: str) -> Hints: ...


@cache
def game_hints(game_id: str) -> GameHints:
    """The hint module of a registered game: ``HINTS`` in ``scoring/<game>/hints.py``."""
    if game_id not in GAME_IDS:
        raise HintError(f"no hints for game {game_id!r}")
    return importlib.import_module(f"scoring.{game_id}.hints").HINTS  # type: ignore[no-any-return]


# -- moves and points ----------------------------------------------------------------


def apply_place(before: BoardState, place: Place) -> BoardState:
    """The table after the move of ``place``: changed components replaced in order, new ones appended."""
    changed = {c.component: c.to for c in place.changes}
    placements: list[Placement] = []
    for p in before.placements:
        if p.component in changed:
            to = changed.pop(p.component)
            if to is not None:
                placements.append(to)
        else:
            placements.append(p)
    placements.extend(to for c in place.changes if (to := changed.get(c.component)) is not None)
    extras = dict(before.extras)
    extras.update(place.extras)
    return BoardState(before.game, before.players, tuple(placements), before.options, extras, before.unknown)


def gains_between(before: ScoreSheet, after: ScoreSheet, player: str) -> tuple[tuple[Gain, ...], int]:
    """Per rule, the change of ``player``'s points from one sheet to the other (zero changes left out)."""
    b = before.score_of(player).by_rule()
    a = after.score_of(player).by_rule()
    gains = tuple(
        Gain(rule, a.get(rule, 0) - b.get(rule, 0))
        for rule in dict.fromkeys([*b, *a])
        if a.get(rule, 0) != b.get(rule, 0)
    )
    return gains, after.score_of(player).total - before.score_of(player).total


def judge(game: Game, before: BoardState, place: Place) -> tuple[Violation, ...]:
    """Every rule the place breaks: the game's own move check, nothing else."""
    return game.violations(before, apply_place(before, place))


def _spot(game: Game, before: BoardState, base: ScoreSheet, place: Place, player: str) -> Spot:
    after = apply_place(before, place)
    gains, total = gains_between(base, game.score_sheet(after), player)
    return Spot(place, gains, total)


def find_hints(state: BoardState, component: str, player: str, *, with_refused: bool = False) -> Hints:
    """Every legal place for ``component`` in ``player``'s hand, best first, with its points."""
    game = find_game(state.game)
    rules = game_hints(state.game)
    if component not in game.component_index:
        raise HintError(f"unknown component {component!r} for {game.name}")
    state.player(player)  # raises StateError for a stranger
    before = rules.in_hand(state, component, player)
    base = game.score_sheet(before)
    spots: list[Spot] = []
    refused: list[Refusal] = []
    seen: set[str] = set()
    for place in rules.places(before, component, player):
        if place.key in seen:
            continue
        seen.add(place.key)
        found = judge(game, before, place)
        if found:
            if with_refused:
                refused.append(Refusal(place, found))
            continue
        spots.append(_spot(game, before, base, place, player))
    spots.sort(key=lambda s: (-s.total, s.place.key))
    return Hints(game.id, PlayerId(player), ComponentId(component), before, tuple(spots), tuple(refused))


def holdable(state: BoardState, player: str) -> tuple[str, ...]:
    """The components ``player`` could ask about now, for a list to pick from."""
    state.player(player)
    return game_hints(state.game).holdable(state, player)


def holdable_labels(state: BoardState, player: str) -> dict[str, str]:
    """What the list to pick from shows for each holdable piece: its printed name alone, and for
    pieces printed with the same name what tells them apart where they lie (never an id)."""
    words = Words.of(state.game, state)
    ids = holdable(state, player)
    names = {c: words.name(c) for c in ids}
    out = {}
    for c in ids:
        twins = [d for d in ids if names[d] == names[c]]
        out[c] = names[c] if len(twins) == 1 else f"{names[c]} ({_told_apart(state, c, twins, words)})"
    return out


def _told_apart(state: BoardState, component: str, twins: Sequence[str], words: Words) -> str:
    """Where one of several same-named pieces lies: its area, space or neighbours; else a copy number."""
    at = state.placement_of(component)
    if at is not None:
        same_area = [d for d in twins if (q := state.placement_of(d)) is not None and q.area == at.area]
        if len(same_area) == 1:
            return words.where(at.area)
        if isinstance(at.cell, str):
            return f"{words.space(at.cell)} {words.where(at.area)}"
        if isinstance(at.cell, tuple) and len(at.cell) == 2:
            others = set()
            for d in same_area:
                q = state.placement_of(d)
                if d != component and q is not None and isinstance(q.cell, tuple):
                    others.update(grid_sides(state, q.area, q.cell, words))
            mine = [side for side in grid_sides(state, at.area, at.cell, words) if side not in others]
            if mine:
                return f"{words.where(at.area)}, {mine[0]}"
    return f"copy {list(twins).index(component) + 1} of {len(twins)}"


def market_choices(state: BoardState, player: str) -> tuple[MarketChoice, ...]:
    """What ``player`` may take from the market or piles, best spot first, none-legal last."""
    state.player(player)
    choices = game_hints(state.game).market(state, player, find_hints)
    return tuple(
        sorted(choices, key=lambda c: (c.best is None, -(c.best.total if c.best else 0), c.component))
    )


def explain(state: BoardState, component: str, player: str, where: Mapping[str, Any]) -> Refusal | Spot:
    """The verdict on one place a player points at: its points, or every rule that forbids it."""
    game = find_game(state.game)
    rules = game_hints(state.game)
    if component not in game.component_index:
        raise HintError(f"unknown component {component!r} for {game.name}")
    state.player(player)
    before = rules.in_hand(state, component, player)
    place = rules.place_for(before, component, player, where)
    found = judge(game, before, place)
    if found:
        return Refusal(place, found)
    return _spot(game, before, game.score_sheet(before), place, player)


# -- JSON -------------------------------------------------------------------------------


def place_to_json(place: Place) -> dict[str, Any]:
    return {
        "key": place.key,
        "label": place.label,
        "placement": placement_to_json(place.placement) if place.placement else None,
        "changes": [
            {"component": c.component, "to": placement_to_json(c.to) if c.to else None} for c in place.changes
        ],
        "extras": dict(place.extras),
    }


def spot_to_json(spot: Spot) -> dict[str, Any]:
    return {
        **place_to_json(spot.place),
        "legal": True,
        "total": spot.total,
        "gains": [{"rule": g.rule, "points": g.points} for g in spot.gains],
    }


def refusal_to_json(refusal: Refusal) -> dict[str, Any]:
    return {**place_to_json(refusal.place), "legal": False, "violations": [v.to_dict() for v in refusal.violations]}


def hints_to_json(hints: Hints) -> dict[str, Any]:
    """The documented JSON of docs/hints.md."""
    return {
        "game": hints.game,
        "player": hints.player,
        "component": hints.component,
        "best": hints.best.total if hints.best else None,
        "spots": [spot_to_json(s) for s in hints.spots],
        "refused": [refusal_to_json(r) for r in hints.refused],
    }


def market_to_json(choices: Iterable[MarketChoice]) -> list[dict[str, Any]]:
    return [
        {
            "component": m.component,
            "best": spot_to_json(m.best) if m.best else None,
            "reason": m.reason,
            "take": [{"component": c.component, "to": placement_to_json(c.to) if c.to else None} for c in m.take],
        }
        for m in choices
    ]


# -- helpers for the game modules ------------------------------------------------------


def moved(p: Placement, **fields: Any) -> Placement:
    """A copy of a placement with some fields replaced (Placement is a frozen slots dataclass)."""
    values = {name: getattr(p, name) for name in Placement.__dataclass_fields__}
    values.update(fields)
    return Placement(**values)


def without(state: BoardState, components: Sequence[str]) -> BoardState:
    """The state with some components taken off the table."""
    gone = set(components)
    return BoardState(
        state.game,
        state.players,
        tuple(p for p in state.placements if p.component not in gone),
        state.options,
        state.extras,
        state.unknown,
    )


def where_field(where: Mapping[str, Any], name: str, kind: type, *, required: bool = True) -> Any:
    """One field of a pointed-at place, type-checked; HintError names it when wrong."""
    if name not in where or where[name] is None:
        if required:
            raise HintError(f"place: missing {name!r}")
        return None
    value = where[name]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise HintError(f"place: {name!r} has the wrong type ({value!r})")
    return value


def board_space(state: BoardState, placement: Placement) -> dict[str, Any] | None:
    """The printed board space a placement's named cell is on, for drawing it on a photo.

    The board is the component on the table whose printed spaces name the cell: the one in the
    same area, else one in an area of the same owner (``player:ana`` for ``clearing:ana``),
    else the one the area names (``platform:U1`` lies on board ``U1``).
    """
    if not isinstance(placement.cell, str):
        return None
    game = find_game(state.game)
    owner = parse_area(placement.area).owner or ""
    ranked: list[tuple[int, Placement]] = []
    for p in state.placements:
        spaces = game.component_index[p.component].spaces if p.component in game.component_index else ()
        if not any(s.name == placement.cell for s in spaces):
            continue
        if p.area == placement.area:
            ranked.append((0, p))
        elif owner and parse_area(p.area).owner == owner:
            ranked.append((1, p))
        elif owner == p.component:
            ranked.append((2, p))
    if not ranked:
        return None
    board = min(ranked, key=lambda r: r[0])[1]
    component = game.component_index[board.component]
    space = next(s for s in component.spaces if s.name == placement.cell)
    return {"component": board.component, "size_mm": list(component.size_mm), "at_mm": [space.x_mm, space.y_mm]}


#: A table grid's steps in compass words (y grows to the south: Habitats' park, PHYLO's table).
COMPASS: dict[tuple[int, int], str] = {(0, -1): "north", (1, 0): "east", (0, 1): "south", (-1, 0): "west"}


def grid_nearby(
    state: BoardState, area: str, cell: tuple[int, int], words: Words, sides: Mapping[tuple[int, int], str] | None = None
) -> str:
    """Where an empty grid cell lies among the pieces around it: ``north of Owl and west of Kudu``.

    Players find a place by what lies beside it, never by coordinates; empty when nothing does.
    """
    return join_and(grid_sides(state, area, cell, words, sides))


def grid_sides(
    state: BoardState, area: str, cell: tuple[int, int], words: Words, sides: Mapping[tuple[int, int], str] | None = None
) -> list[str]:
    """``["north of Owl", "west of Kudu"]``: each piece lying beside a grid cell, by the side it touches.

    ``sides`` words each step where the game has better words than the compass (``on Ana's side of``).
    """
    sides = sides or {}
    at = {p.cell: p.component for p in state.in_area(area) if p.on is None and isinstance(p.cell, tuple)}
    parts = []
    for (dx, dy), word in COMPASS.items():
        found = at.get((cell[0] - dx, cell[1] - dy))
        if found is not None:
            parts.append(f"{sides.get((dx, dy), word + ' of')} {words.name(found)}")
    return parts
