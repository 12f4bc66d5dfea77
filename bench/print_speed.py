"""How long printing a complete edition takes, per game (target: under 5 s each).

Run: ``python bench/print_speed.py [GAME ...]``. "cold" clears every printing cache first
(face descriptions, QR matrices, marker layouts), so it is what a first ``companion print``
pays after the catalog is loaded; "warm" repeats the same request in the same process.
"""

from __future__ import annotations

import argparse
import os
import time

import printables
from printables import faces, symbols
from scoring import markers
from scoring.registry import find_game, game_ids


def _clear_caches() -> None:
    """Forget everything printing has memoised, so the next build pays full price."""
    faces.face_of.cache_clear()
    faces._render_cached.cache_clear()  # noqa: SLF001 - benchmark needs a cold start
    symbols.qr_matrix.cache_clear()
    symbols.tag_matrix.cache_clear()
    markers.marker_layout.cache_clear()
    faces._deck_colours.cache_clear()  # noqa: SLF001


def _timed(fn) -> tuple[float, bytes]:  # noqa: ANN001
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("games", nargs="*", default=list(game_ids()))
    parser.add_argument("--paper", default="a4", choices=printables.PAPER_CHOICES)
    args = parser.parse_args()
    print(f"cores: {os.cpu_count()}, load average: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print(f"{'game':<11} {'parts':>5} {'catalog s':>9} {'cold s':>7} {'warm s':>7} {'stickers s':>10} {'pages':>5}"
          f" {'sticker pages':>13} {'KB':>5} {'same bytes':>10}")
    for game in args.games:
        load_s, comps = _timed(lambda: find_game(game).components())
        _clear_caches()
        cold_s, pdf = _timed(lambda: printables.build_pdf(game, paper=args.paper))
        warm = [_timed(lambda: printables.build_pdf(game, paper=args.paper)) for _ in range(2)]
        warm_s = min(t for t, _ in warm)
        same = all(out == pdf for _, out in warm)  # deterministic: every build the same bytes
        _clear_caches()
        stick_s, stickers = _timed(lambda: printables.build_pdf(game, what="stickers", paper=args.paper))
        pages = _pages(pdf)
        print(
            f"{game:<11} {len(comps):>5} {load_s:>9.2f} {cold_s:>7.2f} {warm_s:>7.2f} {stick_s:>10.2f}"
            f" {pages:>5} {_pages(stickers):>13} {len(pdf) // 1024:>5} {'yes' if same else 'NO':>10}"
        )


def _pages(pdf: bytes) -> int:
    return pdf.count(b"/Type /Page\n") or pdf.count(b"/Type /Page ")


if __name__ == "__main__":
    main()
