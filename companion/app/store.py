"""Saved plays and their timeline of accepted states, in the SQLite store."""

from __future__ import annotations

import json
import secrets
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from scoring.model import Player, PlayerId

from .db import get_db
from .errors import AppError

MAX_LIST = 200
#: Where an accepted state was read from.
SOURCES = frozenset({"camera", "host-camera", "upload", "sample", "manual"})
MOVED_ON = "the game moved on: another device changed it (now at state {now}); look again"


@dataclass(frozen=True, slots=True)
class Play:
    """One game played at the table, from its setup to its final score sheet."""

    id: str
    game: str
    title: str
    players: tuple[Player, ...]
    options: dict[str, Any]
    created_at: str
    finished_at: str | None
    final_sheet: dict[str, Any] | None
    kept: bool = True
    """False for a sample game nobody chose to keep: left out of the history, cleared later."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "game": self.game,
            "title": self.title,
            "players": [
                {"id": p.id, "name": p.name, "colour": p.colour, "seat": p.seat} for p in self.players
            ],
            "options": self.options,
            "created_at": self.created_at,
            "finished_at": self.finished_at,
            "final_sheet": self.final_sheet,
            "kept": self.kept,
        }


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One accepted state of a play's timeline."""

    seq: int
    state: dict[str, Any]
    violations: list[dict[str, Any]]
    problems: dict[str, int]
    source: str
    created_at: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "state": self.state,
            "violations": self.violations,
            "problems": self.problems,
            "source": self.source,
            "created_at": self.created_at,
        }


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def local_time(stamp: str | None, fmt: str = "%Y-%m-%d %H:%M") -> str:
    """A stored time (ISO 8601, UTC) as the clock on the table's wall shows it.

    The companion runs at the table, so this machine's time zone is the players' one.
    """
    if not stamp:
        return ""
    try:
        when = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.astimezone().strftime(fmt)


def _play(row: Any) -> Play:
    players = tuple(
        Player(PlayerId(p["id"]), p["name"], p.get("colour", ""), p.get("seat", i))
        for i, p in enumerate(json.loads(row["players"]))
    )
    return Play(
        row["id"],
        row["game"],
        row["title"],
        players,
        json.loads(row["options"]),
        row["created_at"],
        row["finished_at"],
        json.loads(row["final_sheet"]) if row["final_sheet"] else None,
        bool(row["kept"]) if "kept" in row.keys() else True,
    )


def create_play(
    game: str, title: str, players: tuple[Player, ...], options: dict[str, Any], *, kept: bool = True
) -> Play:
    play_id = secrets.token_urlsafe(9)
    doc = [{"id": p.id, "name": p.name, "colour": p.colour, "seat": p.seat} for p in players]
    get_db().execute(
        "INSERT INTO play (id, game, title, players, options, created_at, kept) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (play_id, game, title, json.dumps(doc), json.dumps(options), now(), int(kept)),
    )
    return get_play(play_id)


#: An unkept sample game is cleared this long after it was started.
UNKEPT_DAYS = 1


def keep(play_id: str) -> Play:
    """The players keep a sample game: it joins the history."""
    get_db().execute("UPDATE play SET kept = 1 WHERE id = ?", (play_id,))
    return get_play(play_id)


def clear_unkept() -> list[str]:
    """Delete the sample games nobody kept, once they are a day old; their ids."""
    from datetime import timedelta

    limit = (datetime.now(UTC) - timedelta(days=UNKEPT_DAYS)).isoformat(timespec="seconds")
    db = get_db()
    ids = [r[0] for r in db.execute("SELECT id FROM play WHERE kept = 0 AND created_at < ?", (limit,))]
    for play_id in ids:
        delete_play(play_id)
    return ids


def get_play(play_id: str) -> Play:
    row = get_db().execute("SELECT * FROM play WHERE id = ?", (play_id,)).fetchone()
    if row is None:
        raise AppError(404, "unknown_play", f"no saved game {play_id!r}")
    return _play(row)


def list_plays(limit: int = MAX_LIST) -> list[tuple[Play, int]]:
    """Newest first, each with its number of accepted states."""
    rows = get_db().execute(
        "SELECT play.*, (SELECT COUNT(*) FROM snapshot s WHERE s.play_id = play.id) AS n"
        " FROM play WHERE kept = 1 ORDER BY created_at DESC, rowid DESC LIMIT ?",
        (limit,),
    ).fetchall()
    return [(_play(r), int(r["n"])) for r in rows]


def delete_play(play_id: str) -> None:
    get_play(play_id)
    get_db().execute("DELETE FROM play WHERE id = ?", (play_id,))


def _snapshot(row: Any) -> Snapshot:
    return Snapshot(
        int(row["seq"]),
        json.loads(row["state"]),
        json.loads(row["violations"]),
        json.loads(row["problems"]),
        row["source"],
        row["created_at"],
    )


def snapshots(play_id: str) -> list[Snapshot]:
    rows = get_db().execute(
        "SELECT * FROM snapshot WHERE play_id = ? ORDER BY seq", (play_id,)
    ).fetchall()
    return [_snapshot(r) for r in rows]


def latest(play_id: str) -> Snapshot | None:
    row = get_db().execute(
        "SELECT * FROM snapshot WHERE play_id = ? ORDER BY seq DESC LIMIT 1", (play_id,)
    ).fetchone()
    return _snapshot(row) if row else None


def snapshot_at(play_id: str, seq: int) -> Snapshot:
    if not 0 < seq < 2**63:  # SQLite integers are 64-bit: a longer number is no state of any game
        raise AppError(404, "unknown_state", f"this game has no accepted state {str(seq)[:20]}")
    row = get_db().execute(
        "SELECT * FROM snapshot WHERE play_id = ? AND seq = ?", (play_id, seq)
    ).fetchone()
    if row is None:
        raise AppError(404, "unknown_state", f"this game has no accepted state {seq}")
    return _snapshot(row)


@contextmanager
def transaction() -> Iterator[sqlite3.Connection]:
    """One ``BEGIN IMMEDIATE`` transaction: the write lock first, then the reads it depends on.

    A failed COMMIT (disk full) may already have rolled back; the rollback here never hides
    the original error behind "no transaction is active".
    """
    db = get_db()
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


def _last_seq(db: sqlite3.Connection, play_id: str) -> int:
    row = db.execute("SELECT COALESCE(MAX(seq), 0) FROM snapshot WHERE play_id = ?", (play_id,)).fetchone()
    return int(row[0])


def _check_based_on(last: int, based_on: int | None) -> None:
    """Refuse a change decided on a state that is no longer the current one."""
    if based_on is not None and based_on != last:
        raise AppError(409, "stale", MOVED_ON.format(now=last), current=last)


def append(
    play_id: str,
    state: dict[str, Any],
    violations: list[dict[str, Any]],
    problems: dict[str, int],
    source: str,
    expected_seq: int | None = None,
) -> Snapshot:
    """Add an accepted state; ``expected_seq`` refuses a move decided on a stale table."""
    with transaction() as db:
        last = _last_seq(db, play_id)
        _check_based_on(last, expected_seq)
        db.execute(
            "INSERT INTO snapshot (play_id, seq, state, violations, problems, source, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (play_id, last + 1, json.dumps(state), json.dumps(violations), json.dumps(problems), source, now()),
        )
        db.execute("UPDATE play SET finished_at = NULL, final_sheet = NULL WHERE id = ?", (play_id,))
        added = snapshot_at(play_id, last + 1)
    return added


def undo(play_id: str, based_on: int | None = None) -> Snapshot | None:
    """Drop the last accepted state in one transaction; returns the one now current.

    The timeline stays 1, 2, 3... whatever else happens at the same time: the state dropped
    is the latest under the write lock, and ``based_on`` refuses an undo decided on an
    older one (409 ``stale``: the game moved on).
    """
    with transaction() as db:
        last = _last_seq(db, play_id)
        _check_based_on(last, based_on)
        if last == 0:
            raise AppError(409, "nothing_to_undo", "no accepted move to undo")
        db.execute("DELETE FROM snapshot WHERE play_id = ? AND seq = ?", (play_id, last))
        db.execute("UPDATE play SET finished_at = NULL, final_sheet = NULL WHERE id = ?", (play_id,))
        current = latest(play_id)
    return current


def finish(play_id: str, sheet: dict[str, Any], seq: int | None = None) -> Play:
    """Close the game with the score sheet of state ``seq``, if that is still the latest one;
    a finished game is kept (a sample game finished too)."""
    with transaction() as db:
        _check_based_on(_last_seq(db, play_id), seq)
        db.execute(
            "UPDATE play SET finished_at = ?, final_sheet = ?, kept = 1 WHERE id = ?",
            (now(), json.dumps(sheet), play_id),
        )
    return get_play(play_id)


def import_play(play: Play, snaps: list[Snapshot]) -> Play:
    """Store a checked saved game under a new id: the game and its whole timeline, or nothing."""
    play_id = secrets.token_urlsafe(9)
    doc = [{"id": p.id, "name": p.name, "colour": p.colour, "seat": p.seat} for p in play.players]
    with transaction() as db:
        db.execute(
            "INSERT INTO play (id, game, title, players, options, created_at, finished_at, final_sheet)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                play_id, play.game, play.title, json.dumps(doc), json.dumps(play.options), play.created_at,
                play.finished_at, json.dumps(play.final_sheet) if play.final_sheet is not None else None,
            ),
        )
        for s in snaps:
            db.execute(
                "INSERT INTO snapshot (play_id, seq, state, violations, problems, source, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (play_id, s.seq, json.dumps(s.state), json.dumps(s.violations), json.dumps(s.problems),
                 s.source, s.created_at),
            )
    return get_play(play_id)


def set_players(play_id: str, players: tuple[Player, ...]) -> Play:
    """The play's seats as the players corrected them (before the first state, any seats)."""
    doc = [{"id": p.id, "name": p.name, "colour": p.colour, "seat": p.seat} for p in players]
    get_db().execute("UPDATE play SET players = ? WHERE id = ?", (json.dumps(doc), play_id))
    return get_play(play_id)


def revision(play_id: str) -> tuple[Any, ...]:
    """Changes whenever anything a table page shows of the play changes (for the live events)."""
    db = get_db()
    play = db.execute("SELECT players, finished_at FROM play WHERE id = ?", (play_id,)).fetchone()
    if play is None:
        return ("gone",)
    row = db.execute(
        "SELECT seq, state, created_at FROM snapshot WHERE play_id = ? ORDER BY seq DESC LIMIT 1", (play_id,)
    ).fetchone()
    last = (row["seq"], hash(row["state"]), row["created_at"]) if row else (0, 0, "")
    return (*last, play["players"], play["finished_at"])
