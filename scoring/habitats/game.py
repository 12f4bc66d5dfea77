"""Habitats (Cwali): the game object tying catalog, geometry, legality and scoring together."""

from __future__ import annotations

import functools
from collections.abc import Mapping

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
    Violation,
    build_sheet,
)
from .catalog import (
    TRACK_SPACES,
    Goal,
    GoalTile,
    HabitatsCatalog,
    Landscape,
    ParkTile,
    TileKind,
    Tourist,
    load_catalog,
)
from .legality import (
    MARKET,
    PARK_PREFIX,
    Rule,
    make_violation,
    market_violations,
    park_changes,
    park_owner,
    placement_violations,
)
from ..words import Words
from .park import GridCell, Park, ParkEntry, distances, fmt, measure
from .score import (
    GoalResult,
    ParkRules,
    ParkScorer,
    TileScore,
    goal_key,
    key_text,
    rank_goal,
)

TRACK = "track"
YEARS = ("Y1", "Y2", "Y3")
GOAL_RESULTS = "goal_results"
"""The one ``extras`` key: goal measures recorded when years 1 and 2 ended."""

TILE_MM = 50.0
"""Printed side of park, entrance and goal tiles."""
FIGURE_MM = 30.0
MARKER_MM = 25.0

LANDSCAPE_COLOURS: Mapping[Landscape | None, str] = {
    Landscape.GRASSLAND: "#c5e17a",
    Landscape.FOREST: "#4c8c3a",
    Landscape.DRYLAND: "#e0bf7a",
    Landscape.WATER: "#5aa9e6",
    None: "#a7a7a7",
}


def tile_lines(tile: ParkTile) -> tuple[str, ...]:
    """The face texts of a park tile: what a player needs without the scanner."""
    land = tile.landscape.value if tile.landscape else "no landscape"
    if tile.kind is TileKind.ANIMAL:
        if tile.needs_flowers:
            need = f"needs {tile.flowers} flower(s) adjacent or in a chain"
        else:
            need = "needs " + ", ".join(f"{n} {land_.value}" for land_, n in tile.demand) + " in adjacent areas"
        return (tile.name, f"{tile.points} vp", need, land)
    if tile.kind is TileKind.FLOWER:
        return (tile.name, "1 vp", land)
    if tile.kind is TileKind.WATCHTOWER and tile.view is not None:
        return (
            tile.name,
            f"{tile.view.animal_vp} vp per animal with habitat, {tile.view.flower_vp} per flower in view",
            "a watchtower blocks the view",
        )
    if tile.kind is TileKind.TOURIST:
        if tile.tourist is Tourist.BIG:
            return (tile.name, "1 vp per other tile of its area", land)
        return (tile.name, f"1 vp per other {land} area", land)
    roads = " ".join(s.name for s in sorted(tile.road_sides, key=lambda s: s.value))
    return (tile.name, f"{tile.points} vp if every side without road touches a tile", f"roads: {roads}", land)


class HabitatsGame(BaseGame):
    """Habitats: park placement legality, market draft legality, yearly goals and park scores."""

    info = GameInfo(
        id="habitats",
        name="Habitats",
        qr_prefix="HA",
        options=(
            Option("roads_infinite", True, "Access roads run on forever: no tile may lie on a road's line. Off, only"
                   " what the rulebook's text names is refused: tiles in the entrance column and tiles touching a"
                   " road side."),
            Option("own_tile_counts", False, "An animal's own tile does not count toward its habitat demand; on,"
                   " it does."),
            Option("rays_cross_gaps", True, "A watchtower's view crosses empty cells (only watchtowers block a"
                   " view); off, an empty cell ends it."),
        ),
    )

    @functools.cached_property
    def catalog(self) -> HabitatsCatalog:
        return load_catalog()

    # -- components -------------------------------------------------------------------
    def _components(self) -> tuple[Component, ...]:
        cat = self.catalog
        out: list[Component] = []
        for t in cat.tiles:
            out.append(
                Component(
                    t.id, "tile", t.name, t.tag, (TILE_MM, TILE_MM), Shape.RECT,
                    LANDSCAPE_COLOURS[t.landscape], tile_lines(t), "Habitats park tile",
                    edition_data=t.edition_data,
                )
            )
        for c in cat.colours:
            out.append(
                Component(
                    c.entrance_id, "entrance", f"Entrance {c.colour}", c.entrance_tag, (TILE_MM, TILE_MM),
                    Shape.RECT, c.hex,
                    (f"Entrance {c.colour}", "entrance road: south side", "no tiles in the column below"),
                    edition_data=c.edition_data,
                )
            )
            out.append(
                Component(
                    c.figure_id, "figure", f"Figure {c.colour}", c.figure_tag, (FIGURE_MM, FIGURE_MM),
                    Shape.RECT, c.hex, (f"Figure {c.colour}", "arrow = head"), edition_data=c.edition_data,
                )
            )
            out.append(
                Component(
                    c.marker_id, "marker", f"Score marker {c.colour}", c.marker_tag, (MARKER_MM, MARKER_MM),
                    Shape.ROUND, c.hex, (f"Score {c.colour}",), edition_data=c.edition_data,
                )
            )
        for g in cat.goals:
            out.append(
                Component(
                    g.id, "goal", g.name, g.tag, (TILE_MM, TILE_MM), Shape.RECT, "#fff3c4",
                    (g.name, g.text), "Habitats goal tile",
                )
            )
        b = cat.track
        out.append(
            Component(
                b.id, "board", b.name, b.tag, b.size_mm, Shape.RECT, b.colour,
                (b.name, "0-70", *self._table_lines(4), *self._table_lines(5)),
                anchors=b.anchors, spaces=b.spaces, edition_data=b.edition_data,
            )
        )
        r = cat.replacement
        out.append(
            Component(
                r.id, "tile", r.name, r.tag, r.size_mm, Shape.RECT, r.colour,
                (r.name, *self._table_lines(2), *self._table_lines(3)), edition_data=r.edition_data,
            )
        )
        return tuple(out)

    def _table_lines(self, players: int) -> tuple[str, ...]:
        scores = self.catalog.year_scores
        return tuple(
            f"{players}p year {y}: {'/'.join(map(str, scores[(players, y)]))}" for y in (1, 2, 3)
        )

    # -- geometry ---------------------------------------------------------------------
    def check_place(self, placement: Placement) -> str | None:
        cat = self.catalog
        comp = placement.component
        if placement.slot is not None:
            return "Habitats components have no slots"
        if placement.on is not None and not (
            cat.colour_of_marker(comp) and cat.colour_of_marker(placement.on) and placement.area == TRACK
        ):
            return "only a score marker lies on another one (same track space); nothing else uses 'on'"
        if not 0 <= placement.rotation <= 3:
            return f"rotation must be 0-3 quarter turns, got {placement.rotation}"
        tile = cat.tile(comp)
        area = placement.area
        if park_owner(area) is not None or area == MARKET:
            if not isinstance(placement.cell, tuple):
                return f"{area} cells are [x, y], got {placement.cell!r}"
            if area == MARKET:
                if tile is None and cat.colour_of_figure(comp) is None:
                    return "only park tiles and player figures lie in the market"
                if not all(0 <= v < 6 for v in placement.cell):
                    return f"market cell {list(placement.cell)} is outside the market grid"
            elif tile is None and cat.colour_of_entrance(comp) is None:
                return f"only park tiles and the entrance lie in {area}"
            if cat.colour_of_entrance(comp) is not None and placement.rotation != 0:
                return "the entrance fixes the park grid: its road faces south (rotation 0)"
            if not placement.face_up:
                return "park and market tiles lie face up"
            return None
        if area == TRACK:
            return self._check_track(placement)
        return f"unknown area {area!r}; Habitats uses park:<player>, market and track"

    def _check_track(self, placement: Placement) -> str | None:
        cat = self.catalog
        comp, cell = placement.component, placement.cell
        if cat.colour_of_marker(comp) is not None:
            if not (isinstance(cell, str) and cell[:1] == "S" and cell[1:].isdigit() and int(cell[1:]) < TRACK_SPACES):
                return f"a score marker lies on a track space S0..S{TRACK_SPACES - 1}, got {cell!r}"
            return None
        if cat.goal_tile(comp) is not None:
            if cell not in YEARS or not placement.face_up:
                return f"a goal tile lies face up on a year space Y1, Y2 or Y3, got {cell!r}"
            return None
        if comp == cat.replacement.id:
            return None if cell == "TABLE" else f"the replacement tile lies on the space TABLE, got {cell!r}"
        if comp == cat.track.id:
            return None if cell is None else "the score track itself has no cell"
        return "only score markers, goal tiles and the replacement tile lie on the track"

    def check_state(self, state: BoardState) -> None:
        if not 1 <= len(state.players) <= 5:
            raise StateError(f"players: Habitats parks are scored for 1 to 5 players, got {len(state.players)}")
        ids = {p.id for p in state.players}
        for i, p in enumerate(state.placements):
            if park_owner(p.area) not in (None, *ids):
                raise PlacementAt(i, p.component).refused(f"{p.area} belongs to no player")
        for i, u in enumerate(state.unknown):
            if not (park_owner(u.area) is not None or u.area in (MARKET, TRACK)):
                raise StateError(f"unknown[{i}]: unknown area {u.area!r}")
        for i, p in enumerate(state.placements):
            if p.on is not None:
                base = state.placement_of(p.on)
                if base is None or base.area != TRACK or base.cell != p.cell:
                    raise PlacementAt(i, p.component).refused(
                        f"a stacked score marker lies on the same track space as {p.on}",
                        said=f"a stacked score marker lies on the same track space as {Words(self.id, {}).name(p.on)}",
                    )
        for player in state.players:
            self._check_park(state, player.id)
        self._check_market(state)
        self._check_extras(state)

    def _check_park(self, state: BoardState, player: str) -> None:
        area = PARK_PREFIX + player
        placed = state.in_area(area)
        if not placed:
            return
        entrances = [p for p in placed if self.catalog.colour_of_entrance(p.component)]
        if len(entrances) != 1:
            raise StateError(f"{area}: a park has exactly one entrance tile, found {len(entrances)}")

    def _check_market(self, state: BoardState) -> None:
        placed = state.in_area(MARKET)
        if not placed:
            return
        layout = self.catalog.markets.get(len(state.players))
        if layout is None:
            raise StateError(f"market: the market is laid out for 2 to 5 players, not {len(state.players)}")
        for p in placed:
            cell = p.cell
            if isinstance(cell, tuple) and not (0 <= cell[0] < layout.columns and 0 <= cell[1] < layout.rows):
                raise StateError(
                    f"market: {p.component} at {list(cell)} is outside the {layout.columns}x{layout.rows}"
                    f" market of {layout.players} players"
                )

    def _check_extras(self, state: BoardState) -> None:
        unknown = sorted(set(state.extras) - {GOAL_RESULTS})
        if unknown:
            raise StateError(f"extras: unknown key(s) {', '.join(unknown)}; Habitats knows {GOAL_RESULTS}")
        results = state.extras.get(GOAL_RESULTS, {})
        if not isinstance(results, Mapping):
            raise StateError(f"extras.{GOAL_RESULTS}: expected an object with Y1, Y2, Y3")
        ids = {p.id for p in state.players}
        for year, measures in results.items():
            where = f"extras.{GOAL_RESULTS}.{year}"
            if year not in YEARS:
                raise StateError(f"{where}: years are Y1, Y2 and Y3")
            goal = self.goal_at(state, year)
            if goal is None:
                raise StateError(f"{where}: no goal tile lies on {year}")
            if not isinstance(measures, Mapping) or set(measures) != ids:
                raise StateError(f"{where}: needs one measure per player ({', '.join(sorted(ids))})")
            for pid, value in measures.items():
                goal_key(goal.goal, value, f"{where}.{pid}")

    # -- views ------------------------------------------------------------------------
    def park_of(self, state: BoardState, player: str) -> Park:
        """The park of one player as a grid of tiles."""
        area = PARK_PREFIX + player
        entries: dict[GridCell, ParkEntry] = {}
        entrance: GridCell | None = None
        for p in state.in_area(area):
            if not isinstance(p.cell, tuple):
                continue
            tile = self.catalog.tile(p.component)
            entries[p.cell] = ParkEntry(p.component, p.cell, tile, p.rotation)
            if tile is None:
                entrance = p.cell
        unknown = frozenset(u.cell for u in state.unknown if u.area == area and isinstance(u.cell, tuple))
        return Park(entries, entrance, unknown)

    def goal_at(self, state: BoardState, year: str) -> GoalTile | None:
        for p in state.in_area(TRACK):
            if p.cell == year:
                goal = self.catalog.goal_tile(p.component)
                if goal is not None:
                    return goal
        return None

    def _rules(self, state: BoardState) -> ParkRules:
        return ParkRules(
            own_tile_counts=bool(state.options.get("own_tile_counts", False)),
            rays_cross_gaps=bool(state.options.get("rays_cross_gaps", True)),
        )

    def tile_scores(self, state: BoardState, player: str) -> tuple[TileScore, ...]:
        """Every park tile's score for one player, in reading order."""
        return ParkScorer(self.park_of(state, player), self._rules(state)).tile_scores()

    def goal_measures(self, state: BoardState, goal: Goal) -> dict[str, tuple[tuple[int, ...], str]]:
        """Each player's measure on a goal, from the parks as they lie now."""
        out: dict[str, tuple[tuple[int, ...], str]] = {}
        for p in state.players:
            m = measure(self.park_of(state, p.id), goal)
            out[p.id] = (m.key, m.text)
        return out

    # -- legality ---------------------------------------------------------------------
    def violations(self, before: BoardState, after: BoardState) -> tuple[Violation, ...]:
        if set(before.placements) == set(after.placements):
            return ()
        words = Words.of(self.id, before, after)
        new, out = park_changes(before, after, self.catalog, words)
        if len(new) != 1:
            out.append(
                make_violation(Rule.TILE_COUNT,
                           f"a turn adds exactly one tile to one park; this one adds {len(new)}",
                           [p.placement.cell for p in new if p.placement.cell is not None], None,
                           [p.placement.component for p in new])
            )
        infinite = bool(after.options.get("roads_infinite", True))
        for n in new:
            player = park_owner(n.placement.area) or ""
            park = self.park_of(after, player)
            cell = n.placement.cell
            entry = park.at(cell) if isinstance(cell, tuple) else None
            if entry is not None:
                out.extend(placement_violations(park, entry, n.placement.area, words, roads_infinite=infinite))
        if len(new) == 1:
            out.extend(market_violations(before, after, new[0], self.catalog, words))
        return tuple(out)

    # -- scoring ----------------------------------------------------------------------
    def score_sheet(self, state: BoardState) -> ScoreSheet:
        notes: list[str] = []
        lines: dict[str, list[ScoreLine]] = {p.id: [] for p in state.players}
        if not any(self.goal_at(state, y) for y in YEARS):
            notes.append("no goal tiles on the track: yearly goals not scored, park scores only")
        for year_no, year in enumerate(YEARS, start=1):
            results = self._year(state, year_no, year, notes)
            for pid, r in results.items():
                lines[pid].append(ScoreLine(f"year{year_no}_goal", r.points, r.evidence, (ComponentId(r.goal),)))
        rules = self._rules(state)
        for p in state.players:
            park = self.park_of(state, p.id)
            if park.entrance is None:
                notes.append(f"{p.id}: no park on the table (no entrance tile)")
            else:
                reach = distances(park.entries, [park.entrance], park.unknown)
                loose = [e.place() for e in park.tiles() if e.cell not in reach]
                if loose:
                    notes.append(
                        f"{p.id}: not connected to the entrance: {', '.join(loose)}"
                        " (goal distances ignore them)"
                    )
            for ts in ParkScorer(park, rules).tile_scores():
                lines[p.id].append(
                    ScoreLine(ts.rule, ts.points, ts.evidence, tuple(map(ComponentId, (ts.component, *ts.seen))))
                )
        if state.unknown:
            where = ", ".join(
                f"{u.area} {fmt(u.cell) if isinstance(u.cell, tuple) else u.cell or ''}".strip()
                for u in state.unknown
            )
            notes.append(
                f"incomplete: the scanner could not read {len(state.unknown)} place(s) ({where});"
                " tiles there are not scored"
            )
        return build_sheet(self.id, lines, (), notes)

    def _year(self, state: BoardState, year_no: int, year: str, notes: list[str]) -> dict[str, GoalResult]:
        goal = self.goal_at(state, year)
        if goal is None:
            if any(self.goal_at(state, y) for y in YEARS):
                notes.append(f"no goal tile on {year}: year {year_no} goal not scored")
            return {}
        table = self.catalog.year_scores.get((len(state.players), year_no))
        if table is None:
            notes.append(f"year {year_no} goal: no score table for {len(state.players)} player(s)")
            return {}
        recorded = state.extras.get(GOAL_RESULTS, {}).get(year)
        if recorded is not None:
            keys = {pid: goal_key(goal.goal, v, f"extras.{GOAL_RESULTS}.{year}.{pid}") for pid, v in recorded.items()}
            texts = {pid: key_text(goal.goal, k) + ", as recorded" for pid, k in keys.items()}
        elif year_no == 3:
            parkless = [p.id for p in state.players if self.park_of(state, p.id).entrance is None]
            if parkless:
                notes.append(
                    f"year 3 goal {goal.name}: not scored, the ranking needs every park and"
                    f" {', '.join(parkless)} has none on the table"
                )
                return {}
            measured = self.goal_measures(state, goal.goal)
            keys = {pid: k for pid, (k, _) in measured.items()}
            texts = {pid: t for pid, (_, t) in measured.items()}
        else:
            notes.append(
                f"year {year_no} goal {goal.name}: results not recorded in extras.{GOAL_RESULTS}.{year};"
                " its track points are missing from this sheet"
            )
            return {}
        return rank_goal(goal, year_no, keys, texts, table)


GAME = HabitatsGame()
