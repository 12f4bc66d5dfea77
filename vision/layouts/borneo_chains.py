"""BIOME Borneo's food chains on the table: which earned card lies on which, which cards may lie
on a card that was not read, and where the scanner should look for such cards.

Rulings (``docs/vision_boards.md``, BIOME Borneo):
- A predator lies on its prey shifted towards the prey card's bottom edge, so the prey's top
  band (name and tag) stays visible. A card lying on another card of the same player, shifted
  down by ``FAN_MIN_MM`` up to a card's height, at most ``FAN_SIDE`` of a card's width sideways
  and turned less than ``FAN_TURN_DEG``, lies ``on`` it; of several such cards the nearest is the
  one beneath; a prey holds one card.
- A card that may lie on a card whose marker was not read is reported and not placed, and so is
  every card up the chain from it: fanned further than ``FAN_GAP_MM`` below the card under it;
  below something printed but unread; or a secondary or apex animal on no read card at all
  (the rules stack every such animal on its prey, and prey is never taken away, so the bottom
  of a chain is always a primary animal: its prey is there, hidden or unreadable).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from scoring import find_game
from scoring.borneo.entries import Tier
from scoring.markers import marker_layout
from scoring.model import Placement, UnknownPlace
from scoring.words import Words

from ..problems import ProblemCode
from . import Draft, Located, LookAgain, Placed, Problem, TableView, probe_all
from .anchored import EDGE_MM, face_xy, quick_face_xy, table_points
from .spaces import Spot

GAME_ID = "borneo"
#: A card lying on another is shifted down by at least this much (and less than a card's height).
FAN_MIN_MM = 8.0
#: ...and sideways by at most this fraction of a card's width.
FAN_SIDE = 0.3
#: ...and turned by at most this many degrees.
FAN_TURN_DEG = 25.0
#: Arranging: how far each card of a chain lies below the one it is stacked on.
FAN_MM = 30.0
#: A card fanned further than this below the card under it leaves room for a card between
#: them whose marker was not read: the stack is reported, not guessed.
FAN_GAP_MM = 1.5 * FAN_MM
#: Unread cards of a chain looked for above a card fanned below something unread (or below a
#: card with something unread fanned on it): a chain rarely hides more in a row.
UNREAD_RUN = 3
#: The top band above a card counts as printed (a card's top band showing) at this fraction
#: of the texture of the cards' own top bands.
_ABOVE_BUSY = 0.6
#: Chains lie side by side: the next chain's cards lie this far (edge to edge) beside a card...
BESIDE_GAP_MM = 10.0
#: ...give or take (the probes across the gap, and how far a look searches about its tag).
BESIDE_PROBES = tuple((float(dx), 0.0) for dx in (-8, 0, 8, 16))
_BESIDE_MIRRORED = tuple((-dx, dy) for dx, dy in BESIDE_PROBES)
BESIDE_REACH_MM = 16.0

#: How problems name a tier: the rulebook's words.
_TIER_WORDS = {Tier.SECONDARY: "a secondary consumer", Tier.APEX: "an apex predator"}
#: How problems name components: printed names.
_W = Words(GAME_ID, {})


def stacks(cards: list[Located]) -> tuple[dict[str, str], list[Problem], list[tuple[Located, float]]]:
    """Which earned card lies on which: the nearest card it is fanned down from ("" for a card
    that lies on something but cannot be placed on it); and the gaps, each the card under a
    gap and how far below it the next read card lies."""
    below: dict[str, tuple[float, Located]] = {}
    for top in cards:
        for base in cards:
            if base is top:
                continue
            w, h = base.component.size_mm
            qx, qy = quick_face_xy(base, top.centre_mm)
            if abs(qx - w / 2) > FAN_SIDE * w + EDGE_MM or not FAN_MIN_MM - EDGE_MM <= qy - h / 2 < h + EDGE_MM:
                continue  # clearly not fanned down from this card
            fx, fy = face_xy(base, top.centre_mm)
            shift = fy - h / 2
            turn = abs(((top.angle_deg - base.angle_deg) + 180.0) % 360.0 - 180.0)
            if abs(fx - w / 2) <= FAN_SIDE * w and FAN_MIN_MM <= shift < h and turn <= FAN_TURN_DEG:
                best = below.get(top.component.id)
                if best is None or shift < best[0]:
                    below[top.component.id] = (shift, base)
    on: dict[str, str] = {}
    problems: list[Problem] = []
    gaps: list[tuple[Located, float]] = []
    supported: dict[str, str] = {}
    for top_id, (shift, base) in sorted(below.items(), key=lambda kv: kv[1][0]):
        if shift > FAN_GAP_MM:
            problems.append(Problem(ProblemCode.FAN_GAP, f"{_W.name(top_id)} lies {shift:.0f} mm below {base.component.name}: a card between them may not have been read; {_W.name(top_id)} is not placed", (top_id, base.component.id), (base.image_centre,)))
            gaps.append((base, shift))
            on[top_id] = ""
            continue
        other = supported.get(base.component.id)
        if other is not None:  # a prey holds one card: this one lies on another, unread, card
            problems.append(Problem(ProblemCode.TWO_ON_ONE, f"{_W.name(top_id)} and {_W.name(other)} both lie on {base.component.name}; {_W.name(top_id)} is not placed", (top_id, base.component.id), (base.image_centre,)))
            on[top_id] = ""
            continue
        supported[base.component.id] = top_id
        on[top_id] = base.component.id
    return on, problems, gaps


def band_textures(view: TableView, cards: list[Located], *, inside: bool) -> list[float]:
    """Texture of a band across the top of each card's face (``inside``: the printed top band,
    the reference) or just above its top edge (where the card a fanned card lies on shows its
    top band), all probed at once."""
    if view.texture is None or not cards:
        return []
    y0, y1 = (4.0, 24.0) if inside else (-24.0, -4.0)
    bands = [np.array(table_points(card, ((0.2 * w, y0), (0.8 * w, y0), (0.8 * w, y1), (0.2 * w, y1))))
             for card in cards for w in (card.component.size_mm[0],)]
    return probe_all(view.texture, bands)


def tag_centre(card: Located) -> tuple[float, float] | None:
    """Where a card's tag lies on its upright face (None for a card without a marker layout)."""
    try:
        x, y = marker_layout(GAME_ID, card.component).tag.centre_mm
    except Exception:  # noqa: BLE001 - any card the marker geometry does not know
        return None
    return float(x), float(y)


def fanned_on(cards: list[Located], covered_ids: set[str], area: str) -> list[Spot]:
    """Where the tag of a card fanned onto each earned card would show (one fan step below the
    card's own tag, a plain part of its face): busy there means an unread card lies on it."""
    out = []
    for card in cards:
        if card.component.id in covered_ids:
            continue
        tag = tag_centre(card)
        if tag is None:  # a card without a marker layout is not probed
            continue
        out.append(Spot(card, tag[0], tag[1] + FAN_MM, area, 6.0))
    return out


def look_along(again: list[LookAgain], card: Located, steps: range) -> None:
    """Ask the scanner to read the cards that would lie these fan steps down from ``card``
    (up when negative): cards of a chain whose markers were not read. Each card's tag is
    searched where it would show, half a step either way; a tag read already is not read again."""
    w, h = card.component.size_mm
    tx, ty = tag_centre(card) or (w / 2, h / 2)  # without a marker layout: its centre
    for k in steps:
        centre = card.face_point(w / 2, h / 2 + k * FAN_MM)
        tag = card.face_point(tx, ty + k * FAN_MM)
        again.append(LookAgain((float(centre[0]), float(centre[1])), card.component.size_mm, FAN_MM / 2, card.angle_deg,
                               (float(tag[0]), float(tag[1]))))


def _predator(card: Located) -> Tier | None:
    """The tier of a secondary or apex animal card (one that always lies on its prey); None for
    a primary animal or a plant card, which start a chain."""
    animal = find_game(GAME_ID).catalog.animals.get(card.component.id)  # type: ignore[attr-defined]
    tier = animal.species.tier if animal is not None else None
    return tier if tier in (Tier.SECONDARY, Tier.APEX) else None


def place_chains(view: TableView, draft: Draft, again: list[LookAgain], cards: list[Located], area: str) -> dict[str, str]:
    """Place a player's earned cards, each on the card it lies on. A card that may lie on a card
    that was not read is reported and not placed, and so is every card up the chain from it; the
    player's earned cards are then an unknown place, and the scanner is asked to read the missing
    card where it would show. Returns which card lies on which (see ``stacks``)."""
    problems = draft.problems
    on, found, gaps = stacks(cards)
    problems.extend(found)
    for base, shift in gaps:  # the unread cards of a gap lie a fan step apart below its base
        look_along(again, base, range(1, max(2, round(shift / FAN_MM))))
    values = band_textures(view, cards, inside=True)
    reference = float(np.median(values)) if values else 0.0
    tops = [c for c in cards if c.component.id not in on] if reference > 0 else []
    above = dict(zip((c.component.id for c in tops), band_textures(view, tops, inside=False)))
    chain: list[Located] = []
    for card in cards:
        cid, name = card.component.id, card.component.name
        if on.get(cid) == "":
            continue
        if cid in above and above[cid] > _ABOVE_BUSY * reference:
            problems.append(Problem(ProblemCode.FAN_GAP, f"{name} lies fanned below something printed that was not read (a card of the chain?); not placed", (cid,), (card.image_centre,)))
        elif cid not in on and (tier := _predator(card)) is not None:
            problems.append(Problem(ProblemCode.FAN_UNREAD, f"{name} is {_TIER_WORDS[tier]}, which always lies on its prey, but no card was read under it (covered or unreadable); that food chain is not scored in full and {name} is not placed", (cid,), (card.image_centre,)))
        else:
            chain.append(card)
            continue
        look_along(again, card, range(-1, -UNREAD_RUN - 1, -1))
    # A card on a prey that is not placed is not placed either (up the whole chain).
    kept = {c.component.id for c in chain}
    while unsure := [c for c in chain if on.get(c.component.id) and on[c.component.id] not in kept]:
        for card in unsure:
            problems.append(Problem(ProblemCode.FAN_GAP, f"{card.component.name} lies on {_W.name(on[card.component.id])}, which is not placed; not placed", (card.component.id,), (card.image_centre,)))
            kept.discard(card.component.id)
        chain = [c for c in chain if c.component.id in kept]
    if len(chain) < len(cards):  # the score sheet says this player's earned cards are not read in full
        draft.unknown.append(UnknownPlace(area))
    for card in chain:
        draft.placed.append(Placed(Placement(card.component.id, area, None, 0, True, on.get(card.component.id)), card))  # type: ignore[arg-type]
    return on


@cache
def card_shape() -> tuple[float, float, float, float]:
    """An earned card's face size and where its tag's centre lies on it (every animal and plant
    card prints its tag at the same place)."""
    card = next(c for c in find_game(GAME_ID).component_index.values() if c.kind == "card")  # type: ignore[attr-defined]
    x, y = marker_layout(GAME_ID, card).tag.centre_mm
    return float(card.size_mm[0]), float(card.size_mm[1]), float(x), float(y)


def beside(view: TableView, holders: list[Located], legend: Located, area: str) -> list[Spot]:
    """Where the tag of a card laid beside these faces (earned cards, or the player's legend card,
    top edges in line), a gap away to either side, would show, unless a read face lies there: a
    whole chain whose markers did not decode leaves no quad, and nothing else points at it. Each
    place is given on the legend's face (chains lie square to it), whose plain print is what
    "nothing here" looks like: a card's own lower part is covered by the cards fanned on it."""
    faces = [c for c in view.located if not c.component.spaces]
    cw, _, tx, ty = card_shape()
    out = []
    for holder in holders:
        w = holder.component.size_mm[0]
        for x, probes in ((w + BESIDE_GAP_MM + tx, BESIDE_PROBES), (tx - cw - BESIDE_GAP_MM, _BESIDE_MIRRORED)):
            xy = holder.face_point(x, ty)
            if not any(_on_face(f, xy) for f in faces):
                lx, ly = legend.to_face(xy[None])[0]
                out.append(Spot(legend, float(lx), float(ly), area, 6.0, probes))
    return out


def beside_look(spot: Spot) -> LookAgain:
    """The look asked for at a busy place beside a chain: a card's face whose tag lies about the
    probes' middle, searched ``BESIDE_REACH_MM`` about it in the legend's turn."""
    cw, ch, tx, ty = card_shape()
    right = spot.probes is BESIDE_PROBES
    centre = spot.holder.face_point(spot.x_mm - tx + cw / 2, spot.y_mm - ty + ch / 2)  # the neighbour's middle
    tag = spot.holder.face_point(spot.x_mm + (4.0 if right else -4.0), spot.y_mm)  # the probes' middle
    return LookAgain((float(centre[0]), float(centre[1])), (cw, ch), BESIDE_REACH_MM, spot.holder.angle_deg,
                     (float(tag[0]), float(tag[1])))


def _on_face(loc: Located, xy: np.ndarray) -> bool:
    fx, fy = loc.to_face(xy[None])[0]
    w, h = loc.component.size_mm
    return bool(0 <= fx <= w and 0 <= fy <= h)
