"""Unread components on known places: a board space, a tile slot, a platform slot.

A layout knows where components can lie (the spaces printed on a located board or tile).
A component whose markers were too blurred to decode, or did not even show as a quad,
still prints a tag: its place looks as busy as a printed marker, while an empty space of
our printed faces is a plain fill. Each frame is its own calibration: the texture of the
markers that were read (anchors, tags of read components) is what "a marker here" looks
like, and the plain parts of the holding face are what "nothing here" looks like, so
blur, noise and light of the photo move both alike. A busy place is reported as unknown,
never guessed.

Probing is most of a board layout's time, so each square is probed once per reading
(``remembering``), a holder's plain face only when one of its places is looked at, and the
read markers only when a place's verdict depends on them.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cache

import cv2
import numpy as np

from scoring.markers import marker_layout
from scoring.model import Component

from . import Located, TableView, probe_all
from .anchored import table_squares, table_to_face

#: A place counts as occupied when it is at least this busy relative to a read marker...
MARKER_RATIO = 0.35
#: ...and this many times busier than the plain parts of the face holding it.
PLAIN_RATIO = 3.0
#: A place as busy as the read markers themselves (this share of them) counts at this many
#: times its face's plain parts: in the hard scenes, the fan steps where an unread card's tag
#: showed measured 0.9-1.0 of the markers and 2.5-2.6 times the plain parts; empty ones at
#: most 0.1 of the markers.
MARKED_RATIO = 0.8
MARKED_PLAIN_RATIO = 2.0
#: Half side of the square probed at a place's centre (inside any tag the games print).
PROBE_HALF_MM = 5.0
#: At most this many read markers probed for the reference (the median is what counts).
MARKER_SAMPLES = 12
#: At most this many plain probes per holding face (the median is what counts).
PLAIN_SAMPLES = 6
#: A printed marker blurred in a hard view still shows this far (mm) beyond its quiet zone.
BLUR_MM = 4.0


@dataclass(frozen=True, slots=True, eq=False)
class Spot:
    """A place on a located face that can hold a component, with what to report when it does."""

    holder: Located
    x_mm: float
    """Centre of the place on the holder's upright face."""
    y_mm: float
    key: Hashable
    """What the layout reports for this place (an unknown placement)."""
    half_mm: float = PROBE_HALF_MM
    probes: tuple[tuple[float, float], ...] = ((0.0, 0.0),)
    """Offsets (holder face mm) of the squares probed; the busiest counts. A tile whose turn is
    unknown has its tag in one of several corners."""


def remembering(view: TableView) -> TableView:
    """The same view, its texture probe measuring each polygon once: a layout asks for the same
    squares in several passes (the marker and plain references, places, undecoded quads)."""
    if view.texture is None:
        return view
    return replace(view, texture=_Remembered(view.texture))


@dataclass(frozen=True)
class _Remembered:
    """A texture probe that measures each polygon once, and many at once when its probe can."""

    probe: Callable[[np.ndarray], float]
    memo: dict[bytes, float] = field(default_factory=dict)

    def __call__(self, polygon_mm: np.ndarray) -> float:
        return self.many([polygon_mm])[0]

    def many(self, polygons_mm: Sequence[np.ndarray]) -> list[float]:
        keys = [np.ascontiguousarray(p, np.float64).tobytes() for p in polygons_mm]
        missing = {k: p for k, p in zip(keys, polygons_mm) if k not in self.memo}
        if missing:
            self.memo.update(zip(missing, probe_all(self.probe, list(missing.values()))))
        return [self.memo[k] for k in keys]


def image_point(spot: Spot) -> tuple[float, float]:
    """Where a place lies in the photo (through the holder's face outline), for the players' overlay."""
    w, h = spot.holder.component.size_mm
    face = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    m = cv2.getPerspectiveTransform(face, np.asarray(spot.holder.image_outline, np.float32))
    p = m @ np.array([spot.x_mm, spot.y_mm, 1.0])
    return (float(p[0] / p[2]), float(p[1] / p[2]))


def marker_boxes(game: str, loc: Located) -> tuple[tuple[float, float, float], ...]:
    """Centres and sides (face mm) of a component's printed tags: its own tag and its anchors."""
    return _marker_boxes(game, loc.component)


@cache
def _marker_boxes(game: str, comp: Component) -> tuple[tuple[float, float, float], ...]:
    out = [(a.x_mm, a.y_mm, a.size_mm) for a in comp.anchors]
    try:
        tag = marker_layout(game, comp).tag
    except Exception:  # noqa: BLE001 - a component without a marker layout has only its anchors
        return tuple(out)
    cx, cy = tag.centre_mm
    return tuple(out + [(cx, cy, tag.size_mm)])


@cache
def qr_box(game: str, comp: Component) -> tuple[float, float, float] | None:
    """A component's QR code on its face: centre (mm) and side with its quiet zone; None
    without one."""
    try:
        qr = marker_layout(game, comp).qr
    except Exception:  # noqa: BLE001
        return None
    return None if qr is None else (*qr.centre_mm, qr.size_mm + 2 * qr.quiet_mm)


def marker_texture(view: TableView, items: Iterable[Located], half_mm: float = PROBE_HALF_MM) -> float:
    """Median texture of the read markers of some located faces: a printed tag in this photo.
    0 when none is in view (or the view has no texture probe)."""
    if view.texture is None:
        return 0.0
    places = [(loc, x, y) for loc in items for x, y, size in marker_boxes(view.game, loc) if size / 2 >= half_mm]
    values: list[float] = []
    # The first MARKER_SAMPLES markers in view, probed a batch at a time (as many as still needed).
    while places and len(values) < MARKER_SAMPLES:
        batch, places = places[: MARKER_SAMPLES - len(values)], places[MARKER_SAMPLES - len(values):]
        values += [v for v in probe_all(view.texture, table_squares([(loc, x, y, half_mm) for loc, x, y in batch])) if v > 0]
    return float(np.median(values)) if values else 0.0


@cache
def plain_points(game: str, component: Component, half_mm: float) -> tuple[tuple[float, float], ...]:
    """Face points whose probe square misses every space and marker of a component (at most
    ``PLAIN_SAMPLES``, spread over the face): where nothing lies and nothing is printed but the fill."""
    w, h = component.size_mm
    keep = [(s.x_mm, s.y_mm, s.w_mm / 2 + 1, s.h_mm / 2 + 1) for s in component.spaces]
    keep += [(x, y, size / 2 + 3, size / 2 + 3) for x, y, size in _marker_boxes(game, component)]
    qr = qr_box(game, component)
    if qr is not None:
        keep.append((qr[0], qr[1], qr[2] / 2 + 1, qr[2] / 2 + 1))
    step = 2 * half_mm + 2
    xs, ys = np.meshgrid(np.arange(half_mm + 1, w - half_mm - 1 + 1e-6, step), np.arange(half_mm + 1, h - half_mm - 1 + 1e-6, step))
    pts = np.column_stack([xs.ravel(), ys.ravel()])
    ok = np.ones(len(pts), bool)
    for kx, ky, hx, hy in keep:
        ok &= (np.abs(pts[:, 0] - kx) > hx + half_mm) | (np.abs(pts[:, 1] - ky) > hy + half_mm)
    pts = pts[ok]
    if not len(pts):
        return ()
    pick = sorted(set(np.linspace(0, len(pts) - 1, min(PLAIN_SAMPLES, len(pts))).round().astype(int)))
    return tuple((float(pts[k, 0]), float(pts[k, 1])) for k in pick)


def plain_level(values: Sequence[float]) -> float:
    """The plain face's texture: a low quantile, as printed text may lie where plain probes fall."""
    return float(np.percentile(values, 25)) if values else 0.0


def _faces(view: TableView) -> tuple[list[Located], np.ndarray, np.ndarray]:
    """Every located face with its table -> face transform and size, for point-on-face tests."""
    locs = list(view.located)
    if not locs:
        return locs, np.zeros((0, 3, 3)), np.zeros((0, 2))
    return locs, np.stack([table_to_face(c) for c in locs]), np.array([c.component.size_mm for c in locs])


def covered(faces: tuple[list[Located], np.ndarray, np.ndarray], spot: Spot) -> bool:
    """Whether a read component smaller than the holder lies over the place (whatever is under it is hidden)."""
    locs, inv, size = faces
    if not locs:
        return False
    xy = spot.holder.face_point(spot.x_mm, spot.y_mm)
    f = inv @ np.array([xy[0], xy[1], 1.0])
    f = f[:, :2] / f[:, 2:3]
    on = np.all((f >= 0) & (f <= size), axis=1)
    area = spot.holder.component.size_mm[0] * spot.holder.component.size_mm[1]
    smaller = size[:, 0] * size[:, 1] < area
    return bool(np.any(on & smaller & np.array([c is not spot.holder for c in locs])))


def _floors(
    view: TableView, holders: Sequence[Located], half_mm: float
) -> tuple[Callable[[Located], float], Callable[[Iterable[Located]], None]]:
    """Per holder: the plain level its places are compared with. Probed only for holders whose
    places are looked at, and the pool of all ``holders`` only when one has too little plain face
    of its own (a tile full of slots). A holder's plain samples are the textures at its
    ``plain_points`` (nothing lies and nothing is printed there but the fill). Also returns
    ``fetch``: the plain samples of many holders probed in one go."""
    samples: dict[int, list[float]] = {}
    levels: dict[int, float] = {}

    def fetch(faces: Iterable[Located], also: Sequence[tuple[Located, float, float, float]] = ()) -> list[float]:
        """Probe these faces' plain samples, and the squares ``also`` (face, x, y, half side) in
        the same go (their textures are returned)."""
        todo = [f for f in _unique(faces) if id(f) not in samples]
        points = [plain_points(view.game, f.component, half_mm) for f in todo]
        places = [(f, x, y, half_mm) for f, face_points in zip(todo, points) for x, y in face_points] + list(also)
        values = probe_all(view.texture, table_squares(places)) if places and view.texture is not None else [0.0] * len(places)
        at = 0
        for f, face_points in zip(todo, points):
            samples[id(f)] = [v for v in values[at : at + len(face_points)] if v > 0]
            at += len(face_points)
        return values[at:]

    def own(face: Located) -> list[float]:
        fetch([face])
        return samples[id(face)]

    @cache
    def pooled() -> float:
        fetch(holders)
        return plain_level([v for face in _unique(holders) for v in own(face)])

    def floor(face: Located) -> float:
        if id(face) not in levels:
            values = own(face)
            levels[id(face)] = plain_level(values) if len(values) >= 3 else pooled()
        return levels[id(face)]

    return floor, fetch


def _unique(faces: Iterable[Located]) -> list[Located]:
    seen: dict[int, Located] = {}
    for f in faces:
        seen.setdefault(id(f), f)
    return list(seen.values())


#: A marker reference given as is, or as a function probing the read markers when a place's
#: verdict needs it (a place that clearly looks plain, or clearly busy, needs no reference).
Reference = float | Callable[[], float]


def _looks(view: TableView, spots: Sequence[Spot], others: Sequence[Located], plain_only: bool) -> list[tuple[float, float] | None]:
    """Per place: the texture of its busiest probe and its holder's plain level; None when the
    photo cannot tell (a read component covers the place, no plain face to compare with).
    ``plain_only``: stop probing a place once it is clearly busier than its plain face."""
    texture = view.texture
    assert texture is not None
    floor_of, fetch = _floors(view, [s.holder for s in spots] + list(others), spots[0].half_mm)
    faces = _faces(view)
    open_spots = [i for i, spot in enumerate(spots) if not covered(faces, spot)]  # else hidden under a read component
    # Every holder's plain face in one go; without ``plain_only``, every probe square of every
    # open place in the same go.
    pairs = [] if plain_only else [(i, dx, dy) for i in open_spots for dx, dy in spots[i].probes]
    looked = fetch((spots[i].holder for i in open_spots),
                   [(spots[i].holder, spots[i].x_mm + dx, spots[i].y_mm + dy, spots[i].half_mm) for i, dx, dy in pairs])
    floors: dict[int, float] = {}
    for i in open_spots:
        floor = floor_of(spots[i].holder)
        if floor > 0:
            floors[i] = floor
    # Every place's k-th probe square in one go (a place done once clearly busy, with ``plain_only``).
    busiest = dict.fromkeys(floors, 0.0)
    pending = list(floors) if plain_only else []
    for (i, _, _), v in zip(pairs, looked):
        if i in busiest:
            busiest[i] = max(busiest[i], v)
    for k in range(max((len(spots[i].probes) for i in pending), default=0)):
        now = [i for i in pending if k < len(spots[i].probes)]
        squares = table_squares([(spots[i].holder, spots[i].x_mm + spots[i].probes[k][0], spots[i].y_mm + spots[i].probes[k][1],
                                  spots[i].half_mm) for i in now])
        for i, v in zip(now, probe_all(texture, squares)):
            busiest[i] = max(busiest[i], v)
        if plain_only:
            pending = [i for i in pending if busiest[i] < PLAIN_RATIO * floors[i]]
    return [(busiest[i], floors[i]) if i in floors else None for i in range(len(spots))]


def _verdict(v: float, floor: float, reference: float, plain_ratio: float = PLAIN_RATIO) -> bool | None:
    if reference <= 0 or v <= 0 or reference < MARKED_PLAIN_RATIO * floor:
        return None  # the photo cannot tell a marker from the plain face
    if v >= MARKED_RATIO * reference and v >= MARKED_PLAIN_RATIO * floor:
        return True  # as busy as a read marker itself: a tag lies there, however busy the face's print
    if reference < plain_ratio * floor:
        return None
    if v >= MARKER_RATIO * reference and v >= plain_ratio * floor:
        return True
    if v < MARKER_RATIO * reference and v < plain_ratio * floor:
        return False
    return None


def verdicts(view: TableView, spots: Sequence[Spot], reference: float, others: Sequence[Located] = ()) -> list[bool | None]:
    """Per place: True when it looks as busy as a printed marker (``reference``) and clearly busier
    than the plain parts of its holder (something lies there that was not read), False when it
    looks like the plain face, None when the photo cannot tell (no marker or plain face to compare
    with, or a read component covering the place). A holder with too little plain face of its own
    (a tile full of slots) is compared with the plain parts of all the holders and ``others``."""
    if view.texture is None or reference <= 0 or not spots:
        return [None] * len(spots)
    return [None if look is None else _verdict(*look, reference) for look in _looks(view, spots, others, False)]


def busy_spots(view: TableView, spots: Sequence[Spot], reference: Reference, plain_ratio: float = PLAIN_RATIO) -> list[Spot]:
    """The places ``verdicts`` finds busy: something lies there that was not read (``plain_ratio``:
    how many times busier than the plain face, for places whose empty print is plainer than most)."""
    if view.texture is None or not spots:
        return []
    low = min(plain_ratio, MARKED_PLAIN_RATIO)
    busier = [(s, look) for s, look in zip(spots, _looks(view, spots, (), False)) if look and look[0] >= low * look[1]]
    if not busier:
        return []
    ref = reference() if callable(reference) else reference
    return [s for s, look in busier if _verdict(*look, ref, plain_ratio) is True]


@cache
def free_points(game: str, component: Component, pitch_mm: float, half_mm: float = PROBE_HALF_MM) -> tuple[tuple[float, float], ...]:
    """Face points on a grid of about ``pitch_mm`` whose probe square misses the component's own
    markers, QR code and edge: where something lying loose on the face (a token on a card) shows."""
    w, h = component.size_mm
    keep = [(x, y, size / 2 + 1) for x, y, size in _marker_boxes(game, component)]
    qr = qr_box(game, component)
    if qr is not None:
        keep.append((qr[0], qr[1], qr[2] / 2))
    edge = half_mm + BLUR_MM  # the face's own edge against the table is busy
    nx, ny = 1 + max(0, round((w - 2 * edge) / pitch_mm)), 1 + max(0, round((h - 2 * edge) / pitch_mm))
    out = []
    for y in np.linspace(edge, h - edge, ny):
        for x in np.linspace(edge, w - edge, nx):
            x, y = float(x), float(y)
            if all(abs(x - kx) > r + half_mm + BLUR_MM or abs(y - ky) > r + half_mm + BLUR_MM for kx, ky, r in keep):
                out.append((x, y))
    return tuple(out)


def plain_spots(view: TableView, spots: Sequence[Spot], reference: Reference, others: Sequence[Located] = ()) -> list[bool]:
    """Per place: whether ``verdicts`` finds it plain: it clearly looks like its printed face, so an
    undecoded quad there is the space's own printed outline or a shadow's edge, not a component."""
    if view.texture is None or not spots:
        return [False] * len(spots)
    looks = _looks(view, spots, others, True)
    if not any(look and 0 < look[0] < PLAIN_RATIO * look[1] for look in looks):
        return [False] * len(spots)
    ref = reference() if callable(reference) else reference
    return [look is not None and _verdict(*look, ref) is False for look in looks]


def plain_spot(view: TableView, spot: Spot, reference: Reference, others: Sequence[Located] = ()) -> bool:
    """Whether a place clearly looks like its plain printed face (see ``plain_spots``)."""
    return plain_spots(view, [spot], reference, others)[0]
