"""Saved games live in the user's data folder, whichever way the package was installed.

A virtualenv recreated (an ordinary step) keeps every saved game; a folder left in an old
place (Flask's default inside the virtualenv) is moved once, with a line saying so.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import platformdirs

from companion.app import instance as instances

from .crash import new_play
from .load import Browser
from .served import serve


def _clean_env(tmp_path: Path) -> dict[str, str]:
    """No COMPANION_INSTANCE, and the data folder under tmp_path (XDG on Linux)."""
    env = {k: v for k, v in os.environ.items() if k != instances.ENV_VAR}
    env["XDG_DATA_HOME"] = str(tmp_path / "xdg")
    env["HOME"] = str(tmp_path / "home")
    return env


def _venv(path: Path) -> str:
    """A fresh virtualenv that sees this checkout and the test environment's packages."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True, timeout=120)
    python = path / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    checkout = Path(__file__).resolve().parents[2]
    ours = sysconfig.get_paths()["purelib"]
    Path(site, "companion_test.pth").write_text(f"{checkout}\n{ours}\n")
    return str(python)


def _plays(base: str) -> list[str]:
    status, raw = Browser(base).open("GET", "/api/plays")
    assert status == 200
    return [p["title"] for p in json.loads(raw)["plays"]]


def test_saved_games_survive_a_recreated_virtualenv(tmp_path: Path) -> None:
    env = _clean_env(tmp_path)
    data = tmp_path / "xdg" / "table-companion"
    first = tmp_path / "venv"
    python = _venv(first)
    old = first / "var" / "companion.app-instance"  # where the companion kept games before
    new_play(old)
    with serve(None, env=env, python=python, inherit_env=False) as served:
        assert len(_plays(served.base)) == 1
    out = served.stdout
    assert f"Moved the saved games from {old} to {data}" in out
    assert f"Saved games are kept in {data / 'companion.sqlite'}" in out
    assert not (old / "companion.sqlite").exists() and (data / "companion.sqlite").is_file()
    subprocess.run(["rm", "-rf", str(first)], check=True)
    python = _venv(tmp_path / "venv2")
    with serve(None, env=env, python=python, inherit_env=False) as served:
        assert len(_plays(served.base)) == 1
    out = served.stdout
    assert "Moved" not in out


def test_the_default_folder_is_the_platforms_data_folder(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv(instances.ENV_VAR, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    folder, chosen = instances.chosen_folder()
    assert folder == Path(platformdirs.user_data_dir("table-companion", appauthor=False))
    assert folder == tmp_path / "xdg" / "table-companion" and not chosen
    monkeypatch.setenv(instances.ENV_VAR, str(tmp_path / "env"))
    assert instances.chosen_folder() == (tmp_path / "env", True)
    assert instances.chosen_folder(tmp_path / "flag") == (tmp_path / "flag", True)
    checkout = Path(__file__).resolve().parents[2]
    assert checkout / "instance" in instances.old_places()  # an editable install's old folder
    assert Path(sys.prefix) / "var" / "companion.app-instance" in instances.old_places()


def test_an_old_folder_is_moved_once_and_never_merged(tmp_path: Path) -> None:
    old, target = tmp_path / "old", tmp_path / "data"
    new_play(old)
    moved = instances.move_old(target, [tmp_path / "missing", old])
    assert moved is not None and moved.source == old and moved.target == target
    assert (target / "companion.sqlite").is_file() and (target / "secret_key").is_file()
    assert not (old / "companion.sqlite").exists()
    new_play(old)  # a second old folder appears: the data folder already has games
    assert instances.move_old(target, [old]) is None
    assert (old / "companion.sqlite").is_file()
