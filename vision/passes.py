"""The frozen state of a scan between its stages: one frame's context, each pass over it
(what the markers read so far tell), and the layout's reading of a pass."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scoring import Game, ScoringError
from scoring.model import Player

from .config import RecogniseConfig
from .detect import Candidate, Detection
from .errors import VisionError
from .identify import Catalog, Identified, on_table
from .layouts import (
    GameLayout,
    LayoutResult,
    Located,
    OutlineProbe,
    TableView,
    Unreadable,
    outline_probe,
)
from .load import Frame
from .locate import Location
from .plane import Plane
from .problems import Problem, ProblemCode
from .texture import TextureMemo, TextureProbe, explained_corners, texture_probe
from .unreadable import unreadable_markers


@dataclass(frozen=True, slots=True, eq=False)
class OutlineCache:
    """The outline probe of each plane a frame was read on: a later look that keeps the plane
    keeps its probe (the probe rectifies the photo, which costs more than comparing planes)."""

    image: np.ndarray
    probes: list[tuple[np.ndarray, OutlineProbe]] = field(default_factory=list)

    def probe(self, plane: Plane) -> OutlineProbe:
        for homography, probe in self.probes:
            if np.array_equal(homography, plane.homography):
                return probe
        probe = outline_probe(self.image, plane.homography)
        self.probes.append((plane.homography, probe))
        return probe


@dataclass(frozen=True, slots=True, eq=False)
class Scan:
    """One frame of one game's table, with what every stage of its scan shares: the game, its
    layout and catalog, the caller's seats and options, and the frame's own caches."""

    frame: Frame
    game: Game
    layout: GameLayout
    catalog: Catalog
    cfg: RecogniseConfig
    players: tuple[Player, ...] | None
    options: Mapping[str, Any]
    textures: TextureMemo = field(default_factory=dict)
    """Texture probes of this photo, for the layout's later readings."""
    outlines: OutlineCache | None = None

    def outline(self, plane: Plane) -> OutlineProbe:
        assert self.outlines is not None, "Scan.of builds the outline cache"
        return self.outlines.probe(plane)

    @classmethod
    def of(cls, frame: Frame, game: Game, layout: GameLayout, catalog: Catalog, cfg: RecogniseConfig,
           players: Sequence[Player] | None, options: Mapping[str, Any] | None) -> Scan:
        return cls(frame, game, layout, catalog, cfg, tuple(players) if players is not None else None,
                   dict(options or {}), outlines=OutlineCache(frame.image))


@dataclass(frozen=True, slots=True, eq=False)
class Pass:
    """What one pass over a frame knows: every marker read so far, the quads still undecoded,
    the components the markers name, and where they lie on the table plane."""

    markers: tuple[Detection, ...]
    candidates: tuple[Candidate, ...]
    ident: Identified
    location: Location

    @property
    def plane(self) -> Plane | None:
        return self.location.plane

    @property
    def located(self) -> tuple[Located, ...]:
        return self.location.located

    def texture(self, scan: Scan) -> TextureProbe | None:
        """The photo's texture probe on this pass's plane (None without one)."""
        if self.plane is None:
            return None
        return texture_probe(scan.frame.gray, self.plane, explained_corners(self.ident), self.located, scan.textures)


@dataclass(frozen=True, slots=True, eq=False)
class Reading:
    """The layout's reading of one pass: the unreadable markers it was given, its result, and
    every problem so far (the pass's own first)."""

    seen: Pass
    unreadable: tuple[Unreadable, ...]
    result: LayoutResult
    problems: tuple[Problem, ...]


def read(scan: Scan, seen: Pass, *, final: bool = True, before: Reading | None = None) -> Reading:
    """Stage 5: the layout reads a pass (``final``: with the outline probe, for the reading
    reported). The unreadable markers of ``before`` are kept when it read this same pass."""
    plane = seen.plane
    if before is not None and before.seen is seen:
        found = before.unreadable
    else:
        found = tuple(unreadable_markers(
            seen.candidates, plane, seen.located, seen.markers, scan.catalog.tag_sizes_mm,
            scan.cfg.unreadable_size_tolerance, scan.catalog, scan.cfg.unreadable_face_tolerance,
            scan.cfg.unreadable_quiet_tolerance,
        ))
    view = TableView(
        scan.game.id,
        seen.located,
        found,
        scan.players,
        dict(scan.options),
        seen.texture(scan),
        face_down=on_table(seen.ident.face_down, plane),
        outline=scan.outline(plane) if final and plane is not None else None,
    )
    issues = list(seen.location.problems)
    try:
        result: LayoutResult | None = scan.layout.read(view)
    except (ScoringError, VisionError) as exc:
        issues.append(Problem(ProblemCode.LAYOUT_FAILED, f"the table layout could not be read: {exc}"))
        result = None
    if result is None:
        result = LayoutResult(tuple(scan.players or ()), (), confidence=0.0)
    issues.extend(result.problems)
    return Reading(seen, found, result, tuple(issues))
