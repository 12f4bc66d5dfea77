"""PHYLO (phylogame.org) as a table-companion game: states, move checks and score sheets."""

from __future__ import annotations

import functools
from collections.abc import Mapping
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
    StateError,
    Violation,
    build_sheet,
    parse_area,
)
from .catalog import GAME_ID, CardKind, Catalog, Species, load_catalog
from .rules import check_move, game_over
from .table import ROTATION_OF_SEAT, TABLE, build_table, fmt

#: Off-table areas a state may list: ``hand:<player>``, ``pickup:<player>``, ``discard:<player>``.
OFF_TABLE = ("hand", "pickup", "discard")
EXTRAS = ("active", "events", "end")


def _species_lines(s: Species) -> tuple[str, ...]:
    mobility = f"FLIGHT {s.move}" if s.flight else (f"MOVE {s.move}" if s.move else "MOVE -")
    keywords = " ".join(k.value.upper() for k in sorted(s.keywords, key=lambda k: k.value))
    lines = [
        f"{s.common_name} - {s.points} pts",
        s.latin_name,
        f"FOODCHAIN#{s.foodchain} {s.diet.value.replace('_', ' ')} SCALE {s.scale}",
        "Climate: " + ", ".join(c.value for c in sorted(s.climates, key=lambda c: list(type(c)).index(c))),
        "Terrain: " + ", ".join(t.value.replace("_", " ") for t in sorted(s.terrains, key=lambda t: t.value)),
        f"{mobility} {keywords}".strip(),
        s.text,
    ]
    return tuple(lines)


class PhyloGame(BaseGame):
    """PHYLO Ecosystem Game: one common card grid, food chains, events and points left on the table."""

    info = GameInfo(
        id=GAME_ID,
        name="PHYLO",
        qr_prefix="PH",
        options=(
            Option("keywords", True, "Card keywords are played as printed (the rulebook lets players ignore"
                   " them); off, INVASIVE may not replace a card."),
        ),
    )

    @functools.cached_property
    def catalog(self) -> Catalog:
        return load_catalog()

    # -- catalog ---------------------------------------------------------------
    def _components(self) -> tuple[Component, ...]:
        cat = self.catalog
        ed = cat.edition
        out: list[Component] = []
        for card in cat.cards.values():
            if card.kind is CardKind.SPECIES:
                s = cat.species[card.ref or ""]
                out.append(
                    Component(
                        id=card.id,
                        kind="species",
                        name=s.common_name,
                        tag=card.tag,
                        size_mm=ed.card_size_mm,
                        colour=ed.diet_colours[s.diet],
                        lines=_species_lines(s),
                        back="PHYLO",
                        edition_data=s.edition_data,
                    )
                )
            elif card.kind is CardKind.EVENT:
                ev = cat.events[card.ref or ""]
                out.append(
                    Component(
                        id=card.id,
                        kind="event",
                        name=ev.name,
                        tag=card.tag,
                        size_mm=ed.card_size_mm,
                        colour=ed.event_colour,
                        lines=(f"EVENT: {ev.name}", ev.text, ev.duration.value),
                        back="PHYLO",
                        edition_data=ev.edition_data,
                    )
                )
            else:
                out.append(
                    Component(
                        id=card.id,
                        kind="home",
                        name=f"HOME ({card.deck})",
                        tag=card.tag,
                        size_mm=ed.card_size_mm,
                        colour=ed.home_colour,
                        lines=(
                            "HOME",
                            "Any FOODCHAIN#1 species may be played next to this card.",
                            "Place facing you.",
                        ),
                        back="PHYLO",
                    )
                )
        return tuple(out)

    # -- state -------------------------------------------------------------------
    def check_place(self, placement: Placement) -> str | None:
        p = placement
        kind = self.catalog.kind_of(p.component)
        if p.slot is not None:
            return "PHYLO cards have no slots"
        if p.area == TABLE:
            if not p.face_up:
                return "cards on the table lie face up"
            if p.rotation not in (0, 1, 2, 3):
                return f"rotation must be 0-3 quarter turns, got {p.rotation}"
            if kind is CardKind.EVENT:
                if p.on is None:
                    return "an event card on the table lies on the species card it was played on ('on')"
                return None
            if p.on is not None:
                return "only event cards lie on another card"
            if not isinstance(p.cell, tuple):
                return "a card on the table needs a cell [x, y]"
            limit = self.catalog.edition.max_cell
            if not all(-limit <= v <= limit for v in p.cell):
                return f"cell {list(p.cell)} is outside the table (-{limit}..{limit})"
            return None
        area = parse_area(p.area)
        if area.kind not in OFF_TABLE or not area.owner:
            return f"unknown area {p.area!r}: use 'table' or hand:/pickup:/discard:<player>"
        if p.cell is not None or p.on is not None:
            return f"cards in {p.area} have no cell and lie on nothing"
        return None

    def check_state(self, state: BoardState) -> None:
        if not 2 <= len(state.players) <= 4:
            raise StateError(f"players: PHYLO is played by 2 (up to 4) players, got {len(state.players)}")
        seats = [p.seat for p in state.players]
        for i, p in enumerate(state.players):
            if p.seat not in ROTATION_OF_SEAT:
                raise StateError(f"players[{i}]: seat must be 0-3 (south, north, west, east), got {p.seat}")
        if len(set(seats)) != len(seats):
            raise StateError("players: two players share a seat")
        ids = {p.id for p in state.players}
        cells: dict[str, Any] = {p.component: p for p in state.placements}
        homes: dict[int, str] = {}
        for i, p in enumerate(state.placements):
            where = PlacementAt(i, p.component)
            if p.area != TABLE:
                if (parse_area(p.area).owner or "") not in ids:
                    raise where.refused(f"area {p.area!r} names no player of this state")
                continue
            if p.rotation % 4 not in {ROTATION_OF_SEAT[s] for s in seats}:
                raise where.refused(f"rotation {p.rotation} faces no seated player")
            kind = self.catalog.kind_of(p.component)
            if kind is CardKind.HOME:
                if p.rotation in homes:
                    raise where.refused(f"a second HOME card facing the same player ({homes[p.rotation]})"
                    )
                homes[p.rotation] = p.component
            if kind is CardKind.EVENT and p.on is not None:
                target = cells.get(p.on)
                if (
                    target is None
                    or target.area != TABLE
                    or self.catalog.kind_of(p.on) is not CardKind.SPECIES
                ):
                    raise where.refused(f"lies on {p.on!r}, which is not a species card on the table",
                                        said=f"it lies on {Words(self.id, {}).name(p.on)}, which is not a species"
                                        " card on the table")
                if p.cell is not None and p.cell != target.cell:
                    raise where.refused(f"cell {list(p.cell) if isinstance(p.cell, tuple) else p.cell} differs from its target's cell"
                    )
        self._check_extras(state, ids)

    def _check_extras(self, state: BoardState, ids: set[str]) -> None:
        extras = state.extras
        unknown = sorted(set(extras) - set(EXTRAS))
        if unknown:
            raise StateError(f"extras: unknown key(s) {', '.join(unknown)}; PHYLO knows {', '.join(EXTRAS)}")
        if "active" in extras and extras["active"] not in ids:
            raise StateError(f"extras.active: {extras['active']!r} is not a player of this state")
        events = extras.get("events", [])
        if not isinstance(events, list):
            raise StateError("extras.events: must be a list of {card, target}")
        for i, e in enumerate(events):
            where = f"extras.events[{i}]"
            if not isinstance(e, Mapping) or set(e) != {"card", "target"}:
                raise StateError(f"{where}: must be exactly {{'card': ..., 'target': ...}}")
            if self.catalog.kind_of(str(e["card"])) is not CardKind.EVENT:
                raise StateError(f"{where}: {e['card']!r} is not an event card")
            if self.catalog.kind_of(str(e["target"])) is not CardKind.SPECIES:
                raise StateError(f"{where}: target {e['target']!r} is not a species card")
        end = extras.get("end")
        if end is not None:
            if not isinstance(end, Mapping) or set(end) != {"last_card_drawn_by", "turns_since"}:
                raise StateError("extras.end: must be {'last_card_drawn_by': player, 'turns_since': n}")
            if end["last_card_drawn_by"] not in ids:
                raise StateError("extras.end: last_card_drawn_by names no player of this state")
            turns = end["turns_since"]
            if not isinstance(turns, int) or isinstance(turns, bool) or turns < 0:
                raise StateError("extras.end: turns_since must be a whole number >= 0")

    # -- rules -------------------------------------------------------------------
    def violations(self, before: BoardState, after: BoardState) -> tuple[Violation, ...]:
        return check_move(self.catalog, before, after, keywords=bool(after.options.get("keywords", True)))

    def score_sheet(self, state: BoardState) -> ScoreSheet:
        table = build_table(state, self.catalog)
        lines: dict[str, list[ScoreLine]] = {p.id: [] for p in state.players}
        unviable = 0
        for cell in sorted(table.cards, key=lambda c: (c[1], c[0])):
            card = table.cards[cell]
            s = card.species
            if s is None or card.owner not in lines:
                continue
            support = table.support[card.id]
            if support.viable:
                unit = "point" if s.points == 1 else "points"
                lines[card.owner].append(
                    ScoreLine(
                        "species",
                        s.points,
                        f"{s.common_name} at {fmt(cell)}: {s.points} {unit} ({support.reason})",
                        tuple(ComponentId(c) for c in (card.id, support.via) if c),
                    )
                )
            else:
                unviable += 1
                changed = table.changed_by.get(card.id, ())
                extra = f"; changed by {', '.join(e.event.name for e in changed)}" if changed else ""
                lines[card.owner].append(
                    ScoreLine(
                        "discarded",
                        0,
                        f"{s.common_name} at {fmt(cell)}: worth {s.points}, discarded with no food chain:"
                        f" {support.reason}{extra} -> 0",
                        tuple(ComponentId(c) for c in (card.id, *(e.id for e in changed))),
                    )
                )
        for pid, ls in lines.items():
            if not ls:
                ls.append(ScoreLine("species", 0, "no species card of theirs on the table"))
        notes: list[str] = []
        if state.unknown:
            notes.append(
                f"incomplete: {len(state.unknown)} place(s) on the table could not be read; their cards are not counted"
            )
        if unviable:
            notes.append(
                ("1 species card has no viable food chain: it scores 0, as it is discarded" if unviable == 1 else
                 f"{unviable} species cards have no viable food chain: they score 0, as they are discarded")
                + " once the last reaction turn ends"
            )
        if "end" in state.extras and not game_over(state, table):
            notes.append("the game is not over yet: this is the current standing")
        return build_sheet(self.id, lines, (), notes)


GAME = PhyloGame()
