"""BIOME Borneo (Goat Rock Games): habitat creation legality and end-of-game scoring."""

from __future__ import annotations

import enum
import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..game import BaseGame
from ..words import Words
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
from .rules import (
    _PLAYER_AREAS,
    Area,
    BONUS_IN_PLAY,
    Claim,
    EXTRAS_KEYS,
    GALLERY_SIZE,
    Rule,
    split_area,
    TILE_SIZE_MM,
)
from .moves import (
    _Move,
    _where,
)


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
            raise where.refused(f"lies on {p.on}, which is not among the same player's earned cards",
                                said=f"it lies on {Words(self.id, {}).name(p.on)}, which is not among the same"
                                " player's earned cards")
        if below.component not in cat.animals:
            raise where.refused(f"lies on {p.on}, which is not an animal (plant cards are never prey)",
                                said=f"it lies on {Words(self.id, {}).name(p.on)}, which is not an animal"
                                " (plant cards are never prey)")

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
            return have >= cond.at_least, f"{have} {tier} card{'' if have == 1 else 's'}, needs {cond.at_least}"
        if cond.kind is BonusKind.DISTINCT_SPECIES:
            have = len({a.species.id for a in animals if a.tier is cond.tier})
            tier = cond.tier.value if cond.tier else "?"
            return have >= cond.at_least, f"{have} different {tier} species, needs {cond.at_least}"
        if cond.kind is BonusKind.PLANT_CARDS:
            return len(plants) >= cond.at_least, (
                f"{len(plants)} plant card{'' if len(plants) == 1 else 's'}, needs {cond.at_least}"
            )
        if cond.kind is BonusKind.GROUP_SPECIES:
            have = len({a.species.id for a in animals if a.species.group == cond.group})
            return have >= cond.at_least, f"{have} different {cond.group} species, needs {cond.at_least}"
        if cond.kind is BonusKind.CHAINS:
            have = sum(1 for n in lengths if n >= cond.min_length)
            return have >= cond.at_least, (
                f"{have} food chain{'' if have == 1 else 's'} of {cond.min_length}+ cards, needs {cond.at_least}"
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
                    ScoreLine("global_bonus", pts, f"{bonus.name} ({bonus.id}): {detail}; {verdict} -> {pts}",
                              (bonus.id,))
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
                        (animal.id, p.on) if p.on else (animal.id,),
                    )
                )
                animal_lines += 1
            else:
                plant = cat.plant_cards[p.component]
                out.append(ScoreLine("plants", plant.points, f"{plant.name} ({plant.id}): {plant.points}", (plant.id,)))
                plant_lines += 1
        if not animal_lines:
            out.append(ScoreLine("animals", 0, "no animal cards earned"))
        if not plant_lines:
            out.append(ScoreLine("plants", 0, "no plant cards earned"))
        return out


GAME = BorneoGame()
