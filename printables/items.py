"""The drawing primitives every printed face is made of, in millimetres, and the text
measures that lay them out: shared by the face builders, the game dressing and the art, so
none of them imports another to draw.
"""

from __future__ import annotations

import colorsys
import enum
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from reportlab.pdfbase.pdfmetrics import stringWidth

from scoring.model import Shape

from .symbols import Matrix

PT_PER_MM = 72 / 25.4
BLACK = "#000000"
WHITE = "#ffffff"
FONT = "Helvetica"
FONT_BOLD = "Helvetica-Bold"
#: Smallest printed text (about 4 pt): below this a line is shortened instead.
MIN_TEXT_MM = 1.4
MAX_TEXT_MM = 4.2


class SymbolKind(enum.Enum):
    TAG = "tag"
    QR = "qr"


@dataclass(frozen=True, slots=True)
class Rect:
    """A rectangle; ``fill`` and ``stroke`` are ``#rrggbb`` or None."""

    x: float
    y: float
    w: float
    h: float
    fill: str | None = None
    stroke: str | None = None
    line_mm: float = 0.2


@dataclass(frozen=True, slots=True)
class Poly:
    """A closed convex polygon (a hex board space); ``points`` in face mm, clockwise (y down)."""

    points: tuple[tuple[float, float], ...]
    fill: str | None = None
    stroke: str | None = None
    line_mm: float = 0.2


@dataclass(frozen=True, slots=True)
class Text:
    """One line of text; ``x, y`` is the left end of its baseline, ``size`` the font size in mm."""

    x: float
    y: float
    size: float
    text: str
    colour: str = BLACK
    bold: bool = False
    width: float = 0.0
    """Measured width in mm (Helvetica metrics), so both back ends set the same extent."""


@dataclass(frozen=True, slots=True)
class Symbol:
    """A module matrix drawn dark on light; ``x, y`` is its top-left corner."""

    x: float
    y: float
    module: float
    matrix: Matrix
    kind: SymbolKind


Item = Rect | Poly | Text | Symbol


@dataclass(frozen=True, slots=True)
class Face:
    """Everything printed on one side of one component, upright, in millimetres."""

    w: float
    h: float
    shape: Shape
    background: str
    items: tuple[Item, ...]


# -- small pure functions -------------------------------------------------------------------


def rgb(colour: str) -> tuple[int, int, int]:
    """``#rrggbb`` as integer red, green, blue."""
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def luminance(colour: str) -> float:
    r, g, b = rgb(colour)
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255


def ink_on(colour: str) -> str:
    """Black text on light faces, white on dark ones."""
    return BLACK if luminance(colour) > 0.45 else WHITE


def shade(colour: str, factor: float) -> str:
    """The same hue, darker (factor < 1) or lighter (factor > 1), for backs and bands."""
    r, g, b = (v / 255 for v in rgb(colour))
    h, lum, s = colorsys.rgb_to_hls(r, g, b)
    lum = min(1.0, max(0.0, lum * factor if factor < 1 else lum + (1 - lum) * (factor - 1)))
    r2, g2, b2 = colorsys.hls_to_rgb(h, lum, s)
    return "#{:02x}{:02x}{:02x}".format(round(r2 * 255), round(g2 * 255), round(b2 * 255))


_SUBSTITUTES = {"→": "->", "←": "<-", "≥": ">=", "≤": "<=", "≠": "!=", "✓": "v", "★": "*", "♦": "*"}


def printable_text(text: str) -> str:
    """Text the standard PDF fonts can set (Windows-1252); other characters get ASCII stand-ins."""
    out = []
    for ch in text:
        if ch in _SUBSTITUTES:
            out.append(_SUBSTITUTES[ch])
            continue
        try:
            ch.encode("cp1252")
        except UnicodeEncodeError:
            ascii_ = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
            out.append(ascii_ or "?")
        else:
            out.append(ch if ch.isprintable() else " ")
    return "".join(out)


def text_width(text: str, size_mm: float, bold: bool = False) -> float:
    """Width in mm of ``text`` set in Helvetica at ``size_mm``."""
    return stringWidth(text, FONT_BOLD if bold else FONT, size_mm * PT_PER_MM) / PT_PER_MM


def wrap(text: str, size_mm: float, width_mm: float, bold: bool = False) -> list[str]:
    """Greedy word wrap; a single word longer than the width is cut with an ellipsis."""
    lines: list[str] = []
    current = ""
    for word in text.split():
        trial = f"{current} {word}" if current else word
        if text_width(trial, size_mm, bold) <= width_mm:
            current = trial
            continue
        if current:
            lines.append(current)
        current = word if text_width(word, size_mm, bold) <= width_mm else shorten(word, size_mm, width_mm, bold)
    if current:
        lines.append(current)
    return lines


def shorten(text: str, size_mm: float, width_mm: float, bold: bool = False) -> str:
    """``text`` cut to ``width_mm`` with a trailing ellipsis."""
    if text_width(text, size_mm, bold) <= width_mm:
        return text
    while text and text_width(text + "…", size_mm, bold) > width_mm:
        text = text[:-1]
    return text + "…" if text else ""


def text_block(
    box: tuple[float, float, float, float], title: str, lines: Sequence[str], colour: str, *, small: str = ""
) -> tuple[Text, ...]:
    """The title (bold) and lines set in ``box``, as large as fits, shortened if nothing fits."""
    x, y, w, h = box
    pad = min(1.0, w / 10, h / 10)
    x, y, w, h = x + pad, y + pad, w - 2 * pad, h - 2 * pad
    if w <= 2 or h <= 2:
        return ()
    title = printable_text(title)
    body = [printable_text(s) for s in lines if s.strip()]
    if body and body[0].casefold() == title.casefold():
        body = body[1:]  # catalogs often repeat the name as their first line
    small = printable_text(small)
    size = min(MAX_TEXT_MM, h / 1.25)
    while True:
        rows: list[tuple[str, float, bool]] = []
        title_size = size * 1.2
        while title_size > MIN_TEXT_MM and text_width(title, title_size, True) > w and " " not in title:
            title_size = max(MIN_TEXT_MM, title_size * 0.95)  # one long word: smaller rather than cut
        while title_size > size and text_width(title, title_size, True) > w:
            title_size = max(size, title_size * 0.95)
        for t in wrap(title, title_size, w, True):
            rows.append((t, title_size, True))
        for s in body:
            rows.extend((t, size, False) for t in wrap(s, size, w))
        if small:
            rows.append((shorten(small, size * 0.8, w), size * 0.8, False))
        height = sum(r[1] * 1.2 for r in rows)
        if height <= h or size <= MIN_TEXT_MM:
            break
        size = max(MIN_TEXT_MM, size * 0.92)
    out: list[Text] = []
    cy = y
    for t, s, bold in rows:
        if cy + s * 1.2 > y + h + 1e-6:
            break
        cy += s * 1.2
        out.append(Text(x, cy - 0.25 * s, s, t, colour, bold, text_width(t, s, bold)))
    return tuple(out)
