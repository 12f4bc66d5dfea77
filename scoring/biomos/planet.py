"""Planet geometry: the reading sequence of the spaces, biome patterns and adjacency.

A planet's spaces P1..P12 lie on an open ring; on the advanced side the recesses R1 and
R2 sit in the gap between P12 and P1 and close the ring once both are filled. Patterns
and planetary events read the tokens along that sequence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .catalog import PatternSymbol, Side, Terrain, TerrainToken

PLANET_SPACES: tuple[str, ...] = tuple(f"P{i}" for i in range(1, 13))
RECESSES: tuple[str, ...] = ("R1", "R2")
MOON = "MOON"
#: The larger space that receives the setup compensation token.
LARGER_SPACE = "P6"
CAPACITY = {Side.DISCOVERY: 13, Side.ADVANCED: 15}


def spaces_of(side: Side) -> tuple[str, ...]:
    """Every space a token may occupy on that side of a planet board."""
    return PLANET_SPACES + (RECESSES if side is Side.ADVANCED else ()) + (MOON,)


@dataclass(frozen=True, slots=True)
class Run:
    """Consecutive occupied spaces in reading order; ``circular`` when the last touches the first."""

    spaces: tuple[str, ...]
    circular: bool = False


@dataclass(frozen=True, slots=True)
class Planet:
    """One player's planet at one moment: the terrain token on each occupied space."""

    side: Side
    tokens: Mapping[str, TerrainToken]

    def terrain(self, space: str) -> Terrain | None:
        token = self.tokens.get(space)
        return token.terrain if token else None

    @property
    def moon(self) -> TerrainToken | None:
        return self.tokens.get(MOON)

    def surface(self) -> tuple[tuple[str, TerrainToken], ...]:
        """Tokens on the planet itself (planet spaces and recesses, never the Moon), in order."""
        order = PLANET_SPACES + RECESSES
        return tuple((s, self.tokens[s]) for s in order if s in self.tokens)

    @property
    def is_full(self) -> bool:
        return len(self.tokens) >= CAPACITY[self.side]


def reading_sequence(side: Side, occupied: frozenset[str] | set[str]) -> tuple[tuple[str, ...], bool]:
    """The spaces in reading order and whether the sequence is a closed ring.

    Discovery: P1..P12. Advanced: the recesses join the sequence when filled; with both
    filled the ring closes (R2 touches P1).
    """
    if side is Side.DISCOVERY:
        return PLANET_SPACES, False
    r1, r2 = "R1" in occupied, "R2" in occupied
    if r1 and r2:
        return PLANET_SPACES + RECESSES, True
    if r1:
        return PLANET_SPACES + ("R1",), False
    if r2:
        return ("R2",) + PLANET_SPACES, False
    return PLANET_SPACES, False


def runs(planet: Planet, *, gaps_ignored: bool = False) -> tuple[Run, ...]:
    """Stretches of occupied spaces a pattern may span; an empty space breaks a stretch
    unless ``gaps_ignored`` (then the occupied spaces form one stretch)."""
    occupied = frozenset(s for s in planet.tokens if s != MOON)
    seq, circular = reading_sequence(planet.side, occupied)
    filled = tuple(s for s in seq if s in occupied)
    if not filled:
        return ()
    if gaps_ignored or len(filled) == len(seq):
        return (Run(filled, circular),)
    if circular:
        # start just after an empty space so that a stretch crossing R2 -> P1 stays whole
        first_empty = next(i for i, s in enumerate(seq) if s not in occupied)
        seq = seq[first_empty + 1 :] + seq[: first_empty + 1]
    out: list[Run] = []
    current: list[str] = []
    for s in seq:
        if s in occupied:
            current.append(s)
        elif current:
            out.append(Run(tuple(current)))
            current = []
    if current:
        out.append(Run(tuple(current)))
    return tuple(out)


def _matches(planet: Planet, window: Sequence[str], pattern: Sequence[PatternSymbol]) -> bool:
    return all(sym is None or planet.terrain(s) is sym for s, sym in zip(window, pattern, strict=True))


def find_pattern(
    planet: Planet, pattern: Sequence[PatternSymbol], *, gaps_ignored: bool = False
) -> tuple[str, ...] | None:
    """The spaces of the first window showing ``pattern`` (either reading direction), or None.

    A joker matches any token but never an empty space.
    """
    length = len(pattern)
    reverse = tuple(reversed(pattern))
    for run in runs(planet, gaps_ignored=gaps_ignored):
        n = len(run.spaces)
        if length > n:
            continue
        starts = range(n) if run.circular else range(n - length + 1)
        for start in starts:
            window = tuple(run.spaces[(start + k) % n] for k in range(length))
            if _matches(planet, window, pattern) or _matches(planet, window, reverse):
                return window
    return None


def neighbours(planet: Planet, space: str, *, gaps_ignored: bool = False) -> tuple[str, ...]:
    """Occupied spaces next to ``space`` along the reading sequence (the Moon has none)."""
    out: list[str] = []
    for run in runs(planet, gaps_ignored=gaps_ignored):
        if space not in run.spaces:
            continue
        i = run.spaces.index(space)
        n = len(run.spaces)
        for j in (i - 1, i + 1):
            if run.circular:
                j %= n
            if 0 <= j < n and j != i and run.spaces[j] not in out:
                out.append(run.spaces[j])
    return tuple(out)


def span_text(window: Sequence[str]) -> str:
    """``P1-P4`` for a window of spaces (first and last)."""
    return window[0] if len(window) == 1 else f"{window[0]}-{window[-1]}"
