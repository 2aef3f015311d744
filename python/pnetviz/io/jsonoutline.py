"""JSON read for its structure only: where pnetviz verifies a file it has just written (output.atomic)
or looks for a key (output.rounds), the numbers need not become floats, which is most of a
parse's time. `outline_json` and `check_json` accept and refuse exactly what readers.parse_json
does (same grammar, UTF-8, constants, depth and number ranges), at ~1/3 of its cost."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from pnetviz.io.readers import DEFAULT_FIX, MAX_DEPTH, parse_json


class _Constant(Exception):
    """NaN/Infinity where refused (finite): parse_json names it."""


def _refuse_constant(text: str) -> None:
    raise _Constant(text)


def numbers_in_range(data: bytes) -> bool:
    """True when no number literal in the JSON text `data` can be out of range for _parse_float and
    _parse_int: no run of 100 digits (an integer of MAX_INT_DIGITS; a mantissa of 1e100 or more) and
    no exponent of three digits, so every number is a finite float or an int of fewer than 100
    digits. Digits in strings count too (False there only costs the full parse). numpy: ~0.2 ms for 100 kB."""
    text = np.frombuffer(data, np.uint8)
    digit = np.zeros(text.size + 5, bool)  # digit[i + 1]: text[i] is a digit; False around it (runs closed)
    digit[1 : text.size + 1] = (text >= 48) & (text <= 57)
    edges = np.flatnonzero(digit[1:] != digit[:-1])  # each run's start and end, alternating
    if edges.size and int(np.max(edges[1::2] - edges[::2])) >= 100:
        return False
    exponent = np.flatnonzero((text | 0x20) == ord("e"))  # e or E
    sign = np.zeros(text.size + 1, bool)
    sign[: text.size] = (text == ord("+")) | (text == ord("-"))
    first = exponent + 1 + sign[exponent + 1]  # the exponent's first digit, after its sign
    return not np.any(digit[first + 1] & digit[first + 2] & digit[first + 3])


def nesting_ok(data: bytes) -> bool:
    """True when the JSON text `data` (valid: json's scanner took it) nests at most MAX_DEPTH
    containers in one another (readers._tree_ok's limit), from its bytes: the brackets outside
    strings, a string's quotes being those after an even run of backslashes (a multi-byte UTF-8
    character holds no ASCII byte). numpy on the brackets only: ~1/6 of walking the document."""
    text = np.frombuffer(data, np.uint8)
    folded = text | 0x20  # '[' -> '{', ']' -> '}' (no other byte folds onto them)
    opening = folded == 0x7B
    if np.count_nonzero(opening) <= MAX_DEPTH:  # too few containers to nest that deep
        return True
    brackets = np.flatnonzero(opening | (folded == 0x7D))
    quotes = np.flatnonzero(text == 0x22)
    escaped = [q for q in quotes[text[quotes - 1] == 0x5C].tolist() if q and _odd_backslashes(data, q)] if quotes.size else []
    if escaped:
        quotes = np.setdiff1d(quotes, escaped)
    outside = (np.searchsorted(quotes, brackets) & 1) == 0  # an even number of quotes before it
    steps = np.where(opening[brackets[outside]], 1, -1)
    return int(np.cumsum(steps).max(initial=0)) <= MAX_DEPTH


def _odd_backslashes(data: bytes, end: int) -> bool:
    """An odd number of backslashes right before byte `end` (the quote there is escaped)."""
    start = end
    while start and data[start - 1] == 0x5C:
        start -= 1
    return (end - start) % 2 == 1


def outline_json(data: bytes, name: str, fix: str = DEFAULT_FIX, finite: bool = True) -> Any:
    """parse_json(data, ...) for callers that look only at the structure and the strings (verifying a
    file just written, finding a key), at ~1/3 of its cost: BadFile exactly where it raises, the
    same document except that numbers are their literal text. When no number literal can be out of
    range (numbers_in_range), json's scanner checks the same grammar, UTF-8 and constants without
    converting the numbers (most of the parse's time), and nesting_ok the depth; otherwise, or on
    any problem, parse_json itself decides (and names the problem; its numbers are numbers)."""
    if numbers_in_range(data):
        try:
            doc = json.loads(data.decode("utf-8"), parse_float=str, parse_int=str,
                             parse_constant=_refuse_constant if finite else float)  # fmt: skip
            if nesting_ok(data):
                return doc
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError, _Constant):
            pass
    return parse_json(data, name, fix, finite)


def check_json(data: bytes, name: str, fix: str = DEFAULT_FIX, finite: bool = True) -> None:
    """BadFile exactly where parse_json(data, ...) raises (outline_json: the numbers not converted)."""
    outline_json(data, name, fix, finite)
