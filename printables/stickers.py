"""Sticker mode: every marker of a game on sticker paper, printed at its real size, several to a label.

A sticker carries a component's tag and QR code exactly as on the printed face (same sizes,
same relative offset) when they sit close together, otherwise one sticker per symbol; board
anchor tags get a sticker each, and a kind with a back tag gets a back sticker (the same tag
for every back of the kind: it says "face down", never which card). Under its symbols each
sticker names the component and shows where it goes on a small outline of the component.

Stickers are packed in rows, as many to a label as fit: by default on full-page sticker paper
(one "label" the size of the page, a cut line around every sticker), or on a commercial label
sheet when asked. Labels before ``start_label`` on the first sheet are left blank, so a partly
used sheet can be fed again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reportlab.pdfgen.canvas import Canvas

from scoring.markers import MarkerBox, anchor_box, back_layout, game_markers, marker_layout, outline_polygon
from scoring.model import Component, Shape
from scoring.payload import encode

from .art import ellipse
from .faces import BLACK, WHITE, Face, Item, Poly, Rect, SymbolKind, Text, printable_text, shorten, text_width
from .faces import Symbol as SymbolItem
from .pdf import draw_face, plain_text, start_page
from .sheets import MARGIN_MM, PAPERS, Paper
from .symbols import qr_matrix, tag_matrix


@dataclass(frozen=True, slots=True)
class LabelSheet:
    """A commercial label layout; every length in millimetres from the page's top-left."""

    name: str
    title: str
    paper: str
    label_w: float
    label_h: float
    cols: int
    rows: int
    left: float
    """Left page edge to the first column's left edge."""
    top: float
    """Top page edge to the first row's top edge."""
    pitch_x: float
    """Left edge to left edge of neighbouring columns."""
    pitch_y: float

    @property
    def count(self) -> int:
        return self.cols * self.rows

    def origin(self, index: int) -> tuple[float, float]:
        """Top-left corner of label ``index`` (0-based, row by row)."""
        r, c = divmod(index, self.cols)
        return (self.left + c * self.pitch_x, self.top + r * self.pitch_y)


_INCH = 25.4
LABEL_LAYOUTS: dict[str, LabelSheet] = {
    s.name: s
    for s in (
        LabelSheet("avery-l7160", "Avery L7160 / J8160 (A4, 21 labels 63.5 x 38.1 mm)", "a4",
                   63.5, 38.1, 3, 7, 7.21, 15.15, 66.04, 38.1),
        LabelSheet("avery-l7163", "Avery L7163 / J8163 (A4, 14 labels 99.1 x 38.1 mm)", "a4",
                   99.1, 38.1, 2, 7, 4.65, 15.15, 101.6, 38.1),
        LabelSheet("avery-l7165", "Avery L7165 / J8165 (A4, 8 labels 99.1 x 67.7 mm)", "a4",
                   99.1, 67.7, 2, 4, 4.65, 13.1, 101.6, 67.7),
        LabelSheet("avery-5160", "Avery 5160 (US Letter, 30 labels 2 5/8 x 1 in)", "letter",
                   2.625 * _INCH, 1.0 * _INCH, 3, 10, 0.1875 * _INCH, 0.5 * _INCH, 2.75 * _INCH, 1.0 * _INCH),
        LabelSheet("avery-5163", "Avery 5163 (US Letter, 10 labels 4 x 2 in)", "letter",
                   4.0 * _INCH, 2.0 * _INCH, 2, 5, 0.15625 * _INCH, 0.5 * _INCH, 4.1875 * _INCH, 2.0 * _INCH),
        LabelSheet("sticker-a4", "full-page A4 sticker paper (cut along the lines)", "a4",
                   198.0, 281.0, 1, 1, 6.0, 8.0, 198.0, 281.0),
        LabelSheet("sticker-letter", "full-page US Letter sticker paper (cut along the lines)", "letter",
                   203.9, 263.4, 1, 1, 6.0, 8.0, 203.9, 263.4),
    )
}
#: Without an explicit label sheet, stickers go on full-page sticker paper of the chosen paper size.
LABEL_FAMILIES = {"a4": ("sticker-a4",), "letter": ("sticker-letter",)}
#: The commercial label layouts of each paper, smallest labels first (``assign_sheets`` can mix them).
AVERY_FAMILIES = {
    "a4": ("avery-l7160", "avery-l7163", "avery-l7165"),
    "letter": ("avery-5160", "avery-5163"),
}
CAPTION_MM = 5.2
"""Height of the strip under a sticker's symbols: a small outline of the component and two lines of words."""
MIN_CELL_W = 21.0
"""Narrowest sticker: room for the component's name beside the outline."""


class StickerFitError(ValueError):
    """A marker is larger than the chosen label."""


@dataclass(frozen=True, slots=True)
class Sticker:
    """One sticker: symbols placed as on the face, and where it goes."""

    component: Component
    symbols: tuple[tuple[MarkerBox, SymbolKind, int | str], ...]
    """Each symbol's box on the component face, its kind and its tag id or QR payload."""
    where: str
    back: bool = False
    """It goes on the component's back."""

    @property
    def size(self) -> tuple[float, float]:
        """Width and height of the sticker: the symbols with their quiet zones, and the caption strip."""
        _, _, uw, uh = _union([p[0] for p in self.symbols])
        return max(uw, MIN_CELL_W), uh + CAPTION_MM


def _union(boxes: Sequence[MarkerBox]) -> tuple[float, float, float, float]:
    outs = [b.outer for b in boxes]
    x0 = min(o[0] for o in outs)
    y0 = min(o[1] for o in outs)
    x1 = max(o[0] + o[2] for o in outs)
    y1 = max(o[1] + o[3] for o in outs)
    return (x0, y0, x1 - x0, y1 - y0)


def _corner_words(box: MarkerBox, w: float, h: float) -> str:
    cx, cy = box.centre_mm
    vert = "top" if cy < h / 3 else "bottom" if cy > 2 * h / 3 else "middle"
    horiz = "left" if cx < w / 3 else "right" if cx > 2 * w / 3 else "centre"
    return "centre" if (vert, horiz) == ("middle", "centre") else f"{vert}-{horiz}"


def fits(s: Sticker, sheet: LabelSheet) -> bool:
    """Whether a sticker fits one label of ``sheet``."""
    uw, uh = s.size
    return uw <= sheet.label_w + 1e-9 and uh <= sheet.label_h + 1e-9


def component_stickers(game_id: str, c: Component, sheet: LabelSheet) -> list[Sticker]:
    """One component's stickers: tag and QR together when they sit close and fit one label, anchors alone."""
    rule = game_markers(game_id).rule
    w, h = c.size_mm
    layout = marker_layout(game_id, c)
    parts: list[tuple[MarkerBox, SymbolKind, int | str]] = [(layout.tag, SymbolKind.TAG, c.tag)]
    if layout.qr is not None:
        parts.append((layout.qr, SymbolKind.QR, encode(game_id, c.id)))
    out: list[Sticker] = []
    together = Sticker(c, tuple(parts), "tag + QR, " + _corner_words(layout.tag, w, h))
    ux, uy, uw, uh = _union([p[0] for p in parts])
    close = uw * uh <= 1.15 * sum(p[0].outer[2] * p[0].outer[3] for p in parts)
    if len(parts) == 1 or (close and fits(together, sheet)):
        out.append(together if len(parts) > 1 else Sticker(c, tuple(parts), "tag, " + _corner_words(layout.tag, w, h)))
    else:
        for part in parts:
            label = "tag" if part[1] is SymbolKind.TAG else "QR"
            out.append(Sticker(c, (part,), f"{label}, {_corner_words(part[0], w, h)}"))
    for i, a in enumerate(c.anchors, start=1):
        box = anchor_box(a.size_mm, a.x_mm, a.y_mm, rule)
        out.append(Sticker(c, ((box, SymbolKind.TAG, a.tag),), f"anchor {i}, {_corner_words(box, w, h)}"))
    back = back_layout(game_id, c)
    entry = game_markers(game_id).kinds.get(c.kind)
    if back is not None and entry is not None and entry.back_tag is not None:
        out.append(Sticker(c, ((back, SymbolKind.TAG, entry.back_tag.id),), "BACK, " + _corner_words(back, w, h),
                           back=True))
    return out


def _misfit(stickers: Sequence[Sticker], sheet: LabelSheet) -> str | None:
    for s in stickers:
        if not fits(s, sheet):
            uw, uh = s.size
            return f"{s.component.id}: its {uw:.1f} x {uh:.1f} mm marker sticker does not fit a {sheet.title} label"
    return None


def stickers_for(game_id: str, components: Sequence[Component], sheet: LabelSheet) -> list[Sticker]:
    """Every component's stickers on one layout (StickerFitError if a marker is larger than its label)."""
    out: list[Sticker] = []
    for c in components:
        stickers = component_stickers(game_id, c, sheet)
        problem = _misfit(stickers, sheet)
        if problem:
            raise StickerFitError(problem)
        out.extend(stickers)
    return out


def assign_sheets(
    game_id: str, components: Sequence[Component], names: Sequence[str]
) -> list[tuple[LabelSheet, list[Sticker]]]:
    """Each component on the first layout of ``names`` (smallest labels first) that holds all its stickers.

    Returns the layouts actually used, in the order of ``names``, each with its stickers in
    catalog order; StickerFitError names a component whose markers fit none of them.
    """
    sheets = [LABEL_LAYOUTS[n] for n in names]
    groups: dict[str, list[Sticker]] = {n: [] for n in names}
    for c in components:
        problem = ""
        for sheet in sheets:
            stickers = component_stickers(game_id, c, sheet)
            problem = _misfit(stickers, sheet) or ""
            if not problem:
                groups[sheet.name].extend(stickers)
                break
        else:
            raise StickerFitError(problem)
    return [(LABEL_LAYOUTS[n], groups[n]) for n in names if groups[n]]


@dataclass(frozen=True, slots=True)
class PlacedSticker:
    """A sticker on a sheet: its label and its top-left corner inside that label, in mm."""

    label: int
    x: float
    y: float
    sticker: Sticker


def pack_stickers(stickers: Sequence[Sticker], sheet: LabelSheet, start_label: int) -> list[list[PlacedSticker]]:
    """Stickers in rows on each label (tallest first, so rows waste little), labels in order, sheets as needed.

    Pages of placed stickers; the first page starts at label ``start_label`` (1-based).
    """
    order = sorted(stickers, key=lambda s: (-s.size[1], -s.size[0]))
    pages: list[list[PlacedSticker]] = [[]]
    label = start_label - 1
    x = y = row_h = 0.0
    for s in order:
        w, h = s.size
        if x > 0 and x + w > sheet.label_w + 1e-9:
            x, y, row_h = 0.0, y + row_h, 0.0
        if y + h > sheet.label_h + 1e-9:
            label, x, y, row_h = label + 1, 0.0, 0.0, 0.0
            if label == sheet.count:
                pages.append([])
                label = 0
        pages[-1].append(PlacedSticker(label, x, y, s))
        x += w
        row_h = max(row_h, h)
    return [p for p in pages if p]


def _where_items(s: Sticker, x: float, y: float, size: float) -> list[Item]:
    """A small outline of the component with the sticker's place filled in black."""
    c = s.component
    w, h = c.size_mm
    k = size / max(w, h)
    ox, oy = x + (size - w * k) / 2, y + (size - h * k) / 2
    if c.shape is Shape.ROUND:
        outline: Item = Poly(ellipse(ox + w * k / 2, oy + h * k / 2, w * k / 2, h * k / 2), fill=WHITE, stroke=BLACK,
                             line_mm=0.15)
    elif c.shape is Shape.HEX:
        poly = outline_polygon(c.shape, w, h) or ()
        outline = Poly(tuple((ox + px * k, oy + py * k) for px, py in poly), fill=WHITE, stroke=BLACK, line_mm=0.15)
    else:
        outline = Rect(ox, oy, w * k, h * k, fill=WHITE, stroke=BLACK, line_mm=0.15)
    out = [outline]
    for box, _, _ in s.symbols:
        bx, by, bw, bh = box.x_mm, box.y_mm, box.size_mm, box.size_mm
        out.append(Rect(ox + bx * k, oy + by * k, max(0.4, bw * k), max(0.4, bh * k), fill=BLACK))
    return out


def sticker_face(s: Sticker, w: float | None = None, h: float | None = None) -> Face:
    """A sticker's face: the symbols (relative offsets as on the component), the place outline and the words."""
    sw, sh = s.size
    w, h = w or sw, h or sh
    ux, uy, uw, uh = _union([p[0] for p in s.symbols])
    ox, oy = (w - uw) / 2 - ux, -uy
    items: list[Item] = []
    for box, kind, value in s.symbols:
        x, y, side, _ = box.outer
        items.append(Rect(x + ox, y + oy, side, side, fill=WHITE))
        matrix = tag_matrix(value) if isinstance(value, int) else qr_matrix(value)
        items.append(SymbolItem(box.x_mm + ox, box.y_mm + oy, box.module_mm, matrix, kind))
    cap_y = uh + 0.2
    diagram = CAPTION_MM - 0.6
    items += _where_items(s, 0.6, cap_y, diagram)
    tx = 0.6 + diagram + 0.8
    room = w - tx - 0.5
    name = printable_text(s.component.name)
    for text, size, bold, base in ((name, 1.9, True, cap_y + 2.0), (printable_text(s.where), 1.6, False, cap_y + 4.3)):
        while size > 1.25 and text_width(text, size, bold) > room:
            size *= 0.93
        text = shorten(text, size, room, bold)
        items.append(Text(tx, base, size, text, BLACK, bold, text_width(text, size, bold)))
    return Face(w, h, Shape.RECT, WHITE, tuple(items))


def draw_sticker_page(canvas: Canvas, title: str, page: Sequence[PlacedSticker], sheet: LabelSheet,
                      number: int) -> None:
    """One sheet: each sticker in its label with a cut line around it (label outlines too, for a plain-paper test)."""
    paper: Paper = PAPERS[sheet.paper]
    start_page(canvas, paper.h)
    for p in page:
        lx, ly = sheet.origin(p.label)
        draw_face(canvas, sticker_face(p.sticker), lx + p.x, ly + p.y, cut_line=True)
    plain_text(canvas, MARGIN_MM, max(4.0, sheet.top / 2 + 1), 2.2,
               f"{title} - stickers - sheet {number} - {sheet.title} - print at 100 % (actual size)")
