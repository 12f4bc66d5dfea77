"""Long crash-safety run: SIGKILL a move writer many times, then check the store.

    python bench/hardening_sigkill.py [KILLS] [SEED]

The test suite runs 100 kills; this runs 1000 by default and prints what it found.
Exit status 0 when the database is intact and every acknowledged move is stored.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.hardening.crash import database_facts, kill_writers, new_play  # noqa: E402


def main(argv: list[str]) -> int:
    kills = int(argv[0]) if argv else 1000
    seed = int(argv[1]) if len(argv) > 1 else 7
    with tempfile.TemporaryDirectory() as tmp:
        instance = Path(tmp) / "instance"
        play = new_play(instance)
        report = kill_writers(instance, play, kills=kills, seed=seed)
        facts = database_facts(instance, play)
    stored = facts["stored"]
    lost = sorted(seq for seq, digest in report.acks.items() if stored.get(seq) != digest)
    ok = facts["integrity"] == ["ok"] and not facts["foreign_keys"] and not lost and not report.errors
    ok = ok and sorted(stored) == list(range(1, len(stored) + 1))
    print(json.dumps({
        "kills": report.kills, "seconds": round(report.seconds, 1), "acknowledged": len(report.acks),
        "stored": len(stored), "lost": lost, "integrity": facts["integrity"], "errors": report.errors[:5],
        "ok": ok,
    }, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
