"""Printed sheets read back: every component's tag and QR code exactly once, at true size.

Each game's complete edition (and its sticker sheets) is rendered to PDF, rasterised at
150 dpi with pdfium and decoded with cv2.aruco (AprilTag 36h11) and zxing-cpp, as a
flatbed scan of the printed sheets would be.
"""

from __future__ import annotations

import math
from collections import Counter
from functools import cache

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
import pytest

from printables import build_pdf, pdf_for_components
from printables.sheets import PAPERS, fits_page
from scoring.markers import back_layout, back_tag_ids, marker_layout
from scoring.model import Anchor, Component, Shape, Space
from scoring.payload import ComponentRef, encode, parse_payload
from scoring.registry import find_game, game_ids

from .decoding import PT_PER_MM, PX_PER_MM, Scan, scan

A4_PT = (595.28, 841.89)
LETTER_PT = (612.0, 792.0)


@cache
def _pdf(game: str, what: str, paper: str = "a4") -> bytes:
    return build_pdf(game, what=what, paper=paper)


@cache
def _scan(game: str, what: str, paper: str = "a4") -> Scan:
    return scan(_pdf(game, what, paper))


def _expected_tags(components: tuple[Component, ...]) -> Counter[int]:
    return Counter([c.tag for c in components] + [a.tag for c in components for a in c.anchors])


def _expected_qrs(game: str, components: tuple[Component, ...]) -> Counter[str]:
    return Counter(encode(game, c.id) for c in components if marker_layout(game, c).qr is not None)


def _expected_backs(game: str, components: tuple[Component, ...]) -> Counter[int]:
    """The kind's back tag once per component whose back carries it."""
    ids = {kind: tag for tag, kind in back_tag_ids(game).items()}
    return Counter(ids[c.kind] for c in components if back_layout(game, c) is not None)


def _check_once(game: str, components: tuple[Component, ...], result: Scan) -> None:
    """Every tag and payload exactly once (a back tag once per back); nothing foreign, nothing
    from another game."""
    backs = back_tag_ids(game)
    tags = Counter(s.value for s in result.tags if s.value not in backs)
    assert [t for t, n in tags.items() if n > 1] == []
    assert tags == _expected_tags(components)
    assert Counter(s.value for s in result.tags if s.value in backs) == _expected_backs(game, components)
    qrs = Counter(s.value for s in result.qrs)
    assert [q for q, n in qrs.items() if n > 1] == []
    for text in qrs:
        ref = parse_payload(text)
        assert isinstance(ref, ComponentRef) and ref.game == game, text
    assert qrs == _expected_qrs(game, components)


def _check_agree(game: str, components: tuple[Component, ...], result: Scan, *, same_page: bool = True) -> None:
    """Printed symbol sides are the catalog's; on faces, tag and QR sit at the catalog's offset."""
    tag_at = {s.value: s for s in result.tags}
    qr_at = {s.value: s for s in result.qrs}
    for c in components:
        layout = marker_layout(game, c)
        t = tag_at[c.tag]
        assert t.side_px == pytest.approx(layout.tag.size_mm * PX_PER_MM, abs=1.5), c.id
        if layout.qr is None:
            continue
        q = qr_at[encode(game, c.id)]
        assert q.side_px == pytest.approx(layout.qr.size_mm * PX_PER_MM, rel=0.06), c.id
        if not same_page or not fits_page(c.size_mm, PAPERS["a4"], 0.0):
            continue  # stickers and boards printed in pieces: tag and QR may be apart
        assert q.page == t.page, c.id
        want = math.dist(layout.tag.centre_mm, layout.qr.centre_mm) * PX_PER_MM
        assert math.dist(t.centre, q.centre) == pytest.approx(want, abs=3), c.id


@pytest.mark.parametrize("game", game_ids())
def test_full_edition_decodes_every_component_exactly_once(game: str) -> None:
    components = find_game(game).components()
    result = _scan(game, "all")
    assert all(size == pytest.approx(A4_PT, abs=0.05) for size in result.page_sizes_pt)
    _check_once(game, components, result)
    _check_agree(game, components, result)


def test_card_backs_carry_the_back_tag_and_nothing_else() -> None:
    """Biomos card backs: the one back tag at its printed size, alone on the back pages (no QR,
    no card's own tag: a face-down card stays hidden)."""
    game = "biomos"
    components = find_game(game).components()
    result = _scan(game, "all")
    (back_id,) = back_tag_ids(game)
    backs = [s for s in result.tags if s.value == back_id]
    assert len(backs) == sum(1 for c in components if c.kind == "card") == 40
    card = next(c for c in components if c.kind == "card")
    box = back_layout(game, card)
    assert box is not None
    assert all(s.side_px == pytest.approx(box.size_mm * PX_PER_MM, abs=1.5) for s in backs)
    back_pages = {s.page for s in backs}
    assert all(s.value == back_id for s in result.tags if s.page in back_pages)
    assert not [q for q in result.qrs if q.page in back_pages]


@pytest.mark.parametrize("game", game_ids())
def test_sticker_sheets_decode_every_marker_exactly_once(game: str) -> None:
    components = find_game(game).components()
    result = _scan(game, "stickers")
    assert all(size == pytest.approx(A4_PT, abs=0.05) for size in result.page_sizes_pt)
    _check_once(game, components, result)
    _check_agree(game, components, result, same_page=False)


@pytest.mark.parametrize("game", game_ids())
def test_letter_sticker_sheets_decode_every_marker_exactly_once(game: str) -> None:
    """Letter stickers may use two label layouts (5160 and 5163); every marker still prints once, true size."""
    components = find_game(game).components()
    result = _scan(game, "stickers", "letter")
    assert all(size == pytest.approx(LETTER_PT, abs=0.05) for size in result.page_sizes_pt)
    _check_once(game, components, result)
    _check_agree(game, components, result, same_page=False)


def test_letter_paper_edition_round_trips() -> None:
    game = game_ids()[-1]
    components = find_game(game).components()
    result = scan(build_pdf(game, paper="letter"))
    assert all(size == pytest.approx(LETTER_PT, abs=0.05) for size in result.page_sizes_pt)
    _check_once(game, components, result)


def _path_boxes_mm(pdf: bytes, page_index: int) -> list[tuple[float, float]]:
    """Width and height in mm of every path object on a page, read from the PDF itself."""
    doc = pdfium.PdfDocument(pdf)
    page = doc[page_index]
    out = []
    for obj in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_PATH]):
        left, bottom, right, top = obj.get_bounds()
        out.append(((right - left) / PT_PER_MM, (top - bottom) / PT_PER_MM))
    doc.close()
    return out


def _has_box(boxes: list[tuple[float, float]], w: float, h: float, tol: float = 0.15) -> bool:
    return any(abs(bw - w) <= tol and abs(bh - h) <= tol for bw, bh in boxes)


@pytest.mark.parametrize("game", game_ids())
def test_printed_size_is_true_size(game: str) -> None:
    """A component's face measures its catalog size on paper (and its tag is its catalog side)."""
    pdf = _pdf(game, "all")
    first_page = {s.value for s in _scan(game, "all").tags if s.page == 1}  # page 0: the reference page
    component = next(c for c in find_game(game).components() if c.tag in first_page)
    boxes = _path_boxes_mm(pdf, 1)
    w, h = component.size_mm
    assert _has_box(boxes, w, h) or _has_box(boxes, h, w)  # a grid may turn a face a quarter
    side = marker_layout(game, component).tag.size_mm
    assert side >= 16
    assert _has_box(boxes, side + 2 * marker_layout(game, component).tag.quiet_mm,
                    side + 2 * marker_layout(game, component).tag.quiet_mm)


# -- a synthetic catalog: shapes and sizes no game has yet -----------------------------------


def _synthetic() -> tuple[Component, ...]:
    slots = tuple(Space(f"P{i + 1}", 40 + i * 34, 120, 30, 30) for i in range(6))
    return (
        Component("T1", "tile", "Hippo", 1, (50.0, 50.0), Shape.RECT, "#6aa84f", ("3 points",)),
        Component("C1", "card", "Red fox", 2, (63.0, 88.0), Shape.RECT, "#cc4125", ("2 points",), back="Deck"),
        Component("K1", "species token", "Frog", 3, (24.0, 24.0), Shape.ROUND, "#3d85c6"),
        Component("H1", "hex tile", "Fig", 4, (70.0, 60.6), Shape.HEX, "#f1c232", ("plant",)),
        Component(
            "B1", "player board", "Planet", 5, (260.0, 300.0), Shape.RECT, "#d9d2e9", ("board",),
            anchors=(Anchor(20, 14, 14, 18), Anchor(21, 246, 14, 18), Anchor(22, 14, 286, 18), Anchor(23, 246, 286, 18)),
            spaces=slots,
        ),
    )


def test_synthetic_catalog_with_oversized_board_round_trips() -> None:
    """Round and hex faces, and a board split over pages without cutting a marker."""
    comps = _synthetic()
    pdf = pdf_for_components("biomos", comps)
    result = scan(pdf)
    _check_once("biomos", comps, result)
    board_pages = {s.page for s in result.tags if s.value in (5, 20, 21, 22, 23)}
    assert len(board_pages) == 4  # 260 x 300 mm on A4: two columns, two rows of pieces


def test_bleed_extends_the_background_but_not_the_trim() -> None:
    comps = _synthetic()[:1]
    plain = _path_boxes_mm(pdf_for_components("biomos", comps), 0)
    bled = _path_boxes_mm(pdf_for_components("biomos", comps, bleed_mm=3.0), 0)
    assert _has_box(plain, 50, 50) and not _has_box(plain, 56, 56)
    assert _has_box(bled, 56, 56)
    assert scan(pdf_for_components("biomos", comps, bleed_mm=3.0)).tags[0].value == 1
