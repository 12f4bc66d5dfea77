"""What identification hands on: the game's printed marks, the components seen (sightings),
and the codes that are not placed components (foreign, duplicated, disputed, face down)."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cache

import numpy as np

from scoring import find_game
from scoring.markers import back_layout, game_markers, marker_layout
from scoring.model import Component

from .detect import Detection, MarkerKind
from .plane import (
    Plane,
    apply_homography,
    square,
)

#: Corner trust in plane fits: sub-pixel tag corners versus whole-pixel QR corners.
WEIGHTS = {MarkerKind.TAG: 1.0, MarkerKind.QR: 0.5}

class MarkRole(enum.Enum):
    """What a printed marker is for."""

    TAG = "tag"
    QR = "qr"
    ANCHOR = "anchor"
    BACK = "back"
    """The tag every back of a kind carries: its component is that back, not a card."""

@dataclass(frozen=True, slots=True)
class Mark:
    """One printed marker of one component: where its black square sits on the upright face."""

    component: Component
    role: MarkRole
    x_mm: float
    """Left edge of the black symbol on the upright face."""
    y_mm: float
    size_mm: float
    _corners: np.ndarray = field(init=False, repr=False, compare=False)
    _corners32: np.ndarray = field(init=False, repr=False, compare=False)
    """The corners as OpenCV's perspective solver takes them (one conversion per mark, not per sighting)."""

    def __post_init__(self) -> None:
        corners = square(self.size_mm) + (self.x_mm, self.y_mm)
        object.__setattr__(self, "_corners", corners)
        object.__setattr__(self, "_corners32", corners.astype(np.float32))

    def face_corners(self) -> np.ndarray:
        """The symbol's corners on the face, clockwise from its top-left (mm)."""
        return self._corners.copy()

    @property
    def kind(self) -> MarkerKind:
        return MarkerKind.QR if self.role is MarkRole.QR else MarkerKind.TAG

@dataclass(frozen=True, slots=True)
class Catalog:
    """A game's components indexed the way markers name them."""

    game: str
    components: Mapping[str, Component]
    by_tag: Mapping[int, Mark]
    """Every printed tag: components' own tags, board anchors and back tags (role BACK, whose
    component is the back of a kind, id ``back:<kind>``: never a catalog id). Back tags are
    here so that second looks at blurred tags let them compete with the cards' own tags."""
    qr_marks: Mapping[str, Mark]
    tag_sizes_mm: tuple[float, ...]
    """Every printed tag side of the game (for telling unreadable tags from noise)."""
    quiet_sizes_mm: tuple[float, ...] = ()
    """The outer side of every component tag's white quiet zone: a blurred tag on a darker face
    can show only as this pale square (the tag inside merged into it)."""

@cache
def catalog_for(game_id: str) -> Catalog:
    """The marker index of a game, built once from its catalog and marker geometry."""
    game = find_game(game_id)
    components: dict[str, Component] = {}
    by_tag: dict[int, Mark] = {}
    qr_marks: dict[str, Mark] = {}
    sizes: set[float] = set()
    quiet: set[float] = set()
    for c in game.components():
        components[c.id] = c
        layout = marker_layout(game.id, c)
        t = layout.tag
        by_tag[c.tag] = Mark(c, MarkRole.TAG, t.x_mm, t.y_mm, t.size_mm)
        sizes.add(t.size_mm)
        quiet.add(t.size_mm + 2 * t.quiet_mm)
        if layout.qr is not None:
            q = layout.qr
            qr_marks[c.id] = Mark(c, MarkRole.QR, q.x_mm, q.y_mm, q.size_mm)
        for a in c.anchors:
            by_tag[a.tag] = Mark(
                c, MarkRole.ANCHOR, a.x_mm - a.size_mm / 2, a.y_mm - a.size_mm / 2, a.size_mm
            )
            sizes.add(a.size_mm)
    for mark in _back_marks(game.id, game.components()):
        by_tag[mark.component.tag] = mark
        sizes.add(mark.size_mm)
    return Catalog(game.id, components, by_tag, qr_marks, tuple(sorted(sizes)), tuple(sorted(quiet)))

def _back_marks(game_id: str, components: Iterable[Component]) -> list[Mark]:
    """One mark per back tag, on a stand-in component for the kind's back (all backs of a kind
    share their size, checked with the catalog)."""
    out: list[Mark] = []
    for kind, entry in game_markers(game_id).kinds.items():
        if entry.back_tag is None:
            continue
        sample = next((c for c in components if c.kind == kind and back_layout(game_id, c) is not None), None)
        if sample is None:
            continue
        box = back_layout(game_id, sample)
        assert box is not None
        back = Component(
            f"back:{kind}", kind, f"a face-down {kind}", entry.back_tag.id, sample.size_mm, sample.shape,  # type: ignore[arg-type]
            sample.colour, back=sample.back,
        )
        out.append(Mark(back, MarkRole.BACK, box.x_mm, box.y_mm, box.size_mm))
    return out

@dataclass(frozen=True, slots=True, eq=False)
class Sighting:
    """One physical component located in the image by one or more of its markers."""

    component: Component
    payload: str
    """The canonical QR payload text of the component (as printed), whichever marker was read."""
    detections: tuple[Detection, ...]
    marks: tuple[Mark, ...]
    """The printed marker each detection is, in the same order."""
    face_to_image: np.ndarray
    """3x3 homography from upright face millimetres to image pixels."""

    @property
    def source(self) -> str:
        return "+".join(sorted(set(m.role.value for m in self.marks)))

    def image_outline(self) -> np.ndarray:
        """The face's corners in the image, clockwise from the face's top-left."""
        w, h = self.component.size_mm
        return apply_homography(self.face_to_image, np.array([[0, 0], [w, 0], [w, h], [0, h]], float))

    def image_centre(self) -> np.ndarray:
        w, h = self.component.size_mm
        return apply_homography(self.face_to_image, np.array([[w / 2, h / 2]]))[0]

@dataclass(frozen=True, slots=True, eq=False)
class Foreign:
    """A decoded marker that is not a component of this game (never scored)."""

    text: str
    reason: str
    detection: Detection

@dataclass(frozen=True, slots=True, eq=False)
class FaceDown:
    """A back tag: a face-down component of a kind, which the photo must not (and cannot) name."""

    kind: str
    """The component kind whose back this is (``card``)."""
    game: str
    detection: Detection
    face_to_image: np.ndarray
    """3x3 homography from the upright back's millimetres to image pixels (from the tag alone)."""
    size_mm: tuple[float, float]
    centre_mm: tuple[float, float] | None = None
    """The back's centre on the table plane, once the plane is known (``on_table``)."""

    @property
    def image_corners(self) -> np.ndarray:
        """The back's corners in the image, clockwise from its upright top-left."""
        w, h = self.size_mm
        return apply_homography(self.face_to_image, np.array([[0, 0], [w, 0], [w, h], [0, h]], float))

    @property
    def image_centre(self) -> tuple[float, float]:
        w, h = self.size_mm
        c = apply_homography(self.face_to_image, np.array([[w / 2, h / 2]]))[0]
        return (float(c[0]), float(c[1]))

    @property
    def label(self) -> str:
        return f"a face-down {self.kind}"

def on_table(face_down: Iterable[FaceDown], plane: Plane | None) -> tuple[FaceDown, ...]:
    """Face-down components with their centre on the table plane (unchanged without a plane)."""
    if plane is None:
        return tuple(face_down)
    out = []
    for f in face_down:
        c = plane.to_table(np.array([f.image_centre]))[0]
        out.append(replace(f, centre_mm=(float(c[0]), float(c[1]))))
    return tuple(out)

@dataclass(frozen=True, slots=True, eq=False)
class Duplicate:
    """One component id seen at several places: none of them is scored."""

    component: str
    sightings: tuple[Sighting, ...]

@dataclass(frozen=True, slots=True, eq=False)
class Disagreement:
    """Two markers printed on one face that name different things: neither is scored."""

    components: tuple[str, ...]
    """The component ids (or foreign texts) the markers claim."""
    detections: tuple[Detection, ...]
    message: str

@dataclass(frozen=True, slots=True, eq=False)
class Identified:
    """Stage 3's result: every sighting plus what could not be trusted."""

    sightings: tuple[Sighting, ...]
    foreign: tuple[Foreign, ...]
    duplicated: tuple[Duplicate, ...]
    disagreements: tuple[Disagreement, ...]
    face_down: tuple[FaceDown, ...] = ()
    """Back tags seen: face-down components, never scored as a component."""
    other_games_seen: bool = False
    """Markers of another game were read in the photo (its code, or a tag only it prints)."""
