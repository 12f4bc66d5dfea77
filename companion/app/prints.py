"""Printables of every game as PDF downloads, by sheet and paper size."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, render_template, request, stream_with_context

from . import services
from .errors import AppError

bp = Blueprint("prints", __name__)
MAX_BLEED_MM = 5.0
MAX_GUTTER_MM = 10.0


def _printables() -> Any:
    try:
        import printables
    except ImportError as exc:  # pragma: no cover - the package ships with the app
        raise AppError(503, "no_printables", "printables are not installed") from exc
    if not hasattr(printables, "iter_pdf"):
        raise AppError(503, "no_printables", "printables are not available in this build")
    return printables


def choices() -> dict[str, Any]:
    p = _printables()
    return {
        "what": tuple(p.WHAT_CHOICES),
        "paper": tuple(p.PAPER_CHOICES),
        "label_sheets": tuple(getattr(p, "LABEL_SHEETS", ()) or ()),
    }


@bp.get("/print")
def index() -> str:
    games = services.game_list()
    try:
        opts = choices()
        error = None
    except AppError as exc:
        opts, error = {"what": (), "paper": (), "label_sheets": ()}, exc.message
    return render_template("print.html", games=games, opts=opts, error=error)


def _ticked(name: str) -> bool:
    """A checkbox: absent or "0" is off, "1"/"on" is on, anything else a clear 400."""
    value = request.args.get(name, "0").strip().lower()
    if value not in ("", "0", "1", "on", "off", "true", "false"):
        raise AppError(400, "bad_argument", f"{name} is a yes/no choice")
    return value in ("1", "on", "true")


@bp.get("/print/<game_id>.pdf")
def pdf(game_id: str) -> Response:
    """Validated up front, then streamed: a big edition never sits whole in memory."""
    game = services.game_or_404(game_id)
    p = _printables()
    opts = choices()
    what = request.args.get("what", "all")
    paper = request.args.get("paper", "a4")
    if what not in opts["what"]:
        raise AppError(400, "bad_argument", f"what must be one of {', '.join(opts['what'])}")
    if paper not in opts["paper"]:
        raise AppError(400, "bad_argument", f"paper must be one of {', '.join(opts['paper'])}")
    try:
        bleed = float(request.args.get("bleed", "0") or 0)
        gutter = float(request.args.get("gutter", "0") or 0)
        start_label = int(request.args.get("start_label", "1") or 1)
    except ValueError as exc:
        raise AppError(400, "bad_argument", "bleed, gutter and the first free label must be numbers") from exc
    if not 0 <= bleed <= MAX_BLEED_MM:
        raise AppError(400, "bad_argument", f"bleed must be 0-{MAX_BLEED_MM:g} mm")
    if not 0 <= gutter <= MAX_GUTTER_MM:
        raise AppError(400, "bad_argument", f"the space between cards must be 0-{MAX_GUTTER_MM:g} mm")
    fold, ink_saver = _ticked("fold"), _ticked("ink_saver")
    label_sheet = request.args.get("label_sheet") or None
    if label_sheet is not None and label_sheet not in opts["label_sheets"]:
        raise AppError(400, "bad_argument", f"unknown label sheet {label_sheet!r}")
    try:
        chunks = p.iter_pdf(
            game.id, what=what, paper=paper, bleed_mm=bleed, start_label=start_label,
            label_sheet=label_sheet, gutter_mm=gutter, fold=fold, ink_saver=ink_saver,
        )
        first = next(chunks, b"")
    except (p.PrintError, ValueError) as exc:
        raise AppError(400, "cannot_print", str(exc)) from exc

    def body() -> Iterator[bytes]:
        yield first
        yield from chunks

    resp = Response(stream_with_context(body()), mimetype="application/pdf")
    resp.headers["Content-Disposition"] = (
        f'attachment; filename="{game.id}-{what}-{paper}.pdf"'
    )
    return resp
