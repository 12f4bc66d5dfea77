"""Saved games: the list, each game's timeline of accepted states, replay and export."""

from __future__ import annotations

from flask import Blueprint, redirect, render_template, request, url_for
from werkzeug.wrappers import Response as BaseResponse

from scoring.score_pad import score_pad

from . import scorepad, services, store, tableside
from .api import bgstats, sheet_for
from .errors import AppError

bp = Blueprint("history", __name__, url_prefix="/history")


@bp.get("/")
def index() -> str:
    plays = store.list_plays()
    names = {g.id: g.name for g in services.game_list()}
    return render_template("history.html", plays=plays, names=names)


@bp.get("/<play_id>")
def detail(play_id: str) -> str:
    play = store.get_play(play_id)
    game = services.game_or_404(play.game)
    snaps = store.snapshots(play.id)
    timeline = []
    before = None
    for snap in snaps:
        try:
            state = services.load_state(game, snap.state)
        except AppError as exc:  # saved under older rules: still listed, never a crash
            timeline.append({"snap": snap, "move": None, "error": exc.message})
            before = None
            continue
        timeline.append({"snap": snap, "move": services.move_summary(before, state), "error": None})
        before = state
    link = bgstats(play)
    return render_template(
        "history_detail.html", play=play, game=game, timeline=timeline, bgstats=link
    )


@bp.get("/<play_id>/replay")
def replay(play_id: str) -> tuple[str, int]:
    """Step through the accepted states, each with its score sheet at that moment."""
    play = store.get_play(play_id)
    game = services.game_or_404(play.game)
    snaps = store.snapshots(play.id)
    if not snaps:
        raise AppError(404, "no_state", "this game has no accepted state to replay")
    seq = request.args.get("seq", default=1, type=int)
    seqs = [s.seq for s in snaps]
    if seq not in seqs:
        raise AppError(404, "unknown_state", f"this game has no accepted state {seq}")
    index = seqs.index(seq)
    snap = snaps[index]
    before = services.load_state(game, snaps[index - 1].state) if index else None
    state = services.load_state(game, snap.state)
    try:
        scored = sheet_for(play, seq, True)
    except AppError as exc:
        scored = {"error": exc.message}
    photo = tableside.photo_path(play.id, seq)
    data = {
        "move": services.move_summary(before, state),
        "names": services.names_of(game),
        "areas": dict(score_pad(game.id).areas),
        "area_prepositions": dict(score_pad(game.id).prepositions),
        "players": [{"id": p.id, "name": p.name, "colour": p.colour} for p in play.players],
        "setup": index == 0,
        "placements": [{"component": p.component, "area": p.area, "on": p.on} for p in state.placements],
        "photo": url_for("api.photo", play_id=play.id, seq=seq) if photo else None,
        "recognition": tableside.photo_overlay(play.id, seq) if photo else None,
    }
    pad = scorepad.build(game, scored["sheet"], play.players) if "sheet" in scored else None
    # The rules say again what the accepted move broke, in today's words (a game saved before
    # the messages named pieces by their printed names reads like a new one).
    broken = services.violations(game, before, state) if before is not None and snap.violations else snap.violations
    return render_template(
        "replay.html",
        violations=broken,
        data=data,
        pad=pad,
        play=play,
        game=game,
        snap=snap,
        names=services.names_of(game),
        move=services.move_summary(before, state),
        scored=scored,
        prev_seq=seqs[index - 1] if index else None,
        next_seq=seqs[index + 1] if index + 1 < len(seqs) else None,
        count=len(seqs),
        position=index + 1,
    ), 200


@bp.post("/<play_id>/delete")
def delete(play_id: str) -> BaseResponse:
    store.delete_play(play_id)
    tableside.forget_photos(play_id)
    return redirect(url_for("history.index"))
