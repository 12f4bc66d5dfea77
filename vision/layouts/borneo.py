"""BIOME Borneo on the table: platforms and their hex slots, plant tiles with rotation, fanned food chains.

Rulings of this layout:
- Each layer platform is located from its anchor tags (or its own markers); its tag names the
  platform and so its layer. A plant tile whose centre lies on a platform takes the slot
  under it; its rotation is counted in clockwise sixth turns from the platform's upright
  (the edges' plants depend on it). A tile on a platform but on no slot, or on the border of
  two slots, is reported and not placed.
- The scanner reads platforms lying flat on the table (the 3-D formation is photographed one
  layer at a time, or laid out flat): every platform carries its own anchors, so each layer
  is read on its own.
- Each player's legend card marks their place at the table (area ``table``). Plant tiles off
  the platforms within ``HAND_MM`` of a legend are that player's hand; earned animal and plant
  cards lie within ``EARNED_MM`` of the player's legend.
- Earned cards are fanned food chains, each card on the card it eats (``borneo_chains``): a
  card that may lie on a card that was not read, such as a secondary or apex animal on no read
  card, is reported and not placed. Partly covered cards are named by whichever marker shows.
- Animal, plant and ability cards near no legend, lying apart (not fanned) within
  ``GALLERY_MM`` of a platform, are the gallery; any other card near no legend is reported,
  not placed (its player's legend may be out of view). Global bonus cards are area
  ``bonus``; layer mounts belong to the ``jungle``. Face-down tiles and cards carry no
  marker and are not seen.
- Without a player list the player at legend ``n`` is ``player<n>``, seats in legend order;
  with one, the k-th seat takes the k-th legend in legend order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from functools import cache, partial

import numpy as np

from scoring import find_game
from scoring.borneo.game import Area
from scoring.model import BoardState, Placement, Player, UnknownPlace
from scoring.words import Words

from ..problems import ProblemCode
from . import (
    Draft,
    GameLayout,
    LayoutResult,
    Located,
    LookAgain,
    Placed,
    Problem,
    TablePose,
    TableView,
)
from .anchored import (
    SPACE_TRUST,
    holder,
    nearest,
    pose_at,
    seat_players,
    space_centre,
    space_hit,
    steps_from,
)
from .borneo_chains import FAN_MM, UNREAD_RUN, beside_look, fanned_on, look_along, place_chains, stacks
from .borneo_chains import beside as beside_spots
from .spaces import (
    Spot,
    busy_spots,
    image_point,
    marker_texture,
    plain_spot,
    remembering,
)

GAME_ID = "borneo"
JUNGLE = Area.JUNGLE.value
TABLE = Area.TABLE.value
GALLERY = Area.GALLERY.value
BONUS = Area.BONUS.value
HAND = Area.HAND.value + ":"
EARNED = Area.EARNED.value + ":"
PLATFORM = Area.PLATFORM.value + ":"
#: Tiles off the platforms this close to a legend card's edge are that player's hand.
HAND_MM = 250.0
#: Earned cards lie this close to their player's legend card's edge.
EARNED_MM = 400.0
#: Gallery cards lie this close to a platform's edge.
GALLERY_MM = 250.0
#: Where a plant tile's tag and QR code lie from its centre (13 mm either side), whichever
#: sixth turn it lies in: the squares probed on a free slot for a tile that was not read.
_TILE_RING = tuple(
    (round(13.0 * float(np.cos(np.radians(a))), 2), round(13.0 * float(np.sin(np.radians(a))), 2)) for a in range(0, 360, 60)
)
#: Arranging: the flat formation of platforms (centre positions in mm) and the mounts' column.
_FORMATION = {"E1": (250.0, 0.0), "C1": (0.0, 235.0), "C2": (250.0, 235.0), "C3": (500.0, 235.0),
              "U1": (0.0, 470.0), "U2": (250.0, 470.0), "U3": (500.0, 470.0)}

#: How problems name components and spaces: printed names and the pad's words.
_W = Words("borneo", {})


def _catalog():  # noqa: ANN202 - the game's own catalog type
    return find_game(GAME_ID).catalog  # type: ignore[attr-defined]


def _legend_number(loc_id: str) -> int:
    tail = loc_id.rsplit("-", 1)[-1]
    return int(tail) if tail.isdigit() else 0


# -- arranging (scene renderer) ------------------------------------------------------------


def arrange(state: BoardState) -> Mapping[str, TablePose]:
    """Platforms flat in the classic formation, each player's legend, stacks and hand below it,
    the gallery and bonus cards to its right."""
    game = find_game(GAME_ID)
    index = game.component_index  # type: ignore[attr-defined]
    rng = np.random.default_rng(13 + len(state.placements))
    poses: dict[str, TablePose] = {}

    def jitter(limit: float) -> tuple[float, float]:
        v = np.clip(rng.normal(0, limit / 2, 2), -limit, limit)
        return float(v[0]), float(v[1])

    mounts = 0
    for p in state.in_area(JUNGLE):
        comp = index[p.component]
        if p.component in _FORMATION:
            x, y = _FORMATION[p.component]
            poses[p.component] = TablePose(x, y, float(rng.uniform(-4, 4)))
        else:
            poses[p.component] = TablePose(-190.0, -60.0 + 55.0 * mounts, float(rng.uniform(-5, 5)))
            mounts += 1
        del comp
    for p in state.placements:
        if p.area.startswith(PLATFORM) and isinstance(p.cell, str):
            platform = p.area[len(PLATFORM):]
            pose = poses.get(platform)
            if pose is None:
                continue
            sx, sy = space_centre(index[platform], p.cell)
            dx, dy = jitter(2.5)
            poses[p.component] = pose_at(pose, index[platform], sx + dx, sy + dy, 60.0 * p.rotation + float(rng.normal(0, 1.5)))

    platforms_bottom = max((poses[k].y_mm for k in _FORMATION if k in poses), default=-200.0) + 105.0
    legends = sorted((p for p in state.in_area(TABLE) if index[p.component].kind == "legend"), key=lambda p: _legend_number(p.component))
    players = sorted(state.players, key=lambda p: p.seat)
    x = -110.0
    for player, legend in zip(players, legends):
        lw, lh = index[legend.component].size_mm
        top = platforms_bottom + 60.0
        lpose = TablePose(x + lw / 2, top + lh / 2, float(rng.uniform(-3, 3)))
        poses[legend.component] = lpose
        earned = state.in_area(EARNED + player.id)
        above = {p.on: p for p in earned if p.on is not None}
        bottoms = [p for p in earned if p.on is None]
        col_x = x + lw + 15.0
        for base in bottoms:
            chain = [base]
            while chain[-1].component in above:
                chain.append(above[chain[-1].component])
            cw, ch = index[base.component].size_mm
            angle = float(rng.uniform(-3, 3))
            bx, by = col_x + cw / 2, top + ch / 2
            for k, card in enumerate(chain):
                dx, dy = jitter(1.5)
                v = np.array([dx, k * FAN_MM + dy])
                a = np.radians(angle)
                rx = float(np.cos(a) * v[0] - np.sin(a) * v[1])
                ry = float(np.sin(a) * v[0] + np.cos(a) * v[1])
                poses[card.component] = TablePose(bx + rx, by + ry, angle + float(rng.normal(0, 1.0)))
            col_x += cw + 10.0
        hand = state.in_area(HAND + player.id)
        for k, p in enumerate(hand):
            if index[p.component].kind != "tile":
                continue
            dx, dy = jitter(2.0)
            poses[p.component] = TablePose(x + 40.0 + 76.0 * k + dx, top + lh + 50.0 + dy, float(rng.uniform(-8, 8)))
        x = max(col_x, x + lw + 76.0 * len(hand)) + 60.0

    right = max((poses[k].x_mm for k in _FORMATION if k in poses), default=0.0) + 110.0 + 60.0
    for row, area in enumerate((GALLERY, BONUS)):
        for k, p in enumerate(state.in_area(area)):
            w, h = index[p.component].size_mm
            dx, dy = jitter(3.0)
            poses[p.component] = TablePose(right + w / 2 + row * (w + 15.0) + dx, -60.0 + k * (h + 15.0) + dy, float(rng.uniform(-4, 4)))
    return poses


# -- reading (scanner) ---------------------------------------------------------------------


def _report(problems: list[Problem], code: ProblemCode, loc: Located, message: str) -> None:
    problems.append(Problem(code, f"{loc.component.name} {message}; not placed", (loc.component.id,), (loc.image_centre,)))


def read(view: TableView) -> LayoutResult:
    """Platforms, plant tiles and rotations, hands, fanned food chains, the gallery and bonus cards."""
    view = remembering(view)
    draft = Draft()
    placed, unknown, problems, fits = draft.placed, draft.unknown, draft.problems, draft.fits
    again: list[LookAgain] = []
    legends = sorted(view.of_kind("legend"), key=lambda c: _legend_number(c.component.id))
    owners = [(c.component.id, f"player{_legend_number(c.component.id)}", f"Player {_legend_number(c.component.id)}") for c in legends]
    players, by_legend = seat_players(view, owners)
    seated = [c for c in legends if c.component.id in by_legend]
    for c in legends:
        placed.append(Placed(Placement(c.component.id, TABLE), c))
    platforms = [c for c in view.of_kind("board")]
    for c in platforms + list(view.of_kind("mount")):
        placed.append(Placed(Placement(c.component.id, JUNGLE), c))

    _tiles(view, draft, platforms, seated, by_legend)
    _cards(view, draft, again, platforms, seated, by_legend)
    for card in view.of_kind("bonus"):
        placed.append(Placed(Placement(card.component.id, BONUS), card))
    _unread_slots(view, draft, platforms)
    confidence = float(np.mean(fits)) if fits else (1.0 if platforms or not view.located else 0.5)
    return LayoutResult(players, tuple(placed), tuple(unknown), tuple(problems), confidence, look_again=tuple(again))


def _tiles(view: TableView, draft: Draft, platforms: list[Located], seated: list[Located], by_legend: dict[str, Player]) -> None:
    """Plant tiles: on a platform's slot, turned to its edges, or in a player's hand beside their legend."""
    placed, problems, fits = draft.placed, draft.problems, draft.fits
    slotted = _slotted_off_platforms([t for t in view.of_kind("tile") if holder(platforms, t.centre_mm) is None])
    if slotted:  # a platform lies there whose markers were not read: the jungle is not read in full
        draft.unknown.append(UnknownPlace(JUNGLE))
    for tile in view.of_kind("tile"):
        xy = tile.centre_mm
        platform = holder(platforms, xy)
        if tile.component.id in slotted:
            _report(problems, ProblemCode.UNPLACED, tile, f"lies edge to edge with {_W.name(slotted[tile.component.id])} as on a "
                    "platform's slots, but no platform was read under them (a platform whose markers are unreadable?)")
            continue
        if platform is not None:
            hit = space_hit(platform, xy)
            if hit is None:
                _report(problems, ProblemCode.OFF_SLOT, tile, f"lies on {platform.component.name} but on none of its slots")
                continue
            if hit.offset > SPACE_TRUST:
                _report(problems, ProblemCode.BETWEEN_SPACES, tile, f"lies across the border of {_W.space(hit.space.name)} of {platform.component.name}")
                continue
            turns, err = steps_from(tile, platform.angle_deg, 60.0)
            if err > 20.0:
                _report(problems, ProblemCode.ROTATION_UNCLEAR, tile, f"lies {err:.0f} degrees off its slot's edges")
                continue
            fits.append(1.0 - max(0.0, hit.offset - 0.4))
            placed.append(Placed(Placement(tile.component.id, PLATFORM + platform.component.id, hit.space.name, turns), tile))
            continue
        legend, dist = nearest(seated, xy)
        if legend is not None and dist <= HAND_MM:
            placed.append(Placed(Placement(tile.component.id, HAND + by_legend[legend.component.id].id), tile))
            continue
        _report(problems, ProblemCode.LOOSE, tile, "lies on no platform and near no player's legend card")


#: Plant tiles on a platform lie edge to edge, their centres a slot pitch apart (the platforms'
#: hex slots), give or take this much (mm) and this many degrees off a slot's direction.
_SLOT_SLACK_MM = 4.0
_SLOT_SLACK_DEG = 10.0


@cache
def _slot_pitch() -> float:
    """The distance between the centres of neighbouring slots of a platform."""
    board = next(c for c in find_game(GAME_ID).component_index.values() if c.kind == "board")  # type: ignore[attr-defined]
    xy = np.array([[s.x_mm, s.y_mm] for s in board.spaces])
    d = np.linalg.norm(xy[:, None] - xy[None], axis=2)
    return float(d[d > 0].min())


def _slotted_off_platforms(loose: list[Located]) -> dict[str, str]:
    """Plant tiles off every read platform that lie edge to edge as a platform's slots hold them
    (a slot pitch apart, in a slot's direction from the tile's own edges), each with one such
    neighbour: they lie on a platform whose markers were not read, not in a player's hand."""
    pitch, out = _slot_pitch(), {}
    for a in loose:
        for b in loose:
            if a is b:
                continue
            dx, dy = np.subtract(b.centre_mm, a.centre_mm)
            heading = np.degrees(np.arctan2(dy, dx)) - a.angle_deg - 90.0  # slot directions: 90 + 60k off a tile's x axis
            off = abs((heading + 30.0) % 60.0 - 30.0)
            if abs(float(np.hypot(dx, dy)) - pitch) <= _SLOT_SLACK_MM and off <= _SLOT_SLACK_DEG:
                out[a.component.id] = b.component.id
    return out


def _cards(view: TableView, draft: Draft, again: list[LookAgain], platforms: list[Located], seated: list[Located],
           by_legend: dict[str, Player]) -> None:
    """Earned cards fanned into food chains beside their legend, and the gallery beside the jungle."""
    cat = _catalog()
    placed, unknown, problems = draft.placed, draft.unknown, draft.problems
    earned: dict[str, list[Located]] = {}
    gallery: list[Located] = []
    for card in view.of_kind("card"):
        earnable = cat.earnable(card.component.id) is not None
        legend, dist = nearest(seated, card.centre_mm)
        if earnable and legend is not None and dist <= EARNED_MM:
            earned.setdefault(by_legend[legend.component.id].id, []).append(card)
            continue
        action = cat.actions.get(card.component.id)
        if earnable or (action is not None and getattr(action.kind, "value", "") == "ability"):
            gallery.append(card)
            continue
        _report(problems, ProblemCode.NOT_READ, card, "is a card the table layout does not place (a deck or discard card?)")
    # The gallery lies beside the jungle, one card apart from the next: a card far from every
    # platform, or fanned with others (a food chain whose legend is out of view), is not guessed.
    fanned, _, _ = stacks(gallery)
    in_fan = set(fanned) | {base for base in fanned.values() if base}
    for card in gallery:
        _, dist = nearest(platforms, card.centre_mm)
        if card.component.id in in_fan or dist > GALLERY_MM:
            _report(problems, ProblemCode.UNPLACED, card, "lies near no legend card and is not laid out beside the jungle")
            continue
        placed.append(Placed(Placement(card.component.id, GALLERY), card))
    chain_gaps: list[Spot] = []
    beside: list[Spot] = []
    for pid, cards in earned.items():
        on = place_chains(view, draft, again, cards, EARNED + pid)
        chain_gaps += fanned_on(cards, set(on.values()), EARNED + pid)
        legend = next(c for c in seated if by_legend[c.component.id].id == pid)
        beside += beside_spots(view, cards, legend, EARNED + pid)
    for legend in seated:
        if by_legend[legend.component.id].id not in earned:
            beside += beside_spots(view, [legend], legend, EARNED + by_legend[legend.component.id].id)
    card_reference = partial(marker_texture, view, [c for cards in earned.values() for c in cards], 6.0)
    placed_ids = {p.placement.component for p in placed}
    for spot in busy_spots(view, chain_gaps, card_reference):
        below = spot.holder.component.id
        unknown.append(UnknownPlace(str(spot.key), None, below if below in placed_ids else None))
        problems.append(Problem(ProblemCode.FAN_UNREAD, f"a card lies fanned on {_W.name(below)} that could not be read; that food chain is not scored in full", (), (image_point(spot),)))
        look_along(again, spot.holder, range(1, UNREAD_RUN + 1))
    beside_reference = partial(marker_texture, view, [c for cards in earned.values() for c in cards] + seated, 6.0)
    for spot in busy_spots(view, beside, beside_reference):
        again.append(beside_look(spot))


def _unread_slots(view: TableView, draft: Draft, platforms: list[Located]) -> None:
    """Slots of a platform holding a tile that was not read: unknown places there."""
    placed, unknown, problems = draft.placed, draft.unknown, draft.problems
    # Markers that did not decode on a slot of a platform are unknown places there.
    taken = {(p.placement.area, p.placement.cell) for p in placed}
    tile_reference = partial(marker_texture, view, platforms + list(view.of_kind("tile")), 6.0)
    for u in view.unreadable:
        if u.centre_mm is None:
            continue
        platform = holder(platforms, u.centre_mm)
        if platform is None:
            continue
        hit = space_hit(platform, u.centre_mm)
        if hit is None:
            continue
        key = (PLATFORM + platform.component.id, hit.space.name)
        if plain_spot(view, Spot(platform, hit.space.x_mm, hit.space.y_mm, key, 6.0, _TILE_RING), tile_reference):
            continue  # the slot's own printed outline, not a tile
        if key not in taken:
            taken.add(key)
            unknown.append(UnknownPlace(key[0], key[1]))
            problems.append(Problem(ProblemCode.UNREADABLE, f"the tile on {_W.space(hit.space.name)} of {platform.component.name} could not be read", (), (u.image_centre,)))
    # Free slots that look as busy as a printed tag hold a tile that did not even show as a quad.
    spots = [
        Spot(platform, s.x_mm, s.y_mm, (PLATFORM + platform.component.id, s.name), 6.0, _TILE_RING)
        for platform in platforms
        for s in platform.component.spaces
        if (PLATFORM + platform.component.id, s.name) not in taken
    ]
    for spot in busy_spots(view, spots, tile_reference):
        area, cell = spot.key  # type: ignore[misc]
        unknown.append(UnknownPlace(area, cell))
        problems.append(Problem(ProblemCode.UNREAD_TILE, f"something lies on {_W.space(str(cell))} of {spot.holder.component.name} that could not be read; that slot is not scored", (), (image_point(spot),)))


def canonical(state: BoardState) -> BoardState:
    """The state as the scanner can report it: the deck, the discard pile, the box, the face-down
    supply and cards held in hand are not on the table in view and are left out."""
    index = find_game(GAME_ID).component_index  # type: ignore[attr-defined]

    def shown(p: Placement) -> bool:
        if not p.face_up or p.area in ("deck", "discard", "box", "supply"):
            return False
        return not (p.area.startswith(HAND) and index[p.component].kind != "tile")

    return replace(state, placements=tuple(p for p in state.placements if shown(p)))


LAYOUT = GameLayout(GAME_ID, read, arrange, square_neighbours=True)
