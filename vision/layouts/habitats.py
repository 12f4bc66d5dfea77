"""Habitats on the table: parks relative to their entrance, the market grid, the score track.

Rulings of this layout:
- A park's grid axes are its entrance tile's axes (its road points south); the entrance
  is cell (0, 0) and a tile's rotation is counted from the entrance's upright.
- Tiles belong to the park whose entrance they are connected to through 4-neighbours;
  a group of tiles connected to no entrance is the market when it holds a figure or at
  least four tiles, otherwise its tiles are loose (reported, not placed).
- The market grid's axes are seat 0's entrance axes, its cell (0, 0) the occupied corner
  nearest that player's top-left; a figure's rotation is its facing (0 = north). The
  market is placed only when seat 0's entrance is in view and the market spans the full
  grid of the player count (otherwise its cells could be shifted: reported instead).
  Every cell of the market holds a tile or a figure, so a market read in part is completed
  when exactly one way of laying the full grid over it has every unread cell looking
  printed (the texture probe) and every other way takes in bare table; the unread cells
  become unknown cells. When both sides look printed, or a side lies outside the photo,
  the market stays reported as partial.
- Without a player list, seats follow the box's colour order (red, yellow, black, blue, green).
- Score markers and goal tiles lie on the score track's spaces; of two markers on one
  space the later colour lies on the earlier.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TypeVar

import numpy as np

from scoring import find_game
from scoring.habitats import MARKET, PARK_PREFIX, TRACK
from scoring.model import BoardState, Placement, Player, UnknownPlace

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
    cell_centre,
    cell_fit,
    cell_polygon,
    cell_polygons,
    connected_groups,
    covered_cells,
    face_outlined,
    grid_cell,
    probe_all,
    rotate,
    space_at,
    space_pose,
    wrap_degrees,
)

GAME_ID = "habitats"
#: Tile side plus the gap players leave between tiles (arranging only; reading measures it).
PITCH_MM = 52.0
#: Largest centre distance of two neighbouring tiles (diagonal neighbours too, so one unread tile does not cut a park in two).
NEIGHBOUR_MM = 76.0
#: Half-sides of the square a texture probe looks at in a cell (as ``covered_cells`` does for a 50 mm tile).
PROBE_HALF_MM = (15.0, 15.0)
#: A probed cell looks printed above this fraction of the read faces' texture (as in ``covered_cells``)...
BUSY = 0.6
#: ...and like bare table below this one (printed faces measure 5-20 times bare table, blurred or not).
BARE = 0.3

#: A placement or an unknown place (both move with their park).
P = TypeVar("P", Placement, UnknownPlace)



def _catalog():  # noqa: ANN202 - the game's own catalog type
    return find_game(GAME_ID).catalog  # type: ignore[attr-defined]


# -- arranging (scene renderer) ------------------------------------------------------------


def arrange(state: BoardState) -> Mapping[str, TablePose]:
    """A realistic table: parks side by side (odd seats turned to face the other side), the
    market above them in seat 0's axes, the score track to the right."""
    game = find_game(GAME_ID)
    index = game.component_index  # type: ignore[attr-defined]
    cat = _catalog()
    rng = np.random.default_rng(len(state.placements))
    poses: dict[str, TablePose] = {}
    players = sorted(state.players, key=lambda p: p.seat)
    x_cursor = 0.0
    park_bottom = 0.0
    for k, player in enumerate(players):
        park = [p for p in state.in_area(PARK_PREFIX + player.id) if isinstance(p.cell, tuple)]
        if not park:
            continue
        xs = [p.cell[0] for p in park]  # type: ignore[index]
        ys = [p.cell[1] for p in park]  # type: ignore[index]
        width = (max(xs) - min(xs) + 1) * PITCH_MM
        height = (max(ys) - min(ys) + 1) * PITCH_MM
        turn = 180.0 if k % 2 else 0.0
        centre = np.array([x_cursor + width / 2, height / 2])
        mid = np.array([(max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2])
        for p in park:
            off = (np.array(p.cell, float) - mid) * PITCH_MM
            v = rotate(off, turn) + centre + rng.normal(0, 0.8, 2)
            poses[p.component] = TablePose(float(v[0]), float(v[1]), wrap_degrees(turn + 90.0 * p.rotation + rng.normal(0, 1.5)))
        x_cursor += width + 70.0
        park_bottom = max(park_bottom, height)
    market = [p for p in state.in_area(MARKET) if isinstance(p.cell, tuple)]
    if market:
        xs = [p.cell[0] for p in market]  # type: ignore[index]
        origin = np.array([max(0.0, x_cursor - 70.0) / 2 - (max(xs) + 1) * PITCH_MM / 2, -4 * PITCH_MM - 40.0])
        rows = max(p.cell[1] for p in market) + 1  # type: ignore[index]
        origin[1] = -rows * PITCH_MM - 50.0
        for p in market:
            v = origin + (np.array(p.cell, float) + 0.5) * PITCH_MM + rng.normal(0, 0.8, 2)
            poses[p.component] = TablePose(float(v[0]), float(v[1]), wrap_degrees(90.0 * p.rotation + rng.normal(0, 1.5)))
    track = [p for p in state.in_area(TRACK)]
    board = index.get(cat.track.id)
    if track and board is not None:
        w, h = board.size_mm
        bpose = TablePose(x_cursor + w / 2 + 20.0, park_bottom - h / 2, 0.0)
        poses[board.id] = bpose
        for p in track:
            if p.component == board.id or not isinstance(p.cell, str):
                continue
            offset = (9.0, 9.0) if p.on else (0.0, 0.0)
            poses[p.component] = space_pose(bpose, board, p.cell, offset)
    return poses


# -- reading (scanner) ---------------------------------------------------------------------


def _players(view: TableView, entrances: list[tuple[Located, str]]) -> tuple[Player, ...]:
    if view.players is not None:
        return tuple(view.players)
    order = [c.colour for c in _catalog().colours]
    seen = sorted({colour for _, colour in entrances}, key=order.index)
    return tuple(Player(colour, colour.title(), colour, i) for i, colour in enumerate(seen))  # type: ignore[arg-type]


def _pitch(items: list[Located]) -> float:
    """The park's measured tile pitch: median distance to the nearest neighbour."""
    if len(items) < 2:
        return PITCH_MM
    c = np.array([x.centre_mm for x in items])
    d = np.linalg.norm(c[:, None] - c[None], axis=2)
    np.fill_diagonal(d, np.inf)
    near = d.min(axis=1)
    near = near[near < NEIGHBOUR_MM]
    return float(np.clip(np.median(near), 50.0, 60.0)) if len(near) else PITCH_MM


def _market_origin(
    view: TableView, frame: tuple[np.ndarray, float, float], cells: list[tuple[int, int]], columns: int, rows: int
) -> tuple[int, int] | None:
    """Where the full market grid lies (in the frame's cells) when the cells read span only part
    of it: the one way of completing them in which every unread cell looks printed, while every
    other way would take in bare table and no whole row or column next to the completed grid
    looks printed (a market larger than the player count's; clutter beside it covers a cell or
    two). None when no way or several ways fit: its cells could be shifted. A blurred row of
    tiles still looks printed; bare table does not."""
    if view.texture is None:
        return None
    read = set(cells)
    seen: dict[tuple[int, int], float] = {}

    def texture(cell: tuple[int, int]) -> float:
        if cell not in seen:
            seen[cell] = view.texture(cell_polygon(frame, cell, PROBE_HALF_MM))  # type: ignore[misc]
        return seen[cell]

    xs, ys = [c[0] for c in read], [c[1] for c in read]
    # Every cell a completion (or the rows and columns beside it) may ask about, probed at once.
    around = [(x, y) for x in range(max(xs) - columns, min(xs) + columns + 1)
              for y in range(max(ys) - rows, min(ys) + rows + 1) if (x, y) not in read]
    wanted = sorted(read)[:8] + around
    seen.update(zip(wanted, probe_all(view.texture, cell_polygons(frame, wanted, PROBE_HALF_MM))))
    reference = float(np.median([texture(c) for c in sorted(read)[:8]]))
    if reference <= 0:
        return None
    fitting: list[tuple[int, int]] = []
    for ox in range(max(xs) - columns + 1, min(xs) + 1):
        for oy in range(max(ys) - rows + 1, min(ys) + 1):
            values = [texture((ox + i, oy + j)) for i in range(columns) for j in range(rows) if (ox + i, oy + j) not in read]
            if all(v > BUSY * reference for v in values):
                fitting.append((ox, oy))
            elif not any(0 < v < BARE * reference for v in values):
                return None  # neither printed nor clearly bare (out of the photo, a foreign code): undecided
    if len(fitting) != 1:
        return None
    ox, oy = fitting[0]
    sides = (
        [(ox + i, oy - 1) for i in range(columns)], [(ox + i, oy + rows) for i in range(columns)],
        [(ox - 1, oy + j) for j in range(rows)], [(ox + columns, oy + j) for j in range(rows)],
    )
    if any(all(texture(c) > BUSY * reference for c in side) for side in sides):
        return None  # a whole printed row or column beyond: a larger market than the player count's
    return fitting[0]


def _nearest(points: np.ndarray, point: np.ndarray) -> int:
    """Index of the nearest of some points (the first of equals)."""
    return int(np.argmin(np.linalg.norm(points - point, axis=1)))


def _next_to(cells: set[tuple[int, int]], cell: tuple[int, int]) -> bool:
    """Whether a cell or one of its 4-neighbours is among the cells."""
    x, y = cell
    return any(c in cells for c in ((x, y), (x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)))


def read(view: TableView) -> LayoutResult:
    """Parks, market and score track from the positioned components."""
    cat = _catalog()
    draft = Draft()
    placed, unknown, problems, fits = draft.placed, draft.unknown, draft.problems, draft.fits
    entrances = [(c, cs.colour) for c in view.located if (cs := cat.colour_of_entrance(c.component.id))]
    entrance_colour = {id(c): colour for c, colour in entrances}
    players = _players(view, entrances)
    # A seated player whose entrance is not in view has no park in this reading: said, so that
    # an empty park is never scored as if it were the player's.
    in_view = {colour for _, colour in entrances}
    problems += [
        Problem(ProblemCode.PLAYER_NOT_IN_VIEW, f"the entrance of {p.name or p.id}'s park is not in view; that park is not read",
                areas=(PARK_PREFIX + p.id,))
        for p in players
        if view.players is not None and p.id not in in_view and (p.colour or p.id) not in in_view
    ]
    by_colour = {p.colour or p.id: p for p in players}
    by_colour.update({p.id: p for p in players})
    seat0 = min((p.seat for p in players), default=None)
    centres = {id(c): np.array(c.centre_mm) for c in view.located}

    grid_items = [c for c in view.located if c.component.kind in ("tile", "entrance", "figure")]
    figures = {id(c) for c in grid_items if c.component.kind == "figure"}
    park_items = [c for c in grid_items if id(c) not in figures]
    groups = connected_groups(park_items, NEIGHBOUR_MM)
    frames, seat0_angle, loose, market_items = _parks(draft, groups, park_items, entrance_colour, by_colour, seat0, centres)
    _market(view, draft, market_items, [c for c in grid_items if id(c) in figures], figures, players, seat0_angle,
            centres, frames, loose)
    for m in loose:
        problems.append(Problem(ProblemCode.LOOSE, f"{m.component.name} lies apart from every park and the market; not placed", (m.component.id,), (m.image_centre,)))

    _track(view, draft, centres)
    faint = _unread_cells(view, draft, frames, players)
    confidence = float(np.mean(fits)) if fits else (1.0 if not view.located else 0.5)
    if any(p.code == ProblemCode.PARK_NO_PLAYER for p in problems):
        confidence *= 0.5
    again = _look_again(unknown + faint, frames, placed)
    return LayoutResult(players, tuple(placed), tuple(unknown), tuple(problems), confidence, look_again=again)


def _parks(
    draft: Draft, groups: list[list[int]], park_items: list[Located], entrance_colour: dict[int, str],
    by_colour: dict[str, Player], seat0: int | None, centres: dict[int, np.ndarray],
) -> tuple[dict[str, tuple[np.ndarray, float, float]], float | None, list[Located], list[Located]]:
    """Each group of tiles around an entrance is its player's park, on a grid from the entrance:
    the parks' grid frames, seat 0's entrance angle, the tiles of no player and the groups
    without an entrance (the market, when they are many)."""
    placed, problems, fits = draft.placed, draft.problems, draft.fits
    frames: dict[str, tuple[np.ndarray, float, float]] = {}
    seat0_angle: float | None = None
    loose: list[Located] = []
    market_items: list[Located] = []
    for group in groups:
        members = [park_items[i] for i in group]
        ents = [m for m in members if id(m) in entrance_colour]
        if not ents:
            market_items.extend(members)
            continue
        owners = {}
        for e in ents:
            player = by_colour.get(entrance_colour[id(e)])
            if player is None:
                problems.append(Problem(ProblemCode.PARK_NO_PLAYER, f"{e.component.name} belongs to no player of this game", (e.component.id,), (e.image_centre,)))
                continue
            owners[id(e)] = player
        pitch = _pitch(members)
        ent_centres = np.array([centres[id(e)] for e in ents])
        # Each tile joins the nearest entrance (several entrances touching is unusual but possible).
        for m in members:
            if id(m) in entrance_colour and id(m) not in owners:
                continue
            best = ents[_nearest(ent_centres, centres[id(m)])]
            owner = owners.get(id(best))
            if owner is None:
                loose.append(m)
                continue
            area = PARK_PREFIX + owner.id
            origin, angle = centres[id(best)], best.angle_deg
            frames[area] = (origin, angle, pitch)
            if owner.seat == seat0:
                seat0_angle = angle
            offset = rotate(centres[id(m)] - origin, -angle)
            cell, err = grid_cell(offset, (pitch, pitch))
            turns, turn_err = m.turns_from(angle)
            fits.append(cell_fit(err) * (1.0 if turn_err < 20 else 0.5))
            if turn_err >= 20:
                problems.append(Problem(ProblemCode.ROTATION_UNCLEAR, f"{m.component.name} lies {turn_err:.0f} degrees off the park grid", (m.component.id,), (m.image_centre,)))
            placed.append(Placed(Placement(m.component.id, area, cell, turns), m))  # type: ignore[arg-type]

    return frames, seat0_angle, loose, market_items


def _market(
    view: TableView, draft: Draft, market_items: list[Located], market_figures: list[Located], figures: set[int],
    players: tuple[Player, ...], seat0_angle: float | None, centres: dict[int, np.ndarray],
    frames: dict[str, tuple[np.ndarray, float, float]], loose: list[Located],
) -> None:
    """The market: groups with a figure or of four tiles or more, on a grid along seat 0's
    entrance (its frame joins ``frames``; smaller groups join ``loose``)."""
    placed, unknown, problems, fits = draft.placed, draft.unknown, draft.problems, draft.fits
    if market_items or market_figures:
        market_groups = connected_groups(market_items + market_figures, NEIGHBOUR_MM)
        chosen: list[Located] = []
        for g in market_groups:
            members = [(market_items + market_figures)[i] for i in g]
            if any(id(m) in figures for m in members) or len(members) >= 4:
                chosen.extend(members)
            else:
                loose.extend(members)
        market_layout = _catalog().markets.get(len(players))
        if chosen and seat0_angle is None:
            problems.append(Problem(ProblemCode.MARKET_UNANCHORED, "the market's axes come from seat 0's entrance, which is not in view; market not placed",
                                    tuple(m.component.id for m in chosen), tuple(m.image_centre for m in chosen)))
        elif chosen:
            ref = seat0_angle
            tiles = [m for m in chosen if id(m) not in figures] or chosen
            pitch = _pitch(tiles)
            anchor = centres[id(tiles[0])]
            cells, market_fits = [], []
            for m in chosen:
                cell, err = grid_cell(rotate(centres[id(m)] - anchor, -ref), (pitch, pitch))
                cells.append(cell)
                market_fits.append(cell_fit(err))
            x0, y0 = min(c[0] for c in cells), min(c[1] for c in cells)
            extent = (max(c[0] for c in cells) - x0 + 1, max(c[1] for c in cells) - y0 + 1)
            partial = market_layout is not None and extent != (market_layout.columns, market_layout.rows)
            unread: list[tuple[int, int]] = []
            if partial and market_layout is not None:
                columns, rows = market_layout.columns, market_layout.rows
                completed = (
                    _market_origin(view, (anchor, ref, pitch), cells, columns, rows)
                    if extent[0] <= columns and extent[1] <= rows else None
                )
                if completed is not None:
                    x0, y0 = completed
                    read_cells = set(cells)
                    unread = [(i, j) for i in range(columns) for j in range(rows) if (x0 + i, y0 + j) not in read_cells]
                    partial = False
            if partial and market_layout is not None:
                problems.append(Problem(ProblemCode.MARKET_PARTIAL,
                                        f"the market in view spans {extent[0]}x{extent[1]} cells, not the"
                                        f" {market_layout.columns}x{market_layout.rows} of {len(players)} players; its cells are not placed",
                                        tuple(m.component.id for m in chosen), tuple(m.image_centre for m in chosen)))
            else:
                fits.extend(market_fits)
                frames[MARKET] = (anchor + rotate(np.array([x0, y0], float) * pitch, ref), ref, pitch)
                for m, cell in zip(chosen, cells):
                    turns, _ = m.turns_from(ref)
                    placed.append(Placed(Placement(m.component.id, MARKET, (cell[0] - x0, cell[1] - y0), turns), m))
                # Cells of the completed market that look printed but were not read.
                unknown.extend(UnknownPlace(MARKET, cell) for cell in unread)


def _track(view: TableView, draft: Draft, centres: dict[int, np.ndarray]) -> None:
    """The score track: goals and score markers on its spaces."""
    cat = _catalog()
    placed, problems = draft.placed, draft.problems
    board = next((c for c in view.located if c.component.id == cat.track.id), None)
    if board is not None:
        placed.append(Placed(Placement(board.component.id, TRACK), board))
        stacked: dict[str, str] = {}
        order = [c.colour for c in cat.colours]
        on_track = [c for c in view.located if c.component.kind in ("goal", "marker")]
        on_track.sort(key=lambda c: order.index(cs.colour) if (cs := cat.colour_of_marker(c.component.id)) else -1)
        for c in on_track:
            name = space_at(board, centres[id(c)])
            if name is None:
                problems.append(Problem(ProblemCode.OFF_TRACK, f"{c.component.name} lies on no space of the score track", (c.component.id,), (c.image_centre,)))
                continue
            below = stacked.get(name)
            placed.append(Placed(Placement(c.component.id, TRACK, name, 0, True, below), c))  # type: ignore[arg-type]
            stacked[name] = c.component.id
    else:
        for c in view.located:
            if c.component.kind in ("goal", "marker"):
                problems.append(Problem(ProblemCode.NO_TRACK, f"{c.component.name} seen but the score track is not in view", (c.component.id,), (c.image_centre,)))


def _unread_cells(
    view: TableView, draft: Draft, frames: dict[str, tuple[np.ndarray, float, float]], players: tuple[Player, ...]
) -> list[UnknownPlace]:
    """Unknown cells of the parks and the market (joined to ``draft``), and the faint ones only
    looked at again (returned)."""
    placed, unknown = draft.placed, draft.unknown
    # Unreadable markers inside a park or the market become unknown cells where a tile's
    # outline lies (an undecoded quad may span the table between two parks); elsewhere they
    # are only looked at again, as faint cells are.
    faint: list[UnknownPlace] = []
    taken = {(p.placement.area, p.placement.cell) for p in placed} | {(u.area, u.cell) for u in unknown}
    grid_cells: dict[str, dict[tuple[int, int], Located]] = {area: {} for area in frames}
    for p in placed:
        if p.placement.area in grid_cells and isinstance(p.placement.cell, tuple):
            grid_cells[p.placement.area][p.placement.cell] = p.located
    for u in view.unreadable:
        if u.centre_mm is None:
            continue
        best_area, best_cell, best_err = None, None, 1.0
        for area, (origin, angle, pitch) in frames.items():
            cell, err = grid_cell(rotate(np.array(u.centre_mm) - origin, -angle), (pitch, pitch))
            if _next_to(set(grid_cells[area]), cell) and (area, cell) not in taken and err < best_err:
                best_area, best_cell, best_err = area, cell, err
        if best_area is None or best_cell is None:
            continue
        if face_outlined(view, frames[best_area], grid_cells[best_area], best_cell, (50.0, 50.0)):
            taken.add((best_area, best_cell))
            unknown.append(UnknownPlace(best_area, best_cell))
        else:
            faint.append(UnknownPlace(best_area, best_cell))
    # Cells next to a park or in the market that look printed but were not read (faint ones
    # are only looked at again).
    for area, frame in frames.items():
        occupied = grid_cells[area]
        if area == MARKET:
            grid = _catalog().markets.get(len(players))
            def skip(cell: tuple[int, int], grid=grid) -> bool:  # noqa: ANN001
                return grid is None or not (0 <= cell[0] < grid.columns and 0 <= cell[1] < grid.rows)
        else:
            def skip(cell: tuple[int, int]) -> bool:
                return cell[0] == 0 and cell[1] > 0  # the entrance road's column stays empty
        covered = covered_cells(view, frame, occupied, (50.0, 50.0), skip=skip)  # type: ignore[arg-type]
        for cell in covered.busy:
            if (area, cell) not in taken:
                taken.add((area, cell))
                unknown.append(UnknownPlace(area, cell))
        faint.extend(UnknownPlace(area, cell) for cell in covered.faint if (area, cell) not in taken)
    faint = [f for f in dict.fromkeys(faint) if (f.area, f.cell) not in taken]
    return faint


def _look_again(
    unknown: list[UnknownPlace], frames: dict[str, tuple[np.ndarray, float, float]], placed: list[Placed]
) -> tuple[LookAgain, ...]:
    """Unknown grid cells as places to read once more, for faces of the sizes read in that grid."""
    sizes: dict[str, set[tuple[float, float]]] = {}
    for p in placed:
        sizes.setdefault(p.placement.area, set()).add(tuple(p.located.component.size_mm))  # type: ignore[arg-type]
    out = []
    for u in unknown:
        if u.area not in frames or not isinstance(u.cell, tuple):
            continue
        centre = cell_centre(frames[u.area], u.cell)
        for size in sorted(sizes.get(u.area, ())):
            out.append(LookAgain(centre, size, angle_deg=frames[u.area][1]))
    return tuple(out)


def canonical(state: BoardState) -> BoardState:
    """The state as the scanner reports it: every park's entrance at (0, 0)."""
    cat = _catalog()
    shift: dict[str, tuple[int, int]] = {}
    for p in state.placements:
        if cat.colour_of_entrance(p.component) and isinstance(p.cell, tuple):
            shift[p.area] = p.cell
    def moved(p: P) -> P:
        s = shift.get(p.area)
        if s is None or not isinstance(p.cell, tuple):
            return p
        return dataclasses.replace(p, cell=(p.cell[0] - s[0], p.cell[1] - s[1]))
    return BoardState(state.game, state.players, tuple(moved(p) for p in state.placements), state.options, state.extras,
                      tuple(moved(u) for u in state.unknown))


LAYOUT = GameLayout(
    GAME_ID, read, arrange, square_neighbours=True, neighbour_kinds=("tile", "entrance", "goal"), outlines=True
)
