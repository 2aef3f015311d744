"""report.plain, report.dumps and the text report give what one-call-per-element versions give
(written out here: compact JSON; in the text a list of more than 8 numbers as its count and
range), value for value and character for character, on random documents with NaN, infinities,
None, numpy scalars and arrays, huge integers, paths, tuples and odd strings."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import numpy as np

from pnetviz.escape import text_line
from pnetviz.output import report


def reference_plain(value, keep_nonfinite: bool = False):
    if isinstance(value, dict):
        return {str(k): reference_plain(v, keep_nonfinite) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [reference_plain(v, keep_nonfinite) for v in value]
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "f" and not keep_nonfinite and not np.isfinite(value).all():
            return np.where(np.isfinite(value), value, None).tolist()
        if value.dtype.kind in "fiub":
            return value.tolist()
        return reference_plain(value.tolist(), keep_nonfinite)
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value) and not keep_nonfinite:
        return None
    if isinstance(value, Path):
        return str(value)
    return value


def reference_dumps(value) -> str:
    if isinstance(value, dict):
        return "{" + ",".join(json.dumps(str(k)) + ":" + reference_dumps(v) for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(reference_dumps(v) for v in value) + "]"
    return json.dumps(value)


def reference_scalar(value) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, list):
        return "[" + ", ".join(reference_scalar(v) for v in value) + "]"
    return "n/a" if value is None else text_line(value)


def reference_value(value) -> str:
    """A key's value in the text: a list of more than 8 numbers (None, NaN, inf: n/a) summarised."""
    def number(v):
        return v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))

    if not (isinstance(value, list) and len(value) > 8 and all(number(v) for v in value)):
        return reference_scalar(value)
    known = sorted(v for v in value if isinstance(v, int) or (isinstance(v, float) and math.isfinite(v)))
    if not known:
        return f"{len(value)} values, all n/a (summary_report.json)"
    missing = f", {len(value) - len(known)} n/a" if len(known) < len(value) else ""
    return f"{len(value)} values from {reference_scalar(known[0])} to {reference_scalar(known[-1])}{missing} (summary_report.json)"


def reference_flat(value) -> bool:
    return isinstance(value, list) and all(not isinstance(v, dict) and (not isinstance(v, list) or reference_flat(v))
                                           for v in value)  # fmt: skip


def reference_lines(value, depth: int = 0) -> list[str]:
    pad = "  " * depth
    if isinstance(value, dict):
        out = []
        for key, item in value.items():
            if isinstance(item, (dict, list)) and not reference_flat(item):
                out += [f"{pad}{text_line(key)}:", *reference_lines(item, depth + 1)]
            else:
                out.append(f"{pad}{text_line(key)}: {reference_value(item)}")
        return out
    if isinstance(value, list):
        return [line for item in value for line in reference_lines(item, depth)]
    return [pad + reference_scalar(value)]


LEAVES = [0.1, 1 / 3, -2.5e-300, 1e300, math.nan, math.inf, -math.inf, 0, -7, 10**400, True, False, None, "x",
          "t\"t\\X\n\u00e9\U0001f600", "", np.float64(0.25), np.float32(1.5), np.int64(3), np.bool_(True),
          np.float64(math.nan), Path("/a/b")]  # fmt: skip


def random_value(rng: random.Random, depth: int):
    roll = rng.random()
    if depth < 4 and roll < 0.3:
        return {rng.choice(["a", "b", 3, "k\u00e9"]) if i == 0 else f"k{i}": random_value(rng, depth + 1)
                for i in range(rng.randint(0, 4))}  # fmt: skip
    if depth < 4 and roll < 0.55:
        kind = rng.random()
        if kind < 0.3:  # a list of numbers, sometimes with a non-finite or numpy one
            items = [rng.choice([rng.random(), rng.randint(-5, 5), True]) for _ in range(rng.randint(0, 12))]
            if rng.random() < 0.4:
                items.insert(rng.randint(0, len(items)), rng.choice(LEAVES))
            return tuple(items) if rng.random() < 0.2 else items
        if kind < 0.4:
            return np.array([rng.random(), rng.choice([1.0, math.nan, math.inf])])
        if kind < 0.55:  # around the text report's 8 numbers: ints, floats, None and NaN/inf (kept or None)
            return [rng.choice([rng.random() * 10 ** rng.randint(-8, 8), rng.randint(-9, 9), None, math.nan, -math.inf])
                    for _ in range(rng.choice([0, 8, 9, 9, 12, 101]))]  # fmt: skip
        return [random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return rng.choice(LEAVES)


def test_plain_and_dumps_as_the_per_element_versions():
    for seed in range(400):
        rng = random.Random(seed)
        doc = {"top": random_value(rng, 0), "list": [random_value(rng, 1) for _ in range(3)]}
        for keep in (False, True):
            got, expected = report.plain(doc, keep), reference_plain(doc, keep)
            assert repr(got) == repr(expected), seed  # repr: NaN compares unequal, types shown
        value = reference_plain(doc, seed % 2 == 0)
        assert report.dumps(value) == reference_dumps(value), seed
        assert report._scalar(value["list"]) == reference_scalar(value["list"])
        assert report._lines(value) == reference_lines(value), seed


def test_float_lists_in_the_text_report():
    assert report._scalar([0.5, 1 / 3, math.nan, 1e-7]) == "[0.5, 0.333333, nan, 1e-07]"
    assert report._scalar([0.5, "a", None, [2.0]]) == "[0.5, a, n/a, [2]]"
    assert report._scalar([]) == "[]"


def test_text_report_lines_of_long_short_missing_and_string_lists():
    doc = {"grid": [2.887831, 3.10864, 3.2, 3.3, 3.39, 3.0, 2.95, 3.1, 3.25, 3.005, 3.004],
           "short": [0.5, 1 / 3, 2.0, 4.0, 5.0, 6.0, 7.0, 8.0], "ints": list(range(100, 0, -10)),
           "with_none": [None, 0.25, 1e-7, None, 0.5, 0.75, 1.0, 1.25, 1.5], "none": [None] * 9,
           "non_finite": [math.nan, -math.inf, 3, 2.5, 2, 1, 0, -1, math.inf],
           "names": [f"class{i}" for i in range(12)], "flags": [True] * 9, "mixed": [1.0] * 8 + ["x"],
           "nested": {"matrix": [[1, 2], [3, 4]]}}  # fmt: skip
    assert report._lines(doc) == [
        "grid: 11 values from 2.88783 to 3.39 (summary_report.json)",
        "short: [0.5, 0.333333, 2, 4, 5, 6, 7, 8]",
        "ints: 10 values from 10 to 100 (summary_report.json)",
        "with_none: 9 values from 1e-07 to 1.5, 2 n/a (summary_report.json)",
        "none: 9 values, all n/a (summary_report.json)",
        "non_finite: 9 values from -1 to 3, 3 n/a (summary_report.json)",
        "names: [class0, class1, class2, class3, class4, class5, class6, class7, class8, class9, class10, class11]",
        "flags: [True, True, True, True, True, True, True, True, True]",
        "mixed: [1, 1, 1, 1, 1, 1, 1, 1, x]",
        "nested:",
        "  matrix: [[1, 2], [3, 4]]"]  # fmt: skip


def test_written_text_report_keeps_scalars_and_summarises_the_json_arrays(tmp_path):
    grid = [i / 100 for i in range(101)]
    report.write_reports(tmp_path, {"auc": 0.912345678, "scan": {"cut": grid, "best": 0.42}}, "t")
    text = (tmp_path / "summary_report.txt").read_text().splitlines()
    assert text[2:] == ["auc: 0.912346", "scan:", "  cut: 101 values from 0 to 1 (summary_report.json)", "  best: 0.42"]
    assert json.loads((tmp_path / "summary_report.json").read_text())["scan"]["cut"] == grid
