"""What every layout shares: the view it reads, what it returns, and how a game plugs in."""

from __future__ import annotations

import importlib
import importlib.util
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np

from scoring.model import BoardState, Component, Placement, Player, UnknownPlace
from scoring.registry import game_ids

from ..detect import MarkerKind
from ..errors import LayoutError
from ..identify import FaceDown
from ..plane import apply_homography
from ..problems import Problem


def wrap_degrees(angle: float) -> float:
    """An angle in (-180, 180]."""
    a = math.fmod(angle, 360.0)
    if a <= -180.0:
        a += 360.0
    elif a > 180.0:
        a -= 360.0
    return a


@dataclass(frozen=True, slots=True, eq=False)
class Located:
    """One identified component with its pose on the table plane."""

    component: Component
    payload: str
    """Canonical QR payload text of the component."""
    face_to_table: np.ndarray
    """3x3 rigid transform from upright face millimetres to table millimetres."""
    image_outline: np.ndarray
    """(4, 2) the face's corners in image pixels, clockwise from the face's top-left."""
    source: str
    """Which markers located it: ``tag``, ``qr``, ``qr+tag``, ``anchor+tag``..."""
    residual_mm: float = 0.0
    """How far its markers sit from their printed shape on the fitted plane."""
    _from_table: np.ndarray | None = field(default=None, init=False, repr=False)
    """The inverse pose, kept once asked for: layouts map many table points onto a face."""
    _pose_bytes: bytes | None = field(default=None, init=False, repr=False)
    """The pose's bytes, kept once asked for: the key of the layouts' cached pose maps."""

    @property
    def centre_mm(self) -> tuple[float, float]:
        w, h = self.component.size_mm
        (m00, m01, m02), (m10, m11, m12) = self.face_to_table[:2].tolist()  # plain floats: asked for often
        return float(m00 * w / 2 + m01 * h / 2 + m02), float(m10 * w / 2 + m11 * h / 2 + m12)

    @property
    def angle_deg(self) -> float:
        """Clockwise angle of the face's x axis from the table's x axis (y points down)."""
        return wrap_degrees(math.degrees(math.atan2(self.face_to_table[1, 0], self.face_to_table[0, 0])))

    @property
    def image_centre(self) -> tuple[float, float]:
        c = self.image_outline.mean(axis=0)
        return (float(c[0]), float(c[1]))

    def face_point(self, x_mm: float, y_mm: float) -> np.ndarray:
        """A point of the upright face, in table millimetres."""
        return apply_homography(self.face_to_table, np.array([[x_mm, y_mm]]))[0]

    def to_face(self, table_xy: np.ndarray) -> np.ndarray:
        """Table millimetres -> this component's upright face millimetres."""
        inverse = self._from_table
        if inverse is None:
            inverse = np.linalg.inv(self.face_to_table)
            object.__setattr__(self, "_from_table", inverse)  # a cache of the fixed pose, not a change
        return apply_homography(inverse, np.asarray(table_xy, float))

    def turns_from(self, reference_deg: float) -> tuple[int, float]:
        """Clockwise quarter turns relative to a reference angle, and the error in degrees."""
        rel = wrap_degrees(self.angle_deg - reference_deg)
        q = round(rel / 90.0)
        return q % 4, abs(rel - 90.0 * q)


@dataclass(frozen=True, slots=True, eq=False)
class Unreadable:
    """Something marker-shaped that did not decode (reported, never guessed)."""

    kind: MarkerKind
    image_corners: np.ndarray
    centre_mm: tuple[float, float] | None
    reason: str

    @property
    def image_centre(self) -> tuple[float, float]:
        c = self.image_corners.mean(axis=0)
        return (float(c[0]), float(c[1]))


@dataclass(frozen=True, slots=True, eq=False)
class TableView:
    """Everything a layout may use: positioned components, unread markers, players and options."""

    game: str
    located: tuple[Located, ...]
    unreadable: tuple[Unreadable, ...] = ()
    players: tuple[Player, ...] | None = None
    """Seats given by the caller; None lets the layout infer them (from entrances, HOME cards)."""
    options: Mapping[str, Any] = field(default_factory=dict)
    texture: Callable[[np.ndarray], float] | None = None
    """How busy the photo is inside a table polygon (mm): printed faces are, bare table is not.
    Lets a layout notice a component whose markers could not be read at all."""
    face_down: tuple[FaceDown, ...] = ()
    """Backs seen (their kind's back tag), with their table centre when the plane is known:
    a layout may report where they lie, never which component they are."""
    outline: Callable[[np.ndarray], tuple[float, ...]] | None = None
    """How sharply the photo steps in colour across each side of a table rectangle (see
    ``outline_probe``): a face lying there has its outline, a sheet of notes beside the grid not."""

    def of_kind(self, *kinds: str) -> tuple[Located, ...]:
        return tuple(c for c in self.located if c.component.kind in kinds)


@dataclass(frozen=True, slots=True)
class LookAgain:
    """A place where a layout sees a face it could not read (an unknown cell, a busy spot on a
    board): the scanner reads the tags of faces of this size there once more, whole."""

    centre_mm: tuple[float, float]
    """Table millimetres of the place's centre (where such a face's centre would lie)."""
    face_mm: tuple[float, float]
    """Size of the faces that may lie there (their printed tags are looked for)."""
    reach_mm: float = 0.0
    """How far from ``centre_mm`` the face's centre may lie (a token anywhere on a board)."""
    angle_deg: float | None = None
    """The face's turn when the layout knows it up to quarter turns (a card in a grid lies
    square to it): only squares about that turn are searched. None: any turn."""
    tag_mm: tuple[float, float] | None = None
    """Where the face's tag would lie, when the layout knows the face's pose but for
    ``reach_mm`` (a card fanned a step below another shows its top corner there): only
    within ``reach_mm`` of it is searched, not the whole face."""
    kinds: tuple[str, ...] | None = None
    """The kinds of component (the catalog's word) that may lie there, when the layout knows
    (a PHYLO grid cell holds a species or HOME card, never an event): only their tags are
    searched for. None: every face of this size."""


@dataclass(frozen=True, slots=True, eq=False)
class Placed:
    """A placement the layout derived, with the located component it came from."""

    placement: Placement
    located: Located


@dataclass(frozen=True, slots=True, eq=False)
class LayoutResult:
    """A layout's reading of the table."""

    players: tuple[Player, ...]
    placed: tuple[Placed, ...]
    unknown: tuple[UnknownPlace, ...] = ()
    problems: tuple[Problem, ...] = ()
    confidence: float = 1.0
    """0..1: how sure the layout is of its grids (1 when every component sits squarely in a cell)."""
    options: Mapping[str, Any] = field(default_factory=dict)
    extras: Mapping[str, Any] = field(default_factory=dict)
    look_again: tuple[LookAgain, ...] = ()
    """Where the scanner should read once more (see LookAgain); not part of the board state."""

    def state(self, game: str) -> BoardState:
        return BoardState(
            game,
            self.players,
            tuple(p.placement for p in self.placed),
            dict(self.options),
            dict(self.extras),
            self.unknown,
        )


@dataclass(eq=False)
class Draft:
    """A layout's reading while it is being built, shared by the steps of its ``read``: what
    it placed, the places it could not read, its problems and how well faces sat in cells."""

    placed: list[Placed] = field(default_factory=list)
    unknown: list[UnknownPlace] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    fits: list[float] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class TablePose:
    """Where a component lies on the table: centre (mm) and clockwise angle (degrees)."""

    x_mm: float
    y_mm: float
    angle_deg: float = 0.0


@dataclass(frozen=True, slots=True)
class GameLayout:
    """A game's geometry for the scanner (read) and for the scene renderer (arrange)."""

    game: str
    read: Callable[[TableView], LayoutResult]
    arrange: Callable[[BoardState], Mapping[str, TablePose]]
    """Table pose of every placed component of a state (a realistic arrangement)."""
    square_neighbours: bool = False
    """Whether a face beside another lies square to it: faces laid edge to edge in a grid (a
    park, a card grid), or cards fanned into a food chain, parallel one under another. An
    unread neighbour is then searched in that turn only (give or take 15 degrees)."""
    neighbour_kinds: tuple[str, ...] | None = None
    """The kinds of face whose neighbours lie one face away (tiles of a park or a market, cards
    of a grid): only beside a loose one of these is an unread neighbour searched. A piece
    standing in a cell (a Habitats figure, 30 mm in a 50 mm market cell) has none one figure
    away. None: every kind."""
    outlines: bool = False
    """Whether the layout checks a face's outline (``face_outlined``) before it reports an
    unread one. The outline decides only how a place is reported (unknown, or only looked at
    again), never whether it is looked at again: the scanner may measure outlines on its last
    reading only, and not for the places its later looks read."""


@cache
def find_layout(game_id: str) -> GameLayout:
    """A registered game's layout: the module ``vision/layouts/<id>`` and its ``LAYOUT`` (found
    by the game's id, never by a table of games here); LayoutError when it has none."""
    if game_id not in game_ids():
        raise LayoutError(f"no table layout for {game_id!r}; layouts exist for {', '.join(layout_games())}")
    module_name = f"{__package__}.{game_id}"
    if importlib.util.find_spec(module_name) is None:
        raise LayoutError(f"no table layout for {game_id!r}; layouts exist for {', '.join(layout_games())}")
    layout = importlib.import_module(module_name).LAYOUT
    if not isinstance(layout, GameLayout) or layout.game != game_id:
        raise LayoutError(f"{module_name}.LAYOUT is not the GameLayout of {game_id!r}")
    return layout


def layout_games() -> tuple[str, ...]:
    """The registered games with a table layout module."""
    return tuple(g for g in game_ids() if importlib.util.find_spec(f"{__package__}.{g}") is not None)
