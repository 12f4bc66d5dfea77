"""Stage 4, locate: the table plane fitted to the identified components, and each one's pose on it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .config import RecogniseConfig
from .identify import WEIGHTS, Identified, Sighting, tag_printed_elsewhere
from .layouts import Located
from .plane import (
    Plane,
    RigidGroup,
    apply_homographies,
    extended,
    fit_plane,
    rigid_fits,
)
from .problems import Problem, ProblemCode


@dataclass(frozen=True, slots=True, eq=False)
class Location:
    """The plane of one pass and the components located on it."""

    plane: Plane | None
    """None when nothing identified could be fitted (an empty table)."""
    located: tuple[Located, ...]
    problems: tuple[Problem, ...]
    """Components that do not lie flat on the table (off the plane): not placed."""


def rigid_groups(sightings: Sequence[Sighting]) -> list[RigidGroup]:
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


def locate_all(sightings: Sequence[Sighting], plane: Plane, residuals: Sequence[float]) -> list[Located]:
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


def _maybe_theirs(ident: Identified, plane: Plane, inliers: set[int], cfg: RecogniseConfig) -> set[int]:
    """Components read by a tag alone that could be another game's: its id is printed by another
    game too, markers of another game are in the photo, and the tag does not sit on the plane as
    this game's printed tag would (the games print their tags at different sizes)."""
    if not ident.other_games_seen:
        return set()
    own = range(len(ident.sightings))  # the plane is fitted to duplicates' sightings too, after these
    return {i for i in inliers if i in own and plane.residuals_mm[i] > cfg.shared_tag_mm
            and tag_printed_elsewhere(ident.sightings[i])}


def locate(
    ident: Identified, cfg: RecogniseConfig, start: Plane | None = None, refit: bool = True
) -> Location:
    """Fit the table plane to the identified components and locate each one on it
    (``start``: the plane before a second look added a few tags, to start the refit from;
    without ``refit`` that plane is kept and only judged against the new list)."""
    fit_sightings = list(ident.sightings) + [s for d in ident.duplicated for s in d.sightings]
    groups = rigid_groups(fit_sightings)
    if start is not None and not refit and groups:
        plane: Plane | None = extended(start, groups, outlier_mm=cfg.outlier_mm)
    else:
        h0 = None if start is None else start.homography
        plane = fit_plane(groups, outlier_mm=cfg.outlier_mm, start=h0) if groups else None
    problems: list[Problem] = []
    if plane is None:
        return Location(None, (), ())
    inliers = set(plane.inliers) | {i for i in plane.outliers if plane.residuals_mm[i] <= cfg.curl_mm}
    theirs = _maybe_theirs(ident, plane, inliers, cfg)
    kept = [i for i in range(len(ident.sightings)) if i in inliers and i not in theirs]
    located = locate_all([ident.sightings[i] for i in kept], plane, [plane.residuals_mm[i] for i in kept])
    for i, s in enumerate(ident.sightings):
        if i in inliers and i not in theirs:
            continue
        centre = s.image_centre()
        if i in theirs:  # shown where the tag is: the piece it is printed on lies there
            centre = s.detections[0].centre
            problems.append(
                Problem(
                    ProblemCode.MAYBE_OTHER_GAME,
                    f"a tag alone reads {s.component.name}, but another game prints that tag too and it is"
                    " not this game's size: could be another game's piece; turn it so its QR code faces"
                    " the camera",
                    (s.component.id,),
                    ((float(centre[0]), float(centre[1])),),
                )
            )
            continue
        problems.append(
            Problem(
                ProblemCode.OFF_PLANE,
                f"{s.component.name} does not lie flat on the table (held, tilted or stacked);"
                " it is not placed",
                (s.component.id,),
                ((float(centre[0]), float(centre[1])),),
            )
        )
    return Location(plane, tuple(located), tuple(problems))
