"""Property-based fuzzing of the three doors hostile input comes through.

- the image loader: any bytes, and valid images with bytes cut, flipped or inserted;
- the QR payload parser: any text (and any object) is a component or foreign, never an error;
- every game's state loader: any JSON, and the game's own example with fields replaced.

Only the documented error types may escape (ImageError; none for payloads; StateError
for states), and every example must finish well within Hypothesis' deadline (no hangs).
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import tempfile
from datetime import timedelta
from typing import Any

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.cli import main
from scoring import StateError, find_game, games
from scoring.catalog import ID_PATTERN
from scoring.payload import (
    ALPHABET,
    MAX_LENGTH,
    ComponentRef,
    ForeignCode,
    encode,
    game_codes,
    parse_payload,
)
from vision import ImageError, load_image

#: Examples per property; raise it (HARDENING_EXAMPLES=5000) for a long fuzzing run.
EXAMPLES = int(os.environ.get("HARDENING_EXAMPLES", "100"))
FAST = settings(
    max_examples=EXAMPLES,
    deadline=timedelta(seconds=2),
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
#: State documents are slower to check (whole rule sets run): fewer examples per game.
STATES = settings(FAST, max_examples=max(1, EXAMPLES // 2))


def _encoded(ext: str) -> bytes:
    yy, xx = np.mgrid[0:48, 0:64]
    img = np.dstack([xx * 4, yy * 5, (xx + yy) * 2]).astype(np.uint8)
    ok, buf = cv2.imencode(ext, img)
    assert ok
    return buf.tobytes()


VALID = {ext: _encoded(ext) for ext in (".png", ".jpg", ".bmp", ".webp")}


def _loads_or_refuses(data: bytes) -> None:
    try:
        frame = load_image(data)
    except ImageError as exc:
        assert str(exc)
        return
    assert frame.image.ndim == 3 and frame.image.shape[2] == 3
    assert frame.gray.shape == frame.image.shape[:2]


@FAST
@given(st.binary(max_size=4096))
def test_loader_any_bytes(data: bytes) -> None:
    _loads_or_refuses(data)


@FAST
@given(
    st.sampled_from(sorted(VALID)),
    st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), max_size=12),
    st.integers(0, 10_000),
    st.binary(max_size=64),
)
def test_loader_damaged_images(ext: str, flips: list[tuple[int, int]], cut: int, insert: bytes) -> None:
    data = bytearray(VALID[ext])
    for pos, value in flips:
        data[pos % len(data)] = value
    cut = cut % (len(data) + 1)
    _loads_or_refuses(bytes(data[:cut]) + insert + bytes(data[cut:]))


@FAST
@given(st.sampled_from(sorted(VALID)), st.integers(1, 2**32 - 1), st.integers(1, 2**32 - 1))
def test_loader_lying_png_header(ext: str, width: int, height: int) -> None:
    """A PNG whose IHDR claims any size: refused, or decoded at exactly what it claims."""
    import struct
    import zlib

    png = bytearray(VALID[".png"])
    png[16:24] = struct.pack(">II", width, height)
    png[29:33] = struct.pack(">I", zlib.crc32(bytes(png[12:29])))
    try:
        frame = load_image(bytes(png))
    except ImageError:
        return
    assert (frame.width, frame.height) in ((width, height), (height, width))


@FAST
@given(st.text(max_size=300))
def test_payload_parser_is_total(text: str) -> None:
    ref = parse_payload(text)
    if isinstance(ref, ComponentRef):
        assert encode(ref.game, ref.component, edition=ref.edition) == text
        assert len(text) <= MAX_LENGTH
    else:
        assert isinstance(ref, ForeignCode) and ref.reason


@FAST
@given(st.one_of(st.none(), st.integers(), st.floats(), st.binary(), st.lists(st.text()), st.dictionaries(st.text(), st.text())))
def test_payload_parser_refuses_non_text(value: Any) -> None:
    assert isinstance(parse_payload(value), ForeignCode)


_IDS = st.from_regex(ID_PATTERN, fullmatch=True)


@FAST
@given(st.sampled_from(sorted(game_codes())), _IDS, st.integers(0, 9))
def test_payload_round_trip(game: str, component: str, edition: int) -> None:
    assert parse_payload(encode(game, component, edition=edition)) == ComponentRef(game, edition, component)


@FAST
@given(st.sampled_from(sorted(game_codes())), _IDS, st.data())
def test_one_changed_character_is_foreign(game: str, component: str, data: st.DataObject) -> None:
    """Any single substitution within the QR alphabet is caught: never another component."""
    text = encode(game, component)
    i = data.draw(st.integers(0, len(text) - 1))
    ch = data.draw(st.sampled_from([c for c in ALPHABET if c != text[i]]))
    changed = text[:i] + ch + text[i + 1 :]
    assert isinstance(parse_payload(changed), ForeignCode)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=12), inner, max_size=5),
    max_leaves=30,
)

GAMES = [g.id for g in games()]


def _load_or_refuse(game_id: str, doc: Any) -> None:
    game = find_game(game_id)
    try:
        state = game.load_state(doc)
    except StateError as exc:
        assert str(exc)
        return
    assert state.game == game_id


@pytest.mark.parametrize("game_id", GAMES)
def test_state_loader_any_json(game_id: str) -> None:
    @STATES
    @given(JSON)
    def check(doc: Any) -> None:
        _load_or_refuse(game_id, doc)

    check()


def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every address inside a JSON document (keys and list indexes)."""
    out = [prefix]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out.extend(_paths(v, (*prefix, k)))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out.extend(_paths(v, (*prefix, i)))
    return out


def _replace(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    out = copy.copy(doc)
    out[path[0]] = _replace(doc[path[0]], path[1:], value)
    return out


@pytest.mark.parametrize("game_id", GAMES)
def test_state_loader_damaged_examples(game_id: str) -> None:
    """The game's own example with 1-3 entries replaced by arbitrary JSON (deep in its structure)."""
    example = copy.deepcopy(dict(find_game(game_id).example_state()))
    paths = _paths(example)

    @STATES
    @given(st.lists(st.tuples(st.sampled_from(paths), JSON), min_size=1, max_size=3))
    def check(edits: list[tuple[tuple[Any, ...], Any]]) -> None:
        doc = example
        for path, value in edits:
            try:
                doc = _replace(doc, path, value)
            except (KeyError, IndexError, TypeError):
                continue  # an earlier edit removed the parent of this address
        _load_or_refuse(game_id, doc)

    check()


@settings(FAST, max_examples=max(1, EXAMPLES // 3))
@given(st.one_of(st.binary(max_size=300), JSON.map(lambda d: json.dumps(d).encode())))
def test_state_file_through_the_cli(raw: bytes) -> None:
    """``companion score FILE`` on any file content: a score (0) or one line and exit 2."""
    with tempfile.NamedTemporaryFile(suffix=".json") as fh:
        fh.write(raw)
        fh.flush()
        err, out = io.StringIO(), io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            code = main(["score", fh.name])
    assert code in (0, 2)
    if code == 2:
        assert len(err.getvalue().strip().splitlines()) == 1 and "Traceback" not in err.getvalue()
