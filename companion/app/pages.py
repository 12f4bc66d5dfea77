"""The pages a person sees: home, new game, table, score sheet, join."""

from __future__ import annotations

import io
from typing import Any

from flask import (
    Blueprint,
    Response,
    current_app,
    redirect,
    render_template,
    request,
    url_for,
)
from werkzeug.wrappers import Response as BaseResponse

from scoring.score_pad import score_pad

from . import scorepad, services, store, tableside
from .api import create_play_from, game_summary, sheet_for
from .errors import AppError
from .security import is_loopback, try_join

bp = Blueprint("pages", __name__)
MAX_SEATS = 6


@bp.get("/")
def home() -> str:
    games = [game_summary(g) for g in services.game_list()]
    recent = store.list_plays(limit=8)
    return render_template("home.html", games=games, recent=recent, join=_join_info())


def _join_info() -> dict[str, Any] | None:
    """On the host's own screen in --lan mode: the code and the link a phone scans."""
    code = current_app.config.get("JOIN_CODE")
    if not code or not is_loopback(request.remote_addr):
        return None
    return {"code": code, "urls": current_app.config.get("JOIN_URLS", [])}


@bp.get("/join/qr.svg")
def join_qr() -> Response:
    info = _join_info()
    if info is None or not info["urls"]:
        raise AppError(404, "no_join_code", "no join code on this screen")
    import qrcode
    import qrcode.image.svg

    img = qrcode.make(info["urls"][0], image_factory=qrcode.image.svg.SvgPathImage, box_size=12)
    out = io.BytesIO()
    img.save(out)
    return Response(out.getvalue(), mimetype="image/svg+xml")


@bp.route("/join", methods=["GET", "POST"])
def join() -> str | BaseResponse:
    target = request.values.get("next", "/")
    if not target.startswith("/") or target.startswith("//") or "\\" in target:
        target = "/"
    code = request.values.get("code", "")
    error = None
    if code:
        if try_join(code):
            return redirect(target)
        error = "That code is not the one on the host screen."
    return render_template("join.html", next=target, error=error)


@bp.get("/samples/<game_id>/<int:index>.jpg")
def sample_photo(game_id: str, index: int) -> Response:
    photos = services.sample_photos(services.game_or_404(game_id).id)
    if not 0 <= index < len(photos):
        raise AppError(404, "no_sample", f"no sample photo {index} for {game_id}")
    # Read whole (a few hundred KB): a streamed file is left open when a browser drops the request.
    response = Response(photos[index].read_bytes(), mimetype="image/jpeg")
    response.cache_control.public = True
    response.cache_control.max_age = 3600
    return response


@bp.post("/try/<game_id>")
def try_sample(game_id: str) -> BaseResponse:
    """One click from the home page: a game with the example's players, on its sample photo."""
    game = services.game_or_404(game_id)
    players = services.sample_players(game)
    for old in store.clear_unkept():  # yesterday's tries nobody kept
        tableside.forget_photos(old)
    play = create_play_from(
        {"game": game.id, "title": f"{game.name} (sample)", "players": players, "options": {}}, kept=False
    )
    return redirect(url_for("pages.table", play_id=play.id, sample=0))


@bp.route("/new", methods=["GET", "POST"])
def new_game() -> str | BaseResponse:
    games = [game_summary(g) for g in services.game_list()]
    chosen = request.values.get("game") or (games[0]["id"] if games else "")
    error = None
    if request.method == "POST":
        try:
            game = services.game_or_404(chosen)
            play = create_play_from(
                {
                    "game": game.id,
                    "title": request.form.get("title", ""),
                    "players": _form_players(),
                    "options": _form_options(game),
                }
            )
            return redirect(url_for("pages.table", play_id=play.id))
        except AppError as exc:
            error = exc.message
    chosen_game = next((g for g in games if g["id"] == chosen), games[0] if games else None)
    return render_template(
        "new.html",
        games=games,
        chosen=chosen_game,
        palette=services.PALETTE,
        seats=MAX_SEATS,
        error=error,
    ), (400 if error else 200)


def _form_players() -> list[dict[str, Any]]:
    rows = []
    for i in range(MAX_SEATS):
        name = request.form.get(f"name{i}", "").strip()
        pid = request.form.get(f"id{i}", "").strip().lower()
        colour_name = request.form.get(f"colour{i}", "").strip()
        if not name and not pid and not colour_name:
            continue
        seat = request.form.get(f"seat{i}", str(i + 1))
        try:
            order = int(seat)
        except ValueError as exc:
            raise AppError(400, "bad_players", f"player {i + 1}: seat must be a number") from exc
        if colour_name and colour_name not in services.PALETTE:
            raise AppError(400, "bad_players", f"player {i + 1}: unknown colour {colour_name!r}")
        pid = pid or colour_name or f"p{i + 1}"
        colour = services.PALETTE.get(colour_name, "")
        rows.append((order, i, {"id": pid, "name": name or pid, "colour": colour}))
    if not rows:
        raise AppError(400, "bad_players", "name at least one player")
    return [r for _, _, r in sorted(rows)]


def _form_options(game: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, default in services.game_options(game).items():
        field = f"opt_{key}"
        if isinstance(default, bool):
            out[key] = field in request.form
        elif field in request.form and request.form[field] != "":
            out[key] = request.form[field]
    return out


@bp.get("/plays/<play_id>/table")
def table(play_id: str) -> str:
    play = store.get_play(play_id)
    game = services.game_or_404(play.game)
    last = store.latest(play.id)
    page = {
        "play": play.to_dict(),
        "game": game_summary(game),
        "names": services.names_of(game),
        "areas": dict(score_pad(game.id).areas),
        "area_prepositions": dict(score_pad(game.id).prepositions),
        "current": last.to_dict() if last else None,
        "host_camera": current_app.config.get("HOST_CAMERA") is not None,
        "sample": request.args.get("sample"),
        "urls": {
            "frames": url_for("api.frame", play_id=play.id),
            "host": url_for("camera.host_frame", play_id=play.id),
            "moves": url_for("api.accept_move", play_id=play.id),
            "undo": url_for("api.undo", play_id=play.id),
            "score": url_for("pages.score", play_id=play.id),
            "events": url_for("api.events", play_id=play.id),
            "players": url_for("api.rename_players", play_id=play.id),
            "play": url_for("api.show_play", play_id=play.id),
            "new_game": url_for("pages.new_game"),
            "keep": url_for("api.keep_play", play_id=play.id),
        },
    }
    return render_template("table.html", play=play, game=game, page=page)


@bp.get("/plays/<play_id>/score")
def score(play_id: str) -> tuple[str, int]:
    play = store.get_play(play_id)
    game = services.game_or_404(play.game)
    seq = request.args.get("seq", type=int)
    confirm = request.args.get("confirm") == "1"
    try:
        scored = sheet_for(play, seq, confirm)
    except AppError as exc:
        if exc.reason not in ("unconfirmed_problems", "no_state"):
            raise
        return render_template(
            "score.html", play=play, game=game, scored=None, refusal=exc.message,
            can_confirm=exc.reason == "unconfirmed_problems", seq=seq,
            data={"events": url_for("api.events", play_id=play.id), "seq": _latest_seq(play.id)},
        ), 200  # a page saying what to do next, not a failed load (the JSON API answers 409)
    pad = scorepad.build(game, scored["sheet"], play.players)
    photo = tableside.photo_path(play.id, scored["seq"])
    data = {
        "pad": pad,
        "photo": url_for("api.photo", play_id=play.id, seq=scored["seq"]) if photo else None,
        "recognition": tableside.photo_overlay(play.id, scored["seq"]) if photo else None,
        "names": services.names_of(game),
        "events": url_for("api.events", play_id=play.id),
        "seq": scored["seq"],
    }
    return render_template(
        "score.html", play=play, game=game, scored=scored, refusal=None, can_confirm=False, seq=seq,
        pad=pad, data=data,
    ), 200


def _latest_seq(play_id: str) -> int:
    last = store.latest(play_id)
    return last.seq if last else 0


@bp.post("/plays/<play_id>/finish")
def finish(play_id: str) -> BaseResponse:
    play = store.get_play(play_id)
    scored = sheet_for(play, None, request.form.get("confirm") == "1")
    seen = request.form.get("based_on", type=int)
    if seen is not None and seen != scored["seq"]:  # the pad on screen was of an older move
        return redirect(url_for("pages.score", play_id=play.id, moved=1))
    store.finish(play.id, scored["sheet"], scored["seq"])
    return redirect(url_for("history.detail", play_id=play.id))
