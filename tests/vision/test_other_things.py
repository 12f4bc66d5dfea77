"""Other games' components and everyday clutter on the table never change what is read.

Scenes come from ``tests.rendering.conditions`` (the same photo with and without the other things),
so a difference in the reading is caused by them alone.
"""

from __future__ import annotations

import json
from collections import defaultdict
from functools import cache
from itertools import combinations

import cv2
import numpy as np
import pytest

from scoring import find_game, games
from scoring.model import BoardState
from vision import recognise, sample_photo
from tests.rendering.conditions import HardScene, render_condition
from vision.config import RecogniseConfig
from vision.identify import MarkRole, catalog_for
from vision.problems import ProblemCode


def test_a_tag_only_component_has_a_tag_id_no_other_game_prints() -> None:
    """A token that carries only a tag is named by it alone: another game's token must never
    read as one of this game's components, nor this game's as another's."""
    users: dict[int, set[str]] = defaultdict(set)
    for game in games():
        for tag in catalog_for(game.id).by_tag:
            users[tag].add(game.id)
    shared = []
    for game in games():
        cat = catalog_for(game.id)
        for tag, mark in cat.by_tag.items():
            if mark.role is MarkRole.TAG and mark.component.id not in cat.qr_marks and len(users[tag]) > 1:
                shared.append((game.id, mark.component.id, tag, sorted(users[tag])))
    assert shared == []


#: Two games may print one tag id only at sizes this far apart. A tag printed d mm larger or
#: smaller than this game's sits about d / sqrt(2) mm off its printed corners on the fitted table
#: (1.8 mm here), clear of ``shared_tag_mm`` (1.0 mm), within which this game's own tags lie.
SHARED_TAG_GAP_MM = 2.5


def test_games_print_a_shared_tag_id_only_at_sizes_the_scanner_tells_apart() -> None:
    """A tag read alone whose id another game prints too is refused only when it does not sit
    on the table as this game's print of that id would: the two prints must differ in size."""
    sizes: dict[int, dict[str, set[float]]] = defaultdict(lambda: defaultdict(set))
    for game in games():
        for tag, mark in catalog_for(game.id).by_tag.items():
            sizes[tag][game.id].add(mark.size_mm)
    assert RecogniseConfig().shared_tag_mm < SHARED_TAG_GAP_MM / 2 ** 0.5 - 0.5
    close = []
    for tag, by_game in sorted(sizes.items()):
        for a, b in combinations(sorted(by_game), 2):
            gap = min(abs(x - y) for x in by_game[a] for y in by_game[b])
            if gap < SHARED_TAG_GAP_MM:
                close.append((tag, a, sorted(by_game[a]), b, sorted(by_game[b])))
    assert close == []


def _state(game_id: str) -> BoardState:
    path = sample_photo(game_id).with_suffix(".json")
    return find_game(game_id).load_state(json.loads(path.read_text("utf-8")))


@cache
def _scene(game_id: str, condition: str, seed: int) -> HardScene:
    return render_condition(game_id, _state(game_id), condition=condition, seed=seed)


def _inside(points: list[tuple[float, float]], hard: HardScene) -> list[tuple[float, float]]:
    return [p for p in points if any(cv2.pointPolygonTest(o.image_outline.astype(np.float32), p, False) >= 0
                                     for o in hard.others)]


@pytest.mark.parametrize(("game_id", "seed"), [("habitats", 1000), ("rainforest", 1001), ("rainforest", 1004)])
def test_other_games_components_change_nothing_and_are_named(game_id: str, seed: int) -> None:
    hard = _scene(game_id, "other games", seed)
    assert hard.base is not None and any(o.kind.startswith("game:") for o in hard.others)
    players = _state(game_id).players
    with_them = recognise(hard.scene.jpeg, game_id, players=players)
    without = recognise(hard.base.jpeg, game_id, players=players)
    assert set(with_them.state.placements) == set(without.state.placements)
    assert with_them.state.unknown == without.state.unknown
    assert not _inside([u.image_centre for u in with_them.unreadable], hard)
    named = [f for f in with_them.foreign if f.reason.startswith("from another game (")]
    assert named, "another game's components are listed as such"
    assert all(find_game(game_id).name not in f.reason for f in named)


def test_clutter_is_never_an_unreadable_component() -> None:
    hard = _scene("habitats", "clutter", 1000)
    kinds = {o.kind for o in hard.others}
    assert {"cup", "phone", "pen"} <= kinds
    rec = recognise(hard.scene.jpeg, "habitats", players=_state("habitats").players)
    assert not _inside([u.image_centre for u in rec.unreadable], hard)
    assert rec.state.unknown == ()


def test_curled_cards_are_read_where_they_lie() -> None:
    """A card curled 4-12 mm off the table: its QR code and tag no longer share a plane, yet
    both are valid and it lies on the table, so it is read and placed."""
    from vision.layouts.phylo import canonical

    hard = _scene("phylo", "curl", 1000)
    assert hard.curled
    rec = recognise(hard.scene.jpeg, "phylo", players=_state("phylo").players)
    truth = set(canonical(hard.scene.truth).placements)
    assert truth <= set(canonical(rec.state).placements)
    assert not [p for p in rec.problems if p.code is ProblemCode.OFF_PLANE]


@pytest.mark.parametrize(("game_id", "seed"), [("habitats", 1009), ("borneo", 1008)])
def test_another_games_tile_with_a_shared_tag_is_reported_not_read(game_id: str, seed: int) -> None:
    """Another game's component whose QR code did not decode shows a tag id this game prints too
    (a 23 mm BIOME Borneo card's tag is a 20 mm anchor of the Habitats score track; a Habitats
    tile's is Borneo tile T41's, printed 2.5 mm larger; a Biomos card's is Borneo's CICADA-4).
    It is not read as this game's component: it is reported where it lies, and nothing of this
    game's reading changes."""
    hard = _scene(game_id, "other games", seed)
    assert hard.base is not None
    players = _state(game_id).players
    truth = {p.component for p in hard.scene.truth.placements}
    with_them = recognise(hard.scene.jpeg, game_id, players=players)
    without = recognise(hard.base.jpeg, game_id, players=players)
    assert {c.id for c in with_them.components} <= truth
    assert set(with_them.state.placements) == set(without.state.placements)
    maybe = [p for p in with_them.problems if p.code is ProblemCode.MAYBE_OTHER_GAME]
    assert maybe and all(_inside(list(p.image_points), hard) == list(p.image_points) for p in maybe)
    assert not [p for p in without.problems if p.code is ProblemCode.MAYBE_OTHER_GAME]
