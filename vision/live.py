"""The live table: recognise only once the table is still and no hand is over it.

A camera sends frames all the time, but a move is only worth proposing when the players
have finished it: while a hand or an arm is over the table, components are covered,
half placed or moving. This module watches a small grey thumbnail of every frame (a few
milliseconds at 1080p), recognises only frames of a still, clear table, merges what
several such frames saw and proposes the merged table once. An unchanged still table
reuses its last recognition, so it costs next to nothing.

Stillness is OpenCV frame differencing on the thumbnail: measured at 160 px wide, hundreds
of times cheaper than scikit-image's structural similarity for the same decision (see the
README). A hand is told from a placed piece by where the change is: an arm reaches in
from the edge of the picture, so a change against the last clear table that touches the
frame's border is a hand; a change inside the picture is a piece. The camera's automatic
exposure and white balance drift between that table and now, so the frame's colours are
first brought to it (see ``since``).
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Generic, Protocol, TypeVar

import cv2
import numpy as np
from skimage.metrics import structural_similarity

from scoring.model import BoardState, Placement, UnknownPlace


class Reading(Protocol):
    """What the loop needs of a recognised frame: its board state (a ``vision.Recognition``,
    or an app's wrapper of one)."""

    @property
    def state(self) -> BoardState: ...


R = TypeVar("R", bound=Reading)


class TableStatus(enum.Enum):
    """What the live loop sees on the table now."""

    MOVING = "moving"
    """The picture changes between frames: hands at work, or the camera moves."""
    CAMERA_MOVING = "camera_moving"
    """Most of the picture changes between frames: the camera itself moves."""
    HANDS = "hands"
    """Still, but something reaches in over the table from the picture's edge."""
    SETTLING = "settling"
    """Still and clear: recognising still frames before proposing."""
    PROPOSED = "proposed"
    """A merged proposal was made on this frame."""
    UNCHANGED = "unchanged"
    """Still and the same as when the last proposal was made: nothing recognised."""


#: What a player reads for each status.
MESSAGES: dict[TableStatus, str] = {
    TableStatus.MOVING: "Waiting for the table to be still.",
    TableStatus.CAMERA_MOVING: "Hold the camera still.",
    TableStatus.HANDS: "Waiting for the hands to leave the table.",
    TableStatus.SETTLING: "Looking at the table…",
    TableStatus.PROPOSED: "The table is read.",
    TableStatus.UNCHANGED: "Nothing has changed on the table.",
}


#: Defaults shared by the config and the small functions below.
THUMB_WIDTH = 320
PIXEL_CHANGE = 20
#: Local structural similarity at or above which a changed pixel only changed its tone.
SAME_STRUCTURE = 0.6


@dataclass(frozen=True, slots=True)
class LiveConfig:
    """Tunables of the live loop, with the defaults ``bench/live.py`` measured."""

    thumb_width: int = THUMB_WIDTH
    """Thumbnail width in pixels (the height keeps the frame's aspect): a 2 cm token seen from
    70 cm still covers a few dozen of its pixels."""
    pixel_change: int = PIXEL_CHANGE
    """Grey levels a thumbnail pixel must move by to count as changed (noise stays below)."""
    moving_fraction: float = 0.0005
    """Changed fraction of the thumbnail between two frames above which the table is moving
    (about 30 pixels at 320 x 180: less than a small token)."""
    camera_fraction: float = 0.35
    """Changed fraction above which the whole view moves: the camera, not a hand."""
    camera_shift_px: float = 1.0
    """A whole-picture shift of this many thumbnail pixels between frames: the camera moves (a
    hand moving over a still table leaves the picture's shift at zero)."""
    arm_fraction: float = 0.004
    """A change against the last clear table, touching the picture's border and at least this
    fraction of the thumbnail, is a hand or an arm over the table."""
    still_frames: int = 1
    """Frames in a row that must match the one before before recognising begins (a hand that
    stops over the table is still caught: it differs from the last clear table)."""
    merge_frames: int = 2
    """Still frames recognised and merged into one proposal."""
    adopt_frames: int = 40
    """A still picture with a change at its border for this many frames (5 s at 8 fps) is taken
    as the table: an object left at the edge, or the camera nudged, not a hand."""


@dataclass(frozen=True, slots=True)
class PlacementDisagreement:
    """Still frames that read one component in different places, or one place differently."""

    components: tuple[str, ...]
    placements: tuple[Placement, ...]
    """Every reading, the one kept first."""
    message: str


@dataclass(frozen=True, slots=True, eq=False)
class Merged(Generic[R]):
    """What several still frames of one table saw together."""

    state: BoardState
    """Every component read in any frame (where frames disagree, the reading most frames
    gave, the latest on a tie); unknown places only where no frame read a component."""
    recognitions: tuple[R, ...]
    disagreements: tuple[PlacementDisagreement, ...]

    @property
    def shown(self) -> R:
        """The frame to draw the overlay from: the one that read the most, the latest on a tie."""
        return max(reversed(self.recognitions), key=lambda r: len(r.state.placements))


@dataclass(frozen=True, slots=True, eq=False)
class LiveStep(Generic[R]):
    """The live loop's answer to one frame."""

    status: TableStatus
    proposal: Merged[R] | None
    """The last proposal made (reused while the table stays unchanged); None before the first."""
    recognised: bool = False
    """Whether this frame was recognised (the costly step)."""
    changed_fraction: float = 0.0
    """Changed fraction of the thumbnail since the frame before."""

    @property
    def message(self) -> str:
        return MESSAGES[self.status]

    @property
    def is_new_proposal(self) -> bool:
        return self.status is TableStatus.PROPOSED


def thumbnail(image: np.ndarray, *, width: int = THUMB_WIDTH) -> np.ndarray:
    """A small picture of a frame (colour kept: skin and wood can be one grey), its
    brightness normalised so that an auto-exposure step is not motion."""
    h = max(1, round(image.shape[0] * width / image.shape[1]))
    small = cv2.resize(image, (width, h), interpolation=cv2.INTER_AREA)
    mean = float(small.mean())
    if mean > 1.0:
        small = cv2.convertScaleAbs(small, alpha=128.0 / mean)
    return small


def changed(a: np.ndarray, b: np.ndarray, *, pixel_change: int = PIXEL_CHANGE) -> np.ndarray:
    """Mask (uint8 0/255) of thumbnail pixels where any channel moved by more than ``pixel_change``."""
    diff = cv2.absdiff(a, b)
    if diff.ndim == 3:
        diff = diff.max(axis=2)
    return cv2.threshold(diff, pixel_change, 255, cv2.THRESH_BINARY)[1]


def _gained(thumb: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """``thumb`` with each channel scaled so its median matches ``reference``'s: an exposure or
    white balance step taken out (a hand or a new piece, a minority of pixels, barely moves a
    median)."""
    planes = cv2.split(thumb) if thumb.ndim == 3 else [thumb]
    refs = cv2.split(reference) if reference.ndim == 3 else [reference]
    out = []
    for plane, ref in zip(planes, refs, strict=True):
        here, there = float(np.median(plane)), float(np.median(ref))
        out.append(cv2.convertScaleAbs(plane, alpha=there / here) if here > 1.0 else plane)
    return cv2.merge(out) if thumb.ndim == 3 else out[0]


def since(thumb: np.ndarray, reference: np.ndarray, *, pixel_change: int = PIXEL_CHANGE,
          quiet: float = 0.0) -> np.ndarray:
    """``changed`` against an earlier picture of the table. Where more than ``quiet`` of it
    changed, the camera's drift since then is taken out: each channel's gain, then, of what
    still differs, only what also lost its structure counts (scikit-image's structural
    similarity, local means and contrasts compared: a tone curve shifted by the camera keeps
    the structure, a piece put down does not). Both cost more than the comparison, so they
    run only then."""
    mask = changed(thumb, reference, pixel_change=pixel_change)
    if np.count_nonzero(mask) <= quiet * mask.size:
        return mask
    gained = _gained(thumb, reference)
    mask = changed(gained, reference, pixel_change=pixel_change)
    if np.count_nonzero(mask) <= quiet * mask.size:
        return mask
    a = gained if gained.ndim == 2 else cv2.cvtColor(gained, cv2.COLOR_BGR2GRAY)
    b = reference if reference.ndim == 2 else cv2.cvtColor(reference, cv2.COLOR_BGR2GRAY)
    _, local = structural_similarity(a, b, win_size=7, data_range=255, full=True)
    return np.where(local < SAME_STRUCTURE, mask, 0).astype(np.uint8)


def view_shift(a: np.ndarray, b: np.ndarray) -> float:
    """How far the whole picture moved between two thumbnails (pixels), by phase correlation:
    the background's shift, whatever moves over it."""
    grey = [x if x.ndim == 2 else cv2.cvtColor(x, cv2.COLOR_BGR2GRAY) for x in (a, b)]
    (dx, dy), response = cv2.phaseCorrelate(grey[0].astype(np.float32), grey[1].astype(np.float32))
    return float(np.hypot(dx, dy)) if response > 0.2 else 0.0


_JOIN = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))


def reaches_in(mask: np.ndarray, *, min_fraction: float) -> bool:
    """Whether a changed region of at least ``min_fraction`` of the picture touches its border:
    an arm reaching over the table (a piece placed inside the picture does not). Nearby
    changed pixels are joined first: an arm over a grained table changes in streaks."""
    if not mask.any():
        return False
    joined = cv2.dilate(mask, _JOIN)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(joined, connectivity=8)
    if n <= 1:
        return False
    edge = np.unique(np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]]))
    need = min_fraction * mask.size
    return any(label != 0 and stats[label, cv2.CC_STAT_AREA] >= need for label in edge)


def merge(recognitions: Sequence[R]) -> Merged[R]:
    """One table from several still frames: a component read in any frame counts; where
    frames disagree, most frames win (the latest on a tie) and the disagreement is kept."""
    if not recognitions:
        raise ValueError("merge needs at least one recognition")
    seen: dict[str, list[tuple[int, Placement]]] = {}
    for i, rec in enumerate(recognitions):
        for p in rec.state.placements:
            seen.setdefault(p.component, []).append((i, p))
    disagreements: list[PlacementDisagreement] = []
    chosen: dict[str, tuple[Placement, int, int]] = {}  # component -> placement, frames, last frame
    for cid, readings in seen.items():
        best, count, last = _most_read(readings)
        chosen[cid] = (best, count, last)
        others = tuple(dict.fromkeys(p for _, p in readings if p != best))
        if others:
            disagreements.append(PlacementDisagreement(
                (cid,), (best, *others), f"{cid} was read in different places in the still frames"))
    kept, place_disagreements = _one_per_place(chosen, recognitions)
    disagreements += place_disagreements
    placements = tuple(p for cid, (p, _, _) in chosen.items() if cid in kept)
    taken = {_place(p) for p in placements}
    unknown = tuple(dict.fromkeys(
        u for rec in recognitions for u in rec.state.unknown if _place(u) not in taken))
    last = recognitions[-1].state
    return Merged(replace(last, placements=placements, unknown=unknown), tuple(recognitions), tuple(disagreements))


def _most_read(readings: Sequence[tuple[int, Placement]]) -> tuple[Placement, int, int]:
    counts = Counter(p for _, p in readings)
    latest = {p: i for i, p in readings}
    best = max(counts, key=lambda p: (counts[p], latest[p]))
    return best, counts[best], latest[best]


def _place(p: Placement | UnknownPlace) -> tuple[object, ...]:
    return (p.area, p.cell, p.on, p.slot)


def _one_per_place(
    chosen: dict[str, tuple[Placement, int, int]], recognitions: Sequence[Reading]
) -> tuple[set[str], list[PlacementDisagreement]]:
    """Components kept where frames put different components in one place that no single
    frame holds together (a misread in one frame): the most-read one, the latest on a tie."""
    together = [{p.component for p in rec.state.placements} for rec in recognitions]
    by_place: dict[tuple[object, ...], list[str]] = {}
    for cid, (p, _, _) in chosen.items():
        if p.cell is not None:  # cell-less areas (a hand, a pile) hold many by design
            by_place.setdefault(_place(p), []).append(cid)
    kept = set(chosen)
    found: list[PlacementDisagreement] = []
    for cids in by_place.values():
        if len(cids) < 2 or any(set(cids) <= seen for seen in together):
            continue
        ranked = sorted(cids, key=lambda c: (chosen[c][1], chosen[c][2]), reverse=True)
        kept -= set(ranked[1:])
        found.append(PlacementDisagreement(
            tuple(ranked), tuple(chosen[c][0] for c in ranked),
            f"the still frames read different components in one place: {', '.join(ranked)}"))
    return kept, found


def _same(a: Merged[R], b: Merged[R]) -> bool:
    """Two merged readings that would show the players the same table."""
    return (not a.disagreements and set(a.state.placements) == set(b.state.placements)
            and set(a.state.unknown) == set(b.state.unknown))


@dataclass
class LiveTable(Generic[R]):
    """The live loop of one game's table: feed it every frame, it says when to propose.

    ``recognise`` reads one frame (the costly step); everything else here is a thumbnail
    comparison. Not thread-safe: one camera thread (or one request at a time) feeds it.
    """

    recognise: Callable[[np.ndarray], R]
    config: LiveConfig = field(default_factory=LiveConfig)
    is_complete: Callable[[R], bool] | None = None
    """Whether one frame's reading leaves nothing to look at (nothing unread, no problem): it
    is proposed at once, and the next still frame is still merged with it (proposed again
    only if the two frames together say something else)."""
    _early: bool = False
    """The proposal was made from one complete frame; the next still frame is merged with it."""
    _previous: np.ndarray | None = None
    _clear: np.ndarray | None = None
    """Thumbnail of the last still table with no hand over it (what a hand is told against)."""
    _still: int = 0
    _border_still: int = 0
    _pending: list[R] = field(default_factory=list)
    _proposal: Merged[R] | None = None
    _proposed_at: np.ndarray | None = None

    @property
    def proposal(self) -> Merged[R] | None:
        return self._proposal

    def feed(self, image: np.ndarray) -> LiveStep[R]:
        """Look at one frame; recognise it only when the table is still and clear."""
        cfg = self.config
        thumb = thumbnail(image, width=cfg.thumb_width)
        previous, self._previous = self._previous, thumb
        if previous is None or previous.shape != thumb.shape:
            return self._unsettled(TableStatus.MOVING, 1.0)
        motion = float(np.count_nonzero(changed(thumb, previous, pixel_change=cfg.pixel_change))) / thumb.size
        if motion > cfg.moving_fraction:
            camera = motion > cfg.camera_fraction or view_shift(thumb, previous) >= cfg.camera_shift_px
            return self._unsettled(TableStatus.CAMERA_MOVING if camera else TableStatus.MOVING, motion)
        self._still += 1
        if self._clear is not None and self._hand_over(thumb, self._clear):
            self._border_still += 1
            if self._border_still < cfg.adopt_frames:
                self._pending.clear()
                self._early = False
                return LiveStep(TableStatus.HANDS, self._proposal, changed_fraction=motion)
            self._clear = None  # still that long: the picture itself changed, not a hand
        self._border_still = 0
        if self._still < cfg.still_frames:
            return LiveStep(TableStatus.SETTLING, self._proposal, changed_fraction=motion)
        if self._proposed_at is not None and not self._pending and not self._differs(thumb, self._proposed_at):
            self._clear = thumb
            return LiveStep(TableStatus.UNCHANGED, self._proposal, changed_fraction=motion)
        reading = self.recognise(image)
        self._pending.append(reading)
        if len(self._pending) < cfg.merge_frames:
            if self._early or self.is_complete is None or not self.is_complete(reading):
                return LiveStep(TableStatus.SETTLING, self._proposal, recognised=True, changed_fraction=motion)
            self._early = True  # nothing left to look at: propose now, merge the next frame still
            self._proposal = merge(self._pending)
            self._clear = self._proposed_at = thumb
            return LiveStep(TableStatus.PROPOSED, self._proposal, recognised=True, changed_fraction=motion)
        merged = merge(self._pending)
        self._pending = []
        self._clear = self._proposed_at = thumb
        early, self._early = self._early, False
        same = early and self._proposal is not None and _same(merged, self._proposal)
        self._proposal = merged
        if same:  # the second frame confirms the table proposed from the first
            return LiveStep(TableStatus.UNCHANGED, self._proposal, recognised=True, changed_fraction=motion)
        return LiveStep(TableStatus.PROPOSED, self._proposal, recognised=True, changed_fraction=motion)

    def _unsettled(self, status: TableStatus, motion: float) -> LiveStep[R]:
        self._still = 0
        self._pending.clear()
        self._early = False
        return LiveStep(status, self._proposal, changed_fraction=motion)

    def _hand_over(self, thumb: np.ndarray, clear: np.ndarray) -> bool:
        if clear.shape != thumb.shape:
            return False
        mask = since(thumb, clear, pixel_change=self.config.pixel_change, quiet=self.config.moving_fraction)
        if np.count_nonzero(mask) > self.config.camera_fraction * mask.size:
            return False  # the whole view changed (camera moved): nothing to tell a hand by
        return reaches_in(mask, min_fraction=self.config.arm_fraction)

    def _differs(self, a: np.ndarray, b: np.ndarray) -> bool:
        if a.shape != b.shape:
            return True
        mask = since(a, b, pixel_change=self.config.pixel_change, quiet=self.config.moving_fraction)
        return np.count_nonzero(mask) > self.config.moving_fraction * mask.size
