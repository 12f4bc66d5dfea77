"""Where the fiducial tag and the QR code sit on every printed face: one source for printer and scanner.

Each game keeps its marker geometry in ``scoring/data/<game>/markers.toml``; kinds it
does not list follow the house rule in ``scoring/data/markers.toml``. Conventions:

- Coordinates are millimetres on the upright face (rotation 0), origin at the face's
  top-left corner, x to the right, y down (the same frame as ``Space`` and ``Anchor``).
- ``MarkerBox.x_mm, y_mm`` is the top-left corner of the black symbol and ``size_mm``
  its side: for the AprilTag 36h11 tag the 8-module square including its black border,
  for the QR code (version 1) the 21-module square without its quiet zone.
- ``quiet_mm`` is the white margin printed around the symbol on every side.
- The tag's upright is the face's upright, so the tag's detected rotation is the
  component's rotation, and ``MarkerLayout.tag_to_centre_mm`` turns a detected tag
  into the face centre.

A kind whose backs lie face down on the table in play may name a ``back_tag``: one
AprilTag id printed on every back of that kind (``{ id, size_mm, anchor, dx_mm, dy_mm,
quiet_mm }``, placed on the upright back like a face's tag). It names the kind's back, never
a card, so a face-down card is seen as such without being revealed; its id must not be any
component or anchor tag of the game.

In a kind entry, ``anchor`` names a point of the face (``top-left``, ``top``,
``top-right``, ``left``, ``centre``, ``right``, ``bottom-left``, ``bottom``,
``bottom-right``); the same point of the symbol is placed at that face point moved by
the signed offset ``(dx_mm, dy_mm)``. So ``anchor = "bottom-right", dx_mm = -3`` puts
the symbol's right edge 3 mm left of the face's right edge.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from typing import Any

from .catalog import TAG_COUNT, check_components, check_fields, read_data
from .model import CatalogError, Component, Shape
from .marker_types import (
    BackTag,
    GameMarkers,
    KindMarkers,
    MarkerBox,
    MarkerLayout,
    MarkerRule,
    QR_MODULES,
    SHEETS,
    SymbolPlace,
    TAG_MODULES,
)


ANCHOR_POINTS: Mapping[str, tuple[float, float]] = {
    "top-left": (0.0, 0.0),
    "top": (0.5, 0.0),
    "top-right": (1.0, 0.0),
    "left": (0.0, 0.5),
    "centre": (0.5, 0.5),
    "right": (1.0, 0.5),
    "bottom-left": (0.0, 1.0),
    "bottom": (0.5, 1.0),
    "bottom-right": (1.0, 1.0),
}

_RULE_FIELDS = (
    "tag_min_mm",
    "tag_max_mm",
    "tag_fraction",
    "tag_quiet_modules",
    "qr_min_mm",
    "qr_max_mm",
    "qr_fraction",
    "qr_quiet_modules",
    "qr_face_min_mm",
    "anchor_min_mm",
    "anchor_max_mm",
    "inset_mm",
    "round_edge_mm",
    "min_quiet_modules",
)
_PLACE_FIELDS = ("size_mm", "anchor", "dx_mm", "dy_mm", "quiet_mm")


# -- loading -------------------------------------------------------------------------------


def _number(value: Any, where: str, *, lo: float = 0.0, hi: float = 1000.0) -> float:
    """A finite number within bounds (TOML ints are accepted as millimetres too)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise CatalogError(f"{where}: expected a number, got {value!r}")
    v = float(value)
    if not (math.isfinite(v) and lo <= v <= hi):
        raise CatalogError(f"{where}: {v} outside {lo}..{hi}")
    return v


def _parse_rule(raw: Mapping[str, Any], where: str, base: MarkerRule | None) -> MarkerRule:
    if base is None:
        check_fields(raw, required=_RULE_FIELDS, where=where)
        values = {k: _number(raw[k], f"{where}.{k}") for k in _RULE_FIELDS}
    else:
        check_fields(raw, required=(), optional=_RULE_FIELDS, where=where)
        values = {k: getattr(base, k) for k in _RULE_FIELDS}
        values.update({k: _number(raw[k], f"{where}.{k}") for k in raw})
    rule = MarkerRule(**values)
    if rule.tag_min_mm < 16 or rule.tag_max_mm < rule.tag_min_mm:
        raise CatalogError(f"{where}: tags must be at least 16 mm and tag_max_mm >= tag_min_mm")
    if rule.qr_min_mm < 20 or rule.qr_max_mm < rule.qr_min_mm:
        raise CatalogError(f"{where}: QR codes must be at least 20 mm and qr_max_mm >= qr_min_mm")
    if rule.anchor_min_mm < 16 or rule.anchor_max_mm < rule.anchor_min_mm:
        raise CatalogError(f"{where}: anchor tags must be at least 16 mm")
    if rule.min_quiet_modules < 1:
        raise CatalogError(f"{where}: min_quiet_modules must be at least 1")
    return rule


def _parse_place(raw: Any, where: str, *, modules: int, least: float, rule: MarkerRule) -> SymbolPlace:
    check_fields(raw, required=_PLACE_FIELDS, where=where)
    anchor = raw["anchor"]
    if anchor not in ANCHOR_POINTS:
        raise CatalogError(f"{where}.anchor: {anchor!r} is not one of {', '.join(ANCHOR_POINTS)}")
    size = _number(raw["size_mm"], f"{where}.size_mm", lo=least, hi=200.0)
    quiet = _number(raw["quiet_mm"], f"{where}.quiet_mm", hi=50.0)
    if quiet + 1e-9 < rule.min_quiet_modules * size / modules:
        raise CatalogError(
            f"{where}.quiet_mm: {quiet} mm is less than {rule.min_quiet_modules:g} module(s)"
            f" ({size / modules:.2f} mm each)"
        )
    return SymbolPlace(
        size_mm=size,
        anchor=anchor,
        dx_mm=_number(raw["dx_mm"], f"{where}.dx_mm", lo=-600.0, hi=600.0),
        dy_mm=_number(raw["dy_mm"], f"{where}.dy_mm", lo=-600.0, hi=600.0),
        quiet_mm=quiet,
    )


def parse_markers(game: str, raw: Mapping[str, Any], house: MarkerRule) -> GameMarkers:
    """Validate one game's markers.toml document (already parsed) into a GameMarkers."""
    where = f"{game}/markers.toml"
    check_fields(raw, required=(), optional=("rule", "kinds", "edition_data"), where=where)
    rule = _parse_rule(raw.get("rule", {}), f"{where} [rule]", house)
    kinds_raw = raw.get("kinds", {})
    if not isinstance(kinds_raw, Mapping):
        raise CatalogError(f"{where} [kinds]: expected a table")
    kinds: dict[str, KindMarkers] = {}
    for kind, entry in kinds_raw.items():
        at = f"{where} [kinds.{kind}]"
        check_fields(entry, required=(), optional=("tag", "qr", "sheet", "back_tag", "edition_data"), where=at)
        tag = qr = None
        if "tag" in entry:
            tag = _parse_place(entry["tag"], f"{at}.tag", modules=TAG_MODULES, least=rule.tag_min_mm, rule=rule)
        if "qr" in entry:
            if tag is None:
                raise CatalogError(f"{at}: a qr placement needs a tag placement too")
            qr = _parse_place(entry["qr"], f"{at}.qr", modules=QR_MODULES, least=rule.qr_min_mm, rule=rule)
        sheet = entry.get("sheet")
        if sheet is not None and sheet not in SHEETS:
            raise CatalogError(f"{at}.sheet: {sheet!r} is not one of {', '.join(SHEETS)}")
        back = _parse_back_tag(entry["back_tag"], f"{at}.back_tag", rule) if "back_tag" in entry else None
        kinds[kind] = KindMarkers(tag, qr, sheet, back)
    seen: dict[int, str] = {}
    for kind, km in kinds.items():
        if km.back_tag is None:
            continue
        if km.back_tag.id in seen:
            raise CatalogError(f"{where}: back tag {km.back_tag.id} of {kind!r} is also the back tag of {seen[km.back_tag.id]!r}")
        seen[km.back_tag.id] = kind
    return GameMarkers(game, rule, kinds)


def _parse_back_tag(raw: Any, where: str, rule: MarkerRule) -> BackTag:
    """``{ id, size_mm, anchor, dx_mm, dy_mm, quiet_mm }``: a tag id of 36h11 and its place on the back."""
    if not isinstance(raw, Mapping):
        raise CatalogError(f"{where}: expected a table")
    tag_id = raw.get("id")
    if isinstance(tag_id, bool) or not isinstance(tag_id, int) or not 0 <= tag_id < TAG_COUNT:
        raise CatalogError(f"{where}.id: expected a tag id within 0..{TAG_COUNT - 1}, got {tag_id!r}")
    place_raw = {k: v for k, v in raw.items() if k != "id"}
    place = _parse_place(place_raw, where, modules=TAG_MODULES, least=rule.tag_min_mm, rule=rule)
    return BackTag(tag_id, place)


@cache
def house_rule() -> MarkerRule:
    """The default rule every game falls back on (``scoring/data/markers.toml``)."""
    try:
        text = resources.files("scoring").joinpath("data", "markers.toml").read_text("utf-8")
        raw = tomllib.loads(text)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise CatalogError(f"markers.toml: cannot read the house marker rule ({exc})") from exc
    check_fields(raw, required=("rule",), where="markers.toml")
    return _parse_rule(raw["rule"], "markers.toml [rule]", None)


@cache
def game_markers(game_id: str) -> GameMarkers:
    """A game's marker geometry; a game without markers.toml uses the house rule only."""
    try:
        raw = read_data(game_id, "markers.toml")
    except CatalogError as exc:
        if "cannot read" not in str(exc):
            raise
        raw = {}
    return parse_markers(game_id, raw, house_rule())


# -- geometry ------------------------------------------------------------------------------


def _place(p: SymbolPlace, w: float, h: float, modules: int) -> MarkerBox:
    fx, fy = ANCHOR_POINTS[p.anchor]
    x = fx * w + p.dx_mm - fx * p.size_mm
    y = fy * h + p.dy_mm - fy * p.size_mm
    return MarkerBox(round(x, 3), round(y, 3), p.size_mm, p.quiet_mm, modules)


def outline_polygon(shape: Shape, w: float, h: float) -> tuple[tuple[float, float], ...] | None:
    """The hex outline's corners (None for rectangles and ellipses).

    A hex is inscribed in its ``w x h`` box: flat top and bottom when ``w >= h``,
    pointed top and bottom otherwise.
    """
    if shape is not Shape.HEX:
        return None
    if w >= h:
        return ((w / 4, 0.0), (3 * w / 4, 0.0), (w, h / 2), (3 * w / 4, h), (w / 4, h), (0.0, h / 2))
    return ((w / 2, 0.0), (w, h / 4), (w, 3 * h / 4), (w / 2, h), (0.0, 3 * h / 4), (0.0, h / 4))


def inside_face(shape: Shape, w: float, h: float, x: float, y: float, margin: float) -> bool:
    """Whether point ``(x, y)`` lies inside the face outline, at least ``margin`` from it."""
    if shape is Shape.ROUND:
        a, b = w / 2 - margin, h / 2 - margin
        if a <= 0 or b <= 0:
            return False
        return ((x - w / 2) / a) ** 2 + ((y - h / 2) / b) ** 2 <= 1 + 1e-9
    poly = outline_polygon(shape, w, h)
    if poly is None:
        return margin - 1e-9 <= x <= w - margin + 1e-9 and margin - 1e-9 <= y <= h - margin + 1e-9
    n = len(poly)
    # Convex, clockwise in a y-down frame: inside means on the inner side of every edge.
    for i in range(n):
        (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % n]
        ex, ey = x2 - x1, y2 - y1
        cross = ex * (y - y1) - ey * (x - x1)
        if cross / math.hypot(ex, ey) < margin - 1e-9:
            return False
    return True


def _corners(x: float, y: float, w: float, h: float) -> Iterable[tuple[float, float]]:
    return ((x, y), (x + w, y), (x, y + h), (x + w, y + h))


def _fits(box: MarkerBox, shape: Shape, w: float, h: float, rule: MarkerRule) -> bool:
    """Rect faces hold the whole quiet zone; round/hex faces hold the black symbol with a gap."""
    if shape is Shape.RECT:
        return all(inside_face(shape, w, h, px, py, 0.0) for px, py in _corners(*box.outer))
    s = box.size_mm
    return all(inside_face(shape, w, h, px, py, rule.round_edge_mm) for px, py in _corners(box.x_mm, box.y_mm, s, s))


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    return ax < bx + bw - 1e-9 and bx < ax + aw - 1e-9 and ay < by + bh - 1e-9 and by < ay + ah - 1e-9


def anchor_box(anchor_tag_size: float, x_mm: float, y_mm: float, rule: MarkerRule) -> MarkerBox:
    """A board anchor as a MarkerBox (catalogs give its centre; its quiet zone follows the rule)."""
    s = anchor_tag_size
    return MarkerBox(x_mm - s / 2, y_mm - s / 2, s, rule.tag_quiet_modules * s / TAG_MODULES, TAG_MODULES)


_RULE_PAIRS = (
    ("top-left", "bottom-right"),
    ("top-right", "bottom-left"),
    ("bottom-left", "top-right"),
    ("bottom-right", "top-left"),
    ("top", "bottom"),
    ("left", "right"),
)
"""Tag and QR corners the house rule tries on rectangular faces, in order."""


def _box_at(anchor: str, size: float, quiet: float, w: float, h: float, inset: float, modules: int) -> MarkerBox:
    """A symbol whose quiet zone sits ``inset`` from the face edges at the named point."""
    fx, fy = ANCHOR_POINTS[anchor]
    x = inset + quiet + fx * (w - size - 2 * quiet - 2 * inset)
    y = inset + quiet + fy * (h - size - 2 * quiet - 2 * inset)
    return MarkerBox(round(x, 3), round(y, 3), size, round(quiet, 3), modules)


def _rule_candidates(c: Component, rule: MarkerRule, tag_size: float, qr_size: float) -> Iterable[MarkerLayout]:
    w, h = c.size_mm
    tq = rule.tag_quiet_modules * tag_size / TAG_MODULES
    qq = rule.qr_quiet_modules * qr_size / QR_MODULES
    if c.shape is Shape.RECT:
        for ta, qa in _RULE_PAIRS:
            tag = _box_at(ta, tag_size, tq, w, h, rule.inset_mm, TAG_MODULES)
            qr = _box_at(qa, qr_size, qq, w, h, rule.inset_mm, QR_MODULES)
            yield MarkerLayout(w, h, tag, qr, from_rule=True)
        return
    span = tag_size + 2 * tq + qr_size + 2 * qq
    left = (w - span) / 2
    tag = MarkerBox(round(left + tq, 3), round(h / 2 - tag_size / 2, 3), tag_size, round(tq, 3), TAG_MODULES)
    qx = left + 2 * tq + tag_size + qq
    qr = MarkerBox(round(qx, 3), round(h / 2 - qr_size / 2, 3), qr_size, round(qq, 3), QR_MODULES)
    yield MarkerLayout(w, h, tag, qr, from_rule=True)


def _by_rule(c: Component, rule: MarkerRule) -> MarkerLayout:
    """House rule: tag and QR in opposite corners (a pair across the centre on round/hex faces)."""
    w, h = c.size_mm
    short = min(w, h)
    tag_size = min(rule.tag_max_mm, max(rule.tag_min_mm, round(short * rule.tag_fraction * 2) / 2))
    tq = rule.tag_quiet_modules * tag_size / TAG_MODULES
    qr_start = min(rule.qr_max_mm, max(rule.qr_min_mm, math.floor(short * rule.qr_fraction)))
    for k in range(int(qr_start - rule.qr_min_mm) + 1):
        for layout in _rule_candidates(c, rule, float(tag_size), float(qr_start - k)):
            qr = layout.qr
            if qr is None:
                continue
            if (
                _fits(layout.tag, c.shape, w, h, rule)
                and _fits(qr, c.shape, w, h, rule)
                and not _clashes(layout, c, rule)
            ):
                return layout
    if c.spaces or c.anchors:
        found = _by_search(c, rule, tag_size)
        if found is not None:
            return found
    spots = ("top-left", "centre") if c.shape is Shape.RECT else ("centre",)
    for spot in spots:
        tag = _box_at(spot, tag_size, tq, w, h, rule.inset_mm, TAG_MODULES)
        layout = MarkerLayout(w, h, tag, None, from_rule=True)
        if not _clashes(layout, c, rule):
            return layout
    return layout


def _clashes(layout: MarkerLayout, c: Component, rule: MarkerRule) -> str | None:
    """A sentence naming the first overlap between the markers and the board's anchors."""
    boxes: list[tuple[str, tuple[float, float, float, float]]] = [("tag", layout.tag.outer)]
    if layout.qr is not None:
        boxes.append(("QR", layout.qr.outer))
    for a in c.anchors:
        boxes.append((f"anchor tag {a.tag}", anchor_box(a.size_mm, a.x_mm, a.y_mm, rule).outer))
    for i, (name_a, a) in enumerate(boxes):
        for name_b, b in boxes[i + 1 :]:
            if _overlap(a, b):
                return f"{name_a} and {name_b} overlap (quiet zones included)"
    for name_a, a in boxes:
        for sp in c.spaces:
            if _overlap(a, _space_box(sp.x_mm, sp.y_mm, sp.w_mm, sp.h_mm)):
                return f"{name_a} overlaps space {sp.name!r} (quiet zone included)"
    return None


def _space_box(x: float, y: float, w: float, h: float) -> tuple[float, float, float, float]:
    return (x - w / 2, y - h / 2, w, h)


def _free_spot(
    c: Component, rule: MarkerRule, side: float, taken: list[tuple[float, float, float, float]], *, from_end: bool
) -> tuple[float, float] | None:
    """Top-left of the first free ``side`` square (quiet zone included), scanning 1 mm steps row by row.

    Scans from the top-left corner, or backwards from the bottom-right when ``from_end``.
    """
    w, h = c.size_mm
    cols, rows = int(w), int(h)
    blocked = list(taken)
    blocked += [anchor_box(a.size_mm, a.x_mm, a.y_mm, rule).outer for a in c.anchors]
    blocked += [_space_box(sp.x_mm, sp.y_mm, sp.w_mm, sp.h_mm) for sp in c.spaces]
    occ = [[0] * (cols + 1) for _ in range(rows + 1)]
    for bx, by, bw, bh in blocked:
        for r in range(max(0, math.floor(by)), min(rows, math.ceil(by + bh))):
            row = occ[r + 1]
            for col in range(max(0, math.floor(bx)), min(cols, math.ceil(bx + bw))):
                row[col + 1] = 1
    for r in range(1, rows + 1):  # integral image of blocked 1 mm cells
        acc = 0
        prev, row = occ[r - 1], occ[r]
        for col in range(1, cols + 1):
            acc += row[col]
            row[col] = acc + prev[col]
    k = math.ceil(side)
    ins = math.ceil(rule.inset_mm)
    ys = range(ins, rows - k - ins + 1)
    xs = range(ins, cols - k - ins + 1)
    for y in reversed(ys) if from_end else ys:
        for x in reversed(xs) if from_end else xs:
            if occ[y + k][x + k] - occ[y][x + k] - occ[y + k][x] + occ[y][x]:
                continue
            if all(inside_face(c.shape, w, h, px, py, 0.0) for px, py in _corners(x, y, k, k)):
                return (float(x), float(y))
    return None


def _by_search(c: Component, rule: MarkerRule, tag_size: float) -> MarkerLayout | None:
    """Boards full of spaces: first free spot from the top-left for the tag, from the bottom-right for the QR."""
    w, h = c.size_mm
    tq = round(rule.tag_quiet_modules * tag_size / TAG_MODULES, 3)
    spot = _free_spot(c, rule, tag_size + 2 * tq, [], from_end=False)
    if spot is None:
        return None
    tag = MarkerBox(spot[0] + tq, spot[1] + tq, tag_size, tq, TAG_MODULES)
    qr_size = min(rule.qr_max_mm, max(rule.qr_min_mm, math.floor(min(w, h) * rule.qr_fraction)))
    while qr_size >= rule.qr_min_mm:
        qq = round(rule.qr_quiet_modules * qr_size / QR_MODULES, 3)
        found = _free_spot(c, rule, qr_size + 2 * qq, [tag.outer], from_end=True)
        if found is not None:
            qr = MarkerBox(found[0] + qq, found[1] + qq, float(qr_size), qq, QR_MODULES)
            return MarkerLayout(w, h, tag, qr, from_rule=True)
        qr_size -= 1
    return MarkerLayout(w, h, tag, None, from_rule=True)


def _check(layout: MarkerLayout, c: Component, rule: MarkerRule, where: str) -> MarkerLayout:
    w, h = c.size_mm
    if not _fits(layout.tag, c.shape, w, h, rule):
        raise CatalogError(f"{where}: the {layout.tag.size_mm:g} mm tag does not fit the {w:g}x{h:g} mm face")
    if layout.qr is not None and not _fits(layout.qr, c.shape, w, h, rule):
        raise CatalogError(f"{where}: the {layout.qr.size_mm:g} mm QR does not fit the {w:g}x{h:g} mm face")
    if layout.qr is None and c.shape is Shape.RECT and min(w, h) >= rule.qr_face_min_mm:
        raise CatalogError(f"{where}: a {w:g}x{h:g} mm face must carry a QR code of at least {rule.qr_min_mm:g} mm")
    for a in c.anchors:
        if not rule.anchor_min_mm <= a.size_mm <= rule.anchor_max_mm:
            raise CatalogError(
                f"{where}: anchor tag {a.tag} is {a.size_mm:g} mm, not {rule.anchor_min_mm:g}-{rule.anchor_max_mm:g} mm"
            )
        box = anchor_box(a.size_mm, a.x_mm, a.y_mm, rule)
        if not _fits(box, c.shape, w, h, rule):
            raise CatalogError(f"{where}: anchor tag {a.tag} does not fit inside the board")
    clash = _clashes(layout, c, rule)
    if clash:
        raise CatalogError(f"{where}: {clash}")
    return layout


def layout_for(markers: GameMarkers, component: Component) -> MarkerLayout:
    """The validated layout of one component under a game's marker geometry."""
    where = f"{markers.game}/markers.toml: component {component.id!r} (kind {component.kind!r})"
    w, h = component.size_mm
    entry = markers.kinds.get(component.kind)
    if entry is None or entry.tag is None:
        layout = _by_rule(component, markers.rule)
    else:
        tag = _place(entry.tag, w, h, TAG_MODULES)
        qr = _place(entry.qr, w, h, QR_MODULES) if entry.qr is not None else None
        layout = MarkerLayout(w, h, tag, qr)
    return _check(layout, component, markers.rule, where)


@lru_cache(maxsize=8192)
def marker_layout(game_id: str, component: Component) -> MarkerLayout:
    """Where the tag and QR code are printed on ``component``'s face (validated; CatalogError if not)."""
    return layout_for(game_markers(game_id), component)


def sheet_of(game_id: str, kind: str) -> str | None:
    """The sheet markers.toml assigns to a kind, or None to let the printer decide by name."""
    entry = game_markers(game_id).kinds.get(kind)
    return entry.sheet if entry is not None else None


def back_tag_box(markers: GameMarkers, component: Component) -> MarkerBox | None:
    """Where the kind's back tag sits on the component's upright back (None: its back has no tag)."""
    entry = markers.kinds.get(component.kind)
    if entry is None or entry.back_tag is None or component.back is None:
        return None
    w, h = component.size_mm
    return _place(entry.back_tag.place, w, h, TAG_MODULES)


@lru_cache(maxsize=8192)
def back_layout(game_id: str, component: Component) -> MarkerBox | None:
    """The back tag printed on ``component``'s back, or None (checked to fit by ``check_back_tags``)."""
    return back_tag_box(game_markers(game_id), component)


def back_tag_ids(game_id: str) -> Mapping[int, str]:
    """Back tag id -> the kind whose backs carry it."""
    return {k.back_tag.id: kind for kind, k in game_markers(game_id).kinds.items() if k.back_tag is not None}


def check_back_tags(markers: GameMarkers, components: Iterable[Component], taken: Mapping[int, str]) -> None:
    """Each back tag fits every back of its kind, is printed on one (a kind with backs), and is
    not a tag the game already prints (``taken``: tag id -> the component printing it)."""
    comps = tuple(components)
    where = f"{markers.game}/markers.toml"
    for kind, entry in markers.kinds.items():
        if entry.back_tag is None:
            continue
        at = f"{where} [kinds.{kind}].back_tag"
        tag_id = entry.back_tag.id
        if tag_id in taken:
            raise CatalogError(f"{at}: tag {tag_id} is already printed on {taken[tag_id]!r}")
        backs = [c for c in comps if c.kind == kind and c.back is not None]
        if not backs:
            raise CatalogError(f"{at}: no component of kind {kind!r} has a back to print it on")
        shapes = {(c.size_mm, c.shape) for c in backs}
        if len(shapes) > 1:
            raise CatalogError(f"{at}: the backs of kind {kind!r} differ in size or shape; one tag cannot tell where such a back lies")
        for c in backs:
            box = back_tag_box(markers, c)
            w, h = c.size_mm
            if box is None or not _fits(box, c.shape, w, h, markers.rule):
                raise CatalogError(f"{at}: the {entry.back_tag.place.size_mm:g} mm tag does not fit the back of {c.id!r}")


def checked_components(game_id: str, components: Iterable[Component]) -> tuple[Component, ...]:
    """A game's components checked (``check_components``), then its back tags against them: a
    back tag says "a face-down card", so were it also a component's or an anchor's tag, a
    face-down card would be read as that component."""
    comps = check_components(game_id, components)
    taken = {t: c.id for c in comps for t in (c.tag, *(a.tag for a in c.anchors))}
    check_back_tags(game_markers(game_id), comps, taken)
    return comps


def check_game_markers(game_id: str, components: Iterable[Component]) -> tuple[MarkerLayout, ...]:
    """Every component's layout, no kind entry that names a kind the catalog lacks, and back tags
    that fit their backs and collide with no printed tag."""
    comps = tuple(components)
    markers = game_markers(game_id)
    kinds = {c.kind for c in comps}
    stray = sorted(set(markers.kinds) - kinds)
    if stray:
        raise CatalogError(f"{game_id}/markers.toml: kind(s) {', '.join(stray)} not in the catalog")
    taken = {t: c.id for c in comps for t in (c.tag, *(a.tag for a in c.anchors))}
    check_back_tags(markers, comps, taken)
    return tuple(layout_for(markers, c) for c in comps)
