"""Reading and writing the one board-state JSON format shared by every game.

The format is documented in docs/formats.md. Parsing is strict: a state that the
rules cannot trust is refused with a message naming the offending entry.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

from .words import Words
from .model import (
    STATE_FORMAT,
    BoardState,
    Cell,
    ComponentId,
    Placement,
    PlacementAt,
    Player,
    PlayerId,
    StateError,
    UnknownPlace,
)

_TOP_FIELDS = {"format", "game", "players", "options", "placements", "extras", "unknown"}
_PLAYER_FIELDS = {"id", "name", "colour", "seat"}
_PLACEMENT_FIELDS = {"component", "area", "cell", "rotation", "face_up", "on", "slot"}
_UNKNOWN_FIELDS = {"area", "cell", "slot", "on", "note"}

#: Game hook: given a placement, return a problem sentence or None when the place exists.
PlaceCheck = Callable[[Placement], "str | None"]


#: Largest coordinate or count a state may hold: far beyond any table, small enough that a
#: rule walking cells one by one (a watchtower's line of sight) ends at once.
MAX_NUMBER = 10_000


def _short(value: Any) -> str:
    text = repr(value) if not isinstance(value, int) or abs(value) < 10**12 else f"a {len(str(abs(value)))}-digit number"
    return text if len(text) <= 60 else text[:57] + "..."


def parse_cell(value: Any, where: str) -> Cell | None:
    """A cell is ``[x, y]`` (two integers), a space name, or null."""
    if value is None:
        return None
    if isinstance(value, str):
        if not value or len(value) > 40:
            raise StateError(f"{where}: cell name must be 1-40 characters")
        return value
    if (
        isinstance(value, (list, tuple))
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        if any(abs(v) > MAX_NUMBER for v in value):
            raise StateError(f"{where}: cell coordinates must be within ±{MAX_NUMBER}")
        return (int(value[0]), int(value[1]))
    raise StateError(f"{where}: cell must be [x, y] integers or a space name, got {_short(value)}")


def cell_to_json(cell: Cell | None) -> Any:
    return list(cell) if isinstance(cell, tuple) else cell


def _require_mapping(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise StateError(f"{where}: expected an object, got {type(value).__name__}")
    return value


def _check_fields(obj: Mapping[str, Any], allowed: set[str], where: str) -> None:
    extra = sorted(set(obj) - allowed)
    if extra:
        raise StateError(f"{where}: unknown field(s) {', '.join(map(repr, extra))}")


def _string(obj: Mapping[str, Any], key: str, where: str, *, required: bool = True) -> str | None:
    if key not in obj or obj[key] is None:
        if required:
            raise StateError(f"{where}: missing {key!r}")
        return None
    v = obj[key]
    if not isinstance(v, str) or not v:
        raise StateError(f"{where}: {key!r} must be a non-empty string, got {v!r}")
    return v


def _int(obj: Mapping[str, Any], key: str, where: str, default: int | None) -> int | None:
    v = obj.get(key, default)
    if v is None:
        return None
    if not isinstance(v, int) or isinstance(v, bool):
        raise StateError(f"{where}: {key!r} must be an integer, got {_short(v)}")
    if abs(v) > MAX_NUMBER:
        raise StateError(f"{where}: {key!r} must be within ±{MAX_NUMBER}, got {_short(v)}")
    return v


def _parse_player(raw: Any, i: int) -> Player:
    where = f"players[{i}]"
    obj = _require_mapping(raw, where)
    _check_fields(obj, _PLAYER_FIELDS, where)
    pid = _string(obj, "id", where) or ""
    name = _string(obj, "name", where, required=False) or pid
    colour = _string(obj, "colour", where, required=False) or ""
    seat = _int(obj, "seat", where, i)
    return Player(PlayerId(pid), name, colour, i if seat is None else seat)


def _parse_placement(raw: Any, where: str) -> Placement:
    obj = _require_mapping(raw, where)
    _check_fields(obj, _PLACEMENT_FIELDS, where)
    component = _string(obj, "component", where) or ""
    area = _string(obj, "area", where) or ""
    rotation = _int(obj, "rotation", where, 0) or 0
    face_up = obj.get("face_up", True)
    if not isinstance(face_up, bool):
        raise StateError(f"{where}: 'face_up' must be true or false, got {face_up!r}")
    on = _string(obj, "on", where, required=False)
    slot = _int(obj, "slot", where, None)
    return Placement(
        ComponentId(component),
        area,
        parse_cell(obj.get("cell"), where),
        rotation,
        face_up,
        ComponentId(on) if on else None,
        slot,
    )


def _parse_unknown(raw: Any, where: str) -> UnknownPlace:
    obj = _require_mapping(raw, where)
    _check_fields(obj, _UNKNOWN_FIELDS, where)
    area = _string(obj, "area", where) or ""
    on = _string(obj, "on", where, required=False)
    slot = _int(obj, "slot", where, None)
    return UnknownPlace(area, parse_cell(obj.get("cell"), where), ComponentId(on) if on else None, slot)


def _room(p: Placement) -> tuple[Any, ...] | None:
    """The room a placement takes, which no other may share: a slot of what it lies on, a cell of its area."""
    if p.on is not None:
        return ("on", p.on, p.slot) if p.slot is not None else None
    return ("cell", p.area, p.cell) if p.cell is not None else None


def parse_state(
    data: Any,
    *,
    game: str,
    components: Collection[str],
    options: Mapping[str, Any],
    check_place: PlaceCheck | None = None,
) -> BoardState:
    """Parse a state document for ``game``; every structural fault raises StateError.

    ``options`` are the game's option names with their defaults: unknown options are
    refused, missing ones take the default. ``check_place`` is the game's geometry.
    """
    doc = _require_mapping(data, "state")
    _check_fields(doc, _TOP_FIELDS, "state")
    fmt = doc.get("format")
    if fmt != STATE_FORMAT:
        raise StateError(f"state: 'format' must be {STATE_FORMAT}, got {fmt!r}")
    g = doc.get("game")
    if g != game:
        raise StateError(f"state: 'game' is {g!r}, expected {game!r}")

    raw_players = doc.get("players", [])
    if not isinstance(raw_players, list):
        raise StateError("state: 'players' must be a list")
    players = tuple(_parse_player(p, i) for i, p in enumerate(raw_players))
    seen_players: set[str] = set()
    for i, p in enumerate(players):
        if p.id in seen_players:
            raise StateError(f"players[{i}]: player id {p.id!r} appears twice")
        seen_players.add(p.id)

    raw_options = _require_mapping(doc.get("options", {}), "options")
    unknown_opts = sorted(set(raw_options) - set(options))
    if unknown_opts:
        raise StateError(
            f"options: unknown option(s) {', '.join(map(repr, unknown_opts))};"
            f" this game knows {', '.join(sorted(options)) or 'none'}"
        )
    merged = dict(options)
    for k, v in raw_options.items():
        default = options[k]
        if default is not None and type(v) is not type(default):
            raise StateError(
                f"options: {k!r} must be {type(default).__name__}, got {v!r}"
            )
        merged[k] = v

    extras = dict(_require_mapping(doc.get("extras", {}), "extras"))

    raw_placements = doc.get("placements", [])
    if not isinstance(raw_placements, list):
        raise StateError("state: 'placements' must be a list")
    known = set(components)
    placements: list[Placement] = []
    first_seen: dict[str, int] = {}
    occupied: dict[tuple[Any, ...], int] = {}
    for i, raw in enumerate(raw_placements):
        try:
            p = _parse_placement(raw, f"placements[{i}]")
        except StateError as exc:
            raise StateError(str(exc), placement=i) from None
        where = PlacementAt(i, p.component)
        if p.component not in known:
            raise where.refused(f"unknown component {p.component!r} for {game}", said=f"the code {p.component!r} names no piece of this game")
        if p.component in first_seen:
            raise where.refused(f"the same component appears twice (also placements[{first_seen[p.component]}])",
                                said="the same piece is on the table twice")
        first_seen[p.component] = i
        key = _room(p)
        if key is not None:
            if key in occupied:
                j = occupied[key]
                place = f"slot {p.slot} of {p.on}" if p.on else f"cell {cell_to_json(p.cell)} of {p.area}"
                raise where.refused(
                    f"{place} already holds {placements[j].component} (placements[{j}])",
                    said=f"it lies where {Words(game, {}).name(placements[j].component)} lies; one piece fits there",
                )
            occupied[key] = i
        if check_place is not None:
            problem = check_place(p)
            if problem:
                raise where.refused(problem)
        placements.append(p)
    for i, p in enumerate(placements):
        if p.on is not None and p.on not in first_seen:
            raise PlacementAt(i, p.component).refused(
                f"lies on {p.on!r}, which is not on the table",
                said=f"it lies on {Words(game, {}).name(p.on)}, which is not on the table",
            )

    raw_unknown = doc.get("unknown", [])
    if not isinstance(raw_unknown, list):
        raise StateError("state: 'unknown' must be a list")
    unknown = tuple(
        _parse_unknown(u, f"unknown[{i}]") for i, u in enumerate(raw_unknown)
    )
    return BoardState(game, players, tuple(placements), merged, extras, unknown)


def placement_to_json(p: Placement) -> dict[str, Any]:
    """One placement as the state document writes it (defaults left out)."""
    out: dict[str, Any] = {"component": p.component, "area": p.area}
    if p.cell is not None:
        out["cell"] = cell_to_json(p.cell)
    if p.rotation:
        out["rotation"] = p.rotation
    if not p.face_up:
        out["face_up"] = False
    if p.on is not None:
        out["on"] = p.on
    if p.slot is not None:
        out["slot"] = p.slot
    return out


def state_to_json(state: BoardState) -> dict[str, Any]:
    """The inverse of parse_state: a document that parses back to an equal state."""
    placement = placement_to_json

    doc: dict[str, Any] = {
        "format": STATE_FORMAT,
        "game": state.game,
        "players": [
            {"id": p.id, "name": p.name, "colour": p.colour, "seat": p.seat}
            if p.colour
            else {"id": p.id, "name": p.name, "seat": p.seat}
            for p in state.players
        ],
        "options": dict(state.options),
        "placements": [placement(p) for p in state.placements],
    }
    if state.extras:
        doc["extras"] = dict(state.extras)
    if state.unknown:
        doc["unknown"] = [unknown_to_json(u) for u in state.unknown]
    return doc


def unknown_to_json(u: UnknownPlace) -> dict[str, Any]:
    """An unknown place as the state format writes it (the fields it has, nothing else)."""
    out: dict[str, Any] = {"area": u.area}
    if u.cell is not None:
        out["cell"] = cell_to_json(u.cell)
    if u.on is not None:
        out["on"] = u.on
    if u.slot is not None:
        out["slot"] = u.slot
    return out
