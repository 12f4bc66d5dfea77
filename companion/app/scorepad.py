"""The score pad players read: a column per player, a row per scoring category.

Built from the rules' score sheet and the game's pad data (``scoring.score_pad``): the
category words and order are the rulebook's, the points the sheet's. What earned a cell is
said in plain words (component names and points), and the components are named by id so
the page can outline them on the photo; the sheet's full evidence stays one click away.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from scoring.model import Game, Player
from scoring.score_pad import ScorePad, score_pad

#: Printed-code shapes players should never have to read (ids are matched against the catalog).
_ARROW = re.compile(r"\s*(->|→)\s*")
_COORD = re.compile(r"\s*(?:at\s+)?\(-?\d+,\s*-?\d+\)")


def _index(game: Game) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """Component id -> name, and (name, id) longest first for finding names in text."""
    names = {c.id: c.name for c in game.components()}
    by_name: dict[str, str] = {}
    for cid, name in names.items():
        by_name.setdefault(name.lower(), cid)
    return names, sorted(by_name.items(), key=lambda kv: -len(kv[0]))


def components_in(text: str, names: Mapping[str, str], by_name: Sequence[tuple[str, str]]) -> list[str]:
    """The catalog components a line of evidence names, by printed id or by name, in order."""
    found: list[tuple[int, str]] = []
    for m in re.finditer(r"[A-Z0-9][A-Z0-9-]{1,11}", text):
        if m.group(0) in names:
            found.append((m.start(), m.group(0)))
    if not found:
        lowered = text.lower()
        taken: list[tuple[int, int]] = []
        for name, cid in by_name:
            if len(name) < 3:
                continue
            start = lowered.find(name)
            while start >= 0:
                end = start + len(name)
                if not any(a < end and start < b for a, b in taken):
                    taken.append((start, end))
                    found.append((start, cid))
                    break
                start = lowered.find(name, end)
    out: list[str] = []
    for _, cid in sorted(found):
        if cid not in out:
            out.append(cid)
    return out


def _points(n: int) -> str:
    return f"{n} point" if abs(n) == 1 else f"{n} points"


def plain_line(evidence: str, points: int, ids: Sequence[str], names: Mapping[str, str]) -> str:
    """One line of evidence as a player says it: what scored and how much, no codes."""
    if ids:  # the first component named is the one that scored; the others are its reasons
        subject = names[ids[0]] + (f" and {len(ids) - 1} more" if len(ids) > 3 else "")
    else:
        subject = evidence.split(":", 1)[0]
        subject = re.sub(r"\s*\([^)]*\)", "", _COORD.sub("", subject)).strip() or evidence
        subject = _ARROW.split(subject)[0]
        if points == 0 and ":" not in evidence:
            return subject[:1].upper() + subject[1:]
    subject = subject[:1].upper() + subject[1:]
    if points == 0:  # "why nothing?": the sheet's reason, codes and coordinates left out
        why = _reason(evidence, names)
        return f"{subject}: nothing scored ({why})" if why else f"{subject}: nothing scored"
    return f"{subject}: {_points(points)}"


def _reason(evidence: str, names: Mapping[str, str]) -> str:
    """The part of a line's evidence after its subject, in words (at most a sentence)."""
    _, sep, rest = evidence.partition(": ")
    if not sep:
        return ""
    rest = _COORD.sub("", rest)
    rest = re.sub(r"\s*(->|→)\s*-?\d+\s*$", "", rest)
    rest = re.sub(r"\b[A-Z0-9][A-Z0-9-]{1,11}\b", lambda m: names.get(m.group(0), m.group(0)), rest)
    rest = _ARROW.sub(": ", rest).strip(" ,;")
    if not rest or rest.isdigit():
        return ""
    return rest if len(rest) <= 120 else rest[:117].rsplit(" ", 1)[0] + "…"


def build(game: Game, sheet: Mapping[str, Any], players: Sequence[Player]) -> dict[str, Any]:
    """The pad of one score sheet: columns, rows, totals, ranks, winners and the tie-break."""
    pad = score_pad(game.id)
    names, by_name = _index(game)
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
    rows = _rows(pad, order, sheets, names, by_name)
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
        "notes": [plain_note(str(n), names, seated) for n in sheet.get("notes", [])],
    }


def plain_note(text: str, names: Mapping[str, str], seated: Mapping[str, Player]) -> str:
    """A sheet's note with component codes named, coordinates dropped and a leading player
    id ("frog: ...") given as the player's name."""
    text = _COORD.sub("", text)
    text = re.sub(r"\(([A-Z0-9][A-Z0-9-]{1,11})\)", lambda m: f"({names.get(m.group(1), m.group(1))})", text)
    text = re.sub(r"\b[A-Z0-9][A-Z0-9-]{1,11}\b", lambda m: names.get(m.group(0), m.group(0)), text)
    head, sep, rest = text.partition(": ")
    if sep and head in seated:
        text = f"{seated[head].name}: {rest}"
    return _ARROW.sub(": ", text)


def _rows(
    pad: ScorePad, order: Sequence[str], sheets: Mapping[str, Any], names: Mapping[str, str],
    by_name: Sequence[tuple[str, str]],
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
                ids = components_in(line["evidence"], names, by_name)
                items.append(plain_line(line["evidence"], line["points"], ids, names))
                components += [i for i in ids if i not in components]
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
