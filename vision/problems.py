"""What a reading tells the players besides the board state: problems with stable codes."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any


class ProblemCode(enum.StrEnum):
    """The closed set of problem codes; the value is the stable code the JSON and the app use."""

    BETWEEN_SPACES = "layout/between_spaces"
    """Lies across the border of two spaces or slots."""
    BINOCULARS_UNSEEN = "layout/binoculars_unseen"
    """The binoculars were not seen while every seated board is in view."""
    BOARD_OF_NOBODY = "layout/board_of_nobody"
    """A board that belongs to no seated player."""
    CELL_TAKEN = "layout/cell_taken"
    """Two components read in one cell."""
    FACE_DOWN = "layout/face_down"
    """A face-down card or token that scores: turn it over."""
    FACES_NOBODY = "layout/faces_nobody"
    """A card turned towards no seated player."""
    LAYOUT_FAILED = "layout/failed"
    """The layout could not read the table at all."""
    FAN_GAP = "layout/fan_gap"
    """A gap in a player's fan of cards."""
    FAN_UNREAD = "layout/fan_unread"
    """A card of a fan could not be read."""
    LOOSE = "layout/loose"
    """Lies in no area of the table."""
    LOOSE_EVENT = "layout/loose_event"
    """An event card lying on no species card."""
    MARKET_PARTIAL = "layout/market_partial"
    """Only part of the market is in view."""
    MARKET_UNANCHORED = "layout/market_unanchored"
    """Market tiles with no market board to place them by."""
    NO_HOME = "layout/no_home"
    """No HOME card in view to lay the grid by."""
    NO_TRACK = "layout/no_track"
    """No score track in view."""
    NOT_READ = "layout/not_read"
    """A card the layout does not place (a deck or discard card)."""
    OFF_BOARD = "layout/off_board"
    """Lies on a board but on none of its spaces."""
    OFF_SLOT = "layout/off_slot"
    """Lies on a tile or platform but on none of its slots."""
    OFF_SPACE = "layout/off_space"
    """Lies on a board but on no space."""
    OFF_TILE = "layout/off_tile"
    """Lies on a board but on no tile that was read."""
    OFF_TRACK = "layout/off_track"
    """A marker off the score track."""
    ON_UNPLACED_TILE = "layout/on_unplaced_tile"
    """Lies on a tile that has no place."""
    PLAYER_NOT_IN_VIEW = "layout/player_not_in_view"
    """A seated player's board or park is not in view: their score would be missing."""
    ROTATION_UNCLEAR = "layout/rotation_unclear"
    """Lies too far off its space's edges to tell its turn."""
    TOKEN_ON_CARD = "layout/token_on_card"
    """A token lying on a card."""
    TWO_ON_ONE = "layout/two_on_one"
    """Two components on one space."""
    UNPLACED = "layout/unplaced"
    """Read but given no place."""
    UNREAD = "layout/unread"
    """Something lies on a place that could not be read."""
    UNREAD_CARD = "layout/unread_card"
    """A card that could not be read."""
    UNREAD_TILE = "layout/unread_tile"
    """A tile that could not be read."""
    UNREAD_TOKEN = "layout/unread_token"
    """A token that could not be read."""
    UNREADABLE = "layout/unreadable"
    """A marker that could not be read."""
    PARK_NO_PLAYER = "park/no_player"
    """A park whose entrance names no seated player."""
    STATE_REFUSED = "state/refused"
    """The rules refuse the whole reading."""
    REFUSED_PLACEMENT = "state/refused_placement"
    """The rules refuse one placement: it is left out."""
    OFF_PLANE = "vision/off_plane"
    """Does not lie flat on the table."""
    HOLD_STILL = "vision/hold_still"
    """The photo is too blurred where something was not read: hold the camera still, take it again."""
    MAYBE_OTHER_GAME = "vision/maybe_other_game"
    """Read by a tag alone that another game prints too, and not this game's size: not read."""


@dataclass(frozen=True, slots=True)
class Problem:
    """A finding the players should see (a component off the grid, an odd rotation)."""

    code: ProblemCode
    message: str
    components: tuple[str, ...] = ()
    image_points: tuple[tuple[float, float], ...] = ()
    areas: tuple[str, ...] = ()
    """Areas of the state this problem leaves unread as a whole (a park whose entrance is not in view)."""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "code": self.code.value,
            "message": self.message,
            "components": list(self.components),
            "image_points": [[round(x, 1), round(y, 1)] for x, y in self.image_points],
        }
        if self.areas:
            out["areas"] = list(self.areas)
        return out
