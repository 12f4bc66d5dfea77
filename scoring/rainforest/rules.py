"""Rainforest legality: every rule a move from one state to the next breaks, at once."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator

from ..model import BoardState, Cell, ComponentId, Violation
from ..words import Words, join_and, plural
from .catalog import Catalog, Colour
from .jungle import (
    CLEARING_LIMIT,
    RESERVE_LIMIT,
    AreaKind,
    PlayerTable,
    colour_group,
    fifth_colour_position,
    jungle_tiles,
    largest_group,
    parse_area,
    player_table,
)


class Rule(enum.Enum):
    """Stable violation codes; the value is what clients match on."""

    SLOT_CONSTRAINT = "rainforest/slot_constraint"
    FILL_ORDER = "rainforest/fill_order"
    LOCKED_INCOMPLETE = "rainforest/locked_incomplete"
    COMPLETED_NOT_LOCKED = "rainforest/completed_not_locked"
    CLEARING_FULL = "rainforest/clearing_full"
    RESERVE_FULL = "rainforest/reserve_full"
    PA_INELIGIBLE = "rainforest/pa_ineligible"
    PA_COLOUR_TWICE = "rainforest/pa_colour_twice"
    PA_ONE_PER_TILE = "rainforest/pa_one_per_tile"
    PA_DECLINED = "rainforest/pa_declined"
    DIVERSITY_INELIGIBLE = "rainforest/diversity_ineligible"
    DIVERSITY_MISPLACED = "rainforest/diversity_misplaced"
    DIVERSITY_MISSING = "rainforest/diversity_missing"
    TOKEN_MOVED = "rainforest/token_moved"
    TILE_MOVED = "rainforest/tile_moved"
    ONE_TILE_PER_TURN = "rainforest/one_tile_per_turn"
    TAKE_ONE_KIND = "rainforest/take_one_kind"
    TAKE_ALL = "rainforest/take_all"
    TAKE_SAME_ZONE = "rainforest/take_same_zone"


def _v(
    rule: Rule, message: str, area: str, cells: tuple[Cell, ...] = (), components: tuple[str, ...] = ()
) -> Violation:
    return Violation(rule.value, message, cells, area, tuple(ComponentId(c) for c in components))


_NAMES = Words("rainforest", {})


def _n(component: str) -> str:
    """A component by its printed name."""
    return _NAMES.name(component)


def _pos(position: int) -> str:
    """A jungle position as players say it (the pad's words for the cell ``J3``)."""
    return _NAMES.space(f"J{position}")


def _cell(table: PlayerTable, tile: str) -> tuple[Cell, ...]:
    p = table.position_of(tile)
    if p is not None:
        return (f"J{p}",)
    cell = table.clearing_cells.get(tile)
    return (cell,) if cell else ()


def _area_of(table: PlayerTable, tile: str) -> str:
    kind = AreaKind.JUNGLE if table.position_of(tile) is not None else AreaKind.CLEARING
    return f"{kind.value}:{table.player}"


# -- rules one state shows ---------------------------------------------------------


def slot_violations(table: PlayerTable, catalog: Catalog) -> Iterator[Violation]:
    """A token fills a slot only if it satisfies the slot's printed constraint."""
    for tile_id in table.tiles():
        tile = catalog.tiles[tile_id]
        for slot, token_id in sorted(table.tokens_on.get(tile_id, {}).items()):
            rule = tile.slots[slot - 1]
            token = catalog.tokens[token_id]
            if not rule.accepts(token):
                yield _v(
                    Rule.SLOT_CONSTRAINT,
                    f"{_n(token_id)} is in slot {slot} of {_n(tile_id)}, which takes only {rule.wanted}",
                    _area_of(table, tile_id),
                    _cell(table, tile_id),
                    (token_id, tile_id),
                )


def fill_order_violations(table: PlayerTable) -> Iterator[Violation]:
    """Locked tiles fill J1, J2, ... in the placement order with no gap."""
    if not table.jungle:
        return
    highest = max(table.jungle)
    gaps = [p for p in range(1, highest) if p not in table.jungle]
    if gaps:
        names = join_and(str(p) for p in gaps)
        yield _v(
            Rule.FILL_ORDER,
            f"jungle {'position' if len(gaps) == 1 else 'positions'} {names} {'is' if len(gaps) == 1 else 'are'}"
            f" empty while {_pos(highest)} holds a tile: locked tiles fill the jungle in the placement order"
            " 1, 2, 3 ...",
            f"jungle:{table.player}",
            tuple(f"J{p}" for p in gaps),
            (table.jungle[highest],),
        )


def completion_violations(table: PlayerTable, catalog: Catalog) -> Iterator[Violation]:
    """Only completed tiles are locked in, and every completed tile must be."""
    for position, tile_id in sorted(table.jungle.items()):
        filled = len(table.tokens_on.get(tile_id, {}))
        needed = len(catalog.tiles[tile_id].slots)
        if filled < needed:
            yield _v(
                Rule.LOCKED_INCOMPLETE,
                f"{_n(tile_id)} at {_pos(position)} has {filled} of {needed} slots filled: only completed tiles are"
                " locked in",
                f"jungle:{table.player}",
                (f"J{position}",),
                (tile_id,),
            )
    for tile_id in table.clearing:
        if len(table.tokens_on.get(tile_id, {})) == len(catalog.tiles[tile_id].slots):
            yield _v(
                Rule.COMPLETED_NOT_LOCKED,
                f"{_n(tile_id)} in the clearing is complete: a completed tile must be locked into the jungle",
                f"clearing:{table.player}",
                _cell(table, tile_id),
                (tile_id,),
            )


def limit_violations(table: PlayerTable) -> Iterator[Violation]:
    """The clearing holds at most 3 tiles and the reserve at most 2 tokens at the end of a turn."""
    if len(table.clearing) > CLEARING_LIMIT:
        yield _v(
            Rule.CLEARING_FULL,
            f"the clearing holds {len(table.clearing)} tiles; its limit is {CLEARING_LIMIT}",
            f"clearing:{table.player}",
            (),
            table.clearing,
        )
    if len(table.reserve) > RESERVE_LIMIT:
        yield _v(
            Rule.RESERVE_FULL,
            f"the reserve holds {len(table.reserve)} tokens; its limit is {RESERVE_LIMIT}: discard the excess",
            f"reserve:{table.player}",
            (),
            table.reserve,
        )


def protected_area_violations(table: PlayerTable, catalog: Catalog) -> Iterator[Violation]:
    """A protected area lies on a big enough connected group of its colour, once per colour and per tile."""
    jungle = jungle_tiles(table, catalog)
    by_colour: dict[Colour, list[str]] = {}
    for tile_id, pas in sorted(table.protected_on.items()):
        position = table.position_of(tile_id)
        for pa_id in pas:
            pa = catalog.protected_areas[pa_id]
            by_colour.setdefault(pa.colour, []).append(pa_id)
            if position is None:
                yield _v(
                    Rule.PA_INELIGIBLE,
                    f"{_n(pa_id)} lies on {_n(tile_id)} in the clearing: protected areas go on jungle tiles",
                    f"clearing:{table.player}",
                    _cell(table, tile_id),
                    (pa_id, tile_id),
                )
                continue
            group = colour_group(jungle, position, pa.colour)
            if len(group) < pa.size:
                reason = (
                    f"{_n(tile_id)} does not show {pa.colour.value}"
                    if not group
                    else f"its {pa.colour.value} group has {plural(len(group), 'connected tile')}"
                )
                yield _v(
                    Rule.PA_INELIGIBLE,
                    f"{_n(pa_id)} needs {pa.size} connected {pa.colour.value} tiles and lies on {_pos(position)}:"
                    f" {reason}",
                    f"jungle:{table.player}",
                    (f"J{position}",),
                    (pa_id, tile_id),
                )
        if len(pas) > 1:
            yield _v(
                Rule.PA_ONE_PER_TILE,
                f"{_n(tile_id)} holds {len(pas)} protected-area tokens ({_NAMES.listing(pas)}); a tile holds only one",
                _area_of(table, tile_id),
                _cell(table, tile_id),
                (tile_id, *pas),
            )
    for colour, pas in by_colour.items():
        if len(pas) > 1:
            yield _v(
                Rule.PA_COLOUR_TWICE,
                f"this jungle holds {len(pas)} {colour.value} protected areas ({_NAMES.listing(sorted(pas))});"
                " a player has one protected area of each colour",
                f"jungle:{table.player}",
                (),
                tuple(sorted(pas)),
            )


def diversity_violations(table: PlayerTable, catalog: Catalog) -> Iterator[Violation]:
    """The diversity token comes once all five colours are in the jungle, on the tile that brought the fifth."""
    jungle = jungle_tiles(table, catalog)
    fifth = fifth_colour_position(jungle)
    held = [(tile_id, d) for tile_id, ds in sorted(table.diversity_on.items()) for d in ds]
    area = f"jungle:{table.player}"
    if fifth is None:
        for tile_id, d in held:
            colours = sorted({c.value for t in jungle.values() for c in t.colours})
            yield _v(
                Rule.DIVERSITY_INELIGIBLE,
                f"{_n(d)} needs all five colours in the jungle; it shows {len(colours)}"
                f" ({join_and(colours) or 'none'})",
                area,
                _cell(table, tile_id),
                (d, tile_id),
            )
        return
    if not held:
        yield _v(
            Rule.DIVERSITY_MISSING,
            f"the jungle shows all five colours since {_pos(fifth)}: take a diversity token and put it on"
            f" {_n(table.jungle[fifth])}",
            area,
            (f"J{fifth}",),
            (table.jungle[fifth],),
        )
        return
    held.sort(key=lambda item: table.position_of(item[0]) != fifth)
    for extra_tile, extra in held[1:]:
        yield _v(
            Rule.DIVERSITY_INELIGIBLE,
            f"this jungle holds more than one diversity token (the one on {_n(extra_tile)} is a second one)",
            area,
            _cell(table, extra_tile),
            (extra, extra_tile),
        )
    tile_id, d = held[0]
    if table.position_of(tile_id) != fifth:
        yield _v(
            Rule.DIVERSITY_MISPLACED,
            f"{_n(d)} lies on {_n(tile_id)}; the fifth colour came with {_n(table.jungle[fifth])} at"
            f" {_pos(fifth)}, so it belongs there",
            area,
            (f"J{fifth}", *_cell(table, tile_id)),
            (d, tile_id, table.jungle[fifth]),
        )


def state_violations(table: PlayerTable, catalog: Catalog) -> list[Violation]:
    """Every rule the end of a turn shows on one player's table."""
    return [
        *slot_violations(table, catalog),
        *fill_order_violations(table),
        *completion_violations(table, catalog),
        *limit_violations(table),
        *protected_area_violations(table, catalog),
        *diversity_violations(table, catalog),
    ]


# -- rules only two states show ----------------------------------------------------


def moved_violations(before: PlayerTable, after: PlayerTable) -> Iterator[Violation]:
    """Tokens on tiles never move; locked tiles keep their position; clearing tiles only go to the jungle."""
    for tile_id, slots in sorted(before.tokens_on.items()):
        now = after.tokens_on.get(tile_id, {})
        for slot, token in sorted(slots.items()):
            if now.get(slot) != token:
                yield _v(
                    Rule.TOKEN_MOVED,
                    f"{_n(token)} lay in slot {slot} of {_n(tile_id)} and is no longer there:"
                    " placed tokens stay for the rest of the game",
                    _area_of(before, tile_id),
                    _cell(before, tile_id),
                    (token, tile_id),
                )
    for mapping in (before.protected_on, before.diversity_on):
        for tile_id, tokens in sorted(mapping.items()):
            for token in tokens:
                if token not in after.protected_on.get(tile_id, ()) + after.diversity_on.get(tile_id, ()):
                    yield _v(
                        Rule.TOKEN_MOVED,
                        f"{_n(token)} lay on {_n(tile_id)} and is no longer there: bonus tokens stay where they were put",
                        _area_of(before, tile_id),
                        _cell(before, tile_id),
                        (token, tile_id),
                    )
    for position, tile_id in sorted(before.jungle.items()):
        if after.jungle.get(position) != tile_id:
            yield _v(
                Rule.TILE_MOVED,
                f"{_n(tile_id)} was locked at {_pos(position)} and is no longer there: locked tiles never move",
                f"jungle:{before.player}",
                (f"J{position}",),
                (tile_id,),
            )
    kept = set(after.clearing) | set(after.jungle.values())
    for tile_id in before.clearing:
        if tile_id not in kept:
            yield _v(
                Rule.TILE_MOVED,
                f"{_n(tile_id)} left the clearing without being locked into the jungle",
                f"clearing:{before.player}",
                (),
                (tile_id,),
            )


def declined_violations(
    before: PlayerTable, after: PlayerTable, catalog: Catalog, held_before: set[str]
) -> Iterator[Violation]:
    """Leaving the 3-tile protected area when both of its colour were available is final."""
    jungle_before = jungle_tiles(before, catalog)
    old = {pa for pas in before.protected_on.values() for pa in pas}
    for tile_id, pas in sorted(after.protected_on.items()):
        for pa_id in pas:
            pa = catalog.protected_areas[pa_id]
            if pa_id in old or pa.size != 3:
                continue
            pair = [p.id for p in catalog.protected_areas.values() if p.colour is pa.colour]
            both_free = not any(p in held_before for p in pair)
            group = largest_group(jungle_before, pa.colour)
            if both_free and group >= 3:
                yield _v(
                    Rule.PA_DECLINED,
                    f"{_n(pa_id)} was taken late: the jungle already had {group} connected {pa.colour.value} tiles"
                    " before this turn, so the 3-tile token was declined then, and that choice is final",
                    f"jungle:{after.player}",
                    (),
                    (pa_id, tile_id),
                )


def _zone_tokens(state: BoardState, catalog: Catalog) -> dict[str, int]:
    out: dict[str, int] = {}
    for p in state.placements:
        area = parse_area(p.area)
        if area is not None and area.kind is AreaKind.ZONE and p.component in catalog.tokens and area.owner:
            out[p.component] = int(area.owner)
    return out


def _zone_tiles(state: BoardState, catalog: Catalog) -> dict[str, int]:
    out: dict[str, int] = {}
    for p in state.placements:
        area = parse_area(p.area)
        if area is not None and area.kind is AreaKind.ZONE and p.component in catalog.tiles and area.owner:
            out[p.component] = int(area.owner)
    return out


def _held_tokens(table: PlayerTable) -> set[str]:
    return set(table.reserve) | {t for slots in table.tokens_on.values() for t in slots.values()}


def turn_violations(
    before_state: BoardState,
    after_state: BoardState,
    before: PlayerTable,
    after: PlayerTable,
    catalog: Catalog,
) -> Iterator[Violation]:
    """One tile, then all tokens of one colour or one species, both from the same zone."""
    area = f"clearing:{after.player}"
    new_tiles = sorted(set(after.tiles()) - set(before.tiles()))
    if len(new_tiles) > 1:
        yield _v(
            Rule.ONE_TILE_PER_TURN,
            f"{len(new_tiles)} tiles were taken in one turn ({_NAMES.listing(new_tiles)}); a turn takes one",
            area,
            (),
            tuple(new_tiles),
        )
    zone_before = _zone_tokens(before_state, catalog)
    zone_after = _zone_tokens(after_state, catalog)
    # a token taken this turn and given back in the exchange now lies in another zone
    swapped_out = {t for t, z in zone_before.items() if zone_after.get(t, z) != z}
    taken = sorted({t for t in _held_tokens(after) - _held_tokens(before) if t in zone_before} | swapped_out)
    if not taken:
        return
    by_zone: dict[int, list[str]] = {}
    for t in taken:
        by_zone.setdefault(zone_before[t], []).append(t)

    def emptied_zone(zone: int) -> bool:
        return not any(z == zone and zone_after.get(t) == zone for t, z in zone_before.items())

    def reading(zone: int) -> tuple[bool, int, int]:
        """Prefer a zone that explains every other token (one exchange after emptying it), then the most taken."""
        rest = sum(len(ts) for z, ts in by_zone.items() if z != zone)
        return (rest == 0 or (rest == 1 and emptied_zone(zone)), len(by_zone[zone]), -zone)

    main = max(by_zone, key=reading)
    emptied = emptied_zone(main)
    others = [t for z, ts in by_zone.items() if z != main for t in ts]
    if others and not (emptied and len(others) == 1):
        yield _v(
            Rule.TAKE_ONE_KIND,
            f"tokens came from several zones ({join_and(sorted(f'zone {z}' for z in by_zone))}); a turn takes"
            " tokens from one zone (plus one exchanged token after emptying it)",
            area,
            (),
            tuple(taken),
        )
    picked = [catalog.tokens[t] for t in by_zone[main]]
    colours = {t.colour for t in picked}
    species = {t.species for t in picked}
    if len(colours) > 1 and len(species) > 1:
        yield _v(
            Rule.TAKE_ONE_KIND,
            f"the tokens taken from zone {main} ({join_and(t.label for t in picked)}) share neither a colour"
            " nor a species",
            area,
            (),
            tuple(by_zone[main]),
        )
    else:
        left_behind: list[list[str]] = []
        if len(colours) == 1:
            c = next(iter(colours))
            left_behind.append(
                [
                    t
                    for t, z in zone_before.items()
                    if z == main and zone_after.get(t) == main and catalog.tokens[t].colour is c
                ]
            )
        if len(species) == 1:
            s = next(iter(species))
            left_behind.append(
                [
                    t
                    for t, z in zone_before.items()
                    if z == main and zone_after.get(t) == main and catalog.tokens[t].species is s
                ]
            )
        if all(left_behind):
            rest = sorted(min(left_behind, key=len))
            yield _v(
                Rule.TAKE_ALL,
                f"zone {main} still holds {_NAMES.listing(rest)} of the kind taken: a turn takes all tokens of the"
                " chosen colour or species",
                f"zone:{main}",
                (),
                tuple(rest),
            )
    yield from _tiles_from_another_zone(before_state, catalog, new_tiles, main, area)



def _tiles_from_another_zone(
    before_state: BoardState, catalog: Catalog, new_tiles: Iterable[str], main: int, area: str
) -> Iterator[Violation]:
    """A tile taken from another zone than the turn's tokens: tile and tokens come from one zone."""
    tiles_before = _zone_tiles(before_state, catalog)
    for tile_id in new_tiles:
        source = tiles_before.get(tile_id)
        if source is not None and source != main:
            yield _v(
                Rule.TAKE_SAME_ZONE,
                f"{_n(tile_id)} came from zone {source} but the tokens from zone {main}:"
                " tile and tokens come from the same zone",
                area,
                (),
                (tile_id,),
            )


def violations(before_state: BoardState, after_state: BoardState, catalog: Catalog) -> tuple[Violation, ...]:
    """Every broken rule of the move, for every player, in a stable order."""
    out: list[Violation] = []
    held_before = {
        p.component
        for p in before_state.placements
        if p.component in catalog.protected_areas and p.on is not None
    }
    for player in after_state.players:
        after = player_table(after_state, catalog, player.id)
        out.extend(state_violations(after, catalog))
        if any(p.id == player.id for p in before_state.players):
            before = player_table(before_state, catalog, player.id)
            out.extend(moved_violations(before, after))
            out.extend(declined_violations(before, after, catalog, held_before))
            out.extend(turn_violations(before_state, after_state, before, after, catalog))
    return tuple(out)
