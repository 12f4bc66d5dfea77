"""The pages on a phone held over the table: Debian's Chromium at 390 px, no camera needed.

Regressions found by playing through the app as a new user would: the overlay stretched
below a phone-width photo, a photo that could not be read left the previous photo's move
on screen to be accepted, a newer photo did not replace the proposal of an older one,
forms and tables wider than the phone, and a saved game deleted without a question.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from companion.app import create_app, services, store
from scoring import find_game, game_ids

from .test_browser import _serve, page_in, poll

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
NOT_A_PHOTO = b"a shopping list, not a photo\n"


@pytest.fixture
def phone_app(tmp_path: Path) -> Any:
    return create_app({"INSTANCE_PATH": str(tmp_path / "instance")})


@pytest.fixture
def phone_server(phone_app: Any) -> Iterator[str]:
    yield from _serve(phone_app)


@pytest.fixture
def phone() -> Iterator[Any]:
    yield from page_in(PHONE)


def _blank_photo() -> bytes:
    """A valid photo of an empty table: nothing on it to recognise."""
    ok, data = cv2.imencode(".jpg", np.full((720, 1280, 3), 120, np.uint8))
    assert ok
    return data.tobytes()


def _sample_table(page: Any, server: str, game: str = "habitats") -> None:
    """A game on the sample photo, as the home page starts it, read once."""
    page.goto(server + "/")
    page.click(f'form[action="/try/{game}"] button')
    page.wait_for_url("**/table?sample=0")
    poll(page, "() => document.getElementById('status').textContent.startsWith('Photo read')")
    poll(page, "() => document.getElementById('still').naturalWidth > 0")


def _fits(page: Any) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_overlay_lies_on_a_phone_width_photo(phone_server: str, phone: Any) -> None:
    _sample_table(phone, phone_server)
    photo = phone.eval_on_selector("#still", "e => { const r = e.getBoundingClientRect(); return [r.top, r.height]; }")
    overlay = phone.eval_on_selector("#overlay", "e => { const r = e.getBoundingClientRect(); return [r.top, r.height]; }")
    # The stage is at least 240 px tall; a 16:9 photo 358 px wide is about 201 px.
    assert photo[1] < 240
    assert overlay == pytest.approx(photo, abs=1.0)
    # The legend explains every marker style, folded on a phone until asked for.
    assert phone.eval_on_selector("#legend", "d => d.open") is False
    phone.click("#legend summary")
    keys = phone.eval_on_selector_all(".legend li", "ls => ls.map(l => [l.querySelector('.k').className, l.textContent.trim()])")
    assert {k.split()[1] for k, _ in keys} == {"ok", "bad", "focus", "unreadable", "facedown", "dup", "doubt", "foreign"}
    assert all(len(text) > 10 for _, text in keys)


def test_an_unreadable_photo_leaves_nothing_of_the_last_one(phone_server: str, phone: Any) -> None:
    _sample_table(phone, phone_server)
    assert phone.eval_on_selector_all("#seen li[data-component]", "els => els.length") > 0
    phone.set_input_files("#upload", files=[{"name": "list.jpg", "mimeType": "image/jpeg", "buffer": NOT_A_PHOTO}])
    poll(phone, "() => document.getElementById('status').textContent.startsWith('This photo could not be read')")
    assert "not an image" in phone.text_content("#status")
    assert phone.is_hidden("#proposal")  # no move of the previous photo left to accept
    assert phone.is_hidden("#still")
    assert phone.eval_on_selector_all("#seen li", "els => els.length") == 0
    assert phone.text_content("#problems") == ""


def test_a_new_photo_replaces_the_proposal_of_the_last(phone_server: str, phone: Any) -> None:
    _sample_table(phone, phone_server)
    phone.set_input_files("#upload", files=[{"name": "empty.jpg", "mimeType": "image/jpeg", "buffer": _blank_photo()}])
    poll(phone, "() => document.getElementById('status').textContent.startsWith('Photo read') && document.getElementById('problems').textContent.startsWith('0 pieces')")
    poll(phone, "() => !document.getElementById('proposal').hidden")
    assert phone.text_content("#move-summary") == "0 pieces on the table."
    assert phone.eval_on_selector_all("#move-list li", "els => els.length") == 0


def _played(app: Any, game_id: str) -> str:
    """A saved game with the example state accepted, straight into the store."""
    game = find_game(game_id)
    doc = game.example_state()
    with app.app_context():
        players = services.parse_players(services.example_players(game))
        play = store.create_play(game.id, f"{game.name} night", players, {})
        state = services.with_seats(services.load_state(game, doc), players, {})
        store.append(play.id, services.state_doc(state), [], {}, "manual")
    return play.id


def test_pages_fit_a_phone(phone_app: Any, phone_server: str, phone: Any) -> None:
    plays = {gid: _played(phone_app, gid) for gid in game_ids()}
    pages = ["/", "/print", "/history/", *(f"/new?game={gid}" for gid in game_ids())]
    pages += [f"/plays/{pid}/score?confirm=1" for pid in plays.values()]
    pages += [f"/history/{pid}" for pid in plays.values()]
    wide = []
    for path in pages:
        phone.goto(phone_server + path)
        if not _fits(phone):
            wide.append((path, phone.evaluate("document.documentElement.scrollWidth")))
    assert not wide, wide


def test_deleting_a_saved_game_asks_first(phone_app: Any, phone_server: str, phone: Any) -> None:
    play_id = _played(phone_app, "phylo")
    phone.goto(f"{phone_server}/history/{play_id}")
    asked: list[str] = []
    phone.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))
    phone.click("button.danger")
    phone.wait_for_timeout(300)
    assert asked and "PHYLO night" in asked[0] and "cannot be undone" in asked[0]
    assert phone.url.endswith(f"/history/{play_id}")
    with phone_app.app_context():
        assert store.get_play(play_id).id == play_id
    phone.once("dialog", lambda d: d.accept())
    phone.click("button.danger")
    phone.wait_for_url("**/history/")
    assert play_id not in phone.content()
    assert json.loads(phone.evaluate("JSON.stringify(document.querySelectorAll('table.history tr[data-play]').length)")) == 0


def test_undo_with_nothing_accepted_says_so_in_words(phone_server: str, phone: Any) -> None:
    phone.goto(phone_server + "/new?game=phylo")
    phone.click("#new-game button[type=submit]")
    phone.wait_for_url("**/table")
    phone.click("#undo")
    poll(phone, "() => document.getElementById('status').textContent.startsWith('Nothing to undo')")
    assert phone.text_content("#status") == "Nothing to undo: no move has been accepted yet."
