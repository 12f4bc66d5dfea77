"""Table positions of the board-anchored games for the sample photos and the benchmark.

Each position is what one photo of the table shows (one player's side of the table: a
whole game of these games does not fit one webcam frame at table distance). Players
carry the ids the scanner gives them without a player list, so a scan of the sample
photo prints the same board as its truth file.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scoring import find_game
from vision.layouts import biomos as biomos_layout
from vision.layouts import borneo as borneo_layout
from vision.layouts import rainforest as rainforest_layout

Doc = dict[str, Any]


def _rename(doc: Doc, old: str, new: str, name: str) -> Doc:
    """The same position with one player's id (and so their areas) renamed."""
    out = dict(doc)
    out["players"] = [{"id": new, "name": name, "seat": p["seat"]} if p["id"] == old else p for p in doc["players"]]
    moved = []
    for p in doc["placements"]:
        area = p["area"]
        if area.endswith(":" + old):
            p = dict(p, area=area[: -len(old)] + new)
        moved.append(p)
    out["placements"] = moved
    return out


def biomos_position() -> Doc:
    """A solo discovery game at its end: the full planet and Moon, four biomes, the Black Hole with
    the biomes it established, two tokens in the centre row and two cards in the offer."""
    planet = ["FOREST-01", "MOUNTAIN-01", "MOUNTAIN-02", "FOREST-02", "OCEAN-01", "FOREST-03", "OCEAN-02",
              "DESERT-01", "OCEAN-03", "OCEAN-04", "OCEAN-05", "OCEAN-06"]
    placements: list[Doc] = [{"component": "PLANET1-D", "area": "planet:planet1"}]
    placements += [{"component": t, "area": "planet:planet1", "cell": f"P{k + 1}"} for k, t in enumerate(planet)]
    placements.append({"component": "FOREST-04", "area": "planet:planet1", "cell": "MOON"})
    placements += [{"component": c, "area": "biomes:planet1"} for c in ("B11", "B19", "B27", "G06")]
    placements += [
        {"component": "BLACKHOLE-20", "area": "blackhole"},
        {"component": "GLACIER-01", "area": "blackhole", "on": "BLACKHOLE-20"},
        {"component": "DESERT-02", "area": "blackhole", "on": "BLACKHOLE-20"},
        {"component": "B02", "area": "blackhole"},
        {"component": "DESERT-03", "area": "blackhole", "on": "B02"},
        {"component": "DESERT-04", "area": "blackhole", "on": "B02"},
        {"component": "B15", "area": "blackhole"},
        {"component": "OCEAN-07", "area": "blackhole", "on": "B15"},
        {"component": "OCEAN-08", "area": "blackhole", "on": "B15"},
        {"component": "GLACIER-02", "area": "blackhole", "on": "B15"},
        {"component": "MOUNTAIN-08", "area": "centre", "cell": "T1"},
        {"component": "GLACIER-09", "area": "centre", "cell": "T2"},
        {"component": "B07", "area": "offer", "cell": "B1"},
        {"component": "G01", "area": "offer", "cell": "G1"},
    ]
    return {
        "format": 1,
        "game": "biomos",
        "players": [{"id": "planet1", "name": "Planet 1", "seat": 0}],
        "options": {},
        "placements": placements,
    }


def rainforest_position() -> Doc:
    """The frog player's board at the end of the example game: jungle, clearing, reserve, binoculars."""
    doc = dict(find_game("rainforest").example_state())
    doc["placements"] = [p for p in doc["placements"] if p["area"].endswith(":ana")]
    doc["players"] = [p for p in doc["players"] if p["id"] == "ana"]
    return _rename(doc, "ana", "frog", "Frog")


def borneo_position() -> Doc:
    """Canopy platform C1 of the example game beside the first player's legend card, two of their
    food chains fanned out and two tiles in hand."""
    doc = dict(find_game("borneo").example_state())
    chains = {"TERMITES-1", "SUNBEAR-1", "LEOPARD-1", "CICADA-1", "DRACO-1", "TARSIER-1", "LINSANG-1", "PYTHON-1"}
    doc["placements"] = [
        p for p in doc["placements"]
        if p["area"] == "platform:C1" or p["component"] in chains | {"C1", "T45", "T06"}
    ] + [{"component": "LEGEND-1", "area": "table"}]
    doc["players"] = [p for p in doc["players"] if p["id"] == "red"]
    doc.pop("options", None)
    return _rename(doc, "red", "player1", "Player 1")


def biomos_area() -> Doc:
    """An area scan: the planet board with its tokens (the camera 40-55 cm above it)."""
    doc = biomos_position()
    doc["placements"] = [p for p in doc["placements"] if p["area"] == "planet:planet1"]
    return doc


def rainforest_area() -> Doc:
    """An area scan: the player board's jungle and clearing."""
    doc = rainforest_position()
    doc["placements"] = [p for p in doc["placements"] if not p["area"].startswith("reserve:") and p["component"] != "BINOCULARS"]
    return doc


def borneo_area() -> Doc:
    """An area scan: platform C1 and its plant tiles."""
    doc = borneo_position()
    doc["placements"] = [p for p in doc["placements"] if p["component"] == "C1" or p["area"] == "platform:C1"]
    doc["players"] = []
    return doc


AREAS: dict[str, Callable[[], Doc]] = {"biomos": biomos_area, "rainforest": rainforest_area, "borneo": borneo_area}

POSITIONS: dict[str, tuple[Callable[[], Doc], Callable[..., Any]]] = {
    "biomos": (biomos_position, biomos_layout.canonical),
    "rainforest": (rainforest_position, rainforest_layout.canonical),
    "borneo": (borneo_position, borneo_layout.canonical),
}
