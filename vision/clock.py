"""Stage timings of one scan, and counts of what its later looks read, kept apart."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


class StageClock:
    """Milliseconds per stage, summed over a stage's runs (the layout reads once per look),
    and counts of markers found by each kind of later look."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.timings: dict[str, float] = {}
        self.counts: dict[str, int] = {}

    def run(self, stage: str, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """``fn(*args, **kwargs)``, its time added to ``stage``."""
        t = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            self.timings[stage] = self.timings.get(stage, 0.0) + (time.perf_counter() - t) * 1000.0

    def count(self, what: str, n: int) -> None:
        if n:
            self.counts[what] = self.counts.get(what, 0) + n

    def total(self) -> dict[str, float]:
        """The stage timings with the whole scan's as ``total``."""
        return {**self.timings, "total": (time.perf_counter() - self.started) * 1000.0}
