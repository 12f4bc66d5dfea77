"""One description of every printed face, drawn by the PDF back end and by the raster back end.

A ``Face`` is a list of primitives in millimetres on the upright face (origin top-left,
y down, as in the catalogs): filled or stroked rectangles and polygons (hex board spaces),
text lines, and symbol module matrices (the QR code and the AprilTag). The PDF draws them as vectors; ``render_face``
paints the same primitives into a BGR image with every module on exact pixel bounds, so
the vision scene renderer can paste faces into synthetic table photos.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping
from functools import lru_cache

import cv2
import numpy as np

from scoring.markers import MarkerBox, anchor_box, back_tag_box, game_markers, marker_layout, outline_polygon
from scoring.model import Component, Shape, Space, UnknownGameError
from scoring.payload import encode
from scoring.registry import find_game

from .geometry import Outline, boxes_touch_outline, largest_free_rect, space_outline  # noqa: F401 - re-exported
from .symbols import Matrix, qr_matrix, tag_matrix

from .items import (  # noqa: F401 - the primitives are part of this module's interface
    BLACK,
    FONT,
    FONT_BOLD,
    Face,
    Item,
    MAX_TEXT_MM,
    MIN_TEXT_MM,
    PT_PER_MM,
    Poly,
    Rect,
    Symbol,
    SymbolKind,
    Text,
    WHITE,
    _SUBSTITUTES,
    ink_on,
    luminance,
    printable_text,
    rgb,
    shade,
    shorten,
    text_block,
    text_width,
    wrap,
)


# -- faces ---------------------------------------------------------------------------------


def _symbol_items(box: MarkerBox, matrix: Matrix, kind: SymbolKind) -> tuple[Item, ...]:
    x, y, w, _ = box.outer
    return (Rect(x, y, w, w, fill=WHITE), Symbol(box.x_mm, box.y_mm, box.module_mm, matrix, kind))


def game_title(game_id: str) -> str:
    """The game's display name for backs and page headers."""
    try:
        return find_game(game_id).name
    except (UnknownGameError, ImportError, AttributeError, TypeError):
        # A game whose module is missing or incomplete still gets a readable back.
        return game_id.capitalize()


def front_face(game_id: str, c: Component) -> Face:
    """A component's printed front: colour, markers, board spaces, pictures, values and the text a player needs."""
    from .dress import decor_of, dressed_block  # dress reads the game catalogs and draws with this module's primitives

    decor = decor_of(game_id, c)
    w, h = c.size_mm
    layout = marker_layout(game_id, c)
    ink = ink_on(c.colour)
    items: list[Item] = list(decor.underlay)
    blocked: list[tuple[float, float, float, float]] = list(decor.blocked)
    outlines: list[Outline] = []
    labels: list[Item] = []
    for space in c.spaces:  # every outline first, then every name: overlapping spaces hide no name
        outline, *label = space_items(space, c.colour, ink)
        items.append(outline)
        labels.extend(label)
        outlines.append(space_outline(space))
    items.extend(labels)
    rule = game_markers(game_id).rule
    for a in c.anchors:
        box = anchor_box(a.size_mm, a.x_mm, a.y_mm, rule)
        items.extend(_symbol_items(box, tag_matrix(a.tag), SymbolKind.TAG))
        blocked.append(box.outer)
    items.extend(_symbol_items(layout.tag, tag_matrix(c.tag), SymbolKind.TAG))
    blocked.append(layout.tag.outer)
    if layout.qr is not None:
        items.extend(_symbol_items(layout.qr, qr_matrix(encode(game_id, c.id)), SymbolKind.QR))
        blocked.append(layout.qr.outer)
    items.extend(decor.fixed)
    title = c.name if decor.title is None else decor.title
    free = largest_free_rect(w, h, blocked, c.shape, margin=0.6, outlines=outlines)
    if outlines:  # a board: its name in one wide band rather than a narrow column beside the spaces
        wide = largest_free_rect(w, h, blocked, c.shape, margin=0.6, outlines=outlines,
                                 min_w=min(0.5 * w, text_width(title, 4.2, True) + 4), min_h=12.0)
        free = wide if wide[3] >= 12 else free
    lines = c.lines if decor.lines is None else decor.lines
    items.extend(dressed_block(free, (title, lines, c.id), decor.value, decor.icons, ink))
    return Face(w, h, c.shape, c.colour, tuple(items))


def space_items(space: Space, colour: str, ink: str) -> tuple[Item, ...]:
    """A board space: its outline (rectangle, hexagon or ellipse) filled a lighter shade, and its name.

    The name sits at the top of the space: left-aligned in a rectangle, centred under the
    top edge of a hexagon or ellipse, whose top corners are outside the outline.
    """
    sx, sy, sw, sh = space.x_mm - space.w_mm / 2, space.y_mm - space.h_mm / 2, space.w_mm, space.h_mm
    fill = shade(colour, 1.25)
    label_size = min(3.0, max(1.6, sh / 6))
    if space.shape is Shape.RECT:
        outline: Item = Rect(sx, sy, sw, sh, fill=fill, stroke=ink, line_mm=0.3)
        name = shorten(printable_text(space.name), label_size, sw - 1)
        x = sx + 0.6
    else:
        outline = Poly(space_outline(space), fill=fill, stroke=ink, line_mm=0.3)
        # hexagon: the top edge is w/2 long; ellipse: 0.15 h down it is 0.71 w wide
        room = sw / 2 - 1.2 if space.shape is Shape.HEX else 0.6 * sw - 1.2
        name = shorten(printable_text(space.name), label_size, max(room, 0.0))
        x = space.x_mm - text_width(name, label_size) / 2
    top = {Shape.RECT: 0.6, Shape.HEX: 0.9}.get(space.shape, 0.15 * sh)
    label = Text(x, sy + top + label_size, label_size, name, BLACK, False, text_width(name, label_size))
    return (outline, label) if name else (outline,)


#: The back of a deck whose cards differ in colour: one neutral colour per game, so a
#: face-down stack tells nothing about what lies under it.
NEUTRAL_BACK = "#33473a"


@lru_cache(maxsize=64)
def _deck_colours(game_id: str) -> Mapping[str, str]:
    """``back text -> colour`` for decks whose every card shares one face colour.

    A deck is every component printing the same back text, whatever its kind (PHYLO shuffles
    species and event cards into one deck).

    Such a deck is a pile the rules keep apart by colour anyway (Rainforest's coloured
    piles, Biomos's basic and giant biome decks), so its back may show that colour; every
    other deck gets ``NEUTRAL_BACK``.
    """
    try:
        components = find_game(game_id).components()
    except (UnknownGameError, ImportError, AttributeError, TypeError):
        return {}
    colours: dict[str, set[str]] = {}
    for c in components:
        if c.back is not None:
            colours.setdefault(c.back, set()).add(c.colour.lower())
    return {deck: next(iter(cs)) for deck, cs in colours.items() if len(cs) == 1}


def back_colour(game_id: str, c: Component) -> str:
    """The colour of every back of ``c``'s deck (the same for each card of the deck)."""
    return shade(_deck_colours(game_id).get(c.back or "", NEUTRAL_BACK), 0.55)


def back_face(game_id: str, c: Component) -> Face:
    """A card's back: the game's name and the back text, and the kind's back tag.

    A back depends only on the game, the kind, the size and the back text: never on the
    card's own colour, name or tag, because a face-down card is hidden information. The back
    tag (``back_tag`` in markers.toml) is the same on every back of the kind, so the scanner
    sees "a face-down card" without learning which one.
    """
    w, h = c.size_mm
    colour = back_colour(game_id, c)
    ink = ink_on(colour)
    inset = min(w, h) * 0.08
    items: list[Item] = [Rect(inset, inset, w - 2 * inset, h - 2 * inset, stroke=ink, line_mm=0.5)]
    box = (inset * 1.5, h / 2 - h / 6, w - 3 * inset, h / 3)
    markers = game_markers(game_id)
    tag = back_tag_box(markers, c)
    if tag is not None:
        entry = markers.kinds[c.kind].back_tag
        assert entry is not None
        items.extend(_symbol_items(tag, tag_matrix(entry.id), SymbolKind.TAG))
        # The text beside the tag, inside the frame: the largest free rectangle of the back.
        fx, fy, fw, fh = largest_free_rect(w, h, [tag.outer], c.shape, margin=inset * 1.5)
        box = (fx, max(fy, h / 2 - h / 6), fw, min(fh, h / 3))
    for t in text_block(box, game_title(game_id), [c.back or ""], ink):
        items.append(Text(box[0] + (box[2] - t.width) / 2, t.y, t.size, t.text, t.colour, t.bold, t.width))
    return Face(w, h, c.shape, colour, tuple(items))


def ink_saving(face: Face, colour: str) -> Face:
    """The face on white paper: the background colour becomes a band inside the trim, text turns black.

    Markers keep their black on white; board spaces keep their light fill, which costs little ink.
    """
    band = 1.6
    items: list[Item] = []
    for item in face.items:
        if isinstance(item, Text) and item.colour == WHITE:
            item = Text(item.x, item.y, item.size, item.text, BLACK, item.bold, item.width)
        elif isinstance(item, Rect) and item.stroke == WHITE:
            item = Rect(item.x, item.y, item.w, item.h, item.fill, BLACK, item.line_mm)
        items.append(item)
    if face.shape is Shape.RECT:
        frame: Item = Rect(band / 2, band / 2, face.w - band, face.h - band, stroke=colour, line_mm=band)
    else:
        frame = Poly(_outline_points(face), stroke=colour, line_mm=2 * band)
    return Face(face.w, face.h, face.shape, WHITE, (frame, *items))


def _outline_points(face: Face) -> Outline:
    if face.shape is Shape.ROUND:
        return tuple(
            (face.w / 2 * (1 + math.cos(2 * math.pi * i / 48)), face.h / 2 * (1 + math.sin(2 * math.pi * i / 48)))
            for i in range(48)
        )
    return tuple(outline_polygon(face.shape, face.w, face.h) or ())


@lru_cache(maxsize=4096)
def face_of(game_id: str, component: Component, back: bool = False, ink_saver: bool = False) -> Face:
    """The face description (cached: the printer and the scene renderer ask many times)."""
    if back:
        if component.back is None:
            from .dress import picture_face

            picture = picture_face(game_id, component)
            if picture is not None:
                return ink_saving(picture, picture.background) if ink_saver else picture
        face = back_face(game_id, component)
        return ink_saving(face, face.background) if ink_saver else face
    face = front_face(game_id, component)
    return ink_saving(face, component.colour) if ink_saver else face


@lru_cache(maxsize=16)
def _index(game_id: str) -> Mapping[str, Component]:
    return {c.id: c for c in find_game(game_id).components()}


def component_of(game_id: str, component_id: str) -> Component:
    """A registered game's component by id (KeyError names it when absent)."""
    index = _index(game_id)
    if component_id not in index:
        raise KeyError(f"{game_id} has no component {component_id!r}")
    return index[component_id]


# -- raster back end -----------------------------------------------------------------------


def _bgr(colour: str) -> tuple[int, int, int]:
    r, g, b = rgb(colour)
    return (b, g, r)


def _px(v: float, ppm: float) -> int:
    return int(round(v * ppm))


def face_mask(face: Face, ppm: float) -> np.ndarray:
    """255 inside the face outline, 0 outside (round and hex faces leave corners out)."""
    hpx, wpx = max(1, _px(face.h, ppm)), max(1, _px(face.w, ppm))
    mask = np.zeros((hpx, wpx), dtype=np.uint8)
    if face.shape is Shape.ROUND:
        cv2.ellipse(mask, ((wpx / 2, hpx / 2), (wpx, hpx), 0), 255, -1, cv2.LINE_8)
        return mask
    poly = outline_polygon(face.shape, face.w, face.h)
    if poly is None:
        mask[:] = 255
        return mask
    pts = np.array([[x * ppm, y * ppm] for x, y in poly], dtype=np.float64)
    cv2.fillPoly(mask, [np.round(pts).astype(np.int32)], 255)
    return mask


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text.replace("…", "...")).encode("ascii", "replace").decode()


def rasterise(face: Face, ppm: float) -> np.ndarray:
    """Paint a face into an H x W x 3 BGR image; symbol modules land on exact pixel bounds."""
    hpx, wpx = max(1, _px(face.h, ppm)), max(1, _px(face.w, ppm))
    img = np.full((hpx, wpx, 3), 255, dtype=np.uint8)
    mask = face_mask(face, ppm)
    img[mask > 0] = _bgr(face.background)
    for item in face.items:
        if isinstance(item, Rect):
            x0, y0 = _px(item.x, ppm), _px(item.y, ppm)
            x1, y1 = _px(item.x + item.w, ppm), _px(item.y + item.h, ppm)
            if item.fill is not None:
                img[max(0, y0):max(0, y1), max(0, x0):max(0, x1)] = _bgr(item.fill)
            if item.stroke is not None:
                t = max(1, _px(item.line_mm, ppm))
                cv2.rectangle(img, (x0, y0), (x1 - 1, y1 - 1), _bgr(item.stroke), t)
        elif isinstance(item, Poly):
            _paint_poly(img, item, ppm)
        elif isinstance(item, Symbol):
            _paint_symbol(img, item, ppm)
        else:
            _paint_text(img, item, ppm)
    if face.shape is not Shape.RECT:
        img[mask == 0] = 255  # paper outside the cut line, as on the printed sheet
    return img


_SHIFT = 4  # cv2 fixed-point bits: polygon corners to 1/16 pixel


def _paint_poly(img: np.ndarray, p: Poly, ppm: float) -> None:
    """Fill and stroke a polygon; pixel (i, j) covers [i, i + 1) like the rectangles, so corners sit 0.5 px in."""
    pts = np.array([[x * ppm - 0.5, y * ppm - 0.5] for x, y in p.points], dtype=np.float64)
    fixed = np.round(pts * (1 << _SHIFT)).astype(np.int32)
    if p.fill is not None:
        cv2.fillPoly(img, [fixed], _bgr(p.fill), cv2.LINE_8, _SHIFT)
    if p.stroke is not None:
        t = max(1, _px(p.line_mm, ppm))
        cv2.polylines(img, [fixed], True, _bgr(p.stroke), t, cv2.LINE_8, _SHIFT)


def _paint_symbol(img: np.ndarray, s: Symbol, ppm: float) -> None:
    n = len(s.matrix)
    edges_x = [_px(s.x + i * s.module, ppm) for i in range(n + 1)]
    edges_y = [_px(s.y + i * s.module, ppm) for i in range(n + 1)]
    for r, row in enumerate(s.matrix):
        for c, dark in enumerate(row):
            img[edges_y[r]:edges_y[r + 1], edges_x[c]:edges_x[c + 1]] = 0 if dark else 255


def _paint_text(img: np.ndarray, t: Text, ppm: float) -> None:
    text = _ascii(t.text)
    height_px = t.size * 0.72 * ppm  # cap height of Helvetica
    if height_px < 3 or not text.strip():
        return
    font = cv2.FONT_HERSHEY_SIMPLEX
    thickness = max(1, int(round(height_px / (7 if t.bold else 11))))
    (tw, th), _ = cv2.getTextSize(text, font, 1.0, thickness)
    scale = height_px / max(th, 1)
    if t.width > 0 and tw * scale > t.width * ppm:
        scale = t.width * ppm / tw
    cv2.putText(img, text, (_px(t.x, ppm), _px(t.y, ppm)), font, scale, _bgr(t.colour), thickness, cv2.LINE_AA)


@lru_cache(maxsize=2048)
def _render_cached(game_id: str, component: Component, ppm: float, back: bool) -> np.ndarray:
    img = rasterise(face_of(game_id, component, back), ppm)
    img.flags.writeable = False
    return img


def render_component(game_id: str, component: Component, *, px_per_mm: float = 8.0, back: bool = False) -> np.ndarray:
    """``render_face`` for a Component value (catalog or not); the array is cached and read-only."""
    if not (math.isfinite(px_per_mm) and 0.5 <= px_per_mm <= 64):
        raise ValueError(f"px_per_mm must be within 0.5..64, got {px_per_mm}")
    return _render_cached(game_id, component, float(px_per_mm), back)


def render_face(game_id: str, component_id: str, *, px_per_mm: float = 8.0, back: bool = False) -> np.ndarray:
    """The whole face (markers included) as an H x W x 3 uint8 BGR image, upright.

    H = round(height_mm * px_per_mm) and W likewise; outside a round or hex outline the
    image is white paper (``render_mask`` gives the outline). The result is cached per
    component and scale and is read-only: copy it before drawing on it.
    """
    return render_component(game_id, component_of(game_id, component_id), px_per_mm=px_per_mm, back=back)


def render_mask(game_id: str, component_id: str, *, px_per_mm: float = 8.0) -> np.ndarray:
    """H x W uint8 mask of the face outline matching ``render_face`` (255 inside)."""
    c = component_of(game_id, component_id)
    return face_mask(face_of(game_id, c), float(px_per_mm))
