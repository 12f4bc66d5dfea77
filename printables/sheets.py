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
from scoring.model import Component, Shape

from .dress import has_picture_side
from .faces import face_of, game_title
from .pdf import cut_marks, draw_face, fold_line, grid_marks, plain_text, scale_bar, start_page

MARGIN_MM = 6.0
"""Page margin kept clear (most printers cannot print the outer 3-5 mm)."""
GAP_MM = 4.0
"""Space between neighbouring components besides their bleed: room for the cut marks."""
FOOTER_MM = 7.0
MARK_MM = 1.5


@dataclass(frozen=True, slots=True)
class SheetStyle:
    """How the print-and-play sheets are set: shared cut lines or a gutter, fold-and-glue, ink saving."""

    gutter: float = 0.0
    """Room between neighbouring grid faces in mm (0: they share their cut lines)."""
    fold: bool = False
    """Two-sided faces as fold-and-glue pairs instead of duplex back pages."""
    ink_saver: bool = False
    """White backgrounds with coloured outlines and bands instead of full colour."""


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
    turn: int = 0
    """Clockwise quarter turns of the face on the page (0, 90, 180 or 270 degrees)."""

    @property
    def w(self) -> float:
        if self.piece:
            return self.piece.w
        return self.component.size_mm[1 if self.turn % 180 else 0]

    @property
    def h(self) -> float:
        if self.piece:
            return self.piece.h
        return self.component.size_mm[0 if self.turn % 180 else 1]


@dataclass(frozen=True, slots=True)
class Grid:
    """Faces set edge to edge (or ``gap`` apart): every cut runs the full page, its marks in the margins."""

    xs: tuple[float, ...]
    """Page x of every vertical cut, left to right."""
    ys: tuple[float, ...]
    """Page y of every horizontal cut, top to bottom."""


@dataclass(frozen=True, slots=True)
class Page:
    section: Section
    placed: tuple[Placed, ...]
    back: bool = False
    caption: str = ""
    grid: Grid | None = None
    fold: tuple[float, ...] = ()
    """Page y of each fold line (fold-and-glue sheets): folded along it, a front meets its back."""


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


GRID_MIN = 4
"""Fewer faces of one size than this (cards aside) go in rows with the others, not on a grid page of their own."""
EDGE_MM = 4.0
"""Grid pages: least room between the page edge and a trim (crop marks run in it)."""


def _fit(w: float, h: float, aw: float, ah: float, gap: float) -> tuple[int, int]:
    """Columns and rows of ``w x h`` faces, ``gap`` apart, within ``aw x ah``."""
    return max(0, int((aw + gap + 1e-9) // (w + gap))), max(0, int((ah + gap + 1e-9) // (h + gap)))


def grid_pack(
    components: Sequence[Component], section: Section, paper: Paper, bleed: float, gutter: float = 0.0
) -> list[Page]:
    """Same-size rectangular faces in a grid: with no bleed and no gutter neighbours share their cut lines.

    The faces turn a quarter when that puts more on a page (landscape cards 9 to an A4 page);
    the grid is centred, leaving room for the footer below it where the page allows.
    """
    if not components:
        return []
    w, h = components[0].size_mm
    gap = gutter + 2 * bleed
    aw, ah = paper.w - 2 * (EDGE_MM + bleed), paper.h - 2 * (EDGE_MM + bleed)
    upright, turned = _fit(w, h, aw, ah, gap), _fit(h, w, aw, ah, gap)
    turn = 90 if turned[0] * turned[1] > upright[0] * upright[1] else 0
    cols, rows = turned if turn else upright
    fw, fh = (h, w) if turn else (w, h)
    per_page = cols * rows
    if per_page == 0:
        return []
    pages = []
    for first in range(0, len(components), per_page):
        chunk = components[first : first + per_page]
        used_rows = math.ceil(len(chunk) / cols)
        used_cols = min(cols, len(chunk))
        total_w = used_cols * fw + (used_cols - 1) * gap
        total_h = rows * fh + (rows - 1) * gap
        x0 = (paper.w - total_w) / 2
        room = paper.h - total_h
        y0 = (room - FOOTER_MM) / 2 if room - FOOTER_MM >= 2 * (EDGE_MM + bleed) else room / 2
        placed = tuple(
            Placed(c, x0 + (i % cols) * (fw + gap), y0 + (i // cols) * (fh + gap), turn=turn)
            for i, c in enumerate(chunk)
        )
        xs = sorted({round(v, 4) for p in placed for v in (p.x, p.x + fw)})
        ys = sorted({round(y0 + r * (fh + gap) + d, 4) for r in range(used_rows) for d in (0.0, fh)})
        pages.append(Page(section, placed, grid=Grid(tuple(xs), tuple(ys))))
    return pages


def fold_pack(components: Sequence[Component], section: Section, paper: Paper, bleed: float) -> list[Page]:
    """Fold-and-glue sheets: each front above its own back, turned so that folding on the line
    between them (and gluing) gives a two-sided card without a duplex printer."""
    if not components:
        return []
    w, h = components[0].size_mm
    aw, ah = paper.w - 2 * (EDGE_MM + bleed), paper.h - 2 * (EDGE_MM + bleed) - FOOTER_MM
    gap = 2 * bleed + 2 * MARK_MM + 2.0
    upright, turned = _fit(w, 2 * h, aw, ah, gap), _fit(h, 2 * w, aw, ah, gap)
    turn = 90 if turned[0] * turned[1] > upright[0] * upright[1] else 0
    cols, rows = turned if turn else upright
    fw, fh = (h, w) if turn else (w, h)
    per_page = cols * rows
    if per_page == 0:
        return []
    back_turn = turn if turn else 180
    pages = []
    for first in range(0, len(components), per_page):
        chunk = components[first : first + per_page]
        x0 = (paper.w - (cols * fw + (cols - 1) * gap)) / 2
        y0 = EDGE_MM + bleed
        placed: list[Placed] = []
        folds: list[float] = []
        for i, c in enumerate(chunk):
            x = x0 + (i % cols) * (fw + gap)
            y = y0 + (i // cols) * (2 * fh + gap)
            placed += [Placed(c, x, y, turn=turn), Placed(c, x, y + fh, back=True, turn=back_turn)]
            folds.append(round(y + fh, 4))
        caption = "fold-and-glue: cut around each pair, fold on the dashed line, glue the halves back to back"
        pages.append(Page(section, tuple(placed), caption=caption, fold=tuple(sorted(set(folds)))))
    return pages


def with_backs(pages: Iterable[Page], paper: Paper, game_id: str = "") -> list[Page]:
    """After each page holding faces with a back (or a picture side), its mirror image for long-edge duplex printing."""
    out: list[Page] = []
    for page in pages:
        out.append(page)
        if page.fold:
            continue  # a fold-and-glue sheet holds its backs already
        backs = tuple(
            Placed(p.component, paper.w - p.x - p.w, p.y, back=True, turn=(360 - p.turn) % 360)
            for p in page.placed
            if (p.component.back is not None or has_picture_side(game_id, p.component)) and p.piece is None
        )
        if backs:
            grid = None
            if page.grid is not None:
                grid = Grid(tuple(sorted(round(paper.w - x, 4) for x in page.grid.xs)), page.grid.ys)
            caption = "backs and picture sides: print double-sided, flip on the long edge"
            out.append(Page(page.section, backs, back=True, caption=caption, grid=grid))
    return out


def _packed(
    game_id: str, members: Sequence[Component], section: Section, paper: Paper, bleed: float, style: SheetStyle
) -> list[Page]:
    """Grids for same-size rectangles (fold-and-glue pairs for two-sided ones when asked), rows for the rest.

    Boards stay in rows at the page margin: one to a page, or in pieces.
    """
    groups: dict[tuple[float, float], list[Component]] = {}
    rest: list[Component] = []
    for c in members:
        if c.shape is Shape.RECT and section is not Section.BOARDS and fits_page(c.size_mm, paper, bleed):
            groups.setdefault(c.size_mm, []).append(c)
        else:
            rest.append(c)
    for size in [k for k, g in groups.items() if len(g) < GRID_MIN and section is not Section.CARDS]:
        rest.extend(groups.pop(size))  # a lone board piece or binoculars shares a page rather than fill one
    pages: list[Page] = []
    for group in sorted(groups.values(), key=lambda g: (-g[0].size_mm[1], -g[0].size_mm[0])):
        two_sided = [c for c in group if c.back is not None]
        one_sided = [c for c in group if c.back is None]
        if style.fold and two_sided:
            pages += fold_pack(two_sided, section, paper, bleed)
            group = one_sided
        packed = grid_pack(group, section, paper, bleed, style.gutter)
        if group and not packed:
            rest.extend(group)
        pages += packed
    return pages + pack(game_id, rest, section, paper, bleed)


def layout_pages(
    game_id: str,
    components: Sequence[Component],
    sections: Sequence[Section],
    paper: Paper,
    bleed: float,
    style: SheetStyle | None = None,
) -> list[Page]:
    """Every page of the requested sections, in section order."""
    style = style or SheetStyle()
    pages: list[Page] = []
    for section in sections:
        members = [c for c in components if section_for(game_id, c.kind) is section]
        if members:
            pages.extend(with_backs(_packed(game_id, members, section, paper, bleed, style), paper, game_id))
    return pages


def _turned(canvas: Canvas, p: Placed) -> None:
    """Map the upright face's millimetres onto the page for a face turned ``p.turn`` degrees clockwise."""
    fw, fh = p.component.size_mm
    if p.turn == 90:
        canvas.transform(0, 1, -1, 0, p.x + fh, p.y)
    elif p.turn == 180:
        canvas.transform(-1, 0, 0, -1, p.x + fw, p.y + fh)
    elif p.turn == 270:
        canvas.transform(0, -1, 1, 0, p.x, p.y + fw)
    else:
        canvas.translate(p.x, p.y)


def _draw_placed(canvas: Canvas, game_id: str, p: Placed, bleed: float, style: SheetStyle, marks: bool) -> None:
    face = face_of(game_id, p.component, p.back, style.ink_saver)
    if p.piece is None:
        canvas.saveState()
        _turned(canvas, p)
        draw_face(canvas, face, 0.0, 0.0, bleed=bleed, cut_line=bleed == 0 or face.shape.value != "rect")
        canvas.restoreState()
        if marks:
            cut_marks(canvas, p.x, p.y, p.w, p.h, bleed=bleed, length=MARK_MM)
        return
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


def draw_page(
    canvas: Canvas, game_id: str, page: Page, paper: Paper, bleed: float, number: int, style: SheetStyle | None = None
) -> None:
    """One sheet: faces, cut marks (full-length ones for a grid), fold lines, and a footer with a scale bar."""
    style = style or SheetStyle()
    start_page(canvas, paper.h)
    for p in page.placed:
        _draw_placed(canvas, game_id, p, bleed, style, marks=page.grid is None)
    if page.grid is not None:
        xs = [p.x for p in page.placed] + [p.x + p.w for p in page.placed]
        ys = [p.y for p in page.placed] + [p.y + p.h for p in page.placed]
        grid_marks(canvas, page.grid.xs, page.grid.ys, (min(xs), min(ys), max(xs), max(ys)),
                   (paper.w, paper.h), bleed=bleed)
    if page.fold:
        for p in page.placed:
            if not p.back:
                fold_line(canvas, p.x, p.x + p.w, p.y + p.h)
    bottom = max((p.y + p.h for p in page.placed), default=0.0) + bleed
    # below the faces where the page leaves room, else as close under them as the text allows
    foot_y = paper.h - MARGIN_MM - 1.0 if paper.h - bottom >= FOOTER_MM + EDGE_MM else bottom + 5.5
    side = "backs" if page.back else page.section.value
    text = f"{game_title(game_id)} - {side} - page {number} - {paper.name} - print at 100 % (actual size)"
    plain_text(canvas, MARGIN_MM, foot_y - 3.2, 2.4, text, knockout=True)
    if page.caption:
        plain_text(canvas, MARGIN_MM, foot_y, 2.2, page.caption, knockout=True)
    scale_bar(canvas, paper.w - MARGIN_MM - 82, foot_y - 3.2)
