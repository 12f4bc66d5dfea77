"""Stage 6: one frame -> one Recognition (board state, problems, confidence, timings).

A messy table is normal input: foreign codes, duplicates, unreadable markers, a hand
over the board and an empty table all end up in the result, never in an exception.
Only input that is not an image (ImageError) or an unknown game is refused.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import cv2
import numpy as np

from scoring import find_game
from scoring.model import BoardState, Cell, Component, Placement, Player, ScoringError, Space, StateError, UnknownPlace
from scoring.state import cell_to_json, state_to_json

from .detect import Candidate, DetectConfig, Detection, MarkerKind, detect_all
from .errors import VisionError
from .identify import (
    WEIGHTS,
    Catalog,
    Disagreement,
    Duplicate,
    FaceDown,
    Foreign,
    Identified,
    Mark,
    Sighting,
    catalog_for,
    identify,
    on_table,
)
from .layouts import (
    LayoutResult,
    Located,
    LookAgain,
    OutlineProbe,
    Placed,
    Problem,
    TableView,
    Unreadable,
    find_layout,
    outline_probe,
)
from .layouts.anchored import table_squares
from .load import MAX_PIXELS, Frame, frame_from_array, load_image
from .plane import Plane, RigidGroup, apply_homographies, apply_homography, extended, fit_plane, rigid_fits
from .problems import ProblemCode
from .rescue import rescue_tags
from .soft import SAME_SIZE, Site, SoftConfig, distinct_sizes, read_sites, tag_pools


@dataclass(frozen=True, slots=True)
class RecogniseConfig:
    """Tunables of the whole pipeline, with the defaults the benchmark measured."""

    detect: DetectConfig = DetectConfig()
    max_pixels: int = MAX_PIXELS
    outlier_mm: float = 2.0
    """A component whose markers sit further than this from their printed shape is off the plane."""
    curl_mm: float = 3.5
    """...but within this, its markers are valid and it lies on the table: a curled or bent card
    or tile (its markers no longer in one plane). It is placed, and left out of the plane fit."""
    rescue: bool = True
    """Give undecoded tag-sized quads a second look against this game's unseen tags."""
    unreadable_size_tolerance: float = 0.3
    """An undecoded quad counts as an unreadable tag when its side is within this fraction of a printed tag."""
    unreadable_face_tolerance: float = 0.08
    """An undecoded quad counts as an unread component when it is a rectangle whose sides are
    within this fraction of a read component's face beside it (blur can merge a whole tile or
    card, markers and all, into one quad: the component is then shown as unread, not missed)."""
    soft: SoftConfig | None = SoftConfig()
    """Read blurred tags whole at undecoded quads and at free spaces of located boards; None skips it."""
    soft_quad_growth: tuple[float, float] = (0.7, 1.8)
    """An undecoded quad may be a tag of printed side s when its own side is within these
    multiples of s (blur makes quads larger: the quiet zone alone is 1.25 s, and a tag blurred
    into its surroundings leaves a ragged quad up to 1.8 s)."""
    soft_space_ratio: float = 1.25
    """A component may lie on a space when its face is at most this times the space's size."""
    soft_face_tolerance: float = 0.12
    """An undecoded rectangle within this fraction of a card's, tile's or token's face is
    searched for that face's tag (only searched: wider than ``unreadable_face_tolerance``, as
    blur grows or shrinks a side by a few millimetres)."""
    neighbour_rounds: int = 3
    """After the third look, how many more times the places beside components read but still
    not placed are searched (each round only beside the ones read in the round before)."""


@dataclass(frozen=True, slots=True, eq=False)
class RecognisedComponent:
    """One component as the scanner read it."""

    located: Located
    placement: Placement | None
    """None when the layout could not give it a place (off every grid)."""

    @property
    def id(self) -> str:
        return self.located.component.id

    @property
    def payload(self) -> str:
        """The canonical QR payload text, as printed, whichever marker was read."""
        return self.located.payload

    @property
    def kind(self) -> str:
        return self.located.component.kind

    @property
    def area(self) -> str | None:
        return self.placement.area if self.placement else None

    @property
    def cell(self) -> Cell | None:
        return self.placement.cell if self.placement else None

    @property
    def rotation(self) -> int | None:
        return self.placement.rotation if self.placement else None

    @property
    def image_corners(self) -> np.ndarray:
        """(4, 2) the face's corners in image pixels, clockwise from its top-left."""
        return self.located.image_outline

    @property
    def image_centre(self) -> tuple[float, float]:
        return self.located.image_centre

    @property
    def centre_mm(self) -> tuple[float, float]:
        """Centre on the table plane, in millimetres."""
        return self.located.centre_mm

    def to_dict(self) -> dict[str, Any]:
        loc, p = self.located, self.placement
        return {
            "component": self.id,
            "payload": self.payload,
            "kind": loc.component.kind,
            "area": p.area if p else None,
            "cell": cell_to_json(p.cell) if p else None,
            "rotation": p.rotation if p else None,
            "on": p.on if p else None,
            "slot": p.slot if p else None,
            "read_by": loc.source,
            "centre_mm": [round(v, 1) for v in loc.centre_mm],
            "angle_deg": round(loc.angle_deg, 1),
            "image_centre": [round(v, 1) for v in loc.image_centre],
            "image_corners": _points(loc.image_outline),
        }


def _points(a: np.ndarray) -> list[list[float]]:
    return [[round(float(x), 1), round(float(y), 1)] for x, y in np.asarray(a).reshape(-1, 2)]


@dataclass(frozen=True, slots=True, eq=False)
class Recognition:
    """Everything one frame told us about the table."""

    game: str
    state: BoardState
    components: tuple[RecognisedComponent, ...]
    unreadable: tuple[Unreadable, ...]
    foreign: tuple[Foreign, ...]
    duplicated: tuple[Duplicate, ...]
    disagreements: tuple[Disagreement, ...]
    problems: tuple[Problem, ...]
    confidence: float
    """0..1: the layout's confidence, lowered by a poor plane fit; 0 for an empty table."""
    timings: Mapping[str, float] = field(default_factory=dict)
    """Milliseconds per stage: load, detect, identify, plane, layout, total."""
    plane_rms_mm: float | None = None
    image_size: tuple[int, int] = (0, 0)
    face_down: tuple[FaceDown, ...] = ()
    """Back tags seen: face-down components by kind and place, never which component."""

    def component(self, component_id: str) -> RecognisedComponent | None:
        for c in self.components:
            if c.id == component_id:
                return c
        return None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the state, every component with its payload, and every problem with a position."""
        return {
            "game": self.game,
            "image_size": list(self.image_size),
            "state": state_to_json(self.state),
            "components": [c.to_dict() for c in self.components],
            "unreadable": [
                {
                    "kind": u.kind.value,
                    "reason": u.reason,
                    "image_centre": [round(v, 1) for v in u.image_centre],
                    "image_corners": _points(u.image_corners),
                    "centre_mm": [round(v, 1) for v in u.centre_mm] if u.centre_mm else None,
                }
                for u in self.unreadable
            ],
            "foreign": [
                {
                    "text": f.text,
                    "reason": f.reason,
                    "kind": f.detection.kind.value,
                    "image_centre": [round(float(v), 1) for v in f.detection.centre],
                    "image_corners": _points(f.detection.corners),
                }
                for f in self.foreign
            ],
            "duplicated": [
                {
                    "component": d.component,
                    "payload": d.sightings[0].payload,
                    "image_centres": [[round(float(v), 1) for v in s.image_centre()] for s in d.sightings],
                }
                for d in self.duplicated
            ],
            "disagreements": [
                {
                    "components": list(d.components),
                    "message": d.message,
                    "image_centres": [[round(float(v), 1) for v in x.centre] for x in d.detections],
                }
                for d in self.disagreements
            ],
            "face_down": [
                {
                    "kind": f.kind,
                    "label": f.label,
                    "image_centre": [round(v, 1) for v in f.image_centre],
                    "image_corners": _points(f.image_corners),
                    "centre_mm": [round(v, 1) for v in f.centre_mm] if f.centre_mm else None,
                }
                for f in self.face_down
            ],
            "problems": [p.to_dict() for p in self.problems],
            "confidence": round(self.confidence, 3),
            "plane_rms_mm": None if self.plane_rms_mm is None else round(self.plane_rms_mm, 2),
            "timings_ms": {k: round(v, 1) for k, v in self.timings.items()},
        }


def _groups(sightings: Sequence[Sighting]) -> list[RigidGroup]:
    out = []
    for s in sightings:
        if len(s.detections) == 1:  # most components: one marker, its corners as they are (read only)
            img, local = s.detections[0].corners, s.marks[0]._corners
        else:
            img = np.vstack([d.corners for d in s.detections])
            local = np.vstack([m._corners for m in s.marks])
        weight = min(WEIGHTS[d.kind] for d in s.detections)
        out.append(RigidGroup(img, local, weight))
    return out


def _locate_all(sightings: Sequence[Sighting], plane: Plane, residuals: Sequence[float]) -> list[Located]:
    """Each sighting's face on the table: the rigid placement of its printed marker corners
    that best fits their table positions (closed form, every sighting at once: this runs on
    every frame for every component)."""
    if not sightings:
        return []
    img = np.vstack([d.corners for s in sightings for d in s.detections])
    local = np.vstack([m.face_corners() for s in sightings for m in s.marks])
    group = np.repeat(np.arange(len(sightings)), [4 * len(s.detections) for s in sightings])
    poses = rigid_fits(local, plane.to_table(img), group)
    # Every face's outline in the image, through its own face-to-image map, all at once.
    size = np.array([s.component.size_mm for s in sightings], float)
    corners = np.zeros((len(sightings), 4, 2))
    corners[:, [1, 2], 0] = size[:, :1]
    corners[:, [2, 3], 1] = size[:, 1:]
    outlines = apply_homographies(np.stack([s.face_to_image for s in sightings]), corners)
    return [Located(s.component, s.payload, pose, outline, s.source, float(r))
            for s, pose, outline, r in zip(sightings, poses, outlines, residuals)]


def _unreadable(
    candidates: Sequence[Candidate],
    plane: Plane | None,
    located: Sequence[Located],
    markers: Sequence[Detection],
    tag_sizes: Sequence[float],
    tolerance: float,
    catalog: Catalog | None = None,
    face_tolerance: float = 0.0,
) -> list[Unreadable]:
    """Undecoded quads of a printed tag's size, or (with ``face_tolerance``) of the whole face
    of a read component beside them, that lie on no located face and no decoded marker."""
    if plane is None or not tag_sizes or not candidates:
        return []
    lo, hi = min(tag_sizes) * (1 - tolerance), max(tag_sizes) * (1 + tolerance)
    img = np.stack([c.corners for c in candidates])  # (n, 4, 2)
    pts = plane.to_table(img.reshape(-1, 2)).reshape(-1, 4, 2)
    sides, d1, d2 = _quad_measures(pts)
    is_tag = np.array([c.kind is MarkerKind.TAG for c in candidates])
    square_ok = (sides.min(axis=1) >= lo) & (sides.max(axis=1) <= hi) & (np.abs(d1 - d2) <= 0.15 * np.maximum(d1, d2))
    square_ok &= ~np.array([c.is_inverted for c in candidates])  # a pale square on a dark ground
    face_ok = is_tag & _unread_faces(pts, sides, d1, d2, located, face_tolerance)
    keep = ~is_tag | square_ok | face_ok
    centres = pts.mean(axis=1)
    side_mean = sides.mean(axis=1)
    img_centres = img.mean(axis=1)
    if markers:
        dec = np.array([d.centre for d in markers])
        reach = 0.5 * np.linalg.norm(img[:, 0] - img[:, 2], axis=1)
        near = np.linalg.norm(img_centres[:, None] - dec[None], axis=2).min(axis=1) < np.maximum(reach, 4.0)
        keep &= ~near
    if located:
        size = np.array([loc.component.size_mm for loc in located])
        face = _on_faces(located, centres).transpose(1, 0, 2)  # (n, m, 2)
        inside = ((face >= -2) & (face <= size[None] + 2)).all(axis=2)  # (n, m)
        # A face with printed spaces (a board, a tile with slots) holds other components: a quad
        # on one of its spaces (and not on the face's own markers) lies on top and is reported.
        explained = np.zeros(len(candidates), bool)
        for j in np.flatnonzero(inside.any(axis=0)).tolist():  # the faces with quads on them (most have none)
            loc, rows = located[j], np.flatnonzero(inside[:, j])
            if not loc.component.spaces or catalog is None:
                explained[rows] = True
                continue
            fx, fy = face[rows, j, 0:1], face[rows, j, 1:2]  # (r, 1) against every space at once
            xy, half, span = _space_table(loc.component)
            here = (np.abs(fx - xy[:, 0]) <= half[:, 0] + 3) & (np.abs(fy - xy[:, 1]) <= half[:, 1] + 3)
            # The space's own printed outline, seen as a quad: the board, not a marker on it.
            outline = (np.abs(side_mean[rows, None] - span) <= 0.15 * span) & (np.hypot(fx - xy[:, 0], fy - xy[:, 1]) <= 0.15 * span)
            on_space = (here & ~outline).any(axis=1)
            for mark in _own_marks(catalog, loc.component):
                on_mark = (fx[:, 0] >= mark.x_mm - 3) & (fx[:, 0] <= mark.x_mm + mark.size_mm + 3)
                on_mark &= (fy[:, 0] >= mark.y_mm - 3) & (fy[:, 0] <= mark.y_mm + mark.size_mm + 3)
                on_space &= ~on_mark
            explained[rows] |= ~on_space
        # A face-sized quad on a located face is a printed space or panel of it: the layouts
        # look at spaces themselves (a face on one shows as busy, not as an outline).
        keep &= ~explained & ~(face_ok & inside.any(axis=1))
    out: list[Unreadable] = []
    kept: list[np.ndarray] = []
    faces: list[np.ndarray] = []
    # Whole faces first: a marker quad inside an unread face is that same component.
    for i in sorted(np.nonzero(keep)[0], key=lambda i: not face_ok[i]):
        centre = centres[i]
        if any(np.linalg.norm(centre - k) < 10 for k in kept):
            continue
        if not face_ok[i] and any(cv2.pointPolygonTest(f, (float(centre[0]), float(centre[1])), False) >= 0 for f in faces):
            continue
        kept.append(centre)
        cand = candidates[i]
        if face_ok[i]:
            faces.append(pts[i].astype(np.float32))
            reason = "a component whose markers did not decode"
        elif cand.kind is MarkerKind.TAG:
            reason = "a tag that did not decode"
        else:
            reason = "a QR code that did not decode"
        out.append(Unreadable(cand.kind, cand.corners, (float(centre[0]), float(centre[1])), reason))
    return out


#: A face-shaped quad counts as an unread component only this many long sides of a face
#: from a read component of the same size (a lone one is more often a note or a phone) ...
_FACE_BESIDE = 1.6
#: ... and turned at most this many degrees off it (modulo quarter turns).
_FACE_SQUARE_DEG = 12.0


def _unread_faces(
    pts: np.ndarray, sides: np.ndarray, d1: np.ndarray, d2: np.ndarray, located: Sequence[Located], tolerance: float
) -> np.ndarray:
    """Which quads (table corners (n, 4, 2), their sides and diagonals) outline a face like a
    read card's, tile's or token's lying beside it: a rectangle (opposite sides alike,
    diagonals alike) whose sides are within ``tolerance`` of that component's, at most
    ``_FACE_BESIDE`` of its long sides away and square to it."""
    located = [loc for loc in located if not loc.component.spaces]  # cards, tiles, tokens: not boards
    if tolerance <= 0 or not located or not len(pts):
        return np.zeros(len(pts), bool)
    size = np.array([(min(loc.component.size_mm), max(loc.component.size_mm)) for loc in located])  # (m, 2)
    rectangle, short, long = _rectangles(pts, sides, d1, d2, tolerance)
    short, long = short[:, None], long[:, None]
    with np.errstate(invalid="ignore"):
        alike = (np.abs(short - size[None, :, 0]) <= tolerance * size[None, :, 0]) & (np.abs(long - size[None, :, 1]) <= tolerance * size[None, :, 1])
        gap = np.linalg.norm(pts.mean(axis=1)[:, None] - np.array([loc.centre_mm for loc in located])[None], axis=2)
        # Laid square to it (players line faces up; a note or a phone lies at any angle).
        edge = pts[:, 1] - pts[:, 0]
        turn = np.degrees(np.arctan2(edge[:, 1], edge[:, 0]))[:, None] - np.array([loc.angle_deg for loc in located])[None]
        square = np.abs((turn + 45.0) % 90.0 - 45.0) <= _FACE_SQUARE_DEG
        return rectangle & (alike & square & (gap <= _FACE_BESIDE * size[None, :, 1])).any(axis=1)


def _quad_measures(pts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sides (n, 4) and diagonals (n,), (n,) of table quads (n, 4, 2); NaN, without a warning,
    for a quad with a corner beyond the table's horizon."""
    with np.errstate(invalid="ignore"):
        sides = np.linalg.norm(pts - np.roll(pts, -1, axis=1), axis=2)
        return sides, np.linalg.norm(pts[:, 0] - pts[:, 2], axis=1), np.linalg.norm(pts[:, 1] - pts[:, 3], axis=1)


def _rectangles(
    pts: np.ndarray, sides: np.ndarray, d1: np.ndarray, d2: np.ndarray, tolerance: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Which quads (table corners (n, 4, 2), their sides and diagonals) are rectangles (opposite
    sides within ``tolerance``, diagonals within 10 %), with their mean short and long sides.
    A quad beyond the table's horizon has no shape: never a rectangle, and no numpy warning."""
    with np.errstate(invalid="ignore"):
        a, b = (sides[:, 0] + sides[:, 2]) / 2, (sides[:, 1] + sides[:, 3]) / 2
        rectangle = (np.abs(sides[:, 0] - sides[:, 2]) <= tolerance * a) & (np.abs(sides[:, 1] - sides[:, 3]) <= tolerance * b)
        rectangle &= (np.abs(d1 - d2) <= 0.1 * np.maximum(d1, d2)) & np.isfinite(pts).all(axis=(1, 2))
        return rectangle, np.minimum(a, b), np.maximum(a, b)


@cache
def _space_table(component: Component) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A board's spaces as arrays (centres, half sizes, longer sides), built once per component:
    a frame checks every undecoded quad against every space of every board."""
    spaces = component.spaces
    return (
        np.array([[sp.x_mm, sp.y_mm] for sp in spaces], float).reshape(-1, 2),
        np.array([[sp.w_mm / 2, sp.h_mm / 2] for sp in spaces], float).reshape(-1, 2),
        np.array([max(sp.w_mm, sp.h_mm) for sp in spaces], float),
    )


def _on_faces(located: Sequence[Located], points: np.ndarray) -> np.ndarray:
    """(m, n, 2) table points (n, 2) in each located face's own millimetres, all faces at once."""
    inv = np.linalg.inv(np.stack([loc.face_to_table for loc in located]))  # (m, 3, 3)
    q = np.einsum("mij,nj->mni", inv, np.c_[points, np.ones(len(points))])
    return q[..., :2] / q[..., 2:3]


def _own_marks(catalog: Catalog, component: Component) -> list[Mark]:
    """The markers printed on a component's face: its tag, its QR code and its anchors."""
    marks = [catalog.by_tag.get(component.tag), catalog.qr_marks.get(component.id)]
    marks += [catalog.by_tag.get(a.tag) for a in component.anchors]
    return [m for m in marks if m is not None and m.component.id == component.id]


def _validated(state: BoardState, placed: list[Placed], problems: list[Problem]) -> tuple[BoardState, list[Placed]]:
    """Make the state loadable by the game: placements the rules refuse become unknown places."""
    game = find_game(state.game)
    unknown = list(state.unknown)
    for _ in range(len(placed) + 1):
        current = BoardState(
            state.game, state.players, tuple(p.placement for p in placed), state.options, state.extras, tuple(unknown)
        )
        try:
            game.load_state(state_to_json(current))
            return current, placed
        except StateError as exc:
            if exc.placement is None or exc.placement >= len(placed):
                problems.append(Problem(ProblemCode.STATE_REFUSED, f"the rules refuse this reading: {exc}"))
                return BoardState(state.game, state.players, (), state.options, state.extras, ()), []
            bad = placed.pop(exc.placement)
            problems.append(
                Problem(
                    ProblemCode.REFUSED_PLACEMENT,
                    f"{bad.placement.component} left out: {exc}",
                    (bad.placement.component,),
                    (bad.located.image_centre,),
                )
            )
            if bad.placement.area:
                unknown.append(UnknownPlace(bad.placement.area, bad.placement.cell))
    return state, placed


_NEXT = [1, 2, 3, 0]


def _holds_any(quads: np.ndarray, points: np.ndarray, *, each: bool = False) -> np.ndarray:
    """Whether each convex quad (k, 4, 2) holds any of the points (n, 2), its border included;
    with ``each``, the (n, k) table of which point lies in which quad."""
    edge = quads[:, _NEXT] - quads  # (k, 4, 2)
    rel = points[:, None, None, :] - quads[None]  # (n, k, 4, 2)
    cross = edge[None, ..., 0] * rel[..., 1] - edge[None, ..., 1] * rel[..., 0]  # (n, k, 4)
    inside = (cross >= 0).all(axis=2) | (cross <= 0).all(axis=2)  # (n, k)
    return inside if each else inside.any(axis=0)


def _square_to_quads(quads: np.ndarray, side: float) -> np.ndarray:
    """(k, 3, 3) homographies taking the square [0, side]^2 (corners clockwise from the
    origin) onto each quad (k, 4, 2): the closed form of the unit square's projective map,
    all quads at once (what cv2.getPerspectiveTransform solves one by one), both image
    coordinates in each step."""
    q0, q1, q2, q3 = quads[:, 0], quads[:, 1], quads[:, 2], quads[:, 3]
    s = q0 - q1 + q2 - q3
    d1, d2 = q1 - q2, q3 - q2
    den = d1[:, 0] * d2[:, 1] - d2[:, 0] * d1[:, 1]
    with np.errstate(divide="ignore", invalid="ignore"):  # a degenerate quad: no finite map, nothing sampled
        g = (s[:, 0] * d2[:, 1] - d2[:, 0] * s[:, 1]) / den
        h = (d1[:, 0] * s[:, 1] - s[:, 0] * d1[:, 1]) / den
    m = np.empty((len(quads), 3, 3))
    m[:, :2, 0] = (q1 - q0 + g[:, None] * q1) / side
    m[:, :2, 1] = (q3 - q0 + h[:, None] * q3) / side
    m[:, :2, 2] = q0
    m[:, 2, 0], m[:, 2, 1], m[:, 2, 2] = g / side, h / side, 1.0
    return m


#: A unit face's corners, clockwise from its origin.
_CORNERS = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
#: A texture probe's patch side (pixels), and its pixel grid as homogeneous columns (x, y, 1).
_PATCH = 24
_PATCH_GRID = np.vstack([np.tile(np.arange(_PATCH), _PATCH), np.repeat(np.arange(_PATCH), _PATCH),
                         np.ones(_PATCH * _PATCH)]).astype(np.float32)


@dataclass(frozen=True, slots=True)
class TextureProbe:
    """A photo's texture probe: one polygon's texture when called, or many at once (a layout
    probing a grid's cells pays one warp and one gradient pass for all of them)."""

    many: Callable[[Sequence[np.ndarray] | np.ndarray], list[float]]
    """The texture of each polygon (a list of (4, 2) arrays, or one (n, 4, 2) array)."""

    def __call__(self, polygon_mm: np.ndarray) -> float:
        return self.many([polygon_mm])[0]


def _texture_probe(
    gray: np.ndarray,
    plane: Plane,
    explained: Sequence[np.ndarray] = (),
    located: Sequence[Located] = (),
    memo: dict[object, float] | None = None,
) -> TextureProbe:
    """Mean gradient magnitude of the photo inside a table polygon (rectified to 24 x 24 px);
    0 where it cannot look: a corner outside the photo, or a marker already accounted for (a
    foreign code, a duplicate) inside. A polygon centred off every located face does not count
    the parts that located faces cover (a card lying across into a neighbouring cell is read
    already); one centred on a located face (the reference of a printed face's texture) counts
    everything. Layouts probe dozens of polygons per frame: what does not depend on the polygon
    is computed once here, and ``many`` samples a batch of polygons with one remap and one
    gradient pass (a grid's cells, a board's places). ``memo`` (one per
    photo) keeps each value with everything it depends on (the plane, the polygon, the faces
    near it), so a layout run again after a later look pays only for probes near what it read."""
    to_image = np.linalg.inv(plane.homography)
    height, width = gray.shape[:2]
    known = (
        np.concatenate([np.asarray(c, np.float32).reshape(-1, 2) for c in explained])
        if len(explained) else np.zeros((0, 2), np.float32)
    )
    faces = np.zeros((0, 4, 2))
    if located:
        outlines = np.array([loc.component.size_mm for loc in located], float)[:, None, :] * _CORNERS[None]
        poses = np.stack([loc.face_to_table for loc in located])
        q = outlines @ poses[:, :2, :2].transpose(0, 2, 1) + poses[:, None, :2, 2]
        faces = q / (outlines @ poses[:, 2:, :2].transpose(0, 2, 1) + poses[:, None, 2:, 2])
    face_centres = faces.mean(axis=1)
    face_reach = np.linalg.norm(faces - face_centres[:, None], axis=2).max(axis=1) if len(faces) else np.zeros(0)
    face_lo, face_hi = (faces.min(axis=1), faces.max(axis=1)) if len(faces) else (np.zeros((0, 2)), np.zeros((0, 2)))
    size = _PATCH
    square = np.array([[0, 0], [size, 0], [size, size], [0, size]], np.float32)

    # A memo key names the faces near a polygon by the sum of their outlines' hashes (any
    # order, any list: the same faces give the same key in a later run with more faces).
    face_hash = np.array([hash(f.tobytes()) & 0xFFFFFFFFFFFFFFFF for f in faces], np.uint64)
    plane_key = to_image.tobytes()

    def masked(grad: np.ndarray, poly: np.ndarray, cover: np.ndarray) -> None:
        """Zero the parts of a patch that these located faces cover."""
        to_patch = cv2.getPerspectiveTransform(poly.astype(np.float32), square)
        mask = np.zeros((size, size), np.uint8)
        corners = np.round(cv2.perspectiveTransform(faces[cover].reshape(1, -1, 2), to_patch)).astype(np.int32)
        for f in corners.reshape(-1, 4, 2):
            cv2.fillConvexPoly(mask, f, 1)
        grad[mask > 0] = 0.0

    def sampled(quads: np.ndarray) -> np.ndarray:
        """The (k, size, size) gradient magnitudes of k image quads, each warped to the patch
        square as warpPerspective would (bilinear): one remap and one Sobel pass for all."""
        k = len(quads)
        back = _square_to_quads(quads.astype(np.float64), float(size))
        # One product for all quads, each image coordinate one contiguous block (single
        # precision: a ten-thousandth of a pixel across a 4K photo), then the division.
        pts = (back.transpose(1, 0, 2).reshape(-1, 3).astype(np.float32) @ _PATCH_GRID).reshape(3, k * size, size)
        with np.errstate(divide="ignore", invalid="ignore"):  # a degenerate quad samples nothing (NaN)
            inv = 1.0 / pts[2]
        patches = cv2.remap(gray, pts[0] * inv, pts[1] * inv, cv2.INTER_LINEAR).astype(np.float32).reshape(k, size, size)
        # Each patch padded as Sobel pads one image (reflect 101), then all stacked: the
        # borders between them never mix two patches.
        tall = np.empty((k, size + 2, size + 2), np.float32)
        tall[:, 1:-1, 1:-1] = patches
        tall[:, 0, 1:-1], tall[:, -1, 1:-1] = patches[:, 1], patches[:, -2]
        tall[:, :, 0], tall[:, :, -1] = tall[:, :, 2], tall[:, :, -3]
        tall = tall.reshape(k * (size + 2), size + 2)
        grad = np.abs(cv2.Sobel(tall, cv2.CV_32F, 1, 0))
        grad += np.abs(cv2.Sobel(tall, cv2.CV_32F, 0, 1))
        return grad.reshape(k, size + 2, size + 2)[:, 1:-1, 1:-1]

    def many(polygons_mm: Sequence[np.ndarray] | np.ndarray) -> list[float]:
        """The texture of each polygon, the patches of all of them sampled at once."""
        values = [0.0] * len(polygons_mm)
        if not len(polygons_mm):
            return values
        try:  # most often quads alike: one conversion for all
            polys = np.array(polygons_mm, float)
        except ValueError:  # polygons of different lengths
            polys = None
        if polys is None or polys.ndim != 3 or polys.shape[2] != 2:
            polys = np.stack([np.asarray(p, float)[:4] for p in polygons_mm])
        polys = np.ascontiguousarray(polys[:, :4])
        quads = cv2.perspectiveTransform(polys.reshape(1, -1, 2), to_image).reshape(-1, 4, 2).astype(np.float32)
        lo, hi = quads.min(axis=1), quads.max(axis=1)
        inside = (lo >= 0).all(axis=1) & (hi[:, 0] < width) & (hi[:, 1] < height)
        if len(known):  # a marker accounted for inside: no looking there (its border counts)
            inside &= ~_holds_any(quads.astype(float), known.astype(float))
        if not inside.any():
            return values
        # The located faces that may reach each polygon; a polygon centred on one of them (the
        # reference of a printed face's texture) counts everything, else only the faces
        # reaching into its box are masked (in a grid of abutting tiles, a cell's central
        # square touches none of its neighbours).
        centres = polys.sum(axis=1) * 0.25
        reach = np.sqrt(((polys - centres[:, None]) ** 2).sum(axis=2).max(axis=1))
        near = np.sqrt(((centres[:, None] - face_centres[None]) ** 2).sum(axis=2)) < face_reach[None] + reach[:, None]
        todo: list[tuple[int, object]] = []
        idx = np.flatnonzero(inside)
        if memo is None:
            todo = [(i, None) for i in idx.tolist()]
        else:  # the value depends on the plane, the polygon and the faces near it
            sigs = (near[idx].astype(np.uint64) @ face_hash).tolist() if len(faces) else [0] * len(idx)
            for i, sig in zip(idx.tolist(), sigs):
                key = (plane_key, polys[i].tobytes(), sig)
                if key in memo:
                    values[i] = memo[key]
                else:
                    todo.append((i, key))
        if not todo:
            return values
        rows = np.array([i for i, _ in todo])
        # Which faces each polygon still to sample must not count: those reaching into its box,
        # unless it is centred on one of them.
        near_rows, poly_rows = near[rows], polys[rows]
        centred = np.zeros(len(rows), bool)
        pi, fj = np.nonzero(near_rows)  # only a face near a polygon can hold its centre
        if len(pi):
            quad = faces[fj]  # (p, 4, 2) each pair's face, tested against its polygon's centre
            edge = quad[:, _NEXT] - quad
            rel = centres[rows][pi][:, None, :] - quad
            cross = edge[..., 0] * rel[..., 1] - edge[..., 1] * rel[..., 0]
            holds = (cross >= 0).all(axis=1) | (cross <= 0).all(axis=1)
            centred[pi[holds]] = True
        plo, phi = poly_rows.min(axis=1), poly_rows.max(axis=1)
        cover = near_rows & (face_lo[None] < phi[:, None]).all(axis=2) & (face_hi[None] > plo[:, None]).all(axis=2)
        cover &= ~centred[:, None]
        grads = sampled(quads[rows])
        for j in np.flatnonzero(cover.any(axis=1)).tolist():
            masked(grads[j], poly_rows[j], cover[j])
        means = (grads.sum(axis=(1, 2)) / (size * size)).tolist()
        for (i, key), mean in zip(todo, means):
            values[i] = mean
            if memo is not None:
                memo[key] = mean
        return values

    return TextureProbe(many)


def _explained(ident: Identified) -> list[np.ndarray]:
    """Image corners of decoded markers that are not placed components (foreign, duplicated, disputed)."""
    out = [f.detection.corners for f in ident.foreign]
    out += [d.corners for dup in ident.duplicated for s in dup.sightings for d in s.detections]
    out += [d.corners for dis in ident.disagreements for d in dis.detections]
    return out


def _on_plane(
    ident: Identified, cfg: RecogniseConfig, start: Plane | None = None, refit: bool = True
) -> tuple[Plane | None, list[Located], list[Problem]]:
    """Fit the table plane to the identified components and locate each one on it
    (``start``: the plane before a second look added a few tags, to start the refit from;
    without ``refit`` that plane is kept and only judged against the new list)."""
    fit_sightings = list(ident.sightings) + [s for d in ident.duplicated for s in d.sightings]
    groups = _groups(fit_sightings)
    if start is not None and not refit and groups:
        plane: Plane | None = extended(start, groups, outlier_mm=cfg.outlier_mm)
    else:
        h0 = None if start is None else start.homography
        plane = fit_plane(groups, outlier_mm=cfg.outlier_mm, start=h0) if groups else None
    problems: list[Problem] = []
    located: list[Located] = []
    if plane is None:
        return None, located, problems
    inliers = set(plane.inliers) | {i for i in plane.outliers if plane.residuals_mm[i] <= cfg.curl_mm}
    kept = [i for i in range(len(ident.sightings)) if i in inliers]
    located = _locate_all([ident.sightings[i] for i in kept], plane, [plane.residuals_mm[i] for i in kept])
    for i, s in enumerate(ident.sightings):
        if i in inliers:
            continue
        centre = s.image_centre()
        problems.append(
            Problem(
                ProblemCode.OFF_PLANE,
                f"{s.component.id} does not lie flat on the table (held, tilted or stacked);"
                " it is not placed",
                (s.component.id,),
                ((float(centre[0]), float(centre[1])),),
            )
        )
    return plane, located, problems


def _rescue(
    tag_gray: np.ndarray | None,
    frame: Frame,
    markers: Sequence[Detection],
    candidates: Sequence[Candidate],
    plane: Plane,
    catalog: Catalog,
    cfg: RecogniseConfig,
) -> tuple[list[Detection], tuple[Candidate, ...]]:
    """Second look at undecoded quads of a printed tag's size, against this game's unseen tags."""
    sizes = catalog.tag_sizes_mm
    tags = [c for c in candidates if c.kind is MarkerKind.TAG]
    if not tags or not sizes:
        return [], tuple(candidates)
    lo = min(sizes) * (1 - cfg.unreadable_size_tolerance)
    hi = max(sizes) * (1 + cfg.unreadable_size_tolerance)
    pts = plane.to_table(np.stack([c.corners for c in tags]).reshape(-1, 2)).reshape(-1, 4, 2)
    sides = np.linalg.norm(pts - np.roll(pts, -1, axis=1), axis=2)
    ok = (sides.min(axis=1) >= lo) & (sides.max(axis=1) <= hi)
    if markers:
        dec = np.array([d.centre for d in markers])
        centres = np.stack([c.corners for c in tags]).mean(axis=1)
        ok &= np.linalg.norm(centres[:, None] - dec[None], axis=2).min(axis=1) > 4.0
    plausible = [c for c, good in zip(tags, ok) if good]
    if not plausible:
        return [], tuple(candidates)
    seen = {d.tag_id for d in markers if d.tag_id is not None}
    allowed = set(catalog.by_tag) - seen
    found = rescue_tags(tag_gray if tag_gray is not None else frame.gray, plausible, allowed)
    rescued: list[Detection] = []
    used: set[int] = set()
    taken: set[int] = set()
    for det, k in found:
        if det.tag_id in taken:  # two quads claiming one unseen tag: trust neither
            continue
        taken.add(det.tag_id or -1)
        rescued.append(det)
        used.add(id(plausible[k]))
    rest = tuple(c for c in candidates if id(c) not in used)
    return rescued, rest


def _tag_pools(catalog: Catalog) -> dict[float, tuple[int, ...]]:
    """The game's component tags (not board anchors) grouped by printed size."""
    return tag_pools(catalog.game)


def _space_sizes(catalog: Catalog, space: Space, ratio: float) -> tuple[float, ...]:
    """Printed tag sizes of the components made for a space: about its size (a token on a
    planet space, not a token lying somewhere on a jungle tile's space)."""
    return _sizes_for_span(catalog.game, max(space.w_mm, space.h_mm), ratio)


@cache
def _sizes_for_span(game_id: str, span: float, ratio: float) -> tuple[float, ...]:
    catalog = catalog_for(game_id)
    sizes = {
        catalog.by_tag[c.tag].size_mm
        for c in catalog.components.values()
        if not c.spaces and span / ratio <= max(c.size_mm) <= ratio * span and c.tag in catalog.by_tag
    }
    return tuple(sorted(sizes))


def _covered_points(points: np.ndarray, located: Sequence[Located]) -> np.ndarray:
    """Which table points lie on a located face that holds no spaces (not a board or a tile
    with slots: those are where the points lie)."""
    others = [loc for loc in located if not loc.component.spaces]
    if not others or not len(points):
        return np.zeros(len(points), bool)
    face = _on_faces(others, points)  # (m, n, 2)
    size = np.array([loc.component.size_mm for loc in others], float)[:, None, :]
    return ((face >= 0) & (face <= size)).all(axis=2).any(axis=0)


def _explanation(points: np.ndarray, located: Sequence[Located], catalog: Catalog) -> tuple[np.ndarray, np.ndarray]:
    """Per table point: the smallest own-tag side of the cards and tiles it lies on (inf on
    none; squares at least that large there are printed art) and whether it lies on a located
    face's own marker. All faces at once: this runs on every frame with undecoded quads."""
    n = len(points)
    if not located or not n:
        return np.full(n, np.inf), np.zeros(n, bool)
    face = _on_faces(located, points)  # (m, n, 2) face millimetres
    size = np.array([loc.component.size_mm for loc in located], float)
    inside = (face >= 0).all(axis=2) & (face <= size[:, None, :]).all(axis=2)
    own = np.array([
        catalog.by_tag[loc.component.tag].size_mm
        if not loc.component.spaces and loc.component.tag in catalog.by_tag else np.inf
        for loc in located
    ])
    smallest_art = np.where(inside, own[:, None], np.inf).min(axis=0)
    # Only a marker that was read explains a quad on it: an unread one may lie under a token
    # (a protected-area token over a tile's QR code), and what shows there is that token's tag.
    boxes = [(i, m.x_mm - 3, m.y_mm - 3, m.x_mm + m.size_mm + 3, m.y_mm + m.size_mm + 3)
             for i, loc in enumerate(located) for m in _own_marks(catalog, loc.component)
             if m.role.value in loc.source.split("+")]
    marked = np.zeros(n, bool)
    if boxes:
        b = np.array(boxes)
        f = face[b[:, 0].astype(int)]  # (k, n, 2)
        marked = ((f[..., 0] >= b[:, 1:2]) & (f[..., 1] >= b[:, 2:3])
                  & (f[..., 0] <= b[:, 3:4]) & (f[..., 1] <= b[:, 4:5])).any(axis=0)
    return smallest_art, marked


def _soft_sites(
    candidates: Sequence[Candidate],
    plane: Plane,
    located: Sequence[Located],
    catalog: Catalog,
    pools: Mapping[float, tuple[int, ...]],
    cfg: RecogniseConfig,
) -> list[Site]:
    """Where an unread tag may lie: the undecoded quads, each for every printed tag size it
    may be. Blur grows a quad: it often outlines the white quiet zone, or the tag's halo,
    rather than the black square (a 21 mm tag's quad measured 30 mm in a blurred view)."""
    sizes = np.array(distinct_sizes(pools), float)
    sites: list[Site] = []
    tags = [c for c in candidates if c.kind is MarkerKind.TAG]
    if not tags or not len(sizes):
        return sites
    pts = plane.to_table(np.stack([c.corners for c in tags]).reshape(-1, 2)).reshape(-1, 4, 2)
    sides = np.linalg.norm(pts - np.roll(pts, -1, axis=1), axis=2).mean(axis=1)
    lo, hi = cfg.soft_quad_growth
    centres = pts.mean(axis=1)
    fitting = [(size, (sides >= lo * size) & (sides <= hi * size)) for size in sizes]
    if not any(fits.any() for _, fits in fitting):
        return sites
    smallest_art, marked = _explanation(centres, located, catalog)
    for size, fits in fitting:
        explained = marked | (size >= smallest_art)
        for i in np.flatnonzero(fits & ~explained):
            quad, c, side = pts[i], centres[i], sides[i]
            edge = quad[1] - quad[0]
            turn = float(np.degrees(np.arctan2(edge[1], edge[0]))) % 90.0
            at = (float(c[0]), float(c[1]))
            if side <= 1.3 * size:  # the quad is the tag or its quiet zone: check it where it is
                sites.append(Site(at, float(size), 0.25 * float(size), turn))
            elif not np.isfinite(smallest_art[i]):
                # A blurred blob around a tag, off every read card and tile (on one it is most
                # likely the face's own print): searched inside.
                sites.append(Site(at, float(size), 0.5 * float(side - size) + 0.25 * float(size), turn_hint_deg=turn))
    return sites


def _space_sites(
    plane: Plane, located: Sequence[Located], catalog: Catalog, busy_mm: np.ndarray, cfg: RecogniseConfig
) -> list[Site]:
    """Free spaces of located boards and tiles near where the layout saw something unread (a
    blurred token often leaves no quad at all), for the components made for each space."""
    sites: list[Site] = []
    chosen: list[tuple[list[Space], np.ndarray]] = []
    for holder in located:
        if not holder.component.spaces:
            continue
        # A face wholly farther from every busy place than its spaces look holds no site: its
        # spaces lie within half its diagonal of its centre, and each looks within its own size.
        w, h = holder.component.size_mm
        reach = 0.5 * math.hypot(w, h) + max(max(sp.w_mm, sp.h_mm) for sp in holder.component.spaces) + 1.0
        cx, cy = holder.centre_mm
        if float((((busy_mm - (cx, cy)) ** 2).sum(axis=1)).min()) > reach * reach:
            continue
        spaces = [sp for sp in holder.component.spaces if _space_sizes(catalog, sp, cfg.soft_space_ratio)]
        if not spaces:
            continue
        chosen.append((spaces, apply_homography(holder.face_to_table, np.array([[sp.x_mm, sp.y_mm] for sp in spaces]))))
    if not chosen:
        return sites
    # Where a component read already lies, for every chosen face's spaces at once.
    covered = _covered_points(np.vstack([centres for _, centres in chosen]), located)
    at = 0
    for spaces, centres in chosen:
        taken, at = covered[at : at + len(spaces)], at + len(spaces)
        gap = np.sqrt(((centres[:, None] - busy_mm[None]) ** 2).sum(axis=2)).min(axis=1)
        for space, c, busy, far in zip(spaces, centres, taken, gap):
            half = 0.5 * max(space.w_mm, space.h_mm)
            if busy or far > 2 * half:
                continue
            for size in _space_sizes(catalog, space, cfg.soft_space_ratio):
                sites.append(Site((float(c[0]), float(c[1])), size, half * 0.6))
    return sites


def _busy_space_sites(
    plane: Plane, located: Sequence[Located], catalog: Catalog, problems: Sequence[Problem], cfg: RecogniseConfig
) -> list[Site]:
    """Sites on the spaces the layout reported as holding something unread."""
    points = [pt for pr in problems if not pr.components for pt in pr.image_points]
    if not points:
        return []
    return _space_sites(plane, located, catalog, plane.to_table(np.array(points, float)), cfg)


def _look_again_sites(places: Sequence[LookAgain], catalog: Catalog) -> list[Site]:
    """Sites at the places a layout asked to look at again, for the tags printed on faces of
    the size (and kinds, when it names them) it expects there (near sizes read as one)."""
    sites: list[Site] = []
    for place in places:
        w, h = place.face_mm
        tags = _tags_for_face(catalog.game, round(min(w, h)), round(max(w, h)), place.kinds)
        for size in distinct_sizes(s for s, _ in tags):
            if place.tag_mm is not None:
                sites.append(Site(place.tag_mm, size, place.reach_mm + 2.0, turn_hint_deg=place.angle_deg))
                continue
            reach = max(r for s, r in tags if size <= s <= size * SAME_SIZE)
            sites.append(Site(place.centre_mm, size, reach + place.reach_mm, turn_hint_deg=place.angle_deg))
    return sites


#: A place beside an unplaced face is searched only when its photo is at least this busy
#: relative to that face's own (both a central square of 0.6 of the face's short side). In
#: the hard scenes, places where a neighbour was read measured 0.24 or more (most 0.5-1.2);
#: bare table 0.06-0.2, where nothing was ever read.
NEIGHBOUR_BARE_RATIO = 0.15


def _unasked(places: Sequence[LookAgain], asked: Sequence[LookAgain]) -> list[LookAgain]:
    """The places a layout asks about that no earlier look searched: a park or grid placed
    only after a later round asks about its unknown cells then (the same cell, asked again
    as the grid settles, lies within a fifth of a face of where it was)."""
    return [p for p in places if not any(
        q.face_mm == p.face_mm and q.kinds == p.kinds
        and math.hypot(p.centre_mm[0] - q.centre_mm[0], p.centre_mm[1] - q.centre_mm[1]) < 0.2 * min(p.face_mm)
        for q in asked)]


def _neighbour_sites(
    loose: Sequence[Located], located: Sequence[Located], catalog: Catalog, limit: int = 48, *, square: bool = False,
    texture: TextureProbe | None = None,
) -> list[Site]:
    """Where the unread neighbour of a component the layout could not place may lie: the four
    places of a face of its size sharing an edge with it (a Habitats park whose entrance was not read, a
    PHYLO grid whose HOME card was not), for the tags printed on faces of that size, each
    searched as far from the place's centre as such a tag lies, in any turn (``square``: in
    the component's own turn, give or take, as faces laid edge to edge lie). The components
    take turns (each one's first free place, then each one's second...): a whole unplaced
    market must not use up the limit before a lone tile of an unread park gets a look. With
    ``texture``, a place that looks like bare table next to the face (``NEIGHBOUR_BARE_RATIO``)
    is not searched: a face lying there, blurred or not, prints far more than the table."""
    centres = np.array([loc.centre_mm for loc in located])
    places: list[list[tuple[np.ndarray, tuple[tuple[float, float], ...], float, float | None]]] = []
    squares: list[tuple[Located, float, float, float]] = []  # each face's own middle, then its free places'
    for loc in loose:
        w, h = loc.component.size_mm
        tags = _tags_for_face(catalog.game, round(min(w, h)), round(max(w, h)))
        if not tags:
            continue
        offsets = np.array([[-w, 0.0], [w, 0.0], [0.0, -h], [0.0, h]])
        spots = apply_homography(loc.face_to_table, offsets + (w / 2, h / 2))
        free = np.linalg.norm(spots[:, None] - centres[None], axis=2).min(axis=1) >= 0.4 * min(w, h)
        hint = loc.angle_deg % 90.0 if square else None
        places.append([(c, tags, 0.4 * min(w, h), hint) for c in spots[free]])  # no face read there yet
        if texture is not None:  # face mm: its own middle, then each free place's
            half = 0.3 * min(w, h)
            squares.append((loc, w / 2, h / 2, half))
            squares += [(loc, float(x) + w / 2, float(y) + h / 2, half) for x, y in offsets[free]]
    if texture is not None and squares:
        values = texture.many(table_squares(squares))
        at = 0
        for k, own in enumerate(places):
            here, at = values[at : at + 1 + len(own)], at + 1 + len(own)
            if here[0] > 0:  # the face's own print measured: bare table beside it is left out
                places[k] = [p for p, v in zip(own, here[1:]) if v <= 0 or v >= NEIGHBOUR_BARE_RATIO * here[0]]
    sites: list[Site] = []
    taken: list[np.ndarray] = []
    for turn in range(4):
        for own in places:
            if turn >= len(own):
                continue
            c, tags, near, hint = own[turn]
            if any(np.hypot(*(t - c)) < near for t in taken):
                continue
            taken.append(c)
            sites += [Site((float(c[0]), float(c[1])), size, reach, turn_hint_deg=hint) for size, reach in tags]
    return sites[:limit]


@cache
def _marked_faces(game_id: str, short: int, long: int) -> tuple[tuple[Component, Mark], ...]:
    """A game's tagged components without printed spaces whose face has this size (to the
    millimetre), each with its tag's mark: the faces a search for an unread face's tag means."""
    catalog = catalog_for(game_id)
    out = []
    for c in catalog.components.values():
        mark = catalog.by_tag.get(c.tag)
        if c.spaces or mark is None or round(min(c.size_mm)) != short or round(max(c.size_mm)) != long:
            continue
        out.append((c, mark))
    return tuple(out)


@cache
def _tags_for_face(
    game_id: str, short: int, long: int, kinds: tuple[str, ...] | None = None
) -> tuple[tuple[float, float], ...]:
    """Printed tag sizes of a game's components whose face has this size (to the millimetre),
    and of one of ``kinds`` when given, each with how far from the face's centre such a tag's
    centre lies (plus 2 mm)."""
    reach: dict[float, float] = {}
    for c, mark in _marked_faces(game_id, short, long):
        if kinds is not None and c.kind not in kinds:
            continue
        off = np.hypot(mark.x_mm + mark.size_mm / 2 - c.size_mm[0] / 2, mark.y_mm + mark.size_mm / 2 - c.size_mm[1] / 2)
        reach[mark.size_mm] = max(reach.get(mark.size_mm, 0.0), float(off) + 2.0)
    return tuple(sorted(reach.items()))


def _read_whole(
    frame: Frame, markers: Sequence[Detection], plane: Plane, sites: Sequence[Site], catalog: Catalog, cfg: RecogniseConfig
) -> list[Detection]:
    """Whole-tag readings of this game's unseen tags at these sites; a reading on top of a
    decoded marker is that marker seen again, not another tag."""
    assert cfg.soft is not None
    if not sites:
        return []
    pools = _tag_pools(catalog)
    seen = {d.tag_id for d in markers if d.tag_id is not None}
    allowed = {t for pool in pools.values() for t in pool} - seen
    known = plane.to_table(np.array([m.centre for m in markers])) if markers else None
    found = read_sites(frame.gray, plane, sites, pools, allowed, cfg.soft, known)
    if not markers:
        return found
    centres = np.array([m.centre for m in markers])
    return [d for d in found if float(np.linalg.norm(centres - d.centre, axis=1).min()) >= 0.5 * d.side_px]


def _uncovered(candidates: Sequence[Candidate], found: Sequence[Detection]) -> tuple[Candidate, ...]:
    """The undecoded quads that are none of these readings."""
    if not found or not candidates:
        return tuple(candidates)
    centres = np.array([d.centre for d in found])
    reach = 0.5 * np.array([d.side_px for d in found])
    quads = np.stack([c.corners for c in candidates]).mean(axis=1)
    hit = (np.linalg.norm(quads[:, None] - centres[None], axis=2) < reach[None]).any(axis=1)
    return tuple(c for c, h in zip(candidates, hit) if not h)


def _soft(
    frame: Frame,
    markers: Sequence[Detection],
    candidates: Sequence[Candidate],
    plane: Plane,
    located: Sequence[Located],
    catalog: Catalog,
    cfg: RecogniseConfig,
) -> list[Detection]:
    """Whole-tag readings of this game's unseen tags at the undecoded quads."""
    sites = _soft_sites(candidates, plane, located, catalog, _tag_pools(catalog), cfg)
    sites += _face_sites(candidates, plane, located, catalog, cfg)
    return _read_whole(frame, markers, plane, sites, catalog, cfg)


@cache
def _face_shapes(game_id: str) -> tuple[tuple[int, int], ...]:
    """The face sizes (short, long, to the millimetre) of a game's tagged cards, tiles and tokens."""
    catalog = catalog_for(game_id)
    return tuple(sorted({
        (round(min(c.size_mm)), round(max(c.size_mm)))
        for c in catalog.components.values()
        if not c.spaces and c.tag in catalog.by_tag
    }))


def _face_sites(
    candidates: Sequence[Candidate], plane: Plane, located: Sequence[Located], catalog: Catalog, cfg: RecogniseConfig
) -> list[Site]:
    """Where the tag of a face blurred whole into one quad may lie: undecoded rectangles of a
    card's, tile's or token's own size off every located face, searched where that face's tag
    is printed (a whole park out of focus leaves only such quads, and no read face beside them
    to report them by)."""
    tol = cfg.soft_face_tolerance
    tags = [c for c in candidates if c.kind is MarkerKind.TAG]
    shapes = _face_shapes(catalog.game)
    if tol <= 0 or not tags or not shapes:
        return []
    pts = plane.to_table(np.stack([c.corners for c in tags]).reshape(-1, 2)).reshape(-1, 4, 2)
    rectangle, short, long = _rectangles(pts, *_quad_measures(pts), tol)
    centres = pts.mean(axis=1)
    if located:
        size = np.array([loc.component.size_mm for loc in located])
        face = _on_faces(located, centres)  # (m, n, 2)
        rectangle &= ~((face >= 0) & (face <= size[:, None, :])).all(axis=2).any(axis=0)
    sites: list[Site] = []
    for i in np.flatnonzero(rectangle):
        edge = pts[i, 1] - pts[i, 0]
        turn = float(np.degrees(np.arctan2(edge[1], edge[0]))) % 90.0
        at = (float(centres[i, 0]), float(centres[i, 1]))
        # The long side's direction: the face's own long axis lies along it, one way or the other.
        other = pts[i, 2] - pts[i, 1]
        along = edge if np.hypot(*edge) >= np.hypot(*other) else other
        for s, l in shapes:
            if abs(short[i] - s) <= tol * s and abs(long[i] - l) <= tol * l:
                for size, reach in _tags_for_face(catalog.game, s, l):
                    sites += _tag_sites(at, along, size, reach, _tag_offsets(catalog.game, s, l, size), s == l, turn)
    return sites


#: How far (mm) a face's tag may lie from where its blurred outline's rectangle puts it.
FACE_TAG_SLACK_MM = 6.0


def _tag_sites(
    at: tuple[float, float], along: np.ndarray, size: float, reach: float, offsets: tuple[tuple[float, float], ...],
    square: bool, turn: float,
) -> list[Site]:
    """Where the tag of a face whose outline lies at ``at`` (its long side along ``along``) may
    lie: each printed place of such a tag, in each turn the outline allows (two for an oblong
    face, four for a square one), searched ``FACE_TAG_SLACK_MM`` around; or, when that is more
    photo to match than one search round the face's centre as far as any such tag lies
    (``reach``), that one search."""
    turns = 4 if square else 2
    places = len(offsets) * turns
    near = 0.75 * size + FACE_TAG_SLACK_MM
    if not places or places * near * near >= (0.75 * size + reach) ** 2:
        return [Site(at, size, reach, turn_hint_deg=turn)]
    phi = math.atan2(float(along[1]), float(along[0]))
    sites = []
    for k in range(turns):
        a = phi + k * (2 * math.pi / turns)
        c, s = math.cos(a), math.sin(a)
        for dx, dy in offsets:
            sites.append(Site((at[0] + c * dx - s * dy, at[1] + s * dx + c * dy), size, FACE_TAG_SLACK_MM, turn_hint_deg=turn))
    return sites


@cache
def _tag_offsets(game_id: str, short: int, long: int, size: float) -> tuple[tuple[float, float], ...]:
    """Where a tag of ``size`` lies on a game's faces of this size, from the face's centre,
    in the face's own frame turned so that its long side runs along x (one of the two ways)."""
    out: set[tuple[float, float]] = set()
    for c, mark in _marked_faces(game_id, short, long):
        if mark.size_mm != size:
            continue
        w, h = c.size_mm
        dx, dy = mark.x_mm + mark.size_mm / 2 - w / 2, mark.y_mm + mark.size_mm / 2 - h / 2
        out.add((round(dx, 3), round(dy, 3)) if w >= h else (round(dy, 3), round(-dx, 3)))
    return tuple(sorted(out))


def recognise(
    image: bytes | np.ndarray,
    game_id: str,
    *,
    config: RecogniseConfig | None = None,
    players: Sequence[Player] | None = None,
    options: Mapping[str, Any] | None = None,
) -> Recognition:
    """Read one photo or camera frame of a game's table into a Recognition."""
    cfg = config or RecogniseConfig()
    game = find_game(game_id)
    layout = find_layout(game.id)
    catalog = catalog_for(game.id)
    timings: dict[str, float] = {}
    t0 = time.perf_counter()

    def lap(name: str, since: float) -> float:
        now = time.perf_counter()
        timings[name] = (now - since) * 1000.0
        return now

    frame: Frame = (
        frame_from_array(image, max_pixels=cfg.max_pixels)
        if isinstance(image, np.ndarray)
        else load_image(image, max_pixels=cfg.max_pixels)
    )
    t = lap("load", t0)
    detected = detect_all(frame, config=cfg.detect)
    t = lap("detect", t)
    ident = identify(detected.markers, catalog)
    t = lap("identify", t)
    plane, located, problems = _on_plane(ident, cfg)
    candidates = detected.candidates
    markers = detected.markers
    # Second looks, both on the first plane: undecoded quads against this game's unseen tags
    # (bits), then blurred tags read whole at the quads; one refit for both.
    extra: list[Detection] = []
    if cfg.rescue and plane is not None:
        rescued, candidates = _rescue(detected.tag_gray, frame, markers, candidates, plane, catalog, cfg)
        extra += rescued
        if rescued:
            timings["rescued"] = float(len(rescued))
    if cfg.soft is not None and plane is not None:
        whole = _soft(frame, markers + tuple(extra), candidates, plane, located, catalog, cfg)
        extra += whole
        candidates = _uncovered(candidates, whole)
        if whole:
            timings["read_whole"] = float(len(whole))
    if extra:
        markers = markers + tuple(extra)
        ident = identify(markers, catalog)
        plane, located, problems = _on_plane(ident, cfg, plane)

    textures: dict[object, float] = {}  # texture probes of this photo, for the layout's later runs
    outlines: dict[bytes, OutlineProbe] = {}  # the outline probe of each plane (a later look keeps it)

    def outline() -> OutlineProbe | None:
        if plane is None:
            return None
        key = plane.homography.tobytes()
        if key not in outlines:
            outlines[key] = outline_probe(frame.image, plane.homography)
        return outlines[key]

    unread_memo: list[tuple[tuple[object, ...], tuple[Unreadable, ...]]] = []  # the last run's, with what it read

    def read_layout(final: bool = True) -> tuple[tuple[Unreadable, ...], LayoutResult, list[Problem]]:
        """Unreadable markers, the layout's reading and every problem, on the current plane
        (``final``: with the outline probe, for the reading reported). The unreadable markers
        of the run before are kept when nothing they depend on changed since (the run with
        outlines after a last look that read nothing)."""
        inputs = (candidates, plane, located, markers)
        if unread_memo and all(a is b for a, b in zip(unread_memo[0][0], inputs)):
            found = unread_memo[0][1]
        else:
            found = tuple(_unreadable(
                candidates, plane, located, markers, catalog.tag_sizes_mm, cfg.unreadable_size_tolerance, catalog,
                cfg.unreadable_face_tolerance,
            ))
            unread_memo[:] = [(inputs, found)]
        view = TableView(
            game.id,
            tuple(located),
            found,
            tuple(players) if players is not None else None,
            dict(options or {}),
            None if plane is None else _texture_probe(frame.gray, plane, _explained(ident), located, textures),
            face_down=on_table(ident.face_down, plane),
            outline=outline() if final else None,
        )
        issues = list(problems)
        try:
            result = layout.read(view)
        except (ScoringError, VisionError) as exc:
            issues.append(Problem(ProblemCode.LAYOUT_FAILED, f"the table layout could not be read: {exc}"))
            result = None
        if result is None:
            result = LayoutResult(tuple(players or ()), (), confidence=0.0)
        issues.extend(result.problems)
        return found, result, issues

    t = lap("plane", t)
    # Outlines only sort the places looked at again into reported and not: in a frame whose
    # second looks read blurred tags (more are likely to be read beside them), they are
    # measured on the last reading only, not for the places a later look reads. (Elsewhere
    # the first reading is nearly always the last: measuring them again would cost more.)
    deferred = layout.outlines and cfg.soft is not None and plane is not None and bool(extra)
    unreadable, result, problems = read_layout(final=not deferred)
    # Third look: places where the layout saw something it could not read (busy board
    # spaces, unknown cells it asks about) and the places beside components it could not
    # place, read whole in one go (the most tag-like sites first).
    # A component read there that the layout still cannot place gets the same look beside it,
    # for a few rounds: an unread park is read tile by tile out from the one tile first read.
    if cfg.soft is not None and plane is not None:
        t3 = time.perf_counter()
        looked: set[str] = set()
        asked: list[LookAgain] = []  # the layout's places searched so far
        for step in range(1 + cfg.neighbour_rounds):
            placed_now = {id(p.located) for p in result.placed}
            loose = [loc for loc in located if id(loc) not in placed_now and not loc.component.spaces
                     and loc.component.id not in looked
                     and (layout.neighbour_kinds is None or loc.component.kind in layout.neighbour_kinds)]
            looked |= {loc.component.id for loc in loose}
            sites: list[Site] = []
            if step == 0:  # busy board spaces, once; later rounds look beside and at new places
                sites = _busy_space_sites(plane, located, catalog, problems, cfg)
            fresh = _unasked(result.look_again, asked)
            asked += fresh
            sites += _look_again_sites(fresh, catalog)
            if loose:
                sites += _neighbour_sites(loose, located, catalog, square=layout.square_neighbours, texture=_texture_probe(
                    frame.gray, plane, _explained(ident), located, textures))
            more = _read_whole(frame, markers, plane, sites, catalog, cfg)
            if not more:
                break
            markers = markers + tuple(more)
            timings["read_whole"] = timings.get("read_whole", 0.0) + len(more)
            candidates = _uncovered(candidates, more)
            ident = identify(markers, catalog)
            plane, located, problems = _on_plane(ident, cfg, plane, refit=False)
            unreadable, result, problems = read_layout(final=not deferred)
        timings["third_look"] = (time.perf_counter() - t3) * 1000.0
    if deferred and (result.unknown or result.look_again):
        # Without an unknown place or one to look at again, outlines would change nothing.
        unreadable, result, problems = read_layout()
    state, placed = _validated(result.state(game.id), list(result.placed), problems)
    t = lap("layout", t)

    by_loc = {id(p.located): p.placement for p in placed}
    components = tuple(RecognisedComponent(loc, by_loc.get(id(loc))) for loc in located)
    confidence = result.confidence if located else 0.0
    if plane is not None and plane.rms_mm > 1.0:
        confidence *= max(0.3, 1.0 - (plane.rms_mm - 1.0) / 4.0)
    timings["total"] = (time.perf_counter() - t0) * 1000.0
    return Recognition(
        game.id,
        state,
        components,
        tuple(unreadable),
        ident.foreign,
        ident.duplicated,
        ident.disagreements,
        tuple(problems),
        float(confidence),
        timings,
        None if plane is None else plane.rms_mm,
        (frame.width, frame.height),
        on_table(ident.face_down, plane),
    )
