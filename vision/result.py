"""What one frame told us: the frozen Recognition a scan returns, and its JSON."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scoring.model import BoardState, Cell, Placement
from scoring.state import cell_to_json, state_to_json

from .identify import Disagreement, Duplicate, FaceDown, Foreign
from .layouts import Located, Unreadable
from .problems import Problem


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
            "image_corners": points_json(loc.image_outline),
        }


def points_json(a: np.ndarray) -> list[list[float]]:
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
    """Milliseconds per stage (load, detect, identify, locate, second_look, layout, look_again,
    admit; a stage run again after a later look is summed) and the whole scan's as ``total``."""
    plane_rms_mm: float | None = None
    image_size: tuple[int, int] = (0, 0)
    face_down: tuple[FaceDown, ...] = ()
    """Back tags seen: face-down components by kind and place, never which component."""
    counts: Mapping[str, int] = field(default_factory=dict)
    """Markers found by the later looks: ``rescued`` (decoded again), ``read_whole`` (blurred
    tags read whole); a look that found nothing is not listed."""

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
                    "image_corners": points_json(u.image_corners),
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
                    "image_corners": points_json(f.detection.corners),
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
                    "image_corners": points_json(f.image_corners),
                    "centre_mm": [round(v, 1) for v in f.centre_mm] if f.centre_mm else None,
                }
                for f in self.face_down
            ],
            "problems": [p.to_dict() for p in self.problems],
            "confidence": round(self.confidence, 3),
            "plane_rms_mm": None if self.plane_rms_mm is None else round(self.plane_rms_mm, 2),
            "timings_ms": {k: round(v, 1) for k, v in self.timings.items()},
            "counts": dict(self.counts),
        }
