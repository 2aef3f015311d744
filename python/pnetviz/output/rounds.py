"""Training rounds: which results tree an output set was made from, and never two in one place.

A round is one results tree (the trainer's `results/` of one training campaign), identified by
its resolved path. Its name (`--round NAME`, default: the name the plots tree's registry
`rounds.json` gives it, io.roundname) places it in the plots tree:
`<plots-dir>/<round>/<channel>/...`; `claim` registers it when a run publishes. Every output set records its round in its marker
(`.pnetviz-set.json`) and in its `summary_report.json`; publishing into a set (a fold, a
`folds/` summary, a comparison, a campaign summary) that records another round is refused
before any work, naming both rounds and the fix.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from pathlib import Path

from pnetviz import escape
from pnetviz.errors import InputError
from pnetviz.io.jsonoutline import outline_json
from pnetviz.io.readers import MAX_JSON_BYTES, parse_json, read_bytes, read_json
from pnetviz.io.roundname import REGISTRY, registry, round_name, taken_error
from pnetviz.output.report import dumps

KEY = "round"  # in a marker's and a summary_report.json's top level
MARKER = ".pnetviz-set.json"
REPORT = "summary_report.json"


def record(results: Path, name: str | None, plots_root: Path) -> dict:
    """The round of the results tree `results` in the plots tree `plots_root` as recorded in a
    set: {name, results (resolved)}."""
    return {"name": round_name(plots_root, results, name), "results": str(Path(results).resolve())}


def meta(results: Path, name: str | None, plots_root: Path) -> dict:
    """What a set's marker records of its round (merged into cli.common.provenance)."""
    return {KEY: record(results, name, plots_root)}


def claim(plots_root: Path, name: str, results: Path) -> None:
    """Register round `name` as the results tree `results` in the plots tree's registry (under a
    lock, so that two runs never take one name); InputError if another tree holds it."""
    root = Path(plots_root)
    try:
        _claim(root, name, str(Path(results).resolve()))
    except OSError as err:
        raise InputError(f"{escape.printable(str(root / REGISTRY))}: the round registry cannot be written "
                         f"({escape.printable(err.strerror or type(err).__name__)}). Fix: give a --plots-dir that is a "
                         "writable directory.") from None  # fmt: skip


def _claim(root: Path, name: str, real: str) -> None:
    root.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as stack:  # the plots tree's directory itself is the lock: no file left beside
        lock = os.open(root, os.O_RDONLY)
        stack.callback(os.close, lock)
        fcntl.flock(lock, fcntl.LOCK_EX)
        rounds = registry(root)
        if rounds.get(name) == real:
            return
        if name in rounds:
            raise taken_error(root, name, rounds[name], Path(real))
        tmp = root / f".{REGISTRY}.{os.getpid()}"
        tmp.write_text(json.dumps({"rounds": {**rounds, name: real}}, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(tmp, root / REGISTRY)


def recorded(directory: Path) -> dict | None:
    """The round recorded by the output set `directory` (its marker, else its
    summary_report.json); None if it records none (absent, older, unreadable)."""
    for name in (MARKER, REPORT):
        try:
            value = read_json(Path(directory) / name, "output set record", finite=False).get(KEY)
        except (InputError, OSError, AttributeError):
            continue
        if isinstance(value, dict) and isinstance(value.get("results"), str):
            return value
    return None


def describe(rnd: dict) -> str:
    """`'ana-results' (/x/ana/results)`, printable."""
    return f"'{escape.printable(str(rnd.get('name')))}' ({escape.printable(str(rnd.get('results')))})"


def same(a: dict, b: dict) -> bool:
    """Two recorded rounds are one round when their results trees are the same directory."""
    return a.get("results") == b.get("results")


def check_same(target: Path, run_meta: dict | None) -> None:
    """InputError if the output set `target` records another round than this run's (`run_meta`
    holds it under KEY); nothing is checked for a set without a round or a run without one."""
    mine = (run_meta or {}).get(KEY)
    theirs = recorded(target)
    if not mine or not theirs or same(mine, theirs):
        return
    raise InputError(f"{target}: holds round {describe(theirs)}; this run is round {describe(mine)}, and rounds are "
                     "never mixed in one output set. Fix: give this round its own place with --round NAME, or "
                     "another --plots-dir (or --output).")  # fmt: skip


def stamp_report(stage: Path, run_meta: dict) -> bytes | None:
    """Record the run's round in the staged set's summary_report.json (if it has one). Returns
    the bytes the file should now hold when they are known to read back as JSON (as
    jsonoutline.check_json takes them: the file as read, or with the round appended to it), so
    that verification compares instead of parsing it again; None otherwise."""
    mine = run_meta.get(KEY)
    path = Path(stage) / REPORT
    if not mine or not path.is_file():
        return None
    try:
        raw = read_bytes(path, "summary report", MAX_JSON_BYTES)
        data = outline_json(raw, str(path), finite=False)  # keys and strings: its numbers are not needed here
    except (InputError, OSError):
        return None  # verification names it
    if not isinstance(data, dict):
        return raw
    if data.get(KEY) == mine:
        return raw
    body = raw.decode("utf-8").rstrip()
    if KEY not in data and data and body.endswith("}"):  # appended as report.dumps writes it: not re-encoded
        entry = dumps({KEY: mine})[1:-1]  # '"round":{...}': a member of strings, one level deeper
        text = f"{body[:-1].rstrip()},{entry}}}\n"
        path.write_text(text)
        return text.encode()
    data = parse_json(raw, str(path), finite=False)  # re-encoded: with its numbers
    data[KEY] = mine
    path.write_text(dumps(data) + "\n")
    return None
