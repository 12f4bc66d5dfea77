"""The timeline is 1, 2, 3... without gaps under any interleaving of moves, undos and finishes.

Real concurrent clients (each its own cookie and token) against a real threaded server on
the loopback, and writers killed with SIGKILL in the middle of undoing: counted outcomes
only, never timings.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import threading
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from .crash import new_play, states
from .load import Browser, live_server

ROUNDS = 60
CLIENTS = 4


def seqs(instance: Path, play: str) -> list[int]:
    conn = sqlite3.connect(instance / "companion.sqlite")
    try:
        return [int(r[0]) for r in conn.execute(
            "SELECT seq FROM snapshot WHERE play_id = ? ORDER BY seq", (play,))]
    finally:
        conn.close()


def _race(base: str, play: str, send_based_on: bool) -> Counter[str]:
    """CLIENTS browsers, ROUNDS rounds: in each, half accept a move and half undo, all at once.

    A barrier starts every round's requests together, so undos meet moves in flight.
    """
    outcomes: Counter[str] = Counter()
    lock = threading.Lock()
    moves = states()
    browsers = [Browser(base) for _ in range(CLIENTS)]
    seed = browsers[0]
    for seq in range(3):  # something to undo from the first round on
        seed.post_json(f"/api/plays/{play}/moves", {"state": moves[seq], "based_on": seq, "accept_violations": True})
    start = threading.Barrier(CLIENTS)

    def client(k: int) -> None:
        browser = browsers[k]
        for n in range(ROUNDS):
            status, raw = browser.open("GET", f"/api/plays/{play}")
            current = json.loads(raw)["current"]
            seq = current["seq"] if current else 0
            start.wait()
            if (k + n) % 2 == 0:
                status, body = browser.post_json(
                    f"/api/plays/{play}/moves",
                    {"state": moves[(seq + k) % len(moves)], "based_on": seq, "accept_violations": True},
                )
                got = f"move {status} {body.get('error', '') if isinstance(body, dict) else ''}"
            elif n % 7 == 3:
                status, body = browser.post_json(f"/api/plays/{play}/finish", {"based_on": seq, "confirm": True})
                got = f"finish {status} {body.get('error', '') if isinstance(body, dict) else ''}"
            else:
                undo = {"based_on": seq} if send_based_on else {}
                status, body = browser.post_json(f"/api/plays/{play}/undo", undo)
                got = f"undo {status} {body.get('error', '') if isinstance(body, dict) else ''}"
            with lock:
                outcomes[got] += 1

    threads = [threading.Thread(target=client, args=(k,)) for k in range(CLIENTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return outcomes


ALLOWED = {
    "move 201 ", "move 409 stale", "undo 200 ", "undo 409 stale", "undo 409 nothing_to_undo",
    "finish 200 ", "finish 409 stale", "finish 409 no_state",
}


def _assert_whole(base: str, instance: Path, play: str, outcomes: Counter[str]) -> None:
    assert set(outcomes) <= ALLOWED, outcomes
    assert outcomes["move 201 "] > 0 and outcomes["undo 200 "] > 0
    found = seqs(instance, play)
    assert found == list(range(1, len(found) + 1)), f"gaps in the timeline: {found}"
    # The game's own export is taken back by import: the timeline is whole.
    browser = Browser(base)
    status, raw = browser.open("GET", f"/api/plays/{play}/export")
    assert status == 200
    status, body = browser.post_json("/api/plays/import", json.loads(raw))
    assert status == 201, body
    assert body["states"] == len(found)


def test_undo_racing_moves_never_leaves_a_gap(tmp_path: Path) -> None:
    """Undo without based_on: it drops whatever is latest, in the same transaction that reads it."""
    instance = tmp_path / "instance"
    play = new_play(instance)
    with live_server(instance) as base:
        outcomes = _race(base, play, send_based_on=False)
        _assert_whole(base, instance, play, outcomes)


def test_stale_tabs_get_the_game_moved_on_and_never_a_gap(tmp_path: Path) -> None:
    """Undo and finish with based_on: a tab behind gets 409 stale, the timeline stays whole."""
    instance = tmp_path / "instance"
    play = new_play(instance)
    with live_server(instance) as base:
        outcomes = _race(base, play, send_based_on=True)
        _assert_whole(base, instance, play, outcomes)


def test_a_tab_behind_is_told_the_game_moved_on(tmp_path: Path) -> None:
    """Two tabs, one interleaving spelled out: the stale tab's undo and finish change nothing."""
    instance = tmp_path / "instance"
    play = new_play(instance)
    moves = states()
    with live_server(instance) as base:
        a, b = Browser(base), Browser(base)
        for seq in (0, 1):
            status, _ = a.post_json(f"/api/plays/{play}/moves",
                                    {"state": moves[seq], "based_on": seq, "accept_violations": True})
            assert status == 201
        seen_by_a = 2
        status, _ = b.post_json(f"/api/plays/{play}/moves",
                                {"state": moves[2], "based_on": 2, "accept_violations": True})
        assert status == 201
        for path, body in (("undo", {"based_on": seen_by_a}),
                           ("finish", {"based_on": seen_by_a, "confirm": True}),
                           ("moves", {"state": moves[0], "based_on": seen_by_a, "accept_violations": True})):
            status, answer = a.post_json(f"/api/plays/{play}/{path}", body)
            assert status == 409 and answer["error"] == "stale", (path, answer)
            assert "moved on" in answer["message"] and answer["current"] == 3
        assert seqs(instance, play) == [1, 2, 3]
        status, answer = a.post_json(f"/api/plays/{play}/undo", {"based_on": 3})
        assert status == 200 and answer["current"]["seq"] == 2
        status, answer = b.post_json(f"/api/plays/{play}/finish", {"based_on": 3, "confirm": True})
        assert status == 409 and answer["error"] == "stale"
        status, answer = b.post_json(f"/api/plays/{play}/finish", {"based_on": 2, "confirm": True})
        assert status == 200 and answer["finished_at"]
        for bad in ("2", True, -1, 1.5, 2**60):
            status, answer = a.post_json(f"/api/plays/{play}/undo", {"based_on": bad})
            assert status == 400 and answer["error"] == "bad_argument", bad
        assert seqs(instance, play) == [1, 2]


@pytest.mark.parametrize("change", ["undo", "finish"])
def test_a_move_landing_inside_an_undo_or_finish(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str) -> None:
    """The interleaving that made gaps, forced: another device's move commits while an undo
    (or a finish) is on its way to its write. The undo drops the state that is latest *then*;
    the finish, whose sheet is of the state before, is refused (409 stale) instead of closing
    the game on a state that is no longer the last."""
    from companion.app import db

    instance = tmp_path / "instance"
    play = new_play(instance)
    moves = states()
    at_write = threading.Event()
    real_connect = db.connect

    def traced(path: str) -> sqlite3.Connection:
        conn = real_connect(path)

        def watch(sql: str) -> None:
            if sql.startswith(("BEGIN IMMEDIATE", "DELETE FROM snapshot", "UPDATE play SET finished_at = ?")):
                at_write.set()

        conn.set_trace_callback(watch)
        return conn

    with live_server(instance) as base:
        browser = Browser(base)
        for seq in range(3):
            status, _ = browser.post_json(f"/api/plays/{play}/moves",
                                          {"state": moves[seq], "based_on": seq, "accept_violations": True})
            assert status == 201
        other = sqlite3.connect(instance / "companion.sqlite", isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # the other device's move holds the write lock
        monkeypatch.setattr(db, "connect", traced)
        answer: dict[str, object] = {}

        def post_undo() -> None:
            answer["status"], answer["body"] = browser.post_json(f"/api/plays/{play}/{change}", {"confirm": True})

        undo = threading.Thread(target=post_undo)
        undo.start()
        assert at_write.wait(60), "the undo never reached its write"
        row = other.execute("SELECT state, violations, problems, source, created_at FROM snapshot"
                            " WHERE play_id = ? AND seq = 3", (play,)).fetchone()
        other.execute("INSERT INTO snapshot (play_id, seq, state, violations, problems, source, created_at)"
                      " VALUES (?, 4, ?, ?, ?, ?, ?)", (play, *row))
        other.execute("COMMIT")
        other.close()
        undo.join(60)
        if change == "undo":
            assert answer["status"] == 200, answer
            assert seqs(instance, play) == [1, 2, 3], "the undo dropped a state that was no longer the latest"
        else:
            assert answer["status"] == 409 and answer["body"]["error"] == "stale", answer
            status, raw = browser.open("GET", f"/api/plays/{play}")
            assert json.loads(raw)["finished_at"] is None and seqs(instance, play) == [1, 2, 3, 4]


def _undoer(instance: Path, play: str, seed: int) -> None:
    """The child: accept and undo moves at random, forever (until killed)."""
    from companion.app import create_app

    client = create_app({"TESTING": True, "INSTANCE_PATH": str(instance)}).test_client()
    page = client.get("/").get_data(as_text=True)
    token = page.split('name="csrf-token" content="', 1)[1].split('"', 1)[0]
    rng = np.random.default_rng(seed)
    moves = states()
    while True:
        current = client.get(f"/api/plays/{play}").get_json()["current"]
        seq = current["seq"] if current else 0
        if seq and rng.random() < 0.45:
            client.post(f"/api/plays/{play}/undo", json={"based_on": seq}, headers={"X-CSRF-Token": token})
        else:
            client.post(f"/api/plays/{play}/moves", headers={"X-CSRF-Token": token},
                        json={"state": moves[seq % len(moves)], "based_on": seq, "accept_violations": True})


def test_undo_killed_mid_way_leaves_a_whole_timeline(tmp_path: Path) -> None:
    """Two writers moving and undoing at once, SIGKILLed 30 times at random moments."""
    instance = tmp_path / "instance"
    play = new_play(instance)
    rng = np.random.default_rng(31)
    survived = 0
    for kill in range(30):
        pids = []
        for w in range(2):
            pid = os.fork()
            if pid == 0:
                try:
                    _undoer(instance, play, seed=kill * 2 + w)
                finally:
                    os._exit(70)
            pids.append(pid)
        threading.Event().wait(float(rng.uniform(0.2, 0.6)))
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
            _, status = os.waitpid(pid, 0)
            survived += not os.WIFSIGNALED(status)
        found = seqs(instance, play)
        assert found == list(range(1, len(found) + 1)), f"after kill {kill}: gaps {found}"
    assert survived == 0, "a writer ended by itself (it should only ever be killed)"
    conn = sqlite3.connect(instance / "companion.sqlite")
    try:
        assert [r[0] for r in conn.execute("PRAGMA integrity_check")] == ["ok"]
    finally:
        conn.close()
