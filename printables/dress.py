"""What each game's faces show besides markers and text: pictures, values, colour words, picture sides.

A ``Decor`` is read from the game's own catalog (``scoring.<game>.catalog``), never guessed
from printed text, so a face and the rules always agree. ``faces.front_face`` lays it out.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from scoring.markers import outline_polygon
from scoring.model import Component, Shape

from .art import badge
from .items import (
    BLACK,
    MIN_TEXT_MM,
    Face,
    Item,
    Poly,
    Text,
    ink_on,
    printable_text,
    shade,
    shorten,
    text_block,
    text_width,
    wrap,
)

Box = tuple[float, float, float, float]
#: A pictured thing: icon name, its colour, and the word printed with it.
Pictured = tuple[str, str, str]


@dataclass(frozen=True, slots=True)
class Decor:
    """A face's pictures and values, beyond its markers, name and text lines."""

    value: str = ""
    """The number a player needs most (points), printed large."""
    icons: tuple[Pictured, ...] = ()
    """Pictures in a row with their words (a pattern, a habitat, a demand)."""
    underlay: tuple[Item, ...] = ()
    """Drawn on the background before anything else (the second colour of a two-colour tile)."""
    fixed: tuple[Item, ...] = ()
    """Art placed at its own spot (edge plants, slot pictures, words round a token's tag)."""
    blocked: tuple[Box, ...] = ()
    """Boxes of the fixed art, kept clear of the text."""
    picture: Pictured | None = None
    """The picture side of a one-sided piece: its icon, colour and name, printed large."""
    words: tuple[str, ...] = ()
    """Words for the picture side under the name (colour, size)."""
    lines: tuple[str, ...] | None = None
    """The text lines in place of the catalog's (None: the catalog's), when pictures say the rest."""
    title: str | None = None
    """The printed name in place of the component's (None: its name)."""


NO_DECOR = Decor()


def rim_text(w: float, h: float, top: str, bottom: str, ink: str, size: float, quiet: Box) -> tuple[Item, ...]:
    """Words in the free bands above and below a round token's quiet zone, each as large as fits (up to ``size``)."""
    r = w / 2
    out: list[Item] = []
    qx, qy, qw, qh = quiet
    for text, band_top, band_bottom in ((top, 0.0, qy), (bottom, qy + qh, h)):
        text = printable_text(text)
        if not text:
            continue
        s = min(size, (band_bottom - band_top) / 0.95)
        while s >= 1.2:
            cap = 0.72 * s
            base = band_top + (band_bottom - band_top + cap) / 2 if band_top == 0 else band_top + cap + 0.25
            edge = base - cap if band_top == 0 else base
            half = math.sqrt(max(0.0, r * r - (r - edge) ** 2)) if band_top == 0 else math.sqrt(
                max(0.0, r * r - (edge - r) ** 2))
            if text_width(text, s, True) <= 2 * half - 1.0:
                tw = text_width(text, s, True)
                out.append(Text(w / 2 - tw / 2, base, s, text, ink, True, tw))
                break
            s *= 0.9
    return tuple(out)


def _quiet_of(game_id: str, c: Component) -> Box:
    from scoring.markers import marker_layout

    return marker_layout(game_id, c).tag.outer


# -- Rainforest --------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _rainforest() -> Any:
    from scoring.rainforest.catalog import load_catalog

    return load_catalog()


def _rainforest_decor(game_id: str, c: Component) -> Decor:
    cat = _rainforest()
    colours = cat.hex_colours
    if c.id in cat.tokens:
        t = cat.tokens[c.id]
        words = (t.species.value.capitalize(), t.colour.value.capitalize())
        rim = rim_text(*c.size_mm, words[0], words[1], ink_on(c.colour), 2.2, _quiet_of(game_id, c))
        return Decor(fixed=rim, picture=(t.species.value, colours[t.colour], words[0]), words=(f"{words[1]} token",))
    if c.id in cat.tiles:
        return _rainforest_tile(cat, c)
    if c.id in cat.protected_areas:
        pa = cat.protected_areas[c.id]
        colour = pa.colour.value.capitalize()
        rim = rim_text(*c.size_mm, f"{pa.size} tiles", f"{colour} x{pa.multiplier}", ink_on(c.colour), VALUE_MM,
                       _quiet_of(game_id, c))
        return Decor(fixed=rim, picture=("protected", colours[pa.colour], f"Protected area: {pa.size} tiles"),
                     words=(f"{colour} group of {pa.size} tiles", f"one tile scores x{pa.multiplier}"))
    if c.id in cat.diversity_tokens:
        rim = rim_text(*c.size_mm, "Diversity", f"+{cat.points_per_later_tile}", ink_on(c.colour), VALUE_MM,
                       _quiet_of(game_id, c))
        return Decor(fixed=rim, picture=("score", "#7a6a2e", "Diversity token"),
                     words=(f"+{cat.points_per_later_tile} per later tile",))
    board = cat.boards.get(c.id)
    if board is not None:
        totem = board.totem.value
        return Decor(icons=((totem, "#5a5a5a", f"Totem: {totem}"),))
    if c.id == cat.binoculars.id:
        w, h = c.size_mm
        x0 = _quiet_of(game_id, c)[0] + _quiet_of(game_id, c)[2]
        r = min((w - x0) / 2 - 0.6, 4.5)
        art = badge("binoculars", (x0 + w) / 2, h / 2, r, "#5b4a1e")
        return Decor(fixed=art, blocked=((x0, h / 2 - r, w - x0, 2 * r),), picture=("binoculars", "#5b4a1e", c.name),
                     words=("First player",), lines=(), title="")
    return NO_DECOR


def _rainforest_tile(cat: Any, c: Component) -> Decor:
    t = cat.tiles[c.id]
    fixed: list[Item] = []
    for space, rule in zip(c.spaces, t.slots):
        # Pictures stay in the slot's rim: its middle is where the scanner looks for a token.
        x0, y0 = space.x_mm - space.w_mm / 2, space.y_mm - space.h_mm / 2
        x1, y1 = x0 + space.w_mm, y0 + space.h_mm
        if rule.colour is not None:
            fixed.append(Poly(((x0, y1 - 3.4), (x1, y1 - 3.4), (x1, y1), (x0, y1)), fill=cat.hex_colours[rule.colour],
                              stroke=BLACK, line_mm=0.3))
        if rule.species is not None:
            fixed += badge(rule.species.value, x1 - 2.6, y0 + 2.6, 2.1, "#5a5a5a")
        word = printable_text(rule.text)
        size = 2.2
        tw = text_width(word, size, True)
        fixed.append(Text(space.x_mm - tw / 2, y1 - 0.9, size, word, ink_on(cat.hex_colours[rule.colour])
                          if rule.colour is not None else BLACK, True, tw))
    underlay: tuple[Item, ...] = ()
    blocked: tuple[Box, ...] = ()
    w, h = c.size_mm
    if t.is_bicolour:  # the second colour as a band down the right edge, with its word in the text
        underlay = (Poly(((w - 7.0, 0.0), (w, 0.0), (w, h), (w - 7.0, h)), fill=cat.hex_colours[t.colours[1]]),)
        blocked = ((w - 7.0, 0.0, 7.0, h),)
    points = f"{t.points} point" + ("s" if t.points != 1 else "")
    colours = " + ".join(col.value.capitalize() for col in t.colours)
    return Decor(value=f"{colours}: {points}", underlay=underlay, fixed=tuple(fixed), blocked=blocked,
                 lines=(f"{colours} tile",), title=f"Jungle tile {c.id.split('-')[-1]}")


# -- Biomos ------------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _biomos() -> Any:
    from scoring.biomos.catalog import load_catalog

    return load_catalog()


def _biomos_decor(game_id: str, c: Component) -> Decor:
    cat = _biomos()
    token = cat.token(c.id)
    if token is not None:
        t = token.terrain
        return Decor(picture=(t.value, cat.terrain_colour(t), t.value.capitalize()),
                     words=(f"pattern letter {t.letter}",))
    card = cat.biome(c.id)
    if card is not None:
        icons = tuple(
            ("joker", "#777777", "*") if s is None else (s.value, cat.terrain_colour(s), s.letter) for s in card.pattern
        )
        return Decor(value=f"{card.points} points", icons=icons, lines=(f"{card.kind.value} biome",))
    return NO_DECOR


# -- BIOME Borneo ------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _borneo() -> Any:
    from scoring.borneo.catalog import load_catalog

    return load_catalog()


LAYER_COLOURS = {"emergent": "#e3c04a", "canopy": "#6aa84f", "understory": "#1f5e3b"}
"""The layer colours of the tiles and layer boards (the boards' catalog colours)."""


def _borneo_decor(game_id: str, c: Component) -> Decor:
    cat = _borneo()
    if c.id in cat.tiles:
        return _borneo_tile(game_id, cat, c)
    card = cat.animals.get(c.id) or cat.plant_cards.get(c.id)
    if card is not None:
        icons = tuple((p, cat.plants[p].colour, f"{cat.plants[p].name} {n}") for p, n in card.habitat.items())
        lines = tuple(line for line in c.lines if not line.startswith("Habitat:"))
        return Decor(value=f"{card.points} points", icons=icons, lines=lines)
    if c.kind == "legend":
        rows = tuple((p.id, p.colour, f"{p.name}: {_layer_words(p.layers)}") for p in cat.plants.values())
        actions = ("Your turn: 1. swap cards or tiles (optional)", "2. earn cards: place tiles, cover the habitat",
                   "3. refill your hand and the gallery")
        return Decor(icons=rows, lines=actions)
    return NO_DECOR


def _layer_words(layers: Any) -> str:
    """Layers top to bottom: emergent, canopy, understory."""
    order = list(LAYER_COLOURS)
    return ", ".join(sorted((layer.value for layer in layers), key=order.index))


def _borneo_tile(game_id: str, cat: Any, c: Component) -> Decor:
    tile = cat.tiles[c.id]
    w, h = c.size_mm
    poly = outline_polygon(Shape.HEX, w, h)
    assert poly is not None
    # flat-top hexagon corners from the top-left clockwise: edge i joins corner i and i + 1;
    # the catalog's edges run N, NE, SE, S, SW, NW, i.e. corner edges 0, 1, 2, 3, 4, 5
    from scoring.markers import marker_layout

    layout = marker_layout(game_id, c)
    keep_out = [layout.tag.outer] + ([layout.qr.outer] if layout.qr else [])
    fixed: list[Item] = []
    blocked: list[Box] = []
    for i, plant_id in enumerate(tile.edges):
        if plant_id == "-":
            continue
        (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % 6]
        mx, my = (x1 + x2) / 2, (y1 + y2) / 2
        nx, ny = (w / 2 - mx), (h / 2 - my)
        norm = math.hypot(nx, ny)
        nx, ny = nx / norm, ny / norm
        plant = cat.plants[plant_id]
        spot = _edge_spot(poly, i, (nx, ny), keep_out)
        if spot is None:
            continue  # no room clear of the markers: the tile's text still names the plant
        cx, cy, r = spot
        box = (cx - r, cy - r, 2 * r, 2 * r)
        fixed += badge(plant_id, cx, cy, r, plant.colour)
        blocked.append(box)
        name = printable_text(plant.name)
        size = 1.7
        tw = text_width(name, size, True)
        if i in (0, 3):  # top and bottom edges: the name beside the badge
            tx = cx + r + 0.6
            fixed.append(Text(tx, cy + size * 0.36, size, name, ink_on(c.colour), True, tw))
            blocked.append((tx, cy - size, tw, 2 * size))
    layers = sorted(tile.layers, key=lambda layer: list(LAYER_COLOURS).index(layer.value))
    underlay: tuple[Item, ...] = ()
    if len(layers) == 2:  # a hybrid tile: left half in one layer's colour, right half in the other's
        underlay = (Poly(((w / 2, 0.0), poly[1], poly[2], poly[3], (w / 2, h)), fill=LAYER_COLOURS[layers[1].value]),)
    layer_words = " + ".join(layer.value.capitalize() for layer in layers)
    return Decor(underlay=underlay, fixed=tuple(fixed), blocked=tuple(blocked), lines=(layer_words,),
                 title=f"Plant tile {c.id}")


def _edge_spot(
    poly: tuple[tuple[float, float], ...], i: int, inward: tuple[float, float], keep_out: list[Box]
) -> tuple[float, float, float] | None:
    """Centre and radius of a plant badge by edge ``i``: as large and as central as the markers' quiet zones allow."""
    (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % 6]
    nx, ny = inward
    for r in (5.0, 4.4, 3.8, 3.2):
        for t in (0.5, 0.38, 0.62, 0.28, 0.72):
            ex, ey = x1 + (x2 - x1) * t, y1 + (y2 - y1) * t
            cx, cy = ex + nx * (r + 0.8), ey + ny * (r + 0.8)
            box = (cx - r - 0.4, cy - r - 0.4, 2 * r + 0.8, 2 * r + 0.8)
            if _inside(poly, cx, cy, r + 0.5) and not any(_overlap(box, k) for k in keep_out):
                return cx, cy, r
    return None


def _inside(poly: tuple[tuple[float, float], ...], cx: float, cy: float, r: float) -> bool:
    """Whether the disc lies inside the convex clockwise (y down) polygon."""
    for k in range(len(poly)):
        (ax, ay), (bx, by) = poly[k], poly[(k + 1) % len(poly)]
        ex, ey = bx - ax, by - ay
        if (ex * (cy - ay) - ey * (cx - ax)) / math.hypot(ex, ey) < r:
            return False
    return True


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


# -- Habitats ----------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _habitats() -> Any:
    from scoring.habitats.catalog import load_catalog

    return load_catalog()


LANDSCAPE_COLOURS = {"grassland": "#8bbf3f", "forest": "#2e7d32", "dryland": "#c9a24a", "water": "#2f74c0"}


def _habitats_decor(game_id: str, c: Component) -> Decor:
    cat = _habitats()
    tile = cat.tile(c.id)
    if tile is not None:
        icons: tuple[Pictured, ...] = tuple(
            (land.value, LANDSCAPE_COLOURS[land.value], f"{n} {land.value}") for land, n in tile.demand
        )
        if not icons and tile.landscape is not None:
            icons = ((tile.landscape.value, LANDSCAPE_COLOURS[tile.landscape.value], tile.landscape.value),)
        value = f"{tile.points} vp" if tile.points else ""
        # the value is printed large and the demand pictured: the words keep the rest
        lines = tuple(line for line in c.lines if line != value and not (tile.demand and line.startswith("needs ")))
        return Decor(value=value, icons=icons, lines=lines)
    ink = ink_on(c.colour)
    figure = cat.colour_of_figure(c.id)
    if figure is not None:
        w, h = c.size_mm
        word = printable_text(f"{c.name}: head up")
        size = 1.8
        text = Text(w / 2 - text_width(word, size, True) / 2, h - 0.5, size, shorten(word, size, w - 1, True), ink, True,
                    min(text_width(word, size, True), w - 1))
        return Decor(fixed=(text,), picture=("arrow", c.colour, c.name), words=("the arrow shows the head",))
    marker = cat.colour_of_marker(c.id)
    if marker is not None:
        colour_word = c.name.split()[-1].capitalize()
        rim = rim_text(*c.size_mm, "Score", colour_word, ink, 2.4, _quiet_of(game_id, c))
        return Decor(fixed=rim, picture=("score", c.colour, c.name), words=(f"{colour_word} player",))
    return NO_DECOR


# -- PHYLO -------------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _phylo() -> Any:
    from scoring.phylo.catalog import load_catalog

    return load_catalog()


def _phylo_decor(game_id: str, c: Component) -> Decor:
    species = _phylo().species_of(c.id)
    if species is None:
        return NO_DECOR
    pictures = {"forest": "forest", "grassland": "grassland", "desert": "desert", "tundra": "glacier",
                "fresh_water": "water", "salt_water": "ocean"}
    terrains = sorted(species.terrains, key=lambda t: t.value)
    icons = tuple((pictures[t.value], "#3b5f8a", t.value.replace("_", " ")) for t in terrains if t.value in pictures)
    return Decor(value=f"{species.points} points", icons=icons, lines=c.lines[1:])


DRESSERS: Mapping[str, Callable[[str, Component], Decor]] = {
    "rainforest": _rainforest_decor,
    "biomos": _biomos_decor,
    "borneo": _borneo_decor,
    "habitats": _habitats_decor,
    "phylo": _phylo_decor,
}


VALUE_MM = 3.8
"""Font size of values (points, sizes): a 2.7 mm cap height, readable across a table."""
MIN_VALUE_MM = 3.6
"""Smallest font size of a value (digits 2.55 mm tall, a 2.6 mm cap height); a longer value wraps instead."""


def dressed_block(
    box: tuple[float, float, float, float],
    text: tuple[str, Sequence[str], str],
    value: str,
    icons: Sequence[tuple[str, str, str]],
    ink: str,
) -> tuple[Item, ...]:
    """The free area of a face: name and lines at the top, the value large, pictures with their words below."""
    x, y, w, h = box
    if w <= 3 or h <= 3:
        return ()
    out: list[Item] = []
    bottom = y + h
    if icons:
        short = all(len(word) <= 3 for _, _, word in icons)
        longest = max(text_width(printable_text(word), 2.2) for _, _, word in icons)
        cols = len(icons) if short else max(1, min(len(icons), int(w // max(24.0, longest + 9.0))))
        rows = math.ceil(len(icons) / cols)
        cell_w = w / cols
        label = 2.0 if short else 2.2
        r = min(6.0, (cell_w - 0.8) / 2 if short else 3.2, (h * 0.45 / rows - (label * 1.1 if short else 0)) / 2)
        if r >= 1.6:
            cell_h = 2 * r + (label * 1.15 if short else 0) + 0.6
            top = bottom - rows * cell_h
            for i, (name, colour, word) in enumerate(icons):
                cx0 = x + (i % cols) * cell_w
                cy0 = top + (i // cols) * cell_h
                word = printable_text(word)
                if short:
                    cx = cx0 + cell_w / 2
                    out.extend(badge(name, cx, cy0 + r, r, colour))
                    tw = text_width(word, label, True)
                    out.append(Text(cx - tw / 2, cy0 + 2 * r + label * 0.95, label, word, ink, True, tw))
                else:
                    out.extend(badge(name, cx0 + r + 0.3, cy0 + r, r, colour))
                    room = cell_w - 2 * r - 1.4
                    size = label
                    while size > MIN_TEXT_MM and text_width(word, size) > room:
                        size *= 0.92
                    word = shorten(word, size, room)
                    out.append(Text(cx0 + 2 * r + 1.0, cy0 + r + size * 0.36, size, word, ink, False,
                                    text_width(word, size)))
            bottom = top
    if value:
        size = VALUE_MM
        while size > MIN_VALUE_MM and text_width(value, size, True) > w - 1:
            size = max(MIN_VALUE_MM, size * 0.95)
        rows = wrap(printable_text(value), size, w - 1, True)  # a long value wraps rather than shrinks
        if bottom - y > size * (len(rows) + 1):
            bottom -= size * 1.25 * len(rows)
            for i, v in enumerate(rows):
                base = bottom + size * 1.25 * (i + 1) - size * 0.3
                out.append(Text(x + 0.5, base, size, v, ink, True, text_width(v, size, True)))
    title, lines, small = text
    out.extend(text_block((x, y, w, bottom - y), title, lines, ink, small=small))
    return tuple(out)


def decor_of(game_id: str, c: Component) -> Decor:
    """The component's pictures and values; components outside the catalog (tests, previews) get none."""
    dresser = DRESSERS.get(game_id)
    if dresser is None:
        return NO_DECOR
    try:
        return dresser(game_id, c)
    except (KeyError, AttributeError, TypeError, ValueError):
        return NO_DECOR


def has_picture_side(game_id: str, c: Component) -> bool:
    return c.back is None and decor_of(game_id, c).picture is not None


def picture_face(game_id: str, c: Component) -> Face | None:
    """The picture side of a one-sided piece (a token, a figure): its icon large, its name and words.

    Printed on the back of the sheet (duplex) so a token can lie picture up when the app is off;
    it carries no marker, so the scanner reads only the marker side.
    """
    decor = decor_of(game_id, c)
    if c.back is not None or decor.picture is None:
        return None
    name, colour, title = decor.picture
    w, h = c.size_mm
    light = shade(colour, 1.8)
    ink = ink_on(light)
    side = min(w, h)
    r = side * (0.3 if c.shape is Shape.ROUND else 0.28)
    cy = h / 2 - side * 0.1
    items: list[Item] = [*badge(name, w / 2, cy, r, colour)]
    lines = [printable_text(title), *(printable_text(x) for x in decor.words)]
    y = cy + r + 0.6
    for i, line in enumerate(lines):
        size = 2.6 if i == 0 else 1.9
        room = 2 * math.sqrt(max(0.0, (w / 2) ** 2 - (y + size - h / 2) ** 2)) - 1.2 if c.shape is Shape.ROUND else w - 2
        while size > 1.2 and text_width(line, size, i == 0) > room:
            size *= 0.92
        if y + size > h - 0.4:
            break
        y += size
        tw = text_width(line, size, i == 0)
        items.append(Text(w / 2 - tw / 2, y, size, line, ink, i == 0, tw))
        y += size * 0.2
    return Face(w, h, c.shape, light, tuple(items))
