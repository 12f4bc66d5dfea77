"""The live loop: recognise only a still table with no hand over it, merge still frames.

Outcomes are counted (proposals, recognitions, statuses), never timed.
"""

from __future__ import annotations

import json
from functools import cache

import cv2
import numpy as np
import pytest

from scoring import find_game
from scoring.model import BoardState, Placement, Player, PlayerId, UnknownPlace
from vision import Recognition, recognise, sample_photo
from tests.rendering.conditions import a_move, hand_sequence
from vision.live import PIXEL_CHANGE, LiveConfig, LiveTable, TableStatus, merge, reaches_in, thumbnail

PLAYERS = (Player(PlayerId("red"), "Red", "#d62828", 0),)


def _rec(placements: tuple[Placement, ...] = (), unknown: tuple[UnknownPlace, ...] = ()) -> Recognition:
    state = BoardState("habitats", PLAYERS, placements, unknown=unknown)
    return Recognition("habitats", state, (), (), (), (), (), (), 1.0)


def _at(cid: str, x: int, y: int = 0) -> Placement:
    return Placement(cid, "park:red", (x, y))


# -- merging still frames -------------------------------------------------------------------


def test_a_component_read_in_any_still_frame_counts() -> None:
    merged = merge([_rec((_at("T001", 0), _at("T002", 1))), _rec((_at("T001", 0), _at("T003", 2)))])
    assert {p.component for p in merged.state.placements} == {"T001", "T002", "T003"}
    assert merged.disagreements == ()


def test_frames_that_read_a_component_in_different_places_are_reported() -> None:
    merged = merge([_rec((_at("T001", 0),)), _rec((_at("T001", 1),)), _rec((_at("T001", 1),))])
    assert merged.state.placements == (_at("T001", 1),)  # most frames win
    (d,) = merged.disagreements
    assert d.components == ("T001",)
    assert d.placements == (_at("T001", 1), _at("T001", 0))


def test_frames_that_read_one_place_differently_keep_one_and_report_both() -> None:
    merged = merge([_rec((_at("T001", 0),)), _rec((_at("T009", 0),))])
    assert merged.state.placements == (_at("T009", 0),)  # a tie: the latest frame
    (d,) = merged.disagreements
    assert set(d.components) == {"T001", "T009"}


def test_an_unknown_place_read_in_another_frame_is_no_longer_unknown() -> None:
    unknown_a, unknown_b = UnknownPlace("park:red", (2, 0)), UnknownPlace("park:red", (3, 0))
    merged = merge([_rec((), (unknown_a, unknown_b)), _rec((_at("T004", 2),))])
    assert merged.state.unknown == (unknown_b,)
    assert {p.component for p in merged.state.placements} == {"T004"}


def test_merge_refuses_no_frames() -> None:
    with pytest.raises(ValueError):
        merge([])


# -- telling a hand from a piece ---------------------------------------------------------------


def test_a_change_reaching_in_from_the_border_is_a_hand_and_one_inside_is_not() -> None:
    mask = np.zeros((90, 160), np.uint8)
    mask[40:60, 70:90] = 255  # a piece put down inside the picture
    assert not reaches_in(mask, min_fraction=0.004)
    mask[60:90, 20:40] = 255  # an arm from the bottom edge
    assert reaches_in(mask, min_fraction=0.004)
    small = np.zeros((90, 160), np.uint8)
    small[0:2, 0:2] = 255  # a speck at the edge is noise, not an arm
    assert not reaches_in(small, min_fraction=0.004)


# -- the loop on drawn frames (a counting recogniser) -------------------------------------------


def _table() -> np.ndarray:
    img = np.full((540, 960, 3), (90, 120, 150), np.uint8)
    cv2.rectangle(img, (300, 200), (420, 320), (240, 240, 240), -1)
    return img


class Counting:
    """A recogniser that counts its calls and reads one placement per white square."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, image: np.ndarray) -> Recognition:
        self.calls += 1
        n = cv2.connectedComponents((image.min(axis=2) > 200).astype(np.uint8))[0] - 1
        return _rec(tuple(_at(f"T{k:03d}", k) for k in range(n)))


def test_a_still_table_is_recognised_once_then_reused_and_a_hand_blocks_proposals() -> None:
    rec = Counting()
    live = LiveTable(rec, LiveConfig())
    table = _table()
    steps = [live.feed(table) for _ in range(8)]
    assert [s.status for s in steps[:3]] == [TableStatus.MOVING, TableStatus.SETTLING, TableStatus.PROPOSED]
    assert all(s.status is TableStatus.UNCHANGED for s in steps[3:])
    assert rec.calls == 2  # two still frames merged; the unchanged ones cost no recognition
    # An arm reaches in from the bottom edge and stays still over the table.
    arm = table.copy()
    cv2.rectangle(arm, (600, 300), (680, 540), (110, 145, 200), -1)
    cv2.rectangle(arm, (560, 330), (640, 380), (245, 245, 245), -1)  # putting a piece down
    steps = [live.feed(arm) for _ in range(10)]
    assert steps[0].status is TableStatus.MOVING
    assert all(s.status is TableStatus.HANDS for s in steps[1:])
    assert not any(s.is_new_proposal for s in steps) and rec.calls == 2
    # The arm leaves, the piece stays: one proposal with it.
    after = table.copy()
    cv2.rectangle(after, (560, 330), (640, 380), (245, 245, 245), -1)
    steps = [live.feed(after) for _ in range(6)]
    proposals = [s for s in steps if s.is_new_proposal]
    assert len(proposals) == 1
    assert len(proposals[0].proposal.state.placements) == 2


def test_a_moving_camera_is_told_to_hold_still() -> None:
    live = LiveTable(Counting())
    table = _table()
    live.feed(table)
    step = live.feed(np.roll(table, 25, axis=1))
    assert step.status is TableStatus.CAMERA_MOVING
    assert step.message == "Hold the camera still."


def test_an_exposure_step_is_not_motion() -> None:
    table = _table()
    brighter = cv2.convertScaleAbs(table, alpha=1.15)
    assert np.count_nonzero(cv2.absdiff(thumbnail(table), thumbnail(brighter)) > PIXEL_CHANGE) == 0


# -- the loop on a rendered, filmed move (the real recogniser) ----------------------------------


@cache
def _filmed() -> tuple[BoardState, BoardState, tuple]:
    game = find_game("habitats")
    truth = game.load_state(json.loads(sample_photo("habitats").with_suffix(".json").read_text("utf-8")))
    before, after = a_move("habitats", truth, seed=1)
    return before, after, hand_sequence("habitats", before, after, seed=11, resolution=(1280, 720), settle_before=5,
                                        settle_after=6)


def test_a_filmed_move_is_proposed_once_the_hand_has_left_and_never_while_it_is_over_the_table() -> None:
    before, after, frames = _filmed()
    players = after.players
    calls: list[bool] = []
    live = LiveTable(lambda im: recognise(im, "habitats", players=players))
    steps = []
    for f in frames:
        steps.append(live.feed(f.image))
        if steps[-1].recognised:
            calls.append(f.hand)
    assert any(f.hand for f in frames)
    assert not any(s.is_new_proposal for s, f in zip(steps, frames, strict=True) if f.hand)
    assert not any(calls)  # no frame with a hand over the table is ever recognised
    last_hand = max(i for i, f in enumerate(frames) if f.hand)
    late = [s for s in steps[last_hand + 1:] if s.is_new_proposal]
    assert len(late) == 1
    (added,) = {p.component for p in after.placements} - {p.component for p in before.placements}
    assert late[0].proposal.state.placement_of(added) == after.placement_of(added)
    assert steps[-1].status is TableStatus.UNCHANGED


def test_an_exposure_and_white_balance_drift_does_not_make_the_table_new() -> None:
    rec = Counting()
    live = LiveTable(rec)
    table = _table()
    cv2.rectangle(table, (600, 100), (700, 200), (30, 160, 60), -1)  # a coloured tile
    for _ in range(4):
        live.feed(table)
    assert rec.calls == 2
    lut = np.clip(((np.arange(256) / 255.0) ** 0.8) * 255 * 1.05, 0, 255).astype(np.uint8)
    drifted = cv2.LUT(table, lut)
    drifted[..., 0] = cv2.convertScaleAbs(drifted[..., 0], alpha=0.9)  # less blue
    steps = [live.feed(drifted) for _ in range(4)]
    assert steps[-1].status is TableStatus.UNCHANGED
    assert rec.calls == 2


def test_a_complete_frame_is_proposed_at_once_and_the_next_still_frame_merged_with_it() -> None:
    rec = Counting()
    live = LiveTable(rec, is_complete=lambda r: not r.state.unknown)
    table = _table()
    steps = [live.feed(table) for _ in range(6)]
    assert [s.status for s in steps[:4]] == [TableStatus.MOVING, TableStatus.PROPOSED, TableStatus.UNCHANGED,
                                            TableStatus.UNCHANGED]
    assert rec.calls == 2  # the second still frame was merged, and changed nothing
    assert sum(s.is_new_proposal for s in steps) == 1


def test_an_incomplete_frame_waits_for_a_second_one() -> None:
    rec = Counting()
    live = LiveTable(rec, is_complete=lambda r: False)
    steps = [live.feed(_table()) for _ in range(4)]
    assert [s.status for s in steps[:3]] == [TableStatus.MOVING, TableStatus.SETTLING, TableStatus.PROPOSED]
