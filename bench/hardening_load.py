"""Long concurrency run: four clients post frames and save moves for a minute.

    python bench/hardening_load.py [SECONDS] [CLIENTS]

Prints how many frames and saves went through; exit status 0 when no client saw a lock
or a server error and every acknowledged save is in the database.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.hardening.crash import database_facts, new_play  # noqa: E402
from tests.hardening.load import live_server, run_clients  # noqa: E402
from tests.hardening.scenes import hostile_scene  # noqa: E402


def main(argv: list[str]) -> int:
    seconds = float(argv[0]) if argv else 60.0
    clients = int(argv[1]) if len(argv) > 1 else 4
    image = hostile_scene("habitats", "T010", ["https://example.org/a", "<b>x</b>"], seed=1).jpeg
    with tempfile.TemporaryDirectory() as tmp:
        instance = Path(tmp) / "instance"
        play = new_play(instance)
        with live_server(instance) as base:
            report = run_clients(base, play, image, clients=clients, seconds=seconds)
        facts = database_facts(instance, play)
    stored = facts["stored"]
    missing = sorted(seq for seq, digest in report.saves.items() if stored.get(seq) != digest)
    ok = not report.bad and not missing and facts["integrity"] == ["ok"] and len(stored) == len(report.saves)
    print(json.dumps({
        "seconds": seconds, "clients": clients, "frames": report.frames, "saves": len(report.saves),
        "stale_refusals": report.stale, "missing": missing, "problems": report.bad[:5], "ok": ok,
    }, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
