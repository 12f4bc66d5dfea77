"""Write the bundled sample photos (vision/samples/<game>.jpg) and their truth states (.json).

Run from the repository root: ``python bench/make_samples.py``. Scenes are rendered with
fixed seeds, so the files only change when the catalogs, printables or renderer change.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scoring import find_game  # noqa: E402
from scoring.state import state_to_json  # noqa: E402
from vision import recognise  # noqa: E402
from vision.layouts import habitats as habitats_layout  # noqa: E402
from vision.layouts import phylo as phylo_layout  # noqa: E402
from tests.rendering.render import render_scene  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from board_positions import AREAS as BOARD_AREAS  # noqa: E402
from board_positions import POSITIONS as BOARD_POSITIONS  # noqa: E402

SAMPLES = ROOT / "vision" / "samples"


def habitats_position() -> dict:
    """A two-player game in its second year: both parks around their entrances and the market."""
    game = find_game("habitats")
    doc = game.example_state()
    parks = {"park:yellow": "park:yellow", "park:red": "park:red"}
    placements = [
        p for p in doc["placements"]
        if p["area"] in parks and abs(p["cell"][0]) <= 2 and -3 <= p["cell"][1] <= 0
    ]
    used = {p["component"] for p in placements} | {p["component"] for p in doc["placements"]}
    spare = [c.id for c in game.components() if c.kind == "tile" and c.id not in used]
    market = []
    for y in range(3):
        for x in range(3):
            if (x, y) == (1, 0):
                market.append({"component": "F-RED", "area": "market", "cell": [x, y], "rotation": 2})
            elif (x, y) == (1, 2):
                market.append({"component": "F-YELLOW", "area": "market", "cell": [x, y], "rotation": 0})
            else:
                market.append({"component": spare.pop(0), "area": "market", "cell": [x, y]})
    return {
        "format": 1,
        "game": "habitats",
        "players": [
            {"id": "red", "name": "Red", "colour": "red", "seat": 0},
            {"id": "yellow", "name": "Yellow", "colour": "yellow", "seat": 1},
        ],
        "options": {},
        "placements": placements + market,
    }


def phylo_position() -> dict:
    """The example game's table (hands and discard piles are not on the table)."""
    doc = dict(find_game("phylo").example_state())
    doc["placements"] = [p for p in doc["placements"] if p["area"] == "table"]
    doc.pop("extras", None)
    return doc


def habitats_area() -> dict:
    """An area scan: one player's park (the camera 40-55 cm above it)."""
    doc = habitats_position()
    doc["placements"] = [p for p in doc["placements"] if p["area"] == "park:red"]
    return doc


def phylo_area() -> dict:
    """An area scan: the middle of the card grid around the first HOME card."""
    doc = phylo_position()
    doc["placements"] = [
        p for p in doc["placements"]
        if p.get("cell") is not None and abs(p["cell"][0]) <= 2 and -1 <= p["cell"][1] <= 0
    ]
    return doc


AREAS = {"habitats": habitats_area, "phylo": phylo_area}

POSITIONS = {"habitats": (habitats_position, habitats_layout.canonical), "phylo": (phylo_position, phylo_layout.canonical)}

# The board-anchored games (Biomos, Rainforest, BIOME Borneo) keep their positions beside this file.
AREAS.update(BOARD_AREAS)
POSITIONS.update(BOARD_POSITIONS)


def write(game_id: str, seeds: range = range(40)) -> None:
    make, canonical = POSITIONS[game_id]
    game = find_game(game_id)
    state = game.load_state(make())
    for seed in seeds:
        scene = render_scene(game_id, state, condition="typical", seed=seed)
        if scene.hidden or len(scene.jpeg) > 600_000:
            continue
        truth = canonical(scene.truth)
        found = recognise(scene.jpeg, game_id)
        if sorted(map(repr, found.state.placements)) != sorted(map(repr, truth.placements)):
            continue
        (SAMPLES / f"{game_id}.jpg").write_bytes(scene.jpeg)
        doc = state_to_json(truth)
        (SAMPLES / f"{game_id}.json").write_text(json.dumps(doc, indent=1) + "\n", "utf-8")
        print(f"{game_id}: seed {seed}, {len(scene.jpeg) // 1024} KB, {len(truth.placements)} components")
        return
    raise SystemExit(f"{game_id}: no seed gave a fully visible, fully read sample")


if __name__ == "__main__":
    for g in sys.argv[1:] or POSITIONS:
        write(g)
