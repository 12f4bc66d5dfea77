"""The printing API: arguments, sections, streaming, sticker start label, and raster faces."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from printables import (
    LABEL_SHEETS,
    PAPER_CHOICES,
    WHAT_CHOICES,
    PrintError,
    build_pdf,
    iter_pdf,
    pdf_for_components,
    render_face,
    section_for,
    section_of,
)
from printables.faces import render_component, render_mask
from printables.sheets import Section, split_points
from printables.stickers import LABEL_LAYOUTS
from printables.symbols import tag_matrix
from scoring.markers import marker_layout
from scoring.model import Component, Shape
from scoring.registry import find_game, game_ids

from .decoding import PX_PER_MM, page_images, scan

TOKENS = tuple(
    Component(f"K{i}", "token", f"Frog {i}", 100 + i, (24.0, 24.0), Shape.ROUND, "#3d85c6") for i in range(5)
)


def test_public_constants() -> None:
    assert WHAT_CHOICES == ("tiles", "cards", "tokens", "boards", "stickers", "all")
    assert PAPER_CHOICES == ("a4", "letter")
    assert {"avery-l7160", "avery-5160"} <= set(LABEL_SHEETS)
    assert {LABEL_LAYOUTS[n].paper for n in LABEL_SHEETS} == {"a4", "letter"}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"what": "posters"}, "what must be one of"),
        ({"paper": "a3"}, "paper must be one of"),
        ({"bleed_mm": -1.0}, "bleed_mm must be within"),
        ({"bleed_mm": float("nan")}, "bleed_mm must be a number"),
        ({"what": "stickers", "label_sheet": "avery-9999"}, "label_sheet must be one of"),
        ({"what": "stickers", "start_label": 0}, "start_label must be a whole number"),
        ({"what": "stickers", "label_sheet": "avery-5160", "start_label": 31}, r"within 1\.\.30"),
        ({"what": "cards", "start_label": 3}, "start_label applies to what='stickers' only"),
        ({"what": "all", "label_sheet": "avery-5160"}, "label_sheet applies"),
    ],
)
def test_bad_arguments_raise_print_error(kwargs: dict[str, object], message: str) -> None:
    game = game_ids()[0]
    with pytest.raises(PrintError, match=message):
        build_pdf(game, **kwargs)  # type: ignore[arg-type]
    with pytest.raises(PrintError, match=message):
        iter_pdf(game, **kwargs)  # type: ignore[arg-type]  # raises before the first chunk


def test_unknown_game_is_a_print_error() -> None:
    with pytest.raises(PrintError, match="unknown game"):
        build_pdf("monopoly")
    assert issubclass(PrintError, ValueError)


def test_streamed_pdf_equals_built_pdf() -> None:
    game = game_ids()[-1]
    whole = build_pdf(game, what="cards")
    chunks = list(iter_pdf(game, what="cards"))
    assert b"".join(chunks) == whole
    assert whole.startswith(b"%PDF-") and all(len(c) <= 64 * 1024 for c in chunks)


def test_kind_to_section_mapping() -> None:
    assert section_of("card") is Section.CARDS
    assert section_of("bonus card") is Section.CARDS
    assert section_of("species token") is Section.TOKENS
    assert section_of("figure") is Section.TOKENS
    assert section_of("player board") is Section.BOARDS
    assert section_of("platform") is Section.BOARDS
    assert section_of("entrance") is Section.TILES
    assert section_of("something new") is Section.TILES


def test_markers_toml_sheet_overrides_the_name_mapping() -> None:
    if "borneo" in game_ids():
        assert section_for("borneo", "bonus") is Section.CARDS  # by name it would be a tile
    if "phylo" in game_ids():
        assert section_for("phylo", "species") is Section.CARDS
    assert section_for("habitats", "unheard of") is Section.TILES


def test_only_requested_sections_are_printed() -> None:
    comps = (
        Component("T1", "tile", "Hippo", 1, (50.0, 50.0), Shape.RECT, "#6aa84f"),
        Component("C1", "card", "Fox", 2, (63.0, 88.0), Shape.RECT, "#cc4125", back="Deck"),
    )
    tags = {s.value for s in scan(pdf_for_components("biomos", comps, what="cards")).tags}
    assert tags == {2}
    tags = {s.value for s in scan(pdf_for_components("biomos", comps, what="tiles")).tags}
    assert tags == {1}


def test_card_backs_mirror_their_fronts_for_long_edge_duplex() -> None:
    card = Component("C1", "card", "Fox", 2, (63.0, 88.0), Shape.RECT, "#cc4125", back="Deck")
    pages = [img for _, img, _ in page_images(pdf_for_components("biomos", (card,), what="cards"))]
    assert len(pages) == 2  # front page, then its back page
    fronts, backs = pages
    w = fronts.shape[1]
    # the front card starts at the page margin (6 mm); its back ends 6 mm from the right edge
    row = int(50 * PX_PER_MM)
    front_cols = np.nonzero(fronts[row] < 200)[0]
    back_cols = np.nonzero(backs[row] < 200)[0]
    assert front_cols.min() == pytest.approx(6 * PX_PER_MM, abs=2)
    assert back_cols.max() == pytest.approx(w - 1 - 6 * PX_PER_MM, abs=2)
    assert back_cols.min() == pytest.approx(w - (6 + 63) * PX_PER_MM, abs=2)


def test_stickers_start_at_the_requested_label() -> None:
    sheet = LABEL_LAYOUTS["avery-l7160"]
    result = scan(pdf_for_components("biomos", TOKENS, what="stickers", start_label=5))
    assert {s.value for s in result.tags} == {100, 101, 102, 103, 104}
    first = next(s for s in result.tags if s.value == 100)
    # label 5 of a 3-column sheet: row 2, column 2 -> top-left at (7.21 + 66.04, 15.15 + 38.1) mm
    x0, y0 = sheet.origin(4)
    assert (x0, y0) == pytest.approx((73.25, 53.25))
    cx, cy = (v / PX_PER_MM for v in first.centre)
    assert x0 < cx < x0 + sheet.label_w and y0 < cy < y0 + sheet.label_h
    earlier = [s for s in result.tags if s.centre[1] / PX_PER_MM < y0]
    assert earlier == []  # labels 1-4 stay blank


def test_sticker_start_label_wraps_to_a_second_sheet() -> None:
    result = scan(pdf_for_components("biomos", TOKENS, what="stickers", label_sheet="avery-5160", start_label=29))
    pages = {s.value: s.page for s in result.tags}
    assert pages == {100: 0, 101: 0, 102: 1, 103: 1, 104: 1}  # labels 29 and 30, then a new sheet
    assert next(s for s in result.tags if s.value == 102).centre[1] / PX_PER_MM < 12.7 + 25.4


def test_letter_stickers_use_a_letter_label_sheet() -> None:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdf_for_components("biomos", TOKENS, what="stickers", paper="letter"))
    assert doc[0].get_size() == pytest.approx((612.0, 792.0), abs=0.05)


def test_render_face_is_pixel_exact_and_cached() -> None:
    game = game_ids()[0]
    c = find_game(game).components()[0]
    img = render_face(game, c.id, px_per_mm=8.0)
    w, h = c.size_mm
    assert img.shape == (round(h * 8), round(w * 8), 3) and img.dtype == np.uint8
    assert render_face(game, c.id, px_per_mm=8.0) is img
    assert not img.flags.writeable
    tag = marker_layout(game, c).tag
    matrix = tag_matrix(c.tag)
    for r in range(8):
        for col in range(8):
            x0 = round((tag.x_mm + col * tag.module_mm) * 8)
            y0 = round((tag.y_mm + r * tag.module_mm) * 8)
            x1 = round((tag.x_mm + (col + 1) * tag.module_mm) * 8)
            y1 = round((tag.y_mm + (r + 1) * tag.module_mm) * 8)
            block = img[y0:y1, x0:x1]
            assert (block == (0 if matrix[r][col] else 255)).all(), (r, col)
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_APRILTAG_36h11))
    padded = cv2.copyMakeBorder(img, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=(255, 255, 255))
    _, ids, _ = detector.detectMarkers(padded)
    assert ids is not None and c.tag in ids.ravel()


def test_render_round_face_and_mask() -> None:
    token = TOKENS[0]
    img = render_component("biomos", token, px_per_mm=10.0)
    assert img.shape == (240, 240, 3)
    assert tuple(img[120, 2]) == (198, 133, 61)  # face colour #3d85c6 as BGR, inside the circle
    assert tuple(img[2, 2]) == (255, 255, 255)  # paper outside the outline
    game = game_ids()[0]
    c = find_game(game).components()[0]
    mask = render_mask(game, c.id, px_per_mm=4.0)
    assert mask.shape == render_face(game, c.id, px_per_mm=4.0).shape[:2]


def test_render_face_back_and_bad_scale() -> None:
    game = game_ids()[0]
    c = next((c for c in find_game(game).components() if c.back is not None), None)
    if c is not None:
        back = render_face(game, c.id, back=True, px_per_mm=4.0)
        assert back.shape[:2] == (round(c.size_mm[1] * 4), round(c.size_mm[0] * 4))
    with pytest.raises(ValueError):
        render_component("biomos", TOKENS[0], px_per_mm=0.0)
    with pytest.raises(KeyError):
        render_face(game, "NO-SUCH-ID")


def test_page_splits_avoid_markers() -> None:
    assert split_points(260.0, 198.0, []) == [0.0, 140.0, 260.0]
    cuts = split_points(420.0, 198.0, [(130.0, 160.0)])
    assert all(not 130.0 < x < 160.0 for x in cuts)
    assert cuts[0] == 0.0 and cuts[-1] == 420.0
    assert all(b - a <= 198.0 for a, b in zip(cuts, cuts[1:]))
