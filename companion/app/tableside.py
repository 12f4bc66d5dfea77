"""What the table page needs around a recognised frame: the players the photo shows at
setup, the game a wrong photo belongs to, and the photo kept with each accepted state.

No rules here: players come from what vision saw (parks, boards, hands in view), the other
game from the codes printed on the components, the photos are files beside the database.
"""

from __future__ import annotations

import json
import threading
from collections import Counter, OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import current_app

from scoring.model import BoardState, Game, Player, PlayerId
from scoring.payload import ComponentRef, parse_payload

from . import services
from .errors import AppError

#: Codes of one other game, and none placed of this one, that make a photo "another game's".
OTHER_GAME_CODES = 3
#: Plays whose newest recognised photo is kept in memory until a move is accepted.
RECENT_PLAYS = 32
#: Bytes of those photos kept at most (the oldest are forgotten first): memory stays bounded.
RECENT_BYTES = 48 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class SetupScan:
    """A first photo's scan with the players it shows (the play's own when they agree)."""

    scan: services.Scan
    players: tuple[Player, ...]
    changed: bool
    left_out: tuple[Player, ...]


def table_players(seen: Sequence[Player], seated: Sequence[Player]) -> tuple[Player, ...]:
    """The players of a photo, named as the play names them where it can.

    ``seen`` are the players a reading without a player list found (one per park, board or
    hand in view); ``seated`` the play's. A seen player keeps the seated player of the same
    id (a Habitats park is its colour); otherwise it takes the next seated player not seen by
    id (boards are handed to seats in order), else stays as seen.
    """
    by_id = {p.id: p for p in seated}
    seen_ids = {p.id for p in seen}
    spare = [p for p in sorted(seated, key=lambda p: p.seat) if p.id not in seen_ids]
    out: list[Player] = []
    for k, p in enumerate(sorted(seen, key=lambda p: p.seat)):
        base = by_id.get(p.id) or (spare.pop(0) if spare else p)
        out.append(Player(PlayerId(base.id), base.name, base.colour or _palette(p), k))
    return tuple(out)


def _palette(p: Player) -> str:
    return services.PALETTE.get(str(p.colour).lower(), "") or services.PALETTE.get(p.id, "")


def setup_scan(image: Any, game: Game, seated: Sequence[Player], options: dict[str, Any]) -> SetupScan:
    """Read a first photo: with the players it shows when the play's seats disagree with it."""
    bare = services.recognise(image, game, (), options)
    seen = bare.state.players
    players = table_players(seen, seated) if seen else tuple(seated)
    same = [(p.id, p.seat) for p in players] == [(p.id, p.seat) for p in sorted(seated, key=lambda p: p.seat)]
    scan = services.recognise(image, game, tuple(seated) if same else players, options)
    kept = {p.id for p in players}
    return SetupScan(scan, tuple(players), not same, tuple(p for p in seated if p.id not in kept))


def other_game(image: Any, game: Game, scan: services.Scan) -> dict[str, str] | None:
    """The game a photo shows instead of this one: named by its printed codes, or else,
    when the photo places nothing of this game among several markers, by which game reads it."""
    placed = len(scan.state.placements)
    games: Counter[str] = Counter()
    for item in scan.overlay.get("foreign", []) or []:
        ref = parse_payload(str(item.get("text", "")))
        if isinstance(ref, ComponentRef) and ref.game != game.id:
            games[ref.game] += 1
    if games:
        gid, count = games.most_common(1)[0]
        if count >= OTHER_GAME_CODES and count > placed:
            return _named(gid)
    markers = len(scan.overlay.get("foreign", []) or []) + len(scan.overlay.get("disagreements", []) or [])
    if placed or markers < OTHER_GAME_CODES:
        return None
    best, most = None, OTHER_GAME_CODES - 1
    for other in services.game_list():
        if other.id == game.id:
            continue
        try:
            count = len(services.recognise(image, other).state.placements)
        except AppError:
            continue
        if count > most:
            best, most = other.id, count
    return _named(best) if best else None


def _named(game_id: str) -> dict[str, str]:
    other = services.game_or_404(game_id)
    return {"id": other.id, "name": other.name}


# -- photos of accepted states ------------------------------------------------------


_recent: OrderedDict[str, tuple[str, bytes, dict[str, Any]]] = OrderedDict()
_lock = threading.Lock()


def placements_key(state_doc: dict[str, Any]) -> str:
    """The same table gives the same key, whatever order the placements came in."""
    return json.dumps(sorted(json.dumps(p, sort_keys=True) for p in state_doc.get("placements", [])))


def remember(play_id: str, state_doc: dict[str, Any], image: bytes, overlay: dict[str, Any]) -> None:
    """The newest recognised photo of a play, kept until its move is accepted or replaced."""
    with _lock:
        _recent[play_id] = (placements_key(state_doc), image, overlay)
        _recent.move_to_end(play_id)
        while len(_recent) > RECENT_PLAYS or (
            len(_recent) > 1 and sum(len(r[1]) for r in _recent.values()) > RECENT_BYTES
        ):
            _recent.popitem(last=False)


def _folder(play_id: str) -> Path:
    return Path(current_app.instance_path) / "photos" / play_id


def keep_photo(play_id: str, seq: int, state: BoardState) -> bool:
    """Save the photo an accepted state was read from, when it is the play's newest one."""
    key = placements_key(services.state_doc(state))
    with _lock:
        recent = _recent.get(play_id)
    if recent is None or recent[0] != key:
        return False
    folder = _folder(play_id)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{seq}.jpg").write_bytes(recent[1])
        (folder / f"{seq}.json").write_text(json.dumps(recent[2]), "utf-8")
    except OSError:  # a full or read-only disk: the move is saved, only its photo is not
        return False
    return True


def photo_path(play_id: str, seq: int) -> Path | None:
    path = _folder(play_id) / f"{int(seq)}.jpg"
    return path if path.is_file() else None


def photo_overlay(play_id: str, seq: int) -> dict[str, Any] | None:
    path = _folder(play_id) / f"{int(seq)}.json"
    try:
        return json.loads(path.read_text("utf-8")) if path.is_file() else None
    except (OSError, ValueError):
        return None


def forget_photos(play_id: str, after_seq: int = 0) -> None:
    """Drop the photos of states that no longer exist (undone, or the whole game deleted)."""
    folder = _folder(play_id)
    if not folder.is_dir():
        return
    for path in folder.iterdir():
        stem = path.stem
        if stem.isdigit() and int(stem) > after_seq:
            path.unlink(missing_ok=True)
    if after_seq == 0:
        try:
            folder.rmdir()
        except OSError:
            pass
