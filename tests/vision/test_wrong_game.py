"""Scanning the wrong game, and what a sample photo may report."""

from __future__ import annotations

from vision import recognise, sample_photo


def test_a_phylo_table_scanned_as_habitats_places_nothing() -> None:
    rec = recognise(sample_photo("phylo").read_bytes(), "habitats")
    assert rec.state.placements == ()
    # PHYLO prints no tag id Habitats prints: every card's code is named as another game's, not dropped.
    named = [f for f in rec.foreign if f.reason == "from another game (PHYLO)"]
    assert len(named) >= 25, "the cards are reported, not dropped silently"


def test_a_habitats_table_scanned_as_phylo_places_nothing() -> None:
    rec = recognise(sample_photo("habitats").read_bytes(), "phylo")
    assert rec.state.placements == ()


def test_the_right_game_still_reads_its_sample() -> None:
    rec = recognise(sample_photo("phylo").read_bytes(), "phylo")
    assert len(rec.state.placements) > 10 and not rec.disagreements


def test_unreadable_markers_have_a_place_on_the_photo() -> None:
    """A decoder error it could not place is not an unreadable marker (nothing to point at)."""
    for game in ("habitats", "phylo", "biomos", "rainforest", "borneo"):
        doc = recognise(sample_photo(game).read_bytes(), game).to_dict()
        for item in doc["unreadable"]:
            xs = {round(x) for x, _ in item["image_corners"]}
            ys = {round(y) for _, y in item["image_corners"]}
            assert len(xs) > 1 and len(ys) > 1, (game, item)


def test_every_sample_scanned_as_every_other_game_reads_without_error() -> None:
    """Another game's table, with its duplicated and shared tags, never breaks the scan."""
    games = ("habitats", "phylo", "biomos", "rainforest", "borneo")
    for photo in games:
        data = sample_photo(photo).read_bytes()
        for game in games:
            if game != photo:
                rec = recognise(data, game)
                assert rec.game == game and (rec.foreign or rec.disagreements or rec.duplicated or rec.problems)
