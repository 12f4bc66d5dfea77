"""Where saved games live: the user's data folder, whichever way the package was installed.

Flask's default instance folder depends on the installation (``<venv>/var/...`` for an
installed package, ``./instance`` beside an editable checkout), so recreating a virtualenv
or reinstalling lost or hid every saved game. The companion keeps them in the platform's
conventional data folder instead (``platformdirs``), moves a folder found in one of the old
places there once, and takes ``--instance DIR`` or ``COMPANION_INSTANCE`` to choose another.
"""

from __future__ import annotations

import errno
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import platformdirs

APP_NAME = "table-companion"
ENV_VAR = "COMPANION_INSTANCE"
DATABASE = "companion.sqlite"
#: Files an instance folder holds (the database with its WAL journal, key and certificate).
KEPT = (DATABASE, DATABASE + "-wal", DATABASE + "-shm", "secret_key", "tls.crt", "tls.key")


class InstanceError(Exception):
    """The instance folder cannot be used (read-only, not a folder...); one sentence."""


@dataclass(frozen=True, slots=True)
class Moved:
    """An instance folder found in an old place and moved to the data folder."""

    source: Path
    target: Path

    def message(self) -> str:
        return f"Moved the saved games from {self.source} to {self.target} (their new home)."


def data_folder() -> Path:
    """The platform's per-user data folder for the companion (e.g. ~/.local/share/table-companion)."""
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def chosen_folder(explicit: str | os.PathLike[str] | None = None) -> tuple[Path, bool]:
    """The instance folder and whether the user chose it (``--instance`` or the environment)."""
    if explicit:
        return Path(explicit).expanduser(), True
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env).expanduser(), True
    return data_folder(), False


def old_places() -> list[Path]:
    """Where earlier versions kept saved games: Flask's default instance folders."""
    checkout = Path(__file__).resolve().parents[2]
    return [Path(sys.prefix) / "var" / "companion.app-instance", checkout / "instance"]


def move_old(target: Path, places: list[Path] | None = None) -> Moved | None:
    """Move the first old instance folder holding a database to ``target``, once.

    Nothing moves when ``target`` already holds a database: two stores are never merged
    and the old one is left where it is.
    """
    if (target / DATABASE).exists():
        return None
    for source in places if places is not None else old_places():
        if source.resolve() == target.resolve() or not (source / DATABASE).is_file():
            continue
        target.mkdir(parents=True, exist_ok=True)
        for name in KEPT:
            if (source / name).exists() and not (target / name).exists():
                shutil.move(str(source / name), str(target / name))
        return Moved(source, target)
    return None


def check_writable(folder: Path) -> None:
    """Make the folder if needed and prove a file can be written in it; InstanceError otherwise."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InstanceError(_why(folder, exc)) from exc
    if not folder.is_dir():
        raise InstanceError(f"the instance folder {folder} is not a folder")
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".write-check-"):
            pass
        database = folder / DATABASE
        if database.exists():
            with open(database, "r+b"):
                pass
    except OSError as exc:
        raise InstanceError(_why(folder, exc)) from exc


def _why(folder: Path, exc: OSError) -> str:
    if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return f"the instance folder {folder} is read-only: choose another with --instance DIR"
    if exc.errno == errno.ENOSPC:
        return f"the instance folder {folder} is on a full disk: free some space or choose --instance DIR"
    return f"the instance folder {folder} cannot be used ({exc.strerror or exc})"
