"""The QR payload grammar: every catalog id round-trips, every damaged or foreign text is rejected."""

from __future__ import annotations

import string
from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from printables.symbols import qr_matrix
from scoring.payload import (
    ALPHABET,
    MAX_LENGTH,
    ComponentRef,
    ForeignCode,
    encode,
    game_codes,
    parse_payload,
)
from scoring.registry import find_game, game_ids

#: Characters a damaged print or a foreign code may hold in place of a payload character.
SUBSTITUTES = ALPHABET + "az_#\x00\n\u00e9"


@cache
def _catalog_payloads() -> tuple[tuple[str, str, str], ...]:
    return tuple((g, c.id, encode(g, c.id)) for g in game_ids() for c in find_game(g).components())


def test_every_catalog_id_round_trips() -> None:
    payloads = _catalog_payloads()
    assert len({p for _, _, p in payloads}) == len(payloads)
    for game, cid, text in payloads:
        assert len(text) <= MAX_LENGTH
        assert parse_payload(text) == ComponentRef(game, 1, cid)


def test_every_catalog_payload_fits_a_version_1_code() -> None:
    for _, _, text in _catalog_payloads():
        assert len(qr_matrix(text)) == 21  # version 1 has 21 modules a side


def test_worked_example_payload() -> None:
    # Alphanumeric values: H=17 A=10 1=1 /=43 T=29 0=0 4=4 2=2; weights 1..8:
    # 17 + 20 + 3 + 172 + 145 + 0 + 28 + 16 = 401; 401 mod 43 = 14 -> "E"
    assert encode("habitats", "T042") == "HA1/T042*E"


def test_any_single_character_change_of_a_valid_payload_is_rejected() -> None:
    for game, cid, text in _catalog_payloads():
        for i, original in enumerate(text):
            for ch in SUBSTITUTES:
                if ch == original:
                    continue
                damaged = text[:i] + ch + text[i + 1 :]
                assert isinstance(parse_payload(damaged), ForeignCode), (text, damaged)


def test_swapping_neighbours_is_rejected() -> None:
    for _, _, text in _catalog_payloads():
        for i in range(len(text) - 1):
            if text[i] != text[i + 1]:
                swapped = text[:i] + text[i + 1] + text[i] + text[i + 2 :]
                assert isinstance(parse_payload(swapped), ForeignCode), swapped


def test_typical_foreign_texts() -> None:
    for text in (
        "https://example.org/HA1/T042*A",
        "<b>HA1/T042*A</b>",
        "HA1/T042*A\n",
        "ha1/t042*a",
        "HA1/T042",
        "XX1/T042*A",
        "",
        "A" * 10_000,
        "\x00\x01\x02",
    ):
        assert isinstance(parse_payload(text), ForeignCode), text


_ids = st.from_regex(r"[A-Z0-9][A-Z0-9-]{0,11}", fullmatch=True)


@settings(max_examples=300, deadline=None)
@given(game=st.sampled_from(sorted(game_codes())), edition=st.integers(0, 9), cid=_ids, data=st.data())
def test_generated_payloads_round_trip_and_resist_damage(game: str, edition: int, cid: str, data: st.DataObject) -> None:
    text = encode(game, cid, edition=edition)
    assert parse_payload(text) == ComponentRef(game, edition, cid)
    i = data.draw(st.integers(0, len(text) - 1))
    ch = data.draw(st.characters().filter(lambda c: c != text[i]))
    assert isinstance(parse_payload(text[:i] + ch + text[i + 1 :]), ForeignCode)


@settings(max_examples=500, deadline=None)
@given(st.text())
def test_arbitrary_text_is_foreign_unless_it_is_exactly_a_payload(text: str) -> None:
    ref = parse_payload(text)
    if isinstance(ref, ComponentRef):
        assert encode(ref.game, ref.component, edition=ref.edition) == text
    else:
        assert ref.text == text[:80] or ref.text == text


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(
        st.builds(lambda host, path: f"https://{host}.example/{path}", st.text(string.ascii_lowercase, min_size=1),
                  st.text(max_size=40)),
        st.builds(lambda tag, body: f"<{tag}>{body}</{tag}>", st.sampled_from(["a", "b", "script", "div"]),
                  st.text(max_size=40)),
        st.text(st.characters(categories=["Cc"]), min_size=1),
        st.text(min_size=MAX_LENGTH + 1, max_size=5000),
    )
)
def test_urls_markup_control_characters_and_long_strings_are_foreign(text: str) -> None:
    assert isinstance(parse_payload(text), ForeignCode)


@given(st.one_of(st.none(), st.integers(), st.binary(), st.lists(st.text())))
def test_non_text_is_foreign(value: object) -> None:
    assert isinstance(parse_payload(value), ForeignCode)  # type: ignore[arg-type]
