"""Sticker mode: every marker of a game on standard label sheets, printed at its real size.

A sticker carries a component's tag and QR code exactly as on the printed face (same
sizes, same relative offset) when both fit one label, otherwise one sticker per symbol;
board anchor tags get a sticker each, and a component whose kind has a back tag gets a back
sticker (the same tag for every back of the kind: it says "face down", never which card).
The caption says where on the component it goes.
Each component goes on the smallest label of the paper's label family that holds its
markers, so one print may use two layouts (small and large labels), each on its own pages.
Labels before ``start_label`` on the first sheet are left blank, so a partly used sheet
can be fed again.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from reportlab.pdfgen.canvas import Canvas

from scoring.markers import MarkerBox, anchor_box, back_layout, game_markers, marker_layout
from scoring.model import Component, Shape
from scoring.payload import encode

from .faces import BLACK, WHITE, Face, Item, Rect, SymbolKind, largest_free_rect, text_block
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
    )
}
#: Without an explicit label sheet, each component's stickers go on the first (smallest-label)
#: layout of its paper's family that holds them all; a request may use several layouts.
LABEL_FAMILIES = {
    "a4": ("avery-l7160", "avery-l7163", "avery-l7165"),
    "letter": ("avery-5160", "avery-5163"),
}


class StickerFitError(ValueError):
    """A marker is larger than the chosen label."""


@dataclass(frozen=True, slots=True)
class Sticker:
    """One label's content: symbols placed as on the face, plus where it goes."""

    component: Component
    symbols: tuple[tuple[MarkerBox, SymbolKind, int | str], ...]
    """Each symbol's box on the component face, its kind and its tag id or QR payload."""
    where: str


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
    return f"{vert}-{horiz}, {box.x_mm:.1f}/{box.y_mm:.1f} mm from the top-left corner"


def _size(s: Sticker) -> tuple[float, float]:
    _, _, uw, uh = _union([p[0] for p in s.symbols])
    return uw, uh


def fits(s: Sticker, sheet: LabelSheet) -> bool:
    """Whether a sticker's symbols (quiet zones included) fit one label of ``sheet``."""
    uw, uh = _size(s)
    return uw <= sheet.label_w + 1e-9 and uh <= sheet.label_h + 1e-9


def component_stickers(game_id: str, c: Component, sheet: LabelSheet) -> list[Sticker]:
    """One component's stickers for ``sheet``: tag and QR together when they fit one label, anchors alone."""
    rule = game_markers(game_id).rule
    w, h = c.size_mm
    layout = marker_layout(game_id, c)
    parts: list[tuple[MarkerBox, SymbolKind, int | str]] = [(layout.tag, SymbolKind.TAG, c.tag)]
    if layout.qr is not None:
        parts.append((layout.qr, SymbolKind.QR, encode(game_id, c.id)))
    out: list[Sticker] = []
    together = Sticker(c, tuple(parts), "tag " + _corner_words(layout.tag, w, h))
    if fits(together, sheet):
        out.append(together)
    else:
        for part in parts:
            label = "tag" if part[1] is SymbolKind.TAG else "QR"
            out.append(Sticker(c, (part,), f"{label} {_corner_words(part[0], w, h)}"))
    for a in c.anchors:
        box = anchor_box(a.size_mm, a.x_mm, a.y_mm, rule)
        out.append(Sticker(c, ((box, SymbolKind.TAG, a.tag),), f"anchor centred at {a.x_mm:g}/{a.y_mm:g} mm"))
    back = back_layout(game_id, c)
    entry = game_markers(game_id).kinds.get(c.kind)
    if back is not None and entry is not None and entry.back_tag is not None:
        out.append(Sticker(c, ((back, SymbolKind.TAG, entry.back_tag.id),), "on the BACK, " + _corner_words(back, w, h)))
    return out


def _misfit(stickers: Sequence[Sticker], sheet: LabelSheet) -> str | None:
    for s in stickers:
        if not fits(s, sheet):
            uw, uh = _size(s)
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


def sticker_face(s: Sticker, sheet: LabelSheet) -> Face:
    """A label-sized face: the symbols (relative offsets as on the component) and a caption."""
    ux, uy, uw, uh = _union([p[0] for p in s.symbols])
    ox, oy = 0.8 - ux, (sheet.label_h - uh) / 2 - uy
    if uw + 1.6 > sheet.label_w:
        ox = (sheet.label_w - uw) / 2 - ux
    items: list[Item] = []
    blocked = []
    for box, kind, value in s.symbols:
        x, y, side, _ = box.outer
        items.append(Rect(x + ox, y + oy, side, side, fill=WHITE))
        matrix = tag_matrix(value) if isinstance(value, int) else qr_matrix(value)
        items.append(SymbolItem(box.x_mm + ox, box.y_mm + oy, box.module_mm, matrix, kind))
        blocked.append((x + ox, y + oy, side, side))
    c = s.component
    free = largest_free_rect(sheet.label_w, sheet.label_h, blocked, Shape.RECT, margin=0.8)
    items.extend(text_block(free, c.name, [s.where], BLACK, small=c.id))
    return Face(sheet.label_w, sheet.label_h, Shape.RECT, WHITE, tuple(items))


def sticker_pages(stickers: Sequence[Sticker], sheet: LabelSheet, start_label: int) -> Iterator[list[tuple[int, Sticker]]]:
    """Label slots per page; the first page starts at ``start_label`` (1-based)."""
    slot = start_label - 1
    page: list[tuple[int, Sticker]] = []
    for s in stickers:
        if slot == sheet.count:
            yield page
            page, slot = [], 0
        page.append((slot, s))
        slot += 1
    if page:
        yield page


def draw_sticker_page(canvas: Canvas, title: str, page: Sequence[tuple[int, Sticker]], sheet: LabelSheet,
                      number: int) -> None:
    """One label sheet: each sticker on its label, label outlines in light grey for a plain-paper test."""
    paper: Paper = PAPERS[sheet.paper]
    start_page(canvas, paper.h)
    for slot, s in page:
        x, y = sheet.origin(slot)
        draw_face(canvas, sticker_face(s, sheet), x, y, cut_line=True)
    plain_text(canvas, MARGIN_MM, max(4.0, sheet.top / 2 + 1), 2.2,
               f"{title} - stickers - sheet {number} - {sheet.title} - print at 100 % (actual size)")
