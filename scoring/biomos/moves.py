"""Legality of one turn, judged from the table before and after it.

A turn: take a terrain token (a face-up centre token; in solo, one of three drawn at
random), place it on the planet after any slides (Law of Gravity), form the Moon or
trigger at most one planetary event (advanced), then complete at most one biome card.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..model import Cell, ComponentId, PlayerId, Violation
from ..words import Words, join_and, plural
from .catalog import BiomeCard, BiomeKind, Catalog, PatternSymbol, Side, Terrain, TerrainToken
from .planet import CAPACITY, LARGER_SPACE, MOON, PLANET_SPACES, RECESSES, Planet, find_pattern, neighbours
from .table import Table


class Rule(enum.Enum):
    """Every rule a turn can break; the values are the stable violation codes."""

    PLAYERS_CHANGED = "biomos/players_changed"
    NOT_ONE_TOKEN_PLACED = "biomos/not_one_token_placed"
    OTHER_PLAYER_CHANGED = "biomos/other_player_changed"
    OUT_OF_TURN = "biomos/out_of_turn"
    SETUP_COMPENSATION = "biomos/setup_compensation"
    BOARD_CHANGED = "biomos/board_changed"
    TOKEN_REMOVED = "biomos/token_removed"
    TOKEN_LIFTED = "biomos/token_lifted"
    ORDER_CHANGED = "biomos/order_changed"
    MOON_CHANGED = "biomos/moon_changed"
    TOKEN_NOT_FROM_CENTRE = "biomos/token_not_from_centre"
    CENTRE_CHANGED = "biomos/centre_changed"
    EVENT_IN_DISCOVERY = "biomos/event_in_discovery"
    TWO_EVENTS = "biomos/two_events"
    EVENT_WITH_MOON = "biomos/event_with_moon"
    EVENT_NOT_ALLOWED = "biomos/event_not_allowed"
    EVENT_TOKEN_NOT_FROM_POUCH = "biomos/event_token_not_from_pouch"
    TWO_BIOMES_CLAIMED = "biomos/two_biomes_claimed"
    CARD_NOT_OFFERED = "biomos/card_not_offered"
    PATTERN_MISSING = "biomos/pattern_missing"
    OFFER_CHANGED = "biomos/offer_changed"
    SOLO_DRAW = "biomos/solo_draw"
    BLACKHOLE_TWO_BIOMES = "biomos/blackhole_two_biomes"
    BLACKHOLE_PATTERN_MISSING = "biomos/blackhole_pattern_missing"
    BLACKHOLE_ABSORBED_TOKENS = "biomos/blackhole_absorbed_tokens"
    BLACKHOLE_MUST_ESTABLISH = "biomos/blackhole_must_establish"
    BLACKHOLE_NOT_BEST = "biomos/blackhole_not_best"


class Event(enum.Enum):
    """The four planetary events of the advanced mode."""

    IRRIGATION = "Irrigation"
    GLACIATION = "Glaciation"
    DESERTIFICATION = "Desertification"
    MELTING_ICE = "Melting ice"


def _v(rule: Rule, message: str, area: str | None = None, cells: Sequence[Cell] = (),
       components: Sequence[str] = ()) -> Violation:
    return Violation(rule.value, message, tuple(cells), area, tuple(ComponentId(c) for c in components))


#: Names only: which player is which comes from the table's own Words (``turn_violations``).
_NAMES = Words("biomos", {})


def _name(component: str) -> str:
    """A token, card or board by its printed name: ``the Ocean token``, ``Seabed``."""
    name = _NAMES.name(component)
    return f"the {name}" if _NAMES.is_shared(component) else name


def _space(space: str) -> str:
    """A planet space as players say it (the pad's words): ``space 3``, ``recess 1``, ``the Moon``."""
    return _NAMES.space(space)


def _pattern(pattern: Sequence[PatternSymbol]) -> str:
    """A card's pattern in words: ``forest, any token, forest``."""
    return ", ".join("any token" if s is None else s.value for s in pattern)


@dataclass(frozen=True, slots=True)
class Options:
    """The rule options a turn check depends on."""

    gaps_ignored: bool = False
    melt_moon: bool = False

    @classmethod
    def of(cls, options: Mapping[str, Any]) -> Options:
        return cls(bool(options.get("gaps_ignored", False)), bool(options.get("melt_moon", False)))


# -- turn order and setup compensation ----------------------------------------------


def compensated(table: Table) -> frozenset[PlayerId]:
    """Players who start with a token in the larger space: discovery, the last player
    (the last two with 4 players); nobody in advanced or solo games."""
    n = len(table.players)
    if table.side is not Side.DISCOVERY or n < 2 or table.is_solo:
        return frozenset()
    return frozenset(table.players[-(2 if n >= 4 else 1):])


def turns_taken(table: Table) -> dict[PlayerId, int]:
    """Turns each player has played: one token per turn, plus the compensation token."""
    comp = compensated(table)
    return {pid: len(table.planets[pid].tokens) - (pid in comp) for pid in table.players}


def turn_problems(table: Table, words: Words = _NAMES) -> tuple[list[str], PlayerId | None]:
    """Why the token counts cannot come from the turn order with the setup compensation,
    and otherwise whose turn it is (None when every planet is full)."""
    comp = compensated(table)
    turns = turns_taken(table)
    problems: list[str] = []
    for pid in table.players:
        planet = table.planets[pid]
        if turns[pid] < 0:
            problems.append(
                f"{words.player(pid)} plays after the others and starts with one token in the larger"
                f" {_space(LARGER_SPACE)}, but their planet is empty"
            )
        elif pid in comp and turns[pid] == 0 and LARGER_SPACE not in planet.tokens:
            problems.append(f"{words.player(pid)}'s starting token must lie in the larger {_space(LARGER_SPACE)}")
    cap = CAPACITY[table.side]
    open_players = [pid for pid in table.players if len(table.planets[pid].tokens) < cap]
    if problems or not open_players:
        return problems, None
    low = min(turns[pid] for pid in open_players)
    seen_low = False
    for pid in table.players:
        t = turns[pid]
        late = pid in open_players and (t not in (low, low + 1) or (t == low + 1 and seen_low))
        if late or (pid not in open_players and t > low + 1):
            counts = join_and(f"{words.player(p)} {len(table.planets[p].tokens)}" for p in table.players)
            extra = f"; {join_and(words.player(p) for p in sorted(comp))} started with one token" if comp else ""
            problems.append(f"the tokens on the planets ({counts}) do not follow the turn order{extra}")
            return problems, None
        seen_low = seen_low or (pid in open_players and t == low)
    expected = next(pid for pid in table.players if pid in open_players and turns[pid] == low)
    return problems, expected


# -- the mover's planet ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Placed:
    """What a turn did to the mover's planet, once explained."""

    violations: tuple[Violation, ...]
    placed: TerrainToken | None
    moon_formed: bool


def _zone(space: str) -> str:
    if space in PLANET_SPACES:
        return "ring"
    return space


def _order(planet: Mapping[str, TerrainToken], keep: set[str]) -> list[str]:
    return [planet[s].id for s in PLANET_SPACES if s in planet and planet[s].id in keep]


def _slide_faults(
    before: Mapping[str, TerrainToken], mid: Mapping[str, TerrainToken], lifted: str | None, area: str
) -> list[Violation]:
    """Faults of the placement B -> I when ``lifted`` is the token the Moon effect picked up."""
    out: list[Violation] = []
    where_mid = {t.id: s for s, t in mid.items()}
    for space, token in before.items():
        if space == MOON or token.id == lifted or token.id not in where_mid:
            continue
        now = where_mid[token.id]
        if space in RECESSES and now != space:
            out.append(_v(Rule.TOKEN_LIFTED, f"{_name(token.id)} left {_space(space)} for {_space(now)}: tokens in"
                          " the recesses never slide", area, (space, now), (token.id,)))
        elif space in PLANET_SPACES and _zone(now) != "ring":
            out.append(_v(Rule.TOKEN_LIFTED, f"{_name(token.id)} was picked up from {_space(space)} and put on {_space(now)}: tokens"
                          " only slide along the planet (except with the Moon's immediate effect)",
                          area, (space, now), (token.id,)))
    keep = {t.id for s, t in before.items() if s in PLANET_SPACES and t.id != lifted}
    keep &= {t.id for s, t in mid.items() if s in PLANET_SPACES}
    old, new = _order(before, keep), _order(mid, keep)
    if old != new:
        out.append(_v(Rule.ORDER_CHANGED, f"the order of the tokens on the planet changed from {_terrains(old)}"
                      f" to {_terrains(new)}: sliding never changes their order", area,
                      tuple(s for s in PLANET_SPACES if s in mid and mid[s].id in keep), tuple(new)))
    return out


def _terrains(ids: Sequence[str]) -> str:
    """Tokens in order by what they show: ``ocean, forest, desert``."""
    return ", ".join(_NAMES.name(c).removesuffix(" token").lower() for c in ids)


def _event_explanations(mid: Planet, space: str, new: TerrainToken, gaps_ignored: bool) -> list[Event]:
    """Events whose precondition holds after placement and that turn ``space`` into ``new``."""
    old = mid.tokens[space].terrain
    near = {mid.tokens[s].terrain for s in neighbours(mid, space, gaps_ignored=gaps_ignored)}
    out: list[Event] = []
    if old is Terrain.DESERT and Terrain.OCEAN in near and new.terrain is Terrain.FOREST:
        out.append(Event.IRRIGATION)
    if old is Terrain.OCEAN and Terrain.MOUNTAIN in near and new.terrain is Terrain.GLACIER:
        out.append(Event.GLACIATION)
    if Terrain.DESERT in near and new.terrain is Terrain.DESERT:
        out.append(Event.DESERTIFICATION)
    if old is Terrain.GLACIER:
        out.append(Event.MELTING_ICE)
    return out


def _explain_board(
    before: Planet, after: Planet, placed_id: str, visible_before: frozenset[str], area: str, opts: Options
) -> list[Violation]:
    """Faults of one reading of the turn, ``placed_id`` being the token the player placed."""
    out: list[Violation] = []
    b_where = {t.id: s for s, t in before.tokens.items()}
    a_where = {t.id: s for s, t in after.tokens.items()}
    removed = sorted(set(b_where) - set(a_where), key=lambda c: _space_index(b_where[c]))
    replacements = sorted(set(a_where) - set(b_where) - {placed_id}, key=lambda c: _space_index(a_where[c]))
    pairs = list(zip(replacements, removed, strict=False))
    for extra in replacements[len(pairs):]:
        out.append(_v(Rule.NOT_ONE_TOKEN_PLACED, f"{_name(extra)} on {_space(a_where[extra])} is a second new token: a turn"
                      " places exactly one token", area, (a_where[extra],), (extra,)))
    for gone in removed[len(pairs):]:
        out.append(_v(Rule.TOKEN_REMOVED, f"{_name(gone)} left {_space(b_where[gone])}: tokens are never taken off a planet",
                      area, (b_where[gone],), (gone,)))
    # the planet just after placement (and the Moon effect), before any event
    mid_tokens = dict(after.tokens)
    before_by_id = {t.id: t for t in before.tokens.values()}
    for new_id, old_id in pairs:
        mid_tokens[a_where[new_id]] = before_by_id[old_id]
    mid = Planet(before.side, mid_tokens)
    moon_before = before.tokens.get(MOON)
    moon_formed = moon_before is None and MOON in mid_tokens
    if moon_before is not None and mid_tokens.get(MOON, None) != moon_before:
        out.append(_v(Rule.MOON_CHANGED, f"the Moon ({_name(moon_before.id)}) is fixed once formed", area, (MOON,),
                      (moon_before.id,)))
    if moon_formed and mid_tokens[MOON].id != placed_id:
        lifted_to_moon = mid_tokens[MOON].id
        out.append(_v(Rule.TOKEN_LIFTED, f"{_name(lifted_to_moon)} was moved onto the Moon: the Moon is formed by"
                      " placing the new token there", area, (MOON,), (lifted_to_moon,)))
    # slides, with at most one token lifted by the Moon's immediate effect
    candidates: list[str | None] = [None]
    if moon_formed:
        still_there = {x.id for x in mid_tokens.values()}
        candidates += sorted(t.id for s, t in before.tokens.items() if s != MOON and t.id in still_there)
    best = min((_slide_faults(before.tokens, mid_tokens, c, area) for c in candidates), key=len)
    out.extend(best)
    # the planetary event
    if pairs:
        if before.side is Side.DISCOVERY:
            out.append(_v(Rule.EVENT_IN_DISCOVERY, "planetary events belong to the advanced mode: a token was"
                          " replaced on a discovery planet", area, tuple(a_where[n] for n, _ in pairs),
                          tuple(n for n, _ in pairs)))
        if len(pairs) > 1:
            out.append(_v(Rule.TWO_EVENTS, f"{len(pairs)} tokens were replaced: at most one planetary event a"
                          " turn", area, tuple(a_where[n] for n, _ in pairs), tuple(n for n, _ in pairs)))
        if moon_formed:
            out.append(_v(Rule.EVENT_WITH_MOON, "forming the Moon counts as this turn's planetary event: no"
                          " other event the same turn", area, (MOON,), (mid_tokens[MOON].id,)))
        for new_id, old_id in pairs:
            space = a_where[new_id]
            new_token = after.tokens[space]
            if new_id in visible_before:
                out.append(_v(Rule.EVENT_TOKEN_NOT_FROM_POUCH, f"{_name(new_id)} replaced {_name(old_id)} on {_space(space)} but was"
                              " already on the table: an event takes its token from the pouch", area, (space,),
                              (new_id,)))
            if space == MOON:
                melting = before_by_id[old_id].terrain is Terrain.GLACIER
                if not (opts.melt_moon and melting):
                    out.append(_v(Rule.MOON_CHANGED, f"{_name(old_id)} on the Moon was replaced by {_name(new_id)}: the Moon"
                                  " is fixed once formed", area, (MOON,), (old_id, new_id)))
                continue
            if not _event_explanations(mid, space, new_token, opts.gaps_ignored):
                old_t = before_by_id[old_id].terrain.value
                out.append(_v(Rule.EVENT_NOT_ALLOWED, f"the {old_t} on {_space(space)} became {new_token.terrain.value}:"
                              f" no planetary event allows that here ({_event_hint(old_t)})", area,
                              (space,), (old_id, new_id)))
    return out


def _event_hint(old: str) -> str:
    return {
        "desert": "Irrigation turns a desert next to an ocean into a forest",
        "ocean": "Glaciation turns an ocean next to a mountain into a glacier",
        "glacier": "Melting ice replaces a glacier by a random token",
    }.get(old, "Desertification turns a token next to a desert into a desert")


def _space_index(space: str) -> int:
    order = PLANET_SPACES + RECESSES + (MOON,)
    return order.index(space)


def explain_placement(
    before: Planet, after: Planet, visible_before: frozenset[str], area: str, opts: Options
) -> Placed:
    """The most charitable reading of the mover's planet change and its faults."""
    b_ids = {t.id for t in before.tokens.values()}
    new = sorted((t for t in after.tokens.values() if t.id not in b_ids), key=lambda t: t.id)
    if not new:
        gone = [t.id for t in before.tokens.values() if t.id not in {x.id for x in after.tokens.values()}]
        out = [_v(Rule.NOT_ONE_TOKEN_PLACED, "no new token on the planet: a turn places exactly one token", area)]
        out += [_v(Rule.TOKEN_REMOVED, f"{_name(g)} was taken off the planet", area, (), (g,)) for g in gone]
        return Placed(tuple(out), None, False)
    readings = [(_explain_board(before, after, t.id, visible_before, area, opts), t) for t in new]
    faults, placed = min(readings, key=lambda r: len(r[0]))
    moon_formed = MOON not in before.tokens and MOON in after.tokens
    return Placed(tuple(faults), placed, moon_formed)


# -- the whole turn ------------------------------------------------------------------


def _changed(before: Table, after: Table, pid: PlayerId) -> bool:
    def snap(t: Table) -> tuple[Any, ...]:
        tokens = tuple(sorted((s, tok.id) for s, tok in t.planets[pid].tokens.items()))
        cards = tuple(sorted(c.card.id for c in t.claims[pid]))
        return (t.faces[pid].id, tokens, cards)

    return snap(before) != snap(after)


def turn_violations(
    cat: Catalog, before: Table, after: Table, options: Mapping[str, Any], words: Words = _NAMES
) -> tuple[Violation, ...]:
    """Every rule the turn from ``before`` to ``after`` breaks (players named by ``words``)."""
    opts = Options.of(options)
    if set(before.players) != set(after.players):
        return (_v(Rule.PLAYERS_CHANGED, "the two states do not seat the same players"),)
    out: list[Violation] = []
    problems, expected = turn_problems(before, words)
    out += [_v(Rule.SETUP_COMPENSATION, p) for p in problems]
    changed = [pid for pid in before.players if _changed(before, after, pid)]
    if not changed:
        out.append(_v(Rule.NOT_ONE_TOKEN_PLACED, "no planet changed: a turn places exactly one terrain token"))
        return tuple(out)
    mover = expected if expected in changed else changed[0]
    for pid in changed:
        if pid != mover:
            out.append(_v(Rule.OTHER_PLAYER_CHANGED, f"{words.player(pid)}'s planet or biomes changed during {words.player(mover)}'s turn",
                          f"planet:{pid}"))
    if expected is not None and mover != expected:
        out.append(_v(Rule.OUT_OF_TURN, f"it is {words.player(expected)}'s turn, but {words.player(mover)}'s planet changed",
                      f"planet:{mover}"))
    area = f"planet:{mover}"
    if before.faces[mover].id != after.faces[mover].id:
        out.append(_v(Rule.BOARD_CHANGED, f"{words.player(mover)}'s planet board changed from"
                      f" {_name(before.faces[mover].id)} to {_name(after.faces[mover].id)}", area, (), (after.faces[mover].id,)))
    placed = explain_placement(before.planets[mover], after.planets[mover], before.visible, area, opts)
    out += placed.violations
    claimed = _new_claims(before, after, mover)
    out += _claim_violations(before, after, mover, claimed, opts)
    if before.is_solo:
        out += _solo_violations(cat, before, after, placed.placed, claimed)
    else:
        taken = placed.placed
        if taken is not None and (original := _replaced_on_arrival(cat, before, after, mover, taken, opts)):
            taken = original
        out += _centre_violations(before, after, taken)
    hole_new = [cat.biome(c) for c in sorted(set(after.hole_biomes) - set(before.hole_biomes))]
    out += _offer_violations(cat, before, after, claimed + [c for c in hole_new if c is not None])
    return tuple(out)


def _replaced_on_arrival(
    cat: Catalog, before: Table, after: Table, mover: PlayerId, seen: TerrainToken, opts: Options
) -> TerrainToken | None:
    """The centre token actually taken when a planetary event replaced it on arrival.

    Placing a desert next to an ocean and irrigating it at once leaves only the pouch's
    forest on the planet; the desert went back to the pouch from the centre row.
    """
    if before.side is not Side.ADVANCED or seen.id in before.visible or seen.id in before.centre:
        return None
    left = sorted(c for c in before.centre if c not in after.visible)
    moon_formed = MOON not in before.planets[mover].tokens and MOON in after.planets[mover].tokens
    if len(left) != 1 or moon_formed:
        return None
    original = cat.token(left[0])
    space = next((s for s, t in after.planets[mover].tokens.items() if t.id == seen.id), None)
    if original is None or space is None or space == MOON:
        return None
    mid = Planet(before.side, {**after.planets[mover].tokens, space: original})
    return original if _event_explanations(mid, space, seen, opts.gaps_ignored) else None


def _new_claims(before: Table, after: Table, pid: PlayerId) -> list[BiomeCard]:
    had = {c.card.id for c in before.claims[pid]}
    return [c.card for c in after.claims[pid] if c.card.id not in had]


def _claim_violations(
    before: Table, after: Table, pid: PlayerId, claimed: list[BiomeCard], opts: Options
) -> list[Violation]:
    """At most one card a turn, face up in the offer, its pattern on the planet now."""
    out: list[Violation] = []
    area = f"biomes:{pid}"
    if len(claimed) > 1:
        out.append(_v(Rule.TWO_BIOMES_CLAIMED, f"{len(claimed)} biomes completed in one turn"
                      f" ({join_and(c.name for c in claimed)}): at most one", area, (), [c.id for c in claimed]))
    planet = after.planets[pid]
    for card in claimed:
        if card.id not in before.offer:
            out.append(_v(Rule.CARD_NOT_OFFERED, f"{card.name} was not face up in the biome offer",
                          area, (), (card.id,)))
        if find_pattern(planet, card.pattern, gaps_ignored=opts.gaps_ignored) is None:
            gap = "" if opts.gaps_ignored else " (empty spaces break a pattern)"
            out.append(_v(Rule.PATTERN_MISSING, f"{card.name} needs {_pattern(card.pattern)} in a row on"
                          f" the planet{gap}; it is not there", area, (), (card.id,)))
    return out


def _centre_violations(before: Table, after: Table, placed: TerrainToken | None) -> list[Violation]:
    """The token comes from the face-up centre row, refilled with 5 only when empty."""
    if placed is None:
        return []
    out: list[Violation] = []
    if before.centre:
        if placed.id not in before.centre:
            out.append(_v(Rule.TOKEN_NOT_FROM_CENTRE, f"{_name(placed.id)} was not among the face-up centre tokens",
                          "centre", (), (placed.id,)))
        expected = before.centre - {placed.id}
        refilled = not expected and len(after.centre) == 5 and not (after.centre & before.visible)
        if after.centre != expected and not refilled:
            out.append(_v(Rule.CENTRE_CHANGED, "the centre row changed beyond the token taken"
                          f" (it should show {_terrains(sorted(expected)) or 'nothing, or 5 new tokens'})",
                          "centre", (), sorted(after.centre ^ expected)))
    else:
        if placed.id in before.visible:
            out.append(_v(Rule.TOKEN_NOT_FROM_CENTRE, f"{_name(placed.id)} was elsewhere on the table, not in the"
                          " centre", "centre", (), (placed.id,)))
        if after.centre and (len(after.centre) != 4 or after.centre & before.visible):
            out.append(_v(Rule.CENTRE_CHANGED, "the empty centre row is refilled with 5 tokens from the pouch,"
                          f" one of which is taken: 4 should remain, {len(after.centre)} seen", "centre", (),
                          sorted(after.centre)))
    return out


def _offer_violations(cat: Catalog, before: Table, after: Table, taken: list[BiomeCard]) -> list[Violation]:
    """Completed basic biomes are replaced from the deck; giant ones are not."""
    if not before.offer and not after.offer:
        return []
    taken_ids = {c.id for c in taken} & before.offer
    out: list[Violation] = []
    vanished = sorted(before.offer - after.offer - taken_ids)
    if vanished:
        out.append(_v(Rule.OFFER_CHANGED, f"{_NAMES.listing(vanished)} left the biome offer without being completed",
                      "offer", (), vanished))
    appeared = after.offer - before.offer
    basics_taken = sum(1 for c in taken if c.id in taken_ids and c.kind is BiomeKind.BASIC)
    kinds = {c: card.kind for c in appeared if (card := cat.biome(c)) is not None}
    giants = sorted(c for c, k in kinds.items() if k is BiomeKind.GIANT)
    basics = sorted(c for c, k in kinds.items() if k is BiomeKind.BASIC)
    if giants or len(basics) > basics_taken or (appeared & before.visible):
        out.append(_v(Rule.OFFER_CHANGED, f"{_NAMES.listing(sorted(appeared))} came into the biome offer: only a completed basic"
                      " biome is replaced, from the deck", "offer", (), sorted(appeared)))
    return out


def _hole_all(table: Table) -> dict[str, TerrainToken]:
    out = {t.id: t for t in table.hole_tokens}
    for tokens in table.hole_biomes.values():
        out.update({t.id: t for t in tokens})
    return out


def _solo_violations(
    cat: Catalog,
    before: Table, after: Table, placed: TerrainToken | None, claimed: list[BiomeCard]
) -> list[Violation]:
    """Three tokens drawn: one placed, two onto the Black Hole; then it establishes its best biome."""
    out: list[Violation] = []

    def fresh(cid: str) -> bool:
        return cid not in before.visible or cid in before.drawn

    if placed is not None and not fresh(placed.id):
        out.append(_v(Rule.SOLO_DRAW, f"{_name(placed.id)} was already on the table: in solo the token comes from the"
                      " three drawn from the pouch", "blackhole", (), (placed.id,)))
    b_all, a_all = _hole_all(before), _hole_all(after)
    new = sorted(set(a_all) - set(b_all))
    if len(new) != 2 or not all(fresh(c) for c in new):
        out.append(_v(Rule.SOLO_DRAW, f"{plural(len(new), 'new token')} on the Black Hole"
                      f"{' (' + _terrains(new) + ')' if new else ''}: the two drawn tokens not placed go onto it", "blackhole", (), new))
    lost = sorted(set(b_all) - set(a_all))
    if lost:
        out.append(_v(Rule.BLACKHOLE_ABSORBED_TOKENS, f"{_NAMES.listing(lost)} left the Black Hole: what it holds"
                      " stays there", "blackhole", (), lost))
    for cid, tokens in before.hole_biomes.items():
        if {t.id for t in after.hole_biomes.get(cid, ())} != {t.id for t in tokens}:
            out.append(_v(Rule.BLACKHOLE_ABSORBED_TOKENS, f"the tokens absorbed by {_name(cid)} changed", "blackhole",
                          (), (cid,)))
    pool_ids = {t.id for t in before.hole_tokens} | set(new)
    known = b_all | a_all | {t.id: t for t in before.hole_tokens}
    pool = Counter(known[c].terrain for c in pool_ids)
    claimed_ids = {c.id for c in claimed}
    established = sorted(set(after.hole_biomes) - set(before.hole_biomes))
    cards = {c: after.hole_biomes[c] for c in established}
    offered = [c for c in before.offer if c not in claimed_ids]
    hole_cards = [c for c in (cat.biome(i) for i in sorted(offered)) if c is not None]
    possible = [c for c in hole_cards if c.terrains_needed <= pool]
    if len(established) > 1:
        out.append(_v(Rule.BLACKHOLE_TWO_BIOMES, f"the Black Hole established {len(established)} biomes: one a"
                      " turn", "blackhole", (), established))
    if not established and possible:
        best = max(possible, key=lambda c: c.points)
        out.append(_v(Rule.BLACKHOLE_MUST_ESTABLISH, f"the Black Hole can establish {best.name} ({best.points} points)"
                      " with its tokens: it must", "blackhole", (), (best.id,)))
    for cid, absorbed in cards.items():
        card = next((c for c in hole_cards if c.id == cid), None)
        if card is None:
            out.append(_v(Rule.CARD_NOT_OFFERED, f"{_name(cid)} was not face up in the biome offer for the Black Hole",
                          "blackhole", (), (cid,)))
            continue
        if not card.terrains_needed <= pool:
            out.append(_v(Rule.BLACKHOLE_PATTERN_MISSING, f"{card.name} needs {_multiset(card.terrains_needed)};"
                          f" the Black Hole holds {_multiset(pool) or 'nothing'}", "blackhole", (), (cid,)))
        elif Counter(t.terrain for t in absorbed) != card.terrains_needed or not {t.id for t in absorbed} <= pool_ids:
            out.append(_v(Rule.BLACKHOLE_ABSORBED_TOKENS, f"{card.name} absorbs exactly"
                          f" {_multiset(card.terrains_needed)} from the Black Hole's free tokens", "blackhole", (),
                          (cid, *sorted(t.id for t in absorbed))))
        top = max((c.points for c in possible), default=0)
        if card in possible and card.points < top:
            out.append(_v(Rule.BLACKHOLE_NOT_BEST, f"the Black Hole establishes the biome worth the most: {top}"
                          f" points were possible, {card.name} gives {card.points}", "blackhole", (), (cid,)))
    return out


def _multiset(c: Counter[Terrain]) -> str:
    return ", ".join(f"{n} {t.value}" for t, n in sorted(c.items(), key=lambda kv: kv[0].value) if n)
