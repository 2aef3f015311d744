"""summary_report.json and its human-readable twin summary_report.txt (same numbers)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from pnetviz.escape import text_line
from pnetviz.output.headline import headline


def plain(value, keep_nonfinite: bool = False):
    """JSON-ready copy: numpy scalars/arrays to Python, paths to str; NaN/inf to None, or kept
    (`keep_nonfinite`: json writes NaN/Infinity, read back exactly, for data read by pnetviz)."""
    if isinstance(value, dict):
        return {str(k): plain(v, keep_nonfinite) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v, keep_nonfinite) for v in value]
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "f" and not keep_nonfinite and not np.isfinite(value).all():
            return np.where(np.isfinite(value), value, None).tolist()
        if value.dtype.kind in "fiub":  # numbers: Python's own from tolist
            return value.tolist()
        return plain(value.tolist(), keep_nonfinite)
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value) and not keep_nonfinite:
        return None
    if isinstance(value, Path):
        return str(value)
    return value


def dumps(value, indent: int = 2) -> str:
    """JSON text of a plain() value, objects and lists holding objects or lists indented by
    `indent`, a list of numbers or strings on one line: as json.dumps(value, indent=indent) reads
    back, written by json's C encoder (json.dumps with an indent runs in Python, ~10x slower)."""
    out: list[str] = []
    _dump(value, 0, indent, out)
    return "".join(out)


def _dump(value, level: int, indent: int, out: list[str]) -> None:
    nested = isinstance(value, dict) or (isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value))
    if not (nested and value):
        out.append(json.dumps(value))
        return
    inner = "\n" + " " * (indent * (level + 1))
    opening, closing = ("{", "}") if isinstance(value, dict) else ("[", "]")
    out.append(opening)
    for i, item in enumerate(value.items() if isinstance(value, dict) else value):
        out.append(inner if i == 0 else "," + inner)
        if isinstance(value, dict):
            out.append(json.dumps(str(item[0])) + ": ")
            item = item[1]
        _dump(item, level + 1, indent, out)
    out.append("\n" + " " * (indent * level) + closing)


def _lines(value, indent: int = 0) -> list[str]:
    pad = "  " * indent
    if isinstance(value, dict):
        out = []
        for key, item in value.items():
            if isinstance(item, (dict, list)) and not _is_flat_list(item):
                out.append(f"{pad}{text_line(key)}:")
                out.extend(_lines(item, indent + 1))
            else:
                out.append(f"{pad}{text_line(key)}: {_scalar(item)}")
        return out
    if isinstance(value, list):
        return [line for item in value for line in _lines(item, indent)]
    return [f"{pad}{_scalar(value)}"]


def _is_flat_list(item) -> bool:
    return isinstance(item, list) and all(not isinstance(v, (dict, list)) or _is_flat_list(v) for v in item)


def _scalar(value) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, list):
        return "[" + ", ".join(_scalar(v) for v in value) + "]"
    return "n/a" if value is None else text_line(value)  # a name with a line break stays on its line


def write_reports(directory: Path, report: dict, title: str) -> None:
    """Write summary_report.json and summary_report.txt into `directory`."""
    data = plain(report)
    (Path(directory) / "summary_report.json").write_text(dumps(data) + "\n")
    title = text_line(title)
    text = [title, "=" * len(title), *headline(data), *_lines(data), ""]  # the answer first, then the details
    (Path(directory) / "summary_report.txt").write_text("\n".join(text), encoding="utf-8")
