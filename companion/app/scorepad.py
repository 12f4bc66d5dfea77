"""The score pad players read: a column per player, a row per scoring category.

Built from the rules' score sheet and the game's pad data (``scoring.score_pad``): the
category words and order are the rulebook's, the points the sheet's. What earned a cell is
said in plain words (component names and points); the components each line counts come
from the sheet as ids (never read out of its words), so the page can outline them on the
photo; the sheet's full evidence stays one click away.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from scoring.model import Game, Player
from scoring.score_pad import ScorePad, score_pad
from scoring.words import plural

#: Printed shapes players should never have to read: arrows and grid coordinates.
_ARROW = re.compile(r"\s*(->|→)\s*")
_COORD = re.compile(r"\s*(?:at\s+)?\(-?\d+,\s*-?\d+\)")


def line_components(line: Mapping[str, Any]) -> list[str]:
    """The components a score line counts, as the sheet lists them (none in a sheet saved
    before lines carried them)."""
    return [str(c) for c in line.get("components", ())]


def _subject(line: Mapping[str, Any], names: Mapping[str, str]) -> str | None:
    """The name of the component the line is about, when it is about one the catalog names."""
    ids = line_components(line)
    if not ids or line.get("collective", False):
        return None
    return names.get(ids[0])


def plain_line(line: Mapping[str, Any], names: Mapping[str, str]) -> str:
    """One line of the sheet as a player says it: what scored and how much, no codes. The
    subject is the name of the component the line is about, else the evidence's opening words."""
    evidence, points = str(line["evidence"]), int(line["points"])
    subject = _subject(line, names)
    if subject is None:
        subject = evidence.split(":", 1)[0]
        subject = re.sub(r"\s*\([^)]*\)", "", _COORD.sub("", subject)).strip() or evidence
        subject = _ARROW.split(subject)[0]
        if points == 0 and ":" not in evidence:
            return subject[:1].upper() + subject[1:]
    subject = subject[:1].upper() + subject[1:]
    if points == 0:  # "why nothing?": the sheet's reason, coordinates left out
        why = _reason(evidence)
        return f"{subject}: nothing scored ({why})" if why else f"{subject}: nothing scored"
    return f"{subject}: {plural(points, 'point')}"


def _reason(evidence: str) -> str:
    """The part of a line's evidence after its subject, in words (at most a sentence)."""
    _, sep, rest = evidence.partition(": ")
    if not sep:
        return ""
    rest = _COORD.sub("", rest)
    rest = re.sub(r"\s*(->|→)\s*-?\d+\s*$", "", rest)
    rest = _ARROW.sub(": ", rest).strip(" ,;")
    if not rest or rest.isdigit():
        return ""
    return rest if len(rest) <= 120 else rest[:117].rsplit(" ", 1)[0] + "…"


def build(game: Game, sheet: Mapping[str, Any], players: Sequence[Player]) -> dict[str, Any]:
    """The pad of one score sheet: columns, rows, totals, ranks, winners and the tie-break."""
    pad = score_pad(game.id)
    names = {c.id: c.name for c in game.components()}
    seated = {p.id: p for p in players}
    sheets = {ps["player"]: ps for ps in sheet.get("players", [])}
    ranks = {r["player"]: r["rank"] for r in sheet.get("ranking", [])}
    winners = list(sheet.get("winners", []))
    order = [p.id for p in sorted(players, key=lambda p: p.seat) if p.id in sheets]
    order += [pid for pid in sheets if pid not in order and pad.neutral_name(pid) is None]
    columns = [
        {
            "player": pid,
            "name": seated[pid].name if pid in seated else pid,
            "colour": (seated[pid].colour if pid in seated else "") or "#888888",
            "total": sheets[pid]["total"],
            "rank": ranks.get(pid),
            "winner": pid in winners,
        }
        for pid in order
    ]
    rows = _rows(pad, order, sheets, names)
    neutral = [
        {"player": pid, "name": pad.neutral_name(pid), "total": sheets[pid]["total"], "winner": pid in winners}
        for pid in sheets
        if pad.neutral_name(pid) is not None
    ]
    return {
        "columns": columns,
        "rows": rows,
        "neutral": neutral,
        "result": _result(columns, neutral, winners, pad, seated),
        "tie_break": _tie_break(sheet.get("tie_break")),
        "notes": [plain_note(str(n), seated) for n in sheet.get("notes", [])],
    }


def plain_note(text: str, seated: Mapping[str, Player]) -> str:
    """A sheet's note with coordinates dropped and a leading player id ("frog: ...") given as
    the player's name (notes name components by their names)."""
    text = _COORD.sub("", text)
    head, sep, rest = text.partition(": ")
    if sep and head in seated:
        text = f"{seated[head].name}: {rest}"
    return _ARROW.sub(": ", text)


def _rows(
    pad: ScorePad, order: Sequence[str], sheets: Mapping[str, Any], names: Mapping[str, str],
) -> list[dict[str, Any]]:
    rules: list[str] = [c.rule for c in pad.categories]
    for pid in order:
        for line in sheets[pid]["lines"]:
            if line["rule"] not in rules:
                rules.append(line["rule"])
    used = {line["rule"] for pid in order for line in sheets[pid]["lines"]}
    rows = []
    for rule in sorted(rules, key=pad.order):
        if rule not in used:
            continue  # a category nobody has a line in (goals not on the table) takes no room
        cells = []
        for pid in order:
            lines = [line for line in sheets[pid]["lines"] if line["rule"] == rule]
            items, components = [], []
            for line in lines:
                items.append(plain_line(line, names))
                components += [i for i in line_components(line) if i not in components]
            cells.append(
                {
                    "player": pid,
                    "points": sum(line["points"] for line in lines),
                    "items": items,
                    "components": components,
                    "evidence": [line["evidence"] for line in lines],
                }
            )
        rows.append({"rule": rule, "label": pad.label(rule), "cells": cells})
    return rows


def _result(
    columns: Sequence[Mapping[str, Any]], neutral: Sequence[Mapping[str, Any]], winners: Sequence[str],
    pad: ScorePad, seated: Mapping[str, Player],
) -> str:
    """Who won, in a sentence."""
    named = [seated[w].name if w in seated else (pad.neutral_name(w) or w) for w in winners]
    if not named:
        return "Nobody wins."
    if neutral and all(pad.neutral_name(w) for w in winners):
        return f"{named[0][0].upper()}{named[0][1:]} wins."
    if len(named) == 1:
        return f"{named[0]} wins!"
    return f"{', '.join(named[:-1])} and {named[-1]} share the win."


def _tie_break(text: Any) -> str | None:
    """The sheet's tie-break as a sentence (it may come as a bare phrase)."""
    if not text:
        return None
    s = _ARROW.sub(": ", str(text)).strip()
    s = s[0].upper() + s[1:]
    return s if s.endswith((".", "!")) else s + "."
