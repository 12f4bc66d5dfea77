"""Vision: frame -> markers -> components -> table plane -> per-game board state."""

from __future__ import annotations

from pathlib import Path

from .errors import ImageError, LayoutError, VisionError
from .load import Frame, frame_from_array, load_image
from .recognise import Recognition, RecogniseConfig, recognise

_SAMPLES = Path(__file__).parent / "samples"


def sample_photo(game_id: str) -> Path:
    """The bundled sample photo of a game's table (its truth state sits beside it as JSON)."""
    path = _SAMPLES / f"{game_id}.jpg"
    if not path.is_file():
        raise ImageError(f"no sample photo for {game_id!r}")
    return path


__all__ = [
    "Frame",
    "ImageError",
    "LayoutError",
    "Recognition",
    "RecogniseConfig",
    "VisionError",
    "frame_from_array",
    "load_image",
    "recognise",
    "sample_photo",
]
