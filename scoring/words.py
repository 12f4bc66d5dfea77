"""How the rules name things in the messages players read: printed names, seated players'
names and the rulebook's words for places.

A violation's ``message`` is read as it is, on the table page and by ``companion check``;
what a program needs from it (component ids, cells, the area) stays in its fields. So every
message names components by the names printed on them, players by their names and areas in
the words of the game's score pad data, never by ids, coordinates or arrows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache

from .model import BoardState, StateError, UnknownGameError, parse_area
from .score_pad import score_pad


def join_and(items: Iterable[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def plural(n: int, one: str, many: str | None = None) -> str:
    """``1 tile``, ``2 tiles``, ``-1 point``."""
    return f"{n} {one if abs(n) == 1 else (many or one + 's')}"


@cache
def _names(game_id: str) -> tuple[dict[str, str], frozenset[str]]:
    from .registry import find_game  # the registry imports every game, which import this module

    try:
        components = find_game(game_id).components()
    except UnknownGameError:  # a state of no supported game is refused before anything is named
        return {}, frozenset()
    counts = Counter(c.name for c in components)
    return {c.id: c.name for c in components}, frozenset(n for n, k in counts.items() if k > 1)


@dataclass(frozen=True, slots=True)
class Words:
    """The names one game's messages use at one table."""

    game: str
    players: Mapping[str, str]
    """Player id -> the name players gave themselves."""

    @classmethod
    def of(cls, game_id: str, *states: BoardState) -> Words:
        """Words for a move between states (a player seated in either is named)."""
        seated = {p.id: p.name for s in states for p in s.players}
        return cls(game_id, seated)

    def name(self, component: str) -> str:
        """The name printed on a component (``an unknown piece`` for an id no catalog lists)."""
        return _names(self.game)[0].get(component, "an unknown piece")

    def is_shared(self, component: str) -> bool:
        """True when the same name is printed on other components of the game too."""
        return self.name(component) in _names(self.game)[1]

    def listing(self, components: Iterable[str]) -> str:
        """Several components by name: ``Ocean token twice, Forest token and Desert token``."""
        counts = Counter(self.name(c) for c in components)
        times = {1: "", 2: " twice"}
        return join_and(f"{n}{times.get(k, f' {k} times')}" for n, k in counts.items())

    def player(self, player: str) -> str:
        """A seated player's name (the id when nobody by that id is seated)."""
        return self.players.get(player, player)

    def area(self, area: str | None) -> str:
        """``Ana's park``, ``the market``, ``Canopy Layer 1`` (a platform named by its board)."""
        if not area:
            return "beside the board"
        aid = parse_area(area)
        words = dict(score_pad(self.game).areas).get(aid.kind, aid.kind.replace("_", " "))
        if aid.owner is None:
            return f"the {words}"
        if aid.owner in self.players:
            return f"{self.players[aid.owner]}'s {words}"
        if aid.owner in _names(self.game)[0]:
            return self.name(aid.owner)
        return f"the {words}"

    def space(self, name: str) -> str:
        """A named space or slot as players say it: ``space 3``, ``the centre slot``, ``jungle position 3``."""
        return score_pad(self.game).space(name)

    def where(self, area: str | None) -> str:
        """``in Ana's park``, ``on Canopy Layer 1``, ``among Ana's earned cards``."""
        if not area:
            return "beside the board"
        prep = dict(score_pad(self.game).prepositions).get(parse_area(area).kind, "in")
        return f"{prep} {self.area(area)}"

    def refusal(self, error: StateError) -> str:
        """A refused state in players' words: ``Zebra: it lies where Badger lies``."""
        if error.component not in _names(self.game)[0]:
            return error.reason
        return f"{self.name(error.component)}: {error.reason}"
