""""Hold the camera still": asked only when something was not read and the photo is blurred there."""

from __future__ import annotations

import json

import cv2
import numpy as np

from scoring import find_game
from vision import recognise, sample_photo
from vision.detect import detect_all
from vision.load import load_image
from vision.problems import Problem, ProblemCode
from vision.steady import SHARPNESS_MIN, hold_still, patch_sharpness

from .conftest import place, square_at, tag_image


def _tag_frame(motion_px: int = 0, sigma: float = 0.0, angle_deg: float = 10.0) -> tuple[np.ndarray, np.ndarray]:
    """A grey frame with one 36 px tag (4.5 px a module, as at table distance) in a white quiet
    zone on a mid-grey table, blurred by a horizontal streak and/or a round blur; and its corners."""
    frame = np.full((160, 200), 120, np.uint8)
    cv2.rectangle(frame, (60, 40), (140, 120), 255, -1)
    corners = square_at(100, 80, 36, angle_deg)
    place(frame, tag_image(7), corners)
    if motion_px:
        kernel = np.zeros((motion_px, motion_px), np.float32)
        kernel[motion_px // 2, :] = 1.0 / motion_px
        frame = cv2.filter2D(frame, -1, kernel)
    if sigma:
        frame = cv2.GaussianBlur(frame, (0, 0), sigma)
    return frame, corners


def test_a_sharp_tag_measures_sharp_and_a_shaken_one_blurred() -> None:
    sharp = patch_sharpness(*_tag_frame())
    shaken = patch_sharpness(*_tag_frame(motion_px=9))
    assert sharp is not None and shaken is not None
    assert sharp >= SHARPNESS_MIN > shaken
    # A tag seen at a slant is rectified first: turning it does not make it look blurred.
    turned = patch_sharpness(*_tag_frame(angle_deg=37.0))
    assert turned is not None and turned >= SHARPNESS_MIN


def test_a_flat_patch_has_no_measure() -> None:
    assert patch_sharpness(np.full((100, 100), 128, np.uint8), square_at(50, 50, 30, 0)) is None


def _unread_at(point: tuple[float, float]) -> Problem:
    return Problem(ProblemCode.UNREADABLE, "the tile on slot N could not be read", (), (point,))


def test_nothing_unread_asks_nothing_however_blurred() -> None:
    frame, _ = _tag_frame(motion_px=11)
    markers = detect_all(frame).markers
    assert hold_still(frame, markers, (), ()) is None


def test_a_sharp_photo_with_something_unread_is_not_blamed_on_the_camera() -> None:
    # The typical sample photo is sharp: whatever is reported unread there (here: a made-up
    # unreadable tile beside the grid) is not a matter of holding the camera still.
    frame = load_image(sample_photo("habitats").read_bytes())
    markers = detect_all(frame).markers
    assert hold_still(frame.gray, markers, (_unread_at((900.0, 500.0)),), ()) is None


def test_a_shaken_photo_with_unread_places_asks_to_hold_the_camera_still() -> None:
    from tests.rendering.conditions import render_condition

    path = sample_photo("habitats").with_suffix(".json")
    state = find_game("habitats").load_state(json.loads(path.read_text("utf-8")))
    scene = render_condition("habitats", state, condition="shake", resolution=(1920, 1080), seed=1004).scene
    rec = recognise(scene.jpeg, "habitats", players=state.players)
    held = [p for p in rec.problems if p.code is ProblemCode.HOLD_STILL]
    assert rec.unreadable or rec.state.unknown  # this frame reports places it could not read
    assert len(held) == 1 and "hold the camera still" in held[0].message and held[0].image_points
    assert rec.to_dict()["problems"][-1]["code"] == "vision/hold_still"


def test_the_typical_sample_photos_are_never_asked_to_be_taken_again() -> None:
    for game_id in ("habitats", "phylo", "biomos", "rainforest", "borneo"):
        rec = recognise(sample_photo(game_id).read_bytes(), game_id)
        assert all(p.code is not ProblemCode.HOLD_STILL for p in rec.problems), game_id
