"""Stage 5: per-game layouts turning components positioned on the table into a BoardState.

Stages 1-4 know no game rules: they hand every layout the same ``TableView`` (each
component's pose in table millimetres, boards with their anchors and spaces, markers
that could not be read). A game plugs in with one ``GameLayout`` — ``read`` for the
scanner and ``arrange`` (the inverse, where each placed component lies on the table)
for the scene renderer — and one line in ``_LAYOUT_MODULES``.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import cv2
import numpy as np

from scoring.model import BoardState, Component, Placement, Player

from ..detect import MarkerKind
from ..errors import LayoutError
from ..identify import FaceDown
from ..plane import apply_homography

#: Game id -> module exposing ``LAYOUT`` (a GameLayout). Adding a game is one line here.
_LAYOUT_MODULES: dict[str, str] = {
    "habitats": "vision.layouts.habitats",
    "phylo": "vision.layouts.phylo",
    "biomos": "vision.layouts.biomos",
    "rainforest": "vision.layouts.rainforest",
    "borneo": "vision.layouts.borneo",
}


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

    @property
    def centre_mm(self) -> tuple[float, float]:
        w, h = self.component.size_mm
        m = self.face_to_table
        return (
            float(m[0, 0] * w / 2 + m[0, 1] * h / 2 + m[0, 2]),
            float(m[1, 0] * w / 2 + m[1, 1] * h / 2 + m[1, 2]),
        )

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
        return apply_homography(np.linalg.inv(self.face_to_table), np.asarray(table_xy, float))

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
class Problem:
    """A layout finding the players should see (a component off the grid, an odd rotation)."""

    code: str
    """Stable code such as ``layout/off_grid``."""
    message: str
    components: tuple[str, ...] = ()
    image_points: tuple[tuple[float, float], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "message": self.message,
            "components": list(self.components),
            "image_points": [[round(x, 1), round(y, 1)] for x, y in self.image_points],
        }


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
    unknown: tuple[Placement, ...] = ()
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


@cache
def find_layout(game_id: str) -> GameLayout:
    """The registered layout of a game; LayoutError when the game has none."""
    module_name = _LAYOUT_MODULES.get(game_id)
    if module_name is None:
        raise LayoutError(
            f"no table layout for {game_id!r}; layouts exist for {', '.join(_LAYOUT_MODULES)}"
        )
    layout = importlib.import_module(module_name).LAYOUT
    if not isinstance(layout, GameLayout) or layout.game != game_id:
        raise LayoutError(f"{module_name}.LAYOUT is not the GameLayout of {game_id!r}")
    return layout


def layout_games() -> tuple[str, ...]:
    return tuple(_LAYOUT_MODULES)


# -- helpers shared by grid layouts ---------------------------------------------------------


def grid_cell(offset: np.ndarray, pitch: tuple[float, float]) -> tuple[tuple[int, int], float]:
    """Nearest grid cell of an offset (mm, already in the grid's axes) and how far off it is (0..0.5 of a pitch)."""
    gx, gy = offset[0] / pitch[0], offset[1] / pitch[1]
    cx, cy = round(gx), round(gy)
    return (int(cx), int(cy)), float(max(abs(gx - cx), abs(gy - cy)))


def rotate(v: np.ndarray, angle_deg: float) -> np.ndarray:
    """Rotate a vector clockwise (y down) by an angle in degrees."""
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def cell_fit(error: float) -> float:
    """Confidence 1 at a cell's centre falling to 0 at its border (half a pitch off)."""
    return max(0.0, 1.0 - max(0.0, error - 0.15) / 0.35)


def space_at(board: Located, table_xy: np.ndarray) -> str | None:
    """Name of the board space under a table point (the board's spaces are printed on its face)."""
    f = board.to_face(np.asarray(table_xy, float).reshape(1, 2))[0]
    best: tuple[float, str] | None = None
    for s in board.component.spaces:
        dx, dy = abs(f[0] - s.x_mm), abs(f[1] - s.y_mm)
        if dx <= s.w_mm / 2 and dy <= s.h_mm / 2:
            d = dx / s.w_mm + dy / s.h_mm
            if best is None or d < best[0]:
                best = (d, s.name)
    return None if best is None else best[1]


def space_pose(board_pose: TablePose, board: Component, space_name: str, offset: tuple[float, float] = (0.0, 0.0)) -> TablePose:
    """Table pose of something lying on a board space (for arranging scenes)."""
    w, h = board.size_mm
    for s in board.spaces:
        if s.name == space_name:
            v = rotate(np.array([s.x_mm - w / 2 + offset[0], s.y_mm - h / 2 + offset[1]]), board_pose.angle_deg)
            return TablePose(board_pose.x_mm + float(v[0]), board_pose.y_mm + float(v[1]), board_pose.angle_deg)
    raise LayoutError(f"{board.id} has no space {space_name!r}")


def connected_groups(items: list[Located], reach_mm: float) -> list[list[int]]:
    """Groups of components whose centres chain together within ``reach_mm`` (4-neighbours on a grid)."""
    n = len(items)
    if n == 0:
        return []
    centres = np.array([c.centre_mm for c in items])
    near = (np.linalg.norm(centres[:, None] - centres[None], axis=2) < reach_mm).tolist()
    seen = [False] * n
    out: list[list[int]] = []
    for i in range(n):
        if seen[i]:
            continue
        stack, group = [i], []
        seen[i] = True
        while stack:
            k = stack.pop()
            group.append(k)
            for j, close in enumerate(near[k]):
                if close and not seen[j]:
                    seen[j] = True
                    stack.append(j)
        out.append(sorted(group))
    return out


def cell_centre(frame: tuple[np.ndarray, float, float], cell: tuple[int, int]) -> tuple[float, float]:
    """Table millimetres of a grid cell's centre (the grid's origin, clockwise angle and pitch):
    where a face lying in that cell has its centre."""
    origin, angle, pitch = frame
    a = math.radians(angle)
    c, s = math.cos(a), math.sin(a)
    vx, vy = float(cell[0]) * pitch, float(cell[1]) * pitch
    return float(origin[0]) + (c * vx - s * vy), float(origin[1]) + (s * vx + c * vy)


def cell_polygon(frame: tuple[np.ndarray, float, float], cell: tuple[int, int], half_mm: tuple[float, float]) -> np.ndarray:
    """(4, 2) table corners of a rectangle of half-sides ``half_mm`` centred on a grid cell
    (the grid's origin, clockwise angle and pitch): where a texture probe looks for a face."""
    a = math.radians(frame[1])
    c, s = math.cos(a), math.sin(a)
    x, y = cell_centre(frame, cell)
    w, h = half_mm
    return np.array([[(c * dx - s * dy) + x, (s * dx + c * dy) + y] for dx, dy in ((-w, -h), (w, -h), (w, h), (-w, h))])


#: Outline probe: how far a face's side may lie from where its grid neighbours put it (their
#: own placement, the grid's fit, the lens) and how far it may turn (degrees), in mm.
OUTLINE_SHIFT_MM = 10.0
OUTLINE_TILTS_DEG = (0.0, 3.0, -3.0, 6.0, -6.0)
#: A side is measured in this many pieces along it: a face's edge steps in all of them (but
#: one: a printed code or glare may sit on it), a sheet's edge or line crossing it in a few.
OUTLINE_PIECES = 8
OUTLINE_SPARE_PIECES = 1
#: Colour step (0-255, one channel) every piece of a free side must show for a face to lie there.
OUTLINE_STEP = 12.0
_OUTLINE_PX_PER_MM = 2.0
_OUTLINE_GUARD_MM = (2.0, 6.0)
"""Either side of an edge the colour is averaged from 2 to 6 mm away (the blurred edge itself left out)."""


def outline_probe(image: np.ndarray, homography: np.ndarray) -> Callable[[np.ndarray], tuple[float, ...]]:
    """A probe of a photo (BGR or grey) on its table plane (``homography``: image px -> table mm).
    Given a table rectangle (4 corners, clockwise as ``cell_polygon`` gives them) it tells, per
    side (corner k to k+1), how strongly the colour steps across a line near that side, the same
    way along all of it: where the grid expects a face, a face lying there shows its outline,
    while a sheet of notes, a phone or a code beside the grid has its edges elsewhere and at
    another angle. NaN where the photo does not show the side."""
    to_image = np.linalg.inv(homography)
    height, width = image.shape[:2]
    res = _OUTLINE_PX_PER_MM
    g0, g1 = _OUTLINE_GUARD_MM
    shifts = np.arange(-OUTLINE_SHIFT_MM, OUTLINE_SHIFT_MM + 0.5, 1.0)
    slopes = np.tan(np.radians(OUTLINE_TILTS_DEG))

    def side_step(a: np.ndarray, b: np.ndarray, outward: np.ndarray) -> float:
        length = float(np.hypot(*(b - a)))
        along = (b - a) / length
        t0, span = 0.1 * length, 0.8 * length  # corners left out: a neighbour's corner may touch them
        margin = OUTLINE_SHIFT_MM + g1 + float(np.abs(slopes).max()) * span / 2 + 1.0
        n_along, n_across = max(OUTLINE_PIECES, int(span * res)), int(2 * margin * res)
        # Band pixel (i along, j across) -> table mm -> image px.
        band_to_table = np.array([
            [along[0] / res, outward[0] / res, a[0] + along[0] * t0 - outward[0] * margin],
            [along[1] / res, outward[1] / res, a[1] + along[1] * t0 - outward[1] * margin],
            [0.0, 0.0, 1.0],
        ])
        m = to_image @ band_to_table
        cuts = np.linspace(0, n_along, OUTLINE_PIECES + 1)
        corners = np.array([[[c, 0.0], [c, n_across]] for c in cuts]).reshape(-1, 2)
        img = apply_homography(m, corners).reshape(-1, 2, 2)
        seen = ((img[..., 0] >= 0) & (img[..., 0] < width) & (img[..., 1] >= 0) & (img[..., 1] < height)).all(axis=1)
        pieces = np.flatnonzero(seen[:-1] & seen[1:])
        if len(pieces) < 4:
            return float("nan")
        band = cv2.warpPerspective(image, m, (n_along, n_across), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
        band = band.astype(np.float32).reshape(n_across, n_along, -1)
        edges = cuts.astype(int)
        profile = np.stack([band[:, edges[k]:edges[k + 1]].mean(axis=1) for k in pieces])  # (pieces, across, channels)
        sums = np.concatenate([np.zeros_like(profile[:, :1]), np.cumsum(profile, axis=1)], axis=1)
        centres = ((pieces + 0.5) / OUTLINE_PIECES - 0.5) * span
        edge = shifts[None, :, None] + slopes[:, None, None] * centres[None, None, :]  # (tilts, shifts, pieces) mm
        rows = np.arange(len(pieces))

        def mean(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
            i0 = np.clip(np.round((lo + margin) * res).astype(int), 0, n_across)
            i1 = np.clip(np.round((hi + margin) * res).astype(int), 0, n_across)
            return (sums[rows, i1] - sums[rows, i0]) / np.maximum(i1 - i0, 1)[..., None]

        step = mean(edge - g1, edge - g0) - mean(edge + g0, edge + g1)  # inside minus outside
        ordered = np.sort(step, axis=2)  # along the pieces
        spare = min(OUTLINE_SPARE_PIECES, len(pieces) - 3)
        return float(max(ordered[:, :, spare].max(), -ordered[:, :, -1 - spare].min(), 0.0))

    def outline(corners_mm: np.ndarray) -> tuple[float, ...]:
        q = np.asarray(corners_mm, float)[:4]
        centre = q.mean(axis=0)
        out = []
        for k in range(4):
            a, b = q[k], q[(k + 1) % 4]
            mid = (a + b) / 2 - centre
            normal = np.array([-(b - a)[1], (b - a)[0]])
            normal /= np.hypot(*normal)
            out.append(side_step(a, b, normal if normal @ mid > 0 else -normal))
        return tuple(out)

    return outline


def _sides(cell: tuple[int, int]) -> tuple[tuple[int, int], ...]:
    """The cells beyond a cell's top, right, bottom and left sides (``cell_polygon``'s corner order)."""
    x, y = cell
    return ((x, y - 1), (x + 1, y), (x, y + 1), (x - 1, y))


def _expected_faces(
    frame: tuple[np.ndarray, float, float], cell: tuple[int, int], occupied: Mapping[tuple[int, int], Located | None],
    face_mm: tuple[float, float],
) -> list[np.ndarray]:
    """Table corners where a face in a cell would lie: centred one pitch from its read neighbours
    (not from the grid's origin: the error grows along a grid), as large as they are."""
    origin, angle, pitch = frame
    a = math.radians(angle)
    c, s = math.cos(a), math.sin(a)
    x, y = cell
    near = [n for n in _sides(cell) if occupied.get(n) is not None]
    near = near or [n for n, loc in occupied.items() if loc is not None and max(abs(n[0] - x), abs(n[1] - y)) == 1]
    centres, shapes = [], set()
    for n in near:
        loc = occupied[n]
        vx, vy = (x - n[0]) * pitch, (y - n[1]) * pitch
        cx, cy = loc.centre_mm  # type: ignore[union-attr]
        centres.append((cx + c * vx - s * vy, cy + s * vx + c * vy))
        w, h = loc.component.size_mm  # type: ignore[union-attr]
        turns, _ = loc.turns_from(angle)  # type: ignore[union-attr]
        shapes.add((w, h) if turns % 2 == 0 else (h, w))
    centre = np.mean(centres, axis=0) if centres else cell_polygon(frame, cell, (0.0, 0.0)).mean(axis=0)
    return [cell_polygon((centre, angle, 1.0), (0, 0), (w / 2, h / 2)) for w, h in sorted(shapes or {face_mm})]


def face_outlined(
    view: TableView,
    frame: tuple[np.ndarray, float, float],
    occupied: Mapping[tuple[int, int], Located | None],
    cell: tuple[int, int],
    face_mm: tuple[float, float],
) -> bool:
    """Whether a face could lie in an empty grid cell by its outline: every side that borders no
    occupied cell (so lies against the table) shows a face's edge. Sides against a neighbour say
    nothing (its own edge is a few mm away). True without an outline probe, or for a cell
    enclosed by faces (on three sides when the photo does not show the fourth); false when
    the photo shows none of its free sides."""
    if view.outline is None:
        return True
    free = [k for k, n in enumerate(_sides(cell)) if n not in occupied]
    if not free:
        return True
    for corners in _expected_faces(frame, cell, occupied, face_mm):
        steps = view.outline(corners)
        seen = [steps[k] for k in free if not math.isnan(steps[k])]
        if seen and min(seen) > OUTLINE_STEP:
            return True
        if not seen and len(free) == 1:
            return True  # faces on three sides, the fourth out of the photo
    return False


@dataclass(frozen=True, slots=True)
class CoveredCells:
    """Empty grid cells that look printed: ``busy`` ones as busy as the read faces and showing a
    face's outline (reported as unknown), ``faint`` ones only clearly busier than the bare
    table, or busy without an outline (looked at again, but not reported: a sheet of notes or
    a shadow is as likely as a face blurred past reading)."""

    busy: tuple[tuple[int, int], ...] = ()
    faint: tuple[tuple[int, int], ...] = ()


def covered_cells(
    view: TableView,
    frame: tuple[np.ndarray, float, float],
    occupied: Mapping[tuple[int, int], Located],
    face_mm: tuple[float, float],
    *,
    skip: Callable[[tuple[int, int]], bool] = lambda cell: False,
) -> CoveredCells:
    """Empty cells next to occupied ones that look printed: something lies there that could
    not be read (a face too blurred, a marker under glare); reported when, with an outline
    probe, a face's outline lies there too."""
    if view.texture is None or not occupied:
        return CoveredCells()
    half = (face_mm[0] * 0.3, face_mm[1] * 0.3)

    def polygon(cell: tuple[int, int]) -> np.ndarray:
        return cell_polygon(frame, cell, half)

    sample = list(occupied)[:8]
    faces = [view.texture(polygon(c)) for c in sample]
    reference = float(np.median(faces)) if faces else 0.0
    if reference <= 0:
        return CoveredCells()
    seen: dict[tuple[int, int], float] = {}

    def texture(cell: tuple[int, int]) -> float:
        if cell not in seen:
            seen[cell] = view.texture(polygon(cell))  # type: ignore[misc]
        return seen[cell]

    # The read faces set the bar for a busy cell, and the bare table's own texture (from the
    # empty cells around the grid: most hold nothing) may lower it: in a blurred photo the read
    # faces are the sharper ones, and a face blurred past its markers falls far below them
    # while still standing well clear of the table (three times its texture). A faint cell
    # stands only clearly clear of it (twice).
    busy_bar = faint_bar = 0.6 * reference
    ring = {n for x, y in occupied for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1))
            if n not in occupied and not skip(n)}
    levels = sorted(v for v in (texture(c) for c in sorted(ring)) if v > 0)
    if len(levels) >= 4:
        bare = levels[len(levels) // 4]
        busy_bar = min(busy_bar, max(3.0 * bare, bare + 0.3 * (reference - bare)))
        faint_bar = min(busy_bar, max(2.0 * bare, bare + 0.15 * (reference - bare)))
    # A cell counts when at least two of its neighbours hold a read (or already found) face, or
    # one and it is well above the bar: a lone busy patch at the grid's edge may be clutter.
    # Found cells count as neighbours in the next round, so a run of unread faces is found
    # from both ends.
    found: dict[tuple[int, int], bool] = {}
    for _round in range(3):
        grew = False
        taken = set(occupied) | set(found)
        for x, y in sorted(taken):
            for cell in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if cell in taken or cell in found or skip(cell):
                    continue
                cx, cy = cell
                around = sum((n in taken) for n in ((cx + 1, cy), (cx - 1, cy), (cx, cy + 1), (cx, cy - 1)))
                level = texture(cell)
                if (around >= 2 and level > faint_bar) or (around == 1 and level > 1.5 * faint_bar):
                    found[cell] = around >= 2 and level > busy_bar
                    grew = True
        if not grew:
            break
    # A busy cell is reported only where a face's outline lies: a sheet of notes or a phone
    # beside the grid is as busy as a face, but its edges lie elsewhere and at another angle.
    # Without the outline it is only looked at again (as a face blurred past reading whose
    # neighbours are unread too may be: their edges meet its own). Found cells do not shield a
    # side: a sheet spanning two cells would vouch for itself.
    busy = {c for c, b in found.items() if b and face_outlined(view, frame, occupied, c, face_mm)}
    return CoveredCells(tuple(c for c in found if c in busy), tuple(c for c in found if c not in busy))
