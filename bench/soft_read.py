"""How the whole-tag reader (vision/soft.py) does on tags the decoders missed, and what it
would read if the right tag were not a candidate (the test of its acceptance thresholds).

Usage: ``python bench/soft_read.py [--games biomos,rainforest] [--seeds 5] [--condition hard]``.
For every component in view whose tag the decoders did not read, a site is put 5 mm off its
true centre (the reader must find the tag itself) and read twice: with every tag of that
printed size as candidates (right / wrong / no reading), and with the true tag removed
(every reading is then wrong: the number that must stay 0).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from make_samples import POSITIONS  # noqa: E402
from scoring import find_game  # noqa: E402
from vision.detect import detect_all  # noqa: E402
from vision.identify import catalog_for, identify  # noqa: E402
from vision.load import load_image  # noqa: E402
from vision.config import RecogniseConfig  # noqa: E402
from vision.locate import locate  # noqa: E402
from tests.rendering.render import render_scene  # noqa: E402
from vision.soft import _KERNELS, _scorer, read_site  # noqa: E402
from vision.whole_tags import Site, tag_pools  # noqa: E402


def _distorted(point: tuple[float, float], camera, size: tuple[int, int]) -> np.ndarray:
    """Where an ideal (undistorted) image point lands after the renderer's lens distortion."""
    f = camera.matrix[0, 0]
    c = np.array(size, float) / 2
    p = (np.array(point) - c) / f
    q = p.copy()
    for _ in range(10):
        q = p / (1 + camera.k1 * float((q**2).sum()))
    return q * f + c


def _render_to_plane(scene, plane, size: tuple[int, int]) -> np.ndarray:
    """The (2, 3) similarity from the renderer's table frame to the fitted plane's frame,
    from where every component in view was drawn and where the plane puts it."""
    ids = [p.component for p in scene.truth.placements if p.component in scene.image_centres]
    src = np.array([[scene.poses[c].x_mm, scene.poses[c].y_mm] for c in ids], np.float32)
    seen = np.array([_distorted(scene.image_centres[c], scene.camera, size) for c in ids])
    dst = plane.to_table(seen).astype(np.float32)
    m, _ = cv2.estimateAffinePartial2D(src, dst, method=cv2.RANSAC, ransacReprojThreshold=5.0)
    return m


def run(game_id: str, seeds: int, condition: str) -> Counter:
    game = find_game(game_id)
    state = game.load_state(POSITIONS[game_id][0]())
    catalog = catalog_for(game_id)
    pools = tag_pools(game_id)
    tally: Counter = Counter()
    for pool in pools.values():  # templates are built once per game and blur: not part of a read
        for kernel in _KERNELS:
            _scorer(pool, kernel)
    for seed in range(1000, 1000 + seeds):
        scene = render_scene(game_id, state, condition=condition, seed=seed)
        frame = load_image(scene.jpeg)
        detected = detect_all(frame)
        plane = locate(identify(detected.markers, catalog), RecogniseConfig()).plane
        if plane is None:
            continue
        to_image = np.linalg.inv(plane.homography)
        seen = {d.tag_id for d in detected.markers if d.tag_id is not None}
        to_plane = _render_to_plane(scene, plane, (frame.width, frame.height))
        for p in scene.truth.placements:
            comp = catalog.components[p.component]
            mark = catalog.by_tag.get(comp.tag)
            if mark is None or comp.tag in seen or comp.spaces:
                continue
            face = scene.poses[p.component]
            # The tag's centre on the table: its printed place on the face, turned with the face,
            # taken from the renderer's table frame into the plane's (which a card read upside
            # down may have turned).
            w, h = comp.size_mm
            local = np.array([mark.x_mm + mark.size_mm / 2 - w / 2, mark.y_mm + mark.size_mm / 2 - h / 2])
            t = np.radians(face.angle_deg)
            on_table = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]]) @ local + [face.x_mm, face.y_mm]
            tag_mm = to_plane @ [on_table[0], on_table[1], 1.0]
            site = Site((float(tag_mm[0]) + 4.0, float(tag_mm[1]) - 3.0), mark.size_mm, 8.0)
            pool = pools[mark.size_mm]
            t0 = time.perf_counter()
            det = read_site(frame.gray, to_image, site, pool, set(pool) - seen)
            tally["ms"] += (time.perf_counter() - t0) * 1000
            tally["sites"] += 1
            tally["right" if det is not None and det.tag_id == comp.tag else "wrong" if det is not None else "none"] += 1
            without = tuple(i for i in pool if i != comp.tag)
            det = read_site(frame.gray, to_image, site, without, set(without) - seen)
            tally["wrong without the true tag"] += det is not None
    return tally


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default="biomos,rainforest")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--condition", default="hard")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    print("| game | missed tags | read right | read wrong | no reading | wrong without the true tag | ms per site |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for g in args.games.split(","):
        t = run(g, args.seeds, args.condition)
        n = max(t["sites"], 1)
        print(f"| {g} | {t['sites']} | {t['right']} | {t['wrong']} | {t['none']} | {t['wrong without the true tag']} | {t['ms'] / n:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
