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
from printables.faces import (
    Poly,
    Rect,
    Text,
    boxes_touch_outline,
    face_of,
    largest_free_rect,
    render_component,
    render_mask,
    shade,
    space_outline,
)
from printables.sheets import Section, split_points
from printables.stickers import AVERY_FAMILIES, LABEL_LAYOUTS, assign_sheets, component_stickers, fits
from printables.symbols import tag_matrix
from scoring.markers import anchor_box, game_markers, marker_layout
from scoring.model import Anchor, Component, Shape, Space
from scoring.registry import find_game, game_ids

from .decoding import PX_PER_MM, page_images, scan

# Kinds no markers.toml lists, so the house rule places their markers whatever a game's tuning.
TOKENS = tuple(
    Component(f"K{i}", "frog token", f"Frog {i}", 100 + i, (24.0, 24.0), Shape.ROUND, "#3d85c6") for i in range(5)
)
PLAQUES = tuple(
    Component(f"P{i}", "plaque", f"Plaque {i}", 120 + i, (63.0, 88.0), Shape.RECT, "#cc4125") for i in range(3)
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
        ({"what": "stickers", "paper": "letter", "start_label": 2}, r"within 1\.\.1 "),
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
    assert tags == {2, 586}  # the card's own tag on its front, Biomos's card back tag on its back
    tags = {s.value for s in scan(pdf_for_components("biomos", comps, what="tiles")).tags}
    assert tags == {1}


def test_card_backs_mirror_their_fronts_for_long_edge_duplex() -> None:
    card = Component("C1", "card", "Fox", 2, (63.0, 88.0), Shape.RECT, "#cc4125", back="Deck")
    pages = [img for _, img, _ in page_images(pdf_for_components("biomos", (card,), what="cards"))]
    assert len(pages) == 2  # front page, then its back page
    fronts, backs = pages
    w = fronts.shape[1]
    # the back lies where the front's mirror image does: same distance from the other edge
    row = int(150 * PX_PER_MM)
    front_cols = np.nonzero(fronts[row] < 200)[0]
    back_cols = np.nonzero(backs[row] < 200)[0]
    assert front_cols.max() - front_cols.min() == pytest.approx(63 * PX_PER_MM, abs=2)
    assert back_cols.max() == pytest.approx(w - 1 - front_cols.min(), abs=2)
    assert back_cols.min() == pytest.approx(w - 1 - front_cols.max(), abs=2)


def test_stickers_start_at_the_requested_label() -> None:
    sheet = LABEL_LAYOUTS["avery-l7160"]
    result = scan(pdf_for_components("biomos", TOKENS, what="stickers", label_sheet="avery-l7160", start_label=5))
    assert {s.value for s in result.tags} == {100, 101, 102, 103, 104}
    # label 5 of a 3-column sheet: row 2, column 2 -> top-left at (7.21 + 66.04, 15.15 + 38.1) mm
    x0, y0 = sheet.origin(4)
    assert (x0, y0) == pytest.approx((73.25, 53.25))
    labels = [_label_of("avery-l7160", *(v / PX_PER_MM for v in s.centre)) for s in result.tags]
    assert sorted(labels) == [4, 4, 4, 5, 5]  # three token stickers to a label, from label 5 on
    earlier = [s for s in result.tags if s.centre[1] / PX_PER_MM < y0]
    assert earlier == []  # labels 1-4 stay blank


def test_sticker_start_label_wraps_to_a_second_sheet() -> None:
    result = scan(pdf_for_components("biomos", TOKENS, what="stickers", label_sheet="avery-5160", start_label=30))
    pages = sorted(s.page for s in result.tags)
    assert pages == [0, 0, 0, 1, 1]  # three on label 30, the rest on a new sheet
    assert max(s.centre[1] for s in result.tags if s.page == 1) / PX_PER_MM < 12.7 + 25.4


def test_letter_stickers_use_a_letter_label_sheet() -> None:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdf_for_components("biomos", TOKENS, what="stickers", paper="letter"))
    assert doc[0].get_size() == pytest.approx((612.0, 792.0), abs=0.05)


def _label_of(sheet_name: str, x_mm: float, y_mm: float) -> int | None:
    """Index of the label of a layout that contains a page point, if any."""
    sheet = LABEL_LAYOUTS[sheet_name]
    for i in range(sheet.count):
        x0, y0 = sheet.origin(i)
        if x0 <= x_mm <= x0 + sheet.label_w and y0 <= y_mm <= y0 + sheet.label_h:
            return i
    return None


def test_stickers_mix_small_and_large_labels() -> None:
    """Small markers on the small-label sheet, larger ones on the large-label sheet, each on its own pages."""
    small, large = LABEL_LAYOUTS["avery-5160"], LABEL_LAYOUTS["avery-5163"]
    assert all(fits(s, small) for c in TOKENS for s in component_stickers("biomos", c, small))
    assert not all(fits(s, small) for s in component_stickers("biomos", PLAQUES[0], small))  # 1 in is too short
    assert all(fits(s, large) for s in component_stickers("biomos", PLAQUES[0], large))
    groups = assign_sheets("biomos", PLAQUES[:1] + TOKENS + PLAQUES[1:], AVERY_FAMILIES["letter"])
    assert [(sheet.name, [s.component.id for s in stickers][:1]) for sheet, stickers in groups] == [
        ("avery-5160", ["K0"]),
        ("avery-5163", ["P0"]),
    ]
    assert {s.component.id for s in groups[1][1]} == {"P0", "P1", "P2"}


def test_explicit_label_sheet_forces_one_layout() -> None:
    with pytest.raises(PrintError, match="does not fit a Avery 5160"):
        pdf_for_components("biomos", TOKENS + PLAQUES, what="stickers", label_sheet="avery-5160")
    result = scan(pdf_for_components("biomos", TOKENS + PLAQUES, what="stickers", label_sheet="avery-5163"))
    assert {s.value for s in result.tags} == {100, 101, 102, 103, 104, 120, 121, 122}
    assert {s.page for s in result.tags} == {0}
    # several stickers share a label: 8 tags and 3 QR codes on fewer than 11 labels
    labels = {_label_of("avery-5163", *(v / PX_PER_MM for v in s.centre)) for s in result.tags + result.qrs}
    assert None not in labels and len(labels) < 8


def test_start_label_is_checked_against_the_first_sheet_printed() -> None:
    with pytest.raises(PrintError, match=r"within 1\.\.10 for this label sheet"):
        pdf_for_components("biomos", PLAQUES, what="stickers", label_sheet="avery-5163", start_label=11)
    assert pdf_for_components("biomos", PLAQUES, what="stickers", label_sheet="avery-5163", start_label=10).startswith(
        b"%PDF-")
    with pytest.raises(PrintError, match=r"within 1\.\.1 "):  # full-page sticker paper is one label
        pdf_for_components("biomos", PLAQUES, what="stickers", paper="letter", start_label=2)


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("game", game_ids())
def test_each_component_gets_the_smallest_label_that_holds_it(game: str, paper: str) -> None:
    names = AVERY_FAMILIES[paper]
    groups = assign_sheets(game, find_game(game).components(), names)
    order = [sheet.name for sheet, _ in groups]
    assert order == [n for n in names if n in order]  # smallest labels first
    seen = set()
    for sheet, stickers in groups:
        assert all(fits(s, sheet) for s in stickers)
        for c in {s.component for s in stickers}:
            assert c.id not in seen
            seen.add(c.id)
            for smaller in names[: names.index(sheet.name)]:
                sm = LABEL_LAYOUTS[smaller]
                assert not all(fits(s, sm) for s in component_stickers(game, c, sm)), (c.id, smaller)
    assert seen == {c.id for c in find_game(game).components()}


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


# -- hex board spaces ---------------------------------------------------------------------------

HEX_BOARD = Component(
    "B9", "board", "Glade", 9, (190.0, 150.0), Shape.RECT, "#6aa84f", ("two slots",),
    anchors=(Anchor(20, 14, 14, 18), Anchor(21, 176, 14, 18), Anchor(22, 14, 136, 18), Anchor(23, 176, 136, 18)),
    spaces=(
        Space("W", 57, 80, 70, 60.6, Shape.HEX),
        Space("E", 133, 80, 70, 60.6, Shape.HEX),
        Space("R", 95, 130, 30, 20),
    ),
)


def _hex_probe_points(space: Space) -> tuple[tuple[float, float], tuple[float, float]]:
    """The centre of a hex space, and a point inside its bounding box but outside the hexagon."""
    return (space.x_mm, space.y_mm + 8), (space.x_mm - space.w_mm / 2 + 3, space.y_mm - space.h_mm / 2 + 3)


def test_hex_spaces_are_drawn_as_hexagons() -> None:
    face = face_of("biomos", HEX_BOARD)
    polys = [i for i in face.items if isinstance(i, Poly)]
    rects = [i for i in face.items if isinstance(i, Rect) and i.stroke is not None]
    assert [p.points for p in polys] == [space_outline(s) for s in HEX_BOARD.spaces[:2]]
    assert polys[0].points[0] == pytest.approx((39.5, 49.7)) and polys[0].points[2] == pytest.approx((92.0, 80.0))
    assert [(r.x, r.y, r.w, r.h) for r in rects] == [(80.0, 120.0, 30.0, 20.0)]  # the rectangular space
    fill = shade(HEX_BOARD.colour, 1.25)

    ppm = 8.0
    img = render_component("biomos", HEX_BOARD, px_per_mm=ppm)
    board_bgr = tuple(int(v) for v in img[round(140 * ppm), round(60 * ppm)])  # plain board, clear of all
    fill_bgr = (int(fill[5:7], 16), int(fill[3:5], 16), int(fill[1:3], 16))
    for space in HEX_BOARD.spaces[:2]:
        inside, corner = _hex_probe_points(space)
        assert tuple(int(v) for v in img[round(inside[1] * ppm), round(inside[0] * ppm)]) == fill_bgr
        assert tuple(int(v) for v in img[round(corner[1] * ppm), round(corner[0] * ppm)]) == board_bgr

    # the PDF back end draws the same outline (the board is the only face, at the 6 mm page margin)
    pages = [img for _, img, _ in page_images(pdf_for_components("biomos", (HEX_BOARD,), what="boards"))]
    assert len(pages) == 1
    grey = pages[0]

    def at(x: float, y: float) -> int:
        return int(grey[round((y + 6) * PX_PER_MM), round((x + 6) * PX_PER_MM)])

    board_grey = at(60, 140)
    for space in HEX_BOARD.spaces[:2]:
        inside, corner = _hex_probe_points(space)
        assert abs(at(*corner) - board_grey) <= 2
        assert at(*inside) - board_grey > 15  # the lighter slot fill
    tags = {s.value for s in scan(pdf_for_components("biomos", (HEX_BOARD,), what="boards")).tags}
    assert tags == {9, 20, 21, 22, 23}


def _board_keepouts(game: str, c: Component) -> list[tuple[float, float, float, float]]:
    layout = marker_layout(game, c)
    rule = game_markers(game).rule
    boxes = [layout.tag.outer] + ([layout.qr.outer] if layout.qr else [])
    return boxes + [anchor_box(a.size_mm, a.x_mm, a.y_mm, rule).outer for a in c.anchors]


def _boards() -> list[tuple[str, Component]]:
    out = [("biomos", HEX_BOARD)]
    for game in game_ids():
        out += [(game, c) for c in find_game(game).components() if any(s.shape is Shape.HEX for s in c.spaces)]
    return out


@pytest.mark.parametrize(("game", "board"), _boards(), ids=lambda v: getattr(v, "id", v))
def test_markers_and_text_stay_clear_of_the_real_space_outlines(game: str, board: Component) -> None:
    outlines = [space_outline(s) for s in board.spaces]
    for x, y, w, h in _board_keepouts(game, board):  # quiet zones included
        for outline in outlines:
            assert not boxes_touch_outline(outline, x, y, x + w, y + h), (board.id, (x, y, w, h))
    labels = {s.name for s in board.spaces}
    face = face_of(game, board)
    for t in face.items:
        if isinstance(t, Text) and t.text not in labels:  # the text block, not a space's own name
            for outline in outlines:
                assert not boxes_touch_outline(outline, t.x, t.y - t.size, t.x + t.width, t.y + 0.3 * t.size), t


def test_free_text_area_uses_the_hexagon_not_its_box() -> None:
    # a 70 x 60.6 hex slot filling a 74 x 60.6 face: only the corners beside its slanted edges
    # are free, and its bounding box would leave no room at all
    hexagon = space_outline(Space("H", 37, 30.3, 70, 60.6, Shape.HEX))
    assert largest_free_rect(74, 60.6, [(2, 0, 70, 60.6)], Shape.RECT, margin=0.6)[2:] == (0.0, 0.0)
    x, y, w, h = largest_free_rect(74, 60.6, [], Shape.RECT, margin=0.6, outlines=[hexagon])
    assert w >= 6 and h >= 12
    assert not boxes_touch_outline(hexagon, x - 0.6, y - 0.6, x + w + 0.6, y + h + 0.6)
