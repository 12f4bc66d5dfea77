"""The tunables of the whole scan, with the defaults the benchmark measured."""

from __future__ import annotations

from dataclasses import dataclass

from .detect import DetectConfig
from .load import MAX_PIXELS
from .whole_tags import SoftConfig


@dataclass(frozen=True, slots=True)
class RecogniseConfig:
    """Tunables of the whole pipeline, with the defaults the benchmark measured."""

    detect: DetectConfig = DetectConfig()
    max_pixels: int = MAX_PIXELS
    outlier_mm: float = 2.0
    """A component whose markers sit further than this from their printed shape is off the plane."""
    curl_mm: float = 3.5
    """...but within this, its markers are valid and it lies on the table: a curled or bent card
    or tile (its markers no longer in one plane). It is placed, and left out of the plane fit."""
    shared_tag_mm: float = 1.0
    """A tag read alone whose id another game prints too, in a photo that shows another game's
    markers, is trusted only within this of its printed shape (another game's tag of that id
    has another size: 1.3-1.8 mm off; this game's own sit within 0.6 mm)."""
    rescue: bool = True
    """Give undecoded tag-sized quads a second look against this game's unseen tags."""
    unreadable_size_tolerance: float = 0.3
    """An undecoded quad counts as an unreadable tag when its side is within this fraction of a printed tag."""
    unreadable_quiet_tolerance: float = 0.1
    """An undecoded pale square on a darker ground counts as an unreadable tag when its sides are
    within this fraction of a tag's quiet zone (the tag blurred into its white margin)."""
    unreadable_face_tolerance: float = 0.08
    """An undecoded quad counts as an unread component when it is a rectangle whose sides are
    within this fraction of a read component's face beside it (blur can merge a whole tile or
    card, markers and all, into one quad: the component is then shown as unread, not missed)."""
    soft: SoftConfig | None = SoftConfig()
    """Read blurred tags whole at undecoded quads and at free spaces of located boards; None skips it."""
    soft_quad_growth: tuple[float, float] = (0.7, 1.8)
    """An undecoded quad may be a tag of printed side s when its own side is within these
    multiples of s (blur makes quads larger: the quiet zone alone is 1.25 s, and a tag blurred
    into its surroundings leaves a ragged quad up to 1.8 s)."""
    soft_space_ratio: float = 1.25
    """A component may lie on a space when its face is at most this times the space's size."""
    soft_face_tolerance: float = 0.12
    """An undecoded rectangle within this fraction of a card's, tile's or token's face is
    searched for that face's tag (only searched: wider than ``unreadable_face_tolerance``, as
    blur grows or shrinks a side by a few millimetres)."""
    neighbour_rounds: int = 3
    """After the third look, how many more times the places beside components read but still
    not placed are searched (each round only beside the ones read in the round before)."""
