"""The Habitats edition catalog: park tiles, colour pieces, goal tiles, track and market.

Every fact lives in ``scoring/data/habitats/``; this module only loads and validates it
so that an owner of the boxed game can correct the edition without touching code.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..catalog import TAG_COUNT, as_bool, as_id, as_int, check_fields, read_data
from ..model import Anchor, CatalogError, Space
from .entries import (
    _BY_LETTER,
    _LETTERS,
    _STEPS,
    _VIEW_LABELS,
    ColourSet,
    GAME_ID,
    Goal,
    GoalTile,
    HabitatsCatalog,
    Landscape,
    MarketLayout,
    PARK_TILE_COUNT,
    ParkTile,
    ReplacementTile,
    ROAD_POINTS,
    Side,
    TileKind,
    Tourist,
    TRACK_SPACES,
    TrackBoard,
    TURNS_PER_YEAR,
    View,
)


# -- parsing ---------------------------------------------------------------------------


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise CatalogError(f"{where}: expected a non-empty text, got {value!r}")
    return value.strip()


def _tag(value: Any, where: str) -> int:
    return as_int(value, f"{where}: tag", lo=0, hi=TAG_COUNT - 1)


def _colour(value: Any, where: str) -> str:
    text = _text(value, where)
    if len(text) != 7 or text[0] != "#" or any(c not in "0123456789abcdefABCDEF" for c in text[1:]):
        raise CatalogError(f"{where}: colour must be #rrggbb, got {text!r}")
    return text


def _size(value: Any, where: str) -> tuple[float, float]:
    if not (isinstance(value, list) and len(value) == 2):
        raise CatalogError(f"{where}: size_mm must be [width, height]")
    w, h = (as_int(v, f"{where}: size_mm", lo=10, hi=600) for v in value)
    return (float(w), float(h))


def parse_demand(text: str, where: str) -> tuple[tuple[Landscape, int], ...]:
    """``"G1 D1 W2"`` -> ((grassland, 1), (dryland, 1), (water, 2)); letters G/F/D/W."""
    out: list[tuple[Landscape, int]] = []
    seen: set[Landscape] = set()
    for part in text.split():
        land = _BY_LETTER.get(part[:1])
        if land is None or not part[1:].isdigit():
            raise CatalogError(f"{where}: demand item {part!r} must be G/F/D/W and a count")
        count = int(part[1:])
        if not 1 <= count <= 4:
            raise CatalogError(f"{where}: demand {part!r}: count must be 1..4")
        if land in seen:
            raise CatalogError(f"{where}: demand names {land.value} twice")
        seen.add(land)
        out.append((land, count))
    if not out:
        raise CatalogError(f"{where}: empty demand")
    return tuple(out)


def _enum(cls: type[enum.Enum], value: str, where: str, field: str) -> Any:
    try:
        return cls(value)
    except ValueError:
        allowed = ", ".join(str(m.value) for m in cls)
        raise CatalogError(f"{where}: {field} {value!r} is not one of {allowed}") from None


_TILE_FIELDS = (
    "id", "tag", "kind", "name", "landscape", "points", "demand",
    "flowers", "view", "tourist", "road_sides", "edition_data",
)


def parse_tile(row: Mapping[str, Any], where: str) -> ParkTile:
    """One row of tiles.csv; each kind allows only its own fields."""
    check_fields(row, required=_TILE_FIELDS, where=where)
    tid = as_id(row["id"], where)
    where = f"{where} ({tid})"
    kind = _enum(TileKind, row["kind"], where, "kind")
    name = _text(row["name"], f"{where}: name")
    filled = {k for k in ("points", "demand", "flowers", "view", "tourist", "road_sides") if row[k]}
    allowed = {
        TileKind.ANIMAL: {"points", "demand", "flowers"},
        TileKind.FLOWER: set(),
        TileKind.WATCHTOWER: {"view"},
        TileKind.TOURIST: {"tourist"},
        TileKind.ROAD: {"points", "road_sides"},
    }[kind]
    stray = sorted(filled - allowed)
    if stray:
        raise CatalogError(f"{where}: a {kind.value} tile has no {', '.join(stray)}")
    land: Landscape | None = None
    if kind is TileKind.WATCHTOWER:
        if row["landscape"]:
            raise CatalogError(f"{where}: watchtowers have no landscape")
    else:
        land = _enum(Landscape, row["landscape"], where, "landscape")
    points = 0
    demand: tuple[tuple[Landscape, int], ...] = ()
    flowers = 0
    view: View | None = None
    tourist: Tourist | None = None
    sides: frozenset[Side] = frozenset()
    if kind is TileKind.ANIMAL:
        points = as_int(row["points"], f"{where}: points", lo=1, hi=9)
        if bool(row["demand"]) == bool(row["flowers"]):
            raise CatalogError(f"{where}: an animal needs either a demand or flowers")
        if row["demand"]:
            demand = parse_demand(row["demand"], where)
        else:
            flowers = as_int(row["flowers"], f"{where}: flowers", lo=1, hi=4)
    elif kind is TileKind.WATCHTOWER:
        view = _enum(View, row["view"], where, "view")
    elif kind is TileKind.TOURIST:
        tourist = _enum(Tourist, row["tourist"], where, "tourist")
    elif kind is TileKind.ROAD:
        names = row["road_sides"].split()
        try:
            sides = frozenset(Side[n] for n in names)
        except KeyError:
            raise CatalogError(f"{where}: road_sides must be N/E/S/W, got {row['road_sides']!r}") from None
        if len(sides) != len(names) or not 1 <= len(sides) <= 3:
            raise CatalogError(f"{where}: a road tile has 1, 2 or 3 distinct road sides")
        points = as_int(row["points"], f"{where}: points", lo=1, hi=9)
        if points != ROAD_POINTS[len(sides)]:
            raise CatalogError(
                f"{where}: a road with {len(sides)} road side(s) is worth"
                f" {ROAD_POINTS[len(sides)]} vp, not {points}"
            )
    return ParkTile(
        tid,
        _tag(row["tag"], where),
        kind,
        name,
        land,
        points,
        demand,
        flowers,
        view,
        tourist,
        sides,
        as_bool(row["edition_data"], f"{where}: edition_data"),
    )


def parse_tiles(rows: Sequence[Mapping[str, Any]], filename: str = "tiles.csv") -> tuple[ParkTile, ...]:
    """All park tiles; ids and tags unique, exactly the rulebook's 112 tiles."""
    tiles: list[ParkTile] = []
    ids: set[str] = set()
    tags: dict[int, str] = {}
    for i, row in enumerate(rows):
        where = f"{GAME_ID}/{filename} row {i + 2}"
        tile = parse_tile(row, where)
        if tile.id in ids:
            raise CatalogError(f"{where} ({tile.id}): duplicate id")
        if tile.tag in tags:
            raise CatalogError(f"{where} ({tile.id}): tag {tile.tag} already used by {tags[tile.tag]}")
        ids.add(tile.id)
        tags[tile.tag] = tile.id
        tiles.append(tile)
    if len(tiles) != PARK_TILE_COUNT:
        raise CatalogError(
            f"{GAME_ID}/{filename}: the game has {PARK_TILE_COUNT} park tiles, the file lists {len(tiles)}"
        )
    return tuple(tiles)


def parse_colours(doc: Mapping[str, Any], filename: str = "pieces.toml") -> tuple[ColourSet, ...]:
    """The five player colours with their pieces."""
    check_fields(doc, required=("colour",), where=f"{GAME_ID}/{filename}")
    rows = doc["colour"]
    if not isinstance(rows, list) or len(rows) != 5:
        raise CatalogError(f"{GAME_ID}/{filename}: the game has 5 player colours")
    out: list[ColourSet] = []
    names: set[str] = set()
    for i, row in enumerate(rows):
        where = f"{GAME_ID}/{filename} colour[{i}]"
        check_fields(row, required=("name", "hex", "entrance", "figure", "marker", "edition_data"), where=where)
        name = _text(row["name"], where)
        where = f"{where} ({name})"
        if name in names:
            raise CatalogError(f"{where}: duplicate colour")
        names.add(name)
        pieces: list[tuple[str, int]] = []
        for piece in ("entrance", "figure", "marker"):
            pw = f"{where}: {piece}"
            check_fields(row[piece], required=("id", "tag"), where=pw)
            pieces.append((as_id(row[piece]["id"], pw), _tag(row[piece]["tag"], pw)))
        out.append(
            ColourSet(
                name,
                _colour(row["hex"], where),
                *pieces[0],
                *pieces[1],
                *pieces[2],
                as_bool(row["edition_data"], where),
            )
        )
    return tuple(out)


def parse_goals(doc: Mapping[str, Any], filename: str = "goals.toml") -> tuple[GoalTile, ...]:
    """The nine goal tiles, one per goal rule."""
    check_fields(doc, required=("goal",), where=f"{GAME_ID}/{filename}")
    out: list[GoalTile] = []
    for i, row in enumerate(doc["goal"]):
        where = f"{GAME_ID}/{filename} goal[{i}]"
        check_fields(row, required=("id", "tag", "goal", "name", "text"), where=where)
        gid = as_id(row["id"], where)
        where = f"{where} ({gid})"
        out.append(
            GoalTile(
                gid,
                _tag(row["tag"], where),
                _enum(Goal, row["goal"], where, "goal"),
                _text(row["name"], where),
                _text(row["text"], where),
            )
        )
    goals = [g.goal for g in out]
    if sorted(g.value for g in goals) != sorted(g.value for g in Goal):
        raise CatalogError(f"{GAME_ID}/{filename}: needs exactly one tile per goal ({len(Goal)} tiles)")
    return tuple(out)


def track_spaces(columns: int, cell: float, origin: tuple[float, float]) -> tuple[Space, ...]:
    """Spaces S0..S70 snaking through the grid (even rows left to right)."""
    spaces: list[Space] = []
    for n in range(TRACK_SPACES):
        row, col = divmod(n, columns)
        if row % 2:
            col = columns - 1 - col
        spaces.append(
            Space(f"S{n}", origin[0] + (col + 0.5) * cell, origin[1] + (row + 0.5) * cell, cell, cell)
        )
    return tuple(spaces)


def _parse_replacement(r: Any, where: str) -> ReplacementTile:
    """The replacement tile printed with the track (its own tag and face)."""
    check_fields(r, required=("id", "tag", "name", "size_mm", "colour", "edition_data"), where=where)
    return ReplacementTile(
        as_id(r["id"], where),
        _tag(r["tag"], where),
        _text(r["name"], where),
        _size(r["size_mm"], where),
        _colour(r["colour"], where),
        as_bool(r["edition_data"], where),
    )


def parse_track(
    doc: Mapping[str, Any], filename: str = "track.toml"
) -> tuple[TrackBoard, ReplacementTile, dict[tuple[int, int], tuple[int, ...]], dict[tuple[int, int], bool]]:
    """The score track, its replacement tile and the yearly score tables."""
    base = f"{GAME_ID}/{filename}"
    check_fields(doc, required=("board", "replacement", "scores"), where=base)
    b = doc["board"]
    where = f"{base} [board]"
    check_fields(
        b,
        required=("id", "tag", "name", "size_mm", "colour", "columns", "cell_mm", "origin_mm",
                  "edition_data", "anchor", "space"),
        where=where,
    )
    size = _size(b["size_mm"], where)
    anchors: list[Anchor] = []
    for i, a in enumerate(b["anchor"]):
        aw = f"{where} anchor[{i}]"
        check_fields(a, required=("tag", "x_mm", "y_mm", "size_mm"), where=aw)
        anchor = Anchor(
            _tag(a["tag"], aw),
            float(as_int(a["x_mm"], aw, lo=0, hi=int(size[0]))),
            float(as_int(a["y_mm"], aw, lo=0, hi=int(size[1]))),
            float(as_int(a["size_mm"], aw, lo=16, hi=20)),
        )
        half = anchor.size_mm / 2
        if not (half <= anchor.x_mm <= size[0] - half and half <= anchor.y_mm <= size[1] - half):
            raise CatalogError(f"{aw}: the anchor tag must lie inside the board")
        anchors.append(anchor)
    if len(anchors) < 3:
        raise CatalogError(f"{where}: a board needs at least 3 anchor tags")
    columns = as_int(b["columns"], f"{where}: columns", lo=2, hi=40)
    cell = float(as_int(b["cell_mm"], f"{where}: cell_mm", lo=10, hi=40))
    origin_raw = b["origin_mm"]
    if not (isinstance(origin_raw, list) and len(origin_raw) == 2):
        raise CatalogError(f"{where}: origin_mm must be [x, y]")
    origin = (float(as_int(origin_raw[0], where, lo=0)), float(as_int(origin_raw[1], where, lo=0)))
    spaces = list(track_spaces(columns, cell, origin))
    for i, s in enumerate(b["space"]):
        sw = f"{where} space[{i}]"
        check_fields(s, required=("name", "x_mm", "y_mm", "w_mm", "h_mm"), where=sw)
        spaces.append(
            Space(
                _text(s["name"], sw),
                float(as_int(s["x_mm"], sw, lo=0)),
                float(as_int(s["y_mm"], sw, lo=0)),
                float(as_int(s["w_mm"], sw, lo=5)),
                float(as_int(s["h_mm"], sw, lo=5)),
            )
        )
    names = [s.name for s in spaces]
    for needed in ("Y1", "Y2", "Y3", "TABLE"):
        if needed not in names:
            raise CatalogError(f"{where}: missing space {needed}")
    if len(set(names)) != len(names):
        raise CatalogError(f"{where}: duplicate space names")
    for s in spaces:
        if not (s.w_mm / 2 <= s.x_mm <= size[0] - s.w_mm / 2 and s.h_mm / 2 <= s.y_mm <= size[1] - s.h_mm / 2):
            raise CatalogError(f"{where}: space {s.name} lies outside the board")
    board = TrackBoard(
        as_id(b["id"], where),
        _tag(b["tag"], where),
        _text(b["name"], where),
        size,
        _colour(b["colour"], where),
        tuple(anchors),
        tuple(spaces),
        as_bool(b["edition_data"], where),
    )
    replacement = _parse_replacement(doc["replacement"], f"{base} [replacement]")
    scores: dict[tuple[int, int], tuple[int, ...]] = {}
    edition: dict[tuple[int, int], bool] = {}
    for i, row in enumerate(doc["scores"]):
        sw = f"{base} scores[{i}]"
        check_fields(row, required=("players", "year", "points", "edition_data"), where=sw)
        players = as_int(row["players"], f"{sw}: players", lo=2, hi=5)
        year = as_int(row["year"], f"{sw}: year", lo=1, hi=3)
        pts = row["points"]
        if not isinstance(pts, list) or len(pts) != players:
            raise CatalogError(f"{sw}: points must list one value per rank ({players})")
        values = tuple(as_int(p, f"{sw}: points", lo=0, hi=20) for p in pts)
        if any(a < b for a, b in zip(values, values[1:])):
            raise CatalogError(f"{sw}: points must not grow with worse ranks")
        if (players, year) in scores:
            raise CatalogError(f"{sw}: duplicate table for {players} players, year {year}")
        scores[(players, year)] = values
        edition[(players, year)] = as_bool(row["edition_data"], sw)
    for players in TURNS_PER_YEAR:
        for year in (1, 2, 3):
            if (players, year) not in scores:
                raise CatalogError(f"{base}: no score table for {players} players, year {year}")
    return board, replacement, scores, edition


def parse_markets(doc: Mapping[str, Any], filename: str = "market.toml") -> dict[int, MarketLayout]:
    """Market grids per player count; every game must fit in the 112 tiles."""
    base = f"{GAME_ID}/{filename}"
    check_fields(doc, required=("layout",), where=base)
    out: dict[int, MarketLayout] = {}
    for i, row in enumerate(doc["layout"]):
        where = f"{base} layout[{i}]"
        check_fields(row, required=("players", "columns", "rows", "figures", "edition_data"), where=where)
        players = as_int(row["players"], f"{where}: players", lo=2, hi=5)
        cols = as_int(row["columns"], f"{where}: columns", lo=2, hi=6)
        rows = as_int(row["rows"], f"{where}: rows", lo=2, hi=6)
        figures: list[tuple[tuple[int, int], Side]] = []
        for j, f in enumerate(row["figures"]):
            fw = f"{where} figures[{j}]"
            check_fields(f, required=("cell", "facing"), where=fw)
            c = f["cell"]
            if not (isinstance(c, list) and len(c) == 2):
                raise CatalogError(f"{fw}: cell must be [x, y]")
            cell = (as_int(c[0], fw, lo=0, hi=cols - 1), as_int(c[1], fw, lo=0, hi=rows - 1))
            try:
                facing = Side[f["facing"]]
            except KeyError:
                raise CatalogError(f"{fw}: facing must be N, E, S or W") from None
            figures.append((cell, facing))
        if len(figures) != players or len({c for c, _ in figures}) != players:
            raise CatalogError(f"{where}: needs one start cell per player, all different")
        layout = MarketLayout(players, cols, rows, tuple(figures), as_bool(row["edition_data"], where))
        used = layout.tile_count + players * sum(TURNS_PER_YEAR[players])
        if used > PARK_TILE_COUNT:
            raise CatalogError(
                f"{where}: {layout.tile_count} market tiles and {players} x"
                f" {sum(TURNS_PER_YEAR[players])} turns need {used} of the {PARK_TILE_COUNT} tiles"
            )
        if players in out:
            raise CatalogError(f"{where}: duplicate layout for {players} players")
        out[players] = layout
    missing = sorted(set(TURNS_PER_YEAR) - set(out))
    if missing:
        raise CatalogError(f"{base}: no market layout for {missing} players")
    return out


def load_catalog() -> HabitatsCatalog:
    """Read and validate every data file of the edition."""
    tiles = parse_tiles(read_data(GAME_ID, "tiles.csv"))
    colours = parse_colours(read_data(GAME_ID, "pieces.toml"))
    goals = parse_goals(read_data(GAME_ID, "goals.toml"))
    board, replacement, scores, edition = parse_track(read_data(GAME_ID, "track.toml"))
    markets = parse_markets(read_data(GAME_ID, "market.toml"))
    return HabitatsCatalog(
        tiles, colours, goals, board, replacement, scores, edition, markets, {t.id: t for t in tiles}
    )
