"""The app's only doorway to scoring, vision and printables: game lookup, scans, moves.

Everything rule-shaped is asked of the game object; this module only moves documents
between the browser, the store and those packages, and turns their errors into 4xx.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scoring import ScoringError, StateError, UnknownGameError, find_game, games
from scoring.model import BoardState, Game, Placement, Player, PlayerId, ScoreSheet
from scoring.nearby import beside
from scoring.state import cell_to_json, parse_state, state_to_json
from scoring.words import Words

from .errors import AppError
from .security import isolate_bidi

COLOUR = re.compile(r"#[0-9a-fA-F]{6}")
PLAYER_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,15}")
MAX_PLAYERS = 8
MAX_NAME = 40
#: Player colours offered by the new-game page when a game's example names none.
PALETTE: dict[str, str] = {
    "red": "#d62828",
    "blue": "#1d4ed8",
    "green": "#2e7d32",
    "yellow": "#f2b705",
    "purple": "#7b2cbf",
    "black": "#222222",
    "white": "#f5f5f5",
    "orange": "#f77f00",
}


def game_or_404(name: str) -> Game:
    try:
        return find_game(name)
    except UnknownGameError as exc:
        raise AppError(404, "unknown_game", str(exc)) from exc


def game_list() -> tuple[Game, ...]:
    return games()


def game_options(game: Game) -> dict[str, Any]:
    """The game's option names with their defaults (empty when it has none)."""
    return game.info.defaults()


def option_rules(game: Game) -> dict[str, str]:
    """Each option's rulebook words: what the rulebook says and what the option changes."""
    return {o.name: o.rulebook for o in game.info.options}


def example_players(game: Game) -> list[dict[str, Any]]:
    """The bundled example's seats: a sensible default for a new game's players."""
    try:
        doc = game.example_state()
    except ScoringError:
        return []
    return _players_of(doc)


def _players_of(doc: Any) -> list[dict[str, Any]]:
    out = []
    for i, p in enumerate(doc.get("players", []) if isinstance(doc, Mapping) else []):
        if isinstance(p, Mapping) and isinstance(p.get("id"), str):
            out.append(
                {
                    "id": p["id"],
                    "name": p.get("name") or p["id"],
                    "colour": _hex_colour(p.get("colour"), p["id"]),
                    "seat": p.get("seat", i),
                }
            )
    return out


def _hex_colour(colour: Any, player_id: str) -> str:
    """``#rrggbb`` as given, a palette name translated, else the id's palette colour."""
    if isinstance(colour, str) and COLOUR.fullmatch(colour):
        return colour
    if isinstance(colour, str) and colour.lower() in PALETTE:
        return PALETTE[colour.lower()]
    return PALETTE.get(player_id, "")


def parse_players(raw: Any) -> tuple[Player, ...]:
    """Players from a form or JSON body: ids marker-safe, names short, colours #rrggbb."""
    if not isinstance(raw, Sequence) or isinstance(raw, (str, bytes)):
        raise AppError(400, "bad_players", "players must be a list")
    if not 1 <= len(raw) <= MAX_PLAYERS:
        raise AppError(400, "bad_players", f"between 1 and {MAX_PLAYERS} players, got {len(raw)}")
    players: list[Player] = []
    seen: set[str] = set()
    for i, p in enumerate(raw):
        if not isinstance(p, Mapping):
            raise AppError(400, "bad_players", f"player {i + 1}: expected an object")
        pid = str(p.get("id") or "").strip().lower()
        name = isolate_bidi(str(p.get("name") or "").strip()[:MAX_NAME] or pid)
        colour = str(p.get("colour") or "").strip()
        if not PLAYER_ID.fullmatch(pid):
            raise AppError(
                400, "bad_players", f"player {i + 1}: id must be 1-16 of a-z, 0-9, -"
            )
        if pid in seen:
            raise AppError(400, "bad_players", f"player {i + 1}: id {pid!r} used twice")
        if colour and not COLOUR.fullmatch(colour):
            raise AppError(400, "bad_players", f"player {i + 1}: colour must be #rrggbb")
        seen.add(pid)
        players.append(Player(PlayerId(pid), name, colour, i))
    return tuple(players)


def parse_options(game: Game, raw: Mapping[str, Any]) -> dict[str, Any]:
    """Options typed as the game declares them; the game itself validates on load."""
    out: dict[str, Any] = {}
    for key, value in raw.items():
        option = game.info.option(key)
        if option is None:
            raise AppError(400, "bad_options", f"{game.name} has no option {key!r}")
        if option.type is bool:
            if isinstance(value, str):
                value = value.lower() in ("1", "true", "on", "yes")
            out[key] = bool(value)
        elif option.type is int:
            try:
                out[key] = int(value)
            except (TypeError, ValueError) as exc:
                raise AppError(400, "bad_options", f"option {key!r} must be a whole number") from exc
        else:
            out[key] = value
    return out


def check_setup(game: Game, players: Sequence[Player], options: Mapping[str, Any]) -> None:
    """Seats and options checked by the shared state format before any component is seen."""
    doc = {
        "format": 1,
        "game": game.id,
        "players": [
            {"id": p.id, "name": p.name, "seat": p.seat, **({"colour": p.colour} if p.colour else {})}
            for p in players
        ],
        "options": dict(options),
        "placements": [],
    }
    try:
        parse_state(doc, game=game.id, components=(), options=game_options(game))
    except ScoringError as exc:
        raise AppError(400, "bad_options", str(exc)) from exc


def load_state(game: Game, doc: Any) -> BoardState:
    if not isinstance(doc, Mapping):
        raise AppError(400, "bad_state", "state must be a JSON object")
    try:
        return game.load_state(doc)
    except StateError as exc:  # players read the refusal; the entry it names stays in ``detail``
        raise AppError(400, "bad_state", Words(game.id, {}).refusal(exc), detail=str(exc),
                       placement=exc.placement) from exc
    except ScoringError as exc:
        raise AppError(400, "bad_state", str(exc)) from exc


def with_seats(state: BoardState, players: Sequence[Player], options: Mapping[str, Any]) -> BoardState:
    """A scanned state carries the play's players and options, whatever the photo showed."""
    return BoardState(
        state.game, tuple(players), state.placements, {**state.options, **options},
        state.extras, state.unknown,
    )


def move_summary(before: BoardState | None, after: BoardState) -> dict[str, list[dict[str, Any]]]:
    """Which components arrived, left or changed place between two states."""

    def key(p: Placement) -> tuple[Any, ...]:
        return (p.area, cell_to_json(p.cell), p.rotation, p.face_up, p.on, p.slot)

    old = {p.component: p for p in (before.placements if before else ())}
    new = {p.component: p for p in after.placements}
    added = [_placement_doc(new[c], after) for c in new if c not in old]
    removed = [_placement_doc(old[c]) for c in old if c not in new]
    moved = [
        {"from": _placement_doc(old[c]), "to": _placement_doc(new[c], after)}
        for c in new
        if c in old and key(old[c]) != key(new[c])
    ]
    return {"added": added, "removed": removed, "moved": moved}


def _placement_doc(p: Placement, landed: BoardState | None = None) -> dict[str, Any]:
    """A placement as JSON; where it landed in ``landed``, with the pieces now beside it."""
    doc = {
        "component": p.component,
        "area": p.area,
        "cell": cell_to_json(p.cell),
        "rotation": p.rotation,
        "on": p.on,
        "slot": p.slot,
    }
    if landed is not None:
        doc["beside"] = list(beside(landed, p))
    return doc


def same_table(a: BoardState | None, b: BoardState) -> bool:
    """Equal placements and unknowns, in any order: nothing moved."""
    if a is None:
        return False
    return set(a.placements) == set(b.placements) and set(a.unknown) == set(b.unknown)


def violations(game: Game, before: BoardState | None, after: BoardState) -> list[dict[str, Any]]:
    if before is None:
        return []
    try:
        return [v.to_dict() for v in game.violations(before, after)]
    except ScoringError as exc:
        return [{"code": "check/failed", "message": str(exc), "area": None, "cells": [], "components": []}]


def score(game: Game, state: BoardState) -> ScoreSheet:
    try:
        return game.score_sheet(state)
    except ScoringError as exc:
        raise AppError(400, "cannot_score", str(exc)) from exc


def names_of(game: Game) -> dict[str, str]:
    """Component id -> printed name, for overlays and move lists."""
    return {c.id: c.name for c in game.components()}


# -- vision ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Scan:
    """One recognised frame: the state plus what the overlay draws and what blocks scoring."""

    state: BoardState
    overlay: dict[str, Any]
    problems: dict[str, int]
    elapsed_ms: float


def recognise(
    image: Any, game: Game, players: Sequence[Player] = (), options: Mapping[str, Any] | None = None
) -> Scan:
    """Run the vision pipeline on JPEG/PNG bytes or a BGR array; an unusable image is a 400."""
    import vision
    from vision.problems import ProblemCode

    if isinstance(image, bytes) and not image:
        raise AppError(400, "no_image", "the upload was empty")
    start = time.perf_counter()
    try:
        rec = vision.recognise(
            image, game.id, players=tuple(players) or None, options=dict(options or {}) or None
        )
    except vision.ImageError as exc:
        raise AppError(400, "bad_image", str(exc)) from exc
    except (ScoringError, ValueError) as exc:  # vision.VisionError is a ValueError
        raise AppError(422, "unrecognisable", str(exc)) from exc
    elapsed = (time.perf_counter() - start) * 1000
    overlay = rec.to_dict()
    for item in overlay.get("foreign", []):  # a code's text never turns the page around it
        item["text"] = isolate_bidi(item.get("text"))
    state = rec.state
    if players:
        state = with_seats(state, players, options or {})
    # A face-down card that counts (a claimed biome) is an unknown place of its own kind:
    # the players are told to turn it over, not that something could not be read.
    face_down = sum(1 for p in rec.problems if p.code == ProblemCode.FACE_DOWN)
    problems = {
        "unreadable": max(len(rec.unreadable), len(state.unknown) - face_down),
        "face_down": face_down,
        "duplicated": len(rec.duplicated),
        "foreign": len(rec.foreign),
        # A seated player whose own board or entrance is not in view: their score would be missing.
        "not_in_view": sum(1 for p in rec.problems if p.code == ProblemCode.PLAYER_NOT_IN_VIEW),
    }
    return Scan(state, overlay, problems, elapsed)


def sample_photos(game_id: str) -> list[Path]:
    """The bundled photos of a game's table (empty while vision ships none)."""
    try:
        import vision

        first = Path(vision.sample_photo(game_id))
    except (ImportError, AttributeError, ValueError, OSError, KeyError):
        return []
    if not first.is_file():
        return []
    extra = sorted(
        p for p in first.parent.glob(f"{game_id}-*.jpg") if p.is_file() and p != first
    )
    return [first, *extra]


def sample_players(game: Game) -> list[dict[str, Any]]:
    """The seats of the table in the first sample photo (its truth state sits beside it)."""
    photos = sample_photos(game.id)
    truth = photos[0].with_suffix(".json") if photos else None
    if truth is None or not truth.is_file():
        return example_players(game)
    try:
        doc = json.loads(truth.read_text("utf-8"))
    except (OSError, ValueError):
        return example_players(game)
    return _players_of(doc) or example_players(game)


def state_doc(state: BoardState) -> dict[str, Any]:
    return state_to_json(state)


def refusal(problems: Mapping[str, int]) -> list[str]:
    """Why a score would be a guess: unreadable or duplicated components on the table, or a
    player whose own area is not in view."""
    out = []
    if problems.get("unreadable"):
        out.append(f"{problems['unreadable']} component(s) could not be read")
    if problems.get("face_down"):
        out.append(f"{problems['face_down']} card(s) that score lie face down: turn them face up")
    if problems.get("duplicated"):
        out.append(f"{problems['duplicated']} code(s) appear more than once")
    if problems.get("not_in_view"):
        out.append(f"{problems['not_in_view']} player(s)' board or park is not in view: their score would be missing")
    return out
