"""Hostile QR payloads photographed on the table: each one foreign, none a component.

Over five hundred payloads (links, ``javascript:``, markup and script, SQL, format
strings, controls and direction overrides, texts at and past the length limit, damaged
codes of ours and genuine codes of the other games) are laid out 23 to a scene beside
one genuine component. The scanner must list every payload as foreign at the place it
lies, read the genuine component, and read nothing else.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence

import pytest
from flask.testing import FlaskClient

from companion.app.security import isolate_bidi
from scoring import find_game, games
from vision import recognise

from .payloads import hostile_payloads, long_probes
from .scenes import HostileScene, as_decoded, big_code_scene, hostile_scene

PER_SCENE = 23
#: A code that a scene's blur happens to spoil is photographed again, at most this often.
RETRIES = 3


def _check_scene(game_id: str, scene: HostileScene) -> tuple[list[str], list[str]]:
    """Problems with one scene's recognition, and the payloads that did not decode at all."""
    rec = recognise(scene.jpeg, game_id)
    problems: list[str] = []
    ids = [c.id for c in rec.components]
    # Tags are numbered per game: when another game's code lies where the genuine component's
    # tag is, the tag is not trusted and both are reported as a disagreement instead.
    printed = {as_decoded(c.text) for c in scene.codes}
    doubted = [
        d for d in rec.disagreements
        if d.components[0] == scene.genuine and all(t in printed for t in d.components[1:])
    ]
    if scene.genuine and ids != [scene.genuine] and not (ids == [] and doubted):
        problems.append(f"components read {ids}, expected only {scene.genuine}")
    if not scene.genuine and ids:
        problems.append(f"components read {ids} in a scene without any")
    placed = {p.component for p in rec.state.placements}
    if not placed <= {scene.genuine}:
        problems.append(f"placements {sorted(placed)}")
    if rec.duplicated or len(rec.disagreements) != len(doubted):
        problems.append("duplicates or disagreements in a scene of distinct codes")
    foreign = [(f.text, f.detection.centre) for f in rec.foreign] + [
        (text, det.centre)
        for d in doubted
        for text, det in zip(d.components[1:], d.detections[1:], strict=True)
    ]
    undecoded = []
    for code in scene.codes:
        want = as_decoded(code.text)
        near = [t for t, c in foreign if math.dist(c, code.centre) < 40]
        if not near:
            undecoded.append(code.text)
        elif near != [want]:
            problems.append(f"{code.text!r} listed as {near!r}")
    listed = {t for t, _ in foreign}
    extra = listed - {as_decoded(c.text) for c in scene.codes}
    if extra:
        problems.append(f"foreign codes nobody printed: {sorted(extra)!r}")
    return problems, undecoded


def _run(game_id: str, payloads: Sequence[str], seed: int) -> list[str]:
    genuine = [c.id for c in find_game(game_id).components() if c.kind != "board"] or [
        c.id for c in find_game(game_id).components()
    ]
    problems: list[str] = []
    todo = list(payloads)
    for attempt in range(RETRIES + 1):
        missed: list[str] = []
        for k in range(0, len(todo), PER_SCENE):
            chunk = todo[k : k + PER_SCENE]
            scene = hostile_scene(game_id, genuine[(seed + k) % len(genuine)], chunk, seed=seed + 1000 * attempt + k)
            found, undecoded = _check_scene(game_id, scene)
            problems.extend(found)
            missed.extend(undecoded)
        todo = missed
        if not todo:
            break
    problems.extend(f"never decoded: {t!r}" for t in todo)
    return problems


def test_there_are_over_500_distinct_hostile_payloads() -> None:
    payloads = hostile_payloads("habitats")
    assert len(set(payloads)) == len(payloads) >= 500
    assert any(p.startswith("javascript:") for p in payloads)
    assert any("\x00" in p for p in payloads) and any("\u202e" in p for p in payloads)
    assert sum(p[:2] in ("BI", "RF", "BO", "PH") and p[2] == "1" for p in payloads) >= 300


def test_every_hostile_payload_is_foreign_in_a_table_scene() -> None:
    assert _run("habitats", hostile_payloads("habitats"), seed=11) == []


def test_long_payloads_are_foreign() -> None:
    for i, text in enumerate(long_probes()):
        problems, undecoded = _check_scene("habitats", big_code_scene(text, seed=i))
        assert problems == [] and undecoded == [], text[:40]


@pytest.mark.parametrize("game_id", [g.id for g in games() if g.id != "habitats"])
def test_other_games_see_hostile_payloads_as_foreign(game_id: str) -> None:
    """A scene per game: the first script payloads and codes of the other games (habitats' too)."""
    payloads = hostile_payloads(game_id)
    pick = payloads[20:31] + payloads[-12:]
    assert _run(game_id, pick, seed=5) == []


def test_scan_api_lists_hostile_payloads_as_json_only(client: FlaskClient) -> None:
    """The API hands the texts back as JSON strings, never as a page a browser could sniff."""
    payloads = [p for p in hostile_payloads("habitats") if "<" in p or "javascript" in p.lower()][:PER_SCENE]
    scene = hostile_scene("habitats", "T010", payloads, seed=3)
    r = client.post(
        "/api/scan",
        data={"game": "habitats", "image": (io.BytesIO(scene.jpeg), "scene.jpg")},
        content_type="multipart/form-data",
    )
    assert r.status_code == 200
    assert r.mimetype == "application/json" and r.headers["X-Content-Type-Options"] == "nosniff"
    body = r.get_json()
    listed = sorted(f["text"] for f in body["recognition"]["foreign"])
    # The API isolates a text carrying direction controls (FSI ... PDI); nothing else changes.
    direct = sorted(isolate_bidi(f.text) for f in recognise(scene.jpeg, "habitats").foreign)
    assert listed == direct
    assert set(listed) <= {isolate_bidi(as_decoded(p)) for p in payloads} and len(listed) >= len(payloads) - 2
    assert [c["component"] for c in body["recognition"]["components"]] == ["T010"]
    assert body["problems"]["foreign"] == len(listed)
