"""Later looks at a frame: each a function from a frozen pass to the markers it found.

The second look gives undecoded tag quads another decode against this game's unseen tags,
then reads blurred tags whole at the quads; the later looks read tags whole where the
layout saw something it could not read and beside components it could not place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .config import RecogniseConfig
from .detect import Candidate, Detection, MarkerKind
from .identify import Catalog
from .layouts import Located, LookAgain
from .load import Frame
from .passes import Pass, Reading, Scan
from .plane import Plane
from .rescue import rescue_tags
from .sites import (
    busy_space_sites,
    face_sites,
    look_again_sites,
    neighbour_sites,
    soft_sites,
    tag_pools_of,
    unasked,
)
from .soft import read_sites
from .whole_tags import Site


def rescue(
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


def read_whole(
    frame: Frame, markers: Sequence[Detection], plane: Plane, sites: Sequence[Site], catalog: Catalog, cfg: RecogniseConfig
) -> list[Detection]:
    """Whole-tag readings of this game's unseen tags at these sites; a reading on top of a
    decoded marker is that marker seen again, not another tag."""
    assert cfg.soft is not None
    if not sites:
        return []
    pools = tag_pools_of(catalog)
    seen = {d.tag_id for d in markers if d.tag_id is not None}
    allowed = {t for pool in pools.values() for t in pool} - seen
    known = plane.to_table(np.array([m.centre for m in markers])) if markers else None
    found = read_sites(frame.gray, plane, sites, pools, allowed, cfg.soft, known)
    if not markers:
        return found
    centres = np.array([m.centre for m in markers])
    return [d for d in found if float(np.linalg.norm(centres - d.centre, axis=1).min()) >= 0.5 * d.side_px]


def uncovered(candidates: Sequence[Candidate], found: Sequence[Detection]) -> tuple[Candidate, ...]:
    """The undecoded quads that are none of these readings."""
    if not found or not candidates:
        return tuple(candidates)
    centres = np.array([d.centre for d in found])
    reach = 0.5 * np.array([d.side_px for d in found])
    quads = np.stack([c.corners for c in candidates]).mean(axis=1)
    hit = (np.linalg.norm(quads[:, None] - centres[None], axis=2) < reach[None]).any(axis=1)
    return tuple(c for c, h in zip(candidates, hit) if not h)


def soft_read(
    frame: Frame,
    markers: Sequence[Detection],
    candidates: Sequence[Candidate],
    plane: Plane,
    located: Sequence[Located],
    catalog: Catalog,
    cfg: RecogniseConfig,
) -> list[Detection]:
    """Whole-tag readings of this game's unseen tags at the undecoded quads."""
    sites = soft_sites(candidates, plane, located, catalog, tag_pools_of(catalog), cfg)
    sites += face_sites(candidates, plane, located, catalog, cfg)
    return read_whole(frame, markers, plane, sites, catalog, cfg)


@dataclass(frozen=True, slots=True, eq=False)
class SecondLook:
    """What the second look found on the first plane, and the quads still undecoded after it."""

    rescued: tuple[Detection, ...]
    """Undecoded tag quads decoded again against this game's unseen tags."""
    whole: tuple[Detection, ...]
    """Blurred tags read whole at the quads."""
    candidates: tuple[Candidate, ...]

    @property
    def found(self) -> tuple[Detection, ...]:
        return self.rescued + self.whole


def second_look(scan: Scan, first: Pass, tag_gray: np.ndarray | None) -> SecondLook:
    """Undecoded quads against this game's unseen tags (bits), then blurred tags read whole at
    the quads; both on the first plane (one refit follows for both)."""
    cfg, plane = scan.cfg, first.plane
    candidates, rescued, whole = first.candidates, [], []
    if plane is None:
        return SecondLook((), (), candidates)
    if cfg.rescue:
        rescued, candidates = rescue(tag_gray, scan.frame, first.markers, candidates, plane, scan.catalog, cfg)
    if cfg.soft is not None:
        whole = soft_read(scan.frame, first.markers + tuple(rescued), candidates, plane, first.located, scan.catalog, cfg)
        candidates = uncovered(candidates, whole)
    return SecondLook(tuple(rescued), tuple(whole), tuple(candidates))


@dataclass(frozen=True, slots=True)
class Asked:
    """What the later looks searched so far: beside which components, and which of the
    layout's places (a round searches only what no earlier round did)."""

    beside: frozenset[str] = frozenset()
    places: tuple[LookAgain, ...] = ()


@dataclass(frozen=True, slots=True, eq=False)
class LaterLook:
    """What one later look read whole, and everything searched once it is done."""

    found: tuple[Detection, ...]
    asked: Asked


def look_again(scan: Scan, reading: Reading, asked: Asked, *, first: bool) -> LaterLook:
    """The places where the layout saw something it could not read (busy board spaces, on the
    first round only; unknown cells it asks about) and the places beside components it could
    not place, read whole in one go: an unread park is read tile by tile out from the one
    tile read first, one round at a time."""
    seen, layout = reading.seen, scan.layout
    plane = seen.plane
    assert plane is not None, "a later look needs the table plane"
    placed_now = {id(p.located) for p in reading.result.placed}
    loose = [loc for loc in seen.located if id(loc) not in placed_now and not loc.component.spaces
             and loc.component.id not in asked.beside
             and (layout.neighbour_kinds is None or loc.component.kind in layout.neighbour_kinds)]
    sites: list[Site] = []
    if first:
        sites = busy_space_sites(plane, seen.located, scan.catalog, reading.problems, scan.cfg)
    fresh = unasked(reading.result.look_again, asked.places)
    sites += look_again_sites(fresh, scan.catalog)
    if loose:
        sites += neighbour_sites(loose, seen.located, scan.catalog, square=layout.square_neighbours,
                                 texture=seen.texture(scan))
    found = read_whole(scan.frame, seen.markers, plane, sites, scan.catalog, scan.cfg)
    return LaterLook(tuple(found), Asked(asked.beside | {loc.component.id for loc in loose}, asked.places + tuple(fresh)))
