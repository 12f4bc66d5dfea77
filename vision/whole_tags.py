"""What a whole-tag read is asked: where a tag may lie (Site), which tags it may be (a game's
pools by printed size), and how sure a reading must be (SoftConfig)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from .sightings import MarkRole, catalog_for


@dataclass(frozen=True, slots=True)
class SoftConfig:
    """Acceptance thresholds of a whole-tag reading (measured by bench/soft_read.py)."""

    min_border: float = 0.7
    """Correlation of the fitted border and quiet zone: below it there is no tag to read."""
    min_score: float = 0.75
    """Correlation of the best code with the whole patch."""
    max_deficit: float = 0.035
    """How much worse the best code may explain the patch than the border explained its ring."""
    min_ratio: float = 1.5
    """Unexplained energy of the best other tag over that of the winner."""
    min_find: float = 0.35
    """Finder correlation below which a site holds no tag-like square (saves the fitting)."""
    min_start: float = 0.5
    """Border correlation where the finder put the square, below which it is not fitted (every
    tag read in the hard bench scenes started at 0.56 or more; clutter often below 0.5)."""
    max_reads: int = 24
    """At most this many sites are fitted per frame, the most tag-like first (bounds the time)."""

@dataclass(frozen=True, slots=True)
class Site:
    """Where a tag of a known printed size may lie on the table."""

    centre_mm: tuple[float, float]
    tag_mm: float
    reach_mm: float = 0.0
    """How far from ``centre_mm`` the tag's centre may be (0: 0.4 tag sides)."""
    angle_deg: float | None = None
    """The square's turn when an undecoded quad gave it: no search, only a quick check."""
    turn_hint_deg: float | None = None
    """About how the square is turned (a face square to a known grid): the search matches
    only that turn across the whole place, then ``HINT_TURNS`` about it near the peak."""

@cache
def tag_pools(game_id: str) -> dict[float, tuple[int, ...]]:
    """A game's component tags (not board anchors) grouped by printed size: the candidates a
    square of that size may be read as."""
    pools: dict[float, list[int]] = {}
    for tag, mark in catalog_for(game_id).by_tag.items():
        if mark.role is not MarkRole.ANCHOR:
            pools.setdefault(mark.size_mm, []).append(tag)
    return {size: tuple(sorted(tags)) for size, tags in pools.items()}

#: Printed sizes closer than this ratio are one size to the reader: the pose fit finds the
#: side itself, so such a square is read against the tags of all of them.
SAME_SIZE = 1.12

def pool_near(pools: dict[float, tuple[int, ...]], tag_mm: float) -> tuple[int, ...]:
    """Every tag printed at about ``tag_mm`` (within SAME_SIZE): the candidates of one square."""
    return tuple(sorted({t for size, tags in pools.items()
                         if tag_mm / SAME_SIZE <= size <= tag_mm * SAME_SIZE for t in tags}))

def distinct_sizes(sizes: Iterable[float]) -> tuple[float, ...]:
    """Sizes at least SAME_SIZE apart, smallest first (each stands for its near neighbours)."""
    out: list[float] = []
    for size in sorted(sizes):
        if not out or size > out[-1] * SAME_SIZE:
            out.append(size)
    return tuple(out)
