"""Components whose markers cannot be read at all still show at their place as an unknown.

A photo where a token's or tile's markers are scrambled (still printed ink, but no tag or
QR code left to find) must report that place as unknown and never guess the component;
empty spaces, slots and piles of the same boards must not be reported.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from scoring import find_game
from scoring.model import BoardState, Placement
from vision import recognise
from tests.rendering.render import render_scene

from .boards import judge


def scrambled(jpeg: bytes, outlines: list[np.ndarray], fraction: float, seed: int = 0) -> bytes:
    """The photo with the middle of each face (``fraction`` of its side) cut into 3 px blocks and
    shuffled: as much ink as before, but no marker to decode or even to find as a quad."""
    img = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    rng = np.random.default_rng(seed)
    for outline in outlines:
        c = outline.mean(axis=0)
        side = float(np.mean(np.linalg.norm(outline - np.roll(outline, -1, axis=0), axis=1)))
        half = int(side * fraction / 2) // 3 * 3
        x0, y0 = int(c[0]) - half, int(c[1]) - half
        patch = img[y0:y0 + 2 * half, x0:x0 + 2 * half].copy()
        n = 2 * half // 3
        blocks = patch.reshape(n, 3, n, 3, 3).transpose(0, 2, 1, 3, 4).reshape(n * n, 3, 3, 3)
        blocks = blocks[rng.permutation(n * n)]
        img[y0:y0 + 2 * half, x0:x0 + 2 * half] = blocks.reshape(n, n, 3, 3, 3).transpose(0, 2, 1, 3, 4).reshape(2 * half, 2 * half, 3)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 92])
    assert ok
    return buf.tobytes()


def key(p: Placement) -> tuple[object, ...]:
    return (p.area, p.cell, p.on, p.slot)


def unread_places(truth: BoardState, got: BoardState) -> set[tuple[object, ...]]:
    """Places of the truth whose component was not read onto them: the only places an unknown may name."""
    placed = {p.component: key(p) for p in got.placements}
    return {key(p) for p in truth.placements if placed.get(p.component) != key(p)}


def biomos_state(drop: tuple[str, ...] = ()) -> BoardState:
    game = find_game("biomos")
    doc = dict(game.example_state())
    doc["placements"] = [p for p in doc["placements"] if p["area"] == "planet:red" and p.get("cell") not in drop]
    doc["players"] = [p for p in doc["players"] if p["id"] == "red"]
    return game.load_state(doc)


def test_biomos_tokens_without_markers_are_unknown_on_their_space() -> None:
    state = biomos_state()
    scene = render_scene("biomos", state, condition="typical", seed=0)
    first = recognise(scene.jpeg, "biomos", players=state.players)
    targets = [first.component(cid) for cid in ("FOREST-04", "OCEAN-06")]
    assert all(t is not None and t.placement is not None for t in targets)
    jpeg = scrambled(scene.jpeg, [t.image_corners for t in targets], 0.7)  # type: ignore[union-attr]
    rec = recognise(jpeg, "biomos", players=state.players)
    v = judge(scene.truth, state, rec.state, scene.hidden)
    assert v.wrong == [] and v.stray == []
    got = {key(u) for u in rec.state.unknown}
    assert {("planet:red", "MOON", None, None), ("planet:red", "P12", None, None)} <= got
    assert got <= unread_places(scene.truth, rec.state)
    assert rec.state.placement_of("FOREST-04") is None


def test_biomos_empty_spaces_are_not_unknown() -> None:
    state = biomos_state(drop=("P2", "P3", "P5", "P8", "P9", "MOON"))
    for seed in (0, 1):
        scene = render_scene("biomos", state, condition="typical", seed=seed)
        rec = recognise(scene.jpeg, "biomos", players=state.players)
        assert {key(u) for u in rec.state.unknown} <= unread_places(scene.truth, rec.state)
        empty = {("planet:red", s, None, None) for s in ("P2", "P3", "P5", "P8", "P9", "MOON")}
        assert not empty & {key(u) for u in rec.state.unknown}


def rainforest_state() -> BoardState:
    game = find_game("rainforest")
    doc = dict(game.example_state())
    doc["placements"] = [p for p in doc["placements"] if p["area"].endswith(":ana")]
    doc["players"] = [p for p in doc["players"] if p["id"] == "ana"]
    return game.load_state(doc)


def test_rainforest_token_without_marker_is_unknown_in_its_slot() -> None:
    state = rainforest_state()
    scene = render_scene("rainforest", state, condition="typical", seed=2)
    first = recognise(scene.jpeg, "rainforest", players=state.players)
    tokens = [c for c in first.components if c.kind == "token" and c.placement is not None and c.placement.slot is not None]
    assert len(tokens) >= 2
    targets = tokens[:2]
    jpeg = scrambled(scene.jpeg, [t.image_corners for t in targets], 0.75)
    rec = recognise(jpeg, "rainforest", players=state.players)
    v = judge(scene.truth, state, rec.state, scene.hidden)
    assert v.wrong == [] and v.stray == []
    got = {key(u) for u in rec.state.unknown}
    assert {key(t.placement) for t in targets} <= got  # type: ignore[arg-type]
    # Empty slots of the same tiles (the clearing tile has free slots) stay empty.
    assert got <= unread_places(scene.truth, rec.state)


def borneo_state() -> BoardState:
    game = find_game("borneo")
    doc = dict(game.example_state())
    doc["placements"] = [p for p in doc["placements"] if p["area"] == "platform:C1" or p["component"] == "C1"]
    doc["players"] = []
    doc.pop("options", None)
    return game.load_state(doc)


def test_borneo_tile_without_markers_is_unknown_on_its_slot() -> None:
    state = borneo_state()
    scene = render_scene("borneo", state, condition="typical", seed=1)
    first = recognise(scene.jpeg, "borneo", players=state.players)
    tiles = [c for c in first.components if c.kind == "tile" and c.placement is not None]
    assert tiles
    target = tiles[0]
    jpeg = scrambled(scene.jpeg, [target.image_corners], 0.8)
    rec = recognise(jpeg, "borneo", players=state.players)
    v = judge(scene.truth, state, rec.state, scene.hidden)
    assert v.wrong == [] and v.stray == []
    assert rec.state.placement_of(target.id) is None
    got = {key(u) for u in rec.state.unknown}
    assert (target.placement.area, target.placement.cell, None, None) in got  # type: ignore[union-attr]
    # The platform's free slots stay free.
    assert got <= unread_places(scene.truth, rec.state)


@pytest.mark.parametrize("game", ["biomos", "rainforest", "borneo"])
def test_typical_scenes_report_no_unknown_on_an_empty_place(game: str) -> None:
    state = {"biomos": biomos_state, "rainforest": rainforest_state, "borneo": borneo_state}[game]()
    scene = render_scene(game, state, condition="typical", seed=3)
    rec = recognise(scene.jpeg, game, players=state.players)
    assert {key(u) for u in rec.state.unknown} <= unread_places(scene.truth, rec.state)


def test_a_later_look_searches_only_the_places_not_searched_before() -> None:
    # A layout asks about a grid's unread cells again in every round, a millimetre or two off
    # as the grid settles: a cell searched once is not searched again, a new cell is, and so
    # is a place of another face size at the same point (its tags are others).
    from vision.layouts import LookAgain
    from vision.sites import unasked

    tile = (50.0, 50.0)
    asked = [LookAgain((100.0, 100.0), tile, angle_deg=3.0), LookAgain((150.0, 100.0), tile, angle_deg=3.0)]
    again = [
        LookAgain((101.5, 99.0), tile, angle_deg=3.5),  # the first cell, settled 2 mm off
        LookAgain((150.0, 150.0), tile, angle_deg=3.0),  # a cell the park shows only now
        LookAgain((100.0, 100.0), (30.0, 30.0)),  # a figure's place at the first cell's centre
        LookAgain((100.0, 112.0), tile),  # 12 mm off: a place of its own
    ]
    assert unasked(again, asked) == again[1:]
    assert unasked(again, []) == again
    assert unasked([], asked) == []
