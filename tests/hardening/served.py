"""``companion serve`` in its own process, as players start it: a real server on the loopback.

Its memory is its own (read from /proc), it can be killed, started read-only or on a disk
that fills; the tests talk to it over HTTP with ``load.Browser``.
"""

from __future__ import annotations

import os
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

COMMAND = "import sys; from companion.cli import main; sys.exit(main(sys.argv[1:]))"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Served:
    """A running ``companion serve``: its process, address and what it printed so far."""

    proc: subprocess.Popen[str]
    base: str
    stdout: str = ""
    """What it printed, once it has stopped."""
    stderr: str = ""

    def status_kib(self, field: str) -> int:
        """A size line of /proc/PID/status (VmRSS, VmHWM), in KiB."""
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
        raise LookupError(field)

    def reset_peak(self) -> None:
        """Start counting the peak resident size (VmHWM) again from now."""
        Path(f"/proc/{self.proc.pid}/clear_refs").write_text("5")


def run_cli(args: list[str], *, env: dict[str, str] | None = None, cwd: Path | None = None,
            timeout: float = 60, python: str = sys.executable) -> subprocess.CompletedProcess[str]:
    return subprocess.run([python, "-c", COMMAND, *args], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, check=False)


def wait_up(base: str, proc: subprocess.Popen[str], timeout_s: float = 60) -> None:
    """Until /healthz answers (or the process ended: its stderr is the failure)."""
    context = ssl._create_unverified_context() if base.startswith("https") else None
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with urllib.request.urlopen(base + "/healthz", timeout=2, context=context) as r:
                if r.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        if proc.poll() is not None:
            raise AssertionError(f"companion serve ended: {proc.communicate()[1][-2000:]}")
        if time.monotonic() > deadline:
            raise AssertionError("companion serve did not come up")
        time.sleep(0.2)


@contextmanager
def serve(instance: Path | None, *extra: str, env: dict[str, str] | None = None,
          preexec: Callable[[], None] | None = None, python: str = sys.executable,
          https: bool = False, inherit_env: bool = True) -> Iterator[Served]:
    """``companion serve --instance DIR`` on a free loopback port until the block ends.

    Without ``instance`` it uses its default folder (``env`` decides where that is); with
    ``inherit_env=False``, ``env`` is the whole environment.
    """
    port = free_port()
    full_env = {**(os.environ if inherit_env else {}), "PYTHONWARNINGS": "ignore", **(env or {})}
    where = ["--instance", str(instance)] if instance is not None else []
    args = [python, "-c", COMMAND, "serve", "--port", str(port), *where, *extra]
    proc = subprocess.Popen(args, env=full_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=preexec)
    served = Served(proc, f"{'https' if https else 'http'}://127.0.0.1:{port}")
    try:
        wait_up(served.base, proc)
        yield served
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
        try:
            served.stdout, served.stderr = proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            served.stdout, served.stderr = proc.communicate()


@contextmanager
def live(instance: Path, **config: object) -> Iterator[tuple[str, Any]]:
    """The app with ``config`` on a real threaded server in this process; yields its address and app."""
    import logging
    import threading

    from werkzeug.serving import make_server

    from companion.app import create_app

    app = create_app({"INSTANCE_PATH": str(instance), **config})
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{srv.server_port}", app
    finally:
        srv.shutdown()
        thread.join(timeout=10)
