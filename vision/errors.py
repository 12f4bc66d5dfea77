"""The vision package's small error tree: every refusal is a ValueError with a reason."""

from __future__ import annotations


class VisionError(ValueError):
    """Base of every error the vision stages raise on bad input."""


class ImageError(VisionError):
    """The bytes are not an image we are willing to decode (the message says why)."""


class LayoutError(VisionError):
    """A game has no layout, or a layout was registered twice."""
