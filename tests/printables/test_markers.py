"""markers.toml: the geometry the printer draws and the scanner reads, validated strictly."""

from __future__ import annotations

from typing import Any

import pytest

from scoring.markers import (
    GameMarkers,
    MarkerLayout,
    back_layout,
    back_tag_ids,
    check_back_tags,
    check_game_markers,
    house_rule,
    layout_for,
    marker_layout,
    parse_markers,
)
from scoring.model import Anchor, CatalogError, Component, Shape, Space
from scoring.registry import find_game, game_ids

TILE = {
    "tag": {"size_mm": 16.0, "quiet_mm": 2.0, "anchor": "top-left", "dx_mm": 3.0, "dy_mm": 3.0},
    "qr": {"size_mm": 21.0, "quiet_mm": 2.0, "anchor": "bottom-right", "dx_mm": -3.0, "dy_mm": -3.0},
}


def _markers(kinds: dict[str, Any], **extra: Any) -> GameMarkers:
    return parse_markers("testgame", {"kinds": kinds, **extra}, house_rule())


def _comp(size: tuple[float, float], shape: Shape = Shape.RECT, kind: str = "tile", **kw: Any) -> Component:
    return Component("X1", kind, "Thing", 7, size, shape, **kw)


def _with(section: str, **changes: Any) -> dict[str, Any]:
    entry = {k: dict(v) for k, v in TILE.items()}
    entry[section].update(changes)
    return entry


@pytest.mark.parametrize("game", game_ids())
def test_every_game_has_valid_marker_geometry(game: str) -> None:
    layouts = check_game_markers(game, find_game(game).components())
    for layout in layouts:
        assert layout.tag.size_mm >= 16
        assert layout.qr is None or layout.qr.size_mm >= 20


def test_explicit_entry_places_symbols_exactly() -> None:
    layout = layout_for(_markers({"tile": TILE}), _comp((50.0, 50.0)))
    assert (layout.tag.x_mm, layout.tag.y_mm, layout.tag.size_mm) == (3.0, 3.0, 16.0)
    assert layout.qr is not None
    assert (layout.qr.x_mm, layout.qr.y_mm) == (26.0, 26.0)  # 50 - 3 - 21
    assert layout.tag.outer == (1.0, 1.0, 20.0, 20.0)
    assert layout.tag_to_centre_mm == (14.0, 14.0)  # tag centre (11, 11) -> face centre (25, 25)
    assert layout.qr_to_centre_mm == (-11.5, -11.5)
    assert layout.tag.module_mm == 2.0
    assert not layout.from_rule


def test_centre_anchor_with_offset() -> None:
    entry = {"tag": {"size_mm": 16.0, "quiet_mm": 2.0, "anchor": "centre", "dx_mm": -12.5, "dy_mm": 0.0}}
    layout = layout_for(_markers({"tile": entry}), _comp((70.0, 60.6), Shape.HEX))
    assert (layout.tag.x_mm, layout.tag.y_mm) == (14.5, 22.3)


def test_house_rule_for_a_card_without_entry() -> None:
    layout = layout_for(_markers({}), _comp((63.0, 88.0), kind="card"))
    assert layout.from_rule
    # tag: 63 x 0.32 = 20.16 -> 20 mm (max), quiet 20/8 = 2.5, inset 1 -> 3.5
    assert (layout.tag.x_mm, layout.tag.y_mm, layout.tag.size_mm, layout.tag.quiet_mm) == (3.5, 3.5, 20.0, 2.5)
    # QR: floor(63 x 0.42) = 26 mm, quiet 2 modules = 2.476, bottom-right: 63 - 1 - 2.476 - 26
    assert layout.qr is not None
    assert (layout.qr.size_mm, layout.qr.x_mm, layout.qr.y_mm) == (26.0, 33.524, 58.524)


def test_house_rule_small_faces_get_a_centred_tag_only() -> None:
    layout = layout_for(_markers({}), _comp((24.0, 24.0), Shape.ROUND, kind="token"))
    assert layout.qr is None
    assert (layout.tag.x_mm, layout.tag.y_mm, layout.tag.size_mm) == (4.0, 4.0, 16.0)
    square = layout_for(_markers({}), _comp((22.0, 22.0), kind="token"))
    assert square.qr is None and square.tag.outer == (1.0, 1.0, 20.0, 20.0)


def test_house_rule_keeps_board_markers_clear_of_anchors_and_spaces() -> None:
    anchors = tuple(Anchor(t, x, y, 18.0) for t, (x, y) in enumerate(((14, 14), (186, 14), (14, 136), (186, 136)), 20))
    spaces = (Space("P1", 100.0, 75.0, 120.0, 60.0),)
    board = _comp((200.0, 150.0), kind="board", anchors=anchors, spaces=spaces)
    layout = layout_for(_markers({}), board)
    assert layout.qr is not None
    for box in (layout.tag.outer, layout.qr.outer):
        x, y, w, h = box
        assert y + h <= 45.0 or y >= 105.0 or x + w <= 40.0 or x >= 160.0  # clear of the space


def _error(kinds: dict[str, Any], component: Component | None = None, **extra: Any) -> str:
    with pytest.raises(CatalogError) as info:
        markers = _markers(kinds, **extra)
        layout_for(markers, component or _comp((50.0, 50.0)))
    return str(info.value)


def test_validation_names_the_file_and_entry() -> None:
    assert "testgame/markers.toml [kinds.tile].tag: unknown field(s) colour" in _error(
        {"tile": _with("tag", colour="red")}
    )
    assert "[kinds.tile].tag: missing field(s) dx_mm" in _error(
        {"tile": {"tag": {"size_mm": 16.0, "quiet_mm": 2.0, "anchor": "top-left", "dy_mm": 3.0}}}
    )
    assert "unknown field(s) tags" in _error({"tile": {"tags": TILE["tag"]}})
    assert "unknown field(s) kind" in _error({}, kind={})


def test_validation_refuses_impossible_values() -> None:
    assert "anchor: 'middle' is not one of" in _error({"tile": _with("tag", anchor="middle")})
    assert "size_mm: 15.0 outside 16.0" in _error({"tile": _with("tag", size_mm=15.0)})
    assert "size_mm: 19.0 outside 20.0" in _error({"tile": _with("qr", size_mm=19.0)})
    assert "quiet_mm: 1.5 mm is less than 1 module(s)" in _error({"tile": _with("tag", quiet_mm=1.5)})
    assert "expected a number" in _error({"tile": _with("tag", dx_mm="3")})
    assert "expected a number" in _error({"tile": _with("tag", size_mm=True)})
    assert "sheet: 'posters' is not one of" in _error({"tile": {**TILE, "sheet": "posters"}})
    assert "needs a tag placement" in _error({"tile": {"qr": TILE["qr"]}})
    assert "tags must be at least 16 mm" in _error({}, rule={"tag_min_mm": 12.0})


def test_validation_refuses_markers_that_do_not_fit_or_overlap() -> None:
    assert "the 16 mm tag does not fit the 18x18 mm face" in _error({"tile": TILE}, _comp((18.0, 18.0)))
    assert "tag and QR overlap" in _error({"tile": TILE}, _comp((40.0, 40.0)))
    overlap = _with("qr", anchor="top-left", dx_mm=20.0, dy_mm=3.0)
    assert "tag and QR overlap" in _error({"tile": overlap})
    no_qr = {"tag": TILE["tag"]}
    assert "must carry a QR code" in _error({"tile": no_qr})
    round_tag = {"tag": {"size_mm": 16.0, "quiet_mm": 2.0, "anchor": "centre", "dx_mm": 0.0, "dy_mm": 0.0}}
    small = _comp((22.0, 22.0), Shape.ROUND)
    assert "16 mm tag does not fit the 22x22 mm face" in _error({"tile": round_tag}, small)
    layout_for(_markers({"tile": round_tag}), _comp((24.0, 24.0), Shape.ROUND))  # 22.6 mm diagonal fits
    spaced = _comp((50.0, 50.0), spaces=(Space("S", 36.0, 36.0, 10.0, 10.0),))
    assert "QR overlaps space 'S'" in _error({"tile": TILE}, spaced)
    anchored = _comp((50.0, 50.0), anchors=(Anchor(9, 11.0, 11.0, 16.0),))
    assert "tag and anchor tag 9 overlap" in _error({"tile": TILE}, anchored)
    tiny_anchor = _comp((200.0, 200.0), anchors=(Anchor(9, 100.0, 100.0, 12.0),))
    assert "anchor tag 9 is 12 mm" in _error({}, tiny_anchor)


def test_stray_kinds_are_reported() -> None:
    game = game_ids()[0]
    components = find_game(game).components()
    with pytest.raises(CatalogError, match="not in the catalog"):
        check_game_markers(game, components[:0] + tuple(c for c in components if c.kind != components[0].kind))


def test_marker_layout_is_cached_and_frozen() -> None:
    game = game_ids()[0]
    c = find_game(game).components()[0]
    first = marker_layout(game, c)
    assert isinstance(first, MarkerLayout)
    assert marker_layout(game, c) is first
    with pytest.raises(AttributeError):
        first.tag.x_mm = 0  # type: ignore[misc]


# -- back tags: one tag per kind of back, never a component's ------------------------------

BACK = {"id": 586, "size_mm": 16.0, "quiet_mm": 2.0, "anchor": "centre", "dx_mm": 0.0, "dy_mm": 0.0}


def _card(cid: str = "C1", tag: int = 7, size: tuple[float, float] = (50.0, 50.0)) -> Component:
    return Component(cid, "card", "Card", tag, size, Shape.RECT, back="Deck")


def _back_error(kinds: dict[str, Any], components: tuple[Component, ...], taken: dict[int, str] | None = None) -> str:
    with pytest.raises(CatalogError) as info:
        check_back_tags(_markers(kinds), components, taken or {})
    return str(info.value)


def test_biomos_card_backs_carry_one_back_tag() -> None:
    assert back_tag_ids("biomos") == {586: "card"}
    cards = [c for c in find_game("biomos").components() if c.kind == "card"]
    boxes = {back_layout("biomos", c) for c in cards}
    assert len(boxes) == 1  # every back alike: the tag says "a face-down card", not which
    (box,) = boxes
    assert box is not None and (box.x_mm, box.y_mm, box.size_mm) == (4.0, 18.5, 26.0)
    tags = {c.tag for c in find_game("biomos").components()}
    tags |= {a.tag for c in find_game("biomos").components() for a in c.anchors}
    assert 586 not in tags
    token = next(c for c in find_game("biomos").components() if c.kind == "token")
    assert back_layout("biomos", token) is None  # tokens have no back to print


def test_back_tag_is_validated_like_the_rest() -> None:
    card = dict(TILE, back_tag=dict(BACK))
    markers = _markers({"card": card})
    entry = markers.kinds["card"].back_tag
    assert entry is not None and entry.id == 586 and entry.place.size_mm == 16.0
    for bad in (587, -1, "586", True, 1.5):
        assert "back_tag.id: expected a tag id within 0..586" in _error({"card": dict(TILE, back_tag=dict(BACK, id=bad))})
    assert "back_tag: unknown field(s) colour" in _error({"card": dict(TILE, back_tag=dict(BACK, colour="red"))})
    assert "back_tag: missing field(s) quiet_mm" in _error(
        {"card": dict(TILE, back_tag={k: v for k, v in BACK.items() if k != "quiet_mm"})}
    )
    assert "back_tag.size_mm: 12.0 outside 16.0..200.0" in _error({"card": dict(TILE, back_tag=dict(BACK, size_mm=12.0))})
    two = {"card": dict(TILE, back_tag=dict(BACK)), "tile": dict(TILE, back_tag=dict(BACK))}
    assert "back tag 586 of 'tile' is also the back tag of 'card'" in _error(two)


def test_back_tag_must_be_free_fit_its_backs_and_have_backs() -> None:
    kinds = {"card": dict(TILE, back_tag=dict(BACK))}
    check_back_tags(_markers(kinds), (_card(),), {7: "C1"})  # fine
    assert "tag 586 is already printed on 'X9'" in _back_error(kinds, (_card(),), {586: "X9"})
    plain = Component("C1", "card", "Card", 7, (50.0, 50.0), Shape.RECT)
    assert "no component of kind 'card' has a back" in _back_error(kinds, (plain,))
    assert "does not fit the back of 'C2'" in _back_error(
        {"card": dict(TILE, back_tag=dict(BACK, dx_mm=20.0))}, (_card("C2"),)
    )
    assert "differ in size or shape" in _back_error(kinds, (_card(), _card("C2", 8, (60.0, 50.0))))


def test_a_game_whose_back_tag_is_a_component_tag_does_not_load() -> None:
    from scoring.markers import checked_components

    cards = [c for c in find_game("biomos").components() if c.kind == "card"]
    clash = (cards[0], Component("X1", "token", "Stray", 586, (28.0, 28.0), Shape.ROUND))
    with pytest.raises(CatalogError, match="tag 586 is already printed on 'X1'"):
        checked_components("biomos", clash)
