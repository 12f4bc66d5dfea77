"""Rainforest places for a species token or a jungle tile in hand, and the zones' offers ranked.

A token goes into a free slot of a clearing tile or into the reserve. When it fills the
tile's last slot, the same move locks the tile into the next jungle position (a completed
tile must be locked in that turn), with the diversity token where the rules ask for one and,
as variants, a protected area on a tile of its colour. A tile goes to a free clearing space.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ..hints import Change, HintError, HintFinder, MarketChoice, Place, moved, where_field, without
from ..model import BoardState, ComponentId, Placement, parse_area
from .game import GAME
from .jungle import PlayerTable, player_table
from ..nearby import beside
from ..words import Words

CLEARING_SPACES = ("C1", "C2", "C3")
RESERVE_SPACES = ("R1", "R2")


def _table(state: BoardState, player: str) -> PlayerTable:
    return player_table(state, GAME.catalog, player)


def _supply(state: BoardState, ids: Mapping[str, Any]) -> list[str]:
    """Bonus tokens of a kind still in the supply (or not on the table at all)."""
    placed = {p.component: p for p in state.placements}
    return [i for i in ids if i not in placed or placed[i].area == "supply"]


def _lock(state: BoardState, table: PlayerTable, tile: str, token: Placement) -> tuple[list[Change], str]:
    """The changes that lock a completed clearing tile into the next free jungle position."""
    position = next(p for p in range(1, 10) if p not in table.jungle)
    area = f"jungle:{table.player}"
    changes = [Change(ComponentId(tile), Placement(ComponentId(tile), area, f"J{position}"))]
    for p in state.placements:
        if p.on == tile:
            changes.append(Change(p.component, moved(p, area=area)))
    changes.append(Change(token.component, moved(token, area=area)))
    return changes, f"J{position}"


def _token_places(state: BoardState, component: str, player: str) -> Iterator[Place]:
    cat = GAME.catalog
    words = Words.of(GAME.id, state)
    table = _table(state, player)
    for tile in table.clearing:
        filled = table.tokens_on.get(tile, {})
        slots = range(1, len(cat.tiles[tile].slots) + 1)
        for slot in slots:
            if slot in filled:
                continue
            token = Placement(ComponentId(component), f"clearing:{player}", None, 0, True, ComponentId(tile), slot)
            key = f"{tile} slot {slot}"
            label = f"{words.space(f'S{slot}')} ({cat.tiles[tile].slots[slot - 1].text}) of {words.name(tile)}"
            if len(filled) + 1 < len(slots):
                yield Place(key, label, (Change(token.component, token),))
                continue
            yield from _locking_places(state, table, tile, token, key, label)
    for cell in RESERVE_SPACES:
        if cell not in {state.placement_of(t).cell for t in table.reserve if state.placement_of(t)}:
            to = Placement(ComponentId(component), f"reserve:{player}", cell)
            yield Place(f"reserve {cell}", words.space(cell), (Change(to.component, to),))


def _locking_places(
    state: BoardState, table: PlayerTable, tile: str, token: Placement, key: str, label: str
) -> Iterator[Place]:
    """The last slot filled: the tile locked in, with or without a diversity token, and each protected area."""
    cat = GAME.catalog
    words = Words.of(GAME.id, state)
    lock, position = _lock(state, table, tile, token)
    token_change, rest = lock[-1], lock[:-1]
    label += f", locks it into {words.space(position)}"
    near = beside(state, lock[0].to) if lock[0].to else ()
    if near:
        label += f", next to {words.listing(near)}"
    area = f"jungle:{table.player}"
    diversity = [None, *_supply(state, cat.diversity_tokens)[:1]]
    for d in diversity:
        bonus = [] if d is None else [Change(ComponentId(d), Placement(ComponentId(d), area, None, 0, True, ComponentId(tile)))]
        extra = "" if d is None else f" with {words.name(d)}"
        yield Place(f"{key} lock{extra}", label + extra, (token_change, *rest, *bonus))
        jungle = {**table.jungle, int(position[1:]): tile}
        for pa in _supply(state, cat.protected_areas):
            colour = cat.protected_areas[pa].colour
            for target in sorted(t for t in jungle.values() if cat.tiles[t].shows(colour)):
                on = Change(ComponentId(pa), Placement(ComponentId(pa), area, None, 0, True, ComponentId(target)))
                yield Place(
                    f"{key} lock{extra} {pa} on {target}",
                    f"{label}{extra}, {words.name(pa)} on {words.name(target)}",
                    (token_change, *rest, *bonus, on),
                )


def _tile_places(state: BoardState, component: str, player: str) -> Iterator[Place]:
    words = Words.of(GAME.id, state)
    used = {p.cell for p in state.in_area(f"clearing:{player}")}
    free = [cell for cell in CLEARING_SPACES if cell not in used]
    for cell in free:
        to = Placement(ComponentId(component), f"clearing:{player}", cell)
        yield Place(f"clearing {cell}", words.space(cell), (Change(to.component, to),))
    if not free:  # a fourth tile beside the full clearing: the rules say why not
        to = Placement(ComponentId(component), f"clearing:{player}")
        yield Place("clearing", f"{words.area(to.area)} (no free space)", (Change(to.component, to),))


def _pointed_label(state: BoardState, to: Placement) -> str:
    """A place no candidate matches, in words: ``token space 2 of Jungle tile R10 in Ana's clearing``."""
    words = Words.of(GAME.id, state)
    parts = [words.space(str(to.cell))] if to.cell is not None else []
    if to.slot is not None:
        parts.append(words.space(f"S{to.slot}"))
    if to.on is not None:
        parts.append(f"of {words.name(to.on)}")
    return " ".join([*parts, words.where(to.area)])


class RainforestHints:
    def holdable(self, state: BoardState, player: str) -> tuple[str, ...]:
        """The zones' top tiles and species tokens."""
        cat = GAME.catalog
        return tuple(
            p.component for p in state.placements
            if p.area.startswith("zone:") and (p.component in cat.tiles or p.component in cat.tokens)
        )

    def in_hand(self, state: BoardState, component: str, player: str) -> BoardState:
        cat = GAME.catalog
        if component not in cat.tiles and component not in cat.tokens:
            raise HintError(f"{component} is neither a jungle tile nor a species token: those are what a turn takes")
        where = state.placement_of(component)
        if where is not None and not where.area.startswith("zone:"):
            raise HintError(f"{component} already lies in {where.area}: only a tile or token from a zone is in hand")
        return without(state, [component])

    def places(self, before: BoardState, component: str, player: str) -> Iterator[Place]:
        if component in GAME.catalog.tiles:
            return _tile_places(before, component, player)
        return _token_places(before, component, player)

    def place_for(self, before: BoardState, component: str, player: str, where: Mapping[str, Any]) -> Place:
        area = where_field(where, "area", str)
        cell = where_field(where, "cell", str, required=False)
        on = where_field(where, "on", str, required=False)
        slot = where_field(where, "slot", int, required=False)
        to = Placement(ComponentId(component), area, cell, 0, True, ComponentId(on) if on else None, slot)
        for place in self.places(before, component, player):
            at = place.placement
            if at is not None and (at.cell, at.on, at.slot) == (cell, on, slot):
                return place  # the move the rules complete (a lock; bonus tokens are variants)
        key = f"{area} {cell or ''} {on or ''} {slot or ''}".strip()
        return Place(key, _pointed_label(before, to), (Change(to.component, to),))

    def market(self, state: BoardState, player: str, hints: HintFinder) -> Iterator[MarketChoice]:
        """Every tile and token in the zones, with the best spot it would have."""
        cat = GAME.catalog
        for p in state.placements:
            if not p.area.startswith("zone:") or (p.component not in cat.tiles and p.component not in cat.tokens):
                continue
            best = hints(state, p.component, player).best
            zone = parse_area(p.area).owner or ""
            if best is None:
                reason = f"zone {zone}: no legal spot"
            else:
                gains = ", ".join(f"{g.rule} {g.points:+d}" for g in best.gains) or "no points yet"
                reason = f"zone {zone}: {best.place.label}: {best.total:+d} ({gains})"
            yield MarketChoice(p.component, best, reason)


HINTS = RainforestHints()
