"""Rainforest on the table: player boards from their anchors, tiles on their spaces, tokens in tile slots.

Rulings of this layout:
- Each player board is located from its anchor tags (or its own markers); its spaces are the
  state's cells: ``J1``-``J9`` (jungle, J1 bottom left), ``C1``-``C3`` (clearing), ``R1``,
  ``R2`` (reserve). A tile on a board but on none of its tile spaces is a clearing tile
  without a cell (so a fourth clearing tile shows as a violation, not as nothing).
- A species token whose centre lies on a tile belongs to the tile's slot under it
  (``slot`` 1-3, counted on the tile's printed face, so the tile's rotation does not
  matter) and to the tile's area. Tokens are small: their 16 mm tag is what names them.
- A protected-area or diversity token lying on a tile lies ``on`` that tile; off every board
  it is in the ``supply``; on a board but on no tile that was read it is reported (its tile
  may be the one it hides).
- The main board (area ``table``) is read when in view: the tile on a zone's pile space is
  ``zone:<n>`` cell ``PILE``, tokens on its token spaces cells ``S1``...
- The binoculars belong to the nearest player board within ``BINOCULARS_MM`` of its edge.
  When every seated player's board is in view and the binoculars are not seen, that is
  reported (``layout/binoculars_unseen``): they always lie beside the first player's board.
- A token or tile too close to the border between two spaces, or on no space, is reported and
  not placed. A marker that did not decode on a slot or space is an unknown place there.
- Without a player list the player at a board is named after its totem (``frog``), seats in
  board order; with one, the k-th seat takes the k-th board in board order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from functools import cache, partial

import numpy as np

from scoring import find_game
from scoring.model import BoardState, Component, Placement, Player, UnknownPlace
from scoring.words import Words
from scoring.rainforest.jungle import AreaKind

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
    Unreadable,
    probe_all,
)
from .anchored import (
    SPACE_TRUST,
    holder,
    nearest,
    pose_at,
    seat_players,
    seen_players,
    space_centre,
    space_hit,
    steps_from,
    table_points,
    table_squares,
)
from .spaces import (
    Spot,
    busy_spots,
    image_point,
    marker_texture,
    plain_spots,
    qr_box,
    remembering,
)

GAME_ID = "rainforest"
MAIN_BOARD = "MAIN-BOARD"
PLAYER = AreaKind.PLAYER.value + ":"
JUNGLE = AreaKind.JUNGLE.value + ":"
CLEARING = AreaKind.CLEARING.value + ":"
RESERVE = AreaKind.RESERVE.value + ":"
SUPPLY = AreaKind.SUPPLY.value
TABLE = AreaKind.TABLE.value
#: Binoculars this close to a player board's edge are that player's.
BINOCULARS_MM = 80.0
#: Arranging: gap between player boards, and between them and the main board.
BOARD_GAP_MM = 70.0
#: Where a tile's tag (or QR code) lies from its centre, whichever way it is turned: the
#: squares probed on a tile space for a tile that was not read.
_TILE_CORNERS = ((-21.0, -21.0), (21.0, -21.0), (21.0, 21.0), (-21.0, 21.0))
#: Arranging: where bonus tokens lie on a tile (over its QR code, then below its slots).
_BONUS_SPOTS = ((54.0, 22.0), (37.5, 66.0))
#: A token slot or space is busy this many times its face's plain parts (2.5, not the 3 of
#: other places): an empty slot's print measured at most 1.6 times them in blurred views, and
#: a token matching its tile's colour, its rim lost against it, 2.7 times.
TOKEN_SLOT_RATIO = 2.5
#: A tile's unread QR code measured this many times the median of the photo's tile codes is
#: looked at again for a bonus token lying on it: a token's tag, its modules twice a code's,
#: stays busier than a code when blur has smoothed both. In the hard bench scenes no code
#: measured over 1.30 times the median, codes under a token 1.2-2.4 (1.6 under the two that
#: the decoders and quads missed); in typical scenes a code under a token is no busier than
#: the others (at most 1.4: the sharp code is the busier print). Only a look, never a report.
OVER_CODE_RATIO = 1.45
#: The probe square on a code (half its side, mm): well inside the code and its quiet zone.
CODE_PROBE_HALF_MM = 8.0
#: The bonus tokens: they lie anywhere on a tile, not in a slot.
BONUS_KINDS = ("protected_area", "diversity")

#: How problems name components and spaces: printed names and the pad's words.
_W = Words("rainforest", {})


def _seated(view: TableView) -> Words:
    """Words that name the seated players' areas (``in Ana's jungle``)."""
    return Words("rainforest", {p.id: p.name for p in view.players or ()})


def _catalog():  # noqa: ANN202 - the game's own catalog type
    return find_game(GAME_ID).catalog  # type: ignore[attr-defined]


def _board_order(component: Component) -> int:
    ids = list(_catalog().boards)
    return ids.index(component.id) if component.id in ids else len(ids)


def _totem(component: Component) -> str:
    board = _catalog().boards.get(component.id)
    return board.totem.value if board is not None else component.id.lower()


# -- arranging (scene renderer) ------------------------------------------------------------


def arrange(state: BoardState) -> Mapping[str, TablePose]:
    """Player boards side by side in seat order, the main board above them, the supply to its right."""
    game = find_game(GAME_ID)
    index = game.component_index  # type: ignore[attr-defined]
    rng = np.random.default_rng(11 + len(state.placements))
    poses: dict[str, TablePose] = {}

    def jitter(limit: float) -> tuple[float, float]:
        v = np.clip(rng.normal(0, limit / 2, 2), -limit, limit)
        return float(v[0]), float(v[1])

    def on_tile(tile_id: str, x_mm: float, y_mm: float) -> TablePose | None:
        pose = poses.get(tile_id)
        if pose is None:
            return None
        return pose_at(pose, index[tile_id], x_mm, y_mm, float(rng.uniform(-180, 180)))

    x = 0.0
    board_h = 0.0
    for player in sorted(state.players, key=lambda p: p.seat):
        board = next((p for p in state.in_area(PLAYER + player.id) if index[p.component].kind == "board"), None)
        if board is None:
            continue
        comp = index[board.component]
        w, h = comp.size_mm
        board_h = max(board_h, h)
        pose = TablePose(x + w / 2, 0.0, float(rng.uniform(-4, 4)))
        poses[comp.id] = pose
        for p in state.in_area(PLAYER + player.id):
            if p.component != comp.id:
                poses[p.component] = pose_at(pose, comp, w + BOARD_GAP_MM / 2, h - 40.0, float(rng.uniform(-20, 20)))
        for area in (JUNGLE, CLEARING):
            for p in state.in_area(area + player.id):
                if p.on is None and isinstance(p.cell, str):
                    sx, sy = space_centre(comp, p.cell)
                    dx, dy = jitter(3.0)
                    poses[p.component] = pose_at(pose, comp, sx + dx, sy + dy, 90.0 * p.rotation + float(rng.normal(0, 1.5)))
        for p in state.in_area(RESERVE + player.id):
            if isinstance(p.cell, str):
                sx, sy = space_centre(comp, p.cell)
                dx, dy = jitter(2.0)
                poses[p.component] = pose_at(pose, comp, sx + dx, sy + dy, float(rng.uniform(-180, 180)))
        x += w + BOARD_GAP_MM

    bonus_count: dict[str, int] = {}
    for p in state.placements:
        if p.on is None:
            continue
        tile = index[p.on]
        if p.slot is not None:
            sx, sy = space_centre(tile, str(p.slot))
            dx, dy = jitter(1.5)
            found = on_tile(p.on, sx + dx, sy + dy)
        else:
            k = bonus_count.get(p.on, 0)
            bonus_count[p.on] = k + 1
            sx, sy = _BONUS_SPOTS[k % len(_BONUS_SPOTS)]
            found = on_tile(p.on, sx, sy)
        if found is not None:
            poses[p.component] = found

    main = next((p for p in state.in_area(TABLE) if p.component == MAIN_BOARD), None)
    width = max(x - BOARD_GAP_MM, 420.0)
    if main is not None:
        comp = index[MAIN_BOARD]
        w, h = comp.size_mm
        pose = TablePose(width / 2, -board_h / 2 - BOARD_GAP_MM - h / 2, float(rng.uniform(-3, 3)))
        poses[MAIN_BOARD] = pose
        for p in state.placements:
            if p.area.startswith("zone:") and isinstance(p.cell, str):
                sx, sy = space_centre(comp, f"Z{p.area[5:]}-{p.cell}")
                dx, dy = jitter(2.5)
                turn = 90.0 * p.rotation if index[p.component].kind == "tile" else float(rng.uniform(-180, 180))
                poses[p.component] = pose_at(pose, comp, sx + dx, sy + dy, turn)
        for k, p in enumerate(state.in_area(SUPPLY)):
            row, col = divmod(k, 2)
            poses[p.component] = pose_at(pose, comp, w + 40.0 + 44.0 * col, 25.0 + 44.0 * row, float(rng.uniform(-180, 180)))
    return poses


# -- reading (scanner) ---------------------------------------------------------------------


def _zone_cell(space: str) -> tuple[str, str]:
    """Main-board space ``Z3-S2`` -> area ``zone:3``, cell ``S2``."""
    zone, cell = space.split("-", 1)
    return f"zone:{zone[1:]}", cell


def _report(problems: list[Problem], code: ProblemCode, loc: Located, message: str) -> None:
    problems.append(Problem(code, f"{loc.component.name} {message}; not placed", (loc.component.id,), (loc.image_centre,)))


def read(view: TableView) -> LayoutResult:
    """Player boards, jungles, clearings, reserves, bonus tokens and the main board's zones."""
    view = remembering(view)
    draft = Draft()
    placed, unknown, problems, fits = draft.placed, draft.unknown, draft.problems, draft.fits
    boards = sorted((b for b in view.of_kind("board") if b.component.id != MAIN_BOARD), key=lambda b: _board_order(b.component))
    owners = [(b.component.id, _totem(b.component), _totem(b.component).title()) for b in boards]
    players, by_board = seat_players(view, owners)
    players, missing = seen_players(players, by_board, "player board")
    problems.extend(missing)
    owned = [b for b in boards if b.component.id in by_board]
    for b in boards:
        if b.component.id in by_board:
            placed.append(Placed(Placement(b.component.id, PLAYER + by_board[b.component.id].id), b))
        else:
            problems.append(Problem(ProblemCode.BOARD_OF_NOBODY, f"{b.component.name} belongs to no player of this game; its tiles are not placed", (b.component.id,), (b.image_centre,)))
    main = next((b for b in view.of_kind("board") if b.component.id == MAIN_BOARD), None)
    if main is not None:
        placed.append(Placed(Placement(MAIN_BOARD, TABLE), main))

    tile_area, tiles_placed = _tiles(view, draft, owned, by_board, main)

    _tokens(view, draft, owned, by_board, main, tile_area, tiles_placed)

    # Protected-area and diversity tokens: on a tile, or in the supply.
    for bonus in view.of_kind(*BONUS_KINDS):
        tile = holder(tiles_placed, bonus.centre_mm)
        if tile is not None:
            placed.append(Placed(Placement(bonus.component.id, tile_area[tile.component.id], None, 0, True, tile.component.id), bonus))
        elif holder(view.of_kind("tile"), bonus.centre_mm) is not None:
            _report(problems, ProblemCode.ON_UNPLACED_TILE, bonus, "lies on a tile that has no place")
        elif holder(view.of_kind("board"), bonus.centre_mm) is not None:
            _report(problems, ProblemCode.OFF_TILE, bonus, "lies on a board but on no tile that was read")
        else:
            placed.append(Placed(Placement(bonus.component.id, SUPPLY), bonus))

    glasses = view.of_kind("binoculars")
    for item in glasses:
        board, dist = nearest(owned, item.centre_mm)
        if board is None or dist > BINOCULARS_MM:
            _report(problems, ProblemCode.LOOSE, item, "lie near no player board")
            continue
        placed.append(Placed(Placement(item.component.id, PLAYER + by_board[board.component.id].id), item))
    if not glasses and owned and not missing:
        problems.append(_binoculars_unseen())

    _unread(view, draft, owned, by_board, main, tile_area, tiles_placed)
    confidence = float(np.mean(fits)) if fits else (1.0 if owned or not view.located else 0.5)
    again = _covered_codes(view, tiles_placed)
    return LayoutResult(players, tuple(placed), tuple(unknown), tuple(problems), confidence, look_again=again)


def _tiles(view: TableView, draft: Draft, owned: list[Located], by_board: dict[str, Player],
           main: Located | None) -> tuple[dict[str, str], list[Located]]:
    """Tiles: jungle and clearing spaces of a player board, or a zone's pile on the main board.
    Returns each placed tile's area and the tiles placed on player boards."""
    placed, problems, fits = draft.placed, draft.problems, draft.fits
    # Tiles: jungle and clearing spaces of a player board, or a zone's pile on the main board.
    tile_area: dict[str, str] = {}
    tiles_placed: list[Located] = []
    for tile in view.of_kind("tile"):
        xy = tile.centre_mm
        board = holder(owned, xy)
        if board is not None:
            pid = by_board[board.component.id].id
            hit = space_hit(board, xy, [s for s in board.component.spaces if s.name[0] in "JC"])
            turns, _ = steps_from(tile, board.angle_deg, 90.0)
            if hit is None:
                area, cell = CLEARING + pid, None
            elif hit.offset > SPACE_TRUST:
                _report(problems, ProblemCode.BETWEEN_SPACES, tile, f"lies across the border of {_W.space(hit.space.name)}")
                continue
            else:
                fits.append(1.0 - max(0.0, hit.offset - 0.4))
                area = (JUNGLE if hit.space.name.startswith("J") else CLEARING) + pid
                cell = hit.space.name
            placed.append(Placed(Placement(tile.component.id, area, cell, turns), tile))
            tile_area[tile.component.id] = area
            tiles_placed.append(tile)
            continue
        if main is not None and holder([main], xy) is not None:
            hit = space_hit(main, xy)
            if hit is None or not hit.space.name.endswith("PILE") or hit.offset > SPACE_TRUST:
                _report(problems, ProblemCode.OFF_SPACE, tile, "lies on the main board but on no zone's pile")
                continue
            area, cell = _zone_cell(hit.space.name)
            turns, _ = steps_from(tile, main.angle_deg, 90.0)
            placed.append(Placed(Placement(tile.component.id, area, cell, turns), tile))
            continue
        _report(problems, ProblemCode.LOOSE, tile, "lies on no player board and on no zone's pile")

    return tile_area, tiles_placed


def _tokens(view: TableView, draft: Draft, owned: list[Located], by_board: dict[str, Player], main: Located | None,
            tile_area: dict[str, str], tiles_placed: list[Located]) -> None:
    placed, problems, fits = draft.placed, draft.problems, draft.fits
    # Species tokens: a slot of the tile under them, a reserve space, or a zone's token space.
    for token in view.of_kind("token"):
        xy = token.centre_mm
        tile = holder(tiles_placed, xy)
        if tile is not None:
            hit = space_hit(tile, xy)
            if hit is None:
                _report(problems, ProblemCode.OFF_SLOT, token, f"lies on {tile.component.name} but on none of its slots")
            elif hit.offset > SPACE_TRUST:
                _report(problems, ProblemCode.BETWEEN_SPACES, token, f"lies between two slots of {tile.component.name}")
            else:
                fits.append(1.0 - max(0.0, hit.offset - 0.4))
                area = tile_area[tile.component.id]
                placed.append(Placed(Placement(token.component.id, area, None, 0, True, tile.component.id, int(hit.space.name)), token))
            continue
        if holder(view.of_kind("tile"), xy) is not None:
            _report(problems, ProblemCode.ON_UNPLACED_TILE, token, "lies on a tile that has no place")
            continue
        board = holder(owned, xy)
        if board is not None:
            hit = space_hit(board, xy)
            if hit is not None and hit.space.name.startswith("R") and hit.offset <= SPACE_TRUST:
                placed.append(Placed(Placement(token.component.id, RESERVE + by_board[board.component.id].id, hit.space.name), token))
            else:
                _report(problems, ProblemCode.OFF_SPACE, token, f"lies on {board.component.name} but on no tile and no reserve space")
            continue
        if main is not None and holder([main], xy) is not None:
            hit = space_hit(main, xy)
            if hit is None or "-S" not in hit.space.name or hit.offset > SPACE_TRUST:
                _report(problems, ProblemCode.OFF_SPACE, token, "lies on the main board but on no zone's token space")
                continue
            area, cell = _zone_cell(hit.space.name)
            placed.append(Placed(Placement(token.component.id, area, cell), token))
            continue
        _report(problems, ProblemCode.LOOSE, token, "lies on no tile, reserve or zone")


def _unread(view: TableView, draft: Draft, owned: list[Located], by_board: dict[str, Player], main: Located | None,
            tile_area: dict[str, str], tiles_placed: list[Located]) -> None:
    placed, unknown, problems = draft.placed, draft.unknown, draft.problems
    # Markers that did not decode on a slot or a space are unknown places there.
    taken = {(p.placement.area, p.placement.cell, p.placement.on, p.placement.slot) for p in placed}
    quads: list[tuple[Unreadable, UnknownPlace]] = []
    for u in view.unreadable:
        if u.centre_mm is None:
            continue
        guess: UnknownPlace | None = None
        tile = holder(tiles_placed, u.centre_mm)
        board = holder(owned, u.centre_mm)
        if tile is not None:
            hit = space_hit(tile, u.centre_mm)
            if hit is not None:
                guess = UnknownPlace(tile_area[tile.component.id], None, tile.component.id, int(hit.space.name))
        elif board is not None:
            hit = space_hit(board, u.centre_mm)
            if hit is not None:
                pid = by_board[board.component.id].id
                prefix = {"J": JUNGLE, "C": CLEARING, "R": RESERVE}[hit.space.name[0]]
                guess = UnknownPlace(prefix + pid, hit.space.name)
        elif main is not None and holder([main], u.centre_mm) is not None:
            hit = space_hit(main, u.centre_mm)
            if hit is not None:
                area, cell = _zone_cell(hit.space.name)
                guess = UnknownPlace(area, cell)
        if guess is not None:
            quads.append((u, guess))
    for (u, guess), plain in zip(quads, _plain(view, [u.centre_mm for u, _ in quads], tiles_placed, owned, main)):  # type: ignore[misc]
        k = (guess.area, guess.cell, guess.on, guess.slot)
        if k not in taken and not plain:
            taken.add(k)
            unknown.append(guess)
            problems.append(Problem(ProblemCode.UNREADABLE, f"a marker {_seated(view).where(guess.area)} could not be read; that place is not scored", (), (u.image_centre,)))
    for spot in _unread_spots(view, owned, by_board, tiles_placed, tile_area, main, taken):
        guess = spot.key
        assert isinstance(guess, UnknownPlace)
        unknown.append(guess)
        where = f"slot {guess.slot} of {_W.name(guess.on)}" if guess.on else f"{_W.space(str(guess.cell))} of {spot.holder.component.name}"
        problems.append(Problem(ProblemCode.UNREAD, f"something lies on {where} that could not be read; that place is not scored", (), (image_point(spot),)))


@cache
def _bonus_faces() -> tuple[tuple[float, float], ...]:
    """The face sizes of the bonus tokens (protected-area and diversity tokens)."""
    index = find_game(GAME_ID).component_index  # type: ignore[attr-defined]
    return tuple(sorted({c.size_mm for c in index.values() if c.kind in BONUS_KINDS}))


def _covered_codes(view: TableView, tiles: list[Located]) -> tuple[LookAgain, ...]:
    """Places to look again for a bonus token: placed tiles whose QR code was not read and
    looks clearly busier than the photo's other tile codes (``OVER_CODE_RATIO``), with no
    token read on it. A token laid over a tile's code is where players put it out of the
    slots' way, and blur may leave it neither a decoded tag nor a quad."""
    codes = [(t, box) for t in tiles for box in (qr_box(view.game, t.component),) if box is not None]
    if view.texture is None or len(codes) < 3 or all("qr" in t.source for t, _ in codes):
        return ()
    values = probe_all(view.texture, table_squares([(t, x, y, CODE_PROBE_HALF_MM) for t, (x, y, _) in codes]))
    median = float(np.median(values))
    if median <= 0:
        return ()
    tokens = np.array([t.centre_mm for t in view.of_kind("token", *BONUS_KINDS)]).reshape(-1, 2)
    again = []
    for (tile, (x, y, side)), value in zip(codes, values):
        if "qr" in tile.source or value <= OVER_CODE_RATIO * median:
            continue
        centre = table_points(tile, ((x, y),))[0]
        if len(tokens) and float(np.hypot(*(tokens - centre).T).min()) < side / 2:
            continue  # a token read there already
        again += [LookAgain((float(centre[0]), float(centre[1])), face, side / 2, kinds=BONUS_KINDS) for face in _bonus_faces()]
    return tuple(again)


def _binoculars_unseen() -> Problem:
    """Every seated player's board is in view, so the binoculars (the first player's, always
    beside one of them) should be too: not finding them is said, not passed over. They score
    nothing, but who holds them decides who plays last in the final round."""
    glasses = _catalog().binoculars.id
    return Problem(
        ProblemCode.BINOCULARS_UNSEEN,
        f"{_W.name(glasses)} (the first player's) were not seen beside any player board: out of view or "
        "not readable, so who holds them is not known",
        (glasses,),
    )


def _plain(view: TableView, points: list[tuple[float, float]], tiles: list[Located], owned: list[Located], main: Located | None) -> list[bool]:
    """Per point: whether the slot or token space under it looks like its plain printed face (an
    undecoded quad there is the space's own outline, not a token)."""
    boards = owned + ([main] if main is not None else [])
    spots: list[Spot] = []
    index: list[int] = []
    for k, xy in enumerate(points):
        face = holder(tiles, xy) or holder(boards, xy)
        hit = None if face is None else space_hit(face, xy)
        if face is not None and hit is not None and hit.space.w_mm <= 40:  # a tile's space has its own probe
            spots.append(Spot(face, hit.space.x_mm, hit.space.y_mm, None))
            index.append(k)
    out = [False] * len(points)
    reference = partial(marker_texture, view, list(view.of_kind("token")) + tiles + boards)
    for k, plain in zip(index, plain_spots(view, spots, reference, tiles + boards)):
        out[k] = plain
    return out


def _unread_spots(
    view: TableView,
    owned: list[Located],
    by_board: Mapping[str, Player],
    tiles: list[Located],
    tile_area: Mapping[str, str],
    main: Located | None,
    taken: set[tuple],
) -> list[Spot]:
    """Free slots, spaces and piles that look as busy as a printed tag: a token or tile lies there
    whose markers did not even show as a quad."""
    tokens: list[Spot] = []
    tiles_spots: list[Spot] = []

    def offer(spot: Spot, guess: UnknownPlace, is_tile: bool) -> None:
        if (guess.area, guess.cell, guess.on, guess.slot) not in taken:
            (tiles_spots if is_tile else tokens).append(spot)

    for tile in tiles:
        for s in tile.component.spaces:
            guess = UnknownPlace(tile_area[tile.component.id], None, tile.component.id, int(s.name))
            offer(Spot(tile, s.x_mm, s.y_mm, guess), guess, False)
    for board in owned:
        pid = by_board[board.component.id].id
        for s in board.component.spaces:
            prefix = {"J": JUNGLE, "C": CLEARING, "R": RESERVE}[s.name[0]]
            guess = UnknownPlace(prefix + pid, s.name)
            if s.name[0] == "R":
                offer(Spot(board, s.x_mm, s.y_mm, guess), guess, False)
            else:
                offer(Spot(board, s.x_mm, s.y_mm, guess, 8.0, _TILE_CORNERS), guess, True)
    if main is not None:
        for s in main.component.spaces:
            area, cell = _zone_cell(s.name)
            guess = UnknownPlace(area, cell)
            if cell == "PILE":
                offer(Spot(main, s.x_mm, s.y_mm, guess, 8.0, _TILE_CORNERS), guess, True)
            else:
                offer(Spot(main, s.x_mm, s.y_mm, guess), guess, False)
    boards = owned + ([main] if main is not None else [])
    token_ref = partial(marker_texture, view, list(view.of_kind("token")) + tiles + boards)
    tile_ref = partial(marker_texture, view, tiles + boards, 8.0)
    return busy_spots(view, tokens, token_ref, TOKEN_SLOT_RATIO) + busy_spots(view, tiles_spots, tile_ref)


def canonical(state: BoardState) -> BoardState:
    """The state as the scanner can report it (the same state: every component lies face up on the table)."""
    return replace(state, placements=tuple(p for p in state.placements if p.face_up))


LAYOUT = GameLayout(GAME_ID, read, arrange)
