"""The checks of one BIOME Borneo move: tiles newly laid and cards newly earned between two states."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..model import (
    BoardState,
    ComponentId,
    Placement,
    Violation,
)
from .catalog import (
    AnimalCard,
    Layer,
    PlantCard,
    Tier,
)
from ..words import Words, join_and
from .jungle import Jungle, Position, plant_text
from .rules import (
    Area,
    Claim,
    Rule,
)

if TYPE_CHECKING:  # the game object runs these checks; only its type is named here
    from .game import BorneoGame


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
        self.words = Words.of(game.id, before, after)

    def add(self, rule: Rule, message: str, *, cells: Sequence[Any] = (), area: str | None = None,
            components: Iterable[str] = ()) -> None:
        self.out.append(Violation(rule.value, message, tuple(cells), area, tuple(ComponentId(c) for c in components)))

    def name(self, component: str) -> str:
        return self.words.name(component)

    def _place(self, p: Placement) -> str:
        """Where a placement lies, in words: ``on the centre slot of Canopy Layer 1``, ``in Ana's hand``."""
        if p.cell is not None:
            return f"on {_slot(p.cell)} of {self.words.area(p.area)}"
        return self.words.where(p.area)

    def check(self) -> list[Violation]:
        before_tiles = {p.component: p for p in self.before.placements if self.game.placed_tile(p) is not None}
        after_tiles = {p.component: p for p in self.after.placements if self.game.placed_tile(p) is not None}
        blight = self._newly_discarded("Blight")
        opportunist = self._newly_discarded("Opportunist")
        moved = [t for t, p in before_tiles.items() if _where(after_tiles.get(t)) != _where(p)]
        for t in moved:
            if not blight:
                p = before_tiles[t]
                self.add(Rule.TILE_REMOVED, f"{self.name(t)} left {_slot(p.cell)} of {self.words.area(p.area)}"
                         " without a Blight card being played",
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
                         f"{self.name(p.component)} was earned by {self.words.player(owner)} and must stay in its food chain",
                         area=p.area, components=[p.component])

    def _active(self, new_tiles: list[str], new_cards: Mapping[str, str]) -> str | None:
        owners = sorted(set(new_cards.values()))
        stated = self.after.extras.get("active")
        if isinstance(stated, str):
            for card, owner in new_cards.items():
                if owner != stated:
                    self.add(Rule.SEVERAL_PLAYERS, f"{self.name(card)} went to {self.words.player(owner)}, but it is {self.words.player(stated)}'s turn",
                             components=[card])
            return stated
        if len(owners) > 1:
            self.add(Rule.SEVERAL_PLAYERS,
                     f"cards were earned by {join_and(self.words.player(o) for o in owners)} in one move",
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
            whose = f"{self.words.player(active)}'s" if active else "the active player's"
            self.add(Rule.TILE_NOT_IN_HAND,
                     f"{self.name(t)} came from {self.words.area(was.area)}, not from {whose} hand",
                     components=[t])
        for card, owner in new_cards.items():
            was = self.was.get(card)
            if was is None or was.area == Area.GALLERY.value or was.area == f"{Area.HAND.value}:{owner}":
                continue
            self.add(Rule.CARD_NOT_AVAILABLE,
                     f"{self.name(card)} was {self._place(was)}; cards are earned from your hand or the card gallery",
                     components=[card])

    def _claims(self, new_tiles: list[str], new_cards: Mapping[str, str]) -> list[Claim] | None:
        """Which new tiles served which card: extras.claims, or all of them for a single card."""
        raw = self.after.extras.get("claims")
        if raw is None:
            if not new_cards:
                for t in new_tiles:
                    self.add(Rule.TILE_WITHOUT_CARD, f"{self.name(t)} was laid without earning a card", components=[t])
                return []
            if len(new_cards) == 1:
                return [Claim(next(iter(new_cards)), tuple(new_tiles))]
            self.add(Rule.CLAIM_MISMATCH,
                     "several cards were earned: say which new tiles served each card (the move's claims)",
                     components=list(new_cards))
            return None
        claims = [Claim(c["card"], tuple(c["tiles"])) for c in raw]
        ok = True
        claimed_cards = [c.card for c in claims]
        for card in new_cards:
            if card not in claimed_cards:
                ok = False
                self.add(Rule.CLAIM_MISMATCH, f"{self.name(card)} was earned but no claim names it", components=[card])
        seen_tiles: set[str] = set()
        for c in claims:
            if c.card not in new_cards or claimed_cards.count(c.card) > 1:
                ok = False
                self.add(Rule.CLAIM_MISMATCH, f"a claim names {self.name(c.card)}, which was not newly earned once",
                         components=[c.card])
            for t in c.tiles:
                if t not in new_tiles or t in seen_tiles:
                    ok = False
                    self.add(Rule.CLAIM_MISMATCH, f"a claim gives {self.name(t)}, which was not newly laid once",
                             components=[t])
                seen_tiles.add(t)
        for t in new_tiles:
            if t not in seen_tiles:
                self.add(Rule.TILE_WITHOUT_CARD, f"{self.name(t)} was laid without earning a card", components=[t])
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
                     f"{self.name(tile.id)} grows on the {allowed} layer, not the {placed.layer.value}"
                     f" ({self.words.area(p.area)})",
                     cells=[p.cell], area=p.area, components=[tile.id])
        for c in jungle.conflicts(placed.position):
            other = jungle.tiles[c.b]
            self.add(Rule.CONFLICT,
                     f"{self.name(tile.id)} shows {c.plant_a} against {c.plant_b} of {self.name(other.tile.id)}"
                     f" on {_slot(c.b[1])} of {self.name(c.b[0])}: facing plants must match or one side"
                     " be open",
                     cells=[p.cell, c.b[1]], area=p.area, components=[tile.id, other.tile.id])

    def _check_claim(self, claim: Claim, jungle: Jungle, laid: list[Position], active: str | None,
                     earned_so_far: list[str]) -> None:
        card = self.cat.earnable(claim.card)
        if card is None:
            return
        if not laid:
            self.add(Rule.CARD_WITHOUT_TILE, f"{card.name} was earned without laying a new tile",
                     components=[card.id])
            return
        if not jungle.is_connected(laid):
            self.add(Rule.TILES_NOT_CONNECTED,
                     f"the tiles laid for {card.name} do not all touch on one layer"
                     " (or across layers through matched vines)",
                     components=[card.id, *claim.tiles])
        access = jungle.access(laid)
        names = {k: v.name.lower() for k, v in self.cat.plants.items()}
        short = {p: n - access.plants.get(p, 0) for p, n in card.habitat.items() if access.plants.get(p, 0) < n}
        problems = []
        if short:
            tiles = join_and(self.name(jungle.tiles[p].tile.id) for p in access.tiles)
            problems.append(
                f"needs {plant_text(card.habitat, names)}; {tiles} {'give' if len(access.tiles) > 1 else 'gives'}"
                f" {plant_text(access.plants, names)}: missing {plant_text(short, names)}"
            )
        spans = {Layer.CANOPY, Layer.UNDERSTORY}
        if isinstance(card, PlantCard) and card.spans_layers and not spans <= access.layers:
            problems.append("needs a vine network joining the understory and the canopy")
        if problems:
            self.add(Rule.HABITAT_UNMET, f"{card.name} " + "; and ".join(problems),
                     components=[card.id, *claim.tiles])
        if isinstance(card, AnimalCard) and card.tier is not Tier.PRIMARY:
            self._check_prey(card, active, earned_so_far)

    def _check_prey(self, card: AnimalCard, active: str | None, earned_so_far: list[str]) -> None:
        placement = self.now.get(card.id)
        prey_names = ", ".join(self.cat.species[s].name for s in card.species.prey)
        prey_id = placement.on if placement else None
        if prey_id is None or prey_id not in earned_so_far:
            self.add(Rule.PREY_MISSING,
                     f"{card.name} must be stacked on an earned prey card: one of {prey_names}",
                     components=[card.id])
            return
        prey = self.cat.animals[prey_id]
        if prey.species.id not in card.species.prey:
            self.add(Rule.PREY_NOT_LISTED,
                     f"{card.name} does not eat {prey.name}; its prey are {prey_names}",
                     components=[card.id, prey_id])
        earlier = set(earned_so_far)
        supported = [
            p.component for p in self.after.placements
            if p.on == prey_id and p.component != card.id and p.component in earlier
        ]
        if supported:
            self.add(Rule.PREY_CONSUMED,
                     f"{prey.name} is already consumed by {self.name(supported[0])}; it supports one card",
                     components=[card.id, prey_id])


def _slot(cell: Any) -> str:
    """A platform slot as players say it (the pad's words): ``the centre slot``, ``the south-east slot``."""
    return Words("borneo", {}).space(str(cell))


def _where(p: Placement | None) -> tuple[Any, ...] | None:
    return None if p is None else (p.area, p.cell, p.rotation)
