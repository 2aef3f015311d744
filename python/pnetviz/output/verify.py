"""What is wrong with a file pnetviz has just written, from its content by extension: a ROOT file
reopened without recovery and its keys walked, a PNG's and a PDF's structure, JSON and text read
back (output.atomic verifies every file of a staged set with it before publishing)."""

from __future__ import annotations

from pathlib import Path

from pnetviz.errors import InputError
from pnetviz.io import jsonoutline, readers

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
VERIFY_JSON_BYTES = 1 << 30  # a staged JSON file is read back whole: pnetviz writes a few MB at most


def verify_file(path: Path, known: bytes | None = None) -> str | None:
    """What is wrong with a written file (None: fine), from its content by extension; a JSON file
    holding exactly `known` (bytes rounds.stamp_report found to read back) is not parsed again."""
    size = path.stat().st_size
    if size == 0:
        return "empty file"
    suffix = path.suffix.lower()
    if suffix == ".png":
        return _verify_png(path)
    if suffix == ".pdf":
        with open(path, "rb") as f:
            head = f.read(5)
            f.seek(max(0, size - 1024))
            tail = f.read()
        return None if head == b"%PDF-" and b"%%EOF" in tail else "not a complete PDF (no header or %%EOF trailer)"
    if suffix == ".root":
        return _verify_root(path)
    if suffix == ".json":
        try:
            data = readers.read_bytes(path, "JSON file", VERIFY_JSON_BYTES)
            if data != known:
                jsonoutline.check_json(data, str(path), finite=False)
        except InputError as err:
            return f"does not read back as JSON ({err})"
    if suffix == ".txt":
        try:
            path.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            return "does not read back as UTF-8 text"
    return None


def _verify_png(path: Path) -> str | None:
    data = path.read_bytes()
    if not data.startswith(PNG_SIGNATURE) or data[12:16] != b"IHDR":
        return "not a PNG image"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if width == 0 or height == 0:
        return "PNG image of size zero"
    if data[-8:-4] != b"IEND":
        return "truncated PNG image (no IEND chunk)"
    return None


def _verify_root(path: Path) -> str | None:
    """Reopen without recovery; the file must end where ROOT says, and every key (directories
    walked) must be listed with its record inside the file. Objects are not rebuilt: that costs
    ~0.6 s a file (the canvases), more than the rest of a small job, and a truncated or unclosed
    file is caught by the checks above."""
    from pnetviz.io.layout import root_path  # noqa: PLC0415
    from pnetviz.output import rootkeys  # noqa: PLC0415
    from pnetviz.rootenv import quiet_root, root  # noqa: PLC0415

    ROOT = root()
    try:
        with root_path(path) as literal, quiet_root():
            tfile = ROOT.TFile.Open(literal, "READ")
    except OSError:  # PyROOT raises where C++ returns nullptr
        tfile = None
    if not tfile or tfile.IsZombie():
        return "ROOT cannot open it (truncated or corrupt)"
    try:
        if tfile.TestBit(ROOT.TFile.kRecovered):
            return "ROOT had to recover it (not closed properly, probably truncated)"
        size = path.stat().st_size
        if tfile.GetEND() != size:
            return f"ends at byte {size}, ROOT expected {tfile.GetEND()} (truncated)"
        with quiet_root():
            bad = rootkeys.unreadable_keys(tfile, size)
        return f"{len(bad)} objects do not read back ({', '.join(bad[:3])})" if bad else None
    finally:
        tfile.Close()
