"""Reading the JSON files of an up-to-date output set (summary_report.json, working_points.json)
that the campaign takes its tables from: a file that was edited or damaged after pnetviz wrote it
is one error naming it, never a traceback and never silently left out."""

from __future__ import annotations

from pathlib import Path

from pnetviz.errors import InputError
from pnetviz.io import readers


def damaged(path: Path, problem: str, what: str) -> InputError:
    """The one-line error for a set's file the campaign cannot use; `what`: what it takes from it
    ("numbers from this report", "working points from this file")."""
    return InputError(f"{path}: {problem}. The campaign takes this model's {what} of an up-to-date output set, which "
                      "was edited or damaged after pnetviz wrote it. Fix: delete that set's directory "
                      f"({path.parent.name}/) or re-run that model with --force (with --channels, --signals, --model "
                      "naming it); the campaign then rewrites the set.")  # fmt: skip


def read_object(path: Path, what: str, missing_ok: bool = False) -> dict | None:
    """The JSON object in `path` (None if absent and `missing_ok`); InputError (`damaged`) if it
    is absent, unreadable, not JSON (readers.read_json's limits) or not an object."""
    try:
        return readers.read_json(Path(path), "file of an output set", finite=False, missing_ok=missing_ok)
    except readers.BadFile as err:
        raise damaged(path, err.problem, what) from None


def is_number(value: object) -> bool:
    """An int or float read from JSON (not a bool, which JSON keeps apart)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)
