"""``companion serve``: localhost by default; ``--lan`` listens on the network behind a join code."""

from __future__ import annotations

import contextlib
import errno
import ipaddress
import secrets
import socket
import sqlite3
import sys
from typing import Any

from .security import is_loopback

JOIN_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud across a table
JOIN_LENGTH = 6
EXIT_USAGE = 2


def join_code() -> str:
    return "".join(secrets.choice(JOIN_ALPHABET) for _ in range(JOIN_LENGTH))


def local_addresses() -> list[str]:
    """This machine's network addresses, from its interfaces and its name (nothing is sent)."""
    found: list[str] = []
    candidates = list(_interface_addresses())
    with contextlib.suppress(OSError):
        candidates += [str(info[4][0]) for info in socket.getaddrinfo(socket.gethostname(), None)]
    for addr in candidates:
        try:
            ip = ipaddress.ip_address(addr.split("%", 1)[0])
        except ValueError:
            continue
        if not ip.is_loopback and not ip.is_link_local and addr not in found:
            found.append(addr)
    return found


def _interface_addresses() -> list[str]:
    """IPv4 address of each network interface (Linux ioctl; elsewhere none)."""
    try:
        import fcntl
        import struct
    except ImportError:  # pragma: no cover - not on Windows
        return []
    siocgifaddr = 0x8915
    out = []
    for _index, name in socket.if_nameindex():
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                packed = fcntl.ioctl(s.fileno(), siocgifaddr, struct.pack("256s", name[:15].encode()))
        except OSError:
            continue
        out.append(socket.inet_ntoa(packed[20:24]))
    return out


def allowed_hosts(host: str, network: bool) -> tuple[str, ...]:
    names = {"localhost", "127.0.0.1", "::1"}
    if network:
        hostname = socket.gethostname().lower()
        names |= {hostname, f"{hostname}.local", *local_addresses()}
        if host not in ("0.0.0.0", "::"):
            names.add(host.lower())
    return tuple(sorted(names))


def tls_certificate(instance_path: str, host: str) -> tuple[str, str]:
    """A self-signed certificate kept in the instance folder, so phones may open their camera.

    Browsers give ``getUserMedia`` only to pages on localhost or HTTPS; a phone joining over
    the network needs HTTPS, and a certificate made once keeps the trust players gave it.
    """
    import os

    from werkzeug.serving import make_ssl_devcert

    base = os.path.join(instance_path, "tls")
    cert, key = base + ".crt", base + ".key"
    if not (os.path.exists(cert) and os.path.exists(key)):
        os.makedirs(instance_path, exist_ok=True)
        cert, key = make_ssl_devcert(base, host=host)
        os.chmod(key, 0o600)
    return cert, key


def _fail(message: str) -> int:
    print(f"companion: {message}", file=sys.stderr)
    return EXIT_USAGE


def serve(
    host: str = "127.0.0.1",
    port: int = 5000,
    lan: bool = False,
    camera: int | None = None,
    debug: bool = False,
    https: bool = False,
    instance: str | None = None,
) -> int:
    """Run the app until interrupted; returns a process exit code."""
    from werkzeug.serving import make_server

    from . import create_app
    from .camera import HostCamera
    from .instance import InstanceError, chosen_folder
    from .scanslots import share_arenas

    if lan and (is_loopback(host) or host == "localhost"):
        host = "0.0.0.0"
    network = not (is_loopback(host) or host == "localhost")
    if network and not lan:
        return _fail(f"listening on {host} exposes the app to the network: add --lan (join code)")
    if debug and network:
        return _fail("--debug runs code from the browser: it never listens on the network")
    if not 1 <= port <= 65535:
        return _fail(f"port must be 1-65535, got {port}")
    config: dict[str, Any] = {"ALLOWED_HOSTS": allowed_hosts(host, network), "LAN": network}
    shown = "localhost" if not network else (local_addresses() or [socket.gethostname()])[0]
    if ":" in shown:
        shown = f"[{shown}]"
    scheme = "https" if https else "http"
    if network:
        code = join_code()
        config["JOIN_CODE"] = code
        config["JOIN_URLS"] = [
            f"{scheme}://{a if ':' not in a else f'[{a}]'}:{port}/join?code={code}"
            for a in (local_addresses() or [socket.gethostname()])
        ]
    if camera is not None:
        try:
            HostCamera(camera).check()
        except OSError as exc:
            return _fail(str(exc))
        config["HOST_CAMERA"] = camera
    if https:
        config["SESSION_COOKIE_SECURE"] = True
    folder, chosen = chosen_folder(instance)
    try:
        config.update(_instance_config(folder, chosen))
        app = create_app(config)
    except InstanceError as exc:
        return _fail(str(exc))
    except (OSError, sqlite3.Error) as exc:
        return _fail(f"the saved games in {folder} cannot be opened ({exc})")
    app.debug = debug
    ssl_context: tuple[str, str] | None = None
    if https:
        try:
            ssl_context = tls_certificate(app.instance_path, shown.strip("[]"))
        except (ImportError, OSError) as exc:
            return _fail(f"cannot make the HTTPS certificate ({exc})")
    # The port is taken before anything says the companion is on it: a busy port is one
    # line and status 2, like every other mistake in what the command was given.
    try:
        listener = _listen(host, port)
    except OSError as exc:
        _stop_camera(app)
        hint = "; is the companion already running? Try --port" if exc.errno == errno.EADDRINUSE else ""
        return _fail(f"cannot listen on {host}:{port} ({exc.strerror or exc}){hint}")
    share_arenas()
    application: Any = app
    if debug:
        from werkzeug.debug import DebuggedApplication

        application = DebuggedApplication(app, evalex=True)
    try:
        server = make_server(
            host, port, application, threaded=True, ssl_context=ssl_context, fd=listener.fileno()
        )
    finally:
        listener.close()  # the server holds its own copy of the socket
    print(f"Table companion on {scheme}://{shown}:{port}/  (Ctrl+C to stop)", flush=True)
    if https:
        print("HTTPS with a certificate made on this machine: browsers ask once to trust it.", flush=True)
    if network:
        print(
            f"Join code for phones and tablets: {config['JOIN_CODE']} (also shown as a QR code on this screen)",
            flush=True,
        )
    if camera is not None:
        print(f"Host camera {camera}: every browser sees its frames with the same overlay", flush=True)
    if app.config.get("INSTANCE_MOVED"):
        print(app.config["INSTANCE_MOVED"].message(), flush=True)
    print(f"Saved games are kept in {app.config['DATABASE']}", flush=True)
    try:
        server.serve_forever()  # returns on Ctrl+C, the socket closed
    finally:
        _stop_camera(app)
    return 0


def _instance_config(folder: Any, chosen: bool) -> dict[str, Any]:
    """The instance folder checked for writing (InstanceError names it), old saved games moved in."""
    from .instance import check_writable, move_old

    check_writable(folder)
    moved = None if chosen else move_old(folder)
    return {"INSTANCE_PATH": str(folder), "INSTANCE_MOVED": moved}


def _listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port, or the OSError saying why not."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def _stop_camera(app: Any) -> None:
    cam = app.extensions.get("host_camera")
    if cam is not None:
        cam.stop()
