"""``bench/markers.py`` decides how small a printed tag may be (``docs/printing.md``); these keep
its scenes honest: the faces it draws carry the editions' own 36h11 tags, each read on the face
it lies on, and the default install measures 36h11 without the bench-only AprilTag 3 binding."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_markers", ROOT / "bench" / "markers.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_todays_tile_tag_is_read_on_every_face_of_a_typical_scene(bench: ModuleType) -> None:
    tally = bench.run(("typical",), ("36h11",), (26.9,), 1)
    cell = tally.cells[("typical", "36h11", 26.9)]
    assert cell.faces >= 40  # the grid of 48 faces is in view
    assert (cell.read, cell.wrong) == (cell.faces, 0)
    assert not tally.strays


def test_a_tag_a_quarter_smaller_is_read_on_fewer_faces_in_the_hard_view(bench: ModuleType) -> None:
    """The finding that keeps today's sizes, on two of the bench's scenes: 21.5 mm against 16 mm."""
    tally = bench.run(("hard",), ("36h11",), (26.9, 20.0), 2)
    today, smaller = tally.cells[("hard", "36h11", 26.9)], tally.cells[("hard", "36h11", 20.0)]
    assert today.faces >= 30 and smaller.faces >= 30
    assert today.read / today.faces > smaller.read / smaller.faces + 0.1
    assert today.wrong == smaller.wrong == 0


def test_apriltag3_families_are_refused_without_the_measure_extra(bench: ModuleType, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(bench, "apriltag3", lambda: None)
    with pytest.raises(SystemExit) as stop:
        bench.main(["--families", "36h11,41h12"])
    assert stop.value.code == 2
    assert '.[measure]' in capsys.readouterr().err
