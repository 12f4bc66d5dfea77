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
- Seen but not read (looked at again, read whole, by the scanner): a place on the Black Hole or
  a card it established that looks as busy as a printed tag (on a card, whose face is plainer,
  a fifth as busy as the read markers), off every read token, holds an unread token: an
  unknown place of the Black Hole, reported ``layout/unread_token``. A busy
  place in front of a planet, off every read face, may be an unread biome card or a sheet of
  notes: reported ``layout/unread_card``, never counted as an unknown biome.
- Without a player list the player at board ``n`` is ``planet<n>``, seats in board order;
  with one, the k-th seat takes the k-th board in board order.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from functools import cache

import numpy as np

from scoring import find_game
from scoring.biomos.table import Area
from scoring.model import BoardState, Component, Placement, Player, UnknownPlace
from scoring.words import Words

from ..identify import FaceDown
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
    probe_all,
)
from .anchored import (
    EDGE_MM,
    SPACE_TRUST,
    along,
    face_xy,
    holder,
    is_on,
    nearest,
    pose_at,
    quick_face_xy,
    seat_players,
    seen_players,
    space_centre,
    space_hit,
    table_points,
    table_squares,
    table_to_face,
)
from .spaces import (
    MARKER_RATIO,
    PLAIN_RATIO,
    PROBE_HALF_MM,
    Spot,
    busy_spots,
    free_points,
    image_point,
    marker_texture,
    plain_spot,
)

GAME_ID = "biomos"
PLANET = Area.PLANET.value + ":"
BIOMES = Area.BIOMES.value + ":"
CENTRE = Area.CENTRE.value
OFFER = Area.OFFER.value
BLACKHOLE = Area.BLACKHOLE.value
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
#: Reading: places where a token may lie on the Black Hole and its cards are probed on a grid
#: this fine (face mm): some point of it lies within a token's tag wherever the token lies.
TOKEN_PITCH_MM = 12.0
#: ...off every read token by this much (face mm: the probe's half side and some blur).
TOKEN_CLEAR_MM = 8.0
#: ...and at least this many times busier than most of the card's free face (its print).
PRINT_RATIO = 2.0
#: A place on a biome card (one the Black Hole established) holds a token at this fraction of
#: the markers' texture (and twice the cards' print).
CARD_MARKER_RATIO = 0.2
#: Reading: in front of a planet, places where an unread biome card may lie are probed this far
#: apart (table mm) with squares of this half side: inside a card's tag or QR code wherever it lies.
CARD_PITCH_MM = 26.0
CARD_PROBE_MM = 11.0
#: Busy places closer than this (a fraction of the face's short side) are one face.
ONE_FACE = 0.85


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
    return bool(boards) and all(_face_y(b, xy) < 0.0 for b in boards)


def _face_y(loc: Located, xy: tuple[float, float]) -> float:
    """``face_xy``'s y in plain floats (exact where it is within rounding of 0)."""
    fy = quick_face_xy(loc, xy)[1]
    return float(face_xy(loc, xy)[1]) if abs(fy) < EDGE_MM else fy


def _in_front(keeper: Located, xy: tuple[float, float]) -> bool:
    """A card lies on the player's side of a board (or below the Black Hole), not across the table,
    and (for a board) in front of its width: a card beside the board may be one the Black Hole
    established, whose card was not read."""
    fx, fy = quick_face_xy(keeper, xy)
    w, h = keeper.component.size_mm
    if min(abs(fy - h / 2), abs(fx), abs(fx - w)) < EDGE_MM:  # within rounding of an edge: the exact value decides
        fx, fy = (float(v) for v in face_xy(keeper, xy))
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
        return None, Problem(ProblemCode.FACE_DOWN, "a face-down biome card lies on the table, but no component shows where; not scored", (), point)
    near, dist = _keeper(owned, hole, fd.centre_mm)
    if near is not None and dist <= CLAIM_MM:
        if near is hole:
            message = f"a face-down biome card lies below {near.component.name}: which biome it is cannot be read; the Black Hole's score lacks it until it is turned face up"
            return BLACKHOLE, Problem(ProblemCode.FACE_DOWN, message, (), point)
        player = by_board[near.component.id]
        message = f"a face-down biome card lies beside {near.component.name}, {player.name or player.id}'s planet: which biome it is cannot be read; that player's score lacks it until it is turned face up"
        return BIOMES + player.id, Problem(ProblemCode.FACE_DOWN, message, (), point)
    if _in_the_middle(owned, fd.centre_mm):
        return None, None  # the draw deck: face down by the rules, nobody's score
    message = "a face-down biome card lies neither beside a planet nor in the middle of the table; not scored"
    return None, Problem(ProblemCode.FACE_DOWN, message, (), point)


def read(view: TableView) -> LayoutResult:
    """Planets, biomes, the centre row, the offer and (solo) the Black Hole from positioned components."""
    draft = Draft()
    placed, unknown, problems, fits = draft.placed, draft.unknown, draft.problems, draft.fits
    boards = sorted(view.of_kind("board"), key=lambda b: (_board_number(b.component), b.component.id))
    owners = [(b.component.id, f"planet{_board_number(b.component)}", f"Planet {_board_number(b.component)}") for b in boards]
    players, by_board = seat_players(view, owners)
    players, missing = seen_players(players, by_board, "planet board")
    problems.extend(missing)
    owned = [b for b in boards if b.component.id in by_board]
    for b in boards:
        if b.component.id not in by_board:
            problems.append(Problem(ProblemCode.BOARD_OF_NOBODY, f"{b.component.name} belongs to no player of this game; its tokens are not placed", (b.component.id,), (b.image_centre,)))
            continue
        placed.append(Placed(Placement(b.component.id, PLANET + by_board[b.component.id].id), b))
    hole = next(iter(view.of_kind("blackhole")), None)
    if hole is not None:
        placed.append(Placed(Placement(hole.component.id, BLACKHOLE), hole))
    axis = owned[0].angle_deg if owned else 0.0

    claimed_by_hole = _cards(view, draft, owned, hole, by_board, axis)
    _tokens(view, draft, owned, hole, claimed_by_hole, by_board, axis)
    again = _unread(view, draft, owned, hole, claimed_by_hole, by_board, players)
    confidence = float(np.mean(fits)) if fits else (1.0 if owned or not view.located else 0.5)
    return LayoutResult(players, tuple(placed), tuple(unknown), tuple(problems), confidence, look_again=tuple(again))


def _cards(view: TableView, draft: Draft, owned: list[Located], hole: Located | None, by_board: dict[str, Player],
           axis: float) -> list[Located]:
    """Biome cards: beside a board (or the Black Hole) they are claimed, otherwise offered; face
    down, an unknown place of their keeper. Returns the cards the Black Hole claimed."""
    placed, unknown, problems = draft.placed, draft.unknown, draft.problems
    claimed_by_hole: list[Located] = []
    offer: list[Located] = []
    for card in view.of_kind("card"):
        near, dist = _keeper(owned, hole, card.centre_mm)
        if near is None or dist > CLAIM_MM:
            if _in_the_middle(owned, card.centre_mm):
                offer.append(card)
            else:
                problems.append(Problem(ProblemCode.UNPLACED, f"{card.component.name} lies neither beside a planet nor in the middle of the table; not placed", (card.component.id,), (card.image_centre,)))
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
                unknown.append(UnknownPlace(area))
            if problem is not None:
                problems.append(problem)

    return claimed_by_hole


def _tokens(view: TableView, draft: Draft, owned: list[Located], hole: Located | None, claimed_by_hole: list[Located],
            by_board: dict[str, Player], axis: float) -> None:
    """Terrain tokens: planet spaces, the Black Hole, established biomes, or the centre row."""
    placed, problems, fits = draft.placed, draft.problems, draft.fits
    centre: list[Located] = []
    for token in view.of_kind("token"):
        xy = token.centre_mm
        board = holder(owned, xy)
        if board is not None:
            area = PLANET + by_board[board.component.id].id
            hit = space_hit(board, xy)
            if hit is None:
                problems.append(Problem(ProblemCode.OFF_SPACE, f"{token.component.name} lies on {board.component.name} but on none of its spaces; not placed", (token.component.id,), (token.image_centre,)))
                continue
            if hit.offset > SPACE_TRUST:
                problems.append(Problem(ProblemCode.BETWEEN_SPACES, f"{token.component.name} lies on the border of {Words(GAME_ID, {}).space(hit.space.name)}; not placed", (token.component.id,), (token.image_centre,)))
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
            problems.append(Problem(ProblemCode.TOKEN_ON_CARD, f"{token.component.name} lies on a biome card; not placed", (token.component.id,), (token.image_centre,)))
            continue
        near, dist = nearest(owned, xy)
        if near is not None and dist <= OFF_BOARD_MM:
            problems.append(Problem(ProblemCode.OFF_BOARD, f"{token.component.name} lies just off {near.component.name} (slid off the planet?); not placed", (token.component.id,), (token.image_centre,)))
            continue
        if not _in_the_middle(owned, token.centre_mm):
            problems.append(Problem(ProblemCode.UNPLACED, f"{token.component.name} lies on no planet and not in the middle of the table; not placed", (token.component.id,), (token.image_centre,)))
            continue
        centre.append(token)
    for token in along(centre, axis):
        placed.append(Placed(Placement(token.component.id, CENTRE), token))


def _unread(view: TableView, draft: Draft, owned: list[Located], hole: Located | None, claimed_by_hole: list[Located],
            by_board: dict[str, Player], players: tuple[Player, ...]) -> list[LookAgain]:
    """What was seen but not read: unknown places and problems, and the places to look at again."""
    placed, unknown, problems = draft.placed, draft.unknown, draft.problems
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
            unknown.append(UnknownPlace(area, hit.space.name))
            problems.append(Problem(ProblemCode.UNREADABLE, f"the token on {Words(GAME_ID, {}).space(hit.space.name)} of {board.component.name} could not be read", (), (u.image_centre,)))
    # Spaces that look as busy as a printed tag hold a token that did not even show as a quad.
    spots = [
        Spot(board, s.x_mm, s.y_mm, (PLANET + by_board[board.component.id].id, s.name))
        for board in owned
        for s in board.component.spaces
        if (PLANET + by_board[board.component.id].id, s.name) not in taken
    ]
    for spot in busy_spots(view, spots, reference):
        area, cell = spot.key  # type: ignore[misc]
        unknown.append(UnknownPlace(area, cell))
        problems.append(Problem(ProblemCode.UNREAD_TOKEN, f"something lies on {Words(GAME_ID, {}).space(str(cell))} of {spot.holder.component.name} that could not be read; that space is not scored", (), (image_point(spot),)))
    # Faces seen but not read: tokens on the Black Hole and its cards, biome cards in front of a
    # planet, undecoded markers off the planets, an unread Black Hole under loose tokens. Each is
    # looked at again (read whole); what stays unread is reported where it lies.
    again: list[LookAgain] = []
    token_mm, card_mm = _face_size("token"), _face_size("card")
    # With no Black Hole read, a card beside no planet may be one it established.
    placed_ids = {id(p.located) for p in placed}
    loose_cards = [c for c in view.of_kind("card") if hole is None and id(c) not in placed_ids]
    for spot in _unread_tokens(view, ([hole] if hole is not None else []) + claimed_by_hole + loose_cards, reference):
        again.append(LookAgain(_spot_xy(spot), token_mm, TOKEN_PITCH_MM / 2))
        if spot.holder in loose_cards:
            message = f"something lies on {spot.holder.component.name} that could not be read"
        else:
            unknown.append(UnknownPlace(BLACKHOLE))
            message = f"something lies on {spot.holder.component.name} that could not be read; the Black Hole's score lacks it"
        problems.append(Problem(ProblemCode.UNREAD_TOKEN, message, (), (image_point(spot),)))
    # In front of a planet a busy place may as well be a sheet of notes: it is shown to the
    # players, not counted as an unknown biome.
    for spot in _unread_cards(view, owned, reference):
        again.append(LookAgain(_spot_xy(spot), card_mm))
        board = spot.holder
        problems.append(Problem(ProblemCode.UNREAD_CARD, f"something lies in front of {board.component.name} that could not be read; if it is a biome card, that player's score lacks it", (), (image_point(spot),)))
    for u in view.unreadable:
        if u.centre_mm is not None and holder(owned, u.centre_mm) is None:
            again += [LookAgain(u.centre_mm, token_mm, 4.0), LookAgain(u.centre_mm, card_mm)]
    if hole is None and owned:
        again += _hole_sites(view, owned, players)
    again = _distinct(again)
    return again


@cache
def _face_size(kind: str) -> tuple[float, float]:
    """The printed size of a kind of face (every token, every biome card is one size)."""
    index = find_game(GAME_ID).component_index  # type: ignore[attr-defined]
    return next(c.size_mm for c in index.values() if c.kind == kind)


def _spot_xy(spot: Spot) -> tuple[float, float]:
    return table_points(spot.holder, ((spot.x_mm, spot.y_mm),))[0]


def _apart(ranked: list[tuple[tuple[float, float], object]], reach: float) -> list[object]:
    """The items of busiest-first (place, item) pairs that lie at least ``reach`` from every busier one kept."""
    kept: list[tuple[float, float]] = []
    out = []
    for xy, item in ranked:
        if all(math.hypot(xy[0] - k[0], xy[1] - k[1]) >= reach for k in kept):
            kept.append(xy)
            out.append(item)
    return out


def _unread_tokens(view: TableView, holders: list[Located], reference: float) -> list[Spot]:
    """Places on cards (the Black Hole, the cards it established, cards that may be) that look as busy as a printed
    tag, clearly busier than the cards' own print, and lie off every read token: a token lies
    there that was not read (one place per token). The print is measured on these cards' free
    faces in this photo (most of it holds nothing), as their titles and text are busier than the
    plain fill of a board."""
    texture = view.texture
    if not holders or texture is None or reference <= 0:
        return []
    side = min(_face_size("token"))
    tokens = view.of_kind("token")
    points = [(h, free_points(view.game, h.component, TOKEN_PITCH_MM)) for h in holders]
    # Which places lie off every read token, all the cards' places at once.
    clear = ~_on_faces(tokens, [xy for h, face in points for xy in table_points(h, face)], TOKEN_CLEAR_MM)
    spots = [Spot(h, x, y, h.component.id) for (h, x, y), ok in zip(((h, x, y) for h, face in points for x, y in face), clear) if ok]
    # Every card's places probed in one go.
    levels = list(zip(spots, probe_all(texture, table_squares([(s.holder, s.x_mm, s.y_mm, PROBE_HALF_MM) for s in spots]))))

    def low(values: list[float]) -> float:
        ordered = sorted(v for v in values if v > 0)
        return ordered[len(ordered) // 4] if len(ordered) >= 4 else 0.0

    # The print of all the cards together: one card may be crowded with tokens (read or not).
    floor = low([v for _, v in levels])
    if floor <= 0:
        return []
    bar = max(MARKER_RATIO * reference, PRINT_RATIO * floor)
    # A biome card's own face is plainer than the Black Hole's art (its free places measured at
    # most 0.13 of the markers in the hard scenes, 0.04 in typical ones, against up to 0.28 on
    # the Black Hole): a blurred token on it stands out at a lower bar (one measured 0.25-0.31).
    card_bar = max(CARD_MARKER_RATIO * reference, PRINT_RATIO * floor)
    found = [(v, s) for s, v in levels if v >= (card_bar if s.holder.component.kind == "card" else bar)]
    found.sort(key=lambda f: -f[0])
    return _apart([(_spot_xy(s), s) for _, s in found], ONE_FACE * side)  # type: ignore[return-value]


def _unread_cards(view: TableView, owned: list[Located], reference: float) -> list[Spot]:
    """Places in front of a planet, off every read face, that look as busy as a printed marker and
    clearly busier than the bare table there: a biome card lies there that was not read (one
    place per card; the board is the place's holder, the place lies off its face)."""
    texture = view.texture
    if texture is None or reference <= 0 or not owned:
        return []
    w_card, h_card = _face_size("card")
    half = CARD_PROBE_MM
    found: list[tuple[float, Spot]] = []
    spots: list[Spot] = []
    for board in owned:
        w, h = board.component.size_mm
        points = [(float(x), float(y)) for y in np.arange(h + half + 2, h + CLAIM_MM + h_card / 2, CARD_PITCH_MM)
                  for x in np.arange(half + 2, w - half - 2 + 1e-6, CARD_PITCH_MM)]
        xys = table_points(board, points)
        free = ~_on_faces(view.located, xys, half)
        spots += [Spot(board, x, y, None, half) for (x, y), xy, ok in zip(points, xys, free)
                  if ok and not _near_face_down(view, xy, w_card / 2)]
    # Every planet's places probed in one go, each planet's then judged against its own table.
    values_of = probe_all(texture, table_squares([(s.holder, s.x_mm, s.y_mm, half) for s in spots]))
    for board in owned:
        levels = [(s, v) for s, v in zip(spots, values_of) if s.holder is board]
        values = sorted(v for _, v in levels if v > 0)
        if len(values) < 8:
            continue
        bar = max(PLAIN_RATIO * values[len(values) // 4], MARKER_RATIO * reference)
        found += [(v, s) for s, v in levels if v >= bar]
    found.sort(key=lambda f: -f[0])
    return _apart([(_spot_xy(s), s) for _, s in found], ONE_FACE * h_card)  # type: ignore[return-value]


def _distinct(places: list[LookAgain]) -> list[LookAgain]:
    """One look per face: a place for the same size of face as an earlier one and nearer it
    than half that face's short side would find the same square again."""
    out: list[LookAgain] = []
    for p in places:
        reach = 0.5 * min(p.face_mm)
        if all(q.face_mm != p.face_mm or math.dist(q.centre_mm, p.centre_mm) >= reach for q in out):
            out.append(p)
    return out


def _on_faces(faces: tuple[Located, ...], points: list[tuple[float, float]], margin: float) -> np.ndarray:
    """Per table point: whether it lies on one of these faces or within ``margin`` of one (all at once)."""
    if not faces or not points:
        return np.zeros(len(points), bool)
    inv = np.stack([table_to_face(f) for f in faces])  # (m, 3, 3)
    size = np.array([f.component.size_mm for f in faces])  # (m, 2)
    hom = np.column_stack([np.asarray(points, float), np.ones(len(points))])  # (n, 3)
    face = np.einsum("mij,nj->nmi", inv, hom)
    face = face[..., :2] / face[..., 2:3]
    return ((face >= -margin) & (face <= size[None] + margin)).all(axis=2).any(axis=1)


def _near_face_down(view: TableView, xy: tuple[float, float], reach: float) -> bool:
    return any(fd.centre_mm is not None and math.hypot(xy[0] - fd.centre_mm[0], xy[1] - fd.centre_mm[1]) < reach for fd in view.face_down)


def _hole_sites(view: TableView, owned: list[Located], players: tuple[Player, ...]) -> list[LookAgain]:
    """Solo, no Black Hole read: tokens lying on no read face, off every planet and not in the
    middle of the table lie on it; its tag is looked for around them."""
    if len(players) != 1:
        return []
    w, h = _face_size("blackhole")
    loose = [
        t.centre_mm for t in view.of_kind("token")
        if nearest(owned, t.centre_mm)[1] > OFF_BOARD_MM and not _in_the_middle(owned, t.centre_mm)
        and holder([c for c in view.located if c is not t], t.centre_mm) is None
    ]
    # One look: two sites finding the same tag at slightly different poses would trust neither.
    return [LookAgain(loose[0], (w, h), 0.4 * min(w, h))] if loose else []


def canonical(state: BoardState) -> BoardState:
    """The state as the scanner can report it: a face-down card shows only its back, so it is
    an unknown card of its player's biomes (or the Black Hole's), never the card itself; the
    centre row and the offer have no cells."""

    def shown(p: Placement) -> Placement:
        return replace(p, cell=None) if p.area in (CENTRE, OFFER) else p

    hidden = tuple(
        UnknownPlace(p.area)
        for p in state.placements
        if not p.face_up and (p.area.startswith(BIOMES) or p.area == BLACKHOLE)
    )
    return replace(
        state,
        placements=tuple(shown(p) for p in state.placements if p.face_up),
        unknown=tuple(state.unknown) + hidden,
    )


LAYOUT = GameLayout(GAME_ID, read, arrange)
