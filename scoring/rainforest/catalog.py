"""Rainforest's edition catalog: tiles, species tokens, boards and bonus tokens, read from data files."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..catalog import TAG_COUNT, as_bool, as_id, as_int, check_fields, read_data
from ..model import CatalogError
from .entries import (
    BoardLayout,
    BonusToken,
    Catalog,
    Colour,
    EDITION_FILE,
    GAME_ID,
    JungleTile,
    MainBoard,
    PlayerBoard,
    ProtectedArea,
    Sizes,
    SlotKind,
    SlotRule,
    Species,
    SpeciesToken,
    TILES_FILE,
    TOKENS_FILE,
    Zone,
)


BOARD_SPACES = tuple(f"J{i}" for i in range(1, 10)) + ("C1", "C2", "C3") + ("R1", "R2")
_TILE_FIELDS = ("id", "tag", "pile", "colours", "points", "slots", "edition_data")
_TOKEN_FIELDS = ("id", "tag", "species", "colour", "serial")
_SLOT_COUNT_NAMES = {1: "one", 2: "two", 3: "three"}


def _enum(cls: type[enum.Enum], value: Any, where: str) -> Any:
    try:
        return cls(value)
    except ValueError as exc:
        allowed = ", ".join(m.value for m in cls)
        raise CatalogError(f"{where}: {value!r} is not one of {allowed}") from exc


def _tag(value: Any, where: str) -> int:
    return as_int(value, f"{where} tag", lo=0, hi=TAG_COUNT - 1)


def _point(value: Any, where: str) -> tuple[float, float]:
    if (
        isinstance(value, (list, tuple))
        and len(value) == 2
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 for v in value)
    ):
        return (float(value[0]), float(value[1]))
    raise CatalogError(f"{where}: expected [x, y] in mm, got {value!r}")


def _positive(value: Any, where: str) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return float(value)
    raise CatalogError(f"{where}: expected a positive size in mm, got {value!r}")


def _table(doc: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any]:
    value = doc.get(key)
    if not isinstance(value, Mapping):
        raise CatalogError(f"{where}: missing table [{key}]")
    return value


def parse_slot(text: str, where: str, token_colours: frozenset[Colour]) -> SlotRule:
    """One slot word: ``any``, a species name or a token colour."""
    if text == "any":
        return SlotRule(SlotKind.ANY)
    if text in {s.value for s in Species}:
        return SlotRule(SlotKind.SPECIES, species=Species(text))
    if text in {c.value for c in Colour}:
        colour = Colour(text)
        if colour not in token_colours:
            raise CatalogError(f"{where}: no species token is {text}, so no token could fill this slot")
        return SlotRule(SlotKind.COLOUR, colour=colour)
    raise CatalogError(f"{where}: slot {text!r} is not 'any', a species or a colour")


def parse_tile(row: Mapping[str, Any], where: str, token_colours: frozenset[Colour]) -> JungleTile:
    """One row of tiles.csv, validated."""
    check_fields(row, required=_TILE_FIELDS, where=where)
    tile_id = as_id(row["id"], where)
    where = f"{where} ({tile_id})"
    pile = _enum(Colour, row["pile"], f"{where} pile")
    raw_colours = str(row["colours"]).split("+")
    colours = tuple(_enum(Colour, c, f"{where} colours") for c in raw_colours)
    if len(colours) not in (1, 2) or len(set(colours)) != len(colours):
        raise CatalogError(
            f"{where}: colours must be one colour or two different ones, got {row['colours']!r}"
        )
    if colours[0] is not pile:
        raise CatalogError(
            f"{where}: the first colour must be the pile's ({pile.value}), got {colours[0].value}"
        )
    raw_slots = str(row["slots"]).split("|")
    if not 1 <= len(raw_slots) <= 3:
        raise CatalogError(f"{where}: a tile has 1 to 3 token slots, got {len(raw_slots)}")
    slots = tuple(parse_slot(s, f"{where} slot {i}", token_colours) for i, s in enumerate(raw_slots, 1))
    return JungleTile(
        id=tile_id,
        tag=_tag(row["tag"], where),
        pile=pile,
        colours=colours,
        points=as_int(row["points"], f"{where} points", lo=1, hi=5),
        slots=slots,
        edition_data=as_bool(row["edition_data"], f"{where} edition_data"),
    )


def parse_token(
    row: Mapping[str, Any], where: str, token_colours: frozenset[Colour], per_kind: int
) -> SpeciesToken:
    """One row of tokens.csv, validated."""
    check_fields(row, required=_TOKEN_FIELDS, where=where)
    token_id = as_id(row["id"], where)
    where = f"{where} ({token_id})"
    colour = _enum(Colour, row["colour"], f"{where} colour")
    if colour not in token_colours:
        raise CatalogError(f"{where}: species tokens are never {colour.value}")
    return SpeciesToken(
        id=token_id,
        tag=_tag(row["tag"], where),
        species=_enum(Species, row["species"], f"{where} species"),
        colour=colour,
        serial=as_int(row["serial"], f"{where} serial", lo=1, hi=per_kind),
    )


def _unique(items: Iterable[Any], where: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        if item.id in out:
            raise CatalogError(f"{where}: duplicate id {item.id!r}")
        out[item.id] = item
    return out


def _parse_boards(
    section: Mapping[str, Any], where: str, size: tuple[float, float]
) -> tuple[BoardLayout, dict[str, PlayerBoard]]:
    check_fields(
        section,
        required=("edition_data", "cell_mm", "reserve_mm", "anchor_mm", "anchors", "boards", *BOARD_SPACES),
        where=where,
    )
    spaces = {name: _point(section[name], f"{where} {name}") for name in BOARD_SPACES}
    anchors = tuple(_point(a, f"{where} anchors") for a in section["anchors"])
    if len(anchors) < 3:
        raise CatalogError(f"{where}: a board needs at least 3 anchor tags, got {len(anchors)}")
    anchor_mm = _positive(section["anchor_mm"], f"{where} anchor_mm")
    if not 16 <= anchor_mm <= 20:
        raise CatalogError(f"{where}: anchor tags are 16-20 mm, got {anchor_mm}")
    layout = BoardLayout(
        size_mm=size,
        cell_mm=_point(section["cell_mm"], f"{where} cell_mm"),
        reserve_mm=_point(section["reserve_mm"], f"{where} reserve_mm"),
        anchor_mm=anchor_mm,
        anchors=anchors,
        spaces=spaces,
    )
    boards: list[PlayerBoard] = []
    for i, raw in enumerate(section["boards"]):
        w = f"{where} boards[{i}]"
        check_fields(raw, required=("id", "tag", "totem", "anchor_tags"), where=w)
        tags = tuple(_tag(t, f"{w} anchor") for t in raw["anchor_tags"])
        if len(tags) != len(anchors):
            raise CatalogError(f"{w}: {len(tags)} anchor tags for {len(anchors)} anchor positions")
        boards.append(
            PlayerBoard(
                as_id(raw["id"], w), _tag(raw["tag"], w), _enum(Species, raw["totem"], f"{w} totem"), tags
            )
        )
    totems = [b.totem for b in boards]
    if sorted(t.value for t in totems) != sorted(s.value for s in Species):
        raise CatalogError(
            f"{where}: the boards must carry each totem species exactly once, got {[t.value for t in totems]}"
        )
    return layout, _unique(boards, where)


def _parse_main_board(section: Mapping[str, Any], where: str, size: tuple[float, float]) -> MainBoard:
    check_fields(
        section,
        required=(
            "edition_data",
            "id",
            "tag",
            "anchor_tags",
            "anchor_mm",
            "anchors",
            "pile_mm",
            "token_space_mm",
            "zones",
        ),
        where=where,
    )
    anchors = tuple(_point(a, f"{where} anchors") for a in section["anchors"])
    tags = tuple(_tag(t, f"{where} anchor") for t in section["anchor_tags"])
    if len(anchors) < 3 or len(tags) != len(anchors):
        raise CatalogError(f"{where}: needs at least 3 anchors, each with a tag")
    zones: list[Zone] = []
    for i, raw in enumerate(section["zones"]):
        w = f"{where} zones[{i}]"
        check_fields(raw, required=("number", "pile", "token_spaces"), where=w)
        spaces = tuple(_point(p, f"{w} token_spaces") for p in raw["token_spaces"])
        if not 2 <= len(spaces) <= 6:
            raise CatalogError(f"{w}: a zone has 2 to 6 token spaces, got {len(spaces)}")
        zones.append(
            Zone(as_int(raw["number"], f"{w} number", lo=1, hi=5), _point(raw["pile"], f"{w} pile"), spaces)
        )
    if sorted(z.number for z in zones) != [1, 2, 3, 4, 5]:
        raise CatalogError(f"{where}: the main board has zones 1 to 5, each once")
    return MainBoard(
        id=as_id(section["id"], where),
        tag=_tag(section["tag"], where),
        anchor_tags=tags,
        anchors=anchors,
        anchor_mm=_positive(section["anchor_mm"], f"{where} anchor_mm"),
        size_mm=size,
        pile_mm=_point(section["pile_mm"], f"{where} pile_mm"),
        token_space_mm=_point(section["token_space_mm"], f"{where} token_space_mm"),
        zones=tuple(sorted(zones, key=lambda z: z.number)),
    )


def _parse_protected_areas(
    rows: Sequence[Any], where: str, colours: Sequence[Colour]
) -> dict[str, ProtectedArea]:
    out: list[ProtectedArea] = []
    for i, raw in enumerate(rows):
        w = f"{where}[{i}]"
        check_fields(
            raw, required=("id", "tag", "colour", "size", "multiplier"), optional=("edition_data",), where=w
        )
        out.append(
            ProtectedArea(
                id=as_id(raw["id"], w),
                tag=_tag(raw["tag"], w),
                colour=_enum(Colour, raw["colour"], f"{w} colour"),
                size=as_int(raw["size"], f"{w} size", lo=3, hi=4),
                multiplier=as_int(raw["multiplier"], f"{w} multiplier", lo=2, hi=3),
                edition_data=as_bool(raw.get("edition_data", False), f"{w} edition_data"),
            )
        )
    pairs = sorted((pa.colour.value, pa.size) for pa in out)
    expected = sorted((c.value, s) for c in colours for s in (3, 4))
    if pairs != expected:
        raise CatalogError(f"{where}: need one 3-tile and one 4-tile token per colour, got {pairs}")
    return _unique(out, where)


#: The sections of edition.toml, each required.
_EDITION_SECTIONS = ("edition", "colours", "species", "diversity", "sizes", "tile_slots", "player_board", "main_board",
                     "protected_areas", "diversity_tokens", "binoculars")


def _parse_species(sp: Mapping[str, Any], ew: str) -> int:
    """The species, each named once; returns how many tokens each species has per colour."""
    check_fields(
        sp,
        required=("names", "tokens_per_species_and_colour"),
        optional=("edition_data",),
        where=f"{ew} [species]",
    )
    if sorted(sp["names"]) != sorted(s.value for s in Species):
        raise CatalogError(f"{ew} species.names: must be {', '.join(s.value for s in Species)}")
    return as_int(
        sp["tokens_per_species_and_colour"], f"{ew} species.tokens_per_species_and_colour", lo=1, hi=20
    )


def build_catalog(
    edition: Mapping[str, Any],
    tile_rows: Sequence[Mapping[str, Any]],
    token_rows: Sequence[Mapping[str, Any]],
) -> Catalog:
    """Validate the three data files together into one catalog; any fault is a CatalogError."""
    ew = f"{GAME_ID}/{EDITION_FILE}"
    check_fields(edition, required=_EDITION_SECTIONS, where=ew)
    col = _table(edition, "colours", ew)
    tile_colours, token_colours, hex_colours = _parse_colours(col, ew)

    per_kind = _parse_species(_table(edition, "species", ew), ew)

    div = _table(edition, "diversity", ew)
    check_fields(div, required=("points_per_later_tile", "colours_needed"), where=f"{ew} [diversity]")
    if as_int(div["colours_needed"], f"{ew} diversity.colours_needed") != len(Colour):
        raise CatalogError(
            f"{ew} diversity.colours_needed: the diversity token needs all {len(Colour)} colours"
        )

    sz = _table(edition, "sizes", ew)
    sizes = _parse_sizes(sz, ew)

    ts = _table(edition, "tile_slots", ew)
    slot_positions = _parse_slot_positions(ts, ew)

    layout, boards = _parse_boards(
        _table(edition, "player_board", ew),
        f"{ew} [player_board]",
        _point(sz["player_board_mm"], f"{ew} sizes.player_board_mm"),
    )
    main_board = _parse_main_board(
        _table(edition, "main_board", ew),
        f"{ew} [main_board]",
        _point(sz["main_board_mm"], f"{ew} sizes.main_board_mm"),
    )
    pas = _parse_protected_areas(edition["protected_areas"], f"{ew} protected_areas", tile_colours)
    diversity: list[BonusToken] = []
    for i, raw in enumerate(edition["diversity_tokens"]):
        w = f"{ew} diversity_tokens[{i}]"
        check_fields(raw, required=("id", "tag"), where=w)
        diversity.append(BonusToken(as_id(raw["id"], w), _tag(raw["tag"], w)))
    bino = _table(edition, "binoculars", ew)
    check_fields(bino, required=("id", "tag"), where=f"{ew} [binoculars]")
    binoculars = BonusToken(as_id(bino["id"], f"{ew} binoculars"), _tag(bino["tag"], f"{ew} binoculars"))

    tw = f"{GAME_ID}/{TILES_FILE}"
    tiles = _unique((parse_tile(r, f"{tw} row {i + 2}", token_colours) for i, r in enumerate(tile_rows)), tw)
    per_pile = as_int(col["tiles_per_pile"], f"{ew} colours.tiles_per_pile", lo=1, hi=50)
    for c in Colour:
        n = sum(1 for t in tiles.values() if t.pile is c)
        if n != per_pile:
            raise CatalogError(f"{tw}: the {c.value} pile has {n} tiles, the edition has {per_pile} per pile")

    kw = f"{GAME_ID}/{TOKENS_FILE}"
    tokens = _unique(
        (parse_token(r, f"{kw} row {i + 2}", token_colours, per_kind) for i, r in enumerate(token_rows)), kw
    )
    kinds: dict[tuple[Species, Colour], set[int]] = {}
    for t in tokens.values():
        serials = kinds.setdefault((t.species, t.colour), set())
        if t.serial in serials:
            raise CatalogError(f"{kw} ({t.id}): serial {t.serial} of {t.label} appears twice")
        serials.add(t.serial)
    for s in Species:
        for c in token_colours:
            n = len(kinds.get((s, c), ()))
            if n != per_kind:
                raise CatalogError(
                    f"{kw}: {n} {c.value} {s.value} tokens, the edition has {per_kind} of each kind"
                )

    catalog = Catalog(
        edition=as_int(edition["edition"], f"{ew} edition", lo=0, hi=9),
        tiles=tiles,
        tokens=tokens,
        boards=boards,
        protected_areas=pas,
        diversity_tokens=_unique(diversity, f"{ew} diversity_tokens"),
        binoculars=binoculars,
        main_board=main_board,
        layout=layout,
        sizes=sizes,
        hex_colours=hex_colours,
        slot_positions=slot_positions,
        slot_mm=_positive(ts["slot_mm"], f"{ew} tile_slots.slot_mm"),
        points_per_later_tile=as_int(
            div["points_per_later_tile"], f"{ew} diversity.points_per_later_tile", lo=0, hi=10
        ),
    )
    _check_unique_ids_and_tags(catalog)
    _check_faces(catalog, ew)
    return catalog


def _parse_sizes(sz: Mapping[str, Any], ew: str) -> Sizes:
    """The printed sizes of tiles and tokens (a token carries a 16 mm tag: at least 22 mm)."""
    check_fields(
        sz,
        required=(
            "tile_mm",
            "species_token_mm",
            "protected_area_mm",
            "diversity_mm",
            "binoculars_mm",
            "player_board_mm",
            "main_board_mm",
        ),
        optional=("edition_data",),
        where=f"{ew} [sizes]",
    )
    sizes = Sizes(
        tile_mm=_point(sz["tile_mm"], f"{ew} sizes.tile_mm"),
        species_token_mm=_positive(sz["species_token_mm"], f"{ew} sizes.species_token_mm"),
        protected_area_mm=_positive(sz["protected_area_mm"], f"{ew} sizes.protected_area_mm"),
        diversity_mm=_positive(sz["diversity_mm"], f"{ew} sizes.diversity_mm"),
        binoculars_mm=_point(sz["binoculars_mm"], f"{ew} sizes.binoculars_mm"),
    )
    for name in ("species_token_mm", "protected_area_mm", "diversity_mm"):
        if getattr(sizes, name) < 22:
            raise CatalogError(f"{ew} sizes.{name}: a token must be at least 22 mm to carry its 16 mm tag")

    return sizes


def _parse_slot_positions(ts: Mapping[str, Any], ew: str) -> dict[int, tuple[tuple[float, float], ...]]:
    """Where a tile's token slots lie, for tiles of one, two and three slots."""
    check_fields(ts, required=("edition_data", "slot_mm", "one", "two", "three"), where=f"{ew} [tile_slots]")
    slot_positions = {}
    for n, key in _SLOT_COUNT_NAMES.items():
        pts = tuple(_point(p, f"{ew} tile_slots.{key}") for p in ts[key])
        if len(pts) != n:
            raise CatalogError(f"{ew} tile_slots.{key}: needs {n} slot centre(s), got {len(pts)}")
        slot_positions[n] = pts

    return slot_positions


def _parse_colours(col: Mapping[str, Any], ew: str) -> tuple[tuple[Colour, ...], frozenset[Colour], dict[Colour, str]]:
    """The jungle colours of tiles (each once), of tokens, and their printed hex colours."""
    check_fields(col, required=("tile", "token", "tiles_per_pile", "hex"), where=f"{ew} [colours]")
    tile_colours = tuple(_enum(Colour, c, f"{ew} colours.tile") for c in col["tile"])
    if sorted(c.value for c in tile_colours) != sorted(c.value for c in Colour):
        raise CatalogError(f"{ew} colours.tile: must list the five jungle colours once each")
    token_colours = frozenset(_enum(Colour, c, f"{ew} colours.token") for c in col["token"])
    hex_raw = col["hex"]
    check_fields(
        hex_raw, required=[c.value for c in Colour], optional=("edition_data",), where=f"{ew} [colours.hex]"
    )
    hex_colours = {c: str(hex_raw[c.value]) for c in Colour}

    return tile_colours, token_colours, hex_colours


def _inside(centre: tuple[float, float], size: tuple[float, float], face: tuple[float, float]) -> bool:
    (x, y), (w, h), (fw, fh) = centre, size, face
    return x - w / 2 >= 0 and y - h / 2 >= 0 and x + w / 2 <= fw and y + h / 2 <= fh


def _check_faces(catalog: Catalog, where: str) -> None:
    """Anchors, spaces and slots lie inside the faces that carry them; hex colours are #rrggbb."""
    for colour, value in catalog.hex_colours.items():
        if (
            len(value) != 7
            or not value.startswith("#")
            or any(ch not in "0123456789abcdefABCDEF" for ch in value[1:])
        ):
            raise CatalogError(f"{where} colours.hex.{colour.value}: expected #rrggbb, got {value!r}")
    lay = catalog.layout
    for x, y in lay.anchors:
        if not _inside((x, y), (lay.anchor_mm, lay.anchor_mm), lay.size_mm):
            raise CatalogError(f"{where} [player_board]: anchor at ({x}, {y}) is not inside the board")
    for name, centre in lay.spaces.items():
        size = lay.reserve_mm if name.startswith("R") else lay.cell_mm
        if not _inside(centre, size, lay.size_mm):
            raise CatalogError(f"{where} [player_board]: space {name} is not inside the board")
    mb = catalog.main_board
    if not 16 <= mb.anchor_mm <= 20:
        raise CatalogError(f"{where} [main_board]: anchor tags are 16-20 mm, got {mb.anchor_mm}")
    for x, y in mb.anchors:
        if not _inside((x, y), (mb.anchor_mm, mb.anchor_mm), mb.size_mm):
            raise CatalogError(f"{where} [main_board]: anchor at ({x}, {y}) is not inside the board")
    for z in mb.zones:
        if not _inside(z.pile, mb.pile_mm, mb.size_mm) or not all(
            _inside(c, mb.token_space_mm, mb.size_mm) for c in z.token_spaces
        ):
            raise CatalogError(f"{where} [main_board]: a space of zone {z.number} is not inside the board")
    slot = (catalog.slot_mm, catalog.slot_mm)
    for n, centres in catalog.slot_positions.items():
        if not all(_inside(c, slot, catalog.sizes.tile_mm) for c in centres):
            raise CatalogError(f"{where} [tile_slots]: a slot of a {n}-slot tile is not inside the tile")


def _check_unique_ids_and_tags(catalog: Catalog) -> None:
    """Ids and AprilTag ids are unique across the whole game, anchors included."""
    owners: list[tuple[str, int]] = []
    for group in (catalog.tiles, catalog.tokens, catalog.protected_areas, catalog.diversity_tokens):
        owners.extend((item.id, item.tag) for item in group.values())
    for b in catalog.boards.values():
        owners.append((b.id, b.tag))
        owners.extend((f"{b.id} anchor", t) for t in b.anchor_tags)
    mb = catalog.main_board
    owners.append((mb.id, mb.tag))
    owners.extend((f"{mb.id} anchor", t) for t in mb.anchor_tags)
    owners.append((catalog.binoculars.id, catalog.binoculars.tag))
    ids: set[str] = set()
    tags: dict[int, str] = {}
    for owner, tag in owners:
        if not owner.endswith(" anchor"):
            if owner in ids:
                raise CatalogError(f"{GAME_ID}: component id {owner!r} is used twice")
            ids.add(owner)
        if tag in tags:
            raise CatalogError(f"{GAME_ID}: tag {tag} of {owner} is already used by {tags[tag]}")
        tags[tag] = owner


def load_catalog() -> Catalog:
    """The packaged edition, read from scoring/data/rainforest/."""
    return build_catalog(
        read_data(GAME_ID, EDITION_FILE),
        read_data(GAME_ID, TILES_FILE),
        read_data(GAME_ID, TOKENS_FILE),
    )
