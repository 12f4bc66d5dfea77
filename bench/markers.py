"""Marker sizes and tag families at table distance: how small may a printed tag be, and would
AprilTag 3's own families (round tags, a free centre) read as well as today's 36h11?

Usage: ``taskset -c 1 python bench/markers.py [--seeds N] [--conditions typical,hard,...]
[--sizes 32.5,26.9,20,16.2] [--families 36h11,36h11-at3,41h12,49h12,48h12] [--at3-sharpen A]``.

Each scene is a grid of 48 plain white 50 mm faces on the table, one tag centred on each,
photographed by the scanner's scene renderer (``tests/rendering``) at 1080p under one
condition: the renderer's ``typical`` and ``hard`` cameras and the real-table conditions
``shake``, ``low light``, ``steep phone`` and ``curl``. The faces cycle through every
(family, printed size) cell, shifted each seed, so every cell is seen in every part of the
frame; each face has its own tag id and a random turn on the table.

Sizes are the printed footprint: the side of the square a tag needs on paper, its quiet zone
or outer ring included (36h11 as the editions print it: 8 modules and a 1-module quiet zone,
10 modules; tagStandard41h12 and tagCircle21h7 9 modules, tagCustom48h12 10, tagCircle49h12
11). Equal footprints are equal printed areas. A 36h11 ``size_mm`` of ``markers.toml`` is 0.8
of its footprint: 26.9 mm is today's 21.5 mm tile tag, 32.5 mm a 26 mm card tag.

Readers: 36h11 through the scanner's own tag detector (``vision.detect.detect_all`` with the
product's ``DetectConfig``: cv2.aruco, unsharp mask, its tuned parameters); the AprilTag 3
families through the ``apriltag-python`` binding of the AprilTag 3 library (one thread, no
decimation, edge refinement, at most 1 corrected bit), fed the same sharpened grey frame.
Install it with ``pip install -e ".[measure]"``; without it only 36h11 is measured.

Counted per family and size: faces fully in view, faces read (a decode of the printed id
inside the face), wrong (a decode of another id inside a face, or a decode of this family
outside every face: the target is 0). Timed per frame: each reader on the whole frame, one
core (the only timing; tests count outcomes).
"""

from __future__ import annotations

import argparse
import ctypes
import math
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

if __name__ == "__main__" and hasattr(os, "sched_setaffinity"):
    os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from printables.symbols import tag_matrix  # noqa: E402
from scoring import find_game  # noqa: E402
from scoring.model import BoardState, Placement  # noqa: E402
from tests.rendering import render as render_module  # noqa: E402
from tests.rendering.conditions import distort, project, render_condition  # noqa: E402
from tests.rendering.render import Scene, render_scene  # noqa: E402
from vision.detect import DetectConfig, MarkerKind, detect_all, sharpened  # noqa: E402
from vision.layouts.base import TablePose  # noqa: E402

#: The carrier faces: Habitats' 50 mm square tiles, each face replaced by a plain white one.
GAME = "habitats"
FACE_MM = 50.0
GRID = (8, 6)
PITCH_MM = 56.0
#: Conditions: the renderer's own cameras, then real-table conditions (``render_condition``).
RENDERER = ("typical", "hard")
REAL_TABLE = ("shake", "low light", "steep phone", "curl")
CONDITIONS = RENDERER + REAL_TABLE
#: Printed footprints (mm): 36h11 symbols of 26, 21.5, 16 and 13 mm (today's card and tile
#: tags, 25 % and 40 % smaller than the tile's).
SIZES = (32.5, 26.9, 20.0, 16.2)


@dataclass(frozen=True, slots=True)
class Family:
    """A tag family as printed: its module grid and how it is read."""

    name: str
    """AprilTag 3's name (``tag36h11``...)."""
    label: str
    total: int
    """Modules across the printed footprint."""
    ids: int
    border: int = 8
    """The library's ``width_at_border``: the side of the square the detector finds, in modules."""
    reads: str | None = None
    """A second reader of another key's printed tags (36h11 through AprilTag 3's own library)."""


FAMILIES = {
    "36h11": Family("tag36h11", "36h11 (today, cv2.aruco)", 10, 587),
    "41h12": Family("tagStandard41h12", "Standard41h12", 9, 2115, 5),
    "49h12": Family("tagCircle49h12", "Circle49h12 (round)", 11, 65535, 5),
    "48h12": Family("tagCustom48h12", "Custom48h12 (art in the centre)", 10, 42211, 6),
    "36h11-at3": Family("tag36h11", "36h11 read by AprilTag 3", 10, 587, reads="36h11"),
    "21h7": Family("tagCircle21h7", "Circle21h7 (round, 38 ids)", 9, 38, 5),
}


def apriltag3() -> object | None:
    """The ``apriltag`` module of apriltag-python, or None when the extra is not installed."""
    try:
        import apriltag  # type: ignore[import-not-found]
    except ImportError:
        return None
    return apriltag


# -- the printed tags --------------------------------------------------------------------------


@cache
def _library() -> ctypes.CDLL:
    """AprilTag 3's C library as the binding ships it, for the tag images (``apriltag_to_image``)."""
    module = apriltag3()
    if module is None:
        raise RuntimeError('the AprilTag 3 families need apriltag-python: pip install -e ".[measure]"')
    lib = ctypes.CDLL(str(Path(module.__file__).parent / "libapriltag.so"))
    lib.apriltag_to_image.restype = ctypes.POINTER(_Image)
    lib.apriltag_to_image.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
    lib.image_u8_destroy.argtypes = [ctypes.POINTER(_Image)]
    return lib


class _Image(ctypes.Structure):
    """The library's ``image_u8_t``."""

    _fields_ = [("width", ctypes.c_int32), ("height", ctypes.c_int32), ("stride", ctypes.c_int32),
                ("buf", ctypes.POINTER(ctypes.c_uint8))]


def _raw_image(family: Family, tag: int) -> np.ndarray:
    """The library's own picture of a tag: one pixel per module, 0 black, 255 white."""
    lib = _library()
    create, destroy = getattr(lib, f"{family.name}_create"), getattr(lib, f"{family.name}_destroy")
    create.restype = ctypes.c_void_p
    destroy.argtypes = [ctypes.c_void_p]
    fam = create()
    ptr = lib.apriltag_to_image(fam, tag)
    im = ptr.contents
    out = np.ctypeslib.as_array(im.buf, shape=(im.height, im.stride))[:, : im.width].copy()
    lib.image_u8_destroy(ptr)
    destroy(fam)
    return out


def _ring(k: int, offset: int) -> np.ndarray:
    """The one-module ring of a k x k grid ``offset`` modules in from its edge."""
    out = np.zeros((k, k), bool)
    out[offset:k - offset, offset:k - offset] = True
    out[offset + 1:k - offset - 1, offset + 1:k - offset - 1] = False
    return out


@cache
def _unused(family: Family) -> np.ndarray:
    """Modules no code of the family uses (neither a data bit nor the border): where a round tag
    leaves paper and a free centre leaves room for art. Found as the modules equal in 400 tags,
    less the border: AprilTag 3's own families print a black ring with a white ring inside it."""
    rng = np.random.default_rng(1)
    picks = rng.choice(family.ids, size=min(400, family.ids), replace=False)
    stack = np.array([_raw_image(family, int(t)) for t in picks])
    constant = stack.min(axis=0) == stack.max(axis=0)
    k = family.total
    offset = (k - family.border - 2) // 2
    return constant & ~_ring(k, offset) & ~_ring(k, offset + 1)


def tag_modules(family: Family, tag: int) -> np.ndarray:
    """The printed footprint, one value a module: 0 black, 255 white (paper), 1 art (a colour).

    36h11 is the editions' own symbol (``printables.symbols.tag_matrix``) in its quiet zone.
    Round families print their unused corners as paper; Custom48h12 fills its free centre with art."""
    if family.name == "tag36h11":
        inner = np.array(tag_matrix(tag), bool)
        out = np.full((10, 10), 255, np.uint8)
        out[1:9, 1:9] = np.where(inner, 0, 255)
        return out
    out = _raw_image(family, tag)
    unused = _unused(family)
    out[unused] = 1 if family.name == "tagCustom48h12" else 255
    return out


#: The art printed in a free centre: a saturated colour, as an icon would be (BGR).
ART = (40, 60, 200)


def face_image(family: Family, tag: int, footprint_mm: float, ppm: float) -> np.ndarray:
    """A plain white 50 mm face with the tag centred, modules on whole pixels like the editions."""
    side = int(round(FACE_MM * ppm))
    img = np.full((side, side, 3), 255, np.uint8)
    modules = tag_modules(family, tag)
    n = len(modules)
    start = (FACE_MM - footprint_mm) / 2
    edges = [int(round((start + i * footprint_mm / n) * ppm)) for i in range(n + 1)]
    for r in range(n):
        for c in range(n):
            v = modules[r, c]
            img[edges[r]:edges[r + 1], edges[c]:edges[c + 1]] = ART if v == 1 else (v, v, v)
    return img


# -- the scenes --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Printed:
    """What one face of the scene carries."""

    family: str
    footprint_mm: float
    tag: int


def layout(seed: int, families: tuple[str, ...], sizes: tuple[float, ...]) -> tuple[dict[str, TablePose], dict[str, Printed]]:
    """The grid's poses and each face's tag: cells cycled across the grid, shifted per seed."""
    rng = np.random.default_rng(seed)
    carriers = [c.id for c in find_game(GAME).components() if c.size_mm == (FACE_MM, FACE_MM)]
    cells = [(f, s) for s in sizes for f in families if FAMILIES[f].reads is None]
    poses: dict[str, TablePose] = {}
    printed: dict[str, Printed] = {}
    cols, rows = GRID
    for k in range(cols * rows):
        cid = carriers[k]
        x = (k % cols) * PITCH_MM + rng.uniform(-2, 2)
        y = (k // cols) * PITCH_MM + rng.uniform(-2, 2)
        poses[cid] = TablePose(x, y, float(rng.uniform(0, 360)))
        family, size = cells[(k + seed) % len(cells)]
        ids = min(FAMILIES[f].ids for f, _ in cells)
        printed[cid] = Printed(family, size, int((seed * 131 + k * 37) % ids))
    return poses, printed


@contextmanager
def plain_faces(printed: dict[str, Printed]) -> Iterator[None]:
    """The renderer draws the scene's faces as ``printed`` says (every other face as usual)."""
    original = render_module.render_component

    def drawn(game_id: str, component, *, px_per_mm: float = 8.0, back: bool = False) -> np.ndarray:  # noqa: ANN001
        p = printed.get(component.id)
        if p is None or game_id != GAME or back:
            return original(game_id, component, px_per_mm=px_per_mm, back=back)
        return face_image(FAMILIES[p.family], p.tag, p.footprint_mm, px_per_mm)

    render_module.render_component = drawn
    try:
        yield
    finally:
        render_module.render_component = original


def scene_of(condition: str, seed: int, poses: dict[str, TablePose], printed: dict[str, Printed]) -> Scene:
    state = BoardState(GAME, (), tuple(Placement(cid, "table") for cid in poses))
    with plain_faces(printed):
        if condition in RENDERER:
            return render_scene(GAME, state, condition=condition, seed=seed, poses=poses, foreign=1)
        return render_condition_with(condition, state, seed, poses)


def render_condition_with(condition: str, state: BoardState, seed: int, poses: dict[str, TablePose]) -> Scene:
    """``render_condition`` on our grid (it asks the layout for poses: hand it ours)."""
    original = render_module.render_scene
    import tests.rendering.conditions as conditions

    def with_poses(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        kwargs["poses"] = poses
        return original(*args, **kwargs)

    conditions.render_scene = with_poses
    try:
        return render_condition(GAME, state, condition=condition, seed=seed).scene
    finally:
        conditions.render_scene = original


def _outline(scene: Scene, pose: TablePose) -> np.ndarray:
    """A face's outline in the photo (pixels, lens distortion included)."""
    a, h = math.radians(pose.angle_deg), FACE_MM / 2
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    local = np.array([[-h, -h], [h, -h], [h, h], [-h, h]]) @ rot.T + [pose.x_mm, pose.y_mm]
    return distort(scene, project(scene, local)).astype(np.float32)


def face_outlines(scene: Scene) -> tuple[dict[str, np.ndarray], list[np.ndarray]]:
    """Faces fully in view -> outline; and the outlines of faces partly out of view (a decode
    on one of those is neither counted nor a stray)."""
    shown = {cid: _outline(scene, pose) for cid, pose in scene.poses.items() if cid not in scene.hidden}
    cut = [_outline(scene, pose) for cid, pose in scene.poses.items() if cid in scene.hidden]
    return shown, cut


# -- reading -------------------------------------------------------------------------------------

#: A reader: sharpened grey frame -> [(tag id, centre x, y)].
Reader = Callable[[np.ndarray], list[tuple[int, float, float]]]


def product_reader(gray: np.ndarray) -> list[tuple[int, float, float]]:
    """The scanner's tag detector as the pipeline runs it (it sharpens the frame itself)."""
    found = detect_all(gray, config=DetectConfig(qr=None)).markers
    return [(int(d.tag_id), float(d.centre[0]), float(d.centre[1])) for d in found if d.kind is MarkerKind.TAG]


def apriltag3_reader(family: Family, sharpen: float) -> Reader:
    """AprilTag 3's detector for one family, on the frame sharpened by ``sharpen`` (the
    product's unsharp mask; 0 reads the frame as it is)."""
    module = apriltag3()
    detector = module.apriltag(family.name, threads=1, maxhamming=1, decimate=1.0, refine_edges=True)

    def read(gray: np.ndarray) -> list[tuple[int, float, float]]:
        image = sharpened(gray, sharpen)
        return [(int(d["id"]), float(d["center"][0]), float(d["center"][1])) for d in detector.detect(image)]

    return read


def readers(families: tuple[str, ...], sharpen: float) -> dict[str, Reader]:
    return {f: product_reader if f == "36h11" else apriltag3_reader(FAMILIES[f], sharpen) for f in families}


# -- tallies -------------------------------------------------------------------------------------


@dataclass
class Cell:
    faces: int = 0
    read: int = 0
    wrong: int = 0


@dataclass
class Tally:
    cells: dict[tuple[str, str, float], Cell] = field(default_factory=dict)
    """(condition, family, footprint) -> counts."""
    strays: dict[tuple[str, str], int] = field(default_factory=dict)
    """(condition, family) -> decodes outside every face."""
    ms: dict[str, list[float]] = field(default_factory=dict)

    def cell(self, condition: str, family: str, size: float) -> Cell:
        return self.cells.setdefault((condition, family, size), Cell())


def score(tally: Tally, condition: str, scene: Scene, printed: dict[str, Printed], family: str,
          found: list[tuple[int, float, float]]) -> None:
    """Count one reader's decodes on one photo against the faces it shows."""
    outlines, cut = face_outlines(scene)
    hits: dict[str, set[int]] = {cid: set() for cid in outlines}
    for tag, x, y in found:
        inside = [cid for cid, o in outlines.items() if cv2.pointPolygonTest(o, (x, y), False) >= 0]
        if inside:
            hits[inside[0]].add(tag)
        elif not any(cv2.pointPolygonTest(o, (x, y), False) >= 0 for o in cut):
            tally.strays[(condition, family)] = tally.strays.get((condition, family), 0) + 1
    for cid, tags in hits.items():
        p = printed[cid]
        if p.family != (FAMILIES[family].reads or family):
            cell = tally.cell(condition, family, -1.0)  # another family's face decoded as this one
            cell.wrong += len(tags)
            continue
        cell = tally.cell(condition, family, p.footprint_mm)
        cell.faces += 1
        cell.read += p.tag in tags
        cell.wrong += len(tags - {p.tag})


def run(conditions: tuple[str, ...], families: tuple[str, ...], sizes: tuple[float, ...], seeds: int,
        sharpen: float = DetectConfig().tag_sharpen) -> Tally:
    tally = Tally()
    cv2.setNumThreads(1)
    read = readers(families, sharpen)
    for condition in conditions:
        for seed in range(seeds):
            poses, printed = layout(1000 + seed, families, sizes)
            scene = scene_of(condition, 1000 + seed, poses, printed)
            gray = cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY)
            for family, reader in read.items():
                t = time.perf_counter()
                found = reader(gray)
                tally.ms.setdefault(family, []).append((time.perf_counter() - t) * 1000)
                score(tally, condition, scene, printed, family, found)
            print(f"  {condition} seed {seed} done", file=sys.stderr, flush=True)
    return tally


# -- the report ----------------------------------------------------------------------------------


def report(tally: Tally, conditions: tuple[str, ...], families: tuple[str, ...], sizes: tuple[float, ...]) -> str:
    head = "| family | footprint (36h11 size) | " + " | ".join(conditions) + " | wrong |"
    lines = [head, "| --- | --- | " + " | ".join("---" for _ in conditions) + " | --- |"]
    for family in families:
        for size in sizes:
            row, wrong = [], 0
            for condition in conditions:
                c = tally.cells.get((condition, family, size), Cell())
                wrong += c.wrong
                row.append(f"{100 * c.read / c.faces:.1f} % ({c.read}/{c.faces})" if c.faces else "-")
            label = f"{size:g} mm ({0.8 * size:.1f})" if FAMILIES[family].name == "tag36h11" else f"{size:g} mm"
            lines.append(f"| {FAMILIES[family].label} | {label} | " + " | ".join(row) + f" | {wrong} |")
    lines.append("")
    for family in families:
        cross = sum(c.wrong for (_, f, s), c in tally.cells.items() if f == family and s < 0)
        strays = sum(v for (_, f), v in tally.strays.items() if f == family)
        ms = tally.ms.get(family, [])
        timing = f"{statistics.median(ms):.0f} / {np.percentile(ms, 90):.0f} ms" if ms else "-"
        base = tally.ms.get("36h11", [])
        if family != "36h11" and base and len(base) == len(ms):  # each frame against itself: load cancels
            timing += f", {statistics.median(m / b for m, b in zip(ms, base)):.2f}x the scanner's 36h11 reader"
        lines.append(f"- {FAMILIES[family].label}: decodes outside every face {strays}, other families' faces "
                     f"read as this family {cross}; time per 1080p frame p50 / p90 {timing}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument("--conditions", default=",".join(CONDITIONS))
    parser.add_argument("--families", default=None,
                        help="default: 36h11, plus 36h11-at3,41h12,49h12,48h12 when apriltag-python is installed")
    parser.add_argument("--at3-sharpen", type=float, default=DetectConfig().tag_sharpen,
                        help="unsharp-mask amount of the frame AprilTag 3 reads (default: the product's)")
    parser.add_argument("--sizes", default=",".join(f"{s:g}" for s in SIZES), help="printed footprints, mm")
    args = parser.parse_args(argv)
    conditions = tuple(c.strip() for c in args.conditions.split(",") if c.strip())
    unknown = set(conditions) - set(CONDITIONS)
    if unknown:
        parser.error(f"unknown conditions {sorted(unknown)}; known: {', '.join(CONDITIONS)}")
    default = "36h11,36h11-at3,41h12,49h12,48h12" if apriltag3() is not None else "36h11"
    families = tuple(f.strip() for f in (args.families or default).split(",") if f.strip())
    if set(families) - set(FAMILIES):
        parser.error(f"unknown families {sorted(set(families) - set(FAMILIES))}; known: {', '.join(FAMILIES)}")
    if any(f != "36h11" for f in families) and apriltag3() is None:
        parser.error('the AprilTag 3 families need apriltag-python: pip install -e ".[measure]"')
    sizes = tuple(float(s) for s in args.sizes.split(","))
    if any(not 10 <= s <= 45 for s in sizes):
        parser.error("footprints must lie within 10..45 mm (a 50 mm face holds them)")
    tally = run(conditions, families, sizes, args.seeds, args.at3_sharpen)
    print(f"{args.seeds} scenes per condition, {GRID[0] * GRID[1]} faces each, 1080p\n")
    print(report(tally, conditions, families, sizes))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
