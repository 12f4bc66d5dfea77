"""A Biomos reading of a board state: who holds which planet, cards and tokens.

Areas used in states:
- ``planet:<player>``: the planet board side (no cell) and terrain tokens on spaces
  ``P1``..``P12``, ``MOON`` and, on the advanced side, ``R1``/``R2``;
- ``biomes:<player>``: the biome cards the player completed (face down allowed);
- ``centre``: the face-up terrain tokens (cells ``T1``..``T5`` or none);
- ``offer``: the face-up biome cards (cells ``B1``..``B4`` basic, ``G1``..``G4`` giant, or none);
- ``blackhole``: solo only: the Black Hole card, the tokens lying on it (``on`` = the
  card), the biomes it established and the tokens it absorbed (``on`` = that biome);
- ``drawn``: solo only: the three tokens drawn this turn before they are placed.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass

from ..words import Words
from ..model import BoardState, Placement, PlacementAt, PlayerId, StateError, parse_area
from .catalog import (
    BiomeCard,
    BiomeKind,
    BlackHoleSide,
    BoardFace,
    Catalog,
    Side,
    TerrainToken,
)
from .planet import MOON, Planet, spaces_of

#: The Black Hole's id on score sheets; no player may use it in a solo state.
BLACK_HOLE = "blackhole"


class Area(enum.Enum):
    """The kinds of area a Biomos state uses."""

    PLANET = "planet"
    BIOMES = "biomes"
    CENTRE = "centre"
    OFFER = "offer"
    BLACKHOLE = "blackhole"
    DRAWN = "drawn"


_PLAYER_AREAS = {Area.PLANET, Area.BIOMES}
_CENTRE_CELLS = frozenset(f"T{i}" for i in range(1, 6))
_OFFER_CELLS = frozenset((*(f"B{i}" for i in range(1, 5)), *(f"G{i}" for i in range(1, 5))))
_ALL_SPACES = frozenset(spaces_of(Side.ADVANCED))


def split_area(area: str) -> tuple[Area, str | None] | None:
    """``planet:red`` -> (PLANET, "red"); None when the area is not one of ours."""
    parsed = parse_area(area)
    try:
        kind = Area(parsed.kind)
    except ValueError:
        return None
    if kind in _PLAYER_AREAS:
        return (kind, parsed.owner) if parsed.owner else None
    return None if parsed.owner is not None else (kind, None)


def place_problem(cat: Catalog, p: Placement) -> str | None:
    """Geometry of one placement, independent of the rest of the state."""
    parsed = split_area(p.area)
    if parsed is None:
        return (
            f"unknown area {p.area!r}: use planet:<player>, biomes:<player>, centre, offer,"
            " blackhole or drawn"
        )
    area, _ = parsed
    token, card = cat.token(p.component), cat.biome(p.component)
    face, hole = cat.face(p.component), cat.black_hole(p.component)
    if p.on is not None and area is not Area.BLACKHOLE:
        return "only tokens and biomes of the Black Hole lie on another component"
    if area is Area.PLANET:
        if face is not None:
            return None if p.cell is None else "a planet board is the area itself and takes no cell"
        if token is None:
            return "only a planet board and terrain tokens go on a planet"
        if p.cell not in _ALL_SPACES:
            return f"a token on a planet needs a space P1..P12, MOON, R1 or R2, got {p.cell!r}"
        return None
    if area is Area.BIOMES:
        return None if card is not None else "only biome cards are kept next to a planet"
    if area in (Area.CENTRE, Area.DRAWN):
        if token is None:
            return f"only terrain tokens go in the {area.value}"
        if area is Area.CENTRE and p.cell is not None and p.cell not in _CENTRE_CELLS:
            return f"centre cells are T1..T5, got {p.cell!r}"
        return None
    if area is Area.OFFER:
        if card is None:
            return "only biome cards are offered"
        if p.cell is not None:
            if p.cell not in _OFFER_CELLS:
                return f"offer cells are B1..B4 and G1..G4, got {p.cell!r}"
            if (p.cell[0] == "G") != (card.kind is BiomeKind.GIANT):
                return f"cell {p.cell} is for {'giant' if p.cell[0] == 'G' else 'basic'} biomes"
        return None
    # Area.BLACKHOLE
    if hole is not None or card is not None:
        return None if p.on is None else "the Black Hole and its biomes lie on the table, not on something"
    if token is not None:
        if p.on is None:
            return "a token of the Black Hole lies on the Black Hole card or on one of its biomes"
        return None
    return "a planet board does not go on the Black Hole"


@dataclass(frozen=True, slots=True)
class Claim:
    """A biome card a player completed, as it lies next to the planet."""

    card: BiomeCard
    face_up: bool


@dataclass(frozen=True, slots=True)
class Table:
    """Everything the Biomos rules need from one board state."""

    players: tuple[PlayerId, ...]
    """In turn order (seat, then listing order)."""
    side: Side
    faces: Mapping[PlayerId, BoardFace]
    planets: Mapping[PlayerId, Planet]
    claims: Mapping[PlayerId, tuple[Claim, ...]]
    centre: frozenset[str]
    offer: frozenset[str]
    drawn: frozenset[str]
    black_hole: BlackHoleSide | None
    hole_tokens: tuple[TerrainToken, ...]
    """Tokens lying on the Black Hole card, not yet absorbed."""
    hole_biomes: Mapping[str, tuple[TerrainToken, ...]]
    """Biomes the Black Hole established, with the tokens it absorbed for each."""
    visible: frozenset[str]
    """Every component seen on the table (so not in the pouch or the deck)."""

    @property
    def is_solo(self) -> bool:
        return self.black_hole is not None


#: A component by its printed name, for refusals players read.
_name = Words("biomos", {}).name


def _on_black_hole(
    pending: list[tuple[int, Placement, TerrainToken]], black_hole: BlackHoleSide | None,
    hole_biomes: dict[str, list[TerrainToken]],
) -> list[TerrainToken]:
    """The free tokens on the Black Hole; those on one of its biomes go into ``hole_biomes``."""
    free: list[TerrainToken] = []
    for i, p, token in pending:
        if black_hole is not None and p.on == black_hole.id:
            free.append(token)
        elif p.on in hole_biomes:
            hole_biomes[p.on].append(token)
        else:
            raise PlacementAt(i, p.component).refused(
                f"lies on {p.on!r}, which is neither the Black Hole nor one of its biomes",
                said=f"it lies on {_name(str(p.on))}, which is neither the Black Hole nor one of its biomes")
    return free


def read_table(cat: Catalog, state: BoardState) -> Table:
    """Interpret a parsed state; raise StateError naming the entry that makes no sense."""
    players = tuple(p.id for p in sorted(state.players, key=lambda p: p.seat))
    known = set(players)
    faces: dict[PlayerId, BoardFace] = {}
    tokens: dict[PlayerId, dict[str, TerrainToken]] = {pid: {} for pid in players}
    claims: dict[PlayerId, list[Claim]] = {pid: [] for pid in players}
    centre: set[str] = set()
    offer: set[str] = set()
    drawn: set[str] = set()
    black_hole: BlackHoleSide | None = None
    hole_tokens: list[TerrainToken] = []
    hole_biomes: dict[str, list[TerrainToken]] = {}
    pending_on: list[tuple[int, Placement, TerrainToken]] = []
    for i, p in enumerate(state.placements):
        where = PlacementAt(i, p.component)
        parsed = split_area(p.area)
        if parsed is None:
            raise where.refused(f"unknown area {p.area!r}")
        area, owner = parsed
        if owner is not None and owner not in known:
            raise where.refused(f"area {p.area!r} names no player of this state")
        pid = PlayerId(owner) if owner else None
        token = cat.token(p.component)
        if area is Area.PLANET and pid is not None:
            face = cat.face(p.component)
            if face is not None:
                if pid in faces:
                    raise where.refused(f"{p.area} already shows planet board side {faces[pid].id}",
                                        said=f"{_name(faces[pid].id)} is there already")
                faces[pid] = face
            elif token is not None and isinstance(p.cell, str):
                tokens[pid][p.cell] = token
        elif area is Area.BIOMES and pid is not None:
            card = cat.biome(p.component)
            if card is not None:
                claims[pid].append(Claim(card, p.face_up))
        elif area is Area.CENTRE:
            centre.add(p.component)
        elif area is Area.OFFER:
            if not p.face_up:
                raise where.refused(f"offered biome cards lie face up")
            offer.add(p.component)
        elif area is Area.DRAWN:
            drawn.add(p.component)
        elif area is Area.BLACKHOLE:
            hole = cat.black_hole(p.component)
            if hole is not None:
                black_hole = hole
            elif cat.biome(p.component) is not None:
                hole_biomes[p.component] = []
            elif token is not None:
                pending_on.append((i, p, token))
    hole_tokens += _on_black_hole(pending_on, black_hole, hole_biomes)

    _check_boards(players, faces)
    side = next(iter(faces.values())).side if faces else Side.DISCOVERY
    for pid in players:
        space_names = set(spaces_of(side))
        for cell in tokens[pid]:
            if cell not in space_names:
                raise StateError(f"planet:{pid}: space {cell} does not exist on the {side.value} side")
    if black_hole is not None:
        if len(players) != 1:
            raise StateError("the Black Hole card is the solo opponent: a solo state has exactly one player")
        if black_hole.side is not side:
            raise StateError(
                f"{black_hole.id} is the {black_hole.side.value} side of the Black Hole,"
                f" but the planet shows its {side.value} side"
            )
        if BLACK_HOLE in known:
            raise StateError(f"player id {BLACK_HOLE!r} is reserved for the Black Hole in solo games")
    elif hole_biomes or drawn:
        raise StateError("biomes on the Black Hole and drawn tokens need the Black Hole card (solo mode)")
    if state.options.get("exclude_great_sand_dunes"):
        for p in state.placements:
            card = cat.biome(p.component)
            if card is not None and card.kind is BiomeKind.GIANT and card.number == 5:
                raise StateError(f"{p.component} ({card.name}) is out of play: option exclude_great_sand_dunes")
    offered = [cat.biome(c) for c in offer]
    for kind in BiomeKind:
        n = sum(1 for c in offered if c is not None and c.kind is kind)
        if n > 4:
            raise StateError(f"offer: {n} {kind.value} biome cards face up, the centre shows at most 4")
    if len(centre) > 5:
        raise StateError(f"centre: {len(centre)} terrain tokens, the centre shows at most 5")
    return Table(
        players, side, faces,
        {pid: Planet(side, tokens[pid]) for pid in players},
        {pid: tuple(claims[pid]) for pid in players},
        frozenset(centre), frozenset(offer), frozenset(drawn), black_hole, tuple(hole_tokens),
        {k: tuple(v) for k, v in hole_biomes.items()},
        frozenset(p.component for p in state.placements),
    )


def _check_boards(players: tuple[PlayerId, ...], faces: Mapping[PlayerId, BoardFace]) -> None:
    """Every player shows one side of their own board, all on the same side."""
    for pid in players:
        if pid not in faces:
            raise StateError(f"planet:{pid}: no planet board side placed (e.g. PLANET1-D)")
    boards: dict[int, PlayerId] = {}
    for pid, face in faces.items():
        if face.board in boards:
            raise StateError(
                f"planet:{pid}: planet board {face.board} is already in front of {boards[face.board]}"
                " (a board shows one side at a time)"
            )
        boards[face.board] = pid
    sides = {f.side for f in faces.values()}
    if len(sides) > 1:
        raise StateError("every planet must show the same side (discovery or advanced)")


__all__ = ["BLACK_HOLE", "MOON", "Area", "Claim", "Table", "place_problem", "read_table", "split_area"]
