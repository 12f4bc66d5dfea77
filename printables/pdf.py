"""The vector back end: draws Face descriptions, cut marks and page furniture with reportlab.

The canvas is switched to millimetres with y pointing down, the frame of the catalogs,
so every coordinate here is the one the face description holds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from reportlab.pdfgen.canvas import Canvas

from scoring.markers import outline_polygon
from scoring.model import Shape

from .faces import FONT, FONT_BOLD, PT_PER_MM, Face, Poly, Rect, Symbol, Text, rgb, text_width
from .symbols import dark_runs

CUT_GREY = "#8c8c8c"
HAIRLINE_MM = 0.12


def start_page(canvas: Canvas, page_h_mm: float) -> None:
    """Put the canvas in millimetres, origin at the page's top-left, y down."""
    canvas.translate(0, page_h_mm * PT_PER_MM)
    canvas.scale(PT_PER_MM, -PT_PER_MM)


def _fill(canvas: Canvas, colour: str) -> None:
    r, g, b = rgb(colour)
    canvas.setFillColorRGB(r / 255, g / 255, b / 255)


def _stroke(canvas: Canvas, colour: str, line_mm: float) -> None:
    r, g, b = rgb(colour)
    canvas.setStrokeColorRGB(r / 255, g / 255, b / 255)
    canvas.setLineWidth(line_mm)


def offset_polygon(poly: Sequence[tuple[float, float]], d: float) -> list[tuple[float, float]]:
    """A convex polygon (clockwise in y-down) grown outward by ``d`` on every edge."""
    n = len(poly)
    normals = []
    for i in range(n):
        (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % n]
        ex, ey = x2 - x1, y2 - y1
        length = math.hypot(ex, ey)
        normals.append((ey / length, -ex / length))
    out = []
    for i in range(n):
        (ax, ay), (bx, by) = normals[i - 1], normals[i]
        k = d / (1 + ax * bx + ay * by)
        out.append((poly[i][0] + (ax + bx) * k, poly[i][1] + (ay + by) * k))
    return out


def outline_path(canvas: Canvas, face: Face, x: float, y: float, grow: float = 0.0):  # noqa: ANN201
    """The face outline at ``(x, y)`` grown by ``grow`` mm, as a reportlab path."""
    p = canvas.beginPath()
    w, h = face.w, face.h
    if face.shape is Shape.ROUND:
        p.ellipse(x - grow, y - grow, w + 2 * grow, h + 2 * grow)
        return p
    poly = outline_polygon(face.shape, w, h)
    if poly is None:
        p.rect(x - grow, y - grow, w + 2 * grow, h + 2 * grow)
        return p
    pts = offset_polygon(poly, grow) if grow else list(poly)
    p.moveTo(x + pts[0][0], y + pts[0][1])
    for px, py in pts[1:]:
        p.lineTo(x + px, y + py)
    p.close()
    return p


def draw_face(canvas: Canvas, face: Face, x: float, y: float, *, bleed: float = 0.0, cut_line: bool = True) -> None:
    """Draw ``face`` with its top-left corner at ``(x, y)`` mm; the background runs ``bleed`` past the trim."""
    _fill(canvas, face.background)
    canvas.drawPath(outline_path(canvas, face, x, y, bleed), fill=1, stroke=0)
    canvas.saveState()
    if face.shape is not Shape.RECT:  # quiet zones and text stay inside a round or hex outline
        canvas.clipPath(outline_path(canvas, face, x, y, bleed), stroke=0, fill=0)
    for item in face.items:
        if isinstance(item, Rect):
            p = canvas.beginPath()
            p.rect(x + item.x, y + item.y, item.w, item.h)
            if item.fill is not None:
                _fill(canvas, item.fill)
            if item.stroke is not None:
                _stroke(canvas, item.stroke, item.line_mm)
            canvas.drawPath(p, fill=int(item.fill is not None), stroke=int(item.stroke is not None))
        elif isinstance(item, Poly):
            draw_poly(canvas, item, x, y)
        elif isinstance(item, Symbol):
            draw_symbol(canvas, item, x, y)
        else:
            draw_text(canvas, item, x, y)
    canvas.restoreState()
    if cut_line:
        _stroke(canvas, CUT_GREY, HAIRLINE_MM)
        canvas.drawPath(outline_path(canvas, face, x, y), fill=0, stroke=1)


def draw_poly(canvas: Canvas, poly: Poly, x: float, y: float) -> None:
    """A filled and/or stroked closed polygon (hex board spaces)."""
    p = canvas.beginPath()
    (x0, y0), *rest = poly.points
    p.moveTo(x + x0, y + y0)
    for px, py in rest:
        p.lineTo(x + px, y + py)
    p.close()
    if poly.fill is not None:
        _fill(canvas, poly.fill)
    if poly.stroke is not None:
        _stroke(canvas, poly.stroke, poly.line_mm)
    canvas.drawPath(p, fill=int(poly.fill is not None), stroke=int(poly.stroke is not None))


def draw_symbol(canvas: Canvas, s: Symbol, x: float, y: float) -> None:
    """All dark modules as one filled vector path (no seams between neighbouring modules).

    The ``re`` operators are written directly: reportlab's per-number formatting made
    symbols the slowest part of a sheet, and a module grid needs nothing else.
    """
    m = s.module
    x0, y0 = x + s.x, y + s.y
    ops = [f"{x0 + col * m:.4f} {y0 + row * m:.4f} {run * m:.4f} {m:.4f} re" for row, col, run in dark_runs(s.matrix)]
    canvas.setFillColorRGB(0, 0, 0)
    canvas._code.append("\n".join(ops) + " f")  # noqa: SLF001 - raw path operators, see docstring


def draw_text(canvas: Canvas, t: Text, x: float, y: float) -> None:
    """Text upright on the y-down canvas (flip locally around the baseline)."""
    _fill(canvas, t.colour)
    canvas.saveState()
    canvas.translate(x + t.x, y + t.y)
    canvas.scale(1, -1)
    canvas.setFont(FONT_BOLD if t.bold else FONT, t.size)
    canvas.drawString(0, 0, t.text)
    canvas.restoreState()


def plain_text(canvas: Canvas, x: float, y: float, size: float, text: str, *, bold: bool = False,
               colour: str = "#000000", knockout: bool = False) -> None:
    """Page furniture text (footers, captions) at baseline ``(x, y)``; ``knockout`` clears crop marks behind it."""
    if knockout:
        _fill(canvas, "#ffffff")
        canvas.rect(x - 0.8, y - size * 0.85, text_width(text, size, bold) + 1.6, size * 1.1, stroke=0, fill=1)
    draw_text(canvas, Text(x, y, size, text, colour, bold), 0.0, 0.0)


def grid_marks(canvas: Canvas, xs: Sequence[float], ys: Sequence[float], box: tuple[float, float, float, float],
               page: tuple[float, float], *, bleed: float) -> None:
    """Full-length crop marks of a grid: every cut line drawn from the grid's edge to the page's edge.

    They stay visible on the offcut strips after the first cuts, so every later cut has its line.
    """
    x0, y0, x1, y1 = box
    gap = bleed + 0.8
    _stroke(canvas, "#000000", HAIRLINE_MM * 1.5)
    p = canvas.beginPath()
    for x in xs:
        p.moveTo(x, 0.0)
        p.lineTo(x, y0 - gap)
        p.moveTo(x, y1 + gap)
        p.lineTo(x, page[1])
    for y in ys:
        p.moveTo(0.0, y)
        p.lineTo(x0 - gap, y)
        p.moveTo(x1 + gap, y)
        p.lineTo(page[0], y)
    canvas.drawPath(p, fill=0, stroke=1)


def fold_line(canvas: Canvas, x0: float, x1: float, y: float) -> None:
    """A dashed fold line across a fold-and-glue pair, with a short solid tick past each end."""
    _stroke(canvas, "#555555", HAIRLINE_MM * 2)
    canvas.saveState()
    canvas.setDash(1.5, 1.0)
    canvas.line(x0, y, x1, y)
    canvas.restoreState()
    canvas.line(x0 - 4.0, y, x0 - 1.0, y)
    canvas.line(x1 + 1.0, y, x1 + 4.0, y)


def cut_marks(canvas: Canvas, x: float, y: float, w: float, h: float, *, bleed: float, length: float) -> None:
    """Short lines continuing the trim edges outside each corner, clear of the bleed."""
    _stroke(canvas, "#000000", HAIRLINE_MM * 1.5)
    gap = bleed + 0.5
    p = canvas.beginPath()
    for cx, sx in ((x, -1), (x + w, 1)):
        for cy, sy in ((y, -1), (y + h, 1)):
            p.moveTo(cx + sx * gap, cy)
            p.lineTo(cx + sx * (gap + length), cy)
            p.moveTo(cx, cy + sy * gap)
            p.lineTo(cx, cy + sy * (gap + length))
    canvas.drawPath(p, fill=0, stroke=1)


def scale_bar(canvas: Canvas, x: float, y: float) -> None:
    """A 50 mm bar with 10 mm ticks: measure it to check the sheet was printed at 100 %."""
    _stroke(canvas, "#000000", 0.25)
    p = canvas.beginPath()
    p.moveTo(x, y)
    p.lineTo(x + 50, y)
    for i in range(6):
        p.moveTo(x + 10 * i, y)
        p.lineTo(x + 10 * i, y - (1.6 if i % 5 == 0 else 1.0))
    canvas.drawPath(p, fill=0, stroke=1)
    plain_text(canvas, x + 51.5, y, 2.2, "50 mm: check with a ruler")
