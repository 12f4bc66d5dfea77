"""Whether a face lies where a grid expects one: its outline in the photo, and cells covered."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

from ..plane import apply_homography
from .base import Located, TableView
from .grid import cell_polygon, cell_polygons

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


#: Fewest pieces of a side the photo must show for its step to count.
_OUTLINE_MIN_PIECES = 4
_OUTLINE_SHIFTS_MM = np.arange(-OUTLINE_SHIFT_MM, OUTLINE_SHIFT_MM + 0.5, 1.0)
_OUTLINE_SLOPES = np.tan(np.radians(OUTLINE_TILTS_DEG))
_OUTLINE_MAX_SLOPE = float(np.abs(_OUTLINE_SLOPES).max())
_OUTLINE_PIECE_CENTRES = (np.arange(OUTLINE_PIECES) + 0.5) / OUTLINE_PIECES - 0.5
"""Where each piece's middle lies along a side, in spans from the side's middle."""
_OUTLINE_GUARDS = np.array([-_OUTLINE_GUARD_MM[1], -_OUTLINE_GUARD_MM[0], _OUTLINE_GUARD_MM[0], _OUTLINE_GUARD_MM[1]])[
    :, None, None, None]
"""Rows 6 and 2 mm inside, 2 and 6 mm outside an edge: (guard, tilt, shift, piece) once broadcast."""


def outline_probe(image: np.ndarray, homography: np.ndarray) -> OutlineProbe:
    """A probe of a photo (BGR or grey) on its table plane (``homography``: image px -> table mm).
    Given a table rectangle (4 corners, clockwise as ``cell_polygon`` gives them) it tells, per
    side (corner k to k+1), how strongly the colour steps across a line near that side, the same
    way along all of it: where the grid expects a face, a face lying there shows its outline,
    while a sheet of notes, a phone or a code beside the grid has its edges elsewhere and at
    another angle. NaN where the photo does not show the side."""
    return OutlineProbe(image, np.linalg.inv(homography))


@dataclass(frozen=True, slots=True, eq=False)
class _Band:
    """A strip along one side of a rectangle, rectified at ``_OUTLINE_PX_PER_MM`` and cut at
    ``cuts`` into ``OUTLINE_PIECES`` along it; ``seen`` marks the pieces the photo shows whole."""

    pixels: np.ndarray | None
    """(across, along, channels); None when too little of it is in the photo to count."""
    cuts: np.ndarray
    seen: np.ndarray
    margin: float
    span: float


@dataclass(frozen=True, slots=True, eq=False)
class OutlineProbe:
    """The outline probe of one photo (see ``outline_probe``): called with a table rectangle it
    measures all four sides; ``steps`` measures only the sides asked for (a side against a read
    neighbour says nothing), all of them in one batch of array operations."""

    image: np.ndarray
    to_image: np.ndarray
    """3x3 table mm -> image px."""
    memo: dict[tuple[bytes, int], float] = field(default_factory=dict, repr=False)
    """Each side measured so far (a rectangle's corners and the side): a layout asks about the
    same expected faces again as it finds more of a grid, and again when run after a later look."""

    def __call__(self, corners_mm: np.ndarray) -> tuple[float, ...]:
        return self.steps(corners_mm, range(4))

    def steps(self, corners_mm: np.ndarray, sides: Iterable[int]) -> tuple[float, ...]:
        """Colour step across each side of a table rectangle among ``sides`` (NaN elsewhere, and
        where the photo does not show the side)."""
        return self.steps_many([(corners_mm, sides)])[0]

    def steps_many(self, asked: Sequence[tuple[np.ndarray, Iterable[int]]]) -> list[tuple[float, ...]]:
        """``steps`` of many rectangles, each with its sides: every side not measured yet in
        one batch."""
        keys, wanted, bands, todo = [], [], [], []
        for corners_mm, sides in asked:
            q = np.ascontiguousarray(np.asarray(corners_mm, float)[:4])
            centre = q.mean(axis=0)
            key = q.tobytes()
            keys.append(key)
            wanted.append(set(sides))
            for k in sorted(wanted[-1]):
                if (key, k) in self.memo or (key, k) in todo:
                    continue
                a, b = q[k], q[(k + 1) % 4]
                mid = (a + b) / 2 - centre
                normal = np.array([-(b - a)[1], (b - a)[0]])
                normal /= np.hypot(*normal)
                bands.append(self._band(a, b, normal if normal @ mid > 0 else -normal))
                todo.append((key, k))
        for side, v in zip(todo, _band_steps(bands)):
            self.memo[side] = v
        return [tuple(self.memo[(key, k)] if k in want else math.nan for k in range(4)) for key, want in zip(keys, wanted)]

    def _band(self, a: np.ndarray, b: np.ndarray, outward: np.ndarray) -> _Band:
        """The strip along side a -> b, ``outward`` pointing away from the rectangle."""
        res = _OUTLINE_PX_PER_MM
        height, width = self.image.shape[:2]
        length = float(np.hypot(*(b - a)))
        along = (b - a) / length
        t0, span = 0.1 * length, 0.8 * length  # corners left out: a neighbour's corner may touch them
        margin = OUTLINE_SHIFT_MM + _OUTLINE_GUARD_MM[1] + _OUTLINE_MAX_SLOPE * span / 2 + 1.0
        n_along, n_across = max(OUTLINE_PIECES, int(span * res)), int(2 * margin * res)
        # Band pixel (i along, j across) -> table mm -> image px.
        band_to_table = np.array([
            [along[0] / res, outward[0] / res, a[0] + along[0] * t0 - outward[0] * margin],
            [along[1] / res, outward[1] / res, a[1] + along[1] * t0 - outward[1] * margin],
            [0.0, 0.0, 1.0],
        ])
        m = self.to_image @ band_to_table
        cuts = np.linspace(0, n_along, OUTLINE_PIECES + 1)
        ends = np.zeros((OUTLINE_PIECES + 1, 2, 2))  # each cut's two ends, across the band
        ends[:, :, 0] = cuts[:, None]
        ends[:, 1, 1] = n_across
        img = apply_homography(m, ends.reshape(-1, 2)).reshape(-1, 2, 2)
        shown = ((img[..., 0] >= 0) & (img[..., 0] < width) & (img[..., 1] >= 0) & (img[..., 1] < height)).all(axis=1)
        seen = shown[:-1] & shown[1:]
        pixels = None
        if np.count_nonzero(seen) >= _OUTLINE_MIN_PIECES:
            warped = cv2.warpPerspective(self.image, m, (n_along, n_across), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
            pixels = warped.reshape(n_across, n_along, -1)
        return _Band(pixels, cuts.astype(int), seen, margin, span)


@lru_cache(maxsize=256)
def _band_rows(margin: float, span: float, n_across: int) -> np.ndarray:
    """The band rows bounding the four guard strips of every tilt, shift and piece of a band of
    this shape: (guard, tilt, shift, piece). Bands come in a few shapes only (a game's faces
    have a few sizes), so each shape's rows are worked out once (a bounded cache: a long-running
    scanner meets a side of slightly different length now and then)."""
    centres = _OUTLINE_PIECE_CENTRES * span  # each piece's middle, mm along the side
    edge = _OUTLINE_SHIFTS_MM[None, :, None] + _OUTLINE_SLOPES[:, None, None] * centres[None, None, :]
    rows = np.clip(np.round((edge[None] + _OUTLINE_GUARDS + margin) * _OUTLINE_PX_PER_MM).astype(int), 0, n_across)
    rows.flags.writeable = False
    return rows


def _band_steps(bands: Sequence[_Band]) -> list[float]:
    """Per band, the strongest colour step that lies along it, at the same offset and tilt, in
    all its shown pieces but the spare one: inside minus outside the line, the colour averaged
    from 2 to 6 mm off it. The bands are stacked (padded with zeros past their own rows) so a
    rectangle's sides cost a few array operations, not a few dozen each."""
    out = [math.nan] * len(bands)
    use = [i for i, band in enumerate(bands) if band.pixels is not None]
    if not use:
        return out
    chosen = [bands[i] for i in use]
    pixels = [b.pixels for b in chosen if b.pixels is not None]
    n, pieces, channels = len(chosen), OUTLINE_PIECES, pixels[0].shape[2]
    n_across = np.array([p.shape[0] for p in pixels])
    # Per band and piece, each row's colour averaged along the piece, then summed up across the
    # band: (across + 1, band, piece, channel).
    sums = np.zeros((int(n_across.max()) + 1, n, pieces, channels), np.float32)
    for s, (b, p) in enumerate(zip(chosen, pixels)):
        totals = np.diff(np.diff(cv2.integral(p).take(b.cuts, axis=1), axis=0), axis=1)  # exact integer sums
        sums[1 : len(totals) + 1, s] = totals.reshape(-1, pieces, channels) / np.diff(b.cuts).astype(np.float32)[:, None]
    np.cumsum(sums[1:], axis=0, out=sums[1:])
    rows = np.stack([_band_rows(b.margin, b.span, len(p)) for b, p in zip(chosen, pixels)], axis=1)
    at = (rows * n + np.arange(n)[:, None, None, None]) * pieces + np.arange(pieces)
    values = sums.reshape(-1, channels).take(at, axis=0)  # (guard, band, tilt, shift, piece, channel)
    inside = (values[1] - values[0]) / np.maximum(rows[1] - rows[0], 1)[..., None]
    outside = (values[3] - values[2]) / np.maximum(rows[3] - rows[2], 1)[..., None]
    step = (inside - outside).transpose(0, 1, 2, 4, 3)  # (band, tilt, shift, channel, piece)
    seen = np.array([b.seen for b in chosen])
    if not seen.all():
        step[~np.broadcast_to(seen[:, None, None, None, :], step.shape)] = np.nan
    ordered = np.sort(step, axis=-1)  # along the pieces, the unseen ones last
    for s, (i, shown) in enumerate(zip(use, seen.sum(axis=1).tolist())):
        spare = min(OUTLINE_SPARE_PIECES, shown - 3)
        out[i] = max(float(ordered[s, ..., spare].max()), float(-ordered[s, ..., shown - 1 - spare].min()), 0.0)
    return out


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
    return cell in outlined_cells(view, frame, occupied, [cell], face_mm)


def outlined_cells(
    view: TableView,
    frame: tuple[np.ndarray, float, float],
    occupied: Mapping[tuple[int, int], Located | None],
    cells: Iterable[tuple[int, int]],
    face_mm: tuple[float, float],
) -> set[tuple[int, int]]:
    """The cells among ``cells`` that ``face_outlined`` holds: each cell's expected faces are
    tried in turn, the sides of every cell's next one measured in one batch. One free side of
    each is measured first: where it shows no edge the face is not there (most cells asked
    about hold clutter), and only the others have their remaining sides measured."""
    cells = list(cells)
    if view.outline is None:
        return set(cells)
    probe = view.outline
    out: set[tuple[int, int]] = set()
    pending: list[tuple[tuple[int, int], list[int], list[np.ndarray]]] = []
    for cell in cells:
        free = [k for k, n in enumerate(_sides(cell)) if n not in occupied]
        if not free:
            out.add(cell)
        else:
            pending.append((cell, free, _expected_faces(frame, cell, occupied, face_mm)))
    turn = 0
    while pending:
        if isinstance(probe, OutlineProbe):
            first = probe.steps_many([(faces[turn], free[:1]) for _, free, faces in pending])
            open_ = [i for i, ((_, free, _), steps) in enumerate(zip(pending, first))
                     if math.isnan(steps[free[0]]) or steps[free[0]] > OUTLINE_STEP]
            rest = iter(probe.steps_many([(pending[i][2][turn], pending[i][1]) for i in open_]))
            chosen = set(open_)
            all_steps = [next(rest) if i in chosen else steps for i, steps in enumerate(first)]
        else:
            all_steps = [probe(faces[turn]) for _, _, faces in pending]
        still = []
        for (cell, free, faces), steps in zip(pending, all_steps):
            seen = [steps[k] for k in free if not math.isnan(steps[k])]
            if (seen and min(seen) > OUTLINE_STEP) or (not seen and len(free) == 1):
                out.add(cell)  # (no side seen but one: faces on three sides, the fourth out of the photo)
            elif turn + 1 < len(faces):
                still.append((cell, free, faces))
        pending, turn = still, turn + 1
    return out


@dataclass(frozen=True, slots=True)
class CoveredCells:
    """Empty grid cells that look printed: ``busy`` ones as busy as the read faces and showing a
    face's outline (reported as unknown), ``faint`` ones only clearly busier than the bare
    table, or busy without an outline (looked at again, but not reported: a sheet of notes or
    a shadow is as likely as a face blurred past reading)."""

    busy: tuple[tuple[int, int], ...] = ()
    faint: tuple[tuple[int, int], ...] = ()


def _joined(cells: set[tuple[int, int]], anchors: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """The cells joined to an anchor through a chain of side-sharing cells (a run of unread
    faces starts at a read one: the far end of a row is as much a face as the near one)."""
    joined = {c for c in cells if any(n in anchors for n in _sides(c))}
    grow = joined
    while grow:
        grow = {c for c in cells - joined if any(n in grow for n in _sides(c))}
        joined |= grow
    return joined


def probe_all(probe: Callable[[np.ndarray], float], polygons: Sequence[np.ndarray]) -> list[float]:
    """The texture of each polygon: in one go when the probe can (the photo's own probe
    samples every patch with one warp), else one by one."""
    many = getattr(probe, "many", None)
    if many is None:
        return [probe(p) for p in polygons]
    return list(many(polygons if isinstance(polygons, np.ndarray) else list(polygons)))


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
    probe = view.texture
    sample = list(occupied)[:8]
    # The ring takes in the cells ``skip`` leaves out too: they only measure the bare table
    # (around a full market every other cell is skipped, and its one unread cell needs a bar).
    ring = sorted({n for x, y in occupied for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1))
                   if n not in occupied})
    # The read faces and the ring around them, probed in one go.
    values = probe_all(probe, cell_polygons(frame, sample + ring, half))
    faces = values[: len(sample)]
    reference = float(np.median(faces)) if faces else 0.0
    if reference <= 0:
        return CoveredCells()
    # The read faces set the bar for a busy cell, and the bare table's own texture (from the
    # empty cells around the grid: most hold nothing) may lower it: in a blurred photo the read
    # faces are the sharper ones, and a face blurred past its markers falls far below them
    # while still standing well clear of the table (three times its texture). A faint cell
    # stands only clearly clear of it (twice).
    busy_bar = faint_bar = 0.6 * reference
    seen = dict(zip(ring, values[len(sample):]))

    def texture(cell: tuple[int, int]) -> float:
        if cell not in seen:
            seen[cell] = probe(cell_polygon(frame, cell, half))
        return seen[cell]

    levels = sorted(v for v in seen.values() if v > 0)
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
        # The cells this round may look at, probed together (most are the ring's, seen already).
        fresh = sorted({n for x, y in taken for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1))
                        if n not in taken and n not in seen and not skip(n)})
        if fresh:
            seen.update(zip(fresh, probe_all(probe, cell_polygons(frame, fresh, half))))
        for x, y in sorted(taken):
            for cell in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                # A faint cell is looked at again: a neighbour found since may make it busy.
                if cell in occupied or found.get(cell) or skip(cell):
                    continue
                cx, cy = cell
                around = ((cx + 1, cy) in taken) + ((cx - 1, cy) in taken) + ((cx, cy + 1) in taken) + ((cx, cy - 1) in taken)
                level = texture(cell)
                if (around >= 2 and level > faint_bar) or (around == 1 and level > 1.5 * faint_bar):
                    # A lone cell as busy as a face is strong too where a face's outline can be
                    # checked: only its outline on every side against the table (below) gets it
                    # reported, a patch of clutter beside the grid has its edges elsewhere.
                    busy_now = level > busy_bar and (around >= 2 or view.outline is not None)
                    if found.get(cell) is None or busy_now:
                        found[cell] = busy_now
                        grew = True
        if not grew:
            break
    # A busy cell is reported only where a face's outline lies: a sheet of notes or a phone
    # beside the grid is as busy as a face, but its edges lie elsewhere and at another angle.
    # Without the outline it is only looked at again. Found cells do not shield a side of
    # their own accord (a sheet spanning two cells would vouch for itself): see the run below.
    # A lone cell at the grid's edge clearly above the bare table, but not by enough to count,
    # is still worth a look (only a look: such a patch is as often clutter).
    dim = [c for c in ring if c not in found and not skip(c) and seen[c] > faint_bar]
    strong = {c for c, b in found.items() if b}
    busy = outlined_cells(view, frame, occupied, sorted(strong), face_mm)
    # A run of faces blurred past reading out from a read one: blur hides the gap between two
    # of them, so their shared side shows no edge. Cells joined to a read face through such a
    # run may lean on each other there, as long as each shows a face's edge on every side
    # against the table: a sheet's edges would have to fall on the grid's on all of them.
    anchors = set(occupied) | busy
    run = _joined(strong - busy, anchors)
    while run:
        shield = dict.fromkeys(run | busy)
        failed = run - outlined_cells(view, frame, {**shield, **occupied}, sorted(run), face_mm)
        if not failed:
            break
        run = _joined(run - failed, anchors)
    busy |= run
    return CoveredCells(tuple(c for c in found if c in busy), tuple(c for c in found if c not in busy) + tuple(dim))
