"""Where a later look searches for tags read whole: around undecoded quads, on free board
spaces, at the places a layout asks about, and beside components it could not place."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import cache

import numpy as np

from scoring.model import Component, Space

from .config import RecogniseConfig
from .detect import Candidate, MarkerKind
from .faces import covered_points, on_faces, own_marks, quad_measures, rectangles
from .identify import Catalog, Mark, catalog_for
from .layouts import Located, LookAgain
from .layouts.anchored import table_squares
from .plane import Plane, apply_homography
from .problems import Problem
from .texture import TextureProbe
from .whole_tags import SAME_SIZE, Site, distinct_sizes, tag_pools


def tag_pools_of(catalog: Catalog) -> dict[float, tuple[int, ...]]:
    """The game's component tags (not board anchors) grouped by printed size."""
    return tag_pools(catalog.game)


def space_sizes(catalog: Catalog, space: Space, ratio: float) -> tuple[float, ...]:
    """Printed tag sizes of the components made for a space: about its size (a token on a
    planet space, not a token lying somewhere on a jungle tile's space)."""
    return sizes_for_span(catalog.game, max(space.w_mm, space.h_mm), ratio)


@cache
def sizes_for_span(game_id: str, span: float, ratio: float) -> tuple[float, ...]:
    catalog = catalog_for(game_id)
    sizes = {
        catalog.by_tag[c.tag].size_mm
        for c in catalog.components.values()
        if not c.spaces and span / ratio <= max(c.size_mm) <= ratio * span and c.tag in catalog.by_tag
    }
    return tuple(sorted(sizes))


def explanation(points: np.ndarray, located: Sequence[Located], catalog: Catalog) -> tuple[np.ndarray, np.ndarray]:
    """Per table point: the smallest own-tag side of the cards and tiles it lies on (inf on
    none; squares at least that large there are printed art) and whether it lies on a located
    face's own marker. All faces at once: this runs on every frame with undecoded quads."""
    n = len(points)
    if not located or not n:
        return np.full(n, np.inf), np.zeros(n, bool)
    face = on_faces(located, points)  # (m, n, 2) face millimetres
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
             for i, loc in enumerate(located) for m in own_marks(catalog, loc.component)
             if m.role.value in loc.source.split("+")]
    marked = np.zeros(n, bool)
    if boxes:
        b = np.array(boxes)
        f = face[b[:, 0].astype(int)]  # (k, n, 2)
        marked = ((f[..., 0] >= b[:, 1:2]) & (f[..., 1] >= b[:, 2:3])
                  & (f[..., 0] <= b[:, 3:4]) & (f[..., 1] <= b[:, 4:5])).any(axis=0)
    return smallest_art, marked


def soft_sites(
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
    smallest_art, marked = explanation(centres, located, catalog)
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


def space_sites(
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
        spaces = [sp for sp in holder.component.spaces if space_sizes(catalog, sp, cfg.soft_space_ratio)]
        if not spaces:
            continue
        chosen.append((spaces, apply_homography(holder.face_to_table, np.array([[sp.x_mm, sp.y_mm] for sp in spaces]))))
    if not chosen:
        return sites
    # Where a component read already lies, for every chosen face's spaces at once.
    covered = covered_points(np.vstack([centres for _, centres in chosen]), located)
    at = 0
    for spaces, centres in chosen:
        taken, at = covered[at : at + len(spaces)], at + len(spaces)
        gap = np.sqrt(((centres[:, None] - busy_mm[None]) ** 2).sum(axis=2)).min(axis=1)
        for space, c, busy, far in zip(spaces, centres, taken, gap):
            half = 0.5 * max(space.w_mm, space.h_mm)
            if busy or far > 2 * half:
                continue
            for size in space_sizes(catalog, space, cfg.soft_space_ratio):
                sites.append(Site((float(c[0]), float(c[1])), size, half * 0.6))
    return sites


def busy_space_sites(
    plane: Plane, located: Sequence[Located], catalog: Catalog, problems: Sequence[Problem], cfg: RecogniseConfig
) -> list[Site]:
    """Sites on the spaces the layout reported as holding something unread."""
    points = [pt for pr in problems if not pr.components for pt in pr.image_points]
    if not points:
        return []
    return space_sites(plane, located, catalog, plane.to_table(np.array(points, float)), cfg)


def look_again_sites(places: Sequence[LookAgain], catalog: Catalog) -> list[Site]:
    """Sites at the places a layout asked to look at again, for the tags printed on faces of
    the size (and kinds, when it names them) it expects there (near sizes read as one)."""
    sites: list[Site] = []
    for place in places:
        w, h = place.face_mm
        tags = tags_for_face(catalog.game, round(min(w, h)), round(max(w, h)), place.kinds)
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


def unasked(places: Sequence[LookAgain], asked: Sequence[LookAgain]) -> list[LookAgain]:
    """The places a layout asks about that no earlier look searched: a park or grid placed
    only after a later round asks about its unknown cells then (the same cell, asked again
    as the grid settles, lies within a fifth of a face of where it was)."""
    return [p for p in places if not any(
        q.face_mm == p.face_mm and q.kinds == p.kinds
        and math.hypot(p.centre_mm[0] - q.centre_mm[0], p.centre_mm[1] - q.centre_mm[1]) < 0.2 * min(p.face_mm)
        for q in asked)]


def neighbour_sites(
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
        tags = tags_for_face(catalog.game, round(min(w, h)), round(max(w, h)))
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
def marked_faces(game_id: str, short: int, long: int) -> tuple[tuple[Component, Mark], ...]:
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
def tags_for_face(
    game_id: str, short: int, long: int, kinds: tuple[str, ...] | None = None
) -> tuple[tuple[float, float], ...]:
    """Printed tag sizes of a game's components whose face has this size (to the millimetre),
    and of one of ``kinds`` when given, each with how far from the face's centre such a tag's
    centre lies (plus 2 mm)."""
    reach: dict[float, float] = {}
    for c, mark in marked_faces(game_id, short, long):
        if kinds is not None and c.kind not in kinds:
            continue
        off = np.hypot(mark.x_mm + mark.size_mm / 2 - c.size_mm[0] / 2, mark.y_mm + mark.size_mm / 2 - c.size_mm[1] / 2)
        reach[mark.size_mm] = max(reach.get(mark.size_mm, 0.0), float(off) + 2.0)
    return tuple(sorted(reach.items()))


@cache
def face_shapes(game_id: str) -> tuple[tuple[int, int], ...]:
    """The face sizes (short, long, to the millimetre) of a game's tagged cards, tiles and tokens."""
    catalog = catalog_for(game_id)
    return tuple(sorted({
        (round(min(c.size_mm)), round(max(c.size_mm)))
        for c in catalog.components.values()
        if not c.spaces and c.tag in catalog.by_tag
    }))


def face_sites(
    candidates: Sequence[Candidate], plane: Plane, located: Sequence[Located], catalog: Catalog, cfg: RecogniseConfig
) -> list[Site]:
    """Where the tag of a face blurred whole into one quad may lie: undecoded rectangles of a
    card's, tile's or token's own size off every located face, searched where that face's tag
    is printed (a whole park out of focus leaves only such quads, and no read face beside them
    to report them by)."""
    tol = cfg.soft_face_tolerance
    tags = [c for c in candidates if c.kind is MarkerKind.TAG]
    shapes = face_shapes(catalog.game)
    if tol <= 0 or not tags or not shapes:
        return []
    pts = plane.to_table(np.stack([c.corners for c in tags]).reshape(-1, 2)).reshape(-1, 4, 2)
    rectangle, short, long = rectangles(pts, *quad_measures(pts), tol)
    centres = pts.mean(axis=1)
    if located:
        size = np.array([loc.component.size_mm for loc in located])
        face = on_faces(located, centres)  # (m, n, 2)
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
                for size, reach in tags_for_face(catalog.game, s, l):
                    sites += tag_sites(at, along, size, reach, tag_offsets(catalog.game, s, l, size), s == l, turn)
    return sites


#: How far (mm) a face's tag may lie from where its blurred outline's rectangle puts it.
FACE_TAG_SLACK_MM = 6.0


def tag_sites(
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
def tag_offsets(game_id: str, short: int, long: int, size: float) -> tuple[tuple[float, float], ...]:
    """Where a tag of ``size`` lies on a game's faces of this size, from the face's centre,
    in the face's own frame turned so that its long side runs along x (one of the two ways)."""
    out: set[tuple[float, float]] = set()
    for c, mark in marked_faces(game_id, short, long):
        if mark.size_mm != size:
            continue
        w, h = c.size_mm
        dx, dy = mark.x_mm + mark.size_mm / 2 - w / 2, mark.y_mm + mark.size_mm / 2 - h / 2
        out.add((round(dx, 3), round(dy, 3)) if w >= h else (round(dy, 3), round(-dx, 3)))
    return tuple(sorted(out))
