"""One frame -> one Recognition: the scan's stages, top to bottom.

load -> detect -> identify -> locate -> second look -> layout -> later looks (a bounded
number of rounds, each reading the layout again) -> admit (to the rules) -> Recognition.
A messy table is normal input: foreign codes, duplicates, unreadable markers, a hand over
the board and an empty table all end up in the result, never in an exception. Only input
that is not an image (ImageError) or an unknown game is refused.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from scoring import find_game
from scoring.model import Player

from .admit import Admission, admit
from .clock import StageClock
from .config import RecogniseConfig
from .detect import Candidate, Detection, detect_all
from .identify import catalog_for, identify, on_table
from .layouts import find_layout
from .load import Frame, frame_from_array, load_image
from .locate import locate
from .looks import Asked, look_again, second_look, uncovered
from .passes import Pass, Reading, Scan, read
from .problems import Problem
from .result import RecognisedComponent, Recognition
from .steady import hold_still

__all__ = ["Recognition", "RecognisedComponent", "RecogniseConfig", "recognise"]


def recognise(
    image: bytes | np.ndarray,
    game_id: str,
    *,
    config: RecogniseConfig | None = None,
    players: Sequence[Player] | None = None,
    options: Mapping[str, Any] | None = None,
) -> Recognition:
    """Read one photo or camera frame of a game's table into a Recognition."""
    clock = StageClock()
    cfg = config or RecogniseConfig()
    game = find_game(game_id)
    frame = clock.run("load", _frame, image, cfg.max_pixels)
    scan = Scan.of(frame, game, find_layout(game.id), catalog_for(game.id), cfg, players, options)
    detected = clock.run("detect", detect_all, frame, config=cfg.detect)
    seen = _pass(clock, scan, detected.markers, detected.candidates)
    second = clock.run("second_look", second_look, scan, seen, detected.tag_gray)
    clock.count("rescued", len(second.rescued))
    clock.count("read_whole", len(second.whole))
    if second.found:
        seen = _pass(clock, scan, seen.markers + second.found, second.candidates, start=seen)
    # Outlines only sort the places looked at again into reported and not: after a second look
    # that read blurred tags (more are likely read beside them) they are measured on the last
    # reading only. (Elsewhere the first reading is nearly always the last.)
    deferred = scan.layout.outlines and cfg.soft is not None and seen.plane is not None and bool(second.found)
    reading = clock.run("layout", read, scan, seen, final=not deferred)
    if cfg.soft is not None and seen.plane is not None:
        asked = Asked()
        for round_ in range(1 + cfg.neighbour_rounds):
            look = clock.run("look_again", look_again, scan, reading, asked, first=round_ == 0)
            if not look.found:
                break
            clock.count("read_whole", len(look.found))
            asked = look.asked
            candidates = uncovered(seen.candidates, look.found)
            seen = _pass(clock, scan, seen.markers + look.found, candidates, start=seen, refit=False)
            reading = clock.run("layout", read, scan, seen, final=not deferred)
    if deferred and (reading.result.unknown or reading.result.look_again):
        reading = clock.run("layout", read, scan, seen, before=reading)
    admission = clock.run("admit", admit, reading.result.state(game.id), reading.result.placed)
    problems = reading.problems + admission.problems
    shaken = clock.run("steady", hold_still, frame.gray, seen.markers, problems, reading.unreadable,
                       len(admission.state.unknown))
    return _recognition(scan, reading, admission, clock, () if shaken is None else (shaken,))


def _frame(image: bytes | np.ndarray, max_pixels: int) -> Frame:
    if isinstance(image, np.ndarray):
        return frame_from_array(image, max_pixels=max_pixels)
    return load_image(image, max_pixels=max_pixels)


def _pass(clock: StageClock, scan: Scan, markers: Sequence[Detection], candidates: Sequence[Candidate], *,
          start: Pass | None = None, refit: bool = True) -> Pass:
    """Identify and locate these markers (on a plane refitted from ``start``'s, or, without
    ``refit``, on that plane only judged against the new list)."""
    ident = clock.run("identify", identify, markers, scan.catalog)
    plane = None if start is None else start.plane
    location = clock.run("locate", locate, ident, scan.cfg, plane, refit=refit)
    return Pass(tuple(markers), tuple(candidates), ident, location)


def _recognition(scan: Scan, reading: Reading, admission: Admission, clock: StageClock,
                 extra: tuple[Problem, ...] = ()) -> Recognition:
    seen, plane = reading.seen, reading.seen.plane
    by_loc = {id(p.located): p.placement for p in admission.placed}
    components = tuple(RecognisedComponent(loc, by_loc.get(id(loc))) for loc in seen.located)
    confidence = reading.result.confidence if seen.located else 0.0
    if plane is not None and plane.rms_mm > 1.0:
        confidence *= max(0.3, 1.0 - (plane.rms_mm - 1.0) / 4.0)
    return Recognition(
        scan.game.id,
        admission.state,
        components,
        reading.unreadable,
        seen.ident.foreign,
        seen.ident.duplicated,
        seen.ident.disagreements,
        reading.problems + admission.problems + extra,
        float(confidence),
        clock.total(),
        None if plane is None else plane.rms_mm,
        (scan.frame.width, scan.frame.height),
        on_table(seen.ident.face_down, plane),
        clock.counts,
    )
