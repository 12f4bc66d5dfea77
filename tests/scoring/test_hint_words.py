"""Every hint a player reads is in players' words: no ids, coordinates or arrows.

Each piece a player could hold in each game's examples is asked about; every legal spot's and
every refused place's label, every market reason and the pick list's names are read with the
shared checker of what players must never see.
"""

from __future__ import annotations

import pytest

from scoring.hints import find_hints, holdable_labels, market_choices
from scoring.words import Words
from tests.plain_words import faults

from .test_hints import GAMES, STARTS, load

EXAMPLES = ("example_before.json", "example.json", "start")


def _read(game_id: str, name: str) -> list[tuple[str, list[str]]]:
    """(text, faults) of everything the hints of one example show, for every seated player."""
    state = load(game_id, STARTS[game_id] if name == "start" else name)
    seen: list[str] = []
    for p in state.players:
        labels = holdable_labels(state, p.id)
        seen += labels.values()
        for component in labels:
            hints = find_hints(state, component, p.id, with_refused=True)
            seen += [s.place.label for s in hints.spots]
            seen += [r.place.label for r in hints.refused]
        seen += [m.reason for m in market_choices(state, p.id)]
    return [(text, faults(text, game_id)) for text in dict.fromkeys(seen)]


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("name", EXAMPLES)
def test_every_hint_label_reads_plainly(game_id: str, name: str) -> None:
    read = _read(game_id, name)
    assert read, "the example offers something to hold"
    assert [(text, f) for text, f in read if f] == []


def test_picker_tells_same_named_pieces_apart_without_ids() -> None:
    """Two Grass flower tiles in the Habitats market: each named with where it lies, never its id."""
    state = load("habitats", "example_before.json")
    labels = holdable_labels(state, "yellow")
    grass = {c: text for c, text in labels.items() if text.startswith("Grass flower")}
    assert len(grass) == 2 and len(set(grass.values())) == 2
    assert all("in the market" in text and c not in text for c, text in grass.items())
    words = Words.of("habitats", state)
    assert all(text == words.name(c) for c, text in labels.items() if c not in grass)


def test_places_name_what_lies_beside() -> None:
    """A label tells where on the table: the park and the tiles beside, a planet space, a jungle position."""
    habitats = load("habitats", "example_before.json")
    spots = find_hints(habitats, "T102", "yellow").spots
    assert any(s.place.label == "Yellow's park, west of Wildebeest (roads south)" for s in spots)
    assert all(s.place.key.startswith("park:yellow (") for s in spots)
    biomos = load("biomos", "example_before.json")
    labels = [s.place.label for s in find_hints(biomos, "DESERT-03", "red").spots]
    assert "space 2 of Red's planet board, sliding the tokens of spaces 2 to 3 one space on, completes Shrubland" in labels
    rainforest = load("rainforest", "example_before.json")
    labels = [s.place.label for s in find_hints(rainforest, "FROG-B1", "ana").spots]
    assert any("locks it into jungle position 3, next to Jungle tile G03" in text for text in labels)
