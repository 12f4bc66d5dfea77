"""Biomos places for a centre token: each space it can land on, with the fewest slides, and the biome it completes.

The ring's tokens slide to make room (the Law of Gravity): a place is the space the new
token lands on plus the run of tokens pushed one space on (towards P12) or back (towards P1)
when that space is taken. When the planet then shows an offered card's pattern, the same
move may claim it; each claim is its own place. Planetary events are not proposed.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ..hints import Change, HintError, HintFinder, MarketChoice, Place, apply_place, moved, where_field
from ..model import BoardState, ComponentId, Placement
from . import GAME
from .catalog import Side
from .planet import MOON, PLANET_SPACES, RECESSES, find_pattern
from .table import Area
from ..words import Words

Ring = tuple[str | None, ...]


def _ring(state: BoardState, player: str) -> tuple[Ring, dict[str, Placement]]:
    area = f"{Area.PLANET.value}:{player}"
    at = {p.cell: p for p in state.in_area(area) if isinstance(p.cell, str)}
    ring = tuple(at[s].component if s in at else None for s in PLANET_SPACES)
    return ring, {p.component: p for p in at.values()}


def _landings(ring: Ring) -> Iterator[tuple[int, Ring, str, str]]:
    """(landing index, ring after, slide key, slide text) for every space, with the fewest slides each way."""
    n = len(ring)
    for i in range(n):
        if ring[i] is None:
            yield i, ring, "", ""
            continue
        after = next((j for j in range(i + 1, n) if ring[j] is None), None)
        if after is not None:
            new = list(ring)
            new[i + 1:after + 1] = ring[i:after]
            new[i] = None
            yield i, tuple(new), " on", _slide(i, after - 1, "on")
        before = next((j for j in range(i - 1, -1, -1) if ring[j] is None), None)
        if before is not None:
            new = list(ring)
            new[before:i] = ring[before + 1:i + 1]
            new[i] = None
            yield i, tuple(new), " back", _slide(before + 1, i, "back")


def _slide(first: int, last: int, way: str) -> str:
    """``, sliding the tokens of spaces 3 to 5 one space on`` (the rulebook's Law of Gravity)."""
    words = Words(GAME.id, {})
    if first == last:
        return f", sliding the token of {words.space(PLANET_SPACES[first])} one space {way}"
    a, b = words.space(PLANET_SPACES[first]), words.space(PLANET_SPACES[last])
    many = "spaces " + a.removeprefix("space ") if a.startswith("space ") else a
    return f", sliding the tokens of {many} to {b.rpartition(' ')[2]} one space {way}"


def _where(state: BoardState, player: str, space: str) -> str:
    """``space 3 of Red's planet board``, ``the Moon of Red's planet board``."""
    words = Words.of(GAME.id, state)
    return f"{words.space(space)} of {words.area(f'{Area.PLANET.value}:{player}')}"


def _claims(after: BoardState, player: str) -> list[str]:
    """Offered cards whose pattern the planet shows after the placement."""
    table = GAME.table(after)
    planet = table.planets.get(player)  # type: ignore[call-overload]
    if planet is None:
        return []
    gaps = bool(after.options.get("gaps_ignored", False))
    out = []
    for cid in sorted(table.offer):
        card = GAME.catalog.biome(cid)
        if card is not None and find_pattern(planet, card.pattern, gaps_ignored=gaps) is not None:
            out.append(cid)
    return out


def _with_claims(before: BoardState, player: str, place: Place) -> Iterator[Place]:
    yield place
    after = apply_place(before, place)
    for cid in _claims(after, player):
        card = GAME.catalog.biome(cid)
        to = Placement(ComponentId(cid), f"{Area.BIOMES.value}:{player}")
        yield Place(
            f"{place.key} claims {cid}",
            f"{place.label}, completes {card.name if card else 'a biome card'}",
            (*place.changes, Change(to.component, to)),
        )


class BiomosHints:
    def holdable(self, state: BoardState, player: str) -> tuple[str, ...]:
        """The face-up centre tokens (and a solo game's drawn tokens)."""
        areas = (Area.CENTRE.value, Area.DRAWN.value)
        return tuple(p.component for a in areas for p in state.in_area(a) if GAME.catalog.token(p.component))

    def in_hand(self, state: BoardState, component: str, player: str) -> BoardState:
        if GAME.catalog.token(component) is None:
            raise HintError(f"{component} is not a terrain token: a turn places one terrain token")
        where = state.placement_of(component)
        if where is None or where.area not in (Area.CENTRE.value, Area.DRAWN.value):
            place = where.area if where else "not on the table"
            raise HintError(f"{component} is {place}: a turn takes a face-up token from the centre")
        return state

    def places(self, before: BoardState, component: str, player: str) -> Iterator[Place]:
        area = f"{Area.PLANET.value}:{player}"
        ring, placed = _ring(before, player)
        seen: set[Ring] = set()
        for i, after, slide, how in _landings(ring):
            if after in seen and slide:
                continue
            seen.add(after)
            token = Placement(ComponentId(component), area, PLANET_SPACES[i])
            changes = [Change(token.component, token)]
            for k, cid in enumerate(after):
                if cid is not None and ring[k] != cid:
                    changes.append(Change(ComponentId(cid), moved(placed[cid], cell=PLANET_SPACES[k])))
            place = Place(PLANET_SPACES[i] + slide, _where(before, player, PLANET_SPACES[i]) + how, tuple(changes))
            yield from _with_claims(before, player, place)
        taken = {p.cell for p in before.in_area(area)}
        recesses = RECESSES if GAME.table(before).side is Side.ADVANCED else ()
        for space in (*recesses, MOON):
            if space not in taken:
                token = Placement(ComponentId(component), area, space)
                place = Place(space, _where(before, player, space), (Change(token.component, token),))
                yield from _with_claims(before, player, place)

    def place_for(self, before: BoardState, component: str, player: str, where: Mapping[str, Any]) -> Place:
        cell = where_field(where, "cell", str)
        claim = where_field(where, "claim", str, required=False)
        for place in self.places(before, component, player):
            at = place.placement
            claimed = [c.component for c in place.changes if c.to and c.to.area.startswith("biomes:")]
            if at is not None and at.cell == cell and claimed == ([claim] if claim else []):
                return place
        token = Placement(ComponentId(component), f"{Area.PLANET.value}:{player}", cell)
        return Place(cell, _where(before, player, cell), (Change(token.component, token),))

    def market(self, state: BoardState, player: str, hints: HintFinder) -> Iterator[MarketChoice]:
        """Each centre token, ranked by its best landing space."""
        for p in state.in_area(Area.CENTRE.value):
            best = hints(state, p.component, player).best
            reason = "no legal space" if best is None else f"{best.place.label}: {best.total:+d}"
            yield MarketChoice(p.component, best, reason)


HINTS = BiomosHints()
