"""App fixtures: a fresh instance folder per test, a CSRF-aware client, a scripted camera."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.app import create_app
from scoring import find_game
from scoring.model import BoardState
from scoring.payload import encode
from vision.detect import MarkerKind
from vision.identify import Duplicate, Sighting
from vision.layouts import Located, Unreadable
from vision.problems import Problem
from vision.result import RecognisedComponent, Recognition

EXAMPLES = Path(__file__).resolve().parents[1] / "scoring" / "examples"


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    app = create_app({"TESTING": True, "INSTANCE_PATH": str(tmp_path / "instance")})
    yield app


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def csrf_token(client: FlaskClient) -> str:
    """The token a page carries in its meta tag (the session cookie is kept by the client)."""
    page = client.get("/").get_data(as_text=True)
    match = re.search(r'name="csrf-token" content="([^"]+)"', page)
    assert match is not None
    return match.group(1)


@pytest.fixture
def token(client: FlaskClient) -> str:
    return csrf_token(client)


def rainforest_move() -> dict[str, Any]:
    """A legal rainforest turn (two tiles locked) from the worked examples."""
    return json.loads((EXAMPLES / "rainforest" / "move_legal_turn_locks_two_tiles.json").read_text("utf-8"))


#: Where every component the scripted camera "sees" lies in its photo.
_OUTLINE = np.array([[10.0, 10.0], [60.0, 10.0], [60.0, 60.0], [10.0, 60.0]])


def recognition_of(
    state: BoardState, *, unreadable: int = 0, duplicated: int = 0, problems: tuple[Problem, ...] = ()
) -> Recognition:
    """What vision.recognise returns for a photo of this state (a real Recognition): every
    placement read by its tag, plus ``unreadable`` undecoded tags and ``duplicated`` codes
    (the first placed components, each seen twice)."""
    game = find_game(state.game)
    located = [
        Located(game.component_index[p.component], encode(state.game, p.component), np.eye(3), _OUTLINE, "tag")
        for p in state.placements
    ]
    components = tuple(RecognisedComponent(loc, p) for loc, p in zip(located, state.placements))
    unread = tuple(Unreadable(MarkerKind.TAG, _OUTLINE + 100.0 * k, None, "a tag that did not decode")
                   for k in range(unreadable))
    twice = tuple(
        Duplicate(loc.component.id, (Sighting(loc.component, loc.payload, (), (), np.eye(3)),) * 2)
        for loc in located[:duplicated]
    )
    return Recognition(state.game, state, components, unread, (), twice, (), problems, 1.0)


class ScriptedCamera:
    """Maps image bytes to the state the fake recogniser 'sees' in them."""

    def __init__(self) -> None:
        self.scenes: dict[bytes, tuple[Mapping[str, Any], dict[str, Any]]] = {}
        self.calls: list[dict[str, Any]] = []
        self.array_scene: tuple[Mapping[str, Any], dict[str, Any]] | None = None
        """What decoded frames (arrays from a host camera) show."""

    def show(self, image: bytes, state: Mapping[str, Any], **problems: Any) -> bytes:
        """Script a photo: ``problems`` as ``recognition_of`` takes them."""
        self.scenes[image] = (state, problems)
        return image

    def recognise(self, image: bytes, game_id: str, *, players: Any = None, options: Any = None) -> Recognition:
        from vision.errors import ImageError

        self.calls.append({"game": game_id, "players": players, "options": options, "image": image})
        if not isinstance(image, bytes) and self.array_scene is not None:
            doc, problems = self.array_scene
        elif isinstance(image, bytes) and image in self.scenes:
            doc, problems = self.scenes[image]
        else:
            raise ImageError("not an image this test knows")
        state = find_game(game_id).load_state(doc)
        return recognition_of(state, **problems)


@pytest.fixture
def camera(monkeypatch: pytest.MonkeyPatch) -> ScriptedCamera:
    import vision
    from vision.errors import ImageError

    cam = ScriptedCamera()
    monkeypatch.setattr(vision, "recognise", cam.recognise, raising=False)
    monkeypatch.setattr(vision, "ImageError", ImageError, raising=False)
    return cam
