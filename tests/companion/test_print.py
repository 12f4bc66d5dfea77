"""The print page and its PDF downloads."""

from __future__ import annotations

import io

import pypdfium2 as pdfium
import pytest
from flask.testing import FlaskClient

import printables
from scoring import game_ids


def test_print_page_offers_every_game_sheet_and_paper(client: FlaskClient) -> None:
    page = client.get("/print").get_data(as_text=True)
    for gid in game_ids():
        assert f'id="print-{gid}"' in page and f"/print/{gid}.pdf" in page
    for what in printables.WHAT_CHOICES:
        assert f'<option value="{what}"' in page
    assert '<option value="letter">LETTER</option>' in page


def test_pdf_download_is_a_pdf_of_the_right_paper(client: FlaskClient) -> None:
    r = client.get("/print/habitats.pdf?what=tokens&paper=letter")
    assert r.status_code == 200 and r.mimetype == "application/pdf"
    assert r.headers["Content-Disposition"] == 'attachment; filename="habitats-tokens-letter.pdf"'
    assert r.data.startswith(b"%PDF")
    pdf = pdfium.PdfDocument(io.BytesIO(r.data))
    try:
        width, height = pdf[0].get_size()
        assert (round(width), round(height)) == (612, 792)  # US letter in points
    finally:
        pdf.close()
    assert r.data == printables.build_pdf("habitats", what="tokens", paper="letter")


@pytest.mark.parametrize(
    "query",
    ["what=posters", "paper=a3", "bleed=x", "bleed=9", "start_label=first", "label_sheet=nope", "gutter=x",
     "gutter=30", "fold=maybe", "ink_saver=2"],
)
def test_bad_print_arguments_are_400(client: FlaskClient, query: str) -> None:
    r = client.get(f"/print/habitats.pdf?{query}")
    assert r.status_code == 400
    assert r.get_json()["error"] in ("bad_argument", "cannot_print")


def test_print_of_unknown_game_is_404(client: FlaskClient) -> None:
    assert client.get("/print/chess.pdf").status_code == 404


def test_the_print_options_reach_the_pdf(client: FlaskClient) -> None:
    """Space between cards, fold-and-glue and ink saver, as the page's form sends them."""
    page = client.get("/print").get_data(as_text=True)
    for field in ('name="gutter"', 'name="fold"', 'name="ink_saver"'):
        assert field in page
    r = client.get("/print/phylo.pdf?what=cards&paper=a4&gutter=3&fold=1&ink_saver=1")
    assert r.status_code == 200
    assert r.data == printables.build_pdf("phylo", what="cards", paper="a4", gutter_mm=3.0, fold=True, ink_saver=True)
    assert r.data != printables.build_pdf("phylo", what="cards", paper="a4")
