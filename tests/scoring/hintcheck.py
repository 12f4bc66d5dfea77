"""What makes a hint answer sound, checked against the games' own rules and score sheets.

Every listed spot is accepted by the move check (through the JSON documents that
``companion check`` reads) and its points are the difference of the player's two score
sheets; every other place of a wide, independent set of places is refused with a rule code
of the game; the best spot is the maximum. The wide sets are built here from the geometry
of each game, not from the hint modules' candidate lists.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from scoring import BoardState, StateError, find_game
from scoring.biomos import Rule as BiomosRule
from scoring.biomos.planet import MOON, PLANET_SPACES, RECESSES
from scoring.borneo import Rule as BorneoRule
from scoring.habitats import Rule as HabitatsRule
from scoring.hints import Change, Hints, Place, apply_place, find_hints, game_hints
from scoring.model import ComponentId, Placement
from scoring.phylo.rules import Rule as PhyloRule
from scoring.rainforest import Rule as RainforestRule
from scoring.state import state_to_json

RULE_CODES = {
    "habitats": {r.value for r in HabitatsRule},
    "borneo": {r.value for r in BorneoRule},
    "rainforest": {r.value for r in RainforestRule},
    "biomos": {r.value for r in BiomosRule},
    "phylo": {r.value for r in PhyloRule},
}


def identity(before: BoardState, place: Place) -> frozenset[object]:
    """Two places are the same place when they leave the same table."""
    after = apply_place(before, place)
    return frozenset(after.placements)


def check_answer(state: BoardState, component: str, player: str, rng: random.Random, *, sample: int = 150) -> Hints:
    """Assert every property of one answer; return it for further checks."""
    game = find_game(state.game)
    hints = find_hints(state, component, player)
    before = game.load_state(state_to_json(hints.before))
    base = game.score_sheet(before).score_of(player)
    for spot in hints.spots:
        after = game.load_state(state_to_json(apply_place(hints.before, spot.place)))
        assert game.violations(before, after) == (), spot.place.key
        now = game.score_sheet(after).score_of(player)
        b, a = base.by_rule(), now.by_rule()
        expected = {r: a.get(r, 0) - b.get(r, 0) for r in {*a, *b} if a.get(r, 0) != b.get(r, 0)}
        assert {g.rule: g.points for g in spot.gains} == expected, spot.place.key
        assert spot.total == now.total - base.total, spot.place.key
    totals = [s.total for s in hints.spots]
    assert totals == sorted(totals, reverse=True)
    if hints.spots:
        assert hints.best is not None and hints.best.total == max(totals)
    listed = {identity(hints.before, s.place) for s in hints.spots}
    assert len(listed) == len(hints.spots), "a place is listed twice"
    places = list(UNIVERSES[state.game](hints.before, component, player))
    rng.shuffle(places)
    for place in places[:sample]:
        if identity(hints.before, place) in listed:
            continue
        after = apply_place(hints.before, place)
        try:
            after = game.load_state(state_to_json(after))
        except StateError:
            continue  # a table that cannot exist (a primary stacked on prey...) is no place
        found = game.violations(before, after)
        assert found, f"{place.key} is legal but not listed"
        assert {v.code for v in found} <= RULE_CODES[state.game], place.key
    return hints


# -- wide sets of places, per game ------------------------------------------------------


def habitats_places(before: BoardState, component: str, player: str) -> Iterator[Place]:
    from scoring.habitats import GAME
    from scoring.habitats.hints import _rotations, park_place

    x0, y0, x1, y1 = GAME.park_of(before, player).bounds()
    for x in range(x0 - 2, x1 + 3):
        for y in range(y0 - 2, y1 + 3):
            if GAME.park_of(before, player).at((x, y)) is None:
                for r in _rotations(component):
                    yield park_place(before, player, component, (x, y), r)


def borneo_places(before: BoardState, component: str, player: str) -> Iterator[Place]:
    from scoring.borneo.game import GAME
    from scoring.borneo.hints import _cards, _free_slots, _rotations, tile_place

    earned = [p.component for p in GAME.earned(before, player) if p.component in GAME.catalog.animals]
    options: list[tuple[str | None, str | None]] = [(None, None)]
    for card in _cards(before, player):
        options += [(card, None), *((card, prey) for prey in earned)]
    for area, slot in _free_slots(before):
        for r in _rotations(component):
            for card, prey in options:
                yield tile_place(before, player, component, area, slot, r, card, prey)


def rainforest_places(before: BoardState, component: str, player: str) -> Iterator[Place]:
    from scoring.rainforest.game import GAME

    hints = game_hints("rainforest")
    if component in GAME.catalog.tiles:
        used = {p.cell for p in before.in_area(f"clearing:{player}")}
        for cell in ("C1", "C2", "C3"):
            if cell not in used:
                yield hints.place_for(before, component, player, {"area": f"clearing:{player}", "cell": cell})
        return
    for area in (f"clearing:{player}", f"jungle:{player}"):
        for tile in before.in_area(area):
            if tile.component not in GAME.catalog.tiles:
                continue
            filled = {p.slot for p in before.placements if p.on == tile.component}
            for slot in range(1, len(GAME.catalog.tiles[tile.component].slots) + 1):
                if slot not in filled:
                    yield hints.place_for(before, component, player, {"area": area, "on": tile.component, "slot": slot})
    used = {p.cell for p in before.in_area(f"reserve:{player}")}
    for cell in ("R1", "R2"):
        if cell not in used:
            yield hints.place_for(before, component, player, {"area": f"reserve:{player}", "cell": cell})


def biomos_places(before: BoardState, component: str, player: str) -> Iterator[Place]:
    """Every landing (direct, or pushing the run at the space either way), with or without each offered card."""
    from scoring.biomos import GAME
    from scoring.biomos.catalog import Side

    area = f"planet:{player}"
    at = {p.cell: p for p in before.in_area(area) if isinstance(p.cell, str)}
    ring = [at.get(s) for s in PLANET_SPACES]
    token = Placement(ComponentId(component), area, None)
    bases: list[list[Change]] = []
    for i, space in enumerate(PLANET_SPACES):
        if ring[i] is None:
            bases.append([Change(token.component, _at(token, space))])
            continue
        for step in (1, -1):
            j = i
            while 0 <= j < len(ring) and ring[j] is not None:
                j += step
            if not 0 <= j < len(ring):
                continue
            run = range(i, j, step)
            moves = [Change(ring[k].component, _at(ring[k], PLANET_SPACES[k + step])) for k in run]  # type: ignore[union-attr]
            bases.append([Change(token.component, _at(token, space)), *moves])
    extra = (*RECESSES, MOON) if GAME.table(before).side is Side.ADVANCED else (MOON,)
    bases += [[Change(token.component, _at(token, s))] for s in extra if s not in at]
    offer = [p.component for p in before.in_area("offer")]
    for changes in bases:
        yield Place("wide", "wide", tuple(changes))
        for card in offer:
            claim = Placement(ComponentId(card), f"biomes:{player}")
            yield Place("wide", "wide", (*changes, Change(claim.component, claim)))


def _at(p: Placement, cell: str) -> Placement:
    return Placement(p.component, p.area, cell, p.rotation, p.face_up, p.on, p.slot)


def phylo_places(before: BoardState, component: str, player: str) -> Iterator[Place]:
    from scoring.phylo.catalog import CardKind
    from scoring.phylo.game import GAME

    hints = game_hints("phylo")
    table = [p for p in before.in_area("table") if isinstance(p.cell, tuple)]
    if GAME.catalog.kind_of(component) is CardKind.EVENT:
        for p in table:
            yield hints.place_for(before, component, player, {"on": p.component})
        return
    xs = [p.cell[0] for p in table]  # type: ignore[index]
    ys = [p.cell[1] for p in table]  # type: ignore[index]
    taken = {p.cell for p in table}
    seats = {p.seat for p in before.players}
    rotations = [r for r, seat in ((0, 0), (2, 1), (1, 2), (3, 3)) if seat in seats]
    for x in range(min(xs) - 2, max(xs) + 3):
        for y in range(min(ys) - 2, max(ys) + 3):
            if (x, y) not in taken:
                for r in rotations:
                    yield hints.place_for(before, component, player, {"cell": [x, y], "rotation": r})


UNIVERSES = {
    "habitats": habitats_places,
    "borneo": borneo_places,
    "rainforest": rainforest_places,
    "biomos": biomos_places,
    "phylo": phylo_places,
}
