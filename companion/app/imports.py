"""A saved game from an export, every part checked before anything is written.

What the rules decide is never taken from the file: the broken rules of each move and the
final score sheet are computed again from the imported states.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from scoring.model import BoardState

from . import services, store
from .errors import AppError

SOURCES = store.SOURCES

#: Accepted states one imported game may hold (a long game has a few hundred).
MAX_IMPORT_STATES = 5000


def _import_error(where: str, message: str) -> AppError:
    return AppError(400, "bad_import", f"{where}: {message}; nothing was imported")


def _text(value: Any, where: str, *, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str) or len(value) > 200:
        raise _import_error(where, "expected a short text")
    return value


def _timestamp(value: Any, where: str, *, optional: bool = False) -> str | None:
    """An ISO 8601 time with its UTC offset, as the store writes them (durations subtract them)."""
    from datetime import datetime

    text = _text(value, where, optional=optional)
    if text is None:
        return None
    try:
        when = datetime.fromisoformat(text)
    except ValueError as exc:
        raise _import_error(where, "expected an ISO 8601 time") from exc
    if when.tzinfo is None:
        raise _import_error(where, "expected a time with its UTC offset")
    return text


def checked_import(doc: dict[str, Any]) -> tuple[store.Play, list[store.Snapshot]]:
    """An exported saved game, every part checked before anything is written."""
    if doc.get("format") != "table-companion-play" or doc.get("version") != 1:
        raise _import_error("format", "not a saved game of this companion (format 'table-companion-play', version 1)")
    raw = doc.get("play")
    if not isinstance(raw, dict):
        raise _import_error("play", "expected an object")
    try:
        game = services.game_or_404(str(raw.get("game") or ""))
        players = services.parse_players(raw.get("players"))
        options = raw.get("options") if raw.get("options") is not None else {}
        if not isinstance(options, dict):
            raise AppError(400, "bad_options", "options must be an object")
        options = services.parse_options(game, options)
        services.check_setup(game, players, options)
    except AppError as exc:
        raise _import_error("play", exc.message) from exc
    final_sheet = raw.get("final_sheet")
    if final_sheet is not None and not isinstance(final_sheet, dict):
        raise _import_error("play.final_sheet", "expected an object or null")
    play = store.Play(
        "", game.id, (_text(raw.get("title"), "play.title") or game.name)[:80], players, options,
        _timestamp(raw.get("created_at"), "play.created_at") or store.now(),
        _timestamp(raw.get("finished_at"), "play.finished_at", optional=True), final_sheet,
    )
    states = doc.get("states")
    if not isinstance(states, list) or len(states) > MAX_IMPORT_STATES:
        raise _import_error("states", f"expected a list of at most {MAX_IMPORT_STATES} accepted states")
    snaps: list[store.Snapshot] = []
    before: BoardState | None = None
    for i, s in enumerate(states):
        where = f"states[{i}]"
        if not isinstance(s, dict):
            raise _import_error(where, "expected an object")
        if s.get("seq") != i + 1 or isinstance(s.get("seq"), bool):
            raise _import_error(where, f"'seq' must be {i + 1} (states numbered 1, 2, 3... without gaps)")
        try:
            state = services.load_state(game, s.get("state"))
        except AppError as exc:
            raise _import_error(where, exc.message) from exc
        violations = s.get("violations", [])
        if not isinstance(violations, list) or not all(isinstance(v, dict) for v in violations):
            raise _import_error(where, "'violations' must be a list of objects")
        problems = s.get("problems", {})
        if not isinstance(problems, dict) or not all(
            isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 10_000 for v in problems.values()
        ):
            raise _import_error(where, "'problems' must map names to counts")
        source = s.get("source")
        if source not in SOURCES:
            raise _import_error(where, f"'source' must be one of {', '.join(sorted(SOURCES))}")
        created = _timestamp(s.get("created_at"), f"{where}.created_at") or store.now()
        # The rules, not the file, say which rules each move broke.
        found = services.violations(game, before, state)
        snaps.append(store.Snapshot(i + 1, services.state_doc(state), found, problems, source, created))
        before = state
    if final_sheet is not None:
        if before is None:
            raise _import_error("play.final_sheet", "a finished game needs its accepted states")
        try:  # the rules, not the file, give the final score sheet
            sheet = services.score(game, before).to_dict()
        except AppError as exc:
            raise _import_error("play.final_sheet", exc.message) from exc
        play = replace(play, final_sheet=sheet)
    return play, snaps
