"""Storage faults: a read-only instance folder at start-up, a disk that fills while serving.

``companion serve`` on a read-only folder says so in one line and exits 2. A server whose
files cannot grow any more (the process's file-size limit: writes fail as on a full disk)
answers every write ``503 storage_unavailable`` with ``Retry-After``, keeps answering every
read, and loses nothing: started again with room, it goes on from the same timeline.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from .crash import new_play, states
from .load import Browser
from .served import COMMAND, free_port, run_cli, serve


def _read_only_command(folder: Path, args: list[str]) -> list[str]:
    """The command run with ``folder`` read-only for it, even for root (a read-only bind mount)."""
    if os.geteuid() != 0:
        folder.chmod(0o555)
        return [sys.executable, "-c", COMMAND, *args]
    unshare = shutil.which("unshare")
    if unshare is None or subprocess.run([unshare, "-rm", "true"], capture_output=True, check=False).returncode:
        pytest.skip("running as root without user namespaces: no way to make a folder read-only")
    script = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"'
    return [unshare, "-rm", "sh", "-c", script, "sh", str(folder), sys.executable, "-c", COMMAND, *args]


@pytest.mark.parametrize("with_games", [False, True])
def test_serve_on_a_read_only_instance_folder_says_so_in_one_line(tmp_path: Path, with_games: bool) -> None:
    folder = tmp_path / "instance"
    if with_games:
        new_play(folder)
    else:
        folder.mkdir()
    args = ["serve", "--port", str(free_port()), "--instance", str(folder)]
    done = subprocess.run(_read_only_command(folder, args), capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONWARNINGS": "ignore"}, check=False)
    folder.chmod(0o755)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines == [f"companion: the instance folder {folder} is read-only: choose another with --instance DIR"]
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_serve_on_an_instance_path_that_is_a_file(tmp_path: Path) -> None:
    folder = tmp_path / "instance"
    folder.write_text("not a folder")
    done = run_cli(["serve", "--port", str(free_port()), "--instance", str(folder)])
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and str(folder) in done.stderr
    assert "Traceback" not in done.stderr


def _limited(limit: int):  # type: ignore[no-untyped-def]
    """A preexec hook: files of this process cannot grow past ``limit`` bytes (as on a full disk)."""

    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails instead of killing the server
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def test_a_disk_that_fills_refuses_writes_with_503_and_keeps_reads(tmp_path: Path) -> None:
    instance = tmp_path / "instance"
    play = new_play(instance)
    moves = states()
    limit = (instance / "companion.sqlite").stat().st_size + 48 * 1024
    acknowledged: list[int] = []
    answers: list[tuple[int, str]] = []
    with serve(instance, preexec=_limited(limit)) as served:
        browser = Browser(served.base)
        for _ in range(200):
            status, raw = browser.open("GET", f"/api/plays/{play}")
            assert status == 200
            current = json.loads(raw)["current"]
            seq = current["seq"] if current else 0
            status, body = browser.post_json(f"/api/plays/{play}/moves",
                                             {"state": moves[seq % 3], "based_on": seq, "accept_violations": True})
            if status == 201:
                acknowledged.append(body["accepted"]["seq"])
                continue
            answers.append((status, body.get("error", "")))
            break
        assert answers == [(503, "storage_unavailable")], answers
        assert acknowledged, "no move fitted before the disk filled"
        # Every write is refused the same way, with a sentence and Retry-After ...
        for method, path, doc in (
            ("POST", f"/api/plays/{play}/moves", {"state": moves[0], "accept_violations": True}),
            ("POST", "/api/plays", {"game": "habitats", "players": [{"id": "ana"}, {"id": "bo"}]}),
        ):
            status, body = browser.post_json(path, doc)
            assert status == 503 and body["error"] == "storage_unavailable", (path, body)
            assert "nothing was changed" in body["message"]
        # ... and every read still answers.
        for path in (f"/api/plays/{play}", f"/api/plays/{play}/states", "/api/plays", f"/api/plays/{play}/export",
                     "/history/", f"/history/{play}", "/", "/healthz"):
            status, _ = browser.open("GET", path)
            assert status == 200, path
        status, raw = browser.open("GET", f"/api/plays/{play}/states")
        assert [s["seq"] for s in json.loads(raw)["states"]] == acknowledged
    # Given room again, the same game goes on from the same timeline.
    with serve(instance) as served:
        browser = Browser(served.base)
        seq = acknowledged[-1]
        status, body = browser.post_json(f"/api/plays/{play}/moves",
                                         {"state": moves[seq % 3], "based_on": seq, "accept_violations": True})
        assert status == 201 and body["accepted"]["seq"] == seq + 1
    conn = sqlite3.connect(instance / "companion.sqlite")
    try:
        assert [r[0] for r in conn.execute("PRAGMA integrity_check")] == ["ok"]
        found = [r[0] for r in conn.execute("SELECT seq FROM snapshot WHERE play_id = ? ORDER BY seq", (play,))]
    finally:
        conn.close()
    assert found == [*acknowledged, acknowledged[-1] + 1]


def test_the_retry_after_header_of_a_storage_fault(tmp_path: Path) -> None:
    import urllib.error
    import urllib.request

    instance = tmp_path / "instance"
    play = new_play(instance)
    limit = (instance / "companion.sqlite").stat().st_size + 40 * 1024
    with serve(instance, preexec=_limited(limit)) as served:
        browser = Browser(served.base)
        for n in range(200):
            req = urllib.request.Request(
                f"{served.base}/api/plays/{play}/moves", method="POST",
                data=json.dumps({"state": states()[n % 3], "accept_violations": True}).encode(),
                headers={"Content-Type": "application/json", "X-CSRF-Token": browser.token,
                         "Accept": "application/json"},
            )
            try:
                browser.opener.open(req, timeout=30).close()
            except urllib.error.HTTPError as exc:
                assert exc.code == 503 and exc.headers["Retry-After"] == "30"
                exc.close()
                break
        else:
            raise AssertionError("the disk never filled")
