"""summary_report.json and its human-readable twin summary_report.txt (the same scalars; a long
list of numbers in the text as its length and range, its values in the JSON)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from pnetviz.escape import text_line
from pnetviz.output.headline import headline


_KEPT = frozenset((str, int, bool, type(None)))  # what plain() returns as it is
_NUMBERS = frozenset((float, int, bool))
_CONTAINERS = (dict, list)


def plain(value, keep_nonfinite: bool = False):
    """JSON-ready copy: numpy scalars/arrays to Python, paths to str; NaN/inf to None, or kept
    (`keep_nonfinite`: json writes NaN/Infinity, read back exactly, for data read by pnetviz).
    A str/int/bool/None and a list of them (or of finite numbers) are copied without a call per
    element (a report holds thousands)."""
    if isinstance(value, dict):  # a finite float (v - v == 0: not for NaN/inf) kept without a call
        return {str(k): v if (t := type(v)) in _KEPT or (t is float and (keep_nonfinite or v - v == 0.0))
                else plain(v, keep_nonfinite) for k, v in value.items()}  # fmt: skip
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


def _holds_containers(value: list) -> bool:
    """Any item of `value` is a dict or list (checked per distinct type: one C pass over the items)."""
    return _any_container(set(map(type, value)))


def _any_container(kinds: set) -> bool:
    return any(issubclass(kind, _CONTAINERS) for kind in kinds)


def dumps(value, allow_nan: bool = True) -> str:
    """The JSON text of a plain() value as pnetviz writes its reports: compact (no indentation, no
    spaces), by json's C encoder; NaN/inf written as NaN/Infinity, or ValueError (`allow_nan`)."""
    return json.dumps(value, separators=(",", ":"), allow_nan=allow_nan)


def _lines(value, indent: int = 0, keys: dict[str, str] | None = None) -> list[str]:
    """The text report's lines of `value` (a plain() document) at `indent`; `keys` holds each key's
    text_line, made once (a report repeats its keys in every class and split)."""
    keys = {} if keys is None else keys
    pad = "  " * indent
    if isinstance(value, dict):
        out = []
        for key, item in value.items():
            name = keys.get(key)
            if name is None:
                name = keys[key] = text_line(key)
            kind = type(item)
            if kind is float:  # the common leaves and flat lists without _value's tests: as it writes them
                out.append(f"{pad}{name}: {item:.6g}")
            elif kind is str:
                out.append(f"{pad}{name}: {item if item.isprintable() else text_line(item)}")
            elif kind is int or kind is bool:
                out.append(f"{pad}{name}: {item}")
            elif item is None:
                out.append(f"{pad}{name}: n/a")
            elif kind is list and not _any_container(kinds := set(map(type, item))):
                out.append(f"{pad}{name}: {_flat_list(item, kinds)}")
            elif isinstance(item, (dict, list)) and not _is_flat_list(item):
                out.append(f"{pad}{name}:")
                out.extend(_lines(item, indent + 1, keys))
            else:
                out.append(f"{pad}{name}: {_value(item)}")
        return out
    if isinstance(value, list):
        return [line for item in value for line in _lines(item, indent, keys)]
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


def _flat_list(item: list, kinds: set) -> str:
    """_value of a list of no dict or list, whose item types are `kinds`."""
    if len(item) > LONG_LIST and kinds <= _NUMBERS_OR_NONE:
        return _summary(item)
    if kinds <= {float}:
        return "[" + ", ".join(map(_SIX_DIGITS, item)) + "]"
    return "[" + ", ".join(_scalar(v) for v in item) + "]"


REPORT_JSON = "summary_report.json"
LONG_LIST = 8  # a list of more numbers than this stands in the text report as a summary line
_NUMBERS_OR_NONE = frozenset((float, int, type(None)))  # bool is not a number here


def _value(item) -> str:
    """The text of a key's value: _scalar(item), but a list of more than LONG_LIST numbers (None
    and NaN/inf among them) as one short line saying how many, their range and where they are:
    `101 values from 2.88783 to 3.39 (summary_report.json)`. Lists of strings or bools, mixed
    lists, nested lists (matrices) and short lists are written out."""
    if isinstance(item, list) and len(item) > LONG_LIST and set(map(type, item)) <= _NUMBERS_OR_NONE:
        return _summary(item)
    return _scalar(item)


def _summary(values: list) -> str:
    """`N values from LO to HI[, M n/a] (summary_report.json)` of numbers and Nones (a None or a
    NaN/inf is n/a; the range is over the others); `N values, all n/a (...)` if none is left."""
    where = f"({REPORT_JSON})"
    if None not in values and _finite_sum(values):  # every one finite (one C pass): all known
        known = values
    else:
        known = [v for v in values if type(v) is int or (v is not None and math.isfinite(v))]
    if not known:
        return f"{len(values)} values, all n/a {where}"
    missing = len(values) - len(known)
    text = f"{len(values)} values from {_scalar(min(known))} to {_scalar(max(known))}"
    return f"{text}, {missing} n/a {where}" if missing else f"{text} {where}"


def write_reports(directory: Path, report: dict, title: str) -> None:
    """Write summary_report.json and summary_report.txt into `directory`."""
    data = plain(report)
    (Path(directory) / REPORT_JSON).write_text(dumps(data) + "\n")
    title = text_line(title)
    text = [title, "=" * len(title), *headline(data), *_lines(data), ""]  # the answer first, then the details
    (Path(directory) / "summary_report.txt").write_text("\n".join(text), encoding="utf-8")
