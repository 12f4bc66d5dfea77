"""``companion serve`` really serves: the README's first command opens on a working home page."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_companion_serve_answers_on_localhost(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "PYTHONWARNINGS": "ignore", "COMPANION_INSTANCE": str(tmp_path / "instance")}
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; from companion.cli import main; sys.exit(main(sys.argv[1:]))",
         "serve", "--port", str(port)],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(base + "/healthz", timeout=2) as r:
                    assert r.status == 200
                    break
            except (urllib.error.URLError, ConnectionError):
                assert proc.poll() is None, proc.communicate()[1]
                assert time.monotonic() < deadline, "server did not come up"
                time.sleep(0.2)
        with urllib.request.urlopen(base + "/", timeout=5) as r:
            page = r.read().decode()
        assert "Try a game from its sample photo" in page and "Habitats" in page
        req = urllib.request.Request(base + "/", headers={"Host": "attacker.example"})
        try:
            urllib.request.urlopen(req, timeout=5)
            raise AssertionError("a foreign Host header was served")
        except urllib.error.HTTPError as exc:
            assert exc.code == 400
            exc.close()
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=10)
    assert f"http://localhost:{port}/" in out
    assert (tmp_path / "instance" / "companion.sqlite").is_file()
    assert (tmp_path / "instance" / "secret_key").is_file()


def test_companion_serve_https_keeps_its_certificate(tmp_path: Path) -> None:
    """``--https`` serves TLS with a certificate made once and kept in the instance folder."""
    import ssl

    port = free_port()
    env = {**os.environ, "PYTHONWARNINGS": "ignore", "COMPANION_INSTANCE": str(tmp_path / "instance")}
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; from companion.cli import main; sys.exit(main(sys.argv[1:]))",
         "serve", "--port", str(port), "--https"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # self-signed: the browser asks the players once
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(
                    f"https://127.0.0.1:{port}/healthz", timeout=2, context=context
                ) as r:
                    assert r.status == 200
                    break
            except (urllib.error.URLError, ConnectionError, ssl.SSLError):
                assert proc.poll() is None, proc.communicate()[1]
                assert time.monotonic() < deadline, "server did not come up"
                time.sleep(0.2)
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2)
            raise AssertionError("plain HTTP was answered on the HTTPS port")
        except (urllib.error.URLError, ConnectionError):
            pass
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=10)
    assert f"https://localhost:{port}/" in out
    key = tmp_path / "instance" / "tls.key"
    assert (tmp_path / "instance" / "tls.crt").is_file() and key.is_file()
    assert key.stat().st_mode & 0o077 == 0


def test_companion_serve_on_a_busy_port_says_so_in_one_line(tmp_path: Path) -> None:
    """A port already taken: status 2 and one line, never a claim that the companion is on it."""
    env = {**os.environ, "PYTHONWARNINGS": "ignore", "COMPANION_INSTANCE": str(tmp_path / "instance")}
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        proc = subprocess.run(
            [sys.executable, "-c", "import sys; from companion.cli import main; sys.exit(main(sys.argv[1:]))",
             "serve", "--port", str(port)],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60,
        )
    assert proc.returncode == 2
    assert "Table companion on" not in proc.stdout
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("companion: cannot listen on 127.0.0.1:") and "--port" in lines[0]


def test_companion_serve_prints_only_its_own_start_lines(tmp_path: Path) -> None:
    """The table companion is the product: no web-framework 'development server' warning."""
    port = free_port()
    env = {**os.environ, "PYTHONWARNINGS": "ignore", "COMPANION_INSTANCE": str(tmp_path / "instance")}
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; from companion.cli import main; sys.exit(main(sys.argv[1:]))",
         "serve", "--port", str(port)],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as r:
                    assert r.status == 200
                    break
            except (urllib.error.URLError, ConnectionError):
                assert proc.poll() is None, proc.communicate()[1]
                assert time.monotonic() < deadline, "server did not come up"
                time.sleep(0.2)
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=10)
    assert out.splitlines()[0] == f"Table companion on http://localhost:{port}/  (Ctrl+C to stop)"
    # Where the history lives is said once: with `pip install .` it is inside the environment.
    assert f"Saved games are kept in {tmp_path / 'instance' / 'companion.sqlite'}" in out
    assert "development server" not in out + err
