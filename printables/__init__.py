"""Printables: catalog -> print-ready PDF sheets with a QR code and a fiducial tag on every component.

``build_pdf("habitats")`` is the complete edition (a reference page, then tiles, cards,
tokens and boards) at true size on A4; ``what="stickers"`` prints every marker on label sheets instead. The web app
streams the same bytes with ``iter_pdf``.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterator, Sequence

from reportlab.pdfgen.canvas import Canvas

from scoring.model import Component, UnknownGameError
from scoring.registry import find_game

from .faces import game_title, render_face
from .pdf import draw_face, start_page
from .reference import has_reference, reference_face
from .sheets import PAPERS, Section, SheetStyle, draw_page, layout_pages, section_for, section_of
from .stickers import (
    LABEL_FAMILIES,
    LABEL_LAYOUTS,
    StickerFitError,
    assign_sheets,
    draw_sticker_page,
    pack_stickers,
)

WHAT_CHOICES = ("tiles", "cards", "tokens", "boards", "stickers", "all")
PAPER_CHOICES = ("a4", "letter")
#: Names of the supported label layouts (see ``printables.stickers.LABEL_LAYOUTS``).
LABEL_SHEETS = tuple(LABEL_LAYOUTS)
MAX_BLEED_MM = 5.0
MAX_GUTTER_MM = 10.0
CHUNK_BYTES = 64 * 1024

__all__ = [
    "LABEL_SHEETS",
    "PAPER_CHOICES",
    "WHAT_CHOICES",
    "PrintError",
    "build_pdf",
    "iter_pdf",
    "pdf_for_components",
    "render_face",
    "section_for",
    "section_of",
]


class PrintError(ValueError):
    """A print request with a bad argument (unknown game, paper, label sheet...)."""


def _check_args(
    what: str, paper: str, bleed_mm: float, start_label: int, label_sheet: str | None
) -> tuple[str, ...] | None:
    """Validate the options; in sticker mode return the label sheets to use, smallest labels first."""
    if what not in WHAT_CHOICES:
        raise PrintError(f"what must be one of {', '.join(WHAT_CHOICES)}, got {what!r}")
    if paper not in PAPER_CHOICES:
        raise PrintError(f"paper must be one of {', '.join(PAPER_CHOICES)}, got {paper!r}")
    if isinstance(bleed_mm, bool) or not isinstance(bleed_mm, (int, float)) or not math.isfinite(bleed_mm):
        raise PrintError(f"bleed_mm must be a number, got {bleed_mm!r}")
    if not 0 <= bleed_mm <= MAX_BLEED_MM:
        raise PrintError(f"bleed_mm must be within 0..{MAX_BLEED_MM:g} mm, got {bleed_mm:g}")
    if isinstance(start_label, bool) or not isinstance(start_label, int) or start_label < 1:
        raise PrintError(f"start_label must be a whole number from 1, got {start_label!r}")
    if what != "stickers":
        if label_sheet is not None:
            raise PrintError("label_sheet applies to what='stickers' only")
        if start_label != 1:
            raise PrintError("start_label applies to what='stickers' only")
        return None
    if label_sheet is not None and label_sheet not in LABEL_LAYOUTS:
        raise PrintError(f"label_sheet must be one of {', '.join(LABEL_SHEETS)}, got {label_sheet!r}")
    names = (label_sheet,) if label_sheet is not None else LABEL_FAMILIES[paper]
    # The first layout actually printed depends on the components: checked again once known.
    most = max(LABEL_LAYOUTS[n].count for n in names)
    if start_label > most:
        which = "this label sheet" if label_sheet is not None else f"the {paper} label sheets"
        raise PrintError(f"start_label must be within 1..{most} for {which}, got {start_label}")
    return names


def _style(gutter_mm: float, fold: bool, ink_saver: bool) -> SheetStyle:
    """The sheet options checked: a gutter within 0..MAX_GUTTER_MM, two flags."""
    if isinstance(gutter_mm, bool) or not isinstance(gutter_mm, (int, float)) or not math.isfinite(gutter_mm):
        raise PrintError(f"gutter_mm must be a number, got {gutter_mm!r}")
    if not 0 <= gutter_mm <= MAX_GUTTER_MM:
        raise PrintError(f"gutter_mm must be within 0..{MAX_GUTTER_MM:g} mm, got {gutter_mm:g}")
    for name, flag in (("fold", fold), ("ink_saver", ink_saver)):
        if not isinstance(flag, bool):
            raise PrintError(f"{name} must be true or false, got {flag!r}")
    return SheetStyle(float(gutter_mm), fold, ink_saver)


def _sections(what: str) -> tuple[Section, ...]:
    if what == "all":
        return tuple(Section)
    return (Section(what),)


def pdf_for_components(
    game_id: str,
    components: Sequence[Component],
    *,
    what: str = "all",
    paper: str = "a4",
    bleed_mm: float = 0.0,
    start_label: int = 1,
    label_sheet: str | None = None,
    gutter_mm: float = 0.0,
    fold: bool = False,
    ink_saver: bool = False,
    reference: bool = False,
) -> bytes:
    """The PDF for an explicit component list (``build_pdf`` passes the game's whole catalog).

    ``reference`` opens a ``what="all"`` print with the game's reference page.
    """
    sheet_names = _check_args(what, paper, bleed_mm, start_label, label_sheet)
    style = _style(gutter_mm, fold, ink_saver)
    title = game_title(game_id)
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=(1, 1), invariant=True, pageCompression=1)
    canvas.setTitle(f"{title} - {what}")
    canvas.setCreator("table companion printables")
    if sheet_names is not None:
        try:
            groups = assign_sheets(game_id, components, sheet_names)
        except StickerFitError as exc:
            hint = "choose a larger label_sheet" if label_sheet is not None else "no label of this paper holds it"
            raise PrintError(f"{exc}; {hint}") from exc
        if groups and start_label > groups[0][0].count:
            first = groups[0][0]
            raise PrintError(
                f"start_label must be within 1..{first.count} for {first.title} (the first label sheet),"
                f" got {start_label}"
            )
        number = 0
        for i, (sheet, stickers) in enumerate(groups):
            paper_def = PAPERS[sheet.paper]
            for page in pack_stickers(stickers, sheet, start_label if i == 0 else 1):
                number += 1
                canvas.setPageSize((paper_def.w * 72 / 25.4, paper_def.h * 72 / 25.4))
                draw_sticker_page(canvas, title, page, sheet, number)
                canvas.showPage()
        if not groups:
            paper_def = PAPERS[LABEL_LAYOUTS[sheet_names[0]].paper]
            canvas.setPageSize((paper_def.w * 72 / 25.4, paper_def.h * 72 / 25.4))
            canvas.setFont("Helvetica", 12)
            canvas.drawString(50, paper_def.h * 72 / 25.4 - 60, f"{title}: no components to print stickers for.")
            canvas.showPage()
    else:
        paper_def = PAPERS[paper]
        pages = layout_pages(game_id, components, _sections(what), paper_def, float(bleed_mm), style)
        first = 1
        if reference and what == "all" and pages and has_reference(game_id):
            canvas.setPageSize((paper_def.w * 72 / 25.4, paper_def.h * 72 / 25.4))
            start_page(canvas, paper_def.h)
            draw_face(canvas, reference_face(game_id, paper_def), 0.0, 0.0, cut_line=False)
            canvas.showPage()
            first = 2
        for number, page in enumerate(pages, start=first):
            canvas.setPageSize((paper_def.w * 72 / 25.4, paper_def.h * 72 / 25.4))
            draw_page(canvas, game_id, page, paper_def, float(bleed_mm), number, style)
            canvas.showPage()
        if not pages:
            canvas.setPageSize((paper_def.w * 72 / 25.4, paper_def.h * 72 / 25.4))
            canvas.setFont("Helvetica", 12)
            canvas.drawString(50, paper_def.h * 72 / 25.4 - 60, f"{title}: no {what} in this edition.")
            canvas.showPage()
    canvas.save()
    return out.getvalue()


def _game_id(game: str) -> str:
    try:
        return find_game(game).id
    except UnknownGameError as exc:
        raise PrintError(str(exc)) from exc


def build_pdf(
    game_id: str,
    *,
    what: str = "all",
    paper: str = "a4",
    bleed_mm: float = 0.0,
    start_label: int = 1,
    label_sheet: str | None = None,
    gutter_mm: float = 0.0,
    fold: bool = False,
    ink_saver: bool = False,
) -> bytes:
    """The print-ready PDF of a game's edition (``what="all"``: every tile, card, token and board).

    Cards and other same-size rectangles come in grids with shared cut lines (``gutter_mm``
    spaces them); ``fold`` prints two-sided faces as fold-and-glue pairs instead of duplex
    back pages; ``ink_saver`` prints white faces with coloured bands.
    """
    _check_args(what, paper, bleed_mm, start_label, label_sheet)
    _style(gutter_mm, fold, ink_saver)
    gid = _game_id(game_id)
    components = find_game(gid).components()
    return pdf_for_components(
        gid, components, what=what, paper=paper, bleed_mm=bleed_mm, start_label=start_label, label_sheet=label_sheet,
        gutter_mm=gutter_mm, fold=fold, ink_saver=ink_saver, reference=True,
    )


def iter_pdf(
    game_id: str,
    *,
    what: str = "all",
    paper: str = "a4",
    bleed_mm: float = 0.0,
    start_label: int = 1,
    label_sheet: str | None = None,
    gutter_mm: float = 0.0,
    fold: bool = False,
    ink_saver: bool = False,
) -> Iterator[bytes]:
    """The same PDF as ``build_pdf`` in chunks for streaming; bad arguments raise before the first chunk."""
    _check_args(what, paper, bleed_mm, start_label, label_sheet)
    _style(gutter_mm, fold, ink_saver)
    gid = _game_id(game_id)

    def chunks() -> Iterator[bytes]:
        data = build_pdf(
            gid, what=what, paper=paper, bleed_mm=bleed_mm, start_label=start_label, label_sheet=label_sheet,
            gutter_mm=gutter_mm, fold=fold, ink_saver=ink_saver,
        )
        for i in range(0, len(data), CHUNK_BYTES):
            yield data[i : i + CHUNK_BYTES]

    return chunks()
