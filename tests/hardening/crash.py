"""A move writer killed with SIGKILL again and again, and the checks of what it left behind.

The writer is a forked copy of this process running the real app against one SQLite
file: it accepts moves through ``POST /api/plays/<id>/moves`` and, after each 201, writes
the acknowledged sequence number and the hash of the stored state to a pipe. The parent
kills it at a random moment (seeded), starts another writer on the same file, and so on.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from companion.app import create_app
from scoring import find_game
from scoring.catalog import read_data

GAME = "habitats"


def states() -> list[dict[str, Any]]:
    """The moves the writer cycles through: three positions with the same three seats."""
    return [read_data(GAME, "example_before.json"), read_data(GAME, "example_after.json"),
            dict(find_game(GAME).example_state())]


def digest(doc: Any) -> str:
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode("utf-8")).hexdigest()[:16]


def new_play(instance: Path) -> str:
    """A fresh game in the store under ``instance``; returns its id."""
    client = create_app({"TESTING": True, "INSTANCE_PATH": str(instance)}).test_client()
    page = client.get("/").get_data(as_text=True)
    token = page.split('name="csrf-token" content="', 1)[1].split('"', 1)[0]
    players = client.get(f"/api/games/{GAME}").get_json()["players"]
    r = client.post("/api/plays", json={"game": GAME, "players": players}, headers={"X-CSRF-Token": token})
    if r.status_code != 201:
        raise RuntimeError(f"cannot create the game: {r.get_json()}")
    return str(r.get_json()["id"])


def _writer(instance: Path, play: str, fd: int) -> None:
    """The child: accept moves forever, acknowledging each one on ``fd`` after its 201."""
    client = create_app({"TESTING": True, "INSTANCE_PATH": str(instance)}).test_client()
    page = client.get("/").get_data(as_text=True)
    token = page.split('name="csrf-token" content="', 1)[1].split('"', 1)[0]
    moves = states()
    os.write(fd, b"ready\n")
    while True:
        current = client.get(f"/api/plays/{play}").get_json()["current"]
        seq = current["seq"] if current else 0
        body = {"state": moves[seq % len(moves)], "based_on": seq, "accept_violations": True, "source": "manual"}
        r = client.post(f"/api/plays/{play}/moves", json=body, headers={"X-CSRF-Token": token})
        if r.status_code != 201:
            os.write(fd, f"error {r.status_code}\n".encode())
            continue
        snap = r.get_json()["accepted"]
        os.write(fd, f"ack {snap['seq']} {digest(snap['state'])}\n".encode())


def _until_ready(fd: int, timeout_s: float = 10.0, *, marker: bytes = b"ready\n") -> bytes:
    """Wait for the writer's ``ready`` line (or another ``marker``); returns everything read so far."""
    import select

    got = b""
    end = time.monotonic() + timeout_s
    while marker not in got and time.monotonic() < end:
        readable, _, _ = select.select([fd], [], [], 0.05)
        if readable:
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            got += chunk
    return got


@dataclass(frozen=True, slots=True)
class CrashReport:
    """What the killed writers acknowledged, and how long it all took."""

    acks: dict[int, str]
    errors: list[str]
    kills: int
    seconds: float


def kill_writers(instance: Path, play: str, *, kills: int, seed: int, max_delay_s: float = 0.15) -> CrashReport:
    """Start a writer, SIGKILL it after a random delay, ``kills`` times over.

    Every third writer is killed only after its first acknowledged move, so some moves are
    always acknowledged however busy the machine is; the others die at random moments.
    """
    rng = np.random.default_rng(seed)
    acks: dict[int, str] = {}
    errors: list[str] = []
    start = time.monotonic()
    for k in range(kills):
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # the writer
            os.close(read_fd)
            try:
                _writer(instance, play, write_fd)
            finally:
                os._exit(70)
        os.close(write_fd)
        early = rng.random() < 0.1  # some kills land while the writer is still starting
        delay = float(rng.uniform(0.0, max_delay_s))
        if k % 3 == 0:
            pending = _until_ready(read_fd, 120.0, marker=b"\nack ")
        else:
            pending = b"" if early else _until_ready(read_fd)
        time.sleep(delay)
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        if not (os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL):
            errors.append(f"writer ended by itself: status {status}")
        chunks = [pending]
        while True:
            chunk = os.read(read_fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
        os.close(read_fd)
        for line in b"".join(chunks).decode().splitlines():
            parts = line.split()
            if parts and parts[0] == "ack" and len(parts) == 3:
                acks[int(parts[1])] = parts[2]
            elif parts and parts != ["ready"]:
                errors.append(line)
    return CrashReport(acks, errors, kills, time.monotonic() - start)


def database_facts(instance: Path, play: str) -> dict[str, Any]:
    """Integrity check, foreign keys and every stored state's hash, read with plain sqlite3."""
    conn = sqlite3.connect(instance / "companion.sqlite")
    try:
        integrity = [r[0] for r in conn.execute("PRAGMA integrity_check")]
        fk = conn.execute("PRAGMA foreign_key_check").fetchall()
        rows = conn.execute("SELECT seq, state FROM snapshot WHERE play_id = ? ORDER BY seq", (play,)).fetchall()
    finally:
        conn.close()
    return {"integrity": integrity, "foreign_keys": fk, "stored": {int(s): digest(json.loads(t)) for s, t in rows}}
