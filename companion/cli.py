"""The ``companion`` command line: list games, score and check states, print, scan, serve.

Every user error prints one clear line to stderr and exits non-zero; no tracebacks.
Exit codes: 0 success, 1 an illegal move (``check``), 2 malformed input or usage.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from scoring import ScoringError, find_game, games
from scoring.model import BoardState, Game, ScoreSheet
from scoring.state import cell_to_json

from . import hints_cli
from .cli_input import (
    EXIT_BAD_INPUT,
    EXIT_ILLEGAL,
    EXIT_OK,
    MAX_PHOTO_BYTES,
    UserError,
    _fail,
    _load_state,
)

def format_sheet(sheet: ScoreSheet, state: BoardState | None = None) -> str:
    """A readable score sheet: one block per player, one line per rule with evidence."""
    names = {p.id: p.name for p in state.players} if state else {}
    out: list[str] = []
    for s in sheet.scores:
        label = names.get(s.player, s.player)
        out.append(f"{label} ({s.player})" if label != s.player else label)
        width = max((len(line.rule) for line in s.lines), default=4)
        for line in s.lines:
            out.append(f"  {line.rule:<{width}}  {line.points:>4}  {line.evidence}")
        out.append(f"  {'total':<{width}}  {s.total:>4}")
        out.append("")
    out.append("Ranking:")
    for st in sheet.ranking:
        out.append(f"  {st.rank}. {names.get(st.player, st.player)}  {st.total}")
    winners = ", ".join(names.get(w, w) for w in sheet.winners) or "nobody"
    out.append(f"Winner: {winners}")
    if sheet.tie_break:
        out.append(f"Tie-break: {sheet.tie_break}")
    for note in sheet.notes:
        out.append(f"Note: {note}")
    return "\n".join(out)


def cmd_games(args: argparse.Namespace) -> int:
    rows = [{"id": g.id, "name": g.name} for g in games()]
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        width = max(len(r["id"]) for r in rows)
        for r in rows:
            print(f"{r['id']:<{width}}  {r['name']}")
    return EXIT_OK


def _example(game_name: str) -> tuple[Game, BoardState]:
    game = find_game(game_name)
    return game, game.load_state(game.example_state())


def cmd_score(args: argparse.Namespace) -> int:
    if args.example:
        game, state = _example(args.example)
    elif args.state:
        game, state = _load_state(args.state, args.game)
    else:
        _fail("give a STATE.json file or --example GAME")
    sheet = game.score_sheet(state)
    if args.json:
        print(json.dumps(sheet.to_dict(), indent=2, ensure_ascii=False))
    else:
        print(f"{game.name} — score sheet")
        print()
        print(format_sheet(sheet, state))
    return EXIT_OK


def cmd_example(args: argparse.Namespace) -> int:
    game = find_game(args.game)
    print(json.dumps(game.example_state(), indent=2, ensure_ascii=False))
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    game, before = _load_state(args.before, args.game)
    game_after, after = _load_state(args.after, args.game or game.id)
    if game_after.id != game.id:
        _fail(f"{args.after}: a {game_after.name} state cannot follow a {game.name} state")
    found = game.violations(before, after)
    if args.json:
        print(
            json.dumps(
                {"legal": not found, "violations": [v.to_dict() for v in found]},
                indent=2,
                ensure_ascii=False,
            )
        )
    elif not found:
        print("Legal move: no rule broken.")
    else:
        print(f"Illegal move: {len(found)} rule(s) broken.")
        for v in found:
            cells = ", ".join(str(tuple(c) if isinstance(c, tuple) else c) for c in v.cells)
            where = f" [{v.area}{': ' + cells if cells else ''}]" if v.area or cells else ""
            print(f"  {v.code}: {v.message}{where}")
    return EXIT_ILLEGAL if found else EXIT_OK


def cmd_print(args: argparse.Namespace) -> int:
    import printables

    game = find_game(args.game)
    if args.what not in ("all", "stickers"):
        have = sorted({printables.section_for(game.id, c.kind).value for c in game.components()})
        if args.what not in have:
            _fail(f"{game.name} has no {args.what} to print; it has {', '.join(have)}")
    try:
        data = printables.build_pdf(
            game.id,
            what=args.what,
            paper=args.paper,
            bleed_mm=args.bleed,
            start_label=args.start_label,
            label_sheet=args.label_sheet,
            gutter_mm=args.gutter,
            fold=args.fold,
            ink_saver=args.ink_saver,
        )
    except printables.PrintError as exc:
        message = str(exc)
        for name, option in (("label_sheet", "--label-sheet"), ("bleed_mm", "--bleed"), ("start_label", "--start-label"),
                             ("gutter_mm", "--gutter")):
            message = message.replace(name, option)
        _fail(message)
    out = Path(args.output)
    try:
        out.write_bytes(data)
    except OSError as exc:
        _fail(f"{args.output}: cannot write ({exc.strerror})")
    print(f"Wrote {out} ({len(data) // 1024} KiB): {game.name}, {args.what}, {args.paper}.")
    return EXIT_OK


def cmd_scan(args: argparse.Namespace) -> int:
    import vision

    game = find_game(args.game)
    path = Path(args.photo)
    try:
        if path.is_file() and path.stat().st_size > MAX_PHOTO_BYTES:
            _fail(f"{args.photo}: larger than {MAX_PHOTO_BYTES // (1024 * 1024)} MiB; not a photo we read")
        data = path.read_bytes()
    except FileNotFoundError:
        _fail(f"{args.photo}: no such file")
    except IsADirectoryError:
        _fail(f"{args.photo}: is a directory, expected a photo")
    except OSError as exc:
        _fail(f"{args.photo}: cannot read ({exc.strerror})")
    try:
        rec = vision.recognise(data, game.id)
    except vision.VisionError as exc:
        _fail(f"{args.photo}: {exc}")
    sheet = game.score_sheet(rec.state)
    if args.json:
        doc = {"recognition": rec.to_dict(), "score_sheet": sheet.to_dict()}
        print(json.dumps(doc, indent=2, ensure_ascii=False))
        return EXIT_OK
    print(f"{game.name} — {args.photo}")
    print()
    print(f"Recognised {len(rec.components)} component(s):")
    for c in rec.components:
        if c.area is None:
            print(f"  {c.payload:<20} not on a space of the table")
            continue
        where = f"cell {cell_to_json(c.cell)!s:<10}" if c.cell is not None else " " * 15
        turn = f" rotation {c.rotation}" if c.rotation is not None else ""
        print(f"  {c.payload:<20} {c.area:<16} {where}{turn}")
    problems = rec.to_dict()
    for key in ("unreadable", "face_down", "foreign", "duplicated", "disagreements"):
        items = problems.get(key) or []
        if items:
            print(f"{key.capitalize()}: {len(items)}")
            for item in items:
                print(f"  {json.dumps(item, ensure_ascii=False)}")
    if rec.problems:
        print(f"Problems: {len(rec.problems)}")
        for problem in rec.problems:
            print(f"  {problem.code}: {problem.message}")
    print()
    if rec.problems or rec.unreadable or rec.state.unknown:
        # Never a silently wrong score: what was not read is said next to the sheet too.
        print("Not everything on the table was read (see above): this score sheet may be incomplete.")
    print(format_sheet(sheet, rec.state))
    return EXIT_OK


def cmd_serve(args: argparse.Namespace) -> int:
    from companion.app.server import serve

    return serve(
        host=args.host,
        port=args.port,
        lan=args.lan,
        camera=args.camera,
        debug=args.debug,
        https=args.https,
        instance=args.instance,
    ) or EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion",
        description="Table companion for tabletop ecology games: scan, check moves, score, print.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("games", help="list the supported games")
    p.add_argument("--json", action="store_true", help="print as JSON")
    p.set_defaults(func=cmd_games)

    p = sub.add_parser("score", help="print the score sheet of a state file")
    p.add_argument("state", metavar="STATE.json", nargs="?")
    p.add_argument("--example", metavar="GAME", help="score the game's bundled example state")
    p.add_argument("--game", help="game id, if the file does not say")
    p.add_argument("--json", action="store_true", help="print the score sheet as JSON")
    p.set_defaults(func=cmd_score)

    p = sub.add_parser("example", help="print a game's bundled example state (a starting point)")
    p.add_argument("game")
    p.set_defaults(func=cmd_example)

    p = sub.add_parser("check", help="check the move between two state files")
    p.add_argument("before", metavar="BEFORE.json")
    p.add_argument("after", metavar="AFTER.json")
    p.add_argument("--game", help="game id, if the files do not say")
    p.add_argument("--json", action="store_true", help="print the violations as JSON")
    p.set_defaults(func=cmd_check)

    hints_cli.add_parser(sub)  # companion hints STATE.json COMPONENT

    p = sub.add_parser("print", help="write print-and-play sheets or stickers as a PDF")
    p.add_argument("game")
    p.add_argument(
        "--what",
        default="all",
        choices=("tiles", "cards", "tokens", "boards", "stickers", "all"),
        help="which sheets (default: all, the complete edition)",
    )
    p.add_argument("--paper", default="a4", choices=("a4", "letter"))
    p.add_argument("--bleed", type=float, default=0.0, metavar="MM", help="bleed in mm")
    p.add_argument("--label-sheet", default=None, help="label layout for --what stickers")
    p.add_argument("--gutter", type=float, default=0.0, metavar="MM", help="space between cards (default: shared cut lines)")
    p.add_argument("--fold", action="store_true", help="fold-and-glue pairs instead of duplex back pages")
    p.add_argument("--ink-saver", action="store_true", help="white faces with coloured bands")
    p.add_argument(
        "--start-label", type=int, default=1, metavar="N", help="first free label on the sheet"
    )
    p.add_argument("-o", "--output", required=True, metavar="FILE.pdf")
    p.set_defaults(func=cmd_print)

    p = sub.add_parser("scan", help="recognise a table photo and score it")
    p.add_argument("photo", metavar="PHOTO")
    p.add_argument("--game", required=True)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_scan)

    p = sub.add_parser("serve", help="start the web app")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=5000)
    p.add_argument("--lan", action="store_true", help="listen on the network (needs a join code)")
    p.add_argument("--camera", type=int, default=None, metavar="N", help="use host camera N")
    p.add_argument(
        "--https",
        action="store_true",
        help="serve HTTPS with a self-signed certificate (phones may then use their camera)",
    )
    p.add_argument(
        "--instance",
        metavar="DIR",
        default=None,
        help="folder of the saved games (default: your data folder, or $COMPANION_INSTANCE)",
    )
    p.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_serve)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except UserError as exc:
        print(f"companion: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except ScoringError as exc:
        print(f"companion: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("companion: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
