"""Loading a game's catalog data files, strictly: a bad row is a CatalogError naming it.

Catalogs live under ``scoring/data/<game>/`` so that printables, vision and the rules
read the same facts, and an owner of the boxed game can correct them without code.
"""

from __future__ import annotations

import csv
import io
import json
import re
import tomllib
from collections.abc import Iterable, Mapping
from importlib import resources
from typing import Any

from .model import CatalogError, Component

#: Component ids travel in QR payloads: upper-case letters, digits and hyphens, at most 12.
ID_PATTERN = re.compile(r"[A-Z0-9][A-Z0-9-]{0,11}")
#: AprilTag 36h11 has 587 distinct codes.
TAG_COUNT = 587


def read_data(game: str, filename: str) -> Any:
    """Read ``scoring/data/<game>/<filename>`` (JSON, TOML or CSV as a list of dicts)."""
    try:
        text = resources.files("scoring").joinpath("data", game, filename).read_text("utf-8")
    except (FileNotFoundError, OSError) as exc:
        raise CatalogError(f"{game}/{filename}: cannot read catalog file ({exc})") from exc
    try:
        if filename.endswith(".json"):
            return json.loads(text)
        if filename.endswith(".toml"):
            return tomllib.loads(text)
        if filename.endswith(".csv"):
            return list(csv.DictReader(io.StringIO(text)))
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise CatalogError(f"{game}/{filename}: not valid ({exc})") from exc
    raise CatalogError(f"{game}/{filename}: unsupported catalog file type")


def check_fields(
    record: Mapping[str, Any], *, required: Iterable[str], optional: Iterable[str] = (), where: str
) -> None:
    """Refuse unknown and missing fields: a typo in a data file must not pass silently."""
    req, opt = set(required), set(optional)
    if not isinstance(record, Mapping):
        raise CatalogError(f"{where}: expected a table/object, got {type(record).__name__}")
    missing = sorted(req - set(record))
    if missing:
        raise CatalogError(f"{where}: missing field(s) {', '.join(missing)}")
    extra = sorted(set(record) - req - opt)
    if extra:
        raise CatalogError(f"{where}: unknown field(s) {', '.join(extra)}")


def check_components(game: str, components: Iterable[Component]) -> tuple[Component, ...]:
    """Every id marker-safe and unique, every tag unique and printable, sizes possible (the
    back tags are checked against these by ``scoring.markers.checked_components``)."""
    out = tuple(components)
    ids: dict[str, int] = {}
    tags: dict[int, str] = {}
    for c in out:
        where = f"{game} component {c.id!r}"
        if not ID_PATTERN.fullmatch(c.id):
            raise CatalogError(f"{where}: id must match {ID_PATTERN.pattern}")
        if c.id in ids:
            raise CatalogError(f"{where}: duplicate id")
        ids[c.id] = 1
        all_tags = [c.tag, *(a.tag for a in c.anchors)]
        for t in all_tags:
            if not 0 <= t < TAG_COUNT:
                raise CatalogError(f"{where}: tag {t} outside 0..{TAG_COUNT - 1}")
            if t in tags:
                raise CatalogError(f"{where}: tag {t} already used by {tags[t]!r}")
            tags[t] = c.id
        w, h = c.size_mm
        if not (5 <= w <= 600 and 5 <= h <= 600):
            raise CatalogError(f"{where}: impossible size {w}x{h} mm")
        if not re.fullmatch(r"#[0-9a-fA-F]{6}", c.colour):
            raise CatalogError(f"{where}: colour must be #rrggbb, got {c.colour!r}")
    return out


def as_bool(value: Any, where: str) -> bool:
    """A true/false field: a TOML/JSON boolean or the CSV text ``true`` / ``false``."""
    if isinstance(value, bool):
        return value
    if value in ("true", "false"):
        return value == "true"
    raise CatalogError(f"{where}: expected true or false, got {value!r}")


def as_id(value: Any, where: str) -> str:
    """A component id that can travel in a QR payload."""
    if not isinstance(value, str) or not ID_PATTERN.fullmatch(value):
        raise CatalogError(f"{where}: id {value!r} must match {ID_PATTERN.pattern}")
    return value


def as_int(value: Any, where: str, *, lo: int | None = None, hi: int | None = None) -> int:
    """An integer field (CSV text or JSON number) within bounds."""
    try:
        if isinstance(value, bool):
            raise ValueError
        n = int(value)
    except (TypeError, ValueError) as exc:
        raise CatalogError(f"{where}: expected an integer, got {value!r}") from exc
    if (lo is not None and n < lo) or (hi is not None and n > hi):
        raise CatalogError(f"{where}: {n} outside {lo}..{hi}")
    return n
