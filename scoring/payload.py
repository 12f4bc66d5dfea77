"""The text carried by every printed QR code: one grammar for every game.

``<GAME><EDITION>/<COMPONENT>*<CHECK>``, e.g. ``HA1/T042*E``:

- GAME: two letters naming the game (HA, BI, RF, BO, PH);
- EDITION: one digit, the print edition whose catalog assigns the ids;
- COMPONENT: the catalog id, 1-12 of ``A-Z 0-9 -``;
- CHECK: one character of the QR alphanumeric set, the position-weighted sum of
  everything before it modulo 43, so any single changed character (and any swap of
  two neighbours) is caught.

Everything uses the QR alphanumeric character set, so the longest payload (18
characters) fits a version-1 code at error correction level M.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType

from .registry import infos

ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:"
_VALUES = {ch: i for i, ch in enumerate(ALPHABET)}
_PATTERN = re.compile(r"([A-Z]{2})([0-9])/([A-Z0-9][A-Z0-9-]{0,11})\*([0-9A-Z $%*+\-./:])")
MAX_LENGTH = 18



@cache
def game_codes() -> Mapping[str, str]:
    """Game id -> the two letters its payloads open with, as each game declares them."""
    return MappingProxyType({info.id: info.qr_prefix for info in infos()})


@cache
def _code_to_game() -> Mapping[str, str]:
    return MappingProxyType({code: game for game, code in game_codes().items()})


@dataclass(frozen=True, slots=True)
class ComponentRef:
    """A payload that names a component of one of our games."""

    game: str
    edition: int
    component: str

    @property
    def text(self) -> str:
        return encode(self.game, self.component, edition=self.edition)


@dataclass(frozen=True, slots=True)
class ForeignCode:
    """A code that is not ours (a URL on a cereal box) or is damaged; never scored."""

    text: str
    reason: str


def check_character(body: str) -> str:
    """Position-weighted sum modulo 43 (43 is prime, so every single error shows)."""
    total = sum((i + 1) * _VALUES[ch] for i, ch in enumerate(body))
    return ALPHABET[total % 43]


def encode(game: str, component: str, *, edition: int = 1) -> str:
    """The payload text printed for ``component`` of ``game``."""
    codes = game_codes()
    if game not in codes:
        raise ValueError(f"unknown game {game!r}")
    if not 0 <= edition <= 9:
        raise ValueError(f"edition must be one digit, got {edition}")
    body = f"{codes[game]}{edition}/{component}"
    if not re.fullmatch(r"[A-Z0-9][A-Z0-9-]{0,11}", component):
        raise ValueError(f"component id {component!r} is not marker-safe")
    return f"{body}*{check_character(body)}"


def parse_payload(text: str) -> ComponentRef | ForeignCode:
    """Total and strict: anything that is not exactly a valid payload is foreign."""
    if not isinstance(text, str):
        return ForeignCode(repr(text)[:80], "not text")
    if len(text) > MAX_LENGTH:
        return ForeignCode(text[:80], "too long to be one of our codes")
    m = _PATTERN.fullmatch(text)
    if m is None:
        return ForeignCode(text, "not a component code")
    code, edition, component, check = m.groups()
    body = text[:-2]
    if check_character(body) != check:
        return ForeignCode(text, "check character does not match (damaged or foreign code)")
    game = _code_to_game().get(code)
    if game is None:
        return ForeignCode(text, f"unknown game code {code!r}")
    return ComponentRef(game, int(edition), component)
