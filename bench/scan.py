"""Scanner benchmark: rendered scenes per game and condition, accuracy and latency on one core.

Usage: ``python bench/scan.py [--seeds N] [--games habitats,phylo] [--write]``. It pins
itself to one CPU core and one OpenCV thread, renders a fixed set of scenes (fixed seeds)
per game and condition, runs the whole pipeline on each JPEG and prints a Markdown table;
``--write`` also replaces the tables in docs/vision.md (Habitats, PHYLO) and
docs/vision_boards.md (the board-anchored games).

Columns: components in view; identified (read as the right component); wrong (a component
read with a wrong id, or put in a wrong cell or rotation: the target is 0); cells correct
(right component, right area, cell and rotation); misses reported (components in view but
not read whose place shows up as an unknown place (the same cell; for a token on a tile or a
card on a card, also the same tile or card and slot where the unknown names them) or as an
unreadable marker on the component's face, or that a problem names, itself or its whole
area: a park whose entrance is not in view; or that lies on a missed component so reported);
layout failures (scenes where the layout placed nothing although components were in view); false unknowns
(places reported as holding an unread component where nothing lies); latency p50/p90
of the whole pipeline per frame (JPEG bytes in, Recognition out) and of the bare decoders
(zxing-cpp plus aruco, from the same decoded colour frame as the pipeline) on the same frames; and the ratio of the
pipeline (from the decoded frame) to the bare decoders on the same frame, p50 / p90 over
the frames: each frame's own ratio, both timed back to back, so a frame that is costly to
decode is not compared with one that is cheap. A last table counts the frames the scan asked
to be taken again with the camera held still (``vision/hold_still``) and the misses in them.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# One core for every thread, set before numpy starts its BLAS worker threads: pinned later,
# they would stay free to run on the other cores (or, pinned too, spin against the main one).
if __name__ == "__main__" and hasattr(os, "sched_setaffinity"):
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from scoring import find_game  # noqa: E402
from scoring.model import Placement  # noqa: E402
from vision import recognise  # noqa: E402
from vision.detect import DetectConfig, detect_all  # noqa: E402
from vision.layouts import habitats as habitats_layout  # noqa: E402
from vision.layouts import phylo as phylo_layout  # noqa: E402
from vision.load import load_image  # noqa: E402
from vision.problems import ProblemCode  # noqa: E402
from tests.rendering.conditions import NAMES as REAL_TABLE  # noqa: E402
from tests.rendering.conditions import render_condition  # noqa: E402
from tests.rendering.render import _pose_matrix, render_scene  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from make_samples import AREAS, POSITIONS  # noqa: E402
from soft_read import _distorted  # noqa: E402

#: (label, renderer condition, resolution, position): "table" is the whole table in view,
#: "area" one area (a park, the middle of the card grid) for close views.
SETUPS = (
    ("easy 1080p", "easy", (1920, 1080), "area"),
    ("typical 1080p", "typical", (1920, 1080), "table"),
    ("typical 720p", "typical", (1280, 720), "table"),
    ("area scan 1080p", "area", (1920, 1080), "area"),
    ("4K table distance", "typical", (3840, 2160), "table"),
    ("hard 1080p", "hard", (1920, 1080), "table"),
    *((f"{name} 1080p", name, (1920, 1080), "table") for name in REAL_TABLE),
)
#: Which docs page holds which games' table (``--write``).
DOCS = {"vision.md": ("habitats", "phylo"), "vision_boards.md": ("biomos", "rainforest", "borneo")}
#: Latency is the fastest of this many runs per frame: the least disturbed by other processes.
REPEAT = 5
CANONICAL = {"habitats": habitats_layout.canonical, "phylo": phylo_layout.canonical}
CANONICAL.update({g: canonical for g, (_, canonical) in POSITIONS.items() if g not in CANONICAL})


@dataclass
class Tally:
    scenes: int = 0
    in_view: int = 0
    identified: int = 0
    wrong: int = 0
    cells: int = 0
    missed: int = 0
    reported: int = 0
    layout_failures: int = 0
    false_unknown: int = 0
    others: int = 0
    other_unreadable: int = 0
    """Unreadable markers or unknown places reported on another game's component or clutter."""
    reads_changed: int = 0
    """Placements read differently with the other things on the table than without them."""
    other_games: int = 0
    other_games_named: int = 0
    """Other games' components listed as foreign, naming another game."""
    held: int = 0
    """Frames with a ``vision/hold_still`` problem (too blurred where something was not read)."""
    held_missed: int = 0
    held_silent: int = 0
    """Misses in those frames, and of them the ones not reported on their face."""
    pipeline_ms: list[float] = field(default_factory=list)
    frame_ms: list[float] = field(default_factory=list)
    decoders_ms: list[float] = field(default_factory=list)
    ratios: list[float] = field(default_factory=list)


def _decoders_ms(frame: np.ndarray) -> float:
    """The bare decoders on the frame a camera hands over (colour): the grey conversion both
    decoders would make themselves, then zxing-cpp and aruco as the pipeline runs them."""
    t = time.perf_counter()
    detect_all(frame, config=DetectConfig())
    return (time.perf_counter() - t) * 1000


def _image_outline(scene, size_mm: tuple[float, float], cid: str, resolution: tuple[int, int]) -> np.ndarray:  # noqa: ANN001
    """A component's face in the photo, grown by a fifth about its centre: an unreadable
    marker reported there is that component's (or lies on it)."""
    w, h = size_mm
    grown = np.array([[-0.1 * w, -0.1 * h], [1.1 * w, -0.1 * h], [1.1 * w, 1.1 * h], [-0.1 * w, 1.1 * h]])
    to_image = scene.camera.table_to_image() @ _pose_matrix(scene.poses[cid], size_mm)
    ideal = cv2.perspectiveTransform(grown.reshape(1, -1, 2), to_image).reshape(-1, 2)
    return np.array([_distorted(tuple(q), scene.camera, resolution) for q in ideal], np.float32)


def _names(unknown: Placement, placement: Placement) -> bool:
    """Whether an unknown place is where a component lies: the same area and cell and, for a
    component lying on another (a token on a tile, a card on a card), the same one under it
    and the same slot, wherever the unknown names them."""
    return (
        (unknown.area, unknown.cell) == (placement.area, placement.cell)
        and unknown.on in (None, placement.on)
        and (unknown.slot is None or placement.slot is None or unknown.slot == placement.slot)
    )


def _on_others(hard, rec, tally: Tally) -> None:  # noqa: ANN001
    """Count what the photo's other things (other games, clutter) did to the reading."""
    outlines = [o.image_outline.astype(np.float32) for o in hard.others]
    tally.others += len(outlines)
    inside = [u.image_centre for u in rec.unreadable]
    for u in rec.problems:
        inside += list(u.image_points)
    tally.other_unreadable += sum(1 for pt in inside if any(cv2.pointPolygonTest(o, tuple(map(float, pt)), False) >= 0
                                                            for o in outlines))
    for o in hard.others:
        if not o.kind.startswith("game:"):
            continue
        tally.other_games += 1
        box = o.image_outline.astype(np.float32)
        if any("another game" in f.reason and cv2.pointPolygonTest(box, tuple(map(float, f.detection.centre)), False) >= 0
               for f in rec.foreign):
            tally.other_games_named += 1


def run(game_id: str, condition: str, resolution: tuple[int, int], position: str, seeds: int,
        repeat: int = REPEAT) -> Tally:
    make = AREAS[game_id] if position == "area" else POSITIONS[game_id][0]
    canonical = CANONICAL[game_id]
    game = find_game(game_id)
    state = game.load_state(make())
    full = {p.component: p for p in canonical(state).placements}
    tally = Tally()
    for seed in range(seeds):
        hard = None
        if condition in REAL_TABLE:
            hard = render_condition(game_id, state, condition=condition, resolution=resolution, seed=1000 + seed)
            scene = hard.scene
        else:
            scene = render_scene(game_id, state, condition=condition, resolution=resolution, seed=1000 + seed)
        truth = canonical(scene.truth)
        visible = {p.component for p in truth.placements}
        rec = recognise(scene.jpeg, game_id, players=state.players)
        if hard is not None and hard.others:
            _on_others(hard, rec, tally)
        if hard is not None and hard.base is not None:
            plain = recognise(hard.base.jpeg, game_id, players=state.players)
            tally.reads_changed += len(set(canonical(plain.state).placements) ^ set(canonical(rec.state).placements))
        frame = load_image(scene.jpeg).image
        jpeg_ms = [rec.timings["total"]]
        frame_ms, dec_ms = [], []
        for _ in range(repeat):
            jpeg_ms.append(recognise(scene.jpeg, game_id, players=state.players).timings["total"])
            frame_ms.append(recognise(frame, game_id, players=state.players).timings["total"])
            dec_ms.append(_decoders_ms(frame))
        tally.pipeline_ms.append(min(jpeg_ms))
        tally.frame_ms.append(min(frame_ms))
        tally.decoders_ms.append(min(dec_ms))
        tally.ratios.append(min(frame_ms) / min(dec_ms))
        got = {p.component: p for p in rec.state.placements}
        read_ids = {c.id for c in rec.components}
        tally.scenes += 1
        tally.in_view += len(visible)
        tally.identified += len(visible & read_ids)
        tally.wrong += sum(1 for cid in read_ids if cid not in full)
        tally.wrong += sum(1 for cid, p in got.items() if full.get(cid) != p)
        tally.cells += sum(1 for cid in visible if got.get(cid) == full[cid])
        missing = [cid for cid in visible if got.get(cid) != full[cid]]
        tally.missed += len(missing)
        tally.false_unknown += sum(1 for u in rec.state.unknown if not any(_names(u, p) for p in full.values()))
        reported: set[str] = set()
        for cid in missing:
            p = full[cid]
            outline = _image_outline(scene, game.component_index[cid].size_mm, cid, resolution)  # type: ignore[attr-defined]
            near_unreadable = any(cv2.pointPolygonTest(outline, u.image_centre, False) >= 0 for u in rec.unreadable)
            problem_names = any(cid in pr.components or p.area in pr.areas for pr in rec.problems)
            if any(_names(u, p) for u in rec.state.unknown) or near_unreadable or problem_names:
                reported.add(cid)
        # What lies on a missed component that is reported goes with it (nothing on an unread
        # card can be placed): a token on an unread Black Hole card.
        reported |= {cid for cid in missing if full[cid].on in reported}
        tally.reported += len(reported)
        if any(pr.code is ProblemCode.HOLD_STILL for pr in rec.problems):
            tally.held += 1
            tally.held_missed += len(missing)
            tally.held_silent += len(missing) - len(reported)
        if visible and not rec.state.placements:
            tally.layout_failures += 1
    return tally


def pct(a: int, b: int) -> str:
    return "-" if b == 0 else f"{100 * a / b:.1f} %"


def table(rows: list[tuple[str, str, Tally]]) -> str:
    out = [
        "| game | setup | scenes | in view | identified | wrong | cells correct | misses reported"
        " | layout failures | false unknowns | pipeline from JPEG p50 / p90 | pipeline from frame p50 / p90"
        " | bare decoders p50 / p90 | frame / decoders per frame p50 / p90 |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]

    def spread(v: list[float]) -> str:
        return f"{statistics.median(v):.0f} / {float(np.percentile(v, 90)):.0f} ms"

    for game, label, t in rows:
        ratio = f"{statistics.median(t.ratios):.2f} / {float(np.percentile(t.ratios, 90)):.2f}"
        out.append(
            f"| {game} | {label} | {t.scenes} | {t.in_view} | {pct(t.identified, t.in_view)} | {t.wrong} |"
            f" {pct(t.cells, t.in_view)} | {t.reported} of {t.missed} | {t.layout_failures} | {t.false_unknown} |"
            f" {spread(t.pipeline_ms)} | {spread(t.frame_ms)} | {spread(t.decoders_ms)} | {ratio} |"
        )
    return "\n".join(out)


def real_table(rows: list[tuple[str, str, Tally]]) -> str:
    """The real-table conditions: reading, reporting and what other things on the table did."""
    out = [
        "| game | condition | scenes | in view | identified | wrong | misses reported | false unknowns"
        " | other things | reports on them | reads changed by them | other games' components named foreign"
        " | pipeline from JPEG p50 / p90 |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for game, label, t in rows:
        p50, p90 = statistics.median(t.pipeline_ms), float(np.percentile(t.pipeline_ms, 90))
        named = f"{t.other_games_named} of {t.other_games}" if t.other_games else "-"
        out.append(
            f"| {game} | {label} | {t.scenes} | {t.in_view} | {pct(t.identified, t.in_view)} | {t.wrong} |"
            f" {t.reported} of {t.missed} | {t.false_unknown} | {t.others} | {t.other_unreadable} | {t.reads_changed} |"
            f" {named} | {p50:.0f} / {p90:.0f} ms |"
        )
    return "\n".join(out)


def held_table(rows: list[tuple[str, str, Tally]]) -> str:
    """How often the scan asked the players to hold the camera still, and what it covered."""
    out = [
        "| game | setup | scenes | asked to hold still | misses in those frames | of them not reported on their face |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for game, label, t in rows:
        out.append(f"| {game} | {label} | {t.scenes} | {t.held} | {t.held_missed} | {t.held_silent} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--games", default="habitats,phylo")
    ap.add_argument("--setups", default="", help="comma-separated labels to run (default: all)")
    ap.add_argument("--repeat", type=int, default=REPEAT, help="timed runs per frame (the fastest is kept)")
    ap.add_argument("--write", action="store_true", help="replace the tables in docs/vision.md and docs/vision_boards.md")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    rows = []
    wanted = {s.strip() for s in args.setups.split(",") if s.strip()}
    for game in args.games.split(","):
        for label, condition, resolution, position in SETUPS:
            if wanted and label not in wanted:
                continue
            t = run(game, condition, resolution, position, args.seeds, args.repeat)
            rows.append((game, label, t))
            show = real_table if condition in REAL_TABLE else table
            print(show([(game, label, t)]).splitlines()[-1], flush=True)
    real = [r for r in rows if r[1].removesuffix(" 1080p") in REAL_TABLE]
    held = held_table(rows)
    rows = [r for r in rows if r not in real]
    text = table(rows) if rows else ""
    print()
    print(text)
    if real:
        print()
        print(real_table(real))
    print()
    print(held)
    if args.write:
        for name, games in DOCS.items():
            mine = [r for r in rows if r[0] in games]
            doc = ROOT / "docs" / name
            body = doc.read_text("utf-8")
            if mine:
                part = table(mine)
                body = re.sub(r"<!-- bench:start -->.*<!-- bench:end -->",
                              lambda _m, part=part: f"<!-- bench:start -->\n{part}\n<!-- bench:end -->", body, flags=re.S)
            doc.write_text(body, "utf-8")
        if real:
            doc = ROOT / "docs" / "vision.md"
            part = real_table(real)
            body = doc.read_text("utf-8")
            body = re.sub(r"<!-- bench-real:start -->.*<!-- bench-real:end -->",
                          lambda _m: f"<!-- bench-real:start -->\n{part}\n<!-- bench-real:end -->", body, flags=re.S)
            doc.write_text(body, "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
