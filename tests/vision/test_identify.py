"""Stage 3: markers name components; the two markers of one face must agree."""

from __future__ import annotations

import numpy as np

from scoring.payload import encode
from vision.detect import Detection, MarkerKind
from vision.identify import MarkRole, catalog_for, identify
from vision.plane import apply_homography


def _face(x: float, y: float, px_per_mm: float = 3.0) -> np.ndarray:
    """Face mm -> image px for a face whose top-left corner lies at image (x, y)."""
    return np.array([[px_per_mm, 0, x], [0, px_per_mm, y], [0, 0, 1.0]])


def _marks(component: str, h: np.ndarray, *, qr_text: str | None = None, tag_id: int | None = None,
           with_tag: bool = True, with_qr: bool = True) -> list[Detection]:
    cat = catalog_for("habitats")
    comp = cat.components[component]
    out = []
    if with_tag:
        mark = cat.by_tag[comp.tag]
        out.append(Detection(MarkerKind.TAG, apply_homography(h, mark.face_corners()),
                             tag_id=comp.tag if tag_id is None else tag_id))
    if with_qr:
        mark = cat.qr_marks[component]
        out.append(Detection(MarkerKind.QR, apply_homography(h, mark.face_corners()),
                             payload=encode("habitats", component) if qr_text is None else qr_text))
    return out


def test_tag_and_qr_of_one_face_fuse() -> None:
    found = identify(_marks("T001", _face(100, 100)) + _marks("T002", _face(400, 100), with_qr=False),
                     catalog_for("habitats"))
    by_id = {s.component.id: s for s in found.sightings}
    assert set(by_id) == {"T001", "T002"}
    assert by_id["T001"].source == "qr+tag" and by_id["T002"].source == "tag"
    assert by_id["T002"].payload == encode("habitats", "T002")
    # The fused face lies where it was drawn: its centre is 25 mm * 3 px from its corner.
    assert np.allclose(by_id["T001"].image_centre(), (175, 175), atol=0.5)
    assert not (found.foreign or found.duplicated or found.disagreements)


def test_markers_that_disagree_are_never_scored() -> None:
    dets = _marks("T001", _face(100, 100), qr_text=encode("habitats", "T002"))
    found = identify(dets, catalog_for("habitats"))
    assert found.sightings == ()
    assert len(found.disagreements) == 1
    assert set(found.disagreements[0].components) == {"T001", "T002"}


def test_a_foreign_code_on_a_face_is_a_disagreement() -> None:
    dets = _marks("T001", _face(100, 100), qr_text="https://example.org")
    found = identify(dets, catalog_for("habitats"))
    assert found.sightings == () and len(found.disagreements) == 1


def test_the_same_component_twice_is_duplicated() -> None:
    dets = _marks("T003", _face(100, 100)) + _marks("T003", _face(500, 300), with_tag=False)
    found = identify(dets, catalog_for("habitats"))
    assert found.sightings == ()
    assert [d.component for d in found.duplicated] == ["T003"]
    assert len(found.duplicated[0].sightings) == 2


def test_a_lone_tag_another_game_prints_too_is_not_a_second_copy_of_a_component_read_by_its_code() -> None:
    """T020's tag id is printed by other games too: a lone tag of that id elsewhere (another
    game's tile whose code did not decode) does not make the genuine T020 a duplicate."""
    assert catalog_for("rainforest").by_tag.get(catalog_for("habitats").components["T020"].tag) is not None
    dets = _marks("T020", _face(100, 100)) + _marks("T020", _face(500, 300), with_qr=False)
    found = identify(dets, catalog_for("habitats"))
    assert [s.component.id for s in found.sightings] == ["T020"]
    assert found.duplicated == ()
    assert any("another game prints too" in f.reason for f in found.foreign)
    # Both seen by their codes: a printed duplicate stays a duplicate.
    twice = _marks("T020", _face(100, 100)) + _marks("T020", _face(500, 300))
    assert [d.component for d in identify(twice, catalog_for("habitats")).duplicated] == ["T020"]


def test_foreign_codes_are_kept_with_their_reason() -> None:
    square = np.array([[0, 0], [60, 0], [60, 60], [0, 60]], float)
    dets = [
        Detection(MarkerKind.QR, square + 600, payload="WIFI:S:home;;"),
        Detection(MarkerKind.QR, square + 800, payload=encode("phylo", "ORCA")),
        Detection(MarkerKind.QR, square + 1000, payload="HA1/T001*Z"),  # damaged check character
        Detection(MarkerKind.TAG, square + 1200, tag_id=299),  # printed by no game
        Detection(MarkerKind.TAG, square + 1400, tag_id=400),  # a Rainforest token's own id
    ]
    found = identify(dets, catalog_for("habitats"))
    reasons = [f.reason for f in found.foreign]
    assert found.sightings == ()
    assert reasons[0] == "not a component code"
    assert "another game" in reasons[1]
    assert "check character" in reasons[2]
    assert "not part of this game" in reasons[3]
    assert reasons[4] == "from another game (Rainforest)"


# -- card backs: the back tag is a face-down card, never a component, never foreign ---------


def _back(h: np.ndarray) -> Detection:
    mark = catalog_for("biomos").by_tag[586]
    return Detection(MarkerKind.TAG, apply_homography(h, mark.face_corners()), tag_id=586)


def _biomos_card(component: str, h: np.ndarray) -> list[Detection]:
    cat = catalog_for("biomos")
    comp = cat.components[component]
    tag, qr = cat.by_tag[comp.tag], cat.qr_marks[component]
    return [
        Detection(MarkerKind.TAG, apply_homography(h, tag.face_corners()), tag_id=comp.tag),
        Detection(MarkerKind.QR, apply_homography(h, qr.face_corners()), payload=encode("biomos", component)),
    ]


def test_a_back_tag_is_a_face_down_card_never_a_component() -> None:
    cat = catalog_for("biomos")
    found = identify(_biomos_card("B11", _face(100, 100)) + [_back(_face(500, 100)), _back(_face(900, 100))], cat)
    assert [s.component.id for s in found.sightings] == ["B11"]
    assert found.foreign == () and found.duplicated == () and found.disagreements == ()
    assert [(f.kind, f.game, f.label) for f in found.face_down] == [("card", "biomos", "a face-down card")] * 2
    # The back's outline follows from the tag alone: 88 x 63 mm at 3 px/mm from (500, 100).
    assert np.allclose(found.face_down[0].image_centre, (500 + 44 * 3, 100 + 31.5 * 3), atol=0.5)
    assert np.allclose(found.face_down[0].image_corners[2], (500 + 88 * 3, 100 + 63 * 3), atol=0.5)
    assert all(f.centre_mm is None for f in found.face_down)  # no plane yet


def test_back_tags_compete_in_second_looks_but_name_no_component() -> None:
    cat = catalog_for("biomos")
    mark = cat.by_tag[586]
    assert mark.role is MarkRole.BACK and mark.component.id == "back:card"
    assert mark.component.id not in cat.components  # never a catalog id (those are upper case)
    assert mark.size_mm in cat.tag_sizes_mm  # same size as the cards' own tags: one pool


def test_a_back_tag_on_another_games_face_is_foreign() -> None:
    # A PHYLO card whose code was read, and a tag 586 printed on it: PHYLO's tag, not a Biomos back.
    phylo = catalog_for("phylo")
    comp = next(iter(phylo.qr_marks.values()))
    h = _face(100, 100)
    qr = Detection(MarkerKind.QR, apply_homography(h, comp.face_corners()), payload=encode("phylo", comp.component.id))
    found = identify([qr, _back(_face(110, 110, 1.0))], catalog_for("biomos"))
    assert found.face_down == ()
    assert "tag 586" in [f.text for f in found.foreign]
