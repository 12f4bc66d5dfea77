"""Memory of a real server under hostile photos: the figure in docs/security.md.

    python bench/hardening_memory.py [LYING] [HOSTILE] [ROUNDS]

Starts ``companion serve`` in its own process, warms it up with one genuine scan, then
posts LYING (default 6) tiny-header JPEGs (6300 x 6300 declared in 10 kB) all at once beside
HOSTILE (default 100) files of the hostile corpus from two more clients, ROUNDS times
(default 3). Prints each round's answers and the growth of the server's peak resident size
(VmHWM after the flood minus VmRSS before it), then the peak growth of one 48-megapixel
phone photo read alone. Exit status 0 when no answer was a 5xx and every growth is within
400 MiB.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.hardening.load import Browser  # noqa: E402
from tests.hardening.memory import _form, flood, phone_photo  # noqa: E402
from tests.hardening.served import serve  # noqa: E402

LIMIT_MIB = 400


def main(argv: list[str]) -> int:
    lying = int(argv[0]) if argv else 6
    hostile = int(argv[1]) if len(argv) > 1 else 100
    rounds = int(argv[2]) if len(argv) > 2 else 3
    out: dict[str, object] = {"lying": lying, "hostile": hostile, "rounds": []}
    ok = True
    with tempfile.TemporaryDirectory() as tmp, serve(Path(tmp) / "instance") as served:
        for _ in range(rounds):
            start = time.perf_counter()
            report = flood(served, lying=lying, hostile=hostile)
            ok &= report.server_errors == 0 and report.growth_mib <= LIMIT_MIB
            out["rounds"].append({  # type: ignore[attr-defined]
                "answers": dict(sorted(report.statuses.items())),
                "baseline_mib": round(report.baseline_kib / 1024, 1),
                "peak_growth_mib": round(report.growth_mib, 1),
                "seconds": round(time.perf_counter() - start, 1),
            })
        photo = phone_photo(8000, 6000)
        browser = Browser(served.base)
        baseline = served.status_kib("VmRSS")
        served.reset_peak()
        status, body = browser.open("POST", "/api/scan", *_form(photo))
        doc = json.loads(body)
        growth = (served.status_kib("VmHWM") - baseline) / 1024
        ok &= status == 200 and growth <= LIMIT_MIB
        out["phone_photo"] = {
            "pixels": "8000x6000", "bytes": len(photo), "status": status,
            "components": len(doc.get("recognition", {}).get("components", [])),
            "image_size": doc.get("recognition", {}).get("image_size"),
            "peak_growth_mib": round(growth, 1),
        }
    out["ok"] = ok
    print(json.dumps(out, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
