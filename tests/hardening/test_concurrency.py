"""Four phones posting frames while moves are saved: nobody sees a lock, every save is kept.

The short variant runs for a few seconds; ``bench/hardening_load.py`` runs the full minute.
"""

from __future__ import annotations

from pathlib import Path

from .crash import database_facts, new_play
from .load import live_server, run_clients
from .scenes import hostile_scene

SECONDS = 6.0


def test_four_clients_frames_and_saves(tmp_path: Path) -> None:
    instance = tmp_path / "instance"
    play = new_play(instance)
    image = hostile_scene("habitats", "T010", ["https://example.org/a", "<b>x</b>"], seed=1,
                          size=(960, 540), module_px=4).jpeg
    with live_server(instance) as base:
        report = run_clients(base, play, image, clients=4, seconds=SECONDS)
    assert report.bad == []
    assert report.frames >= 8 and len(report.saves) >= 4
    facts = database_facts(instance, play)
    assert facts["integrity"] == ["ok"]
    for seq, digest in report.saves.items():
        assert facts["stored"].get(seq) == digest, seq
    assert sorted(facts["stored"]) == list(range(1, len(facts["stored"]) + 1))
    assert len(facts["stored"]) == len(report.saves)  # only acknowledged saves were stored
