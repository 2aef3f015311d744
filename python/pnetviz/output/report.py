"""summary_report.json and its human-readable twin summary_report.txt (same numbers)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from pnetviz.escape import text_line


def plain(value, keep_nonfinite: bool = False):
    """JSON-ready copy: numpy scalars/arrays to Python, paths to str; NaN/inf to None, or kept
    (`keep_nonfinite`: json writes NaN/Infinity, read back exactly, for data read by pnetviz)."""
    if isinstance(value, dict):
        return {str(k): plain(v, keep_nonfinite) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v, keep_nonfinite) for v in value]
    if isinstance(value, np.ndarray):
        return plain(value.tolist(), keep_nonfinite)
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value) and not keep_nonfinite:
        return None
    if isinstance(value, Path):
        return str(value)
    return value


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
    (Path(directory) / "summary_report.json").write_text(json.dumps(data, indent=2) + "\n")
    title = text_line(title)
    text = [title, "=" * len(title), *_lines(data), ""]
    (Path(directory) / "summary_report.txt").write_text("\n".join(text))
