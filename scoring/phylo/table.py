"""The common PHYLO card grid: ownership by orientation, event effects and food-chain viability."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..model import BoardState, Placement
from .catalog import CardKind, Catalog, Climate, Diet, Duration, Effect, Event, Species, Terrain

GridCell = tuple[int, int]
TABLE = "table"

#: Rotation (quarter turns clockwise, as seen by the first player) of a card facing each seat.
#: Seat 0 sits south, seat 1 north, seat 2 west, seat 3 east.
ROTATION_OF_SEAT: Mapping[int, int] = {0: 0, 1: 2, 2: 1, 3: 3}
SEAT_OF_ROTATION: Mapping[int, int] = {r: s for s, r in ROTATION_OF_SEAT.items()}

ORTHOGONAL: tuple[GridCell, ...] = ((1, 0), (-1, 0), (0, 1), (0, -1))


def neighbours(cell: GridCell) -> tuple[GridCell, ...]:
    """The four orthogonally adjacent cells: PHYLO adjacency is edge to edge."""
    x, y = cell
    return tuple((x + dx, y + dy) for dx, dy in ORTHOGONAL)


def manhattan(a: GridCell, b: GridCell) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


def steps(a: GridCell, b: GridCell, *, flight: bool) -> int:
    """Grid steps from a to b: orthogonal only, or king steps when the species has FLIGHT."""
    dx, dy = abs(a[0] - b[0]), abs(a[1] - b[1])
    return max(dx, dy) if flight else dx + dy


def fmt(cell: GridCell) -> str:
    return f"({cell[0]},{cell[1]})"


def owner_of(state: BoardState, rotation: int) -> str | None:
    """The player a card faces, from its rotation and the players' seats."""
    seat = SEAT_OF_ROTATION.get(rotation % 4)
    for p in state.players:
        if p.seat == seat:
            return p.id
    return None


@dataclass(frozen=True, slots=True)
class TableCard:
    """A species or HOME card in a grid cell, with its environment after event effects."""

    id: str
    cell: GridCell
    rotation: int
    owner: str | None
    kind: CardKind
    species: Species | None
    climates: frozenset[Climate]
    terrains: frozenset[Terrain]

    @property
    def name(self) -> str:
        return self.species.common_name if self.species else "HOME"


@dataclass(frozen=True, slots=True)
class TableEvent:
    """An event card lying on the table on its target species."""

    id: str
    event: Event
    target: str
    cell: GridCell
    owner: str | None
    rotation: int


class Need(enum.Enum):
    """Why a species has no viable food chain; values are the violation codes."""

    ISOLATED = "phylo/not_adjacent"
    ENVIRONMENT = "phylo/incompatible_environment"
    FOOD = "phylo/no_food"
    SCALE = "phylo/prey_too_large"
    CHAIN = "phylo/no_chain"


@dataclass(frozen=True, slots=True)
class Support:
    """A species' standing in the food web: viable (and via what) or the missing link."""

    viable: bool
    reason: str
    """Player-readable: what it eats and where, or what is missing."""
    need: Need | None = None
    via: str | None = None
    """The card a viable species is linked by (its food, the HOME card or the FOODCHAIN#1 card
    it shares an environment with)."""


@dataclass(frozen=True, slots=True)
class Table:
    """Every card on the grid with ownership, effective environments and viability."""

    cards: Mapping[GridCell, TableCard]
    by_id: Mapping[str, TableCard]
    events: tuple[TableEvent, ...]
    support: Mapping[str, Support]
    changed_by: Mapping[str, tuple[TableEvent, ...]]
    """Species id -> the persistent events that changed its environment."""
    """Names of the persistent events that change each card's climates or terrains."""

    def neighbour_cards(self, cell: GridCell) -> tuple[TableCard, ...]:
        return tuple(self.cards[c] for c in neighbours(cell) if c in self.cards)

    def is_viable(self, card_id: str) -> bool:
        s = self.support.get(card_id)
        return s is not None and s.viable


def env_compatible(a: TableCard, b: TableCard) -> bool:
    """Environmental COMPATIBILITY: at least one climate and one terrain in common."""
    return bool(a.climates & b.climates) and bool(a.terrains & b.terrains)


def food_link(eater: Species, prey: Species) -> tuple[bool, bool]:
    """(is the prey at a FOODCHAIN# this diet eats, does the scale limit apply to it)."""
    fc = prey.foodchain
    meat = fc >= 2
    if eater.foodchain == 1:
        return False, False
    if eater.diet is Diet.HERBIVORE:
        return fc == 1, False
    if eater.diet is Diet.OMNIVORE:
        return fc == 1 or fc == eater.foodchain - 1, meat
    if eater.diet is Diet.CARNIVORE:
        return fc == eater.foodchain - 1, meat
    if eater.diet is Diet.SPECIAL:
        return fc in eater.prey_foodchains, meat
    return False, False


def scale_ok(eater: Species, prey: Species) -> bool:
    """Meat eaters only eat species of equal or lesser SCALE."""
    return prey.scale <= eater.scale


def affected_by(ev: Event, card: TableCard) -> bool:
    """Does an event in range reach this species (its kingdom and terrain filters)?"""
    s = card.species
    if s is None:
        return False
    if ev.affects_kingdoms and s.kingdom not in ev.affects_kingdoms:
        return False
    if ev.affects_terrains and not (card.terrains & ev.affects_terrains):
        return False
    return True


def target_problem(ev: Event, card: TableCard) -> str | None:
    """Why an event may not be played on this card (None when it may)."""
    s = card.species
    if s is None:
        return "events are played on species cards"
    if ev.target_kingdoms and s.kingdom not in ev.target_kingdoms:
        return f"{ev.name} needs a {' or '.join(sorted(ev.target_kingdoms))} card, {s.common_name} is {s.kingdom}"
    if ev.target_terrains and not (card.terrains & ev.target_terrains):
        need = " or ".join(sorted(t.value.replace("_", " ") for t in ev.target_terrains))
        return f"{ev.name} needs a species living in {need}"
    if ev.target_climates and not (card.climates & ev.target_climates):
        need = " or ".join(sorted(c.value for c in ev.target_climates))
        return f"{ev.name} needs a species with a {need} climate"
    return None


def cells_in_reach(ev: Event, centre: GridCell, cards: Iterable[GridCell]) -> tuple[GridCell, ...]:
    return tuple(c for c in cards if manhattan(c, centre) <= ev.radius)


def build_table(state: BoardState, catalog: Catalog) -> Table:
    """Read the grid from a state and apply every persistent event lying on it."""
    raw: dict[GridCell, TableCard] = {}
    events_raw: list[Placement] = []
    for p in state.placements:
        if p.area != TABLE:
            continue
        kind = catalog.kind_of(p.component)
        if kind is CardKind.EVENT:
            events_raw.append(p)
            continue
        if not isinstance(p.cell, tuple):
            continue
        s = catalog.species_of(p.component)
        raw[p.cell] = TableCard(
            id=p.component,
            cell=p.cell,
            rotation=p.rotation % 4,
            owner=owner_of(state, p.rotation),
            kind=kind or CardKind.SPECIES,
            species=s,
            climates=s.climates if s else frozenset(Climate),
            terrains=s.terrains if s else frozenset(Terrain),
        )
    ids = {c.id: c for c in raw.values()}
    events: list[TableEvent] = []
    for p in events_raw:
        ev = catalog.event_of(p.component)
        target = ids.get(p.on or "")
        if ev is None or target is None:
            continue
        events.append(
            TableEvent(p.component, ev, target.id, target.cell, owner_of(state, p.rotation), p.rotation % 4)
        )
    cards = dict(raw)
    changed: dict[str, list[TableEvent]] = {}
    for te in events:
        if te.event.duration is not Duration.PERSISTENT:
            continue
        for cell in cells_in_reach(te.event, te.cell, list(cards)):
            card = cards[cell]
            if not affected_by(te.event, raw[cell]):
                continue
            if te.event.effect is Effect.LOSE_CLIMATE:
                card = _replace_env(card, card.climates - te.event.climates, card.terrains)
            elif te.event.effect is Effect.TERRAIN_BECOMES and te.event.terrain is not None:
                card = _replace_env(card, card.climates, frozenset({te.event.terrain}))
            cards[cell] = card
            changed.setdefault(card.id, []).append(te)
    by_id = {c.id: c for c in cards.values()}
    changed_by = {k: tuple(v) for k, v in changed.items()}
    return Table(cards, by_id, tuple(events), _viability(cards), changed_by)


def _replace_env(card: TableCard, climates: frozenset[Climate], terrains: frozenset[Terrain]) -> TableCard:
    return TableCard(
        card.id, card.cell, card.rotation, card.owner, card.kind, card.species, climates, terrains
    )


def _prey_edges(card: TableCard, cards: Mapping[GridCell, TableCard]) -> list[TableCard]:
    s = card.species
    out: list[TableCard] = []
    if s is None:
        return out
    for n in (cards[c] for c in neighbours(card.cell) if c in cards):
        if n.species is None or not env_compatible(card, n):
            continue
        level, scaled = food_link(s, n.species)
        if level and (not scaled or scale_ok(s, n.species)):
            out.append(n)
    return out


def _viability(cards: Mapping[GridCell, TableCard]) -> dict[str, Support]:
    """Least fixed point: FOODCHAIN#1 anchors, then anything eating a viable neighbour."""
    species = [c for c in cards.values() if c.species is not None]
    viable: dict[str, tuple[str, str]] = {}
    for c in species:
        if c.species is None or c.species.foodchain != 1:
            continue
        near = [cards[n] for n in neighbours(c.cell) if n in cards]
        home = next((n for n in near if n.kind is CardKind.HOME), None)
        if home is not None:
            viable[c.id] = (f"FOODCHAIN#1 next to a HOME card at {fmt(home.cell)}", home.id)
            continue
        mate = next((n for n in near if n.species is not None and env_compatible(c, n)), None)
        if mate is not None:
            viable[c.id] = (f"FOODCHAIN#1 sharing climate and terrain with {mate.name} at {fmt(mate.cell)}", mate.id)
    edges = {c.id: _prey_edges(c, cards) for c in species if c.species and c.species.foodchain > 1}
    changed = True
    while changed:
        changed = False
        for cid, prey in edges.items():
            if cid in viable:
                continue
            food = next((p for p in prey if p.id in viable), None)
            if food is not None:
                viable[cid] = (f"eats {food.name} at {fmt(food.cell)}", food.id)
                changed = True
    out: dict[str, Support] = {}
    for c in species:
        if c.id in viable:
            reason, via = viable[c.id]
            out[c.id] = Support(True, reason, via=via)
        else:
            need, why = diagnose(c, cards)
            out[c.id] = Support(False, why, need)
    return out


def diagnose(card: TableCard, cards: Mapping[GridCell, TableCard]) -> tuple[Need, str]:
    """The first missing link of a non-viable species, in the rulebook's order."""
    s = card.species
    near = [cards[n] for n in neighbours(card.cell) if n in cards]
    if not near:
        return Need.ISOLATED, "no card next to it"
    if s is None:
        return Need.CHAIN, "a HOME card feeds nothing"
    env = [n for n in near if n.species is not None and env_compatible(card, n)]
    if not env:
        if s.foodchain == 1:
            return (
                Need.ENVIRONMENT,
                "FOODCHAIN#1 but shares no climate and terrain with a neighbour and is not next to HOME",
            )
        return Need.ENVIRONMENT, "no neighbour shares a climate and a terrain with it"
    food = [n for n in env if n.species is not None and food_link(s, n.species)[0]]
    if not food:
        return Need.FOOD, f"no compatible neighbour is food for a FOODCHAIN#{s.foodchain} {s.diet.value}"
    sized = [
        n
        for n in food
        if n.species is not None and (not food_link(s, n.species)[1] or scale_ok(s, n.species))
    ]
    if not sized:
        biggest = max(food, key=lambda n: n.species.scale if n.species else 0)
        scale = biggest.species.scale if biggest.species else 0
        return Need.SCALE, f"prey {biggest.name} (scale {scale}) is larger than scale {s.scale}"
    names = ", ".join(n.name for n in sized)
    return Need.CHAIN, f"its food ({names}) has no food chain back to a FOODCHAIN#1 card"
