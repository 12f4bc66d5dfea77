"""The print-and-play edition as a player gets it: 9 cards to a page, one back per deck, fold-and-glue, ink saving."""

from __future__ import annotations

from collections import defaultdict

import cv2
import numpy as np
import pytest

from printables import PrintError, build_pdf
from printables.sheets import PAPERS, Section, SheetStyle, layout_pages
from scoring.registry import find_game, game_ids

from .decoding import page_images, scan

DPI = 100
PPM = DPI / 25.4


def _pages(game: str, paper: str = "a4", style: SheetStyle | None = None):  # noqa: ANN202
    comps = find_game(game).components()
    return layout_pages(game, comps, tuple(Section), PAPERS[paper], 0.0, style)


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("game", ["borneo", "biomos", "phylo"])
def test_poker_cards_come_nine_to_a_page(game: str, paper: str) -> None:
    """Every full page of cards holds 9, and the rendered first page shows 9 decodable card tags."""
    card_pages = [p for p in _pages(game, paper) if p.section is Section.CARDS and not p.back]
    assert card_pages
    assert all(len(p.placed) <= 9 for p in card_pages)
    assert sum(len(p.placed) == 9 for p in card_pages) >= len(card_pages) - 2  # one partial page per deck size
    pdf = build_pdf(game, what="cards", paper=paper)
    first = card_pages[0]
    seen = {s.value for s in scan(pdf).tags if s.page == 0}
    assert {p.component.tag for p in first.placed} <= seen
    assert len(first.placed) == 9


def test_grid_cards_share_their_cut_lines() -> None:
    page = next(p for p in _pages("phylo") if p.section is Section.CARDS)
    assert page.grid is not None
    assert len(page.grid.xs) == 4 and len(page.grid.ys) == 4  # 3 x 3 cards: 4 cuts each way, shared
    gutter = next(p for p in _pages("phylo", style=SheetStyle(gutter=3.0)) if p.section is Section.CARDS)
    assert gutter.grid is not None and len(gutter.grid.xs) == 6


def _crop(img: np.ndarray, x: float, y: float, w: float, h: float) -> np.ndarray:
    inset = 2.0  # clear of the neighbours' anti-aliased edges
    return img[round((y + inset) * PPM) : round((y + h - inset) * PPM), round((x + inset) * PPM) : round((x + w - inset) * PPM)]


@pytest.mark.parametrize("game", game_ids())
def test_backs_of_each_hidden_deck_are_identical(game: str) -> None:
    """Crop every printed back out of the rendered PDF: the backs of one deck look the same."""
    pages = _pages(game)
    # the edition opens with the game's reference page, then the sheets in layout order
    images = dict((i - 1, img) for i, img, _ in page_images(build_pdf(game), DPI))
    backs: dict[str, list[np.ndarray]] = defaultdict(list)
    for i, page in enumerate(pages):
        for p in page.placed:
            if p.back and p.component.back is not None:  # (picture sides of tokens are not hidden)
                backs[p.component.back].append(_crop(images[i], p.x, p.y, p.w, p.h))
    decks = {c.back for c in find_game(game).components() if c.back is not None}
    assert set(backs) == decks
    for deck, crops in backs.items():
        first = crops[0].astype(int)
        for crop in crops[1:]:
            assert _difference(first, crop.astype(int)) < 2.5, deck  # placement rounding only: nothing tells backs apart


def _difference(a: np.ndarray, b: np.ndarray) -> float:
    """Mean grey difference of two crops at their best alignment within a pixel (placement rounding),
    softened first so that sub-pixel placement of anti-aliased edges does not count."""
    a, b = (cv2.GaussianBlur(v.astype(np.float32), (0, 0), 1.5) for v in (a, b))
    best = 255.0
    h, w = min(a.shape[0], b.shape[0]) - 2, min(a.shape[1], b.shape[1]) - 2
    for dy in (0, 1, 2):
        for dx in (0, 1, 2):
            best = min(best, float(np.abs(a[1 : 1 + h, 1 : 1 + w] - b[dy : dy + h, dx : dx + w]).mean()))
    return best


def test_fold_and_glue_puts_each_front_over_its_back() -> None:
    pages = _pages("phylo", style=SheetStyle(fold=True))
    card_pages = [p for p in pages if p.section is Section.CARDS]
    assert card_pages and all(not p.back for p in card_pages)  # no duplex back pages
    for page in card_pages:
        fronts = [p for p in page.placed if not p.back]
        for f in fronts:
            back = next(b for b in page.placed if b.back and b.component == f.component)
            assert back.x == f.x and back.y == pytest.approx(f.y + f.h)
            assert pytest.approx(f.y + f.h) in page.fold
    n = sum(len(p.placed) for p in card_pages) // 2
    assert n == len([c for c in find_game("phylo").components() if c.back is not None])


def test_ink_saver_prints_much_less_ink() -> None:
    def ink(pdf: bytes) -> float:
        return float(np.mean([255 - img.mean() for _, img, _ in page_images(pdf, 30)]))

    full = ink(build_pdf("rainforest", what="tiles"))
    saver = ink(build_pdf("rainforest", what="tiles", ink_saver=True))
    assert saver < 0.6 * full
    tags = {s.value for s in scan(build_pdf("rainforest", what="tiles", ink_saver=True)).tags}
    assert tags >= {c.tag for c in find_game("rainforest").components() if c.kind == "tile"}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"gutter_mm": -1}, "gutter_mm"), ({"gutter_mm": "2"}, "gutter_mm"), ({"fold": "yes"}, "fold"),
     ({"ink_saver": 1}, "ink_saver")],
)
def test_bad_sheet_options_raise_print_error(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(PrintError, match=message):
        build_pdf("phylo", **kwargs)  # type: ignore[arg-type]


# -- words and pictures ---------------------------------------------------------------------


def pdf_text(pdf: bytes) -> str:
    """Every page's text with line breaks read as spaces (a name may wrap on a face)."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdf)
    try:
        pages = [" ".join(doc[i].get_textpage().get_text_range().split()) for i in range(len(doc))]
    finally:
        doc.close()
    return "\f".join(pages)


def _what(game: str, c) -> str:  # noqa: ANN001 - a catalog Component
    """The word a player looks for on a component, from the catalog (not from the printer)."""
    if game == "rainforest" and c.kind == "token":
        return c.id.split("-")[0].capitalize()  # MONKEY-R1 -> Monkey
    if game == "rainforest" and c.kind == "protected_area":
        return "Protected area"
    if game == "rainforest" and c.kind == "diversity":
        return "Diversity"
    if game == "biomos" and c.kind == "token":
        return c.name.split()[0]  # "Ocean token" -> Ocean
    return c.name


@pytest.mark.parametrize("game", game_ids())
def test_every_component_is_named_in_the_pdf_text(game: str) -> None:
    """Each thing's name occurs in the edition's text at least as often as the edition has that thing."""
    from collections import Counter

    text = pdf_text(build_pdf(game))
    need = Counter(_what(game, c) for c in find_game(game).components())
    short = {name: (text.count(name), n) for name, n in need.items() if text.count(name) < n}
    assert short == {}


def test_colour_words_stand_beside_every_rainforest_colour() -> None:
    """Colour is never the only cue: each token and tile prints its colour as a word too."""
    from collections import Counter

    text = pdf_text(build_pdf("rainforest", what="tokens"))
    tokens = Counter(c.id.split("-")[1][0] for c in find_game("rainforest").components() if c.kind == "token")
    words = {"R": "Red", "Y": "Yellow", "B": "Blue", "P": "Purple"}
    for letter, n in tokens.items():
        assert text.count(words[letter]) >= n
    tiles = pdf_text(build_pdf("rainforest", what="tiles"))
    assert sum(tiles.count(f"{w}: ") for w in ("Red", "Yellow", "Green", "Blue", "Purple")) >= 55  # "Red: 2 points"
    assert all(w in tiles for w in ("Red", "Yellow", "Green", "Blue", "Purple"))


def test_biomos_cards_draw_their_pattern_as_terrain_badges() -> None:
    """The pattern letters under the badges spell the catalog's pattern, in order."""
    from scoring.biomos.catalog import load_catalog

    text = pdf_text(build_pdf("biomos", what="cards"))
    for card in load_catalog().biomes:
        assert f"{card.points} points" in text
    assert text.count("*") >= sum(p.count("*") for p in (b.pattern_text for b in load_catalog().biomes))


def test_values_are_printed_large() -> None:
    """Points are set at 3.6 mm or more (a cap height of at least 2.5 mm)."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(build_pdf("phylo", what="cards"))
    sizes = []
    page = doc[0]
    tp = page.get_textpage()
    for i in range(tp.count_chars()):
        if tp.get_text_range(i, 1).isdigit():
            box = tp.get_charbox(i)
            sizes.append((box[3] - box[1]) / (72 / 25.4))
    doc.close()
    assert max(sizes) >= 2.5  # digit height ~ cap height of the points line


@pytest.mark.parametrize("game", game_ids())
def test_reference_page_comes_first(game: str) -> None:
    text = pdf_text(build_pdf(game)).split("\f")[0]
    first_page = text.split("reference")[0:2]
    assert len(first_page) == 2
    for heading in ("A turn", "End of the game", "Scoring"):
        assert heading in pdf_text(build_pdf(game))


def test_biomos_reference_has_the_pattern_legend() -> None:
    text = pdf_text(build_pdf("biomos"))
    for line in ("O = ocean", "D = desert", "F = forest", "M = mountain", "G = glacier", "* = joker"):
        assert line in text


# -- stickers ------------------------------------------------------------------------------

LIMITS = {"borneo": 8}


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("game", game_ids())
def test_sticker_edition_fits_few_pages(game: str, paper: str) -> None:
    import pypdfium2 as pdfium

    pdf = build_pdf(game, what="stickers", paper=paper)
    doc = pdfium.PdfDocument(pdf)
    pages = len(doc)
    doc.close()
    assert pages <= LIMITS.get(game, 6)
    text = pdf_text(pdf)
    from collections import Counter

    need = Counter(c.name for c in find_game(game).components())
    assert all(text.count(name) >= n for name, n in need.items())  # each sticker names its component


# -- work done per edition (the seconds are measured by bench/print_speed.py) ---------------


@pytest.mark.parametrize("game", ["borneo", "rainforest"])
def test_an_edition_describes_each_face_once(game: str) -> None:
    """A complete edition builds each face description and each QR matrix once, however often it is drawn."""
    from printables import faces, symbols
    from scoring.markers import marker_layout

    faces.face_of.cache_clear()
    symbols.qr_matrix.cache_clear()
    first = build_pdf(game)
    comps = find_game(game).components()
    sides = sum(1 for p in _pages(game) for _ in p.placed)
    with_qr = sum(1 for c in comps if marker_layout(game, c).qr is not None)
    assert symbols.qr_matrix.cache_info().misses == with_qr
    assert faces.face_of.cache_info().misses <= sides
    assert build_pdf(game) == first  # deterministic: the same bytes every time


@pytest.mark.parametrize(("game", "what"), [("phylo", "cards"), ("borneo", "cards"), ("biomos", "cards"),
                                            ("rainforest", "tiles"), ("habitats", "tiles")])
def test_points_are_printed_large(game: str, what: str) -> None:
    """Every "N points" / "N vp" on the first sheet has digits at least 2.5 mm tall (read from the PDF)."""
    import re

    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(build_pdf(game, what=what))
    page = doc[0]
    tp = page.get_textpage()
    text = tp.get_text_range(0, tp.count_chars())
    heights = []
    for m in re.finditer(r"(\d+)\s+(points?|vp)", text):
        for i in range(m.start(1), m.end(1)):
            left, bottom, right, top = tp.get_charbox(i)
            heights.append(max(top - bottom, right - left) / (72 / 25.4))  # a turned card: its width
    doc.close()
    assert len(heights) >= 4
    assert min(heights) >= 2.5


def test_borneo_edge_plants_sit_on_their_edges() -> None:
    """Each plant edge of a tile gets a badge nearest that edge (the catalog lists N, NE, SE, S, SW, NW)."""
    import math

    from printables.art import ellipse
    from printables.faces import Poly, face_of
    from scoring.borneo.catalog import load_catalog
    from scoring.markers import outline_polygon
    from scoring.model import Shape

    cat = load_catalog()
    n_badge = len(ellipse(0, 0, 1, 1, n=36))
    for c in (c for c in find_game("borneo").components() if c.kind == "tile"):
        w, h = c.size_mm
        poly = outline_polygon(Shape.HEX, w, h)
        mids = [((poly[i][0] + poly[(i + 1) % 6][0]) / 2, (poly[i][1] + poly[(i + 1) % 6][1]) / 2) for i in range(6)]
        badges = [p for p in face_of("borneo", c).items if isinstance(p, Poly) and len(p.points) == n_badge]
        centres = [(sum(x for x, _ in b.points) / n_badge, sum(y for _, y in b.points) / n_badge) for b in badges]
        edges = sorted(min(range(6), key=lambda i: math.dist(mids[i], ctr)) for ctr in centres)
        assert edges == [i for i, plant in enumerate(cat.tiles[c.id].edges) if plant != "-"], c.id


def test_hybrid_borneo_tiles_show_both_layer_colours() -> None:
    from printables.faces import render_face
    from scoring.borneo.catalog import load_catalog

    cat = load_catalog()
    hybrid = next(t for t in cat.tiles.values() if len(t.layers) == 2)
    img = render_face("borneo", hybrid.id, px_per_mm=4)
    h, w = img.shape[:2]
    left, right = img[h // 2, 6], img[h // 2, w - 7]  # just inside the left and right corners
    assert np.abs(left.astype(int) - right.astype(int)).sum() > 60


@pytest.mark.parametrize("game", game_ids())
def test_no_printed_space_covers_another(game: str) -> None:
    """Spaces on a board or tile never overlap, so no outline hides a neighbour's name; the Biomos
    planet ring (centres about 31 mm apart) is printed round for that reason."""
    from itertools import combinations

    from printables.geometry import space_outline

    overlaps = []
    for c in find_game(game).components():
        for a, b in combinations(c.spaces, 2):
            area, _ = cv2.intersectConvexConvex(np.array(space_outline(a), np.float32), np.array(space_outline(b), np.float32))
            if area > 0.01:
                overlaps.append((c.id, a.name, b.name, round(float(area), 1)))
    assert overlaps == []
