"""Crash safety: a writer killed with SIGKILL 100 times while saving moves loses nothing.

After the kills the database passes SQLite's integrity and foreign-key checks, every
acknowledged move is stored exactly as acknowledged, the timeline has no gap, and a
freshly started app reloads the game to the score sheet its last state gives.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from companion.app import create_app
from scoring import find_game

from .crash import GAME, database_facts, kill_writers, new_play

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "darwin", reason="needs fork")

KILLS = 100


def test_sigkilled_writer_loses_no_acknowledged_move(tmp_path: Path) -> None:
    instance = tmp_path / "instance"
    play = new_play(instance)
    report = kill_writers(instance, play, kills=KILLS, seed=2024)
    assert report.errors == []
    assert len(report.acks) >= KILLS // 4, "the writers hardly ever got a move in"

    facts = database_facts(instance, play)
    assert facts["integrity"] == ["ok"] and facts["foreign_keys"] == []
    stored = facts["stored"]
    assert sorted(stored) == list(range(1, len(stored) + 1))  # no gap, no repeat
    for seq, digest in report.acks.items():
        assert stored.get(seq) == digest, seq
    # Moves at the same point of the cycle store the same state, acknowledged or not.
    by_turn: dict[int, set[str]] = {}
    for seq, digest in stored.items():
        by_turn.setdefault((seq - 1) % 3, set()).add(digest)
    assert all(len(v) == 1 for v in by_turn.values()), by_turn

    client = create_app({"TESTING": True, "INSTANCE_PATH": str(instance)}).test_client()
    last = client.get(f"/api/plays/{play}").get_json()["current"]
    assert last["seq"] == max(stored)
    game = find_game(GAME)
    expected = game.score_sheet(game.load_state(last["state"])).to_dict()
    scored = client.get(f"/api/plays/{play}/score?confirm=1").get_json()
    assert scored["seq"] == last["seq"] and scored["sheet"] == expected
    assert sum(p["total"] for p in expected["players"]) > 0
