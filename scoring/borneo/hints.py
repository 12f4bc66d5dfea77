"""BIOME Borneo places for a tile in hand: a free slot, a turn of the hexagon, and the card it earns.

A tile is only laid to earn a card, so a place is the tile in a slot together with the card
it earns (from the gallery or the hand) and, for a predator, the prey it is stacked on. The
rules judge every combination; two shortcuts use their own verdicts: a tile position that
breaks a per-tile rule (layer, conflict) is refused for every card, and a card whose prey is
refused is refused for every tile position.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ..hints import Change, HintError, HintFinder, MarketChoice, Place, apply_place, where_field
from ..model import BoardState, ComponentId, Placement
from .catalog import AnimalCard, Edge, Tier
from .game import GAME, Area
from ..nearby import beside
from ..words import Words, plural

#: Rules a tile position breaks whatever card it serves.
_TILE_RULES = frozenset({"borneo/wrong_layer", "borneo/conflict", "borneo/tile_removed", "borneo/tile_not_in_hand"})
#: Rules a card breaks whatever tile serves it.
_CARD_RULES = frozenset({"borneo/prey_missing", "borneo/prey_not_listed", "borneo/prey_consumed",
                         "borneo/card_not_available", "borneo/earned_changed"})


def _tile(component: str) -> None:
    if component not in GAME.catalog.tiles:
        raise HintError(f"{component} is not a jungle tile: only tiles are laid on the platforms")


def _rotations(component: str) -> tuple[int, ...]:
    """Sixth turns that show different edges (a tile with a symmetric face needs fewer)."""
    tile = GAME.catalog.tiles[component]
    seen: dict[tuple[str, ...], int] = {}
    for r in range(6):
        seen.setdefault(tuple(tile.edge_plant(e, r) for e in Edge), r)
    return tuple(seen.values())


def _free_slots(state: BoardState) -> list[tuple[str, str]]:
    cat = GAME.catalog
    taken = {(p.area, p.cell) for p in state.placements} | {(u.area, u.cell) for u in state.unknown}
    out = []
    for p in state.in_area(Area.JUNGLE.value):
        platform = cat.platforms.get(p.component)
        if platform is None:
            continue
        area = f"{Area.PLATFORM.value}:{platform.id}"
        out.extend((area, s.name) for s in platform.slots if (area, s.name) not in taken)
    return out


def _cards(state: BoardState, player: str) -> list[str]:
    """Cards the player may earn this turn: the gallery's and their own hand's earnable cards."""
    cat = GAME.catalog
    areas = (Area.GALLERY.value, f"{Area.HAND.value}:{player}")
    return [p.component for a in areas for p in state.in_area(a) if cat.earnable(p.component) is not None]


def _preys(state: BoardState, player: str, card: str) -> list[str | None]:
    """Where a card may lie: on nothing (primary, plant) or on top of one of the player's stacks."""
    found = GAME.catalog.earnable(card)
    if not isinstance(found, AnimalCard) or found.tier is Tier.PRIMARY:
        return [None]
    earned = GAME.earned(state, player)
    covered = {p.on for p in earned if p.on is not None}
    return [p.component for p in earned if p.component not in covered and p.component in GAME.catalog.animals]


def _turned(rotation: int) -> str:
    return "not turned" if rotation == 0 else f"turned {plural(rotation, 'sixth')}"


def _label(state: BoardState, player: str, to: Placement, card: str | None, prey: str | None) -> str:
    """``the north-east slot of Canopy Layer 2, next to Plant tile T06, turned 1 sixth: earns Cicada``."""
    words = Words.of(GAME.id, state)
    label = f"{words.space(str(to.cell))} of {words.area(to.area)}"
    near = beside(state, to)
    if near:
        label += f", next to {words.listing(near)}"
    label += f", {_turned(to.rotation)}"
    if card is not None:
        label += f": earns {words.name(card)}"
        source = state.placement_of(card)
        if words.is_shared(card) and source is not None:  # which of the same-named cards
            label += f" from {words.area(source.area)}"
        if prey:
            label += f" on {words.name(prey)}"
    return label


def tile_place(state: BoardState, player: str, tile: str, area: str, slot: str, rotation: int,
               card: str | None, prey: str | None) -> Place:
    to = Placement(ComponentId(tile), area, slot, rotation)
    changes = [Change(to.component, to)]
    if card is not None:
        earned = Placement(ComponentId(card), f"{Area.EARNED.value}:{player}", None, 0, True,
                           ComponentId(prey) if prey else None)
        changes.append(Change(earned.component, earned))
    key = f"{area} {slot} r{rotation} {card or '-'}" + (f" on {prey}" if prey else "")
    return Place(key, _label(state, player, to, card, prey), tuple(changes), (("active", player),))


class BorneoHints:
    def holdable(self, state: BoardState, player: str) -> tuple[str, ...]:
        """The tiles in the player's hand."""
        return tuple(p.component for p in state.in_area(f"{Area.HAND.value}:{player}") if p.component in GAME.catalog.tiles)

    def in_hand(self, state: BoardState, component: str, player: str) -> BoardState:
        _tile(component)
        where = state.placement_of(component)
        if where is not None and where.area.startswith(Area.PLATFORM.value + ":"):
            raise HintError(f"{component} already lies on {where.area}: board tiles stay put")
        hand = Placement(ComponentId(component), f"{Area.HAND.value}:{player}")
        before = apply_place(state, Place("hand", "hand", (Change(hand.component, hand),)))
        extras = {k: v for k, v in before.extras.items() if k not in ("active", "claims")}
        return BoardState(before.game, before.players, before.placements, before.options, extras, before.unknown)

    def places(self, before: BoardState, component: str, player: str) -> Iterator[Place]:
        positions = []
        for area, slot in _free_slots(before):
            for r in _rotations(component):
                bare = tile_place(before, player, component, area, slot, r, None, None)
                codes = {v.code for v in GAME.violations(before, apply_place(before, bare))}
                if not codes & _TILE_RULES:
                    positions.append((area, slot, r))
                else:
                    yield bare  # refused for every card: the tile's own rules
        if not positions:
            return
        for card in _cards(before, player):
            for prey in _preys(before, player, card):
                probe = tile_place(before, player, component, *positions[0], card, prey)
                codes = {v.code for v in GAME.violations(before, apply_place(before, probe))}
                if codes & _CARD_RULES:
                    yield probe  # refused for every tile position: the card's own rules
                    continue
                for area, slot, r in positions:
                    yield tile_place(before, player, component, area, slot, r, card, prey)

    def place_for(self, before: BoardState, component: str, player: str, where: Mapping[str, Any]) -> Place:
        area = where_field(where, "area", str)
        slot = where_field(where, "cell", str)
        rotation = where_field(where, "rotation", int, required=False) or 0
        card = where_field(where, "card", str, required=False)
        prey = where_field(where, "on", str, required=False)
        if not 0 <= rotation <= 5:
            raise HintError("place: 'rotation' must be 0 to 5 sixth turns")
        if card is not None and GAME.catalog.earnable(card) is None:
            raise HintError(f"place: {card!r} is not an animal or plant card")
        return tile_place(before, player, component, area, slot, rotation, card, prey)

    def market(self, state: BoardState, player: str, hints: HintFinder) -> Iterator[MarketChoice]:
        """Each gallery card, ranked by the best spot a tile in the player's hand has for it."""
        hand = [p.component for p in state.in_area(f"{Area.HAND.value}:{player}") if p.component in GAME.catalog.tiles]
        gallery = [p.component for p in state.in_area(Area.GALLERY.value) if GAME.catalog.earnable(p.component)]
        best: dict[str, Any] = {c: None for c in gallery}
        for tile in hand:
            for spot in hints(state, tile, player).spots:
                card = spot.place.changes[1].component if len(spot.place.changes) > 1 else None
                if card in best and (best[card] is None or spot.total > best[card].total):
                    best[card] = spot
        for card in gallery:
            spot = best[card]
            if spot is None:
                reason = "no tile in hand can earn it alone"
            else:
                tile = Words(GAME.id, {}).name(spot.place.changes[0].component)
                reason = f"{spot.total:+d} with {tile} at {spot.place.label}"
            yield MarketChoice(ComponentId(card), spot, reason)


HINTS = BorneoHints()
