"""What lies next to a placed piece, read off each game's sample table (cells checked by hand)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring import find_game
from scoring.nearby import beside

SAMPLES = Path(__file__).resolve().parents[2] / "vision" / "samples"

# (game, piece, the pieces beside it): worked out from each sample's cells by hand.
CASES = [
    # Habitats park, square cells edge to edge: (1,0) touches (1,-1) and the entrance at (0,0).
    ("habitats", "T065", {"T046", "E-YELLOW"}),
    # The market is a row of offers, not a park: nothing is "beside" there.
    ("habitats", "T011", set()),
    # PHYLO at (1,1): Grey Wolf at (2,1) and Salal at (1,0); nothing at (0,1) or (1,2).
    ("phylo", "SNOWHARE", {"GREYWOLF", "SALAL"}),
    # An event card lying on a species is part of that card's place.
    ("phylo", "CLIMATE-1", set()),
    # Rainforest J1 (bottom left of the 3 x 3 jungle) touches J2 and J4.
    ("rainforest", "TILE-G06", {"TILE-G03", "TILE-G01"}),
    ("rainforest", "PARROT-R1", set()),
    # Borneo's platform is a hexagon flower: N touches NE, NW and the centre.
    ("borneo", "T08", {"T13", "T15", "T07"}),
    ("borneo", "LEOPARD-1", set()),  # a card in a stack has no cell
    # Biomos discovery planet: P1 touches P2 only (the ring is open between P12 and P1).
    ("biomos", "FOREST-01", {"MOUNTAIN-01"}),
    ("biomos", "OCEAN-06", {"OCEAN-05"}),  # P12: P11, never P1
    ("biomos", "FOREST-04", set()),  # the Moon touches no space
]


def _sample(game_id: str):  # type: ignore[no-untyped-def]
    game = find_game(game_id)
    return game.load_state(json.loads((SAMPLES / f"{game_id}.json").read_text("utf-8")))


@pytest.mark.parametrize(("game_id", "piece", "expected"), CASES)
def test_the_pieces_beside_a_placed_one(game_id: str, piece: str, expected: set[str]) -> None:
    state = _sample(game_id)
    placement = next(p for p in state.placements if p.component == piece)
    found = beside(state, placement)
    assert set(found) == expected
    assert len(found) == len(set(found))


def test_a_piece_not_yet_beside_anything() -> None:
    """A tile laid alone at the edge of the park has no neighbour to be named."""
    state = _sample("habitats")
    lone = next(p for p in state.placements if p.component == "T065")
    far = type(lone)(lone.component, lone.area, (9, 9), lone.rotation, lone.face_up, lone.on, lone.slot)
    assert beside(state, far) == ()
