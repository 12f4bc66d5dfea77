"""The Biomos edition: terrain tokens, biome cards, planet board sides and the Black Hole.

Everything is read from ``scoring/data/biomos/`` and validated strictly, so an owner of
the boxed game can correct a card or a space position without touching code.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..catalog import ID_PATTERN, TAG_COUNT, as_bool, as_int, check_fields, read_data
from ..model import Anchor, CatalogError, Component, ComponentId, Shape, Space

GAME_ID = "biomos"


class Terrain(enum.Enum):
    """The five terrain types of the tokens (values are the names used in data files)."""

    OCEAN = "ocean"
    DESERT = "desert"
    FOREST = "forest"
    MOUNTAIN = "mountain"
    GLACIER = "glacier"

    @property
    def letter(self) -> str:
        """The one-letter code used in biome patterns."""
        return _LETTERS[self]


_LETTERS = {
    Terrain.OCEAN: "O",
    Terrain.DESERT: "D",
    Terrain.FOREST: "F",
    Terrain.MOUNTAIN: "M",
    Terrain.GLACIER: "G",
}
_BY_LETTER = {v: k for k, v in _LETTERS.items()}
JOKER = "*"


class BiomeKind(enum.Enum):
    """Basic biome cards are replaced when completed; giant ones are not."""

    BASIC = "basic"
    GIANT = "giant"


class Side(enum.Enum):
    """The printed side of a planet board (and of the Black Hole card) sets the game mode."""

    DISCOVERY = "discovery"
    ADVANCED = "advanced"


#: A pattern position: a terrain, or None for the joker.
PatternSymbol = Terrain | None


@dataclass(frozen=True, slots=True)
class TerrainType:
    """One terrain type as printed: its pattern letter, token count and colour."""

    terrain: Terrain
    count: int
    colour: str


@dataclass(frozen=True, slots=True)
class TerrainToken:
    """One physical terrain token; the serial lets the pouch be audited."""

    id: ComponentId
    terrain: Terrain
    serial: int
    tag: int
    edition_data: bool


@dataclass(frozen=True, slots=True)
class BiomeCard:
    """A biome card: its pattern of terrains (None = joker) and its points."""

    id: ComponentId
    kind: BiomeKind
    number: int
    name: str
    pattern: tuple[PatternSymbol, ...]
    points: int
    tag: int

    @property
    def pattern_text(self) -> str:
        """The pattern as printed letters, e.g. ``F * F``."""
        return pattern_text(self.pattern)

    @property
    def terrains_needed(self) -> Counter[Terrain]:
        """The non-joker terrains of the pattern as a multiset (what the Black Hole absorbs)."""
        return Counter(s for s in self.pattern if s is not None)


@dataclass(frozen=True, slots=True)
class Layout:
    """Where the spaces of one board side are, in millimetres from its top-left corner."""

    side: Side
    size_mm: tuple[float, float]
    spaces: tuple[Space, ...]

    @property
    def space_names(self) -> frozenset[str]:
        return frozenset(s.name for s in self.spaces)


@dataclass(frozen=True, slots=True)
class BoardFace:
    """One printed side of a planet board (each side is its own component)."""

    id: ComponentId
    board: int
    side: Side
    planet_type: Terrain | None
    """The advanced side's planet type (its planet bonus); None on the discovery side."""
    tag: int
    colour: str
    anchors: tuple[Anchor, ...]
    layout: Layout


@dataclass(frozen=True, slots=True)
class BlackHoleSide:
    """One side of the solo opponent's card: its mode and its base points."""

    id: ComponentId
    side: Side
    base_points: int
    tag: int
    colour: str
    size_mm: tuple[float, float]


@dataclass(frozen=True, slots=True)
class CardStyle:
    """How one kind of biome card is printed."""

    size_mm: tuple[float, float]
    colour: str
    back: str


@dataclass(frozen=True, slots=True)
class Catalog:
    """Every component of the edition, by kind, with lookups by id."""

    terrains: tuple[TerrainType, ...]
    token_size_mm: float
    tokens: tuple[TerrainToken, ...]
    biomes: tuple[BiomeCard, ...]
    card_styles: Mapping[BiomeKind, CardStyle]
    faces: tuple[BoardFace, ...]
    black_holes: tuple[BlackHoleSide, ...]

    by_id: Mapping[str, TerrainToken | BiomeCard | BoardFace | BlackHoleSide]
    """Every catalog entry by component id."""

    def token(self, cid: str) -> TerrainToken | None:
        item = self.by_id.get(cid)
        return item if isinstance(item, TerrainToken) else None

    def biome(self, cid: str) -> BiomeCard | None:
        item = self.by_id.get(cid)
        return item if isinstance(item, BiomeCard) else None

    def face(self, cid: str) -> BoardFace | None:
        item = self.by_id.get(cid)
        return item if isinstance(item, BoardFace) else None

    def black_hole(self, cid: str) -> BlackHoleSide | None:
        item = self.by_id.get(cid)
        return item if isinstance(item, BlackHoleSide) else None

    def terrain_colour(self, terrain: Terrain) -> str:
        for t in self.terrains:
            if t.terrain is terrain:
                return t.colour
        raise KeyError(terrain)


def pattern_text(pattern: Sequence[PatternSymbol]) -> str:
    """Pattern symbols as the letters printed on the card (``*`` for the joker)."""
    return " ".join(JOKER if s is None else s.letter for s in pattern)


def terrain_of_letter(letter: str, where: str) -> Terrain:
    try:
        return _BY_LETTER[letter]
    except KeyError:
        raise CatalogError(f"{where}: unknown terrain letter {letter!r}") from None


def _terrain(value: Any, where: str) -> Terrain:
    try:
        return Terrain(value)
    except ValueError:
        raise CatalogError(
            f"{where}: unknown terrain {value!r} (one of {', '.join(t.value for t in Terrain)})"
        ) from None


def _side(value: Any, where: str) -> Side:
    try:
        return Side(value)
    except ValueError:
        raise CatalogError(f"{where}: side must be discovery or advanced, got {value!r}") from None


def _number(value: Any, where: str, lo: float, hi: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise CatalogError(f"{where}: expected a number, got {value!r}")
    if not lo <= value <= hi:
        raise CatalogError(f"{where}: {value} outside {lo}..{hi}")
    return float(value)


def _size(value: Any, where: str) -> tuple[float, float]:
    if not isinstance(value, list) or len(value) != 2:
        raise CatalogError(f"{where}: size_mm must be [width, height]")
    return (_number(value[0], where, 5, 600), _number(value[1], where, 5, 600))


def _space_shape(value: Any, where: str) -> Shape:
    """A planet's spaces are printed round (``space_shape = "round"``) so a ring of them never overlaps."""
    try:
        return Shape(value)
    except ValueError:
        names = ", ".join(s.value for s in Shape)
        raise CatalogError(f"{where}: space_shape must be one of {names}, got {value!r}") from None


def _colour(value: Any, where: str) -> str:
    if not isinstance(value, str) or len(value) != 7 or not value.startswith("#"):
        raise CatalogError(f"{where}: colour must be #rrggbb, got {value!r}")
    try:
        int(value[1:], 16)
    except ValueError:
        raise CatalogError(f"{where}: colour must be #rrggbb, got {value!r}") from None
    return value


def _component_id(value: Any, where: str, seen: dict[str, str]) -> ComponentId:
    if not isinstance(value, str) or not ID_PATTERN.fullmatch(value):
        raise CatalogError(f"{where}: id {value!r} must match {ID_PATTERN.pattern}")
    if value in seen:
        raise CatalogError(f"{where}: duplicate id {value!r} (also {seen[value]})")
    seen[value] = where
    return ComponentId(value)


def _tag(value: Any, where: str, seen: dict[int, str]) -> int:
    tag = as_int(value, f"{where} tag", lo=0, hi=TAG_COUNT - 1)
    if tag in seen:
        raise CatalogError(f"{where}: tag {tag} already used by {seen[tag]}")
    seen[tag] = where
    return tag


# -- loaders -------------------------------------------------------------------


def parse_terrains(doc: Mapping[str, Any], src: str = "terrains.toml") -> tuple[tuple[TerrainType, ...], float]:
    """The terrain types and the token diameter; every terrain exactly once."""
    where = f"{GAME_ID}/{src}"
    check_fields(doc, required=("token", "terrain"), where=where)
    check_fields(doc["token"], required=("size_mm",), optional=("edition_data",), where=f"{where} [token]")
    size = _number(doc["token"]["size_mm"], f"{where} [token] size_mm", 22, 60)
    rows = doc["terrain"]
    if not isinstance(rows, list):
        raise CatalogError(f"{where}: [[terrain]] must be a list of tables")
    out: list[TerrainType] = []
    for i, row in enumerate(rows):
        w = f"{where} terrain #{i + 1}"
        check_fields(row, required=("name", "letter", "count", "colour"), where=w)
        terrain = _terrain(row["name"], w)
        if row["letter"] != terrain.letter:
            raise CatalogError(f"{w}: letter of {terrain.value} must be {terrain.letter!r}")
        if any(t.terrain is terrain for t in out):
            raise CatalogError(f"{w}: terrain {terrain.value} listed twice")
        out.append(TerrainType(terrain, as_int(row["count"], f"{w} count", lo=1, hi=60), _colour(row["colour"], w)))
    missing = set(Terrain) - {t.terrain for t in out}
    if missing:
        raise CatalogError(f"{where}: missing terrain(s) {', '.join(sorted(t.value for t in missing))}")
    return tuple(out), size


def parse_tokens(
    rows: Sequence[Mapping[str, Any]],
    terrains: Sequence[TerrainType],
    ids: dict[str, str],
    tags: dict[int, str],
    src: str = "tokens.csv",
) -> tuple[TerrainToken, ...]:
    """The 60 tokens: per-terrain counts as in terrains.toml, serials 1..60 each once."""
    where = f"{GAME_ID}/{src}"
    out: list[TerrainToken] = []
    serials: dict[int, str] = {}
    for i, row in enumerate(rows):
        w = f"{where} row {i + 2} ({row.get('id', '?')})"
        check_fields(row, required=("id", "terrain", "serial", "tag", "edition_data"), where=w)
        cid = _component_id(row["id"], w, ids)
        serial = as_int(row["serial"], f"{w} serial", lo=1, hi=60)
        if serial in serials:
            raise CatalogError(f"{w}: serial {serial} already used by {serials[serial]}")
        serials[serial] = cid
        out.append(
            TerrainToken(
                cid, _terrain(row["terrain"], w), serial, _tag(row["tag"], w, tags), as_bool(row["edition_data"], w)
            )
        )
    counts = Counter(t.terrain for t in out)
    for t in terrains:
        if counts[t.terrain] != t.count:
            raise CatalogError(f"{where}: {counts[t.terrain]} {t.terrain.value} tokens, the game has {t.count}")
    return tuple(out)


_KIND_COUNTS = {BiomeKind.BASIC: 30, BiomeKind.GIANT: 10}
_KIND_POINTS = {BiomeKind.BASIC: (3, 5, 7), BiomeKind.GIANT: (10,)}


def parse_biomes(
    rows: Sequence[Mapping[str, Any]], ids: dict[str, str], tags: dict[int, str], src: str = "biomes.csv"
) -> tuple[BiomeCard, ...]:
    """30 basic and 10 giant cards with numbers, names, patterns and points."""
    where = f"{GAME_ID}/{src}"
    out: list[BiomeCard] = []
    numbers: set[tuple[BiomeKind, int]] = set()
    for i, row in enumerate(rows):
        w = f"{where} row {i + 2} ({row.get('id', '?')})"
        check_fields(row, required=("id", "kind", "number", "name", "pattern", "points", "tag"), where=w)
        cid = _component_id(row["id"], w, ids)
        try:
            kind = BiomeKind(row["kind"])
        except ValueError:
            raise CatalogError(f"{w}: kind must be basic or giant, got {row['kind']!r}") from None
        number = as_int(row["number"], f"{w} number", lo=1, hi=_KIND_COUNTS[kind])
        if (kind, number) in numbers:
            raise CatalogError(f"{w}: {kind.value} biome number {number} listed twice")
        numbers.add((kind, number))
        name = (row["name"] or "").strip()
        if not name:
            raise CatalogError(f"{w}: empty name")
        letters = (row["pattern"] or "").split()
        if not 2 <= len(letters) <= 7:
            raise CatalogError(f"{w}: a pattern has 2 to 7 symbols, got {row['pattern']!r}")
        pattern = tuple(None if s == JOKER else terrain_of_letter(s, w) for s in letters)
        if pattern[0] is None or pattern[-1] is None:
            raise CatalogError(f"{w}: a pattern starts and ends with a terrain, not a joker")
        points = as_int(row["points"], f"{w} points", lo=1, hi=20)
        if points not in _KIND_POINTS[kind]:
            raise CatalogError(f"{w}: a {kind.value} biome is worth {_KIND_POINTS[kind]}, got {points}")
        out.append(BiomeCard(cid, kind, number, name, pattern, points, _tag(row["tag"], w, tags)))
    for kind, n in _KIND_COUNTS.items():
        have = sum(1 for b in out if b.kind is kind)
        if have != n:
            raise CatalogError(f"{where}: {have} {kind.value} biome cards, the game has {n}")
    return tuple(out)


def parse_card_styles(doc: Mapping[str, Any], src: str = "cards.toml") -> dict[BiomeKind, CardStyle]:
    """Print size, colour and back text of each kind of biome card."""
    where = f"{GAME_ID}/{src}"
    check_fields(doc, required=tuple(k.value for k in BiomeKind), where=where)
    out: dict[BiomeKind, CardStyle] = {}
    for kind in BiomeKind:
        w = f"{where} [{kind.value}]"
        row = doc[kind.value]
        check_fields(row, required=("size_mm", "colour", "back"), optional=("edition_data",), where=w)
        size = _size(row["size_mm"], w)
        if min(size) < 40:
            raise CatalogError(f"{w}: a card needs room for a 20 mm code and its pattern (>= 40 mm)")
        if not isinstance(row["back"], str) or not row["back"]:
            raise CatalogError(f"{w}: back must be a text")
        out[kind] = CardStyle(size, _colour(row["colour"], w), row["back"])
    return out


_PLANET_SPACES = tuple(f"P{i}" for i in range(1, 13))
_SIDE_SPACES = {
    Side.DISCOVERY: frozenset((*_PLANET_SPACES, "MOON")),
    Side.ADVANCED: frozenset((*_PLANET_SPACES, "MOON", "R1", "R2")),
}


def parse_layouts(doc: Mapping[str, Any], where: str) -> dict[Side, Layout]:
    """Space centres per side: discovery P1..P12 + MOON; advanced also R1, R2."""
    if not isinstance(doc, Mapping):
        raise CatalogError(f"{where}: [layout] must be a table")
    check_fields(doc, required=tuple(s.value for s in Side), where=f"{where} [layout]")
    out: dict[Side, Layout] = {}
    for side in Side:
        w = f"{where} [layout.{side.value}]"
        row = doc[side.value]
        check_fields(row, required=("size_mm", "spaces"), optional=("edition_data", "space_shape"), where=w)
        width, height = _size(row["size_mm"], w)
        shape = _space_shape(row.get("space_shape", Shape.RECT.value), w)
        spaces: list[Space] = []
        for j, sp in enumerate(row["spaces"]):
            ws = f"{w} space #{j + 1}"
            check_fields(sp, required=("name", "x_mm", "y_mm", "w_mm", "h_mm"), where=ws)
            name = sp["name"]
            if name not in _SIDE_SPACES[side]:
                raise CatalogError(f"{ws}: no space {name!r} on the {side.value} side")
            if any(s.name == name for s in spaces):
                raise CatalogError(f"{ws}: space {name} listed twice")
            w_mm = _number(sp["w_mm"], ws, 22, 60)
            h_mm = _number(sp["h_mm"], ws, 22, 60)
            x = _number(sp["x_mm"], ws, w_mm / 2, width - w_mm / 2)
            y = _number(sp["y_mm"], ws, h_mm / 2, height - h_mm / 2)
            spaces.append(Space(name, x, y, w_mm, h_mm, shape))
        missing = _SIDE_SPACES[side] - {s.name for s in spaces}
        if missing:
            raise CatalogError(f"{w}: missing space(s) {', '.join(sorted(missing))}")
        out[side] = Layout(side, (width, height), tuple(spaces))
    return out


def parse_boards(
    doc: Mapping[str, Any], ids: dict[str, str], tags: dict[int, str], src: str = "boards.toml"
) -> tuple[tuple[BoardFace, ...], tuple[BlackHoleSide, ...]]:
    """Eight planet board sides (4 boards x 2) and the two Black Hole sides."""
    where = f"{GAME_ID}/{src}"
    check_fields(doc, required=("layout", "face", "black_hole"), where=where)
    layouts = parse_layouts(doc["layout"], where)
    faces: list[BoardFace] = []
    for i, row in enumerate(doc["face"]):
        w = f"{where} face #{i + 1} ({row.get('id', '?')})"
        check_fields(
            row, required=("id", "board", "side", "planet_type", "tag", "colour", "anchors"),
            optional=("edition_data",), where=w,
        )
        cid = _component_id(row["id"], w, ids)
        side = _side(row["side"], w)
        planet_type = None
        if side is Side.ADVANCED:
            planet_type = _terrain(row["planet_type"], w)
        elif row["planet_type"]:
            raise CatalogError(f"{w}: the discovery side has no planet type")
        layout = layouts[side]
        anchors: list[Anchor] = []
        for j, a in enumerate(row["anchors"]):
            wa = f"{w} anchor #{j + 1}"
            if not isinstance(a, list) or len(a) != 4:
                raise CatalogError(f"{wa}: expected [tag, x_mm, y_mm, size_mm]")
            size = _number(a[3], wa, 16, 20)
            x = _number(a[1], wa, size / 2, layout.size_mm[0] - size / 2)
            y = _number(a[2], wa, size / 2, layout.size_mm[1] - size / 2)
            anchors.append(Anchor(_tag(a[0], wa, tags), x, y, size))
        if len(anchors) < 3:
            raise CatalogError(f"{w}: a board side needs at least 3 anchor tags")
        faces.append(
            BoardFace(
                cid, as_int(row["board"], f"{w} board", lo=1, hi=4), side, planet_type,
                _tag(row["tag"], w, tags), _colour(row["colour"], w), tuple(anchors), layout,
            )
        )
    for board in range(1, 5):
        sides = sorted(f.side.value for f in faces if f.board == board)
        if sides != ["advanced", "discovery"]:
            raise CatalogError(f"{where}: planet board {board} must have one discovery and one advanced side")
    types = [f.planet_type for f in faces if f.planet_type is not None]
    if len(set(types)) != len(types):
        raise CatalogError(f"{where}: two advanced sides share a planet type")
    holes: list[BlackHoleSide] = []
    for i, row in enumerate(doc["black_hole"]):
        w = f"{where} black_hole #{i + 1} ({row.get('id', '?')})"
        check_fields(
            row, required=("id", "side", "base_points", "tag", "colour", "size_mm"), optional=("edition_data",), where=w
        )
        holes.append(
            BlackHoleSide(
                _component_id(row["id"], w, ids), _side(row["side"], w),
                as_int(row["base_points"], f"{w} base_points", lo=1, hi=100),
                _tag(row["tag"], w, tags), _colour(row["colour"], w), _size(row["size_mm"], w),
            )
        )
    if sorted(h.side.value for h in holes) != ["advanced", "discovery"]:
        raise CatalogError(f"{where}: the Black Hole card has one discovery and one advanced side")
    return tuple(faces), tuple(holes)


def load_catalog() -> Catalog:
    """Read and cross-check every Biomos data file."""
    ids: dict[str, str] = {}
    tags: dict[int, str] = {}
    terrains, token_size = parse_terrains(read_data(GAME_ID, "terrains.toml"))
    tokens = parse_tokens(read_data(GAME_ID, "tokens.csv"), terrains, ids, tags)
    biomes = parse_biomes(read_data(GAME_ID, "biomes.csv"), ids, tags)
    styles = parse_card_styles(read_data(GAME_ID, "cards.toml"))
    faces, holes = parse_boards(read_data(GAME_ID, "boards.toml"), ids, tags)
    by_id = {x.id: x for group in (tokens, biomes, faces, holes) for x in group}
    return Catalog(terrains, token_size, tokens, biomes, styles, faces, holes, by_id)


# -- the common component summary -------------------------------------------------


def components(cat: Catalog) -> tuple[Component, ...]:
    """Every physical face of the edition as printers and scanners see it."""
    out: list[Component] = []
    colours = {t.terrain: t.colour for t in cat.terrains}
    size = (cat.token_size_mm, cat.token_size_mm)
    for t in cat.tokens:
        out.append(
            Component(
                t.id, "token", f"{t.terrain.value.capitalize()} token", t.tag, size, Shape.ROUND,
                colours[t.terrain], (t.terrain.value.capitalize(), f"serial {t.serial}"),
                edition_data=t.edition_data,
            )
        )
    for b in cat.biomes:
        style = cat.card_styles[b.kind]
        out.append(
            Component(
                b.id, "card", b.name, b.tag, style.size_mm, Shape.RECT, style.colour,
                (b.name, f"{b.kind.value} biome", b.pattern_text, f"{b.points} points"),
                back=style.back,
            )
        )
    for f in cat.faces:
        if f.planet_type is None:
            lines: tuple[str, ...] = (
                f"Planet board {f.board}", "discovery side", "Moon: 3 points per matching terrain"
            )
        else:
            lines = (
                f"Planet board {f.board}", f"advanced side: {f.planet_type.value} planet",
                "Forest bonus: 1 point per forest", f"Planet bonus: 1 point per {f.planet_type.value}",
                "Moon: 3 points per matching terrain",
            )
        out.append(
            Component(
                f.id, "board", f"Planet board {f.board} ({f.side.value})", f.tag, f.layout.size_mm, Shape.RECT,
                f.colour, lines, anchors=f.anchors, spaces=f.layout.spaces, edition_data=True,
            )
        )
    for h in cat.black_holes:
        out.append(
            Component(
                h.id, "blackhole", f"Black Hole ({h.side.value})", h.tag, h.size_mm, Shape.RECT, h.colour,
                ("Black Hole", f"{h.side.value} mode", f"{h.base_points} points",
                 "establishes 1 biome a turn: ignores jokers and order"),
                edition_data=True,
            )
        )
    return tuple(out)
