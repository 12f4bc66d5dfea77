"""PHYLO on the table: one shared card grid; a card's owner is the way it faces.

Rulings of this layout:
- The grid's axes and origin are those of the first HOME card in catalog order (HOME-A in
  this edition): it lies in cell (0, 0) with rotation 0, so seat 0 is the player it faces.
  Cells are the edition's square pitch (95 mm) in that card's axes. When that card is not
  in view nothing is placed (another HOME card's cell relative to it is unknown, and a
  guessed grid would put cards in wrong cells).
- A card's rotation is its quarter turns from that HOME card's upright; the game maps a
  rotation to the seat it faces (0 south, 2 north, 1 west, 3 east).
- Without a player list, each seat facing a HOME card is named after that card's deck
  (``a`` for deck A); at least two seats are always present.
- An event card lies on the species card under its centre (``on``), with no cell.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from scoring import find_game
from scoring.model import BoardState, Placement, Player, UnknownPlace
from scoring.words import Words
from scoring.phylo.table import TABLE

from ..problems import ProblemCode
from . import (
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
    covered_cells,
    face_outlined,
    grid_cell,
    rotate,
    wrap_degrees,
)

GAME_ID = "phylo"
#: Seat a card faces by its rotation (seat 0 sits south, 1 north, 2 west, 3 east).
SEAT_OF_ROTATION: Mapping[int, int] = {0: 0, 2: 1, 1: 2, 3: 3}
ROTATION_OF_SEAT: Mapping[int, int] = {s: r for r, s in SEAT_OF_ROTATION.items()}
#: Where an event card lies on its target, in the target's axes (its tag stays visible).
EVENT_OFFSET_MM = (27.0, 0.0)
#: The kinds of card that lie in a grid cell (an event lies on a species card, in none).
IN_CELLS = ("home", "species")

#: How problems name components and spaces: printed names and the pad's words.
_W = Words("phylo", {})


def _catalog():  # noqa: ANN202 - the game's own catalog type
    return find_game(GAME_ID).catalog  # type: ignore[attr-defined]


def _kind(card_id: str) -> str:
    card = _catalog().cards.get(card_id)
    return "" if card is None else card.kind.value


def _homes() -> list[str]:
    return [cid for cid, card in _catalog().cards.items() if card.kind.value == "home"]


def arrange(state: BoardState) -> Mapping[str, TablePose]:
    """Cards on their cells (the edition's pitch), turned to their owner, events on their targets."""
    pitch = _catalog().edition.grid_pitch_mm
    rng = np.random.default_rng(len(state.placements) + 7)
    poses: dict[str, TablePose] = {}
    for p in state.placements:
        if p.area != TABLE or not isinstance(p.cell, tuple) or p.on is not None:
            continue
        v = np.array(p.cell, float) * pitch + rng.normal(0, 2.0, 2)
        poses[p.component] = TablePose(float(v[0]), float(v[1]), wrap_degrees(90.0 * p.rotation + rng.normal(0, 2.0)))
    for p in state.placements:
        if p.area == TABLE and p.on is not None and p.on in poses:
            base = poses[p.on]
            off = rotate(np.array(EVENT_OFFSET_MM), base.angle_deg)
            poses[p.component] = TablePose(base.x_mm + float(off[0]), base.y_mm + float(off[1]),
                                           wrap_degrees(90.0 * p.rotation + rng.normal(0, 3.0)))
    return poses


def _players(view: TableView, homes: list[tuple[Located, int]]) -> tuple[Player, ...]:
    if view.players is not None:
        return tuple(view.players)
    cat = _catalog()
    seats: dict[int, str] = {}
    for loc, turns in homes:
        seat = SEAT_OF_ROTATION.get(turns)
        if seat is not None and seat not in seats:
            seats[seat] = cat.cards[loc.component.id].deck.lower()
    for seat in (0, 1):
        if seat not in seats:
            seats[seat] = f"seat{seat}"
    return tuple(Player(pid, pid.upper() if len(pid) == 1 else pid.title(), "", seat)  # type: ignore[arg-type]
                 for seat, pid in sorted(seats.items()))


def _under(card: Located, candidates: list[Placed]) -> Placed | None:
    """The placed card whose face lies under another card's centre (nearest centre wins)."""
    centre = np.array(card.centre_mm)
    best: tuple[float, Placed] | None = None
    for p in candidates:
        w, h = p.located.component.size_mm
        f = p.located.to_face(centre[None])[0]
        if 0 <= f[0] <= w and 0 <= f[1] <= h:
            d = float(np.linalg.norm(centre - np.array(p.located.centre_mm)))
            if best is None or d < best[0]:
                best = (d, p)
    return None if best is None else best[1]


def read(view: TableView) -> LayoutResult:
    """The card grid relative to the reference HOME card; owners by orientation."""
    pitch = _catalog().edition.grid_pitch_mm
    order = _homes()
    homes_seen = sorted((c for c in view.located if _kind(c.component.id) == "home"),
                        key=lambda c: order.index(c.component.id))
    if homes_seen and order and homes_seen[0].component.id != order[0]:
        homes_seen = []
    problems: list[Problem] = []
    cards = [c for c in view.located if _kind(c.component.id) in IN_CELLS]
    events = [c for c in view.located if _kind(c.component.id) == "event"]
    if not homes_seen:
        if cards:
            problems.append(Problem(ProblemCode.NO_HOME, f"{_W.name(order[0]) if order else 'the first HOME card'} is not in view: the grid has no origin, nothing is placed",
                                    tuple(c.component.id for c in cards)))
        players = tuple(view.players) if view.players is not None else ()
        return LayoutResult(players, (), (), tuple(problems), 0.0 if cards else 1.0)
    ref = homes_seen[0]
    origin, angle = np.array(ref.centre_mm), ref.angle_deg
    players = _players(view, [(h, h.turns_from(angle)[0]) for h in homes_seen])
    seat_rotations = {ROTATION_OF_SEAT[p.seat] for p in players if p.seat in ROTATION_OF_SEAT}
    placed: list[Placed] = []
    fits: list[float] = []
    by_cell: dict[tuple[int, int], Placed] = {}
    for c in cards:
        cell, err = grid_cell(rotate(np.array(c.centre_mm) - origin, -angle), (pitch, pitch))
        turns, turn_err = c.turns_from(angle)
        fit = cell_fit(err) * (1.0 if turn_err < 20 else 0.5)
        if turns not in seat_rotations:
            problems.append(Problem(ProblemCode.FACES_NOBODY, f"{c.component.name} faces no seated player; not placed",
                                    (c.component.id,), (c.image_centre,)))
            fits.append(0.5)
            continue
        if cell in by_cell:
            other = by_cell[cell]
            problems.append(Problem(ProblemCode.CELL_TAKEN, f"{c.component.name} and {_W.name(other.placement.component)} lie on one place; {c.component.name} not placed",
                                    (c.component.id, other.placement.component), (c.image_centre,)))
            continue
        fits.append(fit)
        placed_card = Placed(Placement(c.component.id, TABLE, cell, turns), c)  # type: ignore[arg-type]
        by_cell[cell] = placed_card
        placed.append(placed_card)
    for e in events:
        turns, _ = e.turns_from(angle)
        target = _under(e, [p for p in placed if _kind(p.placement.component) == "species"])
        if target is None or turns not in seat_rotations:
            problems.append(Problem(ProblemCode.LOOSE_EVENT, f"{e.component.name} lies on no species card; not placed",
                                    (e.component.id,), (e.image_centre,)))
            continue
        placed.append(Placed(Placement(e.component.id, TABLE, None, turns, True, target.placement.component), e))
    # An unread marker beside the grid names an unknown cell where a card's outline lies (a
    # note's black squares are marker-shaped too); elsewhere it is only looked at again.
    unknown: list[UnknownPlace] = []
    unsure: list[tuple[int, int]] = []
    occupied = {cell: p.located for cell, p in by_cell.items()}
    card = _catalog().edition.card_size_mm
    for u in view.unreadable:
        if u.centre_mm is None:
            continue
        cell, err = grid_cell(rotate(np.array(u.centre_mm) - origin, -angle), (pitch, pitch))
        near = any(abs(cell[0] - k[0]) + abs(cell[1] - k[1]) <= 1 for k in by_cell)
        if not near or cell in by_cell or any(p.cell == cell for p in unknown) or cell in unsure:
            continue
        if face_outlined(view, (origin, angle, pitch), occupied, cell, card):
            unknown.append(UnknownPlace(TABLE, cell))
        else:
            unsure.append(cell)
    covered = covered_cells(view, (origin, angle, pitch), occupied, (63.5, 63.5))
    for cell in covered.busy:
        if all(u.cell != cell for u in unknown):
            unknown.append(UnknownPlace(TABLE, cell))
    confidence = float(np.mean(fits)) if fits else 1.0
    cells = list(dict.fromkeys([u.cell for u in unknown] + [*unsure, *covered.faint]))
    frame = (origin, angle, pitch)
    again = tuple(LookAgain(cell_centre(frame, cell), card, angle_deg=angle, kinds=IN_CELLS)  # type: ignore[arg-type]
                  for cell in cells)
    return LayoutResult(players, tuple(placed), tuple(unknown), tuple(problems), confidence, look_again=again)


def canonical(state: BoardState) -> BoardState:
    """The state as the scanner reports it: the reference HOME card at (0, 0), rotation 0; off-table cards left out."""
    order = _homes()
    table = [p for p in state.placements if p.area == TABLE]
    homes = sorted((p for p in table if p.component in order), key=lambda p: order.index(p.component))
    if not homes or not isinstance(homes[0].cell, tuple):
        return BoardState(state.game, state.players, tuple(table), state.options, {}, ())
    ref = homes[0]
    turn = ref.rotation % 4

    def moved(p: Placement) -> Placement:
        cell = p.cell
        if isinstance(cell, tuple):
            v = rotate(np.array([cell[0] - ref.cell[0], cell[1] - ref.cell[1]], float), -90.0 * turn)  # type: ignore[index]
            cell = (int(round(v[0])), int(round(v[1])))
        return Placement(p.component, p.area, cell, (p.rotation - turn) % 4, p.face_up, p.on, p.slot)

    return BoardState(state.game, state.players, tuple(moved(p) for p in table), state.options, {}, ())


LAYOUT = GameLayout(GAME_ID, read, arrange, square_neighbours=True, outlines=True)
