"""BIOME Borneo catalog: plants, layer platforms, plant tiles and the cards, read from data files.

Everything is loaded from ``scoring/data/borneo/`` into frozen values and checked on load, so
an owner of the boxed game can correct the edition without touching code.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..catalog import ID_PATTERN, as_int, check_fields, read_data
from ..model import Anchor, CatalogError, Shape, Space
from .entries import (
    Accessory,
    ActionCard,
    ActionKind,
    AnimalCard,
    BONUS_COLOUR,
    BonusCard,
    BonusCondition,
    BonusKind,
    CARD_SIZE_MM,
    Catalog,
    Contact,
    Edge,
    EDGE_COUNT,
    GAME_ID,
    Layer,
    MAX_CHAIN,
    OPEN,
    Plant,
    PLANT_CARD_COLOUR,
    PlantCard,
    Platform,
    Slot,
    Species,
    Tier,
    Tile,
    VINE,
)


#: Axial step (dq, dr) to the neighbouring slot across each edge.
EDGE_STEPS: Mapping[Edge, tuple[int, int]] = {
    Edge.N: (0, -1),
    Edge.NE: (1, -1),
    Edge.SE: (1, 0),
    Edge.S: (0, 1),
    Edge.SW: (-1, 1),
    Edge.NW: (-1, 0),
}


LAYER_COLOURS: Mapping[Layer, str] = {
    Layer.EMERGENT: "#e3c04a",
    Layer.CANOPY: "#6aa84f",
    Layer.UNDERSTORY: "#1f5e3b",
}
TIER_COLOURS: Mapping[Tier, str] = {
    Tier.PRIMARY: "#f1c232",
    Tier.SECONDARY: "#e69138",
    Tier.APEX: "#cc0000",
}
ACTION_COLOURS: Mapping[ActionKind, str] = {
    ActionKind.ABILITY: "#3d85c6",
    ActionKind.DISASTER: "#434343",
}
"""Food chains hold 3 to 5 animals: primary, up to three secondaries, apex."""


# -- field readers -----------------------------------------------------------------


def _str(record: Mapping[str, Any], key: str, where: str) -> str:
    v = record[key]
    if not isinstance(v, str) or not v.strip():
        raise CatalogError(f"{where}: {key} must be a non-empty string, got {v!r}")
    return v.strip()


def _bool(record: Mapping[str, Any], key: str, where: str) -> bool:
    v = record[key]
    if isinstance(v, bool):
        return v
    if isinstance(v, str) and v.strip().lower() in ("true", "false"):
        return v.strip().lower() == "true"
    raise CatalogError(f"{where}: {key} must be true or false, got {v!r}")


def _enum(enum_type: type[enum.Enum], value: Any, where: str) -> Any:
    try:
        return enum_type(value)
    except ValueError:
        allowed = ", ".join(str(m.value) for m in enum_type)
        raise CatalogError(f"{where}: {value!r} is not one of {allowed}") from None


def _id(record: Mapping[str, Any], where: str) -> str:
    cid = _str(record, "id", where)
    if not ID_PATTERN.fullmatch(cid):
        raise CatalogError(f"{where}: id {cid!r} must match {ID_PATTERN.pattern}")
    return cid


def _size(value: Any, where: str) -> tuple[float, float]:
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 for v in value)
    ):
        raise CatalogError(f"{where}: size must be two positive numbers, got {value!r}")
    return (float(value[0]), float(value[1]))


def _table(data: Any, key: str, filename: str) -> list[Mapping[str, Any]]:
    rows = data.get(key) if isinstance(data, Mapping) else None
    if not isinstance(rows, list) or not rows:
        raise CatalogError(f"{GAME_ID}/{filename}: expected [[{key}]] entries")
    return rows


def _unique(items: Sequence[Any], filename: str, what: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        if item.id in out:
            raise CatalogError(f"{GAME_ID}/{filename}: {what} {item.id!r} appears twice")
        out[item.id] = item
    return out


def _habitat(raw: Any, plants: Mapping[str, Plant], where: str) -> dict[str, int]:
    """A habitat: plant id -> count (TOML table, or CSV text ``fig:2 orchid:1``)."""
    if isinstance(raw, str):
        pairs: list[tuple[str, Any]] = []
        for part in raw.split():
            name, sep, count = part.partition(":")
            if not sep:
                raise CatalogError(f"{where}: habitat entry {part!r} must be plant:count")
            pairs.append((name, count))
    elif isinstance(raw, Mapping):
        pairs = list(raw.items())
    else:
        raise CatalogError(f"{where}: habitat must be a table or text, got {raw!r}")
    out: dict[str, int] = {}
    for name, count in pairs:
        if name not in plants:
            raise CatalogError(f"{where}: habitat names unknown plant {name!r}")
        if name in out:
            raise CatalogError(f"{where}: habitat names {name!r} twice")
        out[name] = as_int(count, f"{where}: habitat {name}", lo=1, hi=9)
    if not out:
        raise CatalogError(f"{where}: habitat is empty")
    return out


def _check_habitat_reachable(habitat: Mapping[str, int], plants: Mapping[str, Plant], where: str) -> None:
    """A habitat must be coverable on one layer, or across understory and canopy by vines."""
    needed = [plants[p].layers for p in habitat]
    for layer in Layer:
        if all(layer in layers for layers in needed):
            return
    vine_layers = {Layer.CANOPY, Layer.UNDERSTORY}
    if all(layers & vine_layers for layers in needed):
        return
    raise CatalogError(f"{where}: habitat {dict(habitat)} cannot be met on any layer")


# -- loaders -----------------------------------------------------------------------


def load_plants() -> dict[str, Plant]:
    filename = "plants.toml"
    out: list[Plant] = []
    for i, row in enumerate(_table(read_data(GAME_ID, filename), "plant", filename)):
        where = f"{GAME_ID}/{filename} plant[{i}]"
        check_fields(row, required=("id", "name", "layers", "colour", "edition_data"), where=where)
        pid = _str(row, "id", where)
        layers = row["layers"]
        if not isinstance(layers, list) or not layers:
            raise CatalogError(f"{where}: layers must be a non-empty list")
        if pid == OPEN:
            raise CatalogError(f"{where}: {OPEN!r} is reserved for open sides")
        out.append(
            Plant(
                pid,
                _str(row, "name", where),
                frozenset(_enum(Layer, v, where) for v in layers),
                _str(row, "colour", where),
                _bool(row, "edition_data", where),
            )
        )
    plants = _unique(out, filename, "plant")
    if VINE not in plants:
        raise CatalogError(f"{GAME_ID}/{filename}: the vine plant is missing")
    return plants


def load_platforms() -> tuple[dict[str, Platform], tuple[Contact, ...]]:
    filename = "platforms.toml"
    data = read_data(GAME_ID, filename)
    out: list[Platform] = []
    for i, row in enumerate(_table(data, "platform", filename)):
        where = f"{GAME_ID}/{filename} platform[{i}]"
        check_fields(
            row,
            required=(
                "id", "name", "layer", "tag", "size_mm", "origin_mm", "hex_radius_mm",
                "anchors", "slots", "edition_data",
            ),
            where=where,
        )
        pid = _id(row, where)
        where = f"{GAME_ID}/{filename} platform {pid}"
        anchors = []
        for j, a in enumerate(row["anchors"]):
            aw = f"{where} anchor[{j}]"
            check_fields(a, required=("tag", "x_mm", "y_mm", "size_mm"), where=aw)
            size = float(a["size_mm"])
            if not 16 <= size <= 20:
                raise CatalogError(f"{aw}: anchor tags are 16-20 mm, got {size}")
            anchors.append(Anchor(as_int(a["tag"], aw, lo=0, hi=586), float(a["x_mm"]), float(a["y_mm"]), size))
        if len(anchors) < 3:
            raise CatalogError(f"{where}: a platform needs at least 3 anchor tags")
        slots = []
        for j, s in enumerate(row["slots"]):
            sw = f"{where} slot[{j}]"
            check_fields(s, required=("name", "q", "r"), where=sw)
            slots.append(Slot(_str(s, "name", sw), as_int(s["q"], sw, lo=-9, hi=9), as_int(s["r"], sw, lo=-9, hi=9)))
        if len({s.name for s in slots}) != len(slots) or len({(s.q, s.r) for s in slots}) != len(slots):
            raise CatalogError(f"{where}: slot names and positions must be unique")
        platform = Platform(
            pid,
            _str(row, "name", where),
            _enum(Layer, row["layer"], where),
            as_int(row["tag"], where, lo=0, hi=586),
            _size(row["size_mm"], where),
            _size(row["origin_mm"], where),
            float(row["hex_radius_mm"]),
            tuple(anchors),
            tuple(slots),
            _bool(row, "edition_data", where),
        )
        w, h = platform.size_mm
        for a in anchors:
            half = a.size_mm / 2
            if not (half <= a.x_mm <= w - half and half <= a.y_mm <= h - half):
                raise CatalogError(f"{where}: anchor tag {a.tag} is not inside the board")
        r = platform.hex_radius_mm
        for s in slots:
            x, y = platform.centre_mm(s)
            if not (r <= x <= w - r and r * 0.87 <= y <= h - r * 0.87):
                raise CatalogError(f"{where}: slot {s.name} is not inside the board")
        out.append(platform)
    platforms = _unique(out, filename, "platform")
    contacts = []
    for i, row in enumerate(data.get("contact", [])):
        where = f"{GAME_ID}/{filename} contact[{i}]"
        check_fields(row, required=("a", "a_slot", "a_edge", "b", "b_slot", "b_edge", "edition_data"), where=where)
        for side in ("a", "b"):
            p = platforms.get(row[side])
            if p is None:
                raise CatalogError(f"{where}: unknown platform {row[side]!r}")
            if p.slot(row[f"{side}_slot"]) is None:
                raise CatalogError(f"{where}: platform {p.id} has no slot {row[f'{side}_slot']!r}")
        contact = Contact(
            row["a"], row["a_slot"], _edge(row["a_edge"], where),
            row["b"], row["b_slot"], _edge(row["b_edge"], where),
            _bool(row, "edition_data", where),
        )
        if contact.a == contact.b:
            raise CatalogError(f"{where}: a contact joins two different platforms")
        contacts.append(contact)
    return platforms, tuple(contacts)


def _edge(value: Any, where: str) -> Edge:
    try:
        return Edge[value]
    except (KeyError, TypeError):
        raise CatalogError(f"{where}: edge {value!r} is not one of N, NE, SE, S, SW, NW") from None


def load_tiles(plants: Mapping[str, Plant]) -> dict[str, Tile]:
    filename = "tiles.csv"
    out: list[Tile] = []
    for i, row in enumerate(read_data(GAME_ID, filename)):
        where = f"{GAME_ID}/{filename} row {i + 2}"
        check_fields(row, required=("id", "tag", "layers", "edges", "edition_data"), where=where)
        tid = _id(row, where)
        where = f"{GAME_ID}/{filename} tile {tid}"
        layers = frozenset(_enum(Layer, v, where) for v in _str(row, "layers", where).split("+"))
        edges = tuple(e.strip() for e in _str(row, "edges", where).split("|"))
        if len(edges) != EDGE_COUNT:
            raise CatalogError(f"{where}: a tile has {EDGE_COUNT} edges, got {len(edges)}")
        for e in edges:
            if e != OPEN and e not in plants:
                raise CatalogError(f"{where}: unknown plant {e!r} on an edge")
            if e != OPEN and not layers <= plants[e].layers:
                raise CatalogError(
                    f"{where}: {e} does not grow on every layer of the tile's background"
                )
        if all(e == OPEN for e in edges):
            raise CatalogError(f"{where}: a tile shows at least one plant")
        out.append(Tile(tid, as_int(row["tag"], where, lo=0, hi=586), layers, edges, _bool(row, "edition_data", where)))
    return _unique(out, filename, "tile")


def load_species() -> dict[str, Species]:
    filename = "species.toml"
    out: list[Species] = []
    fields = ("id", "name", "tier", "points", "group", "prey", "predators", "points_fact", "prey_fact", "edition_data")
    for i, row in enumerate(_table(read_data(GAME_ID, filename), "species", filename)):
        where = f"{GAME_ID}/{filename} species[{i}]"
        check_fields(row, required=fields, where=where)
        sid = _id(row, where)
        where = f"{GAME_ID}/{filename} species {sid}"
        for key in ("prey", "predators"):
            if not isinstance(row[key], list) or not all(isinstance(v, str) for v in row[key]):
                raise CatalogError(f"{where}: {key} must be a list of species ids")
        out.append(
            Species(
                sid,
                _str(row, "name", where),
                _enum(Tier, row["tier"], where),
                as_int(row["points"], where, lo=0, hi=20),
                _str(row, "group", where),
                tuple(row["prey"]),
                tuple(row["predators"]),
                _bool(row, "points_fact", where),
                _bool(row, "prey_fact", where),
                _bool(row, "edition_data", where),
            )
        )
    species = _unique(out, filename, "species")
    _check_food_web(species, filename)
    return species


def _check_food_web(species: Mapping[str, Species], filename: str) -> None:
    """Prey lists name real lower species, predators mirror them, chains stay within 3..5."""
    for s in species.values():
        where = f"{GAME_ID}/{filename} species {s.id}"
        if s.tier is Tier.PRIMARY and s.prey:
            raise CatalogError(f"{where}: primary consumers have no prey")
        if s.tier is not Tier.PRIMARY and not s.prey:
            raise CatalogError(f"{where}: {s.tier.value} animals need prey options")
        for p in s.prey:
            prey = species.get(p)
            if prey is None:
                raise CatalogError(f"{where}: unknown prey {p!r}")
            if prey.tier is Tier.APEX:
                raise CatalogError(f"{where}: apex predators are nobody's prey ({p})")
            if s.tier is Tier.APEX and prey.tier is not Tier.SECONDARY:
                raise CatalogError(f"{where}: an apex eats secondary consumers (chains of at least 3)")
    for s in species.values():
        where = f"{GAME_ID}/{filename} species {s.id}"
        expected = sorted(o.id for o in species.values() if s.id in o.prey)
        if sorted(s.predators) != expected:
            raise CatalogError(f"{where}: predators {sorted(s.predators)} should be {expected}")
    for s in species.values():
        if _longest_chain(s.id, species, ()) > MAX_CHAIN:
            raise CatalogError(
                f"{GAME_ID}/{filename} species {s.id}: a food chain ending here exceeds {MAX_CHAIN} cards"
            )


def _longest_chain(sid: str, species: Mapping[str, Species], seen: tuple[str, ...]) -> int:
    if sid in seen:
        raise CatalogError(f"{GAME_ID}/species.toml: prey cycle through {' -> '.join((*seen, sid))}")
    prey = species[sid].prey
    if not prey:
        return 1
    return 1 + max(_longest_chain(p, species, (*seen, sid)) for p in prey)


def load_animals(species: Mapping[str, Species], plants: Mapping[str, Plant]) -> dict[str, AnimalCard]:
    filename = "animal_cards.csv"
    out: list[AnimalCard] = []
    for i, row in enumerate(read_data(GAME_ID, filename)):
        where = f"{GAME_ID}/{filename} row {i + 2}"
        check_fields(row, required=("id", "tag", "species", "habitat", "edition_data"), where=where)
        cid = _id(row, where)
        where = f"{GAME_ID}/{filename} card {cid}"
        s = species.get(row["species"])
        if s is None:
            raise CatalogError(f"{where}: unknown species {row['species']!r}")
        habitat = _habitat(row["habitat"], plants, where)
        _check_habitat_reachable(habitat, plants, where)
        out.append(AnimalCard(cid, as_int(row["tag"], where, lo=0, hi=586), s, habitat, _bool(row, "edition_data", where)))
    cards = _unique(out, filename, "card")
    for s in species.values():
        if not any(c.species is s for c in cards.values()):
            raise CatalogError(f"{GAME_ID}/{filename}: species {s.id} has no card")
    return cards


def load_main_deck(plants: Mapping[str, Plant]) -> tuple[dict[str, PlantCard], dict[str, ActionCard]]:
    filename = "main_deck.toml"
    data = read_data(GAME_ID, filename)
    plant_cards: list[PlantCard] = []
    for i, row in enumerate(_table(data, "plant_card", filename)):
        where = f"{GAME_ID}/{filename} plant_card[{i}]"
        check_fields(row, required=("id", "tag", "name", "points", "habitat", "spans_layers", "edition_data"), where=where)
        cid = _id(row, where)
        where = f"{GAME_ID}/{filename} plant card {cid}"
        habitat = _habitat(row["habitat"], plants, where)
        _check_habitat_reachable(habitat, plants, where)
        plant_cards.append(
            PlantCard(
                cid, as_int(row["tag"], where, lo=0, hi=586), _str(row, "name", where),
                as_int(row["points"], where, lo=0, hi=20), habitat,
                _bool(row, "spans_layers", where), _bool(row, "edition_data", where),
            )
        )
    actions: list[ActionCard] = []
    for i, row in enumerate(_table(data, "action_card", filename)):
        where = f"{GAME_ID}/{filename} action_card[{i}]"
        check_fields(row, required=("id", "tag", "kind", "name", "text", "edition_data"), where=where)
        cid = _id(row, where)
        where = f"{GAME_ID}/{filename} action card {cid}"
        actions.append(
            ActionCard(
                cid, as_int(row["tag"], where, lo=0, hi=586), _enum(ActionKind, row["kind"], where),
                _str(row, "name", where), _str(row, "text", where), _bool(row, "edition_data", where),
            )
        )
    return _unique(plant_cards, filename, "card"), _unique(actions, filename, "card")


def load_bonuses(groups: frozenset[str]) -> dict[str, BonusCard]:
    filename = "bonus.toml"
    out: list[BonusCard] = []
    for i, row in enumerate(_table(read_data(GAME_ID, filename), "bonus", filename)):
        where = f"{GAME_ID}/{filename} bonus[{i}]"
        check_fields(row, required=("id", "tag", "name", "text", "condition", "edition_data"), where=where)
        cid = _id(row, where)
        where = f"{GAME_ID}/{filename} bonus {cid}"
        out.append(
            BonusCard(
                cid, as_int(row["tag"], where, lo=0, hi=586), _str(row, "name", where),
                _str(row, "text", where), _condition(row["condition"], groups, where),
                _bool(row, "edition_data", where),
            )
        )
    return _unique(out, filename, "bonus card")


#: Per condition kind, the parameters it needs besides ``kind``.
_CONDITION_FIELDS: Mapping[BonusKind, tuple[str, ...]] = {
    BonusKind.CHAIN_LENGTH: ("at_least",),
    BonusKind.TIER_COUNT: ("tier", "at_least"),
    BonusKind.DISTINCT_SPECIES: ("tier", "at_least"),
    BonusKind.PLANT_CARDS: ("at_least",),
    BonusKind.GROUP_SPECIES: ("group", "at_least"),
    BonusKind.CHAINS: ("min_length", "at_least"),
    BonusKind.EVERY_KIND: (),
}


def _condition(raw: Any, groups: frozenset[str], where: str) -> BonusCondition:
    if not isinstance(raw, Mapping) or "kind" not in raw:
        raise CatalogError(f"{where}: condition must be a table with a kind")
    kind = _enum(BonusKind, raw["kind"], where)
    check_fields(raw, required=("kind", *_CONDITION_FIELDS[kind]), where=f"{where} condition")
    group = raw.get("group")
    if group is not None and group not in groups:
        raise CatalogError(f"{where}: no species belongs to group {group!r}")
    return BonusCondition(
        kind,
        as_int(raw.get("at_least", 1), where, lo=1, hi=20),
        _enum(Tier, raw["tier"], where) if "tier" in raw else None,
        group,
        as_int(raw.get("min_length", 0), where, lo=0, hi=MAX_CHAIN),
    )


def load_accessories() -> dict[str, Accessory]:
    filename = "accessories.toml"
    out: list[Accessory] = []
    for i, row in enumerate(_table(read_data(GAME_ID, filename), "accessory", filename)):
        where = f"{GAME_ID}/{filename} accessory[{i}]"
        check_fields(row, required=("id", "tag", "kind", "name", "size_mm", "edition_data"), where=where)
        cid = _id(row, where)
        out.append(
            Accessory(
                cid, as_int(row["tag"], where, lo=0, hi=586), _str(row, "kind", where),
                _str(row, "name", where), _size(row["size_mm"], where), _bool(row, "edition_data", where),
            )
        )
    return _unique(out, filename, "accessory")


def load_catalog() -> Catalog:
    """Read and cross-check every catalog file of the edition."""
    plants = load_plants()
    platforms, contacts = load_platforms()
    species = load_species()
    plant_cards, actions = load_main_deck(plants)
    catalog = Catalog(
        plants=plants,
        platforms=platforms,
        contacts=contacts,
        tiles=load_tiles(plants),
        species=species,
        animals=load_animals(species, plants),
        plant_cards=plant_cards,
        actions=actions,
        bonuses=load_bonuses(frozenset(s.group for s in species.values())),
        accessories=load_accessories(),
    )
    _check_ids_distinct(catalog)
    return catalog


def _check_ids_distinct(catalog: Catalog) -> None:
    """Component ids are unique across every file, since a state names components by id alone."""
    seen: dict[str, str] = {}
    for what, table in (
        ("platform", catalog.platforms),
        ("tile", catalog.tiles),
        ("animal card", catalog.animals),
        ("plant card", catalog.plant_cards),
        ("action card", catalog.actions),
        ("bonus card", catalog.bonuses),
        ("accessory", catalog.accessories),
    ):
        for cid in table:
            if cid in seen:
                raise CatalogError(f"{GAME_ID}: id {cid!r} is both a {seen[cid]} and a {what}")
            seen[cid] = what
