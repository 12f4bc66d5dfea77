"""The reference page of each game: a turn, the end and the scoring in our own words, and a legend of pictures.

The words are in ``data/reference.toml``; the legend is drawn from the same catalogs and
pictograms as the faces, so the page explains exactly the symbols the components show.
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from importlib import resources
from typing import Any

from scoring.model import Shape

from .art import badge
from .dress import LANDSCAPE_COLOURS, Pictured, _biomos, _borneo, _layer_words, _rainforest
from .faces import BLACK, Face, Item, Text, game_title, printable_text, text_width, wrap
from .sheets import Paper

MARGIN = 16.0
BODY_MM = 4.0
HEAD_MM = 5.4


@lru_cache(maxsize=1)
def _texts() -> dict[str, Any]:
    return tomllib.loads(resources.files("printables").joinpath("data/reference.toml").read_text(encoding="utf-8"))


def has_reference(game_id: str) -> bool:
    return game_id in _texts()


def legend_of(game_id: str) -> tuple[Pictured, ...]:
    """The pictures a game's faces use, each with its word(s)."""
    if game_id == "borneo":
        return tuple((p.id, p.colour, f"{p.name}: {_layer_words(p.layers)}") for p in _borneo().plants.values())
    if game_id == "biomos":
        cat = _biomos()
        terrains = tuple((t.terrain.value, t.colour, f"{t.terrain.letter} = {t.terrain.value}") for t in cat.terrains)
        return (*terrains, ("joker", "#777777", "* = joker: any terrain"))
    if game_id == "rainforest":
        cat = _rainforest()
        species = tuple((s.value, "#5a5a5a", s.value) for s in sorted({t.species for t in cat.tokens.values()},
                                                                       key=lambda s: s.value))
        colours = tuple(("score", hexc, f"{col.value} tiles and tokens") for col, hexc in cat.hex_colours.items())
        return species + colours
    if game_id == "habitats":
        return tuple((name, colour, name) for name, colour in LANDSCAPE_COLOURS.items())
    if game_id == "phylo":
        return (("forest", "#3b5f8a", "forest"), ("grassland", "#3b5f8a", "grassland"), ("desert", "#3b5f8a", "desert"),
                ("glacier", "#3b5f8a", "tundra"), ("water", "#3b5f8a", "fresh water"), ("ocean", "#3b5f8a", "salt water"))
    return ()


def _section(items: list[Item], y: float, width: float, heading: str, lines: list[str]) -> float:
    y += HEAD_MM * 1.3
    items.append(Text(MARGIN, y, HEAD_MM, heading, BLACK, True, text_width(heading, HEAD_MM, True)))
    y += 1.0
    for line in lines:
        for i, row in enumerate(wrap(printable_text(line), BODY_MM, width - 5)):
            y += BODY_MM * 1.3
            if i == 0:
                items.append(Text(MARGIN + 0.5, y, BODY_MM, "-", BLACK, False, text_width("-", BODY_MM)))
            items.append(Text(MARGIN + 4, y, BODY_MM, row, BLACK, False, text_width(row, BODY_MM)))
    return y + 2.0


def reference_face(game_id: str, paper: Paper) -> Face:
    """The game's reference page as one page-sized face."""
    text = _texts()[game_id]
    width = paper.w - 2 * MARGIN
    title = f"{game_title(game_id)} - reference"
    items: list[Item] = [Text(MARGIN, MARGIN + 6, 7.0, title, BLACK, True, text_width(title, 7.0, True))]
    y = MARGIN + 9
    for heading, key in (("A turn", "turn"), ("End of the game", "end"), ("Scoring", "scoring")):
        y = _section(items, y, width, heading, list(text[key]))
    legend = legend_of(game_id)
    if legend:
        y = _section(items, y, width, printable_text(text.get("legend", "Legend")), [])
        cols = 2
        r = 5.0
        cell_w = width / cols
        for i, (name, colour, word) in enumerate(legend):
            cx = MARGIN + (i % cols) * cell_w
            cy = y + 2 + (i // cols) * (2 * r + 3) + r
            items.extend(badge(name, cx + r, cy, r, colour))
            word = printable_text(word)
            items.append(Text(cx + 2 * r + 2.5, cy + BODY_MM * 0.36, BODY_MM, word, BLACK, False,
                              text_width(word, BODY_MM)))
    note = "Our own summary for play without the app; the rulebook decides anything this page leaves open."
    items.append(Text(MARGIN, paper.h - MARGIN + 4, 2.6, note, BLACK, False, text_width(note, 2.6)))
    return Face(paper.w, paper.h, Shape.RECT, "#ffffff", tuple(items))
