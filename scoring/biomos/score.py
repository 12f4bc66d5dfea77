"""End-of-game scoring: biomes, Moon, and in advanced mode the forest and planet bonuses.

Solo games add the Black Hole as a second line of the sheet: its card's value plus the
biomes it established; the planet wins only with strictly more points.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ..model import ComponentId, ScoreLine, ScoreSheet, TieBreak, build_sheet
from .catalog import Catalog, Side, Terrain, TerrainToken
from .planet import Planet, find_pattern, span_text
from .table import BLACK_HOLE, Claim, Table


class ScoreRule(enum.Enum):
    """Score sheet line keys."""

    BIOMES = "biomes"
    MOON = "moon"
    FOREST_BONUS = "forest_bonus"
    PLANET_BONUS = "planet_bonus"
    BLACK_HOLE_CARD = "black_hole_card"


class TieBreakKey(enum.Enum):
    """How ties on points are split (option ``tiebreak``)."""

    RULEBOOK = "rulebook"
    """Most different terrain types on the planet."""
    BGA = "bga"
    """Per-type counts sorted from the smallest, compared in order (finer; the online version's key)."""


MOON_FACTOR = 3
GAME_ID = "biomos"


def _spaces(planet: Planet, terrain: Terrain) -> list[str]:
    return [s for s, t in planet.surface() if t.terrain is terrain]


def _tokens(planet: Planet, spaces: Sequence[str]) -> tuple[ComponentId, ...]:
    return tuple(planet.tokens[s].id for s in spaces)


def biome_lines(
    claims: tuple[Claim, ...], planet: Planet | None, gaps_ignored: bool,
    absorbed: Mapping[str, tuple[TerrainToken, ...]] | None = None,
) -> list[ScoreLine]:
    """One line per completed biome with where its pattern shows now (on the planet), or the
    tokens it absorbed (``absorbed``: the Black Hole's biomes)."""
    if not claims:
        return [ScoreLine(ScoreRule.BIOMES.value, 0, "no biome completed")]
    out: list[ScoreLine] = []
    for claim in claims:
        card = claim.card
        head = f"{card.name} ({card.kind.value} biome {card.pattern_text})"
        shown: tuple[ComponentId, ...] = ()
        if planet is None:
            where = "completed by the Black Hole"
            shown = tuple(t.id for t in (absorbed or {}).get(card.id, ()))
        else:
            window = find_pattern(planet, card.pattern, gaps_ignored=gaps_ignored)
            where = (
                f"pattern at {span_text(window)}" if window
                else "pattern no longer on the planet (it only had to be there when completed)"
            )
            shown = _tokens(planet, window or ())
        face = "" if claim.face_up else ", kept face down"
        out.append(ScoreLine(ScoreRule.BIOMES.value, card.points, f"{head}: {where}{face} -> {card.points}",
                             (card.id, *shown)))
    return out


def moon_line(planet: Planet) -> ScoreLine:
    """3 points per planet token (recesses included, Moon excluded) matching the Moon."""
    moon = planet.moon
    if moon is None:
        return ScoreLine(ScoreRule.MOON.value, 0, "no Moon formed -> 0")
    spaces = _spaces(planet, moon.terrain)
    pts = MOON_FACTOR * len(spaces)
    listed = ", ".join(spaces) if spaces else "none"
    return ScoreLine(
        ScoreRule.MOON.value, pts,
        f"{moon.terrain.value} Moon: {moon.terrain.value} tokens on the planet, {listed}"
        f" -> {MOON_FACTOR} x {len(spaces)} = {pts}",
        (moon.id, *_tokens(planet, spaces)), collective=True,
    )


def bonus_lines(planet: Planet, planet_type: Terrain | None) -> list[ScoreLine]:
    """Advanced mode: 1 per forest, and 1 per token of the planet's type (Moon excluded)."""
    forests = _spaces(planet, Terrain.FOREST)
    out = [ScoreLine(ScoreRule.FOREST_BONUS.value, len(forests),
                     f"Forest bonus: forest tokens on the planet, {', '.join(forests) or 'none'} -> {len(forests)}",
                     _tokens(planet, forests), collective=True)]
    if planet_type is not None:
        own = _spaces(planet, planet_type)
        out.append(ScoreLine(ScoreRule.PLANET_BONUS.value, len(own),
                             f"Planet bonus, {planet_type.value} planet: {planet_type.value} tokens,"
                             f" {', '.join(own) or 'none'} -> {len(own)}",
                             _tokens(planet, own), collective=True))
    return out


def terrain_counts(planet: Planet) -> Counter[Terrain]:
    """Tokens per terrain on the planet, Moon excluded (the tie-break's basis)."""
    return Counter(t.terrain for _, t in planet.surface())


def tie_break(table: Table, key: TieBreakKey) -> TieBreak:
    counts = {pid: terrain_counts(table.planets[pid]) for pid in table.players}
    if key is TieBreakKey.BGA:
        values: dict[str, Any] = {pid: tuple(sorted(c[t] for t in Terrain)) for pid, c in counts.items()}
        return TieBreak("terrain balance: per-type counts from the smallest (BGA)", values)
    return TieBreak(
        "most different terrain types on the planet",
        {pid: sum(1 for t in Terrain if c[t]) for pid, c in counts.items()},
    )


def score_sheet(cat: Catalog, table: Table, options: Mapping[str, Any], unknown: int) -> ScoreSheet:
    """Per player the rule lines with evidence; ranked with the game's tie-breaks."""
    gaps = bool(options.get("gaps_ignored", False))
    lines: dict[str, list[ScoreLine]] = {}
    for pid in table.players:
        planet = table.planets[pid]
        player_lines = biome_lines(table.claims[pid], planet, gaps)
        player_lines.append(moon_line(planet))
        if table.side is Side.ADVANCED:
            player_lines += bonus_lines(planet, table.faces[pid].planet_type)
        lines[pid] = player_lines
    notes: list[str] = []
    if unknown:
        notes.append(f"incomplete: {unknown} place(s) could not be read; the sheet counts only what was seen")
    if any(not c.face_up for claims in table.claims.values() for c in claims):
        notes.append("face-down biome cards are scored from the cards recorded in the state")
    if table.black_hole is not None:
        hole = table.black_hole
        hole_claims = tuple(
            Claim(card, True) for cid in sorted(table.hole_biomes)
            if (card := cat.biome(cid)) is not None
        )
        hole_lines = [ScoreLine(ScoreRule.BLACK_HOLE_CARD.value, hole.base_points,
                                f"Black Hole, {hole.side.value} side -> {hole.base_points}", (hole.id,))]
        hole_lines += biome_lines(hole_claims, None, gaps, table.hole_biomes)
        lines[BLACK_HOLE] = hole_lines
        solo_rule = TieBreak(
            "solo: the Black Hole wins a tie (the planet needs strictly more points)",
            {pid: 0 for pid in table.players} | {BLACK_HOLE: 1},
        )
        return build_sheet(GAME_ID, lines, (solo_rule,), notes)
    if len(table.players) == 1:
        notes.append("solo game without the Black Hole card: no opponent score")
    key = TieBreakKey(options.get("tiebreak", TieBreakKey.RULEBOOK.value))
    return build_sheet(GAME_ID, lines, (tie_break(table, key),), notes)


