"""The "Where can this go?" API: legal spots for a piece in hand, asked of ``scoring.hints``.

``GET /api/plays/<id>/hints`` answers on the play's last accepted state; ``POST /api/hints``
answers on a state sent in the body (stateless, for scripts). The JSON is docs/hints.md's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from flask import Blueprint, Response, jsonify, request

from scoring.hints import (
    HintError,
    board_space,
    Refusal,
    explain,
    find_hints,
    hints_to_json,
    holdable_labels,
    market_choices,
    market_to_json,
    refusal_to_json,
    spot_to_json,
)
from scoring.model import BoardState, Game

from . import services, store
from .errors import AppError
from .security import csrf_exempt

bp = Blueprint("hints", __name__)

#: Longest ``at`` place a client may send (a place is a handful of fields).
MAX_PLACE_CHARS = 500


def _player(state: BoardState, raw: Any) -> str:
    if not isinstance(raw, str) or not raw:
        raise AppError(400, "no_player", "name the player whose hand it is (player)")
    if raw not in {p.id for p in state.players}:
        raise AppError(404, "no_player", f"no player {raw!r} in this game")
    return raw


def _place(raw: Any) -> Mapping[str, Any] | None:
    if raw is None or raw == "":
        return None
    if isinstance(raw, str):
        if len(raw) > MAX_PLACE_CHARS:
            raise AppError(400, "bad_place", "the place is too long")
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise AppError(400, "bad_place", f"at: not valid JSON ({exc.msg})") from exc
    if not isinstance(raw, dict):
        raise AppError(400, "bad_place", "at: a place is a JSON object such as {\"cell\": [2, -1]}")
    return raw


def answer(game: Game, state: BoardState, player: str, component: Any, at: Any, market: bool) -> dict[str, Any]:
    """The hints document for one question; HintError becomes a 400 with its sentence."""
    names = {c.id: c.name for c in game.components()}
    doc: dict[str, Any] = {
        "game": game.id,
        "player": player,
        "holdable": [
            {"id": c, "name": names.get(c, c), "label": label} for c, label in holdable_labels(state, player).items()
        ],
    }
    try:
        if market:
            doc["market"] = market_to_json(market_choices(state, player))
        if component in (None, ""):
            return doc
        if not isinstance(component, str) or component not in game.component_index:
            raise AppError(404, "no_component", f"no component {component!r} in {game.name}")
        place = _place(at)
        if place is not None:
            verdict = explain(state, component, player, place)
            doc["verdict"] = refusal_to_json(verdict) if isinstance(verdict, Refusal) else spot_to_json(verdict)
            return doc
        hints = find_hints(state, component, player)
        doc.update(hints_to_json(hints))
        doc["name"] = names.get(component, component)
        for spot_doc, spot in zip(doc["spots"], hints.spots, strict=True):
            spot_doc["board"] = board_space(hints.before, spot.place.placement) if spot.place.placement else None
    except HintError as exc:
        raise AppError(400, "bad_question", str(exc)) from exc
    return doc


@bp.get("/api/plays/<play_id>/hints")
def play_hints(play_id: str) -> Response:
    """Hints on the play's last accepted state; without ``component``, what the player could hold."""
    play = store.get_play(play_id)
    game = services.game_or_404(play.game)
    last = store.latest(play.id)
    if last is None:
        raise AppError(409, "no_state", "nothing accepted yet: scan the table first")
    state = services.load_state(game, last.state)
    player = _player(state, request.args.get("player"))
    market = request.args.get("market", "") in ("1", "true", "yes")
    doc = answer(game, state, player, request.args.get("component"), request.args.get("at"), market)
    doc["based_on"] = last.seq
    return jsonify(doc)


@bp.post("/api/hints")
@csrf_exempt
def stateless_hints() -> Response:
    """Stateless: a state, a component and a player in; the legal spots out (changes nothing stored)."""
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise AppError(400, "bad_json", "expected a JSON object body (Content-Type: application/json)")
    doc = data.get("state")
    game_id = doc.get("game") if isinstance(doc, dict) else None
    if not isinstance(game_id, str):
        raise AppError(400, "bad_state", "state must be a JSON object with its 'game'")
    game = services.game_or_404(game_id)
    state = services.load_state(game, doc)
    player = _player(state, data.get("player"))
    return jsonify(answer(game, state, player, data.get("component"), data.get("at"), bool(data.get("market"))))
