"""What a scan tells the players reads as it is: the bundled samples, each scanned as its own game
and as every other game (loose pieces, another game's tags, a refused reading), say every problem
and disagreement with printed names, no ids, coordinates or arrows; the ids stay in ``components``."""

from __future__ import annotations

import pytest

from scoring import find_game
from tests.plain_words import faults
from vision import recognise, sample_photo

GAMES = ("habitats", "phylo", "biomos", "rainforest", "borneo")


@pytest.mark.parametrize("photo", GAMES)
def test_problems_read_in_players_words(photo: str) -> None:
    data = sample_photo(photo).read_bytes()
    said = 0
    for game in GAMES:
        rec = recognise(data, game)
        catalog = {c.id for c in find_game(game).components()}
        for p in rec.problems:
            assert faults(p.message, game) == [], (game, p)
            assert set(p.components) <= catalog, (game, p)
            said += 1
        for d in rec.disagreements:
            assert faults(d.message, game) == [], (game, d)
            said += 1
    assert said, "scanning a table as other games always has something to say"
