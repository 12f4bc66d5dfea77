"""Rainforest end-of-game scoring: tile points, totem tokens, protected-area multipliers, diversity."""

from __future__ import annotations

import enum

from ..model import BoardState, ComponentId, ScoreLine, ScoreSheet, build_sheet
from ..state import cell_to_json
from .catalog import Catalog, Species
from .jungle import PlayerTable, player_table


class ScoreRule(enum.Enum):
    """Breakdown keys of a Rainforest score sheet, in sheet order."""

    TILES = "tiles"
    TOTEM = "totem"
    PROTECTED_AREA = "protected_area"
    DIVERSITY = "diversity"


def tile_name(tile_id: str) -> str:
    """A jungle tile as its face names it (``TILE-B10`` is Jungle tile B10)."""
    return f"Jungle tile {tile_id.removeprefix('TILE-')}"


def totem_tokens(table: PlayerTable, catalog: Catalog, tile_id: str, totem: Species) -> list[ComponentId]:
    """Tokens of the player's totem species on one tile."""
    return [ComponentId(t) for t in table.tokens_on.get(tile_id, {}).values() if catalog.tokens[t].species is totem]


def totem_count(table: PlayerTable, catalog: Catalog, tile_id: str, totem: Species) -> int:
    return len(totem_tokens(table, catalog, tile_id, totem))


def tiles_line(table: PlayerTable, catalog: Catalog) -> ScoreLine:
    """Each locked tile earns its printed points; clearing tiles score nothing."""
    locked = sorted(table.jungle.items())
    parts = [f"J{p} {t} {catalog.tiles[t].points}" for p, t in locked]
    total = sum(catalog.tiles[t].points for t in table.jungle.values())
    if not parts:
        return ScoreLine(ScoreRule.TILES.value, 0, "no Jungle tile locked in")
    return ScoreLine(ScoreRule.TILES.value, total, f"Jungle tiles locked in: {' + '.join(parts)} = {total}",
                     tuple(ComponentId(t) for _, t in locked), collective=True)


def totem_line(table: PlayerTable, catalog: Catalog, totem: Species) -> ScoreLine:
    """Each token of the totem species on a locked tile earns 1 more point for that tile."""
    tokens = [(p, totem_tokens(table, catalog, t, totem)) for p, t in sorted(table.jungle.items())]
    parts = [f"J{p} {len(ts)}" for p, ts in tokens if ts]
    total = sum(len(ts) for _, ts in tokens)
    if not parts:
        return ScoreLine(ScoreRule.TOTEM.value, 0, f"{totem.value} totem: no {totem.value} on a locked-in tile")
    return ScoreLine(ScoreRule.TOTEM.value, total, f"{totem.value} totem: {' + '.join(parts)} = {total}",
                     tuple(t for _, ts in tokens for t in ts), collective=True)


def protected_area_lines(table: PlayerTable, catalog: Catalog, totem: Species) -> list[ScoreLine]:
    """A protected area multiplies its tile's points, totem points included; the line holds the gain."""
    lines: list[ScoreLine] = []
    for tile_id, pas in sorted(table.protected_on.items()):
        position = table.position_of(tile_id)
        for pa_id in pas:
            pa = catalog.protected_areas[pa_id]
            if position is None:
                lines.append(
                    ScoreLine(
                        ScoreRule.PROTECTED_AREA.value,
                        0,
                        f"{pa_id} on {tile_id} in the clearing: tiles still in the clearing do not score -> 0",
                        (ComponentId(pa_id), ComponentId(tile_id)),
                    )
                )
                continue
            points = catalog.tiles[tile_id].points
            animals = totem_count(table, catalog, tile_id, totem)
            base = points + animals
            gain = base * (pa.multiplier - 1)
            lines.append(
                ScoreLine(
                    ScoreRule.PROTECTED_AREA.value,
                    gain,
                    f"{pa_id} (x{pa.multiplier}) on J{position} {tile_id}: ({points} points + {animals}"
                    f" {totem.value}) x {pa.multiplier} = {base * pa.multiplier} -> +{gain}",
                    (ComponentId(pa_id), ComponentId(tile_id)),
                )
            )
    if not lines:
        lines.append(ScoreLine(ScoreRule.PROTECTED_AREA.value, 0, "no protected area token"))
    return lines


def diversity_lines(table: PlayerTable, catalog: Catalog, *, counts_unfilled: bool) -> list[ScoreLine]:
    """The diversity token earns 2 points per tile placed after it in the placement order."""
    lines: list[ScoreLine] = []
    per_tile = catalog.points_per_later_tile
    for tile_id, tokens in sorted(table.diversity_on.items()):
        position = table.position_of(tile_id)
        for d in tokens:
            if position is None:
                lines.append(
                    ScoreLine(ScoreRule.DIVERSITY.value, 0,
                              f"{d} on {tile_id} in the clearing: tiles still in the clearing do not score -> 0",
                              (ComponentId(d), ComponentId(tile_id)))
                )
                continue
            if counts_unfilled:
                later = list(range(position + 1, 10))
                how = ("position" if len(later) == 1 else "positions") + " after it, filled or not"
            else:
                later = sorted(p for p in table.jungle if p > position)
                how = ("tile" if len(later) == 1 else "tiles") + " placed after it"
            names = ", ".join(f"J{p}" for p in later) or "none"
            lines.append(
                ScoreLine(
                    ScoreRule.DIVERSITY.value,
                    per_tile * len(later),
                    f"{d} on J{position} {tile_id}: {len(later)} {how} ({names}) x {per_tile}"
                    f" = {per_tile * len(later)}",
                    (ComponentId(d), ComponentId(tile_id), *(ComponentId(table.jungle[p]) for p in later
                                                             if p in table.jungle)),
                )
            )
    if not lines:
        lines.append(ScoreLine(ScoreRule.DIVERSITY.value, 0, "no diversity token"))
    return lines


def player_lines(
    table: PlayerTable, catalog: Catalog, totem: Species, *, counts_unfilled: bool
) -> list[ScoreLine]:
    return [
        tiles_line(table, catalog),
        totem_line(table, catalog, totem),
        *protected_area_lines(table, catalog, totem),
        *diversity_lines(table, catalog, counts_unfilled=counts_unfilled),
    ]


def score_sheet(state: BoardState, catalog: Catalog, game_id: str) -> ScoreSheet:
    """Every player's lines; ties share the victory (the rulebook has no tie-break)."""
    lines: dict[str, list[ScoreLine]] = {}
    notes: list[str] = []
    counts_unfilled = bool(state.options.get("diversity_counts_unfilled", False))
    for player in state.players:
        table = player_table(state, catalog, player.id)
        if table.board is None:
            continue
        totem = catalog.boards[table.board].totem
        lines[player.id] = player_lines(table, catalog, totem, counts_unfilled=counts_unfilled)
        if table.clearing:
            notes.append(
                f"{player.id}: {len(table.clearing)} {'tile' if len(table.clearing) == 1 else 'tiles'}"
                f" in the clearing {'scores' if len(table.clearing) == 1 else 'score'} nothing"
                f" ({', '.join(map(tile_name, table.clearing))})"
            )
    if state.unknown:
        places = ", ".join(
            f"{u.area}"
            + (f" {cell_to_json(u.cell)}" if u.cell is not None else "")
            + (f" on {u.on}" if u.on else "")
            + (f" slot {u.slot}" if u.slot is not None else "")
            for u in state.unknown
        )
        notes.insert(
            0,
            f"incomplete: {len(state.unknown)} place(s) could not be read ({places});"
            " the sheet counts only what was read",
        )
    return build_sheet(game_id, lines, (), notes)
