"""N-up sheets at true size: components packed in rows with cut marks, optional bleed and duplex backs.

Layout is computed first as plain values (pages of placed faces), then drawn; so tests
can check positions without reading a PDF, and the PDF and raster agree by construction.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from reportlab.pdfgen.canvas import Canvas

from scoring.markers import anchor_box, game_markers, marker_layout, sheet_of
from scoring.model import Component

from .faces import face_of, game_title
from .pdf import cut_marks, draw_face, plain_text, scale_bar, start_page

MARGIN_MM = 6.0
"""Page margin kept clear (most printers cannot print the outer 3-5 mm)."""
GAP_MM = 4.0
"""Space between neighbouring components besides their bleed: room for the cut marks."""
FOOTER_MM = 7.0
MARK_MM = 1.5


class Section(enum.Enum):
    """The four kinds of sheet a game's components are printed on."""

    TILES = "tiles"
    CARDS = "cards"
    TOKENS = "tokens"
    BOARDS = "boards"


#: Words in a component kind that choose its section; anything else is printed with the tiles.
SECTION_WORDS: tuple[tuple[Section, tuple[str, ...]], ...] = (
    (Section.CARDS, ("card", "deck")),
    (Section.TOKENS, ("token", "disc", "chip", "figure", "meeple", "cube", "counter", "pawn", "marker")),
    (Section.BOARDS, ("board", "platform", "mat", "track", "planet", "legend")),
)


def section_of(kind: str) -> Section:
    """Generic kind -> section mapping: first matching word wins, unknown kinds are tiles."""
    k = kind.lower()
    for section, words in SECTION_WORDS:
        if any(w in k for w in words):
            return section
    return Section.TILES


def section_for(game_id: str, kind: str) -> Section:
    """The sheet a game's markers.toml names for the kind, else the generic mapping by name."""
    named = sheet_of(game_id, kind)
    return Section(named) if named is not None else section_of(kind)


@dataclass(frozen=True, slots=True)
class Paper:
    name: str
    w: float
    h: float


PAPERS = {"a4": Paper("A4", 210.0, 297.0), "letter": Paper("US Letter", 215.9, 279.4)}


@dataclass(frozen=True, slots=True)
class Piece:
    """The part of a face printed on one page when the face is larger than the page."""

    x: float
    y: float
    w: float
    h: float
    row: int
    col: int
    rows: int
    cols: int


@dataclass(frozen=True, slots=True)
class Placed:
    """One face (or one piece of it) on a page; ``x, y`` is its trim's top-left on the page in mm."""

    component: Component
    x: float
    y: float
    back: bool = False
    piece: Piece | None = None

    @property
    def w(self) -> float:
        return self.piece.w if self.piece else self.component.size_mm[0]

    @property
    def h(self) -> float:
        return self.piece.h if self.piece else self.component.size_mm[1]


@dataclass(frozen=True, slots=True)
class Page:
    section: Section
    placed: tuple[Placed, ...]
    back: bool = False
    caption: str = ""


def _content(paper: Paper) -> tuple[float, float, float, float]:
    return (MARGIN_MM, MARGIN_MM, paper.w - 2 * MARGIN_MM, paper.h - 2 * MARGIN_MM - FOOTER_MM)


def fits_page(size_mm: tuple[float, float], paper: Paper, bleed: float) -> bool:
    """Whether a face (with its bleed) fits one page whole; larger faces are printed in pieces."""
    _, _, aw, ah = _content(paper)
    return size_mm[0] + 2 * bleed <= aw and size_mm[1] + 2 * bleed <= ah


def _spans(game_id: str, c: Component, axis: int) -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
    """Intervals along an axis a page split must not cut (markers) and should not cut (spaces)."""
    layout = marker_layout(game_id, c)
    boxes = [layout.tag.outer] + ([layout.qr.outer] if layout.qr else [])
    rule = game_markers(game_id).rule
    boxes += [anchor_box(a.size_mm, a.x_mm, a.y_mm, rule).outer for a in c.anchors]
    spaces = [(s.x_mm - s.w_mm / 2, s.y_mm - s.h_mm / 2, s.w_mm, s.h_mm) for s in c.spaces]
    return (
        [(b[axis], b[axis] + b[axis + 2]) for b in boxes],
        [(b[axis], b[axis] + b[axis + 2]) for b in spaces],
    )


def _cut_near(start: float, most: float, avoid: Sequence[tuple[float, float]]) -> float | None:
    x = start + most
    while x > start + most / 3:
        if not any(a < x < b for a, b in avoid):
            return x
        x -= 0.5
    return None


def split_points(
    length: float, most: float, must: Sequence[tuple[float, float]], prefer: Sequence[tuple[float, float]] = ()
) -> list[float]:
    """Cuts ``0 < s1 < ... < length``: pieces at most ``most`` long, never inside ``must``, if possible not in ``prefer``."""
    cuts = [0.0]
    while length - cuts[-1] > most + 1e-9:
        start = cuts[-1]
        left = length - start
        step = min(most, left / math.ceil(left / most) + 10.0)  # balanced pieces, some room to dodge
        best = _cut_near(start, step, [*must, *prefer])
        if best is None:
            best = _cut_near(start, most, must)
        cuts.append(round(best if best is not None else start + most, 3))
    cuts.append(length)
    return cuts


def pieces_of(game_id: str, c: Component, max_w: float, max_h: float) -> list[Piece]:
    """Page-sized pieces of an oversized face; cuts avoid markers and spaces where possible."""
    w, h = c.size_mm
    xs = split_points(w, max_w, *_spans(game_id, c, 0))
    ys = split_points(h, max_h, *_spans(game_id, c, 1))
    rows, cols = len(ys) - 1, len(xs) - 1
    return [
        Piece(xs[j], ys[i], xs[j + 1] - xs[j], ys[i + 1] - ys[i], i, j, rows, cols)
        for i in range(rows)
        for j in range(cols)
    ]


def pack(
    game_id: str, components: Sequence[Component], section: Section, paper: Paper, bleed: float
) -> list[Page]:
    """Rows of faces, tallest first, a new page when full; faces larger than a page go in pieces."""
    x0, y0, aw, ah = _content(paper)
    pages: list[Page] = []
    fitting: list[Component] = []
    for c in components:
        if fits_page(c.size_mm, paper, bleed):
            fitting.append(c)
            continue
        for piece in pieces_of(game_id, c, aw - 2 * bleed, ah - 2 * bleed):
            caption = (
                f"{c.id} piece {piece.row * piece.cols + piece.col + 1} of {piece.rows * piece.cols}"
                f" (row {piece.row + 1}, column {piece.col + 1}): trim and butt-join the pieces"
            )
            pages.append(Page(section, (Placed(c, x0 + bleed, y0 + bleed, piece=piece),), caption=caption))
    order = sorted(fitting, key=lambda c: (-c.size_mm[1], -c.size_mm[0]))
    current: list[Placed] = []
    x = y = row_h = 0.0
    for c in order:
        cw, ch = c.size_mm[0] + 2 * bleed, c.size_mm[1] + 2 * bleed
        if x > 0 and x + cw > aw + 1e-9:
            x, y, row_h = 0.0, y + row_h + GAP_MM, 0.0
        if y + ch > ah + 1e-9:
            pages.append(Page(section, tuple(current)))
            current, x, y, row_h = [], 0.0, 0.0, 0.0
        current.append(Placed(c, x0 + x + bleed, y0 + y + bleed))
        x += cw + GAP_MM
        row_h = max(row_h, ch)
    if current:
        pages.append(Page(section, tuple(current)))
    return pages


def with_backs(pages: Iterable[Page], paper: Paper) -> list[Page]:
    """After each page holding faces with a back, its mirror image for long-edge duplex printing."""
    out: list[Page] = []
    for page in pages:
        out.append(page)
        backs = tuple(
            Placed(p.component, paper.w - p.x - p.w, p.y, back=True)
            for p in page.placed
            if p.component.back is not None and p.piece is None
        )
        if backs:
            out.append(Page(page.section, backs, back=True, caption="backs: print double-sided, flip on the long edge"))
    return out


def layout_pages(
    game_id: str, components: Sequence[Component], sections: Sequence[Section], paper: Paper, bleed: float
) -> list[Page]:
    """Every page of the requested sections, in section order."""
    pages: list[Page] = []
    for section in sections:
        members = [c for c in components if section_for(game_id, c.kind) is section]
        if members:
            pages.extend(with_backs(pack(game_id, members, section, paper, bleed), paper))
    return pages


def draw_page(canvas: Canvas, game_id: str, page: Page, paper: Paper, bleed: float, number: int) -> None:
    """One sheet: faces, cut marks, and a footer with a scale bar."""
    start_page(canvas, paper.h)
    for p in page.placed:
        face = face_of(game_id, p.component, p.back)
        if p.piece is None:
            draw_face(canvas, face, p.x, p.y, bleed=bleed, cut_line=bleed == 0 or face.shape.value != "rect")
            cut_marks(canvas, p.x, p.y, p.w, p.h, bleed=bleed, length=MARK_MM)
            continue
        pc = p.piece
        grow_l = bleed if pc.col == 0 else 0.0
        grow_t = bleed if pc.row == 0 else 0.0
        grow_r = bleed if pc.col == pc.cols - 1 else 0.0
        grow_b = bleed if pc.row == pc.rows - 1 else 0.0
        canvas.saveState()
        clip = canvas.beginPath()
        clip.rect(p.x - grow_l, p.y - grow_t, p.w + grow_l + grow_r, p.h + grow_t + grow_b)
        canvas.clipPath(clip, stroke=0, fill=0)
        draw_face(canvas, face, p.x - pc.x, p.y - pc.y, bleed=bleed, cut_line=bleed == 0)
        canvas.restoreState()
        cut_marks(canvas, p.x, p.y, p.w, p.h, bleed=bleed, length=MARK_MM)
    foot_y = paper.h - MARGIN_MM - 1.0
    side = "backs" if page.back else page.section.value
    text = f"{game_title(game_id)} - {side} - page {number} - {paper.name} - print at 100 % (actual size)"
    plain_text(canvas, MARGIN_MM, foot_y - 3.2, 2.4, text)
    if page.caption:
        plain_text(canvas, MARGIN_MM, foot_y, 2.2, page.caption)
    scale_bar(canvas, paper.w - MARGIN_MM - 82, foot_y - 3.2)
