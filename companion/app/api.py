"""The JSON API the pages use (documented in docs/api.md)."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from flask import Blueprint, Response, jsonify, request, stream_with_context, url_for

from scoring.model import BoardState, Game

from . import services, store, tableside
from .errors import AppError
from .imports import checked_import
from .scanslots import scan_slot
from .security import csrf_exempt, isolate_bidi

bp = Blueprint("api", __name__)

SOURCES = store.SOURCES


def json_body() -> dict[str, Any]:
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise AppError(400, "bad_json", "expected a JSON object body (Content-Type: application/json)")
    return data


def _int_arg(name: str, default: int | None = None) -> int | None:
    raw = request.args.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise AppError(400, "bad_argument", f"{name} must be a whole number") from exc


def based_on(data: Any) -> int | None:
    """The state number a change was decided on (``based_on``), when the client sends one."""
    value = data.get("based_on") if isinstance(data, dict) else None
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**53:
        raise AppError(400, "bad_argument", "based_on must be a whole number (the state number the page showed)")
    return value


def _flag(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    return str(value).lower() in ("1", "true", "yes", "on")


def upload_bytes() -> bytes:
    """The multipart ``image`` field (the only upload the API takes)."""
    file = request.files.get("image")
    if file is None:
        raise AppError(400, "no_image", "send the photo as the multipart field 'image'")
    data = file.read()
    if not data:
        raise AppError(400, "no_image", "the uploaded image is empty")
    return data


def game_summary(game: Game) -> dict[str, Any]:
    return {
        "id": game.id,
        "name": game.name,
        "options": services.game_options(game),
        "option_rules": services.option_rules(game),
        "option_choices": {o.name: list(o.choices) for o in game.info.options if o.choices},
        "players": services.example_players(game),
        "samples": [
            url_for("pages.sample_photo", game_id=game.id, index=i)
            for i, _ in enumerate(services.sample_photos(game.id))
        ],
    }


@bp.get("/healthz")
def healthz() -> Response:
    return jsonify({"status": "ok", "games": [g.id for g in services.game_list()]})


@bp.get("/api/games")
def list_games() -> Response:
    return jsonify({"games": [game_summary(g) for g in services.game_list()]})


@bp.get("/api/games/<game_id>")
def show_game(game_id: str) -> Response:
    game = services.game_or_404(game_id)
    doc = game_summary(game)
    doc["components"] = [
        {"id": c.id, "kind": c.kind, "name": c.name, "colour": c.colour} for c in game.components()
    ]
    return jsonify(doc)


@bp.post("/api/scan")
@csrf_exempt
def scan() -> Response:
    """Stateless: a photo and a game in, the recognition and its score sheet out."""
    game_id = request.form.get("game", "")
    if not game_id:
        raise AppError(400, "no_game", "send the game id as the form field 'game'")
    game = services.game_or_404(game_id)
    players: tuple[Any, ...] = ()
    options: dict[str, Any] = {}
    if request.form.get("players"):
        try:
            players = services.parse_players(json.loads(request.form["players"]))
        except json.JSONDecodeError as exc:
            raise AppError(400, "bad_players", "players must be a JSON list") from exc
    if request.form.get("options"):
        try:
            raw = json.loads(request.form["options"])
        except json.JSONDecodeError as exc:
            raise AppError(400, "bad_options", "options must be a JSON object") from exc
        if not isinstance(raw, dict):
            raise AppError(400, "bad_options", "options must be a JSON object")
        options = services.parse_options(game, raw)
    with scan_slot():  # the upload is read into memory only once its turn has come
        result = services.recognise(upload_bytes(), game, players, options)
    refused = services.refusal(result.problems)
    sheet = None
    if not refused or _flag(request.form.get("confirm", "")):
        sheet = services.score(game, result.state).to_dict()
    return jsonify(
        {
            "game": game.id,
            "recognition": result.overlay,
            "state": services.state_doc(result.state),
            "problems": result.problems,
            "score_sheet": sheet,
            "score_refused": refused if sheet is None else [],
            "elapsed_ms": round(result.elapsed_ms, 1),
        }
    )


# -- plays -----------------------------------------------------------------------


def create_play_from(data: dict[str, Any], *, kept: bool = True) -> store.Play:
    game = services.game_or_404(str(data.get("game") or ""))
    players = services.parse_players(data.get("players"))
    raw_options = data.get("options")
    raw_options = {} if raw_options is None else raw_options
    if not isinstance(raw_options, dict):
        raise AppError(400, "bad_options", "options must be an object")
    options = services.parse_options(game, raw_options)
    services.check_setup(game, players, options)
    title = isolate_bidi(str(data.get("title") or "").strip()[:80] or game.name)
    return store.create_play(game.id, title, players, options, kept=kept)


@bp.post("/api/plays")
def create_play() -> tuple[Response, int]:
    play = create_play_from(json_body())
    return jsonify(play.to_dict()), 201


@bp.get("/api/plays")
def list_plays() -> Response:
    return jsonify(
        {"plays": [{**p.to_dict(), "states": n} for p, n in store.list_plays()]}
    )


@bp.post("/api/plays/<play_id>/keep")
def keep_play(play_id: str) -> Response:
    """Keep a sample game in the history (sample games are not kept unless asked)."""
    store.get_play(play_id)
    return jsonify(store.keep(play_id).to_dict())


@bp.get("/api/plays/<play_id>")
def show_play(play_id: str) -> Response:
    play = store.get_play(play_id)
    last = store.latest(play_id)
    return jsonify({**play.to_dict(), "current": last.to_dict() if last else None})


@bp.delete("/api/plays/<play_id>")
def delete_play(play_id: str) -> Response:
    store.delete_play(play_id)
    tableside.forget_photos(play_id)
    return jsonify({"deleted": play_id})


def current_state(game: Game, play: store.Play) -> tuple[store.Snapshot | None, BoardState | None]:
    last = store.latest(play.id)
    return last, (services.load_state(game, last.state) if last else None)


def frame_result(play: store.Play, scan: services.Scan) -> dict[str, Any]:
    """A recognised frame compared with the play's last accepted state."""
    game = services.game_or_404(play.game)
    last, before = current_state(game, play)
    doc = services.state_doc(scan.state)
    state_error = None
    after: BoardState | None = None
    try:
        after = services.load_state(game, doc)
    except AppError as exc:
        state_error = exc.message
    changed = after is not None and not services.same_table(before, after)
    found = services.violations(game, before, after) if changed and after is not None else []
    return {
        "recognition": scan.overlay,
        "state": doc,
        "state_error": state_error,
        "based_on": last.seq if last else 0,
        "setup": last is None,
        "changed": changed,
        "move": services.move_summary(before, after) if after is not None else None,
        "violations": found,
        "legal": not found,
        "problems": scan.problems,
        "elapsed_ms": round(scan.elapsed_ms, 1),
    }


@bp.post("/api/plays/<play_id>/frames")
def frame(play_id: str) -> Response:
    """One frame from the table page: the browser's camera, an upload or a sample photo."""
    play = store.get_play(play_id)
    game = services.game_or_404(play.game)
    with scan_slot():  # the upload is read into memory only once its turn has come
        if "sample" in request.form:
            image = _sample_bytes(play.game, request.form["sample"])
        else:
            image = upload_bytes()
        setup = None
        if store.latest(play.id) is None:  # the first photo sets the players from what is in view
            setup = tableside.setup_scan(image, game, play.players, play.options)
            result = setup.scan
        else:
            result = services.recognise(image, game, play.players, play.options)
    doc = frame_result(play, result)
    doc["players"] = [
        {"id": p.id, "name": p.name, "colour": p.colour, "seat": p.seat}
        for p in (setup.players if setup else play.players)
    ]
    doc["players_changed"] = bool(setup and setup.changed)
    doc["players_left_out"] = [p.name for p in setup.left_out] if setup else []
    doc["other_game"] = tableside.other_game(image, game, result)
    tableside.remember(play.id, doc["state"], image, result.overlay)
    return jsonify(doc)


def _sample_bytes(game_id: str, raw: str) -> bytes:
    photos = services.sample_photos(game_id)
    try:
        index = int(raw or 0)
    except ValueError as exc:
        raise AppError(400, "bad_argument", "sample must be a whole number") from exc
    if not 0 <= index < len(photos):
        raise AppError(404, "no_sample", f"no sample photo {index} for {game_id}")
    return photos[index].read_bytes()


@bp.post("/api/plays/<play_id>/moves")
def accept_move(play_id: str) -> tuple[Response, int]:
    """The players accept what the table shows now as the next state."""
    play = store.get_play(play_id)
    game = services.game_or_404(play.game)
    data = json_body()
    source = str(data.get("source") or "manual")
    if source not in SOURCES:
        raise AppError(400, "bad_source", f"source must be one of {', '.join(sorted(SOURCES))}")
    expected = based_on(data)
    last, before = current_state(game, play)
    if expected is not None and expected != (last.seq if last else 0):
        now_at = last.seq if last else 0
        raise AppError(409, "stale", store.MOVED_ON.format(now=now_at), current=now_at)
    if data.get("players") is not None:  # the players the first photo showed, as corrected
        play = _seat_from_table(play, game, data["players"], last)
    after = services.load_state(game, data.get("state"))
    after = services.with_seats(after, play.players, play.options)
    after = services.load_state(game, services.state_doc(after))
    found = services.violations(game, before, after)
    if found and not _flag(data.get("accept_violations", False)):
        raise AppError(
            409, "illegal_move", "this move breaks the rules; fix the table or accept it anyway",
            violations=found,
        )
    problems = _problems(data.get("problems"), after)
    snap = store.append(
        play.id, services.state_doc(after), found, problems, source,
        expected_seq=last.seq if last else 0,
    )
    tableside.keep_photo(play.id, snap.seq, after)
    return jsonify({"accepted": snap.to_dict(), "move": services.move_summary(before, after)}), 201


def _seat_from_table(play: store.Play, game: Game, raw: Any, last: store.Snapshot | None) -> store.Play:
    """Before the first accepted state the players may change to those the photo shows."""
    players = services.parse_players(raw)
    if [(p.id, p.name, p.colour) for p in players] == [(p.id, p.name, p.colour) for p in play.players]:
        return play
    if last is not None:
        raise AppError(409, "players_set", "the players are set once the game has started; rename them instead")
    services.check_setup(game, players, play.options)
    return store.set_players(play.id, players)


@bp.post("/api/plays/<play_id>/players")
def rename_players(play_id: str) -> Response:
    """Correct the players' names and colours (their seats and areas stay as they are)."""
    play = store.get_play(play_id)
    raw = json_body().get("players")
    given = services.parse_players(raw)
    if store.latest(play.id) is not None and [p.id for p in given] != [p.id for p in play.players]:
        raise AppError(409, "players_set", "the players are set once the game has started; rename them instead")
    services.check_setup(services.game_or_404(play.game), given, play.options)
    return jsonify(store.set_players(play.id, given).to_dict())


def _problems(raw: Any, state: BoardState) -> dict[str, int]:
    out = {"unreadable": len(state.unknown), "face_down": 0, "duplicated": 0, "foreign": 0, "not_in_view": 0}
    if isinstance(raw, dict):
        for key in out:
            value = raw.get(key, 0)
            if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 10_000:
                out[key] = max(out[key], value)
    return out


@bp.post("/api/plays/<play_id>/undo")
def undo(play_id: str) -> Response:
    """Drop the last accepted state; with ``based_on``, only the state the asking page shows."""
    store.get_play(play_id)
    current = store.undo(play_id, based_on(request.get_json(silent=True)))
    tableside.forget_photos(play_id, current.seq if current else 0)
    return jsonify({"current": current.to_dict() if current else None})


@bp.get("/api/plays/<play_id>/events")
def events(play_id: str) -> Response:
    """Server-sent events: one ``change`` each time the play's accepted state, players or
    finish change, so every open page follows the table within a second."""
    store.get_play(play_id)
    return Response(
        stream_with_context(_event_stream(play_id)), mimetype="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


#: How often the event stream looks at the store, and how long one stream lasts (the
#: browser's EventSource reconnects by itself; a bounded stream frees its thread).
EVENT_POLL_S = 0.5
EVENT_STREAM_S = 300.0


def _event_stream(play_id: str) -> Any:
    import time

    seen = None
    start = time.monotonic()
    yield "retry: 1000\n\n"
    while time.monotonic() - start < EVENT_STREAM_S:
        rev = store.revision(play_id)
        if rev != seen:
            seen = rev
            last = store.latest(play_id) if rev != ("gone",) else None
            doc = {"seq": last.seq if last else 0, "gone": rev == ("gone",)}
            yield f"event: change\ndata: {json.dumps(doc)}\n\n"
            if doc["gone"]:
                return
        else:
            yield ": still here\n\n"
        time.sleep(EVENT_POLL_S)


@bp.get("/api/plays/<play_id>/photos/<int:seq>")
def photo(play_id: str, seq: int) -> Response:
    """The photo an accepted state was read from, with what was recognised on it."""
    store.get_play(play_id)
    path = tableside.photo_path(play_id, seq)
    if path is None:
        raise AppError(404, "no_photo", "no photo was kept of this state")
    if request.args.get("overlay") == "1":
        return jsonify({"recognition": tableside.photo_overlay(play_id, seq)})
    response = Response(path.read_bytes(), mimetype="image/jpeg")
    response.cache_control.private = True
    response.cache_control.max_age = 3600
    return response


def sheet_for(play: store.Play, seq: int | None, confirm: bool) -> dict[str, Any]:
    """The score sheet of a state, or a refusal saying why it would be a guess."""
    game = services.game_or_404(play.game)
    snap = store.snapshot_at(play.id, seq) if seq is not None else store.latest(play.id)
    if snap is None:
        raise AppError(409, "no_state", "nothing accepted yet: scan the table first")
    refused = services.refusal(snap.problems)
    if refused and not confirm:
        raise AppError(
            409, "unconfirmed_problems",
            "not scoring a guess: " + "; ".join(refused) + ". Fix the table or confirm.",
            problems=snap.problems,
        )
    state = services.load_state(game, snap.state)
    sheet = services.score(game, state).to_dict()
    names = {p.id: p.name for p in state.players}
    return {"seq": snap.seq, "sheet": sheet, "names": names, "confirmed_problems": refused}


@bp.get("/api/plays/<play_id>/score")
def play_score(play_id: str) -> Response:
    play = store.get_play(play_id)
    return jsonify(sheet_for(play, _int_arg("seq"), _flag(request.args.get("confirm", ""))))


@bp.post("/api/plays/<play_id>/finish")
def finish(play_id: str) -> Response:
    play = store.get_play(play_id)
    data = request.get_json(silent=True) or {}
    confirm = _flag(data.get("confirm", False) if isinstance(data, dict) else False)
    confirm = confirm or _flag(request.form.get("confirm", ""))
    seen = based_on(data)
    scored = sheet_for(play, None, confirm)
    if seen is not None and seen != scored["seq"]:
        raise AppError(409, "stale", store.MOVED_ON.format(now=scored["seq"]), current=scored["seq"])
    # The sheet is of state ``scored["seq"]``; the game is closed only if that is still the latest.
    return jsonify(store.finish(play.id, scored["sheet"], scored["seq"]).to_dict())


@bp.get("/api/plays/<play_id>/states")
def states(play_id: str) -> Response:
    store.get_play(play_id)
    return jsonify({"states": [s.to_dict() for s in store.snapshots(play_id)]})


@bp.get("/api/plays/<play_id>/states/<int:seq>")
def state_at(play_id: str, seq: int) -> Response:
    store.get_play(play_id)
    return jsonify(store.snapshot_at(play_id, seq).to_dict())


def export_doc(play: store.Play) -> dict[str, Any]:
    return {
        "format": "table-companion-play",
        "version": 1,
        "play": play.to_dict(),
        "states": [s.to_dict() for s in store.snapshots(play.id)],
    }


@bp.get("/api/plays/<play_id>/export")
def export(play_id: str) -> Response:
    play = store.get_play(play_id)
    body = json.dumps(export_doc(play), indent=2, ensure_ascii=False)
    resp = Response(body, mimetype="application/json")
    resp.headers["Content-Disposition"] = f'attachment; filename="{play.game}-{play.id}.json"'
    return resp


@bp.post("/api/plays/import")
def import_play() -> tuple[Response, int]:
    """A saved game from an export: refused whole when any part is wrong, stored whole otherwise."""
    play, snaps = checked_import(json_body())
    stored = store.import_play(play, snaps)
    return jsonify({**stored.to_dict(), "states": len(snaps)}), 201


def bgstats(play: store.Play) -> dict[str, Any]:
    """The BG Stats "addPlay" document and link for a scored play."""
    game = services.game_or_404(play.game)
    sheet = play.final_sheet
    if sheet is None:
        try:
            sheet = sheet_for(play, None, True)["sheet"]
        except AppError:
            sheet = None
    ranks = {r["player"]: r for r in (sheet or {}).get("ranking", [])}
    winners = set((sheet or {}).get("winners", []))
    players = []
    for p in sorted(play.players, key=lambda p: p.seat):
        entry: dict[str, Any] = {"name": p.name, "startPlayer": p.seat == 0}
        if p.id in ranks:
            entry.update(score=ranks[p.id]["total"], rank=ranks[p.id]["rank"], winner=p.id in winners)
        players.append(entry)
    game_doc: dict[str, Any] = {"name": game.name, "highestWins": True, "noPoints": False}
    if game.info.bgg_id is not None:  # BG Stats matches a game without one by its name
        game_doc["bggId"] = game.info.bgg_id
    started = store.local_time(play.created_at, "%Y-%m-%d %H:%M:%S")  # BG Stats reads local time
    doc: dict[str, Any] = {
        "sourceName": "Table companion",
        "sourcePlayId": play.id,
        "playDate": started,
        "game": game_doc,
        "players": players,
    }
    if play.finished_at:
        doc["durationMin"] = max(0, _minutes_between(play.created_at, play.finished_at))
    url = "https://app.bgstatsapp.com/addPlay.html?data=" + quote(json.dumps(doc, separators=(",", ":")))
    return {"data": doc, "url": url}


def _minutes_between(start: str, end: str) -> int:
    from datetime import datetime

    return int((datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds() // 60)


@bp.get("/api/plays/<play_id>/bgstats")
def bgstats_link(play_id: str) -> Response:
    return jsonify(bgstats(store.get_play(play_id)))
