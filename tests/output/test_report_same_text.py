"""report.plain, report.dumps and the text report give what the one-call-per-element versions
gave (written out here), value for value and character for character, on random documents with
NaN, infinities, numpy scalars and arrays, huge integers, paths, tuples and odd strings."""

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


def reference_dumps(value, level: int = 0, indent: int = 2) -> str:
    nested = isinstance(value, dict) or (isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value))
    if not (nested and value):
        return json.dumps(value)
    inner = "\n" + " " * (indent * (level + 1))
    items = [(json.dumps(str(k)) + ": " if isinstance(value, dict) else "") + reference_dumps(v, level + 1, indent)
             for k, v in (value.items() if isinstance(value, dict) else enumerate(value))]  # fmt: skip
    opening, closing = ("{", "}") if isinstance(value, dict) else ("[", "]")
    return opening + inner + ("," + inner).join(items) + "\n" + " " * (indent * level) + closing


def reference_scalar(value) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, list):
        return "[" + ", ".join(reference_scalar(v) for v in value) + "]"
    return "n/a" if value is None else text_line(value)


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
        for indent in (1, 2):
            assert report.dumps(value, indent) == reference_dumps(value, 0, indent), seed
        assert report._scalar(value["list"]) == reference_scalar(value["list"])


def test_float_lists_in_the_text_report():
    assert report._scalar([0.5, 1 / 3, math.nan, 1e-7]) == "[0.5, 0.333333, nan, 1e-07]"
    assert report._scalar([0.5, "a", None, [2.0]]) == "[0.5, a, n/a, [2]]"
    assert report._scalar([]) == "[]"
