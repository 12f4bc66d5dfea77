"""PHYLO places for a card in hand: a species in a cell beside the table, facing one player, or an event on a species.

Orientation matters: a card faces its owner, so every seated player's facing is proposed
and the rules refuse the ones that are not the player's. An INVASIVE species is also
proposed on top of every species; an event on every species, with the cards an immediate
discard event reaches leaving the table in the same move.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ..hints import Change, HintError, HintFinder, MarketChoice, Place, grid_nearby, where_field
from ..model import BoardState, ComponentId, Placement
from .catalog import CardKind, Duration, Effect
from .game import GAME
from .table import affected_by, build_table, cells_in_reach, neighbours, owner_of
from ..words import Words

TABLE = "table"
#: The step on the table towards each seat (seat 0 sits south, 1 north, 2 west, 3 east).
TOWARDS_SEAT = {0: (0, 1), 1: (0, -1), 2: (-1, 0), 3: (1, 0)}


def _sides(state: BoardState, words: Words) -> dict[tuple[int, int], str]:
    """Sides of a card by who sits there: ``on Ana's side of``; an empty seat's side by the compass."""
    return {TOWARDS_SEAT[p.seat]: f"on {words.player(p.id)}'s side of" for p in state.players if p.seat in TOWARDS_SEAT}


def _leaving(state: BoardState, card: str) -> list[Change]:
    """A species leaving the table takes the events lying on it along."""
    return [Change(ComponentId(card), None), *(Change(p.component, None) for p in state.placements if p.on == card)]


def _facings(state: BoardState) -> list[int]:
    return [r for r in range(4) if owner_of(state, r) is not None]


def _species_place(state: BoardState, card: str, player: str, cell: tuple[int, int], rotation: int,
                   replaces: str | None = None) -> Place:
    to = Placement(ComponentId(card), TABLE, cell, rotation)
    changes = [Change(to.component, to)]
    words = Words.of(GAME.id, state)
    owner = owner_of(state, rotation)
    facing = f"facing {words.player(owner)}" if owner else "facing nobody"
    key = f"{cell[0]},{cell[1]} r{rotation}"
    if replaces is not None:
        changes += _leaving(state, replaces)
        label = f"on {words.name(replaces)}, invading it, {facing}"
        key += f" invades {replaces}"
    else:
        near = grid_nearby(state, TABLE, cell, words, _sides(state, words))
        label = f"{near}, {facing}" if near else f"on the table, touching no card, {facing}"
    return Place(key, label, tuple(changes), (("active", player), ("events", [])))


def _event_place(state: BoardState, card: str, player: str, target: str) -> Place:
    cat = GAME.catalog
    ev = cat.event_of(card)
    table = build_table(state, cat)
    victim = table.by_id.get(target)
    changes: list[Change] = []
    if ev is not None and ev.duration is Duration.PERSISTENT:
        changes.append(Change(ComponentId(card), Placement(ComponentId(card), TABLE, None, 0, True, ComponentId(target))))
    else:
        changes.append(Change(ComponentId(card), Placement(ComponentId(card), f"discard:{player}")))
    if ev is not None and ev.effect is Effect.DISCARD and victim is not None:
        for cell in cells_in_reach(ev, victim.cell, list(table.cards)):
            if affected_by(ev, table.cards[cell]):
                changes += _leaving(state, table.cards[cell].id)
    words = Words.of(GAME.id, state)
    return Place(
        f"event on {target}",
        f"on {words.name(target)}" if victim is not None else f"on {words.name(target)}, which is not on the table",
        tuple(changes),
        (("active", player), ("events", [{"card": card, "target": target}])),
    )


class PhyloHints:
    def holdable(self, state: BoardState, player: str) -> tuple[str, ...]:
        """The player's hand; without one on record, every species and event card not yet played."""
        cat = GAME.catalog
        hand = [p.component for p in state.in_area(f"hand:{player}")]
        if hand:
            return tuple(hand)
        seen = {p.component for p in state.placements}
        return tuple(
            c.id for c in GAME.components()
            if c.id not in seen and cat.kind_of(c.id) in (CardKind.SPECIES, CardKind.EVENT)
        )

    def in_hand(self, state: BoardState, component: str, player: str) -> BoardState:
        kind = GAME.catalog.kind_of(component)
        if kind not in (CardKind.SPECIES, CardKind.EVENT):
            raise HintError(f"{component} is not a species or event card: only those are played from the hand")
        where = state.placement_of(component)
        if where is not None and where.area == TABLE:
            raise HintError(f"{component} already lies on the table")
        extras = {k: v for k, v in state.extras.items() if k not in ("active", "events")}
        hand = Placement(ComponentId(component), f"hand:{player}")
        placements = tuple(p for p in state.placements if p.component != component) + (hand,)
        return BoardState(state.game, state.players, placements, state.options, extras, state.unknown)

    def places(self, before: BoardState, component: str, player: str) -> Iterator[Place]:
        cat = GAME.catalog
        table = build_table(before, cat)
        if cat.kind_of(component) is CardKind.EVENT:
            for card in sorted(table.by_id.values(), key=lambda c: c.cell):
                if card.species is not None:
                    yield _event_place(before, component, player, card.id)
            return
        taken = set(table.cards)
        frontier = sorted({n for c in taken for n in neighbours(c) if n not in taken})
        facings = _facings(before)
        for cell in frontier:
            for r in facings:
                yield _species_place(before, component, player, cell, r)
        species = cat.species_of(component)
        if species is not None and species.is_invasive:
            for c in sorted(table.cards.values(), key=lambda c: c.cell):
                if c.species is not None:
                    for r in facings:
                        yield _species_place(before, component, player, c.cell, r, c.id)

    def place_for(self, before: BoardState, component: str, player: str, where: Mapping[str, Any]) -> Place:
        if GAME.catalog.kind_of(component) is CardKind.EVENT:
            return _event_place(before, component, player, where_field(where, "on", str))
        cell = where_field(where, "cell", list)
        if len(cell) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in cell):
            raise HintError("place: 'cell' must be [x, y] integers")
        rotation = where_field(where, "rotation", int, required=False) or 0
        if rotation not in _facings(before):
            raise HintError(f"place: rotation {rotation} faces no seated player")
        at = next((c.id for c in build_table(before, GAME.catalog).cards.values() if c.cell == tuple(cell)), None)
        return _species_place(before, component, player, (cell[0], cell[1]), rotation, at)

    def market(self, state: BoardState, player: str, hints: HintFinder) -> Iterator[MarketChoice]:
        return iter(())


HINTS = PhyloHints()
