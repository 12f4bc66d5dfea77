"""A family's first evening, in Debian's Chromium on a laptop and on a phone.

Every game's bundled sample plays through to a score pad with no refusal; the overlay's
labels never overlap and stay readable at every zoom; a tap names a piece; the proposal is
one sentence with Accept on screen; the score pad has the players across and the
rulebook's categories down, and a tap on a number says what earned it and lights the
pieces up; several tabs follow one game; undo asks and is refused to a tab that is behind;
another game's photo is named, never accepted in one click; a move that takes many pieces
off is confirmed; sample games stay out of the history unless kept. Set
COMPANION_SCREENSHOTS to a folder to keep the screenshots of each step.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

import vision
from companion.app import create_app, services
from scoring import find_game, game_ids
from scoring.nearby import beside
from scoring.score_pad import score_pad

from .test_browser import CHROMIUM, CHROMIUM_ARGS, _require_browser, _serve, poll

pytestmark = pytest.mark.browser

VIEWPORTS = {"laptop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
SAMPLED = [g for g in game_ids() if services.sample_photos(g)]
#: Codes, coordinates and arrows a player should never have to read by default.
JARGON = re.compile(r"\(-?\d+,\s*-?\d+\)|->|→|\b[a-z]+:[a-z0-9]+\b")
MIN_LABEL_PX = 13


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    yield from _serve(create_app({"INSTANCE_PATH": str(tmp_path / "instance")}))


@pytest.fixture
def browser() -> Iterator[Any]:
    sync_api = _require_browser()
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


class Tab:
    """A page with its console errors collected (every test ends with none)."""

    def __init__(self, context: Any, *, live: bool = True) -> None:
        self.page = context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        if not live:  # a tab that never hears of other devices (a phone asleep, a lost event)
            self.page.add_init_script("delete window.EventSource;")


def _context(browser: Any, viewport: str) -> Any:
    phone = viewport == "phone"
    return browser.new_context(viewport=VIEWPORTS[viewport], is_mobile=phone, has_touch=phone)


def shoot(page: Any, name: str, *, full: bool = True) -> None:
    folder = os.environ.get("COMPANION_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=full)


def _try_sample(page: Any, server: str, gid: str) -> None:
    page.goto(server + "/")
    page.click(f'form[action="/try/{gid}"] button')
    page.wait_for_url("**/table?sample=0")
    poll(page, "() => !document.getElementById('proposal').hidden")


def _fits(page: Any) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def _labels_on_screen(page: Any) -> list[list[float]]:
    """The overlay's label boxes in CSS pixels on screen (photo pixels through the canvas's size)."""
    return page.evaluate(
        """() => { const c = document.querySelector('canvas.overlay'); const r = c.getBoundingClientRect();
        const k = r.width / c.width; return CompanionTable.view.labelBoxes().map(b => b.map(v => v * k)); }"""
    )


def _assert_labels_readable(page: Any, *, some: bool = True) -> None:
    boxes = _labels_on_screen(page)
    assert boxes or not some, "no piece is named on the photo"
    for i, a in enumerate(boxes):
        assert a[3] - a[1] >= MIN_LABEL_PX, a  # the label's height on screen, its text 14 px
        for b in boxes[i + 1:]:
            assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]), (a, b)


def _in_view(page: Any, selector: str) -> bool:
    return page.eval_on_selector(
        selector, "e => { const r = e.getBoundingClientRect(); return r.top >= 0 && r.bottom <= window.innerHeight && r.height > 0; }"
    )


def _no_codes(text: str, gid: str) -> None:
    components = find_game(gid).components()
    ids = {c.id for c in components if c.id != c.name}
    # A printed name is what players read on the piece, even one that carries its number
    # ("Plant tile T07"): only a code standing alone is jargon.
    for name in sorted({c.name for c in components if c.id != c.name}, key=len, reverse=True):
        text = text.replace(name, " ")
    words = set(re.findall(r"[A-Z0-9][A-Z0-9-]{1,11}", text))
    assert not words & ids, words & ids
    assert not JARGON.search(text), JARGON.search(text)


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
@pytest.mark.parametrize("gid", SAMPLED)
def test_first_game_on_the_sample(server: str, browser: Any, gid: str, viewport: str) -> None:
    context = _context(browser, viewport)
    tab = Tab(context)
    page = tab.page
    _try_sample(page, server, gid)
    # Nothing blocks the first game: no unreadable clutter, players as the table shows them.
    assert "nothing to fix" in page.text_content("#problems")
    assert page.is_hidden("#problem-list li") if page.query_selector("#problem-list li") else True
    assert page.text_content("#proposal-title") == "Starting position"
    summary = page.text_content("#move-summary")
    assert re.fullmatch(r"\d+ pieces on the table.*\.", summary), summary
    assert _in_view(page, "#accept") and _in_view(page, "#dismiss")  # Accept always on screen
    assert _fits(page)
    # A piece too small on screen to carry its name keeps its outline (on a phone, maybe all).
    _assert_labels_readable(page, some=viewport == "laptop")
    shoot(page, f"{gid}-{viewport}-table", full=False)

    # Zoom in: the labels keep their size on screen and still never overlap.
    before = len(_labels_on_screen(page))
    page.click("[data-zoom=in]")
    page.click("[data-zoom=in]")
    assert page.evaluate("CompanionTable.view.zoom") > 2
    _assert_labels_readable(page)
    assert len(_labels_on_screen(page)) >= before  # more room: at least as many names
    shoot(page, f"{gid}-{viewport}-overlay-zoomed", full=False)
    page.click("[data-zoom=fit]")

    # A tap on a piece names it.
    page.eval_on_selector("#stage", "e => e.scrollIntoView({block: 'start'})")
    target = page.evaluate(
        """() => { const c = document.querySelector('canvas.overlay'); const r = c.getBoundingClientRect(); const k = r.width / c.width;
        const spots = CompanionTable.view.shapes().filter(s => s.style === 'ok').map(s => {
          const x = s.pts.reduce((t, p) => t + p[0], 0) / s.pts.length, y = s.pts.reduce((t, p) => t + p[1], 0) / s.pts.length;
          const others = CompanionTable.view.shapes().filter(o => o !== s && o.pts.some(p => Math.hypot(p[0] - x, p[1] - y) < 40 / k));
          return { name: s.name, x: r.left + x * k, y: r.top + y * k, alone: others.length === 0 }; })
          .filter(p => { const e = document.elementFromPoint(p.x, p.y); return e && e.closest('#stage') && !e.closest('button'); });
        return spots.find(p => p.alone) || spots[0]; }"""
    )
    page.mouse.click(target["x"], target["y"])
    poll(page, "() => !document.getElementById('tap-info').hidden")
    # Named: the piece under the finger (the top one where pieces lie on each other).
    under = page.evaluate(
        """([x, y]) => { const c = document.querySelector('canvas.overlay'); const r = c.getBoundingClientRect();
        const k = r.width / c.width, px = (x - r.left) / k, py = (y - r.top) / k;
        const inside = (pts) => { let hit = false; for (let i = 0, j = pts.length - 1; i < pts.length; j = i++) {
          const [xi, yi] = pts[i], [xj, yj] = pts[j];
          if ((yi > py) !== (yj > py) && px < ((xj - xi) * (py - yi)) / (yj - yi) + xi) hit = !hit; } return hit; };
        return CompanionTable.view.shapes().filter(s => inside(s.pts)).map(s => s.name); }""",
        [target["x"], target["y"]],
    )
    info = page.text_content("#tap-info")
    assert target["name"] in under and any(name in info for name in under), (under, info)

    page.click("#accept")
    poll(page, "() => document.getElementById('accepted-count').textContent === '1'")
    page.click("#score-link")
    page.wait_for_selector("#pad")
    assert page.query_selector("#refusal") is None
    pad = score_pad(gid)
    heads = page.eval_on_selector_all("#pad thead th.player-head", "hs => hs.map(h => h.dataset.player)")
    play_id = page.url.split("/plays/")[1].split("/")[0]
    play = page.evaluate(f"fetch('/api/plays/{play_id}').then(r => r.json())")
    assert heads == [p["id"] for p in sorted(play["players"], key=lambda p: p["seat"])]
    assert not {pid for pid, _ in pad.neutral} & set(heads)  # the Black Hole is no player
    labels = page.eval_on_selector_all("#pad tbody th", "hs => hs.map(h => h.textContent.trim())")
    order = [c.label for c in pad.categories]
    assert labels and all(label in order for label in labels)
    assert [order.index(label) for label in labels] == sorted(order.index(label) for label in labels)
    sheet = page.evaluate(f"fetch('/api/plays/{play_id}/score').then(r => r.json())")["sheet"]
    totals = dict(page.eval_on_selector_all("#pad tfoot td.total", "cs => cs.map(c => [c.dataset.player, Number(c.textContent)])"))
    assert totals == {p["player"]: p["total"] for p in sheet["players"] if p["player"] in heads}
    assert re.search(r"wins|share the win", page.text_content("#winner"))
    _no_codes(page.text_content("#pad") + page.text_content("#winner"), gid)

    # A tap on the biggest number says what earned it and lights the pieces up on the photo.
    button = max(page.query_selector_all("button.cell"), key=lambda b: int(b.text_content()))
    button.click()
    poll(page, "() => document.querySelector('#cell-detail h2') !== null")
    player = button.get_attribute("data-player")
    name = page.text_content(f'#pad thead th[data-player="{player}"]').strip()
    rule = button.get_attribute("data-rule")
    heading = page.text_content("#cell-detail h2")
    # The explanation is of the number tapped: its player, its category, its points.
    assert heading == f"{name} · {pad.label(rule)}: {button.text_content()} point{'s' if button.text_content() != '1' else ''}", heading
    detail = page.text_content("#cell-detail ul.items")
    assert detail.strip()
    _no_codes(detail, gid)
    lit = page.evaluate("() => document.querySelector('#cell-detail > p.muted:last-of-type').textContent.match(/^(\\d+) pieces? outlined/)")
    assert lit, page.text_content("#cell-detail")
    counted = {c for ps in sheet["players"] if ps["player"] == player
               for line in ps["lines"] if line["rule"] == rule for c in line["components"]}
    assert counted and int(lit[1]) == len(counted), (lit, counted)  # outlined: the sheet's own components
    assert page.eval_on_selector("#evidence-all", "d => d.tagName") == "DETAILS"  # every line, one click away
    assert _fits(page)
    shoot(page, f"{gid}-{viewport}-score")
    assert not tab.errors, tab.errors
    context.close()


def _piece_to_hold_back(gid: str, doc: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """A piece of the read table that nothing lies on, on a cell with pieces beside it (a
    player's own when there is one), else lying on another piece; and what the sentence
    must say of where it went ("next to Owl", "on Jungle tile G06")."""
    game = find_game(gid)
    state = game.load_state(doc)
    names = services.names_of(game)
    under = {p.on for p in state.placements if p.on}
    owned = tuple(f":{p.id}" for p in state.players)
    free = [p for p in state.placements if p.component not in under]
    fits = sorted((p for p in free if p.cell is not None and p.on is None and beside(state, p)),
                  key=lambda p: not p.area.endswith(owned))
    if fits:
        pick, phrases = fits[0], [f"next to {names[c]}" for c in beside(state, fits[0])]
    else:  # every piece on a cell carries another (a Rainforest jungle): a token on a tile
        pick = next(p for p in free if p.on is not None and p.area.endswith(owned))
        phrases = [f"on {names[pick.on]}"]
    placed = next(d for d in doc["placements"] if d["component"] == pick.component)
    return placed, phrases


@pytest.mark.parametrize("gid", SAMPLED)
def test_the_move_says_where_in_words(server: str, browser: Any, gid: str) -> None:
    """A piece laid on the table is told with its area and its neighbours, never a code or a cell."""
    context = _context(browser, "laptop")
    tab = Tab(context)
    page = tab.page
    _try_sample(page, server, gid)
    read = page.evaluate("CompanionTable.current()")
    doc, players = read["state"], read["players"]
    placed, phrases = _piece_to_hold_back(gid, doc)
    # The table as it was just before: the same, without that piece.
    before = {**doc, "placements": [p for p in doc["placements"] if p is not placed and p != placed]}
    status = page.evaluate(
        """([url, state, players]) => Companion.postJSON(url, {state, players, based_on: 0, source: "manual"})
           .then(r => r.status)""",
        [page.evaluate("CompanionTable.page.urls.moves"), before, players],
    )
    assert status == 201
    page.reload()
    page.click(".sample-btn")
    poll(page, "() => !document.getElementById('proposal').hidden")
    assert page.text_content("#proposal-title") != "Starting position"
    sentence = page.text_content("#move-summary")
    names = services.names_of(find_game(gid))
    piece = names[placed["component"]]
    assert piece in sentence, sentence
    kind, _, owner = placed["area"].partition(":")
    area_words = dict(score_pad(gid).areas)[kind]
    assert area_words in sentence or names.get(owner, "\0") in sentence, sentence  # a platform named by its board
    assert any(phrase in sentence for phrase in phrases), (sentence, phrases)
    _no_codes(sentence, gid)
    cell = placed.get("cell")
    if isinstance(cell, str):
        assert not re.search(rf"\b{re.escape(cell)}\b", sentence), sentence
    # The full list says it too.
    page.click("#move-details summary")
    changes = page.text_content("#move-list")
    assert piece in changes and any(phrase in changes for phrase in phrases), changes
    _no_codes(changes, gid)
    shoot(page, f"{gid}-laptop-move", full=False)

    # Accepted and kept, the move replays with the same words, the piece outlined on the
    # photo and in bold among the pieces by area, on a laptop and on a phone.
    page.click("#accept" if page.is_visible("#accept") else "#accept-anyway")
    poll(page, "() => document.getElementById('accepted-count').textContent === '2'")
    page.click("#keep")
    play_id = page.url.split("/plays/")[1].split("/")[0]
    assert not tab.errors, tab.errors
    context.close()
    for viewport in VIEWPORTS:
        context = _context(browser, viewport)
        tab = Tab(context)
        page = tab.page
        page.goto(f"{server}/history/{play_id}/replay?seq=2")
        poll(page, "() => document.getElementById('still').naturalWidth > 0")
        assert page.text_content("#move-summary") == sentence
        assert page.text_content("#tap-info").startswith(f"Outlined in yellow: {piece}, this move.")
        assert page.eval_on_selector_all("#board-list strong.fresh", "es => es.map(e => e.textContent)") == [piece]
        told = page.text_content("#board-list") + (page.text_content("#violations") if page.query_selector("#violations") else "")
        _no_codes(told, gid)
        assert _fits(page)
        shoot(page, f"{gid}-{viewport}-replay")
        assert not tab.errors, tab.errors
        context.close()


@pytest.mark.parametrize("gid", ["biomos", "habitats"])
def test_new_game_takes_its_players_from_the_first_photo(server: str, browser: Any, gid: str) -> None:
    """New game with the default three players, on a photo of fewer: a proposal, not a refusal."""
    context = _context(browser, "laptop")
    tab = Tab(context)
    page = tab.page
    page.goto(f"{server}/new?game={gid}")
    page.click("#new-game button[type=submit]")
    page.wait_for_url("**/table")
    seated = page.evaluate("JSON.parse(document.getElementById('page-data').textContent).play.players.length")
    assert seated == 3
    page.click(".sample-btn")
    poll(page, "() => !document.getElementById('proposal').hidden")
    assert page.is_hidden("#state-error")
    note = page.text_content("#players-note")
    assert "The table shows" in note and "left out" in note
    page.click("#accept")
    poll(page, "() => document.getElementById('accepted-count').textContent === '1'")
    shown = len(vision.recognise(vision.sample_photo(gid).read_bytes(), gid).state.players)
    poll(page, f"() => document.querySelectorAll('#players-line .player').length === {shown}")
    # Corrected afterwards: a player renamed from the Players panel.
    page.click("#players-edit summary")
    page.fill("#pname0", "Grandma")
    page.click("#players-form button[type=submit]")
    poll(page, "() => document.getElementById('players-line').textContent.includes('Grandma')")
    page.click("#score-link")
    page.wait_for_selector("#pad")
    assert "Grandma" in page.text_content("#pad thead")
    assert len(page.query_selector_all("#pad thead th.player-head")) == shown
    assert not tab.errors, tab.errors
    context.close()


def _blank_photo() -> bytes:
    ok, data = cv2.imencode(".jpg", np.full((720, 1280, 3), 120, np.uint8))
    assert ok
    return data.tobytes()


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_several_devices_follow_one_game(server: str, browser: Any, viewport: str) -> None:
    context = _context(browser, viewport)
    a, b, asleep = Tab(context), Tab(context), Tab(context, live=False)
    _try_sample(a.page, server, "habitats")
    table = a.page.url.split("?")[0]
    score = table.replace("/table", "/score")
    b.page.goto(table)
    pad = Tab(context)
    pad.page.goto(score)  # nothing accepted yet: the pad says so, and follows the game
    b.page.evaluate("window.__same_page = true")
    a.page.click("#accept")
    # The other tab follows within a couple of seconds, without a reload.
    poll(b.page, "() => document.getElementById('accepted-count').textContent === '1'", timeout_s=5)
    assert b.page.evaluate("window.__same_page === true")
    assert "move 1" in b.page.text_content("#live")
    poll(pad.page, "() => document.getElementById('pad') !== null", timeout_s=5)
    asleep.page.goto(table)  # opened at move 1, then hears nothing more

    # A move that takes many pieces off is confirmed first.
    a.page.set_input_files("#upload", files=[{"name": "empty.jpg", "mimeType": "image/jpeg", "buffer": _blank_photo()}])
    poll(a.page, "() => !document.getElementById('removal-confirm').hidden")
    assert a.page.is_disabled("#accept") or a.page.is_disabled("#accept-anyway")
    assert "pieces really left the table" in a.page.text_content("#removal-text")
    shoot(a.page, f"table-{viewport}-many-removed", full=False)
    a.page.check("#removal-ok")
    visible = "#accept" if a.page.is_visible("#accept") else "#accept-anyway"
    a.page.click(visible)
    poll(a.page, "() => document.getElementById('accepted-count').textContent === '2'")
    poll(b.page, "() => document.getElementById('accepted-count').textContent === '2'", timeout_s=5)

    # Undo asks first; "keep it" keeps it.
    b.page.click("#undo")
    assert b.page.is_visible("#undo-dialog")
    assert "move 2" in b.page.text_content("#undo-text")
    shoot(b.page, f"table-{viewport}-undo", full=False)
    b.page.click("#undo-cancel")
    assert b.page.text_content("#accepted-count") == "2"

    # The tab that never heard of move 2 may not undo it.
    assert asleep.page.text_content("#accepted-count") == "1"
    asleep.page.click("#undo")
    asleep.page.click("#undo-confirm")
    poll(asleep.page, "() => document.getElementById('status').textContent.startsWith('Not undone')")
    assert asleep.page.text_content("#accepted-count") == "2"  # it caught up instead
    # The tab that is up to date undoes, and the others follow.
    b.page.click("#undo")
    b.page.click("#undo-confirm")
    poll(a.page, "() => document.getElementById('accepted-count').textContent === '1'", timeout_s=5)
    # The refused undo is the one failed request, and only in the tab that was behind.
    assert [e for e in asleep.errors if "409" not in e] == [] and len(asleep.errors) == 1
    for name, tab in (("a", a), ("b", b), ("pad", pad)):
        assert not tab.errors, (name, tab.errors)
    context.close()


def test_another_games_photo_is_named_never_accepted(server: str, browser: Any) -> None:
    context = _context(browser, "phone")
    tab = Tab(context)
    page = tab.page
    _try_sample(page, server, "rainforest")
    page.click("#accept")
    poll(page, "() => document.getElementById('accepted-count').textContent === '1'")
    page.set_input_files("#upload", str(vision.sample_photo("habitats")))
    poll(page, "() => !document.getElementById('other-game').hidden")
    assert "Habitats" in page.text_content("#other-game-text")
    assert page.get_attribute("#other-game-link", "href").endswith("?game=habitats")
    assert page.is_hidden("#decide-bar")  # nothing to accept: the board is never wiped in one click
    assert "shows Habitats, not Rainforest" in page.text_content("#status")
    assert _in_view(page, "#other-game-link")
    shoot(page, "table-phone-other-game", full=False)
    assert not tab.errors, tab.errors
    context.close()


def test_a_resaved_photo_with_a_strangers_code_scores(server: str, browser: Any, tmp_path: Path) -> None:
    """The sample's non-game QR code, the photo saved again as an ordinary JPEG."""
    photo = cv2.imread(str(vision.sample_photo("rainforest")))
    path = tmp_path / "table.jpg"
    cv2.imwrite(str(path), photo, [cv2.IMWRITE_JPEG_QUALITY, 75])
    context = _context(browser, "laptop")
    tab = Tab(context)
    page = tab.page
    _try_sample(page, server, "rainforest")
    page.click("#dismiss")
    page.set_input_files("#upload", str(path))
    poll(page, "() => document.getElementById('status').textContent.startsWith('Photo read')")
    assert "nothing to fix" in page.text_content("#problems")
    assert "not part of this game" in page.text_content("#problems")
    assert not tab.errors, tab.errors
    context.close()


def test_a_large_phone_photo_is_outlined_where_its_pieces_are(server: str, browser: Any, tmp_path: Path) -> None:
    """A photo over the working size is read scaled down; its outlines still sit on its pieces."""
    photo = cv2.imread(str(vision.sample_photo("phylo")))
    big = cv2.resize(photo, None, fx=2.25, fy=2.25, interpolation=cv2.INTER_CUBIC)
    path = tmp_path / "phone.jpg"
    cv2.imwrite(str(path), big, [cv2.IMWRITE_JPEG_QUALITY, 90])
    context = _context(browser, "laptop")
    tab = Tab(context)
    page = tab.page
    _try_sample(page, server, "phylo")
    page.click("#dismiss")
    with page.expect_response(lambda r: "/frames" in r.url) as answer:
        page.set_input_files("#upload", str(path))
    read = answer.value.json()["recognition"]
    assert read["components"] and read["image_size"][0] < big.shape[1]  # read scaled down
    poll(page, "() => document.getElementById('status').textContent.startsWith('Photo read')")
    drawn = page.evaluate(
        """() => { const c = document.querySelector('#stage canvas.overlay');
                  const m = [...document.querySelectorAll('#stage img')].find((i) => !i.hidden);
                  return [c.width, c.height, m.naturalWidth]; }"""
    )
    assert drawn[:2] == read["image_size"] and drawn[2] == big.shape[1]
    assert not tab.errors, tab.errors
    context.close()


def test_samples_stay_out_of_the_history_unless_kept(server: str, browser: Any) -> None:
    context = _context(browser, "laptop")
    tab = Tab(context)
    page = tab.page
    _try_sample(page, server, "phylo")
    play_id = page.url.split("/plays/")[1].split("/")[0]
    page.click("#accept")
    poll(page, "() => document.getElementById('accepted-count').textContent === '1'")
    page.goto(server + "/history/")
    assert page.query_selector(f'tr[data-play="{play_id}"]') is None
    page.goto(f"{server}/plays/{play_id}/table")
    page.click("#keep")
    poll(page, "() => document.getElementById('keep-box').hidden")
    page.goto(server + "/history/")
    assert page.query_selector(f'tr[data-play="{play_id}"]') is not None
    # The replay shows the photo and the board at that move, in words.
    page.goto(f"{server}/history/{play_id}/replay?seq=1")
    poll(page, "() => document.getElementById('still').naturalWidth > 0")
    assert page.query_selector("canvas.overlay") is not None
    board = page.text_content("#board-list")
    assert "'s " in board or "The " in board
    _no_codes(board, "phylo")
    shoot(page, "replay-laptop")
    assert not tab.errors, tab.errors
    context.close()


def _contrast(fg: str, bg: str) -> float:
    def rgb(text: str) -> list[float]:
        return [float(v) / 255 for v in re.findall(r"[\d.]+", text)[:3]]

    def lum(c: list[float]) -> float:
        lin = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in c]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    a, b = sorted((lum(rgb(fg)), lum(rgb(bg))), reverse=True)
    return (a + 0.05) / (b + 0.05)


_CONTRAST_PAIRS = """() => [...document.querySelectorAll('h1, h2, p, th, td, button, a.button, label, summary, li')]
    .filter(e => e.offsetParent !== null && e.textContent.trim() && !e.closest('.decide-bar[hidden]'))
    .map(e => { let b = e, bg = 'rgba(0, 0, 0, 0)';
      while (b && (bg = getComputedStyle(b).backgroundColor) === 'rgba(0, 0, 0, 0)') b = b.parentElement;
      return [e.tagName + '#' + e.id + '.' + e.className, getComputedStyle(e).color, bg || 'rgb(255, 255, 255)',
              getComputedStyle(e).opacity]; })"""


def _low_contrast(page: Any) -> list[Any]:
    """Text under WCAG AA's 4.5:1 on its own background (disabled buttons are exempt)."""
    pairs = page.evaluate(_CONTRAST_PAIRS)
    return [(name, fg, bg, round(_contrast(fg, bg), 2)) for name, fg, bg, opacity in pairs
            if float(opacity) == 1.0 and _contrast(fg, bg) < 4.5]


def test_finish_favicon_keyboard_and_contrast(server: str, browser: Any) -> None:
    context = _context(browser, "laptop")
    tab = Tab(context)
    page = tab.page
    _try_sample(page, server, "habitats")
    assert not _low_contrast(page), _low_contrast(page)  # the table page, a proposal on screen
    icon = page.get_attribute('link[rel="icon"]', "href")
    assert page.evaluate(f"fetch('{icon}').then(r => r.status)") == 200
    # Every control is reachable from the keyboard (no negative tab order, problems focusable).
    assert page.eval_on_selector_all("[tabindex='-1']", "es => es.length") == 0
    page.click("#accept")
    poll(page, "() => document.getElementById('accepted-count').textContent === '1'")
    page.click("#score-link")
    page.wait_for_selector("#pad")
    for _ in range(30):  # Tab to the first number of the pad, Enter explains it
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('cell')"):
            break
    assert page.evaluate("document.activeElement.classList.contains('cell')")
    page.keyboard.press("Enter")
    poll(page, "() => document.querySelector('#cell-detail h2') !== null")
    # WCAG AA: 4.5:1 for the text players read, on its own background.
    assert not _low_contrast(page), _low_contrast(page)
    assert not tab.errors, tab.errors
    context.close()


def _sentence(text: str) -> str:
    """What the page makes of a message: capitalised, ending with a full stop, its words unchanged."""
    text = text.strip()
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_a_broken_rule_and_a_problem_come_through_in_the_rules_words(
    server: str, browser: Any, viewport: str, tmp_path: Path
) -> None:
    """Half a Habitats table in view: the scanner says whose park it cannot see, the rules say
    which tiles left a park, by their printed names; the page shows both word for word."""
    photo = cv2.imread(str(vision.sample_photo("habitats")))
    path = tmp_path / "half.jpg"
    cv2.imwrite(str(path), photo[:, int(photo.shape[1] * 0.4):], [cv2.IMWRITE_JPEG_QUALITY, 90])
    context = _context(browser, viewport)
    tab = Tab(context)
    page = tab.page
    _try_sample(page, server, "habitats")
    page.click("#accept")
    poll(page, "() => document.getElementById('accepted-count').textContent === '1'")
    with page.expect_response(lambda r: "/frames" in r.url) as answer:
        page.set_input_files("#upload", str(path))
    body = answer.value.json()
    poll(page, "() => !document.getElementById('violations').hidden")
    names = services.names_of(find_game("habitats"))
    said = [v["message"] for v in body["violations"]]
    shown = page.eval_on_selector_all("#violation-list li", "es => es.map(e => e.textContent)")
    assert said and shown == [_sentence(m) for m in said[:3]]
    for v, text in zip(body["violations"], shown, strict=False):
        assert names[v["components"][0]] in text, (v, text)  # the tile by its printed name
    problems = [p for p in body["recognition"]["problems"] if p["code"] == "layout/player_not_in_view"]
    assert problems and "Yellow" in problems[0]["message"]
    listed = page.eval_on_selector_all("#problem-list li > span:first-child", "es => es.map(e => e.textContent)")
    assert _sentence(problems[0]["message"]) in listed
    _no_codes(" ".join(shown + listed), "habitats")
    if viewport == "phone":  # the rules' words, then the scanner's, under the thumb
        page.eval_on_selector("#violations", "e => e.scrollIntoView()")
    shoot(page, f"table-{viewport}-violation", full=viewport == "laptop")
    assert not tab.errors, tab.errors
    context.close()


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_a_shaken_photo_asks_to_hold_the_camera_still(server: str, browser: Any, viewport: str, tmp_path: Path) -> None:
    """A photo taken with a shaking hand: what could not be read is listed, and the players are
    told in plain words to hold the camera still and take the photo again (no code shown)."""
    import json

    from tests.rendering.conditions import render_condition

    truth = json.loads(vision.sample_photo("phylo").with_suffix(".json").read_text("utf-8"))
    state = find_game("phylo").load_state(truth)
    scene = render_condition("phylo", state, condition="shake", resolution=(1920, 1080), seed=1005).scene
    path = tmp_path / "shaken.jpg"
    path.write_bytes(scene.jpeg)
    context = _context(browser, viewport)
    tab = Tab(context)
    page = tab.page
    _try_sample(page, server, "phylo")
    page.click("#dismiss")
    page.set_input_files("#upload", str(path))
    poll(page, "() => document.getElementById('status').textContent.startsWith('Photo read')")
    item = page.query_selector('#problem-list li[data-problem="vision/hold_still"]')
    assert item is not None
    text = item.text_content() or ""
    assert "hold the camera still and take the photo again" in text and "Rest the camera" in text
    assert "vision/" not in (page.text_content("#problem-list") or "")
    assert _fits(page)
    item.scroll_into_view_if_needed()
    shoot(page, f"phylo-{viewport}-hold-still", full=False)
    assert not tab.errors, tab.errors
    context.close()
