"""At most a few scans at once: the others wait in a short queue, beyond it a 503.

A scan decodes a photo and runs the detectors on it: memory and cores are what it costs.
``SCAN_SLOTS`` scans run at once (each within the photo decoder's budget), up to
``SCAN_QUEUE`` more wait their turn, and a request beyond those is answered
``503 busy`` with ``Retry-After`` at once instead of piling up.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from flask import Flask, current_app

from .errors import AppError

#: Scans running at once (two cores on a Pi 4's budget; each is one decoded photo).
SCAN_SLOTS = 2
#: Scans waiting for a slot before new ones are turned away.
SCAN_QUEUE = 16
#: What a turned-away client is told to wait, in seconds.
RETRY_AFTER_S = 2


#: glibc's mallopt parameter for the number of malloc arenas.
_M_ARENA_MAX = -8


def _libc(function: str) -> Callable[..., int] | None:
    """A glibc allocator function, or None elsewhere (musl, macOS, Windows)."""
    name = ctypes.util.find_library("c")
    try:
        return getattr(ctypes.CDLL(name), function) if name else None  # type: ignore[no-any-return]
    except (OSError, AttributeError):
        return None


#: ``malloc_trim`` gives the pages freed by finished scans back to the system: glibc keeps
#: freed pages in its arenas, and memory resident after a burst of photos stays near its peak.
_TRIM = _libc("malloc_trim")


def share_arenas(count: int = 2) -> None:
    """Let the server's threads share ``count`` malloc arenas (glibc makes up to 8 per core).

    Called once before the server starts its threads: a photo freed by one thread's scan is
    then room for the next thread's, instead of resident memory in an arena of its own.
    """
    mallopt = _libc("mallopt")
    if mallopt is not None:
        mallopt(_M_ARENA_MAX, count)


class ScanSlots:
    """A semaphore for the running scans behind a bounded count of admitted ones."""

    def __init__(self, slots: int, queue: int) -> None:
        if slots < 1 or queue < 0:
            raise ValueError("scan slots must be at least 1 and the queue not negative")
        self.slots = slots
        self.queue = queue
        self._admitted = threading.BoundedSemaphore(slots + queue)
        self._running = threading.Semaphore(slots)
        self._lock = threading.Lock()
        self._inside = 0

    @property
    def inside(self) -> int:
        """Scans running or waiting now."""
        with self._lock:
            return self._inside

    @contextmanager
    def held(self) -> Iterator[None]:
        """Run the body in a slot, waiting in the queue if needed; AppError 503 when it is full."""
        if not self._admitted.acquire(blocking=False):
            raise AppError(
                503, "busy",
                f"the companion is reading {self.slots + self.queue} photos already: try again in a moment",
                retry_after=RETRY_AFTER_S,
            )
        with self._lock:
            self._inside += 1
        try:
            with self._running:
                yield
        finally:
            with self._lock:
                self._inside -= 1
                idle = self._inside == 0
            self._admitted.release()
            if idle and _TRIM is not None:
                _TRIM(0)


def slots() -> ScanSlots:
    return current_app.extensions["scan_slots"]  # type: ignore[no-any-return]


@contextmanager
def scan_slot() -> Iterator[None]:
    """This request's turn to read a photo (read the upload inside it, not before)."""
    with slots().held():
        yield


def init_app(app: Flask) -> None:
    app.config.setdefault("SCAN_SLOTS", SCAN_SLOTS)
    app.config.setdefault("SCAN_QUEUE", SCAN_QUEUE)
    app.extensions["scan_slots"] = ScanSlots(int(app.config["SCAN_SLOTS"]), int(app.config["SCAN_QUEUE"]))
