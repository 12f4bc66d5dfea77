"""Hostile QR payloads, generated from code so the corpus is the same on every machine.

Each payload is text a stranger could print and slide onto the table: links, script and
markup, SQL, format strings, control and direction characters, codes at and past the
payload grammar's length limit, damaged codes of ours, and genuine codes of other games.
None of them may ever be taken for a component of the game being scanned.
"""

from __future__ import annotations

from scoring import find_game
from scoring.payload import MAX_LENGTH, encode, game_codes

URLS = (
    "https://example.org/cereal",
    "http://192.0.2.1/",
    "http://localhost:5000/api/plays",
    "https://evil.example/?q=<script>",
    "file:///etc/passwd",
    "ftp://example.org/x",
    "data:text/html,<script>alert(1)</script>",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "mailto:someone@example.org",
    "tel:+10000000000",
    "intent://scan/#Intent;scheme=zxing;end",
    "//evil.example/x",
    "WIFI:S:kitchen;T:WPA;P:hunter22;;",
    "BEGIN:VCARD\nN:Lee\nEND:VCARD",
    "smsto:+100:hello",
    "geo:0,0",
)
SCRIPTS = (
    "javascript:alert(1)",
    "JaVaScRiPt:alert(document.cookie)",
    " javascript:alert(1)",
    "java\tscript:alert(1)",
    "javascript&colon;alert(1)",
    "vbscript:msgbox(1)",
    "<script>alert(1)</script>",
    "<script>window.__pwned=1</script>",
    "</script><script>window.__pwned=2</script>",
    "<img src=x onerror=\"window.__pwned=3\">",
    "<svg onload=window.__pwned=4>",
    "\"><img src=x onerror=window.__pwned=5>",
    "'><svg/onload=window.__pwned=6>",
    "<iframe src=javascript:window.__pwned=7>",
    "<a href=\"javascript:window.__pwned=8\">HA1</a>",
    "<b>bold</b>",
    "<!--",
    "]]><x>",
    "{{7*7}}",
    "${7*7}",
    "#{7*7}",
    "<%= 7*7 %>",
    "{% raw %}",
    "\\u003cscript\\u003e",
    "&lt;script&gt;",
    "<style>body{display:none}</style>",
    "<math><mtext><table><mglyph><style><img src=x onerror=window.__pwned=9>",
    "<details open ontoggle=window.__pwned=10>",
)
SQL = (
    "' OR '1'='1",
    "' OR 1=1 --",
    "'; DROP TABLE snapshot; --",
    "\"; DROP TABLE play; --",
    "1; DELETE FROM play",
    "HA1/T001*K'; --",
    "' UNION SELECT * FROM play --",
    "%' AND 1=1 AND '%'='",
    "admin'--",
    "1' AND SLEEP(5)#",
)
FORMATS = (
    "%s%s%s%s%s",
    "%n%n%n%n",
    "%x%x%x%x",
    "%(game)s",
    "{0}",
    "{0.__class__.__mro__}",
    "{game}",
    "%99999999d",
    "%.99999999f",
    "{:>99999999}",
)
CONTROL = (
    "\x00",
    "HA1/T001*K\x00",
    "\x00HA1/T001*K",
    "HA1/\x00T001*K",
    "\x1b[31mred\x1b[0m",
    "line\r\nbreak",
    "\x07\x08\x0b\x0c",
    "\x7f\x7f",
    "\ufeffHA1/T001*K",
    "\u200bHA1/T001*K",
    "\u2028\u2029",
    "\ud7ff\ue000\ufffd",
)
DIRECTION = (
    "\u202eK*100T/1AH",
    "HA1/\u202eT001*K",
    "\u202dHA1/T001*K\u202c",
    "\u2066HA1\u2069/T001*K",
    "\u200fHA1/T001*K",
    "\u061c\u202e<script>",
    "\u202egnp.exe",
)
LOOKALIKES = (
    "НА1/T001*K",  # Cyrillic capitals
    "HA1/Т001*K",
    "ha1/t001*k",
    "HA1/T001*k",
    "HA1/T001 *K",
    " HA1/T001*K",
    "HA1/T001*K ",
    "HA１/T001*K",  # full-width digit
    "HA1/T0O1*K",
    "HA1//T001*K",
    "HA1/T001**K",
    "HA1/*K",
    "HA/T001*K",
    "XX1/T001*K",
    "ZZ9/ZZZZZZZZZZZZ*Z",
)


def length_probes() -> list[str]:
    """Texts at, just under and just over the grammar's 18-character limit, and far beyond."""
    out = [
        "HA1/" + "T" * 12 + "*" + "A",  # 18 characters, grammar shape, wrong check
        "HA1/" + "T" * 13 + "*A",  # 19
        "HA1/" + "T" * 12 + "*AA",
        "A" * (MAX_LENGTH - 1),
        "A" * MAX_LENGTH,
        "A" * (MAX_LENGTH + 1),
        "9" * 64,
        "x" * 100,
        ("<script>" * 20),
        "' OR 1=1 -- " * 10,
    ]
    return out


def long_probes() -> list[str]:
    """Long texts: kept apart because a big QR symbol needs a scene of its own."""
    return ["A" * 300, "<svg onload=window.__pwned=11>" + "x" * 400, "%s" * 250]


def damaged_codes(game_id: str) -> list[str]:
    """Codes of ``game_id`` with a wrong check character, wrong edition or a changed id."""
    out: list[str] = []
    for comp in find_game(game_id).components()[:15]:
        good = encode(game_id, comp.id)
        body, check = good[:-1], good[-1]
        wrong = "0" if check != "0" else "1"
        out.append(body + wrong)
        out.append(encode(game_id, comp.id, edition=2))
        out.append(good.lower())
        out.append(good + "X")
    return out


def other_game_codes(game_id: str, per_game: int = 100) -> list[str]:
    """Genuine codes of the other games: valid grammar, right check, wrong game."""
    out: list[str] = []
    for other in game_codes():
        if other == game_id:
            continue
        comps = find_game(other).components()
        step = max(1, len(comps) // per_game)
        out.extend(encode(other, c.id) for c in comps[::step][:per_game])
    return out


def hostile_payloads(game_id: str) -> list[str]:
    """Every short hostile payload for a scene of ``game_id``, without repeats, in a fixed order."""
    pool = [
        *URLS, *SCRIPTS, *SQL, *FORMATS, *CONTROL, *DIRECTION, *LOOKALIKES,
        *length_probes(), *damaged_codes(game_id), *other_game_codes(game_id),
    ]
    seen: set[str] = set()
    out = []
    for p in pool:
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out
