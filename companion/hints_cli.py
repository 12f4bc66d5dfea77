"""``companion hints``: every legal spot for a piece in hand, with its points, from a state file.

Kept apart from cli.py so the subcommand is one registration line there.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from scoring.hints import (
    Refusal,
    Spot,
    apply_place,
    explain,
    find_hints,
    holdable_labels,
    hints_to_json,
    market_choices,
    market_to_json,
    refusal_to_json,
    spot_to_json,
)
from scoring.model import BoardState, parse_area
from scoring.words import Words
from scoring.state import state_to_json

from .cli_input import EXIT_ILLEGAL, EXIT_OK, _fail, _load_state


def add_parser(sub: Any) -> None:
    p = sub.add_parser("hints", help="list every legal spot for a piece in hand, with its points")
    p.add_argument("state", metavar="STATE.json")
    p.add_argument("component", metavar="COMPONENT", help="catalog id of the piece in hand, e.g. T042")
    p.add_argument("--player", metavar="ID", help="whose hand (default: the player holding it, else the first)")
    p.add_argument("--game", help="game id, if the file does not say")
    p.add_argument("--json", action="store_true", help="print the spots as JSON (docs/hints.md)")
    p.add_argument("--at", metavar="PLACE", help="explain one place, as JSON: '{\"cell\": [2, -1], \"rotation\": 1}'")
    p.add_argument("--market", action="store_true", help="also rank what the player may take from the market")
    p.add_argument("--save", metavar="DIR", help="write before.json and spot-N.json for `companion check`")
    p.set_defaults(func=cmd_hints)


def _player(state: BoardState, component: str, wanted: str | None) -> str:

    if wanted is not None:
        if wanted not in {p.id for p in state.players}:
            _fail(f"no player {wanted!r} in this state; players: {', '.join(p.id for p in state.players)}")
        return wanted
    where = state.placement_of(component)
    if where is not None:
        owner = parse_area(where.area).owner or ""
        if owner in {p.id for p in state.players}:
            return owner
    if not state.players:
        _fail("the state seats no player")
    return state.players[0].id


def _place_arg(text: str) -> dict[str, Any]:

    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        _fail(f"--at: not valid JSON ({exc.msg})")
    if not isinstance(value, dict):
        _fail("--at: a place is a JSON object such as {\"cell\": [2, -1]}")
    return value


def _reasons(refused: tuple[Refusal, ...]) -> list[tuple[str, str, int]]:
    """Each rule that refused a place, with one of its messages and how many places it refused."""
    seen: dict[str, tuple[str, int]] = {}
    for r in refused:
        for v in r.violations:
            message, count = seen.get(v.code, (v.message, 0))
            seen[v.code] = (message, count + 1)
    return sorted(((c, m, n) for c, (m, n) in seen.items()), key=lambda x: -x[2])


def _gains(spot: Spot) -> str:
    return ", ".join(f"{g.rule} {g.points:+d}" for g in spot.gains) or "no points now"


def cmd_hints(args: argparse.Namespace) -> int:

    game, state = _load_state(args.state, args.game)
    if args.component not in game.component_index:
        _fail(f"unknown component {args.component!r} for {game.name}")
    player = _player(state, args.component, args.player)
    if args.at is not None:
        return _explain(state, args.component, player, _place_arg(args.at), as_json=args.json)
    hints = find_hints(state, args.component, player)
    market = market_choices(state, player) if args.market else ()
    if args.save:
        _save(Path(args.save), hints.before, [apply_place(hints.before, s.place) for s in hints.spots])
    if args.json:
        doc = hints_to_json(hints)
        if args.market:
            doc["market"] = market_to_json(market)
        print(json.dumps(doc, indent=2, ensure_ascii=False))
        return EXIT_OK
    words = Words.of(game.id, state)
    print(f"{game.name}: where can {words.name(args.component)} go? ({state.player(player).name})")
    if not hints.spots:
        print("  nowhere legal now; the places tried break:")
        for code, message, count in _reasons(find_hints(state, args.component, player, with_refused=True).refused):
            print(f"  {count:>4} x {code}: e.g. {message}")
    for i, spot in enumerate(hints.spots, start=1):
        print(f"  {i:>3}. {spot.total:+4d}  {spot.place.label}  ({_gains(spot)})")
    if args.market:
        print("Market:")
        labels = holdable_labels(state, player)
        for m in market:
            print(f"  {labels.get(m.component, words.name(m.component))}: {m.reason}")
    return EXIT_OK


def _explain(state: BoardState, component: str, player: str, where: dict[str, Any], *, as_json: bool) -> int:

    verdict = explain(state, component, player, where)
    if as_json:
        doc = refusal_to_json(verdict) if isinstance(verdict, Refusal) else spot_to_json(verdict)
        print(json.dumps(doc, indent=2, ensure_ascii=False))
    elif isinstance(verdict, Refusal):
        print(f"{verdict.place.label}: not allowed")
        for v in verdict.violations:
            print(f"  {v.code}: {v.message}")
    else:
        print(f"{verdict.place.label}: legal, {verdict.total:+d} ({_gains(verdict)})")
    return EXIT_ILLEGAL if isinstance(verdict, Refusal) else EXIT_OK


def _save(folder: Path, before: BoardState, afters: list[BoardState]) -> None:

    try:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "before.json").write_text(json.dumps(state_to_json(before), indent=1), "utf-8")
        for i, after in enumerate(afters, start=1):
            (folder / f"spot-{i}.json").write_text(json.dumps(state_to_json(after), indent=1), "utf-8")
    except OSError as exc:
        _fail(f"{folder}: cannot write ({exc.strerror})")
