"""The Rainforest game object: catalog summary, state geometry, legality and scoring in one place."""

from __future__ import annotations

import functools

from ..game import BaseGame
from ..words import Words
from ..model import (
    Anchor,
    BoardState,
    Component,
    ComponentId,
    GameInfo,
    Option,
    Placement,
    PlacementAt,
    ScoreSheet,
    Shape,
    Space,
    StateError,
    Violation,
)
from . import rules, score
from .catalog import Catalog, JungleTile, load_catalog
from .jungle import (
    CLEARING_CELLS,
    JUNGLE_CELLS,
    PILE_CELL,
    RESERVE_CELLS,
    AreaKind,
    parse_area,
)

_BOARD_COLOUR = "#e6efd8"
_AREAS_HELP = (
    "jungle:<player>, clearing:<player>, reserve:<player>, player:<player>, zone:<1-5>, supply or table"
)


class RainforestGame(BaseGame):
    """Rainforest (Funnyfox, 2022): build a 3x3 jungle of completed tiles and protect its species."""

    info = GameInfo(
        id="rainforest",
        name="Rainforest",
        qr_prefix="RF",
        options=(
            Option("diversity_counts_unfilled", False, "Diversity scores 2 for each tile placed after it, as the"
                   " rulebook says; on, each later position counts whether or not a tile was placed there."),
        ),
    )

    @functools.cached_property
    def catalog(self) -> Catalog:
        return load_catalog()

    # -- components --------------------------------------------------------------
    def _components(self) -> tuple[Component, ...]:
        c = self.catalog
        out: list[Component] = [self._tile_component(t) for t in c.tiles.values()]
        d = c.sizes.species_token_mm
        for t in c.tokens.values():
            out.append(
                Component(
                    ComponentId(t.id),
                    "token",
                    f"{t.species.value.capitalize()} ({t.colour.value}) #{t.serial}",
                    t.tag,
                    (d, d),
                    Shape.ROUND,
                    c.hex_colours[t.colour],
                    (t.species.value.capitalize(), t.colour.value.capitalize()),
                    edition_data=True,
                )
            )
        out.extend(self._board_components())
        pa_d = c.sizes.protected_area_mm
        for pa in c.protected_areas.values():
            out.append(
                Component(
                    ComponentId(pa.id),
                    "protected_area",
                    f"Protected area {pa.colour.value} {pa.size} tiles",
                    pa.tag,
                    (pa_d, pa_d),
                    Shape.ROUND,
                    c.hex_colours[pa.colour],
                    (f"{pa.size} {pa.colour.value} tiles", f"tile x{pa.multiplier}"),
                    edition_data=pa.edition_data,
                )
            )
        dv = c.sizes.diversity_mm
        for tok in c.diversity_tokens.values():
            out.append(
                Component(
                    ComponentId(tok.id),
                    "diversity",
                    "Diversity token",
                    tok.tag,
                    (dv, dv),
                    Shape.ROUND,
                    "#f7f3e3",
                    (f"+{c.points_per_later_tile} per later tile",),
                )
            )
        b = c.binoculars
        out.append(
            Component(
                ComponentId(b.id),
                "binoculars",
                "Binoculars",
                b.tag,
                c.sizes.binoculars_mm,
                Shape.RECT,
                "#c9b27c",
                ("First player",),
            )
        )
        return tuple(out)

    def _tile_component(self, t: JungleTile) -> Component:
        c = self.catalog
        w = c.slot_mm
        spaces = tuple(
            Space(str(i), x, y, w, w) for i, (x, y) in enumerate(c.slot_positions[len(t.slots)], 1)
        )
        colours = " + ".join(col.value.capitalize() for col in t.colours)
        return Component(
            ComponentId(t.id),
            "tile",
            score.tile_name(t.id),
            t.tag,
            c.sizes.tile_mm,
            Shape.RECT,
            c.hex_colours[t.pile],
            (
                colours,
                f"{t.points} point{'s' if t.points > 1 else ''}",
                "Slots: " + ", ".join(s.text for s in t.slots),
            ),
            back=f"Rainforest - {t.pile.value} pile",
            spaces=spaces,
            edition_data=t.edition_data,
        )

    def _board_components(self) -> list[Component]:
        c = self.catalog
        lay = c.layout
        spaces = tuple(
            Space(name, x, y, *(lay.reserve_mm if name.startswith("R") else lay.cell_mm))
            for name, (x, y) in lay.spaces.items()
        )
        out = []
        for b in c.boards.values():
            anchors = tuple(
                Anchor(tag, x, y, lay.anchor_mm)
                for tag, (x, y) in zip(b.anchor_tags, lay.anchors, strict=True)
            )
            out.append(
                Component(
                    ComponentId(b.id),
                    "board",
                    f"Player board ({b.totem.value} totem)",
                    b.tag,
                    lay.size_mm,
                    Shape.RECT,
                    _BOARD_COLOUR,
                    (
                        f"Totem: {b.totem.value}",
                        "Jungle J1..J9 from bottom left",
                        "Clearing: 3 tiles",
                        "Reserve: 2 tokens",
                    ),
                    anchors=anchors,
                    spaces=spaces,
                    edition_data=True,
                )
            )
        mb = c.main_board
        zone_spaces: list[Space] = []
        for z in mb.zones:
            zone_spaces.append(Space(f"Z{z.number}-{PILE_CELL}", *z.pile, *mb.pile_mm))
            zone_spaces.extend(
                Space(f"Z{z.number}-{name}", x, y, *mb.token_space_mm)
                for name, (x, y) in zip(z.space_names, z.token_spaces, strict=True)
            )
        out.append(
            Component(
                ComponentId(mb.id),
                "board",
                "Main board",
                mb.tag,
                mb.size_mm,
                Shape.RECT,
                _BOARD_COLOUR,
                ("Rainforest", "Zones 1-5: a tile pile and its token spaces"),
                anchors=tuple(
                    Anchor(tag, x, y, mb.anchor_mm)
                    for tag, (x, y) in zip(mb.anchor_tags, mb.anchors, strict=True)
                ),
                spaces=tuple(zone_spaces),
                edition_data=True,
            )
        )
        return out

    # -- state ---------------------------------------------------------------
    def check_place(self, placement: Placement) -> str | None:
        """Where each kind of component may lie; a problem sentence or None."""
        p = placement
        c = self.catalog
        area = parse_area(p.area)
        if area is None or (area.kind in (AreaKind.SUPPLY, AreaKind.TABLE)) != (area.owner is None):
            return f"area {p.area!r} is not a Rainforest area ({_AREAS_HELP})"
        if area.kind is AreaKind.ZONE and (area.owner or "") not in {
            str(z.number) for z in c.main_board.zones
        }:
            return f"there is no zone {area.owner!r}; zones are numbered 1 to 5"
        if not 0 <= p.rotation <= 3:
            return f"rotation must be 0-3 quarter turns, got {p.rotation}"
        comp = p.component
        if comp in c.tiles:
            return self._check_tile(p, area.kind)
        if comp in c.tokens:
            return self._check_token(p, area.kind, area.owner)
        if comp in c.protected_areas or comp in c.diversity_tokens:
            if p.slot is not None or p.cell is not None:
                return "a bonus token lies on a tile (no slot, no cell) or in the supply"
            if p.on is not None:
                if p.on not in c.tiles:
                    return f"lies on {p.on!r}, which is not a jungle tile"
                if area.kind not in (AreaKind.JUNGLE, AreaKind.CLEARING):
                    return f"lies on a tile, so its area is the tile's jungle or clearing, not {p.area!r}"
                return None
            return None if area.kind is AreaKind.SUPPLY else "a bonus token lies on a tile or in the supply"
        if p.on is not None or p.slot is not None or p.cell is not None:
            return "boards and the binoculars lie on the table, not on a cell or another component"
        if comp in c.boards:
            return (
                None
                if area.kind is AreaKind.PLAYER
                else "a player board lies in its player's area player:<player>"
            )
        if comp == c.binoculars.id:
            return (
                None
                if area.kind is AreaKind.PLAYER
                else "the binoculars lie in the first player's area player:<player>"
            )
        return None if area.kind is AreaKind.TABLE else "the main board lies in the area 'table'"

    def _check_tile(self, p: Placement, kind: AreaKind) -> str | None:
        if p.on is not None or p.slot is not None:
            return "a jungle tile does not lie on another component"
        if kind is AreaKind.JUNGLE:
            return None if p.cell in JUNGLE_CELLS else f"jungle cells are J1..J9, got {p.cell!r}"
        if kind is AreaKind.CLEARING:
            return (
                None
                if p.cell is None or p.cell in CLEARING_CELLS
                else f"clearing cells are C1..C3 (or none), got {p.cell!r}"
            )
        if kind is AreaKind.ZONE:
            return None if p.cell == PILE_CELL else f"a tile in a zone lies on its pile, cell {PILE_CELL!r}"
        return "a jungle tile lies in a jungle, a clearing or on a zone's pile"

    def _check_token(self, p: Placement, kind: AreaKind, owner: str | None) -> str | None:
        c = self.catalog
        if p.on is not None:
            tile = c.tiles.get(p.on)
            if tile is None:
                return f"lies on {p.on!r}, which is not a jungle tile"
            if kind not in (AreaKind.JUNGLE, AreaKind.CLEARING):
                return f"lies on a tile, so its area is the tile's jungle or clearing, not {p.area!r}"
            if p.cell is not None:
                return "a token on a tile names the tile and slot, not a cell"
            if p.slot is None or not 1 <= p.slot <= len(tile.slots):
                return f"{p.on} has token slots 1..{len(tile.slots)}, got slot {p.slot}"
            return None
        if p.slot is not None:
            return "a slot needs the tile it belongs to ('on')"
        if kind is AreaKind.RESERVE:
            return (
                None
                if p.cell is None or p.cell in RESERVE_CELLS
                else f"reserve cells are R1, R2 (or none), got {p.cell!r}"
            )
        if kind is AreaKind.ZONE:
            zone = c.main_board.zone(int(owner or 0))
            names = zone.space_names if zone else ()
            if p.cell not in names:
                return f"zone {owner} has token spaces {', '.join(names)}, got {p.cell!r}"
            return None
        return "a species token lies on a tile slot, in a reserve or on a zone's token space"

    def check_state(self, state: BoardState) -> None:
        """Player areas name players of the state; tokens share their tile's area; one board per player."""
        c = self.catalog
        players = {p.id for p in state.players}
        boards: dict[str, list[str]] = {}
        for i, p in enumerate(state.placements):
            where = PlacementAt(i, p.component)
            area = parse_area(p.area)
            if area is not None and area.is_player_area and area.owner not in players:
                raise where.refused(f"area {p.area!r} names no player of this state")
            if p.on is not None:
                tile = state.placement_of(p.on)
                if tile is not None and tile.area != p.area:
                    raise where.refused(f"lies on {p.on}, which is in {tile.area!r}, not {p.area!r}",
                                        said=f"it lies on {Words(self.id, {}).name(p.on)}, which lies elsewhere")
            if p.component in c.boards and area is not None and area.owner is not None:
                boards.setdefault(area.owner, []).append(p.component)
        for player in state.players:
            mine = boards.get(player.id, [])
            if len(mine) != 1:
                raise StateError(
                    f"player {player.id!r} has {len(mine)} player boards ({', '.join(mine) or 'none'});"
                    " each player has exactly one, whose totem counts at scoring"
                )

    # -- rules ---------------------------------------------------------------
    def violations(self, before: BoardState, after: BoardState) -> tuple[Violation, ...]:
        return rules.violations(before, after, self.catalog)

    def score_sheet(self, state: BoardState) -> ScoreSheet:
        return score.score_sheet(state, self.catalog, self.id)


GAME = RainforestGame()
