"""The "Where can this go?" mode in a real browser (Debian's Chromium), on PHYLO's sample photo.

A game started from the sample photo, its starting position accepted: the mode is off until a
player turns it on; then the pieces that player could hold are offered, the legal spots of the
chosen card are drawn on the photo (one disc per cell, its points written on it), a tapped disc
is explained, a tapped empty cell far from the table is refused in the rules' words, a card held up to the camera becomes the piece in hand, and
turning the toggle off hides everything again. Set COMPANION_SCREENSHOTS to keep the screenshots.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.app import create_app

from tests.plain_words import faults

from .test_browser import _serve, page_in, poll

pytestmark = pytest.mark.browser


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    yield from _serve(create_app({"INSTANCE_PATH": str(tmp_path / "instance")}))


@pytest.fixture
def laptop() -> Iterator[Any]:
    yield from page_in({"width": 1280, "height": 900})


def shoot(page: Any, name: str) -> None:
    folder = os.environ.get("COMPANION_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)


def start_sample(page: Any, server: str, game: str) -> None:
    page.goto(server + "/")
    page.click(f'form[action="/try/{game}"] button')
    page.wait_for_url("**/table?sample=0")
    poll(page, "() => document.getElementById('still').naturalWidth > 0")
    page.wait_for_selector("#proposal:not([hidden])", timeout=60_000)
    assert page.text_content("#proposal-title") == "Starting position"
    page.click("#accept")
    poll(page, "() => document.getElementById('accepted-count').textContent === '1'")


def discs(page: Any) -> int:
    """How many spot discs the hints mode drew on the photo's overlay."""
    return int(page.get_attribute("#hints", "data-spots-drawn") or 0)


def disc_pixels(page: Any) -> int:
    """Overlay pixels in the discs' green (the outlines are another green, the labels dark)."""
    return page.evaluate(
        """() => {
          const c = document.querySelector('#stage canvas.overlay');
          const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
          let n = 0;
          for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - 21) < 4 && Math.abs(d[i + 1] - 128) < 4 && Math.abs(d[i + 2] - 61) < 4) n++;
          return n;
        }"""
    )


def test_where_can_this_go(server: str, laptop: Any) -> None:
    page = laptop
    start_sample(page, server, "phylo")
    assert page.is_hidden("#hints-panel")
    assert discs(page) == 0, "off by default: nothing drawn"
    toggles = page.locator(".hints-toggle")
    assert toggles.count() == 2
    toggles.nth(0).click()
    assert page.get_attribute(".hints-toggle >> nth=0", "aria-pressed") == "true"
    poll(page, "() => document.querySelectorAll('#hints-piece option').length > 1")
    page.select_option("#hints-piece", "DOUGFIR")
    poll(page, "() => document.querySelectorAll('#hints-list li').length > 0")
    spots = page.locator("#hints-list li")
    assert spots.count() >= 5
    first = spots.nth(0).text_content() or ""
    assert first.startswith("+3") and "species +3" in first
    assert discs(page) >= 5, "spots are drawn on the photo"
    assert disc_pixels(page) > 2000
    shoot(page, "hints-phylo")
    # tap the best spot's disc: explained with its points
    spots.nth(0).click()
    poll(page, "() => !document.getElementById('hints-explain').hidden")
    assert "+3" in (page.text_content("#hints-explain") or "")
    # tap far from every card: the rules say why nothing may go there
    page.locator("#stage canvas.overlay").scroll_into_view_if_needed()
    box = page.eval_on_selector("#stage canvas.overlay", "e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; }")
    page.mouse.click(box[0] + box[2] * 0.04, box[1] + box[3] * 0.95)
    poll(page, "() => document.querySelector('#hints-explain [data-code]') !== null")
    assert page.get_attribute("#hints-explain [data-code]", "data-code") == "phylo/not_adjacent"
    shoot(page, "hints-refused")
    # a card held up to the camera (read, on no space of the table) becomes the piece in hand
    page.evaluate(
        """() => {
          const t = window.CompanionTable, r = JSON.parse(JSON.stringify(t.current()));
          r.recognition.components.push({component: 'CATTAIL', area: null, image_centre: [60, 60]});
          t.hooks.results.forEach((fn) => fn(r));
        }"""
    )
    poll(page, "() => document.getElementById('hints-status').textContent.startsWith('Held up to the camera')")
    assert page.input_value("#hints-piece") == "CATTAIL"
    assert (page.text_content("#hints-list li") or "").startswith("+2")
    # the other player's toggle shows their hints only; off hides everything
    toggles.nth(1).click()
    assert page.get_attribute(".hints-toggle >> nth=0", "aria-pressed") == "false"
    toggles.nth(1).click()
    assert page.is_hidden("#hints-panel")
    assert discs(page) == 0


@pytest.mark.parametrize("viewport", [{"width": 960, "height": 900}, {"width": 390, "height": 844}], ids=["laptop", "phone"])
def test_hints_speak_players_words(server: str, viewport: dict[str, int]) -> None:
    """Habitats' sample: Red's pick list shows printed names alone (no ids), each spot says
    whose park and which tiles it lies beside, never coordinates; a tapped spot says the same."""
    for page in page_in(viewport):
        start_sample(page, server, "habitats")
        page.locator(".hints-toggle", has_text="Red").click()
        poll(page, "() => document.querySelectorAll('#hints-piece option').length > 1")
        options = page.eval_on_selector_all("#hints-piece option", "os => os.map((o) => [o.value, o.textContent])")
        assert ["T002", "Impala"] in options, "the printed name alone, the id only as the value"
        assert all(not faults(text, "habitats") for _, text in options)
        page.select_option("#hints-piece", "T002")
        poll(page, "() => document.querySelectorAll('#hints-list li').length > 0")
        labels = page.eval_on_selector_all("#hints-list li", "ls => ls.map((l) => l.textContent)")
        assert len(labels) >= 5 and all("Red's park, " in text for text in labels)
        assert [text for text in labels if faults(text, "habitats")] == []
        market = page.eval_on_selector_all("#hints-market li", "ls => ls.map((l) => l.textContent)")
        assert [text for text in market if faults(text, "habitats")] == []
        page.locator("#hints-list li").nth(0).click()
        poll(page, "() => !document.getElementById('hints-explain').hidden")
        assert "Red's park, " in (page.text_content("#hints-explain") or "")
        if viewport["width"] < 600:
            page.locator("#hints").scroll_into_view_if_needed()
            shoot(page, "hints-phone")
        else:
            shoot(page, "hints-table")
