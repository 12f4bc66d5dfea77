"""The shared model of every game: components, board states, moves and score sheets.

Everything here is a frozen value so that a state read from a photo, a file or a
database can be compared, hashed and replayed without surprises.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NewType, Protocol, runtime_checkable

ComponentId = NewType("ComponentId", str)
PlayerId = NewType("PlayerId", str)

#: A cell of a geometry: grid coordinates ``(x, y)`` or a named space such as ``"P7"``.
Cell = tuple[int, int] | str

STATE_FORMAT = 1


class ScoringError(ValueError):
    """Base of every error the rules engine raises on bad input."""


class CatalogError(ScoringError):
    """A catalog data file is malformed or inconsistent (names the file and the entry)."""


class StateError(ScoringError):
    """A board state is malformed or inconsistent (names the offending entry)."""

    def __init__(
        self, message: str, *, placement: int | None = None, component: str | None = None, reason: str | None = None
    ) -> None:
        super().__init__(message)
        self.placement = placement
        """Index in the state's ``placements`` of the placement refused, when one is to blame."""
        self.component = component
        """The component of that placement (its catalog id), when one is to blame."""
        self.reason = message if reason is None else reason
        """Why, in words a player reads without the state file: no index, no ids (``scoring.words``
        puts the component's name in front of it)."""


class UnknownGameError(ScoringError):
    """No supported game has that id."""


class Shape(enum.Enum):
    """Outline of a printed component; decides how it is cut."""

    RECT = "rect"
    ROUND = "round"
    HEX = "hex"


@dataclass(frozen=True, slots=True)
class Anchor:
    """A fiducial tag printed on a board so the scanner can locate the board's spaces."""

    tag: int
    x_mm: float
    """Centre of the tag, from the board's top-left corner, in millimetres."""
    y_mm: float
    size_mm: float


@dataclass(frozen=True, slots=True)
class Space:
    """A named place on a board face (a planet space, a jungle cell, a tile slot)."""

    name: str
    x_mm: float
    """Centre of the space, from the board's top-left corner, in millimetres."""
    y_mm: float
    w_mm: float
    h_mm: float
    shape: Shape = Shape.RECT
    """Outline printed on the board: a hex slot is a flat-top hexagon ``w_mm`` across corners."""


@dataclass(frozen=True, slots=True)
class Component:
    """One physical thing of a game, as the printer draws it and the scanner reads it.

    Each game's rich catalog entries (tiles with roads, cards with diets, ...) are
    summarised into this common shape so printables and vision need no game rules.
    """

    id: ComponentId
    kind: str
    """The game's own word: ``tile``, ``card``, ``token``, ``board``, ``entrance``..."""
    name: str
    tag: int
    """AprilTag 36h11 id within the game's edition."""
    size_mm: tuple[float, float]
    """Printed face width and height in millimetres."""
    shape: Shape = Shape.RECT
    colour: str = "#ffffff"
    """Background colour of the face as ``#rrggbb`` (colour coding for players)."""
    lines: tuple[str, ...] = ()
    """Text a player needs without the scanner: points, requirements, effects."""
    back: str | None = None
    """Text printed on the back, for components that can lie face down."""
    anchors: tuple[Anchor, ...] = ()
    spaces: tuple[Space, ...] = ()
    edition_data: bool = False
    """True where the data is this edition's design, not a fact from the rulebook."""


@dataclass(frozen=True, slots=True)
class Player:
    """A seat at the table."""

    id: PlayerId
    """Stable id used in areas (``park:red``) and score sheets; usually the colour."""
    name: str
    colour: str = ""
    seat: int = 0


@dataclass(frozen=True, slots=True)
class Placement:
    """One component at one place of the game's geometry."""

    component: ComponentId
    area: str
    """Where on the table, e.g. ``park:red``, ``market``, ``planet:p1``, ``jungle:p2``."""
    cell: Cell | None = None
    rotation: int = 0
    """Clockwise steps from the printed upright: quarter turns for square components."""
    face_up: bool = True
    on: ComponentId | None = None
    """The component this one lies on (a token on a tile, a card stacked on its prey)."""
    slot: int | None = None
    """Slot number on the component it lies on (token slots of a tile)."""


@dataclass(frozen=True, slots=True)
class AreaId:
    """An area name split at its first colon: ``park:red`` is kind ``park``, owner ``red``
    (a player id, a platform or zone number); ``market`` has no owner."""

    kind: str
    owner: str | None = None
    """None when the name has no colon; ``""`` for a name ending in one (which no game accepts)."""

    def __str__(self) -> str:
        return self.kind if self.owner is None else f"{self.kind}:{self.owner}"


def parse_area(area: str) -> AreaId:
    """The one reading of an area name every game and room shares (total: games judge the parts)."""
    kind, sep, owner = area.partition(":")
    return AreaId(kind, owner if sep else None)


@dataclass(frozen=True, slots=True)
class UnknownPlace:
    """A place where the scanner saw a component it could not read: scoring never guesses it."""

    area: str
    cell: Cell | None = None
    on: ComponentId | None = None
    """The component the unread one lies on (a token on a tile), when known."""
    slot: int | None = None


@dataclass(frozen=True, slots=True)
class PlacementAt:
    """Which entry of a state's ``placements`` a check is about: names it in messages and
    carries its index in the StateError it raises."""

    index: int
    component: str

    def __str__(self) -> str:
        return f"placements[{self.index}] ({self.component})"

    def refused(self, problem: str, *, said: str | None = None) -> StateError:
        """The error refusing this placement, for ``raise``; ``said`` is the problem in players'
        words where ``problem`` names ids or other entries of the file."""
        return StateError(f"{self}: {problem}", placement=self.index, component=self.component, reason=said or problem)


@dataclass(frozen=True, slots=True)
class BoardState:
    """Every visible component at one moment, plus players and options."""

    game: str
    players: tuple[Player, ...]
    placements: tuple[Placement, ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    extras: Mapping[str, Any] = field(default_factory=dict)
    """Facts a placement cannot express (yearly goal results, turn counters...)."""
    unknown: tuple[UnknownPlace, ...] = ()
    """Places the scanner saw something it could not read; scoring refuses to guess them."""

    def player(self, player_id: str) -> Player:
        for p in self.players:
            if p.id == player_id:
                return p
        raise StateError(f"no player {player_id!r} in this state")

    def in_area(self, area: str) -> tuple[Placement, ...]:
        return tuple(p for p in self.placements if p.area == area)

    def placement_of(self, component: str) -> Placement | None:
        for p in self.placements:
            if p.component == component:
                return p
        return None


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken rule of a move, in words a player understands."""

    code: str
    """Stable code such as ``park/road_blocked``."""
    message: str
    cells: tuple[Cell, ...] = ()
    area: str | None = None
    components: tuple[ComponentId, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "message": self.message,
            "area": self.area,
            "cells": [list(c) if isinstance(c, tuple) else c for c in self.cells],
            "components": list(self.components),
        }


@dataclass(frozen=True, slots=True)
class ScoreLine:
    """One scoring rule's contribution for one player, with the reason."""

    rule: str
    points: int
    evidence: str
    components: tuple[ComponentId, ...] = ()
    """What earned the points, by catalog id: the component the line is about first (the card,
    tile or token that scored), then those it scored by (its prey, the tile it lies on, what it
    sees). Readers take components from here, never from ``evidence``, which is words."""
    collective: bool = False
    """True when the line adds up every component listed (all locked tiles, the tokens matching
    the Moon) instead of scoring the first one: ``evidence`` then opens with its subject in words."""

    @property
    def subject(self) -> ComponentId | None:
        """The component the line is about, when it is about one."""
        return self.components[0] if self.components and not self.collective else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "points": self.points,
            "evidence": self.evidence,
            "components": list(self.components),
            "collective": self.collective,
        }


@dataclass(frozen=True, slots=True)
class PlayerScore:
    player: PlayerId
    lines: tuple[ScoreLine, ...]

    @property
    def total(self) -> int:
        return sum(line.points for line in self.lines)

    def by_rule(self) -> dict[str, int]:
        """Points summed per rule key (several lines may share a key)."""
        out: dict[str, int] = {}
        for line in self.lines:
            out[line.rule] = out.get(line.rule, 0) + line.points
        return out


@dataclass(frozen=True, slots=True)
class Standing:
    player: PlayerId
    rank: int
    """1 is first; tied players share a rank."""
    total: int


@dataclass(frozen=True, slots=True)
class ScoreSheet:
    """Per player, per rule points with evidence; ranking, winners and the deciding tie-break."""

    game: str
    scores: tuple[PlayerScore, ...]
    ranking: tuple[Standing, ...]
    winners: tuple[PlayerId, ...]
    tie_break: str | None = None
    """How a tie on total was decided, in words; None when no tie-break was needed."""
    notes: tuple[str, ...] = ()

    def score_of(self, player: str) -> PlayerScore:
        for s in self.scores:
            if s.player == player:
                return s
        raise KeyError(player)

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "players": [
                {
                    "player": s.player,
                    "total": s.total,
                    "lines": [line.to_dict() for line in s.lines],
                }
                for s in self.scores
            ],
            "ranking": [
                {"player": st.player, "rank": st.rank, "total": st.total} for st in self.ranking
            ],
            "winners": list(self.winners),
            "tie_break": self.tie_break,
            "notes": list(self.notes),
        }


@dataclass(frozen=True, slots=True)
class TieBreak:
    """One key of a game's ordered tie-break list: higher values rank first unless ``lower_wins``."""

    name: str
    values: Mapping[str, Any]
    lower_wins: bool = False


def rank_players(
    totals: Mapping[str, int], tie_breaks: Sequence[TieBreak] = ()
) -> tuple[tuple[Standing, ...], tuple[PlayerId, ...], str | None]:
    """Rank by total, then each tie-break in order; players still equal share a rank.

    Returns the standings, the winners and the name of the tie-break that decided the
    winner (None when the total alone decided or nothing could split the tie).
    """

    def key(pid: str) -> tuple[Any, ...]:
        parts: list[Any] = [-totals[pid]]
        for tb in tie_breaks:
            v = tb.values[pid]
            parts.append(v if tb.lower_wins else _negate(v))
        return tuple(parts)

    order = sorted(totals, key=key)
    standings: list[Standing] = []
    for i, pid in enumerate(order):
        if i and key(order[i - 1]) == key(pid):
            rank = standings[-1].rank
        else:
            rank = i + 1
        standings.append(Standing(PlayerId(pid), rank, totals[pid]))
    winners = tuple(s.player for s in standings if s.rank == 1)
    decided: str | None = None
    best = max(totals.values()) if totals else 0
    tied_on_total = [p for p in totals if totals[p] == best]
    if len(tied_on_total) > 1:
        if len(winners) == 1:
            for depth, tb in enumerate(tie_breaks):
                vals = {p: key(p)[: depth + 2] for p in tied_on_total}
                if sum(1 for v in vals.values() if v == min(vals.values())) == 1:
                    decided = tb.name
                    break
        else:
            decided = "shared victory: still tied after every tie-break"
    return tuple(standings), winners, decided


def _negate(v: Any) -> Any:
    if isinstance(v, (tuple, list)):
        return tuple(_negate(x) for x in v)
    return -v


def build_sheet(
    game: str,
    lines: Mapping[str, Iterable[ScoreLine]],
    tie_breaks: Sequence[TieBreak] = (),
    notes: Iterable[str] = (),
) -> ScoreSheet:
    """Assemble a score sheet from per-player lines, ranking with the game's tie-breaks."""
    scores = tuple(PlayerScore(PlayerId(p), tuple(ls)) for p, ls in lines.items())
    totals = {s.player: s.total for s in scores}
    standings, winners, decided = rank_players(totals, tie_breaks)
    return ScoreSheet(game, scores, standings, winners, decided, tuple(notes))


@dataclass(frozen=True, slots=True)
class Option:
    """A house rule a table may switch, with the rulebook's words for what it changes."""

    name: str
    default: bool | int | str
    """Its value when a state names none; a state's value must have the same type."""
    rulebook: str
    """What the rulebook says, and what the option changes, in words a player reads."""
    choices: tuple[str, ...] = ()
    """For a text option, every value it may take."""

    @property
    def type(self) -> type:
        return type(self.default)


@dataclass(frozen=True, slots=True)
class GameInfo:
    """What a game declares once, for every room: the rules engine, the scanner, the printer
    and the app all find a game and its facts here, never in a table of their own."""

    id: str
    """Lower-case id: the package ``scoring/<id>``, its data ``scoring/data/<id>`` and its
    table layout ``vision/layouts/<id>``."""
    name: str
    """The name printed on the box."""
    qr_prefix: str
    """The two letters that open every QR payload of the game (``HA1/T042*E``)."""
    bgg_id: int | None = None
    """BoardGameGeek's id of the game, for score-logging apps (None where not known)."""
    options: tuple[Option, ...] = ()

    def option(self, name: str) -> Option | None:
        return next((o for o in self.options if o.name == name), None)

    def defaults(self) -> dict[str, Any]:
        """Option name -> default: what a state without ``options`` plays with."""
        return {o.name: o.default for o in self.options}


@runtime_checkable
class Game(Protocol):
    """The surface every supported game exposes; callers never need to know which game."""

    info: GameInfo

    @property
    def id(self) -> str: ...

    @property
    def name(self) -> str: ...

    def components(self) -> tuple[Component, ...]:
        """Every physical component of the edition, for printing and scanning."""

    def load_state(self, data: Mapping[str, Any]) -> BoardState:
        """Parse and validate a state document; raise StateError naming the bad entry."""

    def violations(self, before: BoardState, after: BoardState) -> tuple[Violation, ...]:
        """Every rule the move from ``before`` to ``after`` breaks (empty when legal)."""

    def score_sheet(self, state: BoardState) -> ScoreSheet:
        """The end-of-game (or current) score sheet with evidence per line."""

    def example_state(self) -> Mapping[str, Any]:
        """A complete documented example state (the README demo and docs use it)."""


GameFactory = Callable[[], Game]
