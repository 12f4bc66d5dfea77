"""Biomos on the table: planet boards from their anchors, tokens on their spaces, biome cards beside them.

Rulings of this layout:
- A planet board side is located from its anchor tags (or its own tag and QR code); the
  tag names the board, its side (discovery or advanced) and so its planet type.
- A terrain token whose centre lies on a board belongs to the space under it (``P1``-``P12``,
  ``MOON``, and ``R1``/``R2`` on the advanced side). A token on a board but on no space, or
  too close to the border between two spaces, is reported and not placed.
- A token off every board but within ``OFF_BOARD_MM`` of one has slid off that planet: it is
  reported, not placed. Tokens further away and behind every planet in view (the middle of
  the table, across from the players) are the centre row, without cells: a number
  counted along the row would shift when one token is unreadable, putting a token on the
  wrong space, and no rule depends on the order.
- A biome card in front of a board (its centre below the board's middle line, in the board's
  own axes) and within ``CLAIM_MM`` of the board's edge is a biome of that board's player; of
  two boards the nearer wins. Other cards behind every planet in view are the offer,
  without cells (as for the centre row). A card or token that is neither (for instance
  beside a planet that is out of view) is reported, not placed: its area would be a guess.
- A face-down card shows only its kind's back tag (the same on every card back): it is never a
  component. Beside a planet (where a face-up card would be that player's biome) it is an
  unknown place of that player's biomes, reported ``layout/face_down``: the planet's score lacks
  it. Below the Black Hole (solo) likewise for the Black Hole's biomes. In the middle of the
  table it is the draw deck (face down by the rules, scored by nobody): listed with the
  recognition's face-down cards, no problem. Anywhere else it is reported, not placed.
- Solo: the Black Hole card is area ``blackhole``; tokens on it lie ``on`` it; cards near it
  are the biomes it established, and tokens on such a card lie ``on`` that card.
- Without a player list the player at board ``n`` is ``planet<n>``, seats in board order;
  with one, the k-th seat takes the k-th board in board order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import numpy as np

from scoring import find_game
from scoring.model import BoardState, Component, Placement, Player

from ..identify import FaceDown
from . import GameLayout, LayoutResult, Located, Placed, Problem, TablePose, TableView
from .anchored import (
    SPACE_TRUST,
    along,
    face_xy,
    holder,
    is_on,
    nearest,
    pose_at,
    seat_players,
    seen_players,
    space_centre,
    space_hit,
)
from .spaces import Spot, busy_spots, image_point, marker_texture, plain_spot

GAME_ID = "biomos"
PLANET = "planet:"
BIOMES = "biomes:"
CENTRE = "centre"
OFFER = "offer"
BLACKHOLE = "blackhole"
#: A card in front of a board whose centre lies this close to the board's edge is that player's biome.
CLAIM_MM = 170.0
#: A token this close to a board's edge (but off it) has slid off that planet.
OFF_BOARD_MM = 30.0
#: Arranging: gap between neighbouring planet boards.
BOARD_GAP_MM = 120.0
#: Arranging: where tokens may lie on the Black Hole card and on an established biome card
#: without hiding the card's own tag (top left) and QR code (bottom right).
_BLACKHOLE_SPOTS = ((42.0, 17.0), (72.0, 17.0), (42.0, 47.0), (72.0, 47.0), (42.0, 75.0), (102.0, 17.0))
_CARD_SPOTS = ((46.0, 17.0), (28.0, 48.0), (74.5, 17.0))


def _catalog():  # noqa: ANN202 - the game's own catalog type
    return find_game(GAME_ID).catalog  # type: ignore[attr-defined]


def _board_number(component: Component) -> int:
    face = _catalog().by_id.get(component.id)
    return int(getattr(face, "board", 0))


def _is_giant(component: Component) -> bool:
    card = _catalog().by_id.get(component.id)
    return getattr(getattr(card, "kind", None), "value", "") == "giant"


# -- arranging (scene renderer) ------------------------------------------------------------


def arrange(state: BoardState) -> Mapping[str, TablePose]:
    """Planets in a row in seat order, each player's biomes in rows below the planet, the
    centre row of tokens and the offer above, the Black Hole to the right."""
    game = find_game(GAME_ID)
    index = game.component_index  # type: ignore[attr-defined]
    rng = np.random.default_rng(7 + len(state.placements))
    poses: dict[str, TablePose] = {}

    def jitter(limit: float) -> tuple[float, float]:
        return tuple(float(v) for v in np.clip(rng.normal(0, limit / 2, 2), -limit, limit))  # type: ignore[return-value]

    players = sorted(state.players, key=lambda p: p.seat)
    boards: list[tuple[str, Component, TablePose]] = []
    x = 0.0
    for player in players:
        area = PLANET + player.id
        board = next((p for p in state.in_area(area) if index[p.component].kind == "board"), None)
        if board is None:
            continue
        comp = index[board.component]
        w, h = comp.size_mm
        pose = TablePose(x + w / 2, 0.0, float(rng.uniform(-5, 5)))
        poses[comp.id] = pose
        boards.append((player.id, comp, pose))
        for p in state.in_area(area):
            if p.component == comp.id or not isinstance(p.cell, str):
                continue
            sx, sy = space_centre(comp, p.cell)
            dx, dy = jitter(3.0)
            poses[p.component] = pose_at(pose, comp, sx + dx, sy + dy, float(rng.uniform(-180, 180)))
        cards = list(state.in_area(BIOMES + player.id))
        for k, p in enumerate(cards):
            row, col = divmod(k, 3)
            cx, cy = w / 2 + (col - 1) * 98.0, h + 42.0 + row * 70.0
            dx, dy = jitter(3.0)
            poses[p.component] = pose_at(pose, comp, cx + dx, cy + dy, float(rng.uniform(-4, 4)))
        x += w + BOARD_GAP_MM
    width = max(x - BOARD_GAP_MM, 400.0)
    top = -(boards[0][1].size_mm[1] / 2 if boards else 110.0)

    centre = [p for p in state.in_area(CENTRE)]
    centre.sort(key=lambda p: (p.cell is None, str(p.cell)))
    for k, p in enumerate(centre):
        dx, dy = jitter(2.0)
        poses[p.component] = TablePose(width / 2 + (k - 2) * 38.0 + dx, top - 50.0 + dy, float(rng.uniform(-180, 180)))
    offer = [p for p in state.in_area(OFFER)]
    basic = sorted((p for p in offer if not _is_giant(index[p.component])), key=lambda p: (p.cell is None, str(p.cell)))
    giant = sorted((p for p in offer if _is_giant(index[p.component])), key=lambda p: (p.cell is None, str(p.cell)))
    row = basic + giant
    for k, p in enumerate(row):
        dx, dy = jitter(3.0)
        poses[p.component] = TablePose(
            width / 2 + (k - (len(row) - 1) / 2) * 96.0 + dx, top - 115.0 + dy, float(rng.uniform(-4, 4))
        )

    hole = next((p for p in state.in_area(BLACKHOLE) if index[p.component].kind == "blackhole"), None)
    if hole is not None:
        comp = index[hole.component]
        w, h = comp.size_mm
        pose = TablePose(x + w / 2 + 10.0, 0.0, float(rng.uniform(-4, 4)))
        poses[comp.id] = pose
        on_hole = [p for p in state.in_area(BLACKHOLE) if p.on == comp.id]
        for k, p in enumerate(on_hole):
            sx, sy = _BLACKHOLE_SPOTS[k % len(_BLACKHOLE_SPOTS)]
            poses[p.component] = pose_at(pose, comp, sx, sy, float(rng.uniform(-180, 180)))
        established = [p for p in state.in_area(BLACKHOLE) if p.on is None and index[p.component].kind == "card"]
        for k, p in enumerate(established):
            row, col = divmod(k, 2)
            cpose = pose_at(pose, comp, w / 2 + (col - 0.5) * 96.0, h + 45.0 + row * 72.0, float(rng.uniform(-3, 3)))
            poses[p.component] = cpose
            card = index[p.component]
            absorbed = [q for q in state.in_area(BLACKHOLE) if q.on == p.component]
            for j, q in enumerate(absorbed):
                sx, sy = _CARD_SPOTS[j % len(_CARD_SPOTS)]
                poses[q.component] = pose_at(cpose, card, sx, sy, float(rng.uniform(-180, 180)))
    return poses


# -- reading (scanner) ---------------------------------------------------------------------


def _in_the_middle(boards: list[Located], xy: tuple[float, float]) -> bool:
    """The middle of the table lies beyond the far edge of every planet (across from its
    player); with no planet in view nothing tells where the middle is. Beside a planet's far
    half is not the middle: the solo Black Hole lies there, and a token on an unread Black
    Hole must not be read as a centre-row token."""
    return bool(boards) and all(float(face_xy(b, xy)[1]) < 0.0 for b in boards)


def _in_front(keeper: Located, xy: tuple[float, float]) -> bool:
    """A card lies on the player's side of a board (or below the Black Hole), not across the table,
    and (for a board) in front of its width: a card beside the board may be one the Black Hole
    established, whose card was not read."""
    fx, fy = (float(v) for v in face_xy(keeper, xy))
    w, h = keeper.component.size_mm
    if fy <= h / 2:
        return False
    return keeper.component.kind == "blackhole" or 0.0 <= fx <= w


def _keeper(owned: list[Located], hole: Located | None, xy: tuple[float, float]) -> tuple[Located | None, float]:
    """The board (or Black Hole) a card at ``xy`` lies in front of, nearest first, and how far off it lies."""
    keepers = [k for k in owned + ([hole] if hole is not None else []) if _in_front(k, xy)]
    return nearest(keepers, xy)


def _face_down_card(
    fd: FaceDown, owned: list[Located], hole: Located | None, by_board: Mapping[str, Player]
) -> tuple[str | None, Problem | None]:
    """Where a face-down biome card lies, as an area with an unknown card (None: nobody's) and a problem."""
    point = (fd.image_centre,)
    if fd.centre_mm is None:
        return None, Problem("layout/face_down", "a face-down biome card lies on the table, but no component shows where; not scored", (), point)
    near, dist = _keeper(owned, hole, fd.centre_mm)
    if near is not None and dist <= CLAIM_MM:
        if near is hole:
            message = f"a face-down biome card lies below {near.component.id}: which biome it is cannot be read; the Black Hole's score lacks it until it is turned face up"
            return BLACKHOLE, Problem("layout/face_down", message, (), point)
        player = by_board[near.component.id]
        message = (
            f"a face-down biome card lies beside {near.component.id} ({player.name or player.id}): which biome it is"
            " cannot be read; that player's score lacks it until it is turned face up"
        )
        return BIOMES + player.id, Problem("layout/face_down", message, (), point)
    if _in_the_middle(owned, fd.centre_mm):
        return None, None  # the draw deck: face down by the rules, nobody's score
    message = "a face-down biome card lies neither beside a planet nor in the middle of the table; not scored"
    return None, Problem("layout/face_down", message, (), point)


def read(view: TableView) -> LayoutResult:
    """Planets, biomes, the centre row, the offer and (solo) the Black Hole from positioned components."""
    problems: list[Problem] = []
    placed: list[Placed] = []
    unknown: list[Placement] = []
    fits: list[float] = []

    boards = sorted(view.of_kind("board"), key=lambda b: (_board_number(b.component), b.component.id))
    owners = [(b.component.id, f"planet{_board_number(b.component)}", f"Planet {_board_number(b.component)}") for b in boards]
    players, by_board = seat_players(view, owners)
    players, missing = seen_players(players, by_board, "planet board")
    problems.extend(missing)
    owned = [b for b in boards if b.component.id in by_board]
    for b in boards:
        if b.component.id not in by_board:
            problems.append(Problem("layout/board_of_nobody", f"{b.component.id} belongs to no player of this game; its tokens are not placed", (b.component.id,), (b.image_centre,)))
            continue
        placed.append(Placed(Placement(b.component.id, PLANET + by_board[b.component.id].id), b))
    holes = list(view.of_kind("blackhole"))
    hole = holes[0] if holes else None
    if hole is not None:
        placed.append(Placed(Placement(hole.component.id, BLACKHOLE), hole))
    axis = owned[0].angle_deg if owned else 0.0

    # Biome cards: beside a board (or the Black Hole) they are claimed, otherwise offered.
    claimed_by_hole: list[Located] = []
    offer: list[Located] = []
    for card in view.of_kind("card"):
        near, dist = _keeper(owned, hole, card.centre_mm)
        if near is None or dist > CLAIM_MM:
            if _in_the_middle(owned, card.centre_mm):
                offer.append(card)
            else:
                problems.append(Problem("layout/unplaced", f"{card.component.id} lies neither beside a planet nor in the middle of the table; not placed", (card.component.id,), (card.image_centre,)))
        elif near is hole:
            claimed_by_hole.append(card)
            placed.append(Placed(Placement(card.component.id, BLACKHOLE), card))
        else:
            placed.append(Placed(Placement(card.component.id, BIOMES + by_board[near.component.id].id), card))
    for card in along(offer, axis):
        placed.append(Placed(Placement(card.component.id, OFFER), card))
    for fd in view.face_down:
        if fd.kind == "card":
            area, problem = _face_down_card(fd, owned, hole, by_board)
            if area is not None:
                unknown.append(Placement("?", area))  # type: ignore[arg-type]
            if problem is not None:
                problems.append(problem)

    # Terrain tokens: planet spaces, the Black Hole, established biomes, or the centre row.
    centre: list[Located] = []
    for token in view.of_kind("token"):
        xy = token.centre_mm
        board = holder(owned, xy)
        if board is not None:
            area = PLANET + by_board[board.component.id].id
            hit = space_hit(board, xy)
            if hit is None:
                problems.append(Problem("layout/off_space", f"{token.component.id} lies on {board.component.id} but on none of its spaces; not placed", (token.component.id,), (token.image_centre,)))
                continue
            if hit.offset > SPACE_TRUST:
                problems.append(Problem("layout/between_spaces", f"{token.component.id} lies on the border of space {hit.space.name}; not placed", (token.component.id,), (token.image_centre,)))
                continue
            fits.append(1.0 - max(0.0, hit.offset - 0.4))
            placed.append(Placed(Placement(token.component.id, area, hit.space.name), token))
            continue
        if hole is not None and is_on(hole, xy):
            placed.append(Placed(Placement(token.component.id, BLACKHOLE, None, 0, True, hole.component.id), token))
            continue
        card = holder(claimed_by_hole, xy)
        if card is not None:
            placed.append(Placed(Placement(token.component.id, BLACKHOLE, None, 0, True, card.component.id), token))
            continue
        if holder(view.of_kind("card"), xy) is not None:
            problems.append(Problem("layout/token_on_card", f"{token.component.id} lies on a biome card; not placed", (token.component.id,), (token.image_centre,)))
            continue
        near, dist = nearest(owned, xy)
        if near is not None and dist <= OFF_BOARD_MM:
            problems.append(Problem("layout/off_board", f"{token.component.id} lies just off {near.component.id} (slid off the planet?); not placed", (token.component.id,), (token.image_centre,)))
            continue
        if not _in_the_middle(owned, token.centre_mm):
            problems.append(Problem("layout/unplaced", f"{token.component.id} lies on no planet and not in the middle of the table; not placed", (token.component.id,), (token.image_centre,)))
            continue
        centre.append(token)
    for token in along(centre, axis):
        placed.append(Placed(Placement(token.component.id, CENTRE), token))

    # Markers that did not decode on a planet space are unknown places of that planet.
    # A quad on a space that looks like the plain printed space is its outline, not a token.
    taken = {(p.placement.area, p.placement.cell) for p in placed}
    reference = marker_texture(view, owned + list(view.of_kind("token")))
    for u in view.unreadable:
        if u.centre_mm is None:
            continue
        board = holder(owned, u.centre_mm)
        if board is None:
            continue
        hit = space_hit(board, u.centre_mm)
        area = PLANET + by_board[board.component.id].id
        if hit is not None and plain_spot(view, Spot(board, hit.space.x_mm, hit.space.y_mm, (area, hit.space.name)), reference):
            continue
        if hit is not None and (area, hit.space.name) not in taken:
            taken.add((area, hit.space.name))
            unknown.append(Placement("?", area, hit.space.name))  # type: ignore[arg-type]
            problems.append(Problem("layout/unreadable", f"the token on {hit.space.name} of {board.component.id} could not be read", (), (u.image_centre,)))
    # Spaces that look as busy as a printed tag hold a token that did not even show as a quad.
    spots = [
        Spot(board, s.x_mm, s.y_mm, (PLANET + by_board[board.component.id].id, s.name))
        for board in owned
        for s in board.component.spaces
        if (PLANET + by_board[board.component.id].id, s.name) not in taken
    ]
    for spot in busy_spots(view, spots, reference):
        area, cell = spot.key  # type: ignore[misc]
        unknown.append(Placement("?", area, cell))  # type: ignore[arg-type]
        problems.append(Problem("layout/unread_token", f"something lies on {cell} of {spot.holder.component.id} that could not be read; that space is not scored", (), (image_point(spot),)))
    confidence = float(np.mean(fits)) if fits else (1.0 if owned or not view.located else 0.5)
    return LayoutResult(players, tuple(placed), tuple(unknown), tuple(problems), confidence)


def canonical(state: BoardState) -> BoardState:
    """The state as the scanner can report it: a face-down card shows only its back, so it is
    an unknown card of its player's biomes (or the Black Hole's), never the card itself; the
    centre row and the offer have no cells."""

    def shown(p: Placement) -> Placement:
        return replace(p, cell=None) if p.area in (CENTRE, OFFER) else p

    hidden = tuple(
        Placement("?", p.area)  # type: ignore[arg-type]
        for p in state.placements
        if not p.face_up and (p.area.startswith(BIOMES) or p.area == BLACKHOLE)
    )
    return replace(
        state,
        placements=tuple(shown(p) for p in state.placements if p.face_up),
        unknown=tuple(state.unknown) + hidden,
    )


LAYOUT = GameLayout(GAME_ID, read, arrange)
