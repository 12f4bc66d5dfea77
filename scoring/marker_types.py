"""The printed markers' model: where a tag and a QR code sit on a face, and the rules that place them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


#: Modules across the black symbol: AprilTag 36h11 with its border, QR version 1.
TAG_MODULES = 8

QR_MODULES = 21

@dataclass(frozen=True, slots=True)
class MarkerBox:
    """One printed symbol: its black square and the white quiet margin around it, in face mm."""

    x_mm: float
    """Left edge of the black symbol, from the face's left edge."""
    y_mm: float
    """Top edge of the black symbol, from the face's top edge."""
    size_mm: float
    """Side of the black symbol (tag: 8 modules incl. border; QR: 21 modules)."""
    quiet_mm: float
    """White margin printed around the symbol on each side."""
    modules: int

    @property
    def module_mm(self) -> float:
        return self.size_mm / self.modules

    @property
    def centre_mm(self) -> tuple[float, float]:
        return (self.x_mm + self.size_mm / 2, self.y_mm + self.size_mm / 2)

    @property
    def outer(self) -> tuple[float, float, float, float]:
        """The quiet-zoned square as ``(x, y, w, h)``: nothing else may be printed inside it."""
        q = self.quiet_mm
        return (self.x_mm - q, self.y_mm - q, self.size_mm + 2 * q, self.size_mm + 2 * q)

@dataclass(frozen=True, slots=True)
class MarkerLayout:
    """Both markers of one component's face, upright."""

    face_w_mm: float
    face_h_mm: float
    tag: MarkerBox
    qr: MarkerBox | None
    from_rule: bool = False
    """True when the kind has no entry and the house rule placed the markers."""

    @property
    def tag_to_centre_mm(self) -> tuple[float, float]:
        """Vector from the tag's centre to the face centre, in the tag's own upright axes."""
        cx, cy = self.tag.centre_mm
        return (self.face_w_mm / 2 - cx, self.face_h_mm / 2 - cy)

    @property
    def qr_to_centre_mm(self) -> tuple[float, float] | None:
        """Vector from the QR's centre to the face centre, in the QR's upright axes."""
        if self.qr is None:
            return None
        cx, cy = self.qr.centre_mm
        return (self.face_w_mm / 2 - cx, self.face_h_mm / 2 - cy)

@dataclass(frozen=True, slots=True)
class SymbolPlace:
    """A kind's placement of one symbol, as written in markers.toml."""

    size_mm: float
    anchor: str
    dx_mm: float
    dy_mm: float
    quiet_mm: float

#: Sheets a kind can be printed on (``printables`` maps unlisted kinds by name).
SHEETS = ("tiles", "cards", "tokens", "boards")

@dataclass(frozen=True, slots=True)
class BackTag:
    """The tag printed on every back of one kind: it says "a face-down <kind>", never which one."""

    id: int
    place: SymbolPlace

@dataclass(frozen=True, slots=True)
class KindMarkers:
    """One kind's entry: explicit tag/QR placement (None: house rule), its print sheet and back tag."""

    tag: SymbolPlace | None
    qr: SymbolPlace | None
    sheet: str | None = None
    back_tag: BackTag | None = None

@dataclass(frozen=True, slots=True)
class MarkerRule:
    """Constants of the house rule that places markers for kinds without an entry."""

    tag_min_mm: float
    tag_max_mm: float
    tag_fraction: float
    tag_quiet_modules: float
    qr_min_mm: float
    qr_max_mm: float
    qr_fraction: float
    qr_quiet_modules: float
    qr_face_min_mm: float
    """Rectangular faces whose short side reaches this must carry a QR code."""
    anchor_min_mm: float
    anchor_max_mm: float
    inset_mm: float
    """Gap between a quiet zone and the face edge."""
    round_edge_mm: float
    """On round and hex faces: least gap between a black symbol's corner and the outline."""
    min_quiet_modules: float
    """Smallest quiet zone a kind entry may declare, in modules of its symbol."""

@dataclass(frozen=True, slots=True)
class GameMarkers:
    """A game's markers.toml, validated."""

    game: str
    rule: MarkerRule
    kinds: Mapping[str, KindMarkers]
