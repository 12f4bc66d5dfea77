"""Every identified component placed on the table at once equals placing each one alone."""

from __future__ import annotations

import json

import numpy as np

from scoring import find_game
from vision import sample_photo
from vision.detect import detect_all
from vision.identify import catalog_for, identify
from vision.load import load_image
from vision.plane import fit_plane, rigid_fit
from vision.locate import locate_all, rigid_groups
from tests.rendering.render import render_scene


def test_faces_located_together_match_the_closed_form_fit_of_each_alone() -> None:
    path = sample_photo("phylo").with_suffix(".json")
    state = find_game("phylo").load_state(json.loads(path.read_text("utf-8")))
    scene = render_scene("phylo", state, condition="typical", resolution=(1280, 720), seed=3)
    frame = load_image(scene.jpeg)
    ident = identify(detect_all(frame).markers, catalog_for("phylo"))
    sightings = list(ident.sightings)
    plane = fit_plane(rigid_groups(sightings))
    assert plane is not None and len(sightings) >= 5
    located = locate_all(sightings, plane, [0.5] * len(sightings))
    for s, loc in zip(sightings, located):
        img = np.vstack([d.corners for d in s.detections])
        local = np.vstack([m.face_corners() for m in s.marks])
        r, t = rigid_fit(local, plane.to_table(img))
        assert np.allclose(loc.face_to_table[:2, :2], r, atol=1e-9)
        assert np.allclose(loc.face_to_table[:2, 2], t, atol=1e-6)
        assert np.allclose(loc.face_to_table[2], [0, 0, 1])
        assert np.allclose(loc.image_outline, s.image_outline(), atol=1e-6)
        assert loc.component is s.component and loc.residual_mm == 0.5
    assert locate_all([], plane, []) == []
