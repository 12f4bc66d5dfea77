"""BIOME Borneo (Goat Rock Games): habitat creation legality and end-of-game scoring."""

from __future__ import annotations

import enum
import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..game import BaseGame
from ..model import (
    BoardState,
    Component,
    ComponentId,
    GameInfo,
    Option,
    Placement,
    PlacementAt,
    ScoreLine,
    ScoreSheet,
    Shape,
    StateError,
    TieBreak,
    Violation,
    build_sheet,
    parse_area,
)
from .catalog import (
    ACTION_COLOURS,
    BONUS_COLOUR,
    CARD_SIZE_MM,
    EDGE_COUNT,
    LAYER_COLOURS,
    PLANT_CARD_COLOUR,
    TIER_COLOURS,
    ActionKind,
    AnimalCard,
    BonusCard,
    BonusKind,
    Catalog,
    Edge,
    Layer,
    PlantCard,
    Tier,
    load_catalog,
)
from .jungle import Geometry, Jungle, PlacedTile, Position, plant_text

TILE_SIZE_MM = (70.0, 60.6)
"""Flat-topped hexagon, 35 mm from centre to corner (matches the platform slots)."""
GALLERY_SIZE = 3
BONUS_IN_PLAY = 2
EXTRAS_KEYS = frozenset({"active", "claims"})


class Rule(enum.Enum):
    """Every broken rule a move can show; the values are stable codes."""

    WRONG_LAYER = "borneo/wrong_layer"
    CONFLICT = "borneo/conflict"
    TILE_WITHOUT_CARD = "borneo/tile_without_card"
    CARD_WITHOUT_TILE = "borneo/card_without_tile"
    TILES_NOT_CONNECTED = "borneo/tiles_not_connected"
    HABITAT_UNMET = "borneo/habitat_unmet"
    PREY_MISSING = "borneo/prey_missing"
    PREY_NOT_LISTED = "borneo/prey_not_listed"
    PREY_CONSUMED = "borneo/prey_consumed"
    SEVERAL_PLAYERS = "borneo/several_players"
    CLAIM_MISMATCH = "borneo/claim_mismatch"
    TILE_REMOVED = "borneo/tile_removed"
    EARNED_CHANGED = "borneo/earned_changed"
    TILE_NOT_IN_HAND = "borneo/tile_not_in_hand"
    CARD_NOT_AVAILABLE = "borneo/card_not_available"


class Area(enum.Enum):
    """Kinds of places on the table; player areas carry ``:<player id>``, platforms ``:<id>``."""

    PLATFORM = "platform"
    HAND = "hand"
    EARNED = "earned"
    GALLERY = "gallery"
    BONUS = "bonus"
    SUPPLY = "supply"
    DECK = "deck"
    DISCARD = "discard"
    BOX = "box"
    JUNGLE = "jungle"
    TABLE = "table"


_PLAYER_AREAS = frozenset({Area.HAND, Area.EARNED})


@functools.lru_cache(maxsize=1024)
def split_area(area: str) -> tuple[Area, str | None] | None:
    """``earned:red`` -> (Area.EARNED, "red"); None for an area this game does not have."""
    parsed = parse_area(area)
    try:
        a = Area(parsed.kind)
    except ValueError:
        return None
    needs_arg = a in _PLAYER_AREAS or a is Area.PLATFORM
    if needs_arg != bool(parsed.owner):
        return None
    return a, parsed.owner


@dataclass(frozen=True, slots=True)
class Claim:
    """One earned card and the new tiles laid for it, in the order cards were earned."""

    card: str
    tiles: tuple[str, ...]


class BorneoGame(BaseGame):
    """The rules of BIOME Borneo over this edition's catalog."""

    info = GameInfo(
        id="borneo",
        name="BIOME Borneo",
        qr_prefix="BO",
        options=(
            Option("bonus_points", 5, "The points of a completed global bonus card, scored only by the one"
                   " player who completed it."),
        ),
    )

    @functools.cached_property
    def catalog(self) -> Catalog:
        return load_catalog()

    @functools.cached_property
    def geometry(self) -> Geometry:
        return Geometry(self.catalog)

    # -- components ------------------------------------------------------------------
    def _components(self) -> tuple[Component, ...]:
        cat = self.catalog
        out: list[Component] = []
        for p in cat.platforms.values():
            out.append(
                Component(
                    ComponentId(p.id), "board", p.name, p.tag, p.size_mm,
                    colour=LAYER_COLOURS[p.layer],
                    lines=(p.name, f"{p.layer.value.title()} layer", f"{len(p.slots)} tile slots"),
                    anchors=p.anchors, spaces=p.spaces(), edition_data=p.edition_data,
                )
            )
        for t in cat.tiles.values():
            layers = [layer for layer in Layer if layer in t.layers]
            edges = " ".join(f"{e.name}:{cat.plants[t.edges[e]].name if t.edges[e] != '-' else '-'}" for e in Edge)
            out.append(
                Component(
                    ComponentId(t.id), "tile", f"Plant tile {t.id}", t.tag, TILE_SIZE_MM, Shape.HEX,
                    colour=LAYER_COLOURS[layers[0]],
                    lines=(
                        " / ".join(layer.value.title() for layer in layers),
                        plant_text(t.plants(), {k: v.name for k, v in cat.plants.items()}),
                        edges,
                    ),
                    back="BIOME Borneo plant tile", edition_data=t.edition_data,
                )
            )
        names = {k: v.name for k, v in cat.plants.items()}
        for c in cat.animals.values():
            s = c.species
            lines = [s.name, f"{s.points} pts - {s.tier.value}", f"Habitat: {plant_text(c.habitat, names)}"]
            if s.prey:
                lines.append("Prey (+ any): " + ", ".join(cat.species[p].name for p in s.prey))
            if s.predators:
                lines.append("Predators: " + ", ".join(cat.species[p].name for p in s.predators))
            out.append(
                Component(
                    ComponentId(c.id), "card", s.name, c.tag, CARD_SIZE_MM,
                    colour=TIER_COLOURS[s.tier], lines=tuple(lines), back="BIOME Borneo main deck",
                    edition_data=c.edition_data or s.edition_data,
                )
            )
        for pc in cat.plant_cards.values():
            lines = [pc.name, f"{pc.points} pts - plant", f"Habitat: {plant_text(pc.habitat, names)}"]
            if pc.spans_layers:
                lines.append("Vines must join the Understory and the Canopy")
            out.append(
                Component(
                    ComponentId(pc.id), "card", pc.name, pc.tag, CARD_SIZE_MM, colour=PLANT_CARD_COLOUR,
                    lines=tuple(lines), back="BIOME Borneo main deck", edition_data=pc.edition_data,
                )
            )
        for a in cat.actions.values():
            out.append(
                Component(
                    ComponentId(a.id), "card", a.name, a.tag, CARD_SIZE_MM, colour=ACTION_COLOURS[a.kind],
                    lines=(a.name, a.kind.value.title(), a.text), back="BIOME Borneo main deck",
                    edition_data=a.edition_data,
                )
            )
        for b in cat.bonuses.values():
            out.append(
                Component(
                    ComponentId(b.id), "bonus", b.name, b.tag, CARD_SIZE_MM, colour=BONUS_COLOUR,
                    lines=(b.name, "Global bonus - 5 pts", b.text), back="BIOME Borneo global bonus",
                    edition_data=b.edition_data,
                )
            )
        for x in cat.accessories.values():
            out.append(
                Component(
                    ComponentId(x.id), x.kind, x.name, x.tag, x.size_mm, colour="#8d6e63",
                    lines=(x.name,), edition_data=x.edition_data,
                )
            )
        return tuple(out)

    # -- geometry and consistency ------------------------------------------------------
    def _allowed_in(self, area: Area, component: str) -> bool:
        cat = self.catalog
        tile = component in cat.tiles
        earnable = cat.earnable(component) is not None
        if area is Area.PLATFORM or area is Area.SUPPLY:
            return tile
        if area is Area.HAND:
            return tile or cat.is_main_deck(component)
        if area is Area.EARNED:
            return earnable
        if area is Area.GALLERY:
            action = cat.actions.get(component)
            return earnable or (action is not None and action.kind is ActionKind.ABILITY)
        if area in (Area.DECK, Area.DISCARD):
            return cat.is_main_deck(component)
        if area is Area.BONUS:
            return component in cat.bonuses
        if area is Area.JUNGLE:
            accessory = cat.accessories.get(component)
            return component in cat.platforms or (accessory is not None and accessory.kind == "mount")
        if area is Area.TABLE:
            accessory = cat.accessories.get(component)
            return accessory is not None and accessory.kind == "legend"
        return True  # Area.BOX: anything out of play

    def check_place(self, placement: Placement) -> str | None:
        parsed = split_area(placement.area)
        if parsed is None:
            return (
                f"unknown area {placement.area!r}; areas are platform:<id>, hand:<player>,"
                " earned:<player>, gallery, bonus, supply, deck, discard, box, jungle, table"
            )
        area, arg = parsed
        if not self._allowed_in(area, placement.component):
            return f"{placement.component} cannot lie in {placement.area}"
        if area is Area.PLATFORM:
            platform = self.catalog.platforms.get(arg or "")
            if platform is None:
                return f"no platform {arg!r}; platforms are {', '.join(self.catalog.platforms)}"
            if not isinstance(placement.cell, str) or platform.slot(placement.cell) is None:
                slots = ", ".join(s.name for s in platform.slots)
                return f"platform {platform.id} has no slot {placement.cell!r}; its slots are {slots}"
            if not 0 <= placement.rotation < EDGE_COUNT:
                return f"rotation {placement.rotation} is not 0..{EDGE_COUNT - 1} sixth turns"
            if placement.on is not None:
                return "a tile lies in a slot, not on another component"
        elif placement.cell is not None:
            return f"cells are only used on platforms, not in {placement.area}"
        if placement.on is not None and area is not Area.EARNED:
            return "only earned cards are stacked (on their prey)"
        if placement.slot is not None:
            return "this game has no component slots"
        return None

    def check_state(self, state: BoardState) -> None:
        players = {p.id for p in state.players}
        counts: dict[Area, int] = {}
        for i, p in enumerate(state.placements):
            where = PlacementAt(i, p.component)
            parsed = split_area(p.area)
            if parsed is None:  # check_place already refused it; keeps the type checker honest
                raise where.refused(f"unknown area {p.area!r}")
            area, arg = parsed
            counts[area] = counts.get(area, 0) + 1
            if area in _PLAYER_AREAS and arg not in players:
                raise where.refused(f"area {p.area!r} names no player of this state")
            if p.on is not None:
                self._check_stack(state, p, where)
        for area, limit in ((Area.GALLERY, GALLERY_SIZE), (Area.BONUS, BONUS_IN_PLAY)):
            if counts.get(area, 0) > limit:
                raise StateError(f"{area.value}: holds {counts[area]} cards, at most {limit}")
        self._check_cycles(state)
        points = state.options.get("bonus_points")
        if not isinstance(points, int) or points < 0:
            raise StateError(f"options: 'bonus_points' must be a non-negative integer, got {points!r}")
        self._check_extras(state, players)

    def _check_stack(self, state: BoardState, p: Placement, where: PlacementAt) -> None:
        cat = self.catalog
        card = cat.animals.get(p.component)
        if card is None or card.tier is Tier.PRIMARY:
            raise where.refused(f"only secondary and apex animals are stacked on prey")
        below = state.placement_of(p.on or "")
        if below is None or below.area != p.area:
            raise where.refused(f"lies on {p.on}, which is not among the same player's earned cards")
        if below.component not in cat.animals:
            raise where.refused(f"lies on {p.on}, which is not an animal (plant cards are never prey)")

    def _check_cycles(self, state: BoardState) -> None:
        on = {p.component: p.on for p in state.placements if p.on is not None}
        for start in on:
            seen = {start}
            here = on.get(start)
            while here is not None:
                if here in seen:
                    raise StateError(f"placements ({start}): the stack of cards loops back on itself")
                seen.add(here)
                here = on.get(here)

    def _check_extras(self, state: BoardState, players: set[str]) -> None:
        unknown = sorted(set(state.extras) - EXTRAS_KEYS)
        if unknown:
            raise StateError(f"extras: unknown key(s) {', '.join(unknown)}; this game knows active, claims")
        active = state.extras.get("active")
        if active is not None and active not in players:
            raise StateError(f"extras.active: {active!r} is not a player of this state")
        claims = state.extras.get("claims")
        if claims is None:
            return
        if not isinstance(claims, list):
            raise StateError("extras.claims: must be a list of {card, tiles}")
        for i, c in enumerate(claims):
            where = f"extras.claims[{i}]"
            if not isinstance(c, Mapping) or set(c) != {"card", "tiles"}:
                raise StateError(f"{where}: must be an object with exactly card and tiles")
            card = c["card"]
            if not isinstance(card, str) or self.catalog.earnable(card) is None:
                raise StateError(f"{where}: {c['card']!r} is not an animal or plant card")
            tiles = c["tiles"]
            if not isinstance(tiles, list) or not all(isinstance(t, str) and t in self.catalog.tiles for t in tiles):
                raise StateError(f"{where}: tiles must be a list of plant tile ids")

    # -- reading a state ---------------------------------------------------------------
    def jungle(self, state: BoardState) -> Jungle:
        """The tiles on the platforms of a state."""
        return Jungle(self.geometry, [t for t in (self.placed_tile(p) for p in state.placements) if t is not None])

    def placed_tile(self, p: Placement) -> PlacedTile | None:
        """The tile a placement lays on a platform; None for every other placement."""
        if not p.area.startswith("platform:"):
            return None
        parsed = split_area(p.area)
        if parsed is None or parsed[0] is not Area.PLATFORM or not isinstance(p.cell, str):
            return None
        platform = self.catalog.platforms[parsed[1] or ""]
        return PlacedTile(self.catalog.tiles[p.component], (platform.id, p.cell), platform.layer, p.rotation)

    @staticmethod
    def owner(p: Placement | None, area: Area) -> str | None:
        """The player of a placement in a player area of the given kind."""
        if p is None:
            return None
        parsed = split_area(p.area)
        if parsed is None or parsed[0] is not area:
            return None
        return parsed[1]

    # -- move legality -------------------------------------------------------------------
    def violations(self, before: BoardState, after: BoardState) -> tuple[Violation, ...]:
        return tuple(_Move(self, before, after).check())

    # -- scoring ---------------------------------------------------------------------------
    def earned(self, state: BoardState, player: str) -> tuple[Placement, ...]:
        return state.in_area(f"{Area.EARNED.value}:{player}")

    def chains(self, state: BoardState, player: str) -> tuple[tuple[str, ...], ...]:
        """Each food chain of a player, bottom card first: every path from a card lying on
        nothing up to a card nothing lies on."""
        cards = [p for p in self.earned(state, player) if p.component in self.catalog.animals]
        above: dict[str, list[str]] = {}
        for p in cards:
            if p.on is not None:
                above.setdefault(p.on, []).append(p.component)
        out: list[tuple[str, ...]] = []

        def walk(path: tuple[str, ...]) -> None:
            tops = above.get(path[-1], [])
            if not tops:
                out.append(path)
            for t in tops:
                walk((*path, t))

        for p in cards:
            if p.on is None:
                walk((p.component,))
        return tuple(out)

    def bonus_progress(self, state: BoardState, player: str, bonus: BonusCard) -> tuple[bool, str]:
        """Whether a player completed a global bonus card, and what they have towards it."""
        cat = self.catalog
        cond = bonus.condition
        animals = [cat.animals[p.component] for p in self.earned(state, player) if p.component in cat.animals]
        plants = [p for p in self.earned(state, player) if p.component in cat.plant_cards]
        lengths = sorted((len(c) for c in self.chains(state, player)), reverse=True)
        if cond.kind is BonusKind.CHAIN_LENGTH:
            have = lengths[0] if lengths else 0
            return have >= cond.at_least, f"longest food chain {have} cards, needs {cond.at_least}"
        if cond.kind is BonusKind.TIER_COUNT:
            have = sum(1 for a in animals if a.tier is cond.tier)
            tier = cond.tier.value if cond.tier else "?"
            return have >= cond.at_least, f"{have} {tier} cards, needs {cond.at_least}"
        if cond.kind is BonusKind.DISTINCT_SPECIES:
            have = len({a.species.id for a in animals if a.tier is cond.tier})
            tier = cond.tier.value if cond.tier else "?"
            return have >= cond.at_least, f"{have} different {tier} species, needs {cond.at_least}"
        if cond.kind is BonusKind.PLANT_CARDS:
            return len(plants) >= cond.at_least, f"{len(plants)} plant cards, needs {cond.at_least}"
        if cond.kind is BonusKind.GROUP_SPECIES:
            have = len({a.species.id for a in animals if a.species.group == cond.group})
            return have >= cond.at_least, f"{have} different {cond.group} species, needs {cond.at_least}"
        if cond.kind is BonusKind.CHAINS:
            have = sum(1 for n in lengths if n >= cond.min_length)
            return have >= cond.at_least, (
                f"{have} food chains of {cond.min_length}+ cards, needs {cond.at_least}"
            )
        tiers = {a.tier for a in animals}
        missing = [t.value for t in Tier if t not in tiers] + ([] if plants else ["plant"])
        return not missing, ("every kind earned" if not missing else "missing " + ", ".join(missing))

    def score_sheet(self, state: BoardState) -> ScoreSheet:
        cat = self.catalog
        bonus_points = int(state.options.get("bonus_points", 5))
        pids = [p.id for p in state.players]
        lines: dict[str, list[ScoreLine]] = {pid: [] for pid in pids}
        for pid in pids:
            lines[pid].extend(self._card_lines(state, pid))
        for placement in state.in_area(Area.BONUS.value):
            bonus = cat.bonuses[placement.component]
            progress = {pid: self.bonus_progress(state, pid, bonus) for pid in pids}
            done = [pid for pid in pids if progress[pid][0]]
            for pid in pids:
                ok, detail = progress[pid]
                if ok and len(done) == 1:
                    pts, verdict = bonus_points, "completed alone"
                elif ok:
                    pts, verdict = 0, f"completed, but so did {', '.join(d for d in done if d != pid)}: tie, nobody scores"
                else:
                    pts, verdict = 0, "not completed"
                lines[pid].append(
                    ScoreLine("global_bonus", pts, f"{bonus.name} ({bonus.id}): {detail}; {verdict} -> {pts}")
                )
        apexes = {pid: self._count_apex(state, pid) for pid in pids}
        tiles_left = {
            pid: sum(1 for p in state.in_area(f"{Area.HAND.value}:{pid}") if p.component in cat.tiles)
            for pid in pids
        }
        tie_breaks = (
            TieBreak("most apex predators", apexes),
            TieBreak("fewest tiles left in hand", tiles_left, lower_wins=True),
        )
        notes = []
        if state.unknown:
            notes.append(
                f"{len(state.unknown)} place(s) could not be read; this sheet may be incomplete"
                " (unread cards are not counted)"
            )
        return build_sheet(self.id, lines, tie_breaks, notes)

    def _count_apex(self, state: BoardState, pid: str) -> int:
        return sum(
            1
            for p in self.earned(state, pid)
            if p.component in self.catalog.animals and self.catalog.animals[p.component].tier is Tier.APEX
        )

    def _card_lines(self, state: BoardState, pid: str) -> list[ScoreLine]:
        cat = self.catalog
        out: list[ScoreLine] = []
        animal_lines = 0
        plant_lines = 0
        for p in self.earned(state, pid):
            animal = cat.animals.get(p.component)
            if animal is not None:
                stacked = f", on {cat.animals[p.on].name} ({p.on})" if p.on else ""
                out.append(
                    ScoreLine(
                        "animals", animal.points,
                        f"{animal.name} ({animal.id}, {animal.tier.value}{stacked}): {animal.points}",
                    )
                )
                animal_lines += 1
            else:
                plant = cat.plant_cards[p.component]
                out.append(ScoreLine("plants", plant.points, f"{plant.name} ({plant.id}): {plant.points}"))
                plant_lines += 1
        if not animal_lines:
            out.append(ScoreLine("animals", 0, "no animal cards earned"))
        if not plant_lines:
            out.append(ScoreLine("plants", 0, "no plant cards earned"))
        return out


class _Move:
    """The checks of one move: the tiles newly laid and the cards newly earned between two states."""

    def __init__(self, game: BorneoGame, before: BoardState, after: BoardState) -> None:
        self.game = game
        self.cat = game.catalog
        self.before = before
        self.after = after
        self.out: list[Violation] = []
        # one look-up table per state: a move's checks ask where a component lies many times
        self.was = {p.component: p for p in before.placements}
        self.now = {p.component: p for p in after.placements}

    def add(self, rule: Rule, message: str, *, cells: Sequence[Any] = (), area: str | None = None,
            components: Iterable[str] = ()) -> None:
        self.out.append(Violation(rule.value, message, tuple(cells), area, tuple(ComponentId(c) for c in components)))

    def check(self) -> list[Violation]:
        before_tiles = {p.component: p for p in self.before.placements if self.game.placed_tile(p) is not None}
        after_tiles = {p.component: p for p in self.after.placements if self.game.placed_tile(p) is not None}
        blight = self._newly_discarded("Blight")
        opportunist = self._newly_discarded("Opportunist")
        moved = [t for t, p in before_tiles.items() if _where(after_tiles.get(t)) != _where(p)]
        for t in moved:
            if not blight:
                p = before_tiles[t]
                self.add(Rule.TILE_REMOVED, f"tile {t} left {p.area} {p.cell} without a Blight card being played",
                         cells=[p.cell], area=p.area, components=[t])
        new_tiles = [t for t in after_tiles if t not in before_tiles or t in moved]
        new_cards = self._new_cards()
        self._check_earned_kept()
        active = self._active(new_tiles, new_cards)
        self._check_sources(active, new_tiles, new_cards, before_tiles, opportunist)
        jungle_after = self.game.jungle(self.after)
        for t in new_tiles:
            self._check_tile(jungle_after, after_tiles[t])
        claims = self._claims(new_tiles, new_cards)
        if claims is None:
            return self.out
        remaining = {t for t in before_tiles if t not in moved}
        jungle = Jungle(self.game.geometry,
                        [pt for t in remaining if (pt := self.game.placed_tile(before_tiles[t])) is not None])
        earned_so_far = self._earned_ids(self.before, active) if active else []
        for claim in claims:
            laid = [pt for t in claim.tiles if (pt := self.game.placed_tile(after_tiles[t])) is not None]
            jungle = jungle.with_tiles(laid)
            self._check_claim(claim, jungle, [pt.position for pt in laid], active, earned_so_far)
            earned_so_far.append(claim.card)
        return self.out

    # -- what changed -------------------------------------------------------------------
    def _newly_discarded(self, name: str) -> bool:
        def ids(state: BoardState) -> set[str]:
            return {
                p.component for p in state.in_area(Area.DISCARD.value)
                if p.component in self.cat.actions and self.cat.actions[p.component].name == name
            }
        return bool(ids(self.after) - ids(self.before))

    def _earned_ids(self, state: BoardState, player: str) -> list[str]:
        return [p.component for p in state.in_area(f"{Area.EARNED.value}:{player}")]

    def _new_cards(self) -> dict[str, str]:
        """Card -> player for cards in an earned area after that were not there before."""
        out = {}
        for p in self.after.placements:
            owner = self.game.owner(p, Area.EARNED)
            if owner is not None and self.game.owner(self.was.get(p.component), Area.EARNED) != owner:
                out[p.component] = owner
        return out

    def _check_earned_kept(self) -> None:
        for p in self.before.placements:
            owner = self.game.owner(p, Area.EARNED)
            if owner is None:
                continue
            now = self.now.get(p.component)
            if now is None or now.area != p.area or now.on != p.on:
                self.add(Rule.EARNED_CHANGED,
                         f"{p.component} was earned by {owner} and must stay in its food chain",
                         area=p.area, components=[p.component])

    def _active(self, new_tiles: list[str], new_cards: Mapping[str, str]) -> str | None:
        owners = sorted(set(new_cards.values()))
        stated = self.after.extras.get("active")
        if isinstance(stated, str):
            for card, owner in new_cards.items():
                if owner != stated:
                    self.add(Rule.SEVERAL_PLAYERS, f"{card} went to {owner}, but {stated} is the active player",
                             components=[card])
            return stated
        if len(owners) > 1:
            self.add(Rule.SEVERAL_PLAYERS, f"cards were earned by {', '.join(owners)} in one move",
                     components=list(new_cards))
        if owners:
            return owners[0]
        hands = {self.game.owner(self.was.get(t), Area.HAND) for t in new_tiles} - {None}
        return next(iter(hands)) if len(hands) == 1 else None

    def _check_sources(self, active: str | None, new_tiles: list[str], new_cards: Mapping[str, str],
                       before_tiles: Mapping[str, Placement], opportunist: bool) -> None:
        for t in new_tiles:
            if t in before_tiles:
                continue  # re-laid under Blight
            was = self.was.get(t)
            if was is None:
                continue  # not seen before: nothing to say
            owner = self.game.owner(was, Area.HAND)
            if owner is not None and (owner == active or opportunist):
                continue
            self.add(Rule.TILE_NOT_IN_HAND,
                     f"tile {t} came from {was.area}, not from the hand of {active or 'the active player'}",
                     components=[t])
        for card, owner in new_cards.items():
            was = self.was.get(card)
            if was is None or was.area == Area.GALLERY.value or was.area == f"{Area.HAND.value}:{owner}":
                continue
            self.add(Rule.CARD_NOT_AVAILABLE,
                     f"{card} was in {was.area}; cards are earned from your hand or the card gallery",
                     components=[card])

    def _claims(self, new_tiles: list[str], new_cards: Mapping[str, str]) -> list[Claim] | None:
        """Which new tiles served which card: extras.claims, or all of them for a single card."""
        raw = self.after.extras.get("claims")
        if raw is None:
            if not new_cards:
                for t in new_tiles:
                    self.add(Rule.TILE_WITHOUT_CARD, f"tile {t} was laid without earning a card", components=[t])
                return []
            if len(new_cards) == 1:
                return [Claim(next(iter(new_cards)), tuple(new_tiles))]
            self.add(Rule.CLAIM_MISMATCH,
                     "several cards were earned: record which tiles served each card in extras.claims",
                     components=list(new_cards))
            return None
        claims = [Claim(c["card"], tuple(c["tiles"])) for c in raw]
        ok = True
        claimed_cards = [c.card for c in claims]
        for card in new_cards:
            if card not in claimed_cards:
                ok = False
                self.add(Rule.CLAIM_MISMATCH, f"{card} was earned but is not in extras.claims", components=[card])
        seen_tiles: set[str] = set()
        for c in claims:
            if c.card not in new_cards or claimed_cards.count(c.card) > 1:
                ok = False
                self.add(Rule.CLAIM_MISMATCH, f"extras.claims names {c.card}, which was not newly earned once",
                         components=[c.card])
            for t in c.tiles:
                if t not in new_tiles or t in seen_tiles:
                    ok = False
                    self.add(Rule.CLAIM_MISMATCH, f"extras.claims gives tile {t}, which was not newly laid once",
                             components=[t])
                seen_tiles.add(t)
        for t in new_tiles:
            if t not in seen_tiles:
                self.add(Rule.TILE_WITHOUT_CARD, f"tile {t} was laid without earning a card", components=[t])
        return claims if ok else None

    # -- per tile and per card ---------------------------------------------------------
    def _check_tile(self, jungle: Jungle, p: Placement) -> None:
        placed = self.game.placed_tile(p)
        if placed is None:
            return
        tile = placed.tile
        if placed.layer not in tile.layers:
            allowed = " or ".join(layer.value for layer in Layer if layer in tile.layers)
            self.add(Rule.WRONG_LAYER,
                     f"tile {tile.id} grows on the {allowed} layer, not the {placed.layer.value} ({p.area})",
                     cells=[p.cell], area=p.area, components=[tile.id])
        for c in jungle.conflicts(placed.position):
            other = jungle.tiles[c.b]
            self.add(Rule.CONFLICT,
                     f"tile {tile.id} shows {c.plant_a} against {c.plant_b} of {other.tile.id}"
                     f" at {c.b[0]} {c.b[1]}: facing plants must match or one side be open",
                     cells=[p.cell, c.b[1]], area=p.area, components=[tile.id, other.tile.id])

    def _check_claim(self, claim: Claim, jungle: Jungle, laid: list[Position], active: str | None,
                     earned_so_far: list[str]) -> None:
        card = self.cat.earnable(claim.card)
        if card is None:
            return
        if not laid:
            self.add(Rule.CARD_WITHOUT_TILE, f"{card.name} ({card.id}) was earned without laying a new tile",
                     components=[card.id])
            return
        if not jungle.is_connected(laid):
            self.add(Rule.TILES_NOT_CONNECTED,
                     f"the tiles laid for {card.name} ({card.id}) do not all touch on one layer"
                     " (or across layers through matched vines)",
                     components=[card.id, *claim.tiles])
        access = jungle.access(laid)
        names = {k: v.name.lower() for k, v in self.cat.plants.items()}
        short = {p: n - access.plants.get(p, 0) for p, n in card.habitat.items() if access.plants.get(p, 0) < n}
        problems = []
        if short:
            tiles = ", ".join(jungle.tiles[p].tile.id for p in access.tiles)
            problems.append(
                f"needs {plant_text(card.habitat, names)}; tiles {tiles} give"
                f" {plant_text(access.plants, names)}: missing {plant_text(short, names)}"
            )
        spans = {Layer.CANOPY, Layer.UNDERSTORY}
        if isinstance(card, PlantCard) and card.spans_layers and not spans <= access.layers:
            problems.append("needs a vine network joining the understory and the canopy")
        if problems:
            self.add(Rule.HABITAT_UNMET, f"{card.name} ({card.id}) " + "; and ".join(problems),
                     components=[card.id, *claim.tiles])
        if isinstance(card, AnimalCard) and card.tier is not Tier.PRIMARY:
            self._check_prey(card, active, earned_so_far)

    def _check_prey(self, card: AnimalCard, active: str | None, earned_so_far: list[str]) -> None:
        placement = self.now.get(card.id)
        prey_names = ", ".join(self.cat.species[s].name for s in card.species.prey)
        prey_id = placement.on if placement else None
        if prey_id is None or prey_id not in earned_so_far:
            self.add(Rule.PREY_MISSING,
                     f"{card.name} ({card.id}) must be stacked on an earned prey card: one of {prey_names}",
                     components=[card.id])
            return
        prey = self.cat.animals[prey_id]
        if prey.species.id not in card.species.prey:
            self.add(Rule.PREY_NOT_LISTED,
                     f"{card.name} ({card.id}) does not eat {prey.name}; its prey are {prey_names}",
                     components=[card.id, prey_id])
        earlier = set(earned_so_far)
        supported = [
            p.component for p in self.after.placements
            if p.on == prey_id and p.component != card.id and p.component in earlier
        ]
        if supported:
            self.add(Rule.PREY_CONSUMED,
                     f"{prey.name} ({prey_id}) is already consumed by {supported[0]}; it supports one card",
                     components=[card.id, prey_id])


def _where(p: Placement | None) -> tuple[Any, ...] | None:
    return None if p is None else (p.area, p.cell, p.rotation)


GAME = BorneoGame()
