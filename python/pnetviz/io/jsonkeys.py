"""JSON objects whose keys are unique: `json` keeps the last of a key given twice, silently, so a
record others can edit (a set's marker, the round options, a `--columns` mapping) could show a
reader one value and give pnetviz another. `unique_object` is the `object_pairs_hook` that refuses it."""

from __future__ import annotations

from typing import Any


class Duplicate(Exception):
    """A key given twice in one JSON object: args[0] is the key."""


def unique_object(pairs: list[tuple[str, Any]]) -> dict:
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise Duplicate(key)
        out[key] = value
    return out
