"""summary_report.json and its human-readable twin summary_report.txt (same numbers)."""

from __future__ import annotations

import json
import math
from json.encoder import encode_basestring_ascii
from pathlib import Path

import numpy as np

from pnetviz.escape import text_line
from pnetviz.output.headline import headline


_KEPT = frozenset((str, int, bool, type(None)))  # what plain() returns as it is
_NUMBERS = frozenset((float, int, bool))
_CONTAINERS = (dict, list)
_SCALARS = frozenset((str, int, float, bool, type(None)))


def plain(value, keep_nonfinite: bool = False):
    """JSON-ready copy: numpy scalars/arrays to Python, paths to str; NaN/inf to None, or kept
    (`keep_nonfinite`: json writes NaN/Infinity, read back exactly, for data read by pnetviz).
    A str/int/bool/None and a list of them (or of finite numbers) are copied without a call per
    element (a report holds thousands)."""
    if isinstance(value, dict):
        return {str(k): v if type(v) in _KEPT else plain(v, keep_nonfinite) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        kinds = set(map(type, value))
        if kinds <= _KEPT or (kinds <= _NUMBERS and (keep_nonfinite or _finite_sum(value))):
            return list(value)
        return [v if type(v) in _KEPT else plain(v, keep_nonfinite) for v in value]
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


def _finite_sum(numbers) -> bool:
    """True when the sum of `numbers` is finite, so each is (a NaN or inf makes the sum one;
    False on overflow too: the caller then looks at each)."""
    try:
        return math.isfinite(sum(numbers))
    except OverflowError:  # an int beyond float's range beside floats
        return False


def _leaf(value) -> str:
    """json.dumps(value) of a value not holding a dict or list: str, int and finite float written
    as json's encoder writes them (encode_basestring_ascii, int's and float's repr) without its
    per-call set-up; anything else by json.dumps itself."""
    kind = type(value)
    if kind is str:
        return encode_basestring_ascii(value)
    if kind is float and math.isfinite(value):
        return float.__repr__(value)
    if kind is int:
        return int.__repr__(value)
    return json.dumps(value)


def _holds_containers(value: list) -> bool:
    """Any item of `value` is a dict or list (checked per distinct type: one C pass over the items)."""
    return any(issubclass(kind, _CONTAINERS) for kind in set(map(type, value)))


def dumps(value, indent: int = 2) -> str:
    """JSON text of a plain() value, objects and lists holding objects or lists indented by
    `indent`, a list of numbers or strings on one line: as json.dumps(value, indent=indent) reads
    back, written by json's C encoder (json.dumps with an indent runs in Python, ~10x slower)."""
    out: list[str] = []
    _dump(value, 0, indent, out)
    return "".join(out)


def _dump(value, level: int, indent: int, out: list[str]) -> None:
    nested = isinstance(value, dict) or (isinstance(value, list) and _holds_containers(value))
    if not (nested and value):
        out.append(_leaf(value))
        return
    inner = "\n" + " " * (indent * (level + 1))
    is_dict = isinstance(value, dict)
    out.append("{" if is_dict else "[")
    separator = "," + inner
    for i, item in enumerate(value.items() if is_dict else value):
        out.append(inner if i == 0 else separator)
        if is_dict:
            out.append(encode_basestring_ascii(str(item[0])) + ": ")
            item = item[1]
        if type(item) in _SCALARS:  # what _dump(item) would write, without the call
            out.append(_leaf(item))
        else:
            _dump(item, level + 1, indent, out)
    out.append("\n" + " " * (indent * level) + ("}" if is_dict else "]"))


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
    return isinstance(item, list) and (not _holds_containers(item) or all(not isinstance(v, (dict, list)) or
                                                                           _is_flat_list(v) for v in item))  # fmt: skip


_SIX_DIGITS = "{:.6g}".format


def _scalar(value) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, list):
        if set(map(type, value)) <= {float}:  # a list of floats: formatted at C speed
            return "[" + ", ".join(map(_SIX_DIGITS, value)) + "]"
        return "[" + ", ".join(_scalar(v) for v in value) + "]"
    return "n/a" if value is None else text_line(value)  # a name with a line break stays on its line


def write_reports(directory: Path, report: dict, title: str) -> None:
    """Write summary_report.json and summary_report.txt into `directory`."""
    data = plain(report)
    (Path(directory) / "summary_report.json").write_text(dumps(data) + "\n")
    title = text_line(title)
    text = [title, "=" * len(title), *headline(data), *_lines(data), ""]  # the answer first, then the details
    (Path(directory) / "summary_report.txt").write_text("\n".join(text), encoding="utf-8")
