"""Every file pnetviz reads from disk goes through the guarded readers (pnetviz.io.readers): no
other module parses JSON or CSV itself, where a FIFO would block, a deep nesting or an absurd
number would end in a traceback."""

from __future__ import annotations

import re
from pathlib import Path

import pnetviz

PACKAGE = Path(pnetviz.__file__).parent
READERS = PACKAGE / "io" / "readers.py"
PARSERS = re.compile(r"\bjson\.loads?\(|\bcsv\.(?:reader|DictReader)\(")
# module (relative to the package) -> why it may parse: in-memory text only, never a file
ALLOWED: dict[str, str] = {
    "io/jsonoutline.py": "the readers' own outline parse of bytes read by them (same grammar, depth and "
                         "number limits as readers.parse_json, which decides whenever it is in doubt)",
}


def parsing_calls() -> list[str]:
    """`file:line: code` of every JSON/CSV parsing call outside the readers module and ALLOWED."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if path == READERS or rel in ALLOWED:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if PARSERS.search(line):
                found.append(f"{rel}:{number}: {line.strip()}")
    return found


def test_only_the_readers_parse_json_and_csv():
    calls = parsing_calls()
    assert not calls, "parse through pnetviz.io.readers instead:\n" + "\n".join(calls)


def test_the_scan_sees_what_it_looks_for():
    assert PARSERS.search("doc = json.loads(path.read_text())") and PARSERS.search("json.load(f)")
    assert PARSERS.search("csv.DictReader(lines)") and PARSERS.search("rows = csv.reader(f)")
    assert not PARSERS.search("json.dumps(doc)") and not PARSERS.search("csv.writer(f)")
    assert len(re.findall(PARSERS, READERS.read_text(encoding="utf-8"))) == 2  # the readers' own json.loads, csv.reader
