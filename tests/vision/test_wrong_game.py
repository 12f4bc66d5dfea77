"""Tags are numbered per game: a photo of one game scanned as another must not become a board."""

from __future__ import annotations

from vision import recognise, sample_photo


def test_a_phylo_table_scanned_as_habitats_places_nothing() -> None:
    rec = recognise(sample_photo("phylo").read_bytes(), "habitats")
    assert rec.state.placements == ()
    assert rec.disagreements, "the misread tags are reported, not dropped silently"


def test_a_habitats_table_scanned_as_phylo_places_nothing() -> None:
    rec = recognise(sample_photo("habitats").read_bytes(), "phylo")
    assert rec.state.placements == ()


def test_the_right_game_still_reads_its_sample() -> None:
    rec = recognise(sample_photo("phylo").read_bytes(), "phylo")
    assert len(rec.state.placements) > 10 and not rec.disagreements
