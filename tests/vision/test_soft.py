"""Whole-tag reading of blurred tags (vision/soft.py) on synthetic frames with known truth."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.detect import DetectConfig, detect_all
from vision.plane import Plane
from vision.soft import read_site, read_sites
from vision.whole_tags import Site

PX_PER_MM = 4.0
TAG_MM = 18.5
POOL = tuple(range(100, 160))


def _frame(tag: int, turns: int, blur: float, at_mm=(60.0, 50.0), size=(480, 400)) -> tuple[np.ndarray, np.ndarray]:
    """A grey frame (table mm x 4 = pixels) with one tag turned ``turns`` quarter turns
    clockwise, and the image corners of the tag's own top-left, top-right... corners."""
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_APRILTAG_36h11)
    side = int(TAG_MM * PX_PER_MM)
    img = cv2.aruco.generateImageMarker(d, tag, side)
    img = np.rot90(img, -turns).copy()  # clockwise
    frame = np.full((size[1], size[0]), 150, np.uint8)
    cx, cy = int(at_mm[0] * PX_PER_MM), int(at_mm[1] * PX_PER_MM)
    cv2.circle(frame, (cx, cy), int(14 * PX_PER_MM), 235, -1)  # a light round token
    x0, y0 = cx - side // 2, cy - side // 2
    frame[y0 : y0 + side, x0 : x0 + side] = img
    own = np.array([[x0, y0], [x0 + side, y0], [x0 + side, y0 + side], [x0, y0 + side]], float)
    own = np.roll(own, -turns, axis=0)  # the tag's own top-left moved ``turns`` corners clockwise
    frame = cv2.GaussianBlur(frame, (0, 0), blur)
    rng = np.random.default_rng(tag + turns)
    frame = np.clip(frame + rng.normal(0, 3, frame.shape), 0, 255).astype(np.uint8)
    return frame, own


def _to_image() -> np.ndarray:
    return np.diag([PX_PER_MM, PX_PER_MM, 1.0])


@pytest.mark.parametrize("turns", [0, 1, 2, 3])
def test_a_tag_too_blurred_for_the_detector_is_read_whole_with_its_own_corner_order(turns: int) -> None:
    frame, own = _frame(123, turns, blur=6.5)
    assert not [m for m in detect_all(frame, config=DetectConfig(qr=None)).markers if m.tag_id == 123]
    det = read_site(frame, _to_image(), Site((62.0, 47.0), TAG_MM, 8.0), POOL)
    assert det is not None and det.tag_id == 123
    assert np.abs(det.corners - own).max() < 0.15 * TAG_MM * PX_PER_MM


def test_a_tag_outside_the_pool_is_not_read_as_its_nearest_rival() -> None:
    frame, _ = _frame(123, 0, blur=6.5)
    pool = tuple(t for t in POOL if t != 123)
    assert read_site(frame, _to_image(), Site((60.0, 50.0), TAG_MM, 8.0), pool) is None


def test_a_seen_tag_is_not_given_again_and_no_other_tag_takes_its_place() -> None:
    frame, _ = _frame(123, 0, blur=6.5)
    allowed = set(POOL) - {123}
    assert read_site(frame, _to_image(), Site((60.0, 50.0), TAG_MM, 8.0), POOL, allowed) is None


def test_an_empty_token_or_an_empty_table_reads_nothing() -> None:
    blank = np.full((400, 480), 150, np.uint8)
    cv2.circle(blank, (240, 200), 56, 235, -1)
    for frame in (blank, np.full((400, 480), 90, np.uint8)):
        assert read_site(frame, _to_image(), Site((60.0, 50.0), TAG_MM, 8.0), POOL) is None


def test_a_noise_frame_reads_nothing() -> None:
    rng = np.random.default_rng(7)
    noise = cv2.GaussianBlur(rng.integers(0, 255, (400, 480)).astype(np.uint8), (0, 0), 3.0)
    plane = Plane(np.diag([1 / PX_PER_MM, 1 / PX_PER_MM, 1.0]), 0.0, (), ())
    sites = [Site((x, y), TAG_MM, 8.0) for x in range(25, 100, 20) for y in range(25, 80, 20)]
    assert read_sites(noise, plane, sites, {TAG_MM: POOL}, set(POOL)) == []


def test_one_tag_claimed_by_two_far_apart_sites_is_trusted_at_neither() -> None:
    a, _ = _frame(123, 0, blur=6.5, at_mm=(30.0, 50.0))
    b, _ = _frame(123, 0, blur=6.5, at_mm=(90.0, 50.0))
    frame = np.minimum(a, b)  # both copies on one frame
    plane = Plane(np.diag([1 / PX_PER_MM, 1 / PX_PER_MM, 1.0]), 0.0, (), ())
    sites = [Site((30.0, 50.0), TAG_MM, 6.0), Site((90.0, 50.0), TAG_MM, 6.0)]
    assert read_sites(frame, plane, sites, {TAG_MM: POOL}, set(POOL)) == []
    one = read_sites(a, plane, sites[:1], {TAG_MM: POOL}, set(POOL))
    assert [d.tag_id for d in one] == [123]


def _blurred(jpeg: bytes, outlines: list[np.ndarray], sigma: float) -> bytes:
    """The photo with each face blurred hard (a smudge, a lens out of focus there)."""
    img = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    soft = cv2.GaussianBlur(img, (0, 0), sigma)
    mask = np.zeros(img.shape[:2], np.uint8)
    for outline in outlines:
        c = outline.mean(axis=0)
        grown = (outline - c) * 1.3 + c
        cv2.fillConvexPoly(mask, np.round(grown).astype(np.int32), 255)
    img[mask > 0] = soft[mask > 0]
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    return buf.tobytes()


def test_blurred_tokens_on_a_planet_are_read_whole_and_placed_on_their_spaces() -> None:
    from scoring import find_game
    from vision import recognise
    from vision.config import RecogniseConfig
    from tests.rendering.render import render_scene

    game = find_game("biomos")
    doc = dict(game.example_state())
    doc["placements"] = [p for p in doc["placements"] if p["area"] == "planet:red"]
    doc["players"] = [p for p in doc["players"] if p["id"] == "red"]
    state = game.load_state(doc)
    scene = render_scene("biomos", state, condition="typical", seed=0)
    first = recognise(scene.jpeg, "biomos", players=state.players)
    targets = [first.component(cid) for cid in ("FOREST-04", "OCEAN-06")]
    assert all(t is not None and t.placement is not None for t in targets)
    jpeg = _blurred(scene.jpeg, [t.image_corners for t in targets], 3.0)  # type: ignore[union-attr]
    # The decoders and the bit-level second look give up on them (the layout sees something there)...
    plain = recognise(jpeg, "biomos", players=state.players, config=RecogniseConfig(soft=None))
    assert all(plain.state.placement_of(t.id) is None for t in targets)  # type: ignore[union-attr]
    assert len(plain.state.unknown) == 2
    # ...reading them whole puts each on its own space, and nothing else changes.
    rec = recognise(jpeg, "biomos", players=state.players)
    assert rec.counts.get("read_whole", 0) >= 2
    for t in targets:
        assert rec.state.placement_of(t.id) == t.placement  # type: ignore[union-attr]
    assert set(rec.state.placements) == set(first.state.placements)
    assert rec.state.unknown == ()


def test_a_park_whose_entrance_is_blurred_is_still_placed_from_its_entrance_read_whole() -> None:
    from scoring import find_game
    from vision import recognise
    from vision.config import RecogniseConfig
    from tests.rendering.render import render_scene

    game = find_game("habitats")
    state = game.load_state(game.example_state())
    scene = render_scene("habitats", state, condition="typical", seed=3)
    first = recognise(scene.jpeg, "habitats", players=state.players)
    entrances = [c for c in first.components if c.kind == "entrance" and c.placement is not None]
    assert entrances
    entrance = entrances[0]
    park = [c for c in first.components if c.placement is not None and c.placement.area == entrance.placement.area]
    assert len(park) >= 3
    jpeg = _blurred(scene.jpeg, [entrance.image_corners], 5.0)
    # Without reading whole, the entrance is lost and with it the whole park's grid...
    plain = recognise(jpeg, "habitats", players=state.players, config=RecogniseConfig(soft=None))
    assert plain.state.placement_of(entrance.id) is None
    assert all(plain.state.placement_of(c.id) is None for c in park)
    # ...its tiles lie loose, so the places beside them are searched and the entrance is read.
    rec = recognise(jpeg, "habitats", players=state.players)
    for c in park:
        assert rec.state.placement_of(c.id) == c.placement
    assert set(rec.state.placements) == set(first.state.placements)


def test_a_degenerate_plane_or_a_site_far_off_the_photo_reads_nothing_and_raises_nothing() -> None:
    frame, _ = _frame(123, 0, blur=6.5)
    flat = Plane(np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 1.0]]), 0.0, (), ())
    far = Plane(np.diag([1 / PX_PER_MM, 1 / PX_PER_MM, 1.0]), 0.0, (), ())
    sites = [Site((60.0, 50.0), TAG_MM, 8.0), Site((1e7, -1e7), TAG_MM, 8.0), Site((float("nan"), 0.0), TAG_MM, 8.0)]
    with np.errstate(all="ignore"):
        assert read_sites(frame, flat, sites, {TAG_MM: POOL}, set(POOL)) == []
    assert [d.tag_id for d in read_sites(frame, far, sites, {TAG_MM: POOL}, set(POOL))] == [123]


def test_blurred_cards_the_phylo_grid_sees_but_cannot_read_are_looked_at_again_and_placed(monkeypatch) -> None:  # noqa: ANN001
    import importlib
    import json

    from scoring import find_game
    from vision import sample_photo
    from vision.layouts.phylo import canonical
    from tests.rendering.render import render_scene

    recognise_module = importlib.import_module("vision.recognise")  # the module, not the function
    game = find_game("phylo")
    state = game.load_state(json.loads(sample_photo("phylo").with_suffix(".json").read_text("utf-8")))
    scene = render_scene("phylo", state, condition="hard", seed=2)  # steep, blurred: many cards unread at first
    truth = set(canonical(scene.truth).placements)
    rec = recognise_module.recognise(scene.jpeg, "phylo", players=state.players)
    # Every card in view is read and in its cell: those the decoders missed were looked at
    # again where the grid saw a printed face, and read whole.
    assert truth <= set(rec.state.placements)
    assert set(rec.state.placements) <= set(canonical(state).placements)
    # Without the layout's look-again places, several stay unread.
    monkeypatch.setattr(importlib.import_module("vision.looks"), "look_again_sites", lambda *args: [])
    without = recognise_module.recognise(scene.jpeg, "phylo", players=state.players)
    assert len(truth - set(without.state.placements)) >= 3


def test_an_undecoded_quad_grown_to_the_quiet_zone_is_tried_at_the_smaller_printed_size() -> None:
    from vision.detect import Candidate, MarkerKind
    from vision.config import RecogniseConfig
    from vision.sites import soft_sites

    plane = Plane(np.eye(3), 0.0, (), ())
    # A 21 mm tag's quad outlined 30 mm out in a blurred view; PHYLO prints tags of 21, 26 and 30 mm.
    quad = Candidate(MarkerKind.TAG, np.array([[100.0, 100.0], [130.0, 100.0], [130.0, 130.0], [100.0, 130.0]]))
    pools = {21.0: (1, 2), 26.0: (3,), 30.0: (4,)}
    sites = soft_sites([quad], plane, [], None, pools, RecogniseConfig())  # type: ignore[arg-type]
    assert sorted(s.tag_mm for s in sites) == [21.0, 26.0, 30.0]
    assert all(s.centre_mm == (115.0, 115.0) for s in sites)
    by_size = {s.tag_mm: s for s in sites}
    # As a 26 or 30 mm tag the quad is the tag or its quiet zone: checked where it lies...
    assert by_size[26.0].angle_deg == 0.0 and by_size[30.0].angle_deg == 0.0
    # ...as a 21 mm tag it is a blurred blob around it: searched inside, square to the quad.
    assert by_size[21.0].angle_deg is None and by_size[21.0].turn_hint_deg == 0.0
    assert by_size[21.0].reach_mm >= (30.0 - 21.0) / 2
    # A quad far smaller than every printed tag, or far larger, is no tag of this game.
    tiny = Candidate(MarkerKind.TAG, quad.corners * 0.4)
    huge = Candidate(MarkerKind.TAG, quad.corners * 2.0)
    assert soft_sites([tiny, huge], plane, [], None, pools, RecogniseConfig()) == []  # type: ignore[arg-type]


def test_a_site_asked_to_search_absurdly_far_is_bounded_and_still_reads_its_tag() -> None:
    frame, _ = _frame(123, 0, blur=6.5)
    plane = Plane(np.diag([1 / PX_PER_MM, 1 / PX_PER_MM, 1.0]), 0.0, (), ())
    found = read_sites(frame, plane, [Site((60.0, 50.0), TAG_MM, 1e9)], {TAG_MM: POOL}, set(POOL))
    assert [d.tag_id for d in found] == [123]


def test_a_place_asked_for_twice_is_searched_once_at_its_widest() -> None:
    from vision.soft import unique_sites

    narrow = Site((60.0, 50.0), TAG_MM, 4.0, turn_hint_deg=10.0)
    wide = Site((60.0, 50.0), TAG_MM, 9.0, turn_hint_deg=10.0)
    any_turn = Site((60.0, 50.0), TAG_MM, 9.0)
    other_size = Site((60.0, 50.0), 2 * TAG_MM, 4.0)
    assert unique_sites([narrow, wide, other_size]) == [wide, other_size]
    assert unique_sites([wide, any_turn]) == [any_turn]
    assert unique_sites([narrow, Site((75.0, 50.0), TAG_MM, 4.0)]) == [narrow, Site((75.0, 50.0), TAG_MM, 4.0)]


def _searches(monkeypatch) -> list[Site]:  # noqa: ANN001
    """The sites the finder searches from now on, in order."""
    import vision.soft as soft

    calls: list[Site] = []
    real = soft._found
    monkeypatch.setattr(soft, "_found", lambda *a, **k: calls.append(a[2]) or real(*a, **k))
    return calls


def test_duplicated_sites_cost_one_search_and_still_give_the_tag(monkeypatch) -> None:  # noqa: ANN001
    frame, _ = _frame(123, 0, blur=6.5)
    plane = Plane(np.diag([1 / PX_PER_MM, 1 / PX_PER_MM, 1.0]), 0.0, (), ())
    calls = _searches(monkeypatch)
    site = Site((62.0, 47.0), TAG_MM, 8.0)
    found = read_sites(frame, plane, [site, site, site], {TAG_MM: POOL}, set(POOL))
    assert [d.tag_id for d in found] == [123]
    assert calls == [site]


def test_a_size_whose_every_tag_is_read_is_not_searched_and_the_other_size_still_reads(monkeypatch) -> None:  # noqa: ANN001
    frame, _ = _frame(123, 0, blur=6.5)
    plane = Plane(np.diag([1 / PX_PER_MM, 1 / PX_PER_MM, 1.0]), 0.0, (), ())
    calls = _searches(monkeypatch)
    small, large = Site((62.0, 47.0), TAG_MM, 8.0), Site((62.0, 47.0), 1.6 * TAG_MM, 8.0)
    pools = {TAG_MM: POOL, 1.6 * TAG_MM: (7, 8)}
    found = read_sites(frame, plane, [large, small], pools, set(POOL))  # tags 7 and 8 are read already
    assert [d.tag_id for d in found] == [123]
    assert calls == [small]
    assert read_sites(frame, plane, [large], pools, set(POOL)) == []


def test_a_tag_read_elsewhere_is_no_rival_for_the_best_match() -> None:
    # A blurred code about as like tag 101 as tag 123, and less like any other: unread while
    # both may lie here; read as 123 once 101 is read elsewhere in the photo (each tag is
    # printed once), and never read as 101, which is taken.
    from vision.soft import _KERNEL_NAMES, _compare, _templates
    from vision.whole_tags import SoftConfig

    pool = (101, 123, 140, 150)
    kernel = _KERNEL_NAMES[0]
    rows, owners = _templates(pool, kernel)
    a, b = rows[4 * pool.index(123)], rows[4 * pool.index(101)]
    v = a + 0.9 * b
    v = v - v.mean()
    v /= np.linalg.norm(v)
    scores = rows @ v
    top, rival = float(scores[4 * pool.index(123)]), float(scores[4 * pool.index(101)])
    others = float(np.delete(scores, [4 * pool.index(t) + k for t in (101, 123) for k in range(4)]).max())
    config = SoftConfig(min_score=0.0)
    assert top > rival and (1 - rival**2) < config.min_ratio * (1 - top**2)   # too close to tell apart
    assert (1 - others**2) >= config.min_ratio * (1 - top**2)                  # clear of all the others
    pose = np.array([60.0, 50.0, 0.0, TAG_MM])
    read = lambda allowed: _compare(_to_image(), pose, v, pool, kernel, top, allowed, config)  # noqa: E731
    assert read(None) is None and read(set(pool)) is None
    det = read(set(pool) - {101})
    assert det is not None and det.tag_id == 123
    assert read(set(pool) - {123}) is None


@pytest.mark.parametrize("kernel_index", [0, 3, 4, 11])
def test_scores_through_the_module_basis_equal_the_whole_templates(kernel_index: int) -> None:
    # Blurring is linear, so correlating a patch with each tag through the blurred pictures
    # of its 36 bit modules must give what correlating with every whole blurred template gives,
    # for a patch like a tag and for one like nothing at all.
    from vision.soft import _KERNEL_NAMES, _scores, _templates

    pool = tuple(range(40, 90))
    kernel = _KERNEL_NAMES[kernel_index]
    rows, owners = _templates(pool, kernel)
    rng = np.random.default_rng(kernel_index)
    for v in (rows[4 * 7 + 2] + 0.3 * rng.standard_normal(rows.shape[1]).astype(np.float32) / 40,
              rng.standard_normal(rows.shape[1]).astype(np.float32)):
        v = v - v.mean()
        v /= np.linalg.norm(v)
        scores, got_owners = _scores(v, pool, kernel)
        assert np.array_equal(got_owners, owners)
        assert np.abs(scores - rows @ v).max() < 1e-5
    assert int(np.argmax(_scores(rows[4 * 7 + 2], pool, kernel)[0])) == 4 * 7 + 2


def _turned_frame(tag: int, deg: float, blur: float, at_mm=(60.0, 50.0)) -> np.ndarray:
    """A grey frame (table mm x 4 = pixels) with one tag turned ``deg`` clockwise about its centre."""
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_APRILTAG_36h11)
    side = int(TAG_MM * PX_PER_MM)
    frame = np.full((400, 480), 150, np.uint8)
    cx, cy = int(at_mm[0] * PX_PER_MM), int(at_mm[1] * PX_PER_MM)
    cv2.circle(frame, (cx, cy), int(14 * PX_PER_MM), 235, -1)
    frame[cy - side // 2 : cy - side // 2 + side, cx - side // 2 : cx - side // 2 + side] = cv2.aruco.generateImageMarker(d, tag, side)
    turn = cv2.getRotationMatrix2D((cx - 0.5 + side % 2 / 2, cy - 0.5 + side % 2 / 2), -deg, 1.0)  # y down: clockwise
    frame = cv2.warpAffine(frame, turn, (480, 400), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return cv2.GaussianBlur(frame, (0, 0), blur)


@pytest.mark.parametrize("off", [-9.0, -4.0, 0.0, 6.0, 9.0])
def test_a_hinted_search_finds_a_square_turned_up_to_ten_degrees_off_its_hint(off: float) -> None:
    # Only the hint's own picture is matched across the place; the pictures 10 degrees either
    # side only about its peak. A square turned off the hint is still found where it lies,
    # with its turn, and read.
    from vision.soft import _find

    frame = _turned_frame(123, 30.0 + off, blur=6.0)
    site = Site((64.0, 46.0), TAG_MM, 9.0, turn_hint_deg=30.0)
    x, y, deg, v = _find(frame, _to_image(), site)
    assert np.hypot(x - 60.0, y - 50.0) < 1.5
    assert abs(deg - (30.0 + off)) <= 5.0 + 1e-9 and v > 0.35
    det = read_site(frame, _to_image(), site, POOL)
    assert det is not None and det.tag_id == 123
