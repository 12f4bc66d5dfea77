"""PHYLO catalog: species, event and HOME cards loaded strictly from ``scoring/data/phylo/``."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..catalog import ID_PATTERN, as_int, check_fields, read_data
from ..model import CatalogError
from .entries import (
    _by_count,
    Card,
    CardKind,
    Catalog,
    Climate,
    Deck,
    Diet,
    Duration,
    Edition,
    Effect,
    Event,
    GAME_ID,
    Keyword,
    PointsFormula,
    PointsSource,
    Species,
    Terrain,
)


# -- parsing functions ---------------------------------------------------------------


def _enum_set(enum_cls: type[enum.Enum], raw: Any, where: str, *, allow_empty: bool) -> frozenset[Any]:
    items = raw if isinstance(raw, list) else [p for p in str(raw or "").split(";") if p.strip()]
    out = set()
    for item in items:
        try:
            out.add(enum_cls(str(item).strip()))
        except ValueError as exc:
            known = ", ".join(e.value for e in enum_cls)
            raise CatalogError(f"{where}: unknown value {item!r} (known: {known})") from exc
    if len(out) != len(items):
        raise CatalogError(f"{where}: a value is listed twice")
    if not out and not allow_empty:
        raise CatalogError(f"{where}: needs at least one value")
    return frozenset(out)


def _bool(raw: Any, where: str) -> bool:
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in ("true", "yes"):
        return True
    if text in ("false", "no"):
        return False
    raise CatalogError(f"{where}: expected yes/no or true/false, got {raw!r}")


def _text(raw: Any, where: str, *, max_len: int = 120) -> str:
    if not isinstance(raw, str) or not raw.strip():
        raise CatalogError(f"{where}: must be non-empty text")
    if len(raw) > max_len:
        raise CatalogError(f"{where}: longer than {max_len} characters")
    return raw.strip()


def _key(raw: Any, where: str, *, max_len: int = 12) -> str:
    if not isinstance(raw, str) or not ID_PATTERN.fullmatch(raw) or len(raw) > max_len:
        raise CatalogError(f"{where}: key {raw!r} must match {ID_PATTERN.pattern}")
    return raw


_SPECIES_FIELDS = (
    "key",
    "common_name",
    "latin_name",
    "kingdom",
    "phylum",
    "class",
    "diet",
    "foodchain",
    "scale",
    "climates",
    "terrains",
    "move",
    "flight",
    "keywords",
    "prey_foodchains",
    "points",
    "points_source",
    "edition_data",
    "text",
)


def parse_species(
    rows: Iterable[Mapping[str, Any]], formula: PointsFormula, *, source: str
) -> dict[str, Species]:
    """Species rows -> Species; formula cards must carry exactly the formula's points."""
    out: dict[str, Species] = {}
    for i, row in enumerate(rows):
        where = f"{source} row {i + 2}"
        check_fields(row, required=_SPECIES_FIELDS, where=where)
        key = _key(row["key"], where)
        where = f"{source} species {key}"
        if key in out:
            raise CatalogError(f"{where}: duplicate key")
        try:
            diet = Diet(row["diet"])
            source_kind = PointsSource(row["points_source"])
        except ValueError as exc:
            raise CatalogError(f"{where}: {exc}") from exc
        foodchain = as_int(row["foodchain"], f"{where} foodchain", lo=1, hi=5)
        if diet.is_autotroph != (foodchain == 1) and diet is not Diet.SPECIAL:
            raise CatalogError(f"{where}: autotrophs and only autotrophs are FOODCHAIN#1")
        prey = tuple(
            as_int(p, f"{where} prey_foodchains", lo=1, hi=5)
            for p in str(row["prey_foodchains"] or "").split(";")
            if p.strip()
        )
        if diet is Diet.SPECIAL and foodchain > 1 and not prey:
            raise CatalogError(f"{where}: a black-diet card above FOODCHAIN#1 must list prey_foodchains")
        if diet is not Diet.SPECIAL and prey:
            raise CatalogError(f"{where}: prey_foodchains is only for the black (special) diet")
        if any(p >= foodchain for p in prey):
            raise CatalogError(f"{where}: prey_foodchains must be below its own FOODCHAIN#")
        species = Species(
            key=key,
            common_name=_text(row["common_name"], f"{where} common_name", max_len=40),
            latin_name=_text(row["latin_name"], f"{where} latin_name", max_len=60),
            kingdom=_text(row["kingdom"], f"{where} kingdom", max_len=30),
            phylum=_text(row["phylum"], f"{where} phylum", max_len=30),
            class_=_text(row["class"], f"{where} class", max_len=30),
            diet=diet,
            foodchain=foodchain,
            scale=as_int(row["scale"], f"{where} scale", lo=1, hi=10),
            climates=_enum_set(Climate, row["climates"], f"{where} climates", allow_empty=False),
            terrains=_enum_set(Terrain, row["terrains"], f"{where} terrains", allow_empty=False),
            move=as_int(row["move"], f"{where} move", lo=0, hi=9),
            flight=_bool(row["flight"], f"{where} flight"),
            keywords=_enum_set(Keyword, row["keywords"], f"{where} keywords", allow_empty=True),
            prey_foodchains=prey,
            points=as_int(row["points"], f"{where} points", lo=0, hi=30),
            points_source=source_kind,
            edition_data=_bool(row["edition_data"], f"{where} edition_data"),
            text=_text(row["text"], f"{where} text"),
        )
        if species.flight and species.move == 0:
            raise CatalogError(f"{where}: FLIGHT needs a MOVE number above 0")
        if source_kind is PointsSource.FORMULA:
            expected = formula.points(species)
            if expected is None:
                raise CatalogError(f"{where}: the points formula has no base for diet {diet.value}")
            if expected != species.points:
                raise CatalogError(
                    f"{where}: points {species.points} but the published formula gives {expected}"
                )
        out[key] = species
    return out


_EVENT_FIELDS = (
    "key",
    "name",
    "text",
    "target_kingdoms",
    "target_terrains",
    "target_climates",
    "effect",
    "radius",
    "affects_kingdoms",
    "affects_terrains",
    "duration",
    "edition_data",
)


def _names(raw: Any, where: str) -> frozenset[str]:
    if not isinstance(raw, list) or not all(isinstance(x, str) and x for x in raw):
        raise CatalogError(f"{where}: must be a list of names")
    return frozenset(raw)


def parse_events(rows: Sequence[Mapping[str, Any]], *, source: str) -> dict[str, Event]:
    """Event tables -> Event; an effect's parameter must be present exactly when it needs one."""
    out: dict[str, Event] = {}
    for i, row in enumerate(rows):
        where = f"{source} event #{i + 1}"
        check_fields(row, required=_EVENT_FIELDS, optional=("climates", "terrain"), where=where)
        key = _key(row["key"], where)
        where = f"{source} event {key}"
        if key in out:
            raise CatalogError(f"{where}: duplicate key")
        try:
            effect = Effect(row["effect"])
            duration = Duration(row["duration"])
        except ValueError as exc:
            raise CatalogError(f"{where}: {exc}") from exc
        climates: frozenset[Climate] = frozenset()
        terrain = None
        if effect is Effect.LOSE_CLIMATE:
            if "climates" not in row or "terrain" in row:
                raise CatalogError(f"{where}: lose_climate needs `climates` (and no `terrain`)")
            climates = _enum_set(Climate, row["climates"], f"{where} climates", allow_empty=False)
        elif effect is Effect.TERRAIN_BECOMES:
            if "terrain" not in row or "climates" in row:
                raise CatalogError(f"{where}: terrain_becomes needs `terrain` (and no `climates`)")
            terrain = next(iter(_enum_set(Terrain, [row["terrain"]], f"{where} terrain", allow_empty=False)))
        elif "climates" in row or "terrain" in row:
            raise CatalogError(f"{where}: discard takes no climates or terrain")
        if effect is Effect.DISCARD and duration is not Duration.IMMEDIATE:
            raise CatalogError(f"{where}: a discard effect is immediate")
        if effect is not Effect.DISCARD and duration is not Duration.PERSISTENT:
            raise CatalogError(f"{where}: a lasting effect must be persistent")
        out[key] = Event(
            key=key,
            name=_text(row["name"], f"{where} name", max_len=30),
            text=_text(row["text"], f"{where} text", max_len=160),
            target_kingdoms=(
                _names(row["target_kingdoms"], f"{where} target_kingdoms")
                if row["target_kingdoms"]
                else frozenset()
            ),
            target_terrains=_enum_set(
                Terrain, row["target_terrains"], f"{where} target_terrains", allow_empty=True
            ),
            target_climates=_enum_set(
                Climate, row["target_climates"], f"{where} target_climates", allow_empty=True
            ),
            effect=effect,
            climates=climates,
            terrain=terrain,
            radius=as_int(row["radius"], f"{where} radius", lo=0, hi=2),
            affects_kingdoms=(
                _names(row["affects_kingdoms"], f"{where} affects_kingdoms")
                if row["affects_kingdoms"]
                else frozenset()
            ),
            affects_terrains=_enum_set(
                Terrain, row["affects_terrains"], f"{where} affects_terrains", allow_empty=True
            ),
            duration=duration,
            edition_data=_bool(row["edition_data"], f"{where} edition_data"),
        )
    return out


def parse_cards(
    rows: Iterable[Mapping[str, Any]],
    species: Mapping[str, Species],
    events: Mapping[str, Event],
    deck_ids: Iterable[str],
    *,
    source: str,
) -> dict[str, Card]:
    """Physical cards: unique ids and tags, each species or event it names must exist."""
    decks = set(deck_ids)
    out: dict[str, Card] = {}
    tags: dict[int, str] = {}
    for i, row in enumerate(rows):
        where = f"{source} row {i + 2}"
        check_fields(row, required=("id", "deck", "kind", "ref", "tag"), where=where)
        cid = _key(row["id"], where)
        where = f"{source} card {cid}"
        if cid in out:
            raise CatalogError(f"{where}: duplicate id")
        try:
            kind = CardKind(row["kind"])
        except ValueError as exc:
            raise CatalogError(f"{where}: {exc}") from exc
        if row["deck"] not in decks:
            raise CatalogError(f"{where}: unknown deck {row['deck']!r}")
        ref = row["ref"] or None
        if kind is CardKind.SPECIES and ref not in species:
            raise CatalogError(f"{where}: unknown species {ref!r}")
        if kind is CardKind.EVENT and ref not in events:
            raise CatalogError(f"{where}: unknown event {ref!r}")
        if kind is CardKind.HOME and ref is not None:
            raise CatalogError(f"{where}: a HOME card names no species or event")
        tag = as_int(row["tag"], f"{where} tag", lo=0, hi=586)
        if tag in tags:
            raise CatalogError(f"{where}: tag {tag} already used by {tags[tag]}")
        tags[tag] = cid
        out[cid] = Card(cid, row["deck"], kind, ref, tag)
    return out


def build_decks(
    raw: Sequence[Mapping[str, Any]], cards: Mapping[str, Card], *, source: str
) -> tuple[Deck, ...]:
    """Starter decks from the card list: each holds one HOME card and 20-25 cards in all."""
    decks: list[Deck] = []
    seen: set[str] = set()
    for i, row in enumerate(raw):
        where = f"{source} deck #{i + 1}"
        check_fields(row, required=("id", "name", "edition_data"), where=where)
        did = _key(row["id"], where, max_len=4)
        if did in seen:
            raise CatalogError(f"{where}: duplicate deck id {did}")
        seen.add(did)
        members = tuple(c.id for c in cards.values() if c.deck == did)
        homes = [c for c in members if cards[c].kind is CardKind.HOME]
        if len(homes) != 1:
            raise CatalogError(f"{source} deck {did}: needs exactly one HOME card, has {len(homes)}")
        if not 20 <= len(members) <= 25:
            raise CatalogError(f"{source} deck {did}: {len(members)} cards, a deck holds 20-25")
        decks.append(
            Deck(
                did,
                _text(row["name"], f"{where} name", max_len=60),
                members,
                _bool(row["edition_data"], where),
            )
        )
    return tuple(decks)


def parse_formula(raw: Mapping[str, Any], *, source: str) -> PointsFormula:
    """The points formula table; every diet but black needs a base."""
    fields = (
        "base",
        "one_terrain",
        "two_terrains",
        "three_or_more_terrains",
        "one_climate",
        "two_climates",
        "three_or_more_climates",
        "mobile_threshold",
        "mobile",
        "invasive",
        "minimum",
    )
    where = f"{source} [points_formula]"
    check_fields(raw, required=fields, where=where)
    base_raw = raw["base"]
    if not isinstance(base_raw, Mapping):
        raise CatalogError(f"{where}: base must be a table")
    base: dict[Diet, int] = {}
    for name, value in base_raw.items():
        try:
            diet = Diet(name)
        except ValueError as exc:
            raise CatalogError(f"{where}: unknown diet {name!r}") from exc
        base[diet] = as_int(value, f"{where} base.{name}", lo=0, hi=20)
    missing = [d.value for d in Diet if d is not Diet.SPECIAL and d not in base]
    if missing:
        raise CatalogError(f"{where}: base lacks {', '.join(missing)}")
    ints = {k: as_int(raw[k], f"{where} {k}", lo=-5, hi=10) for k in fields if k != "base"}
    return PointsFormula(base=base, **ints)


def parse_edition(raw: Mapping[str, Any], *, source: str) -> Edition:
    """Print facts and diet colours."""
    check_fields(
        raw, required=("edition", "diet_colours", "deck", "points_formula", "scale_band"), where=source
    )
    ed = raw["edition"]
    where = f"{source} [edition]"
    check_fields(
        ed,
        required=(
            "number",
            "card_size_mm",
            "grid_pitch_mm",
            "max_cell",
            "home_colour",
            "event_colour",
            "edition_data",
        ),
        where=where,
    )
    size = ed["card_size_mm"]
    if not (isinstance(size, list) and len(size) == 2 and all(isinstance(v, (int, float)) for v in size)):
        raise CatalogError(f"{where}: card_size_mm must be [width, height]")
    pitch = float(ed["grid_pitch_mm"])
    if pitch < max(size):
        raise CatalogError(f"{where}: grid_pitch_mm {pitch} is smaller than a card's long side")
    bands = raw["scale_band"]
    for i, band in enumerate(bands):
        check_fields(band, required=("scale", "up_to"), where=f"{source} [[scale_band]] #{i + 1}")
        if as_int(band["scale"], f"{source} [[scale_band]] #{i + 1} scale", lo=1, hi=10) != i + 1:
            raise CatalogError(f"{source} [[scale_band]] #{i + 1}: scales must run 1, 2, 3, ... in order")
    colours: dict[Diet, str] = {}
    for name, value in raw["diet_colours"].items():
        try:
            colours[Diet(name)] = str(value)
        except ValueError as exc:
            raise CatalogError(f"{source} [diet_colours]: unknown diet {name!r}") from exc
    if set(colours) != set(Diet):
        raise CatalogError(f"{source} [diet_colours]: needs a colour for every diet")
    return Edition(
        number=as_int(ed["number"], f"{where} number", lo=0, hi=9),
        card_size_mm=(float(size[0]), float(size[1])),
        grid_pitch_mm=pitch,
        max_cell=as_int(ed["max_cell"], f"{where} max_cell", lo=5, hi=200),
        scale_bands=len(bands),
        home_colour=str(ed["home_colour"]),
        event_colour=str(ed["event_colour"]),
        diet_colours=colours,
    )


def load_catalog() -> Catalog:
    """Read and cross-check every PHYLO data file."""
    raw = read_data(GAME_ID, "edition.toml")
    edition = parse_edition(raw, source="phylo/edition.toml")
    formula = parse_formula(raw["points_formula"], source="phylo/edition.toml")
    species = parse_species(read_data(GAME_ID, "species.csv"), formula, source="phylo/species.csv")
    ev_raw = read_data(GAME_ID, "events.toml")
    check_fields(ev_raw, required=("event",), where="phylo/events.toml")
    events = parse_events(ev_raw["event"], source="phylo/events.toml")
    deck_rows = raw["deck"]
    cards = parse_cards(
        read_data(GAME_ID, "cards.csv"),
        species,
        events,
        (d.get("id") for d in deck_rows),
        source="phylo/cards.csv",
    )
    decks = build_decks(deck_rows, cards, source="phylo/edition.toml")
    for s in species.values():
        if s.scale > edition.scale_bands:
            raise CatalogError(f"phylo/species.csv species {s.key}: scale {s.scale} has no [[scale_band]]")
    used = {c.ref for c in cards.values() if c.kind is CardKind.SPECIES}
    unprinted = sorted(set(species) - used)
    if unprinted:
        raise CatalogError(f"phylo/species.csv: species without a card in cards.csv: {', '.join(unprinted)}")
    return Catalog(edition, formula, species, events, cards, decks)
