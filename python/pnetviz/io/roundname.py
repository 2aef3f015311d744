"""A training round's name: where its output sets sit in the plots tree (`<plots-dir>/<round>/`).

A round is one results tree. The plots tree keeps a small registry, `<plots-dir>/rounds.json`
(round name -> resolved results path), so that a name always means one results tree:
- a results tree already registered gets its name back;
- a new one gets its directory's name (`results` -> `plots/results/`, the layout pnetviz always
  had), unless another results tree holds that name: then `<parent>-<name>`
  (`/x/ana/results` -> `ana-results`), then that with a number (`ana-results-2`, ...);
- `--round NAME` gives another name; one registered to another results tree is refused.
The registry is read here and written by output.rounds.claim when a run publishes.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from pnetviz import escape
from pnetviz.errors import InputError
from pnetviz.io import layout
from pnetviz.io.layout import check_name, name_problem
from pnetviz.io.readers import MAX_SMALL_BYTES, parse_json, read_bytes

REGISTRY = "rounds.json"  # in the plots tree's root
RESERVED = frozenset({"campaign", "diff", REGISTRY})  # the campaign summary's and pnetviz diff's places
REGISTRY_FIX = "repair or remove it (pnetviz then names the rounds anew)"


def registry(plots_root: Path) -> dict[str, str]:
    """The plots tree's registry {round name: resolved results path} ({} if there is none);
    InputError naming the file if it is not one. Read by the guarded reader: a FIFO, a device,
    a huge or deeply nested file is one line, never a hang."""
    path = Path(plots_root) / REGISTRY
    name = escape.printable(str(path))
    if not os.path.exists(path):  # no registry yet (or no plots tree: said where it is made)
        return {}
    data = parse_json(read_bytes(path, "round registry", MAX_SMALL_BYTES, name, REGISTRY_FIX), name, REGISTRY_FIX, unique=True)
    rounds = data.get("rounds") if isinstance(data, dict) else None
    if not isinstance(rounds, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in rounds.items()):
        raise InputError(f"{name}: not a round registry ({{\"rounds\": {{name: results path}}}}). Fix: {REGISTRY_FIX}.")
    for round_, results in rounds.items():  # a name is a directory of the plots tree: as --round is checked
        problem = name_problem(round_) or (f"'{round_}' is the plots tree's own" if round_ in RESERVED else None)
        if problem is None and not os.path.isabs(results):
            problem = "its results path is not absolute (pnetviz records resolved paths)"
        if problem:
            raise InputError(f"{name}: rounds: {escape.printable(round_)[:80]!r} is not a round name ({problem}): pnetviz places "
                             f"output sets in the plots tree by this name. Fix: {REGISTRY_FIX}.")  # fmt: skip
    return rounds


def derive_name(results: Path, taken: dict[str, str] | None = None) -> str:
    """The default round name of the results tree `results` when the names in `taken` (name ->
    results path) are held by other trees: its directory's name, else `<parent>-<name>`, else
    that with `-2`, `-3`, ... (a name that cannot be a path component is skipped)."""
    taken = taken or {}
    real = Path(results).resolve()
    name = real.name or "results"
    joined = f"{real.parent.name}-{name}" if real.parent.name else name
    candidates = [name, joined] + [f"{joined}-{n}" for n in range(2, len(taken) + 3)]
    for candidate in candidates:
        if name_problem(candidate) is None and candidate not in RESERVED and candidate not in taken:
            return candidate
    return f"round-{len(taken) + 1}"  # not reached: the numbered names outnumber the taken ones


def check_round_name(name: str) -> str:
    """`--round NAME`, checked to be a single path component (InputError naming the fix)."""
    check_name(name, "round", "--round", "give a plain name, e.g. --round week48.")
    if name in RESERVED:
        raise InputError(f"--round {name}: the plots tree's own name for the campaign summary, pnetviz diff or the "
                         "round registry. Fix: give another name, e.g. --round week48.")  # fmt: skip
    return name


def taken_error(plots_root: Path, name: str, owner: str, results: Path) -> InputError:
    """The one line for a round name that another results tree holds."""
    return InputError(f"{escape.printable(str(Path(plots_root) / REGISTRY))}: round '{escape.printable(name)}' is the "
                      f"results tree {escape.printable(owner)}; this run is {escape.printable(str(Path(results).resolve()))}, "
                      "and rounds are never mixed. Fix: give this round its own place with --round NAME (another "
                      "name), or another --plots-dir.")  # fmt: skip


def round_name(plots_root: Path, results: Path, given: str | None) -> str:
    """The round name of `results` in the plots tree `plots_root`: `--round` (`given`, checked,
    refused if registered to another results tree), the registered name of `results`, else a
    new name (derive_name)."""
    rounds = registry(plots_root)
    real = str(Path(results).resolve())
    if given is not None:
        check_round_name(given)
        if rounds.get(given, real) != real:
            raise taken_error(plots_root, given, rounds[given], results)
        return given
    for name, path in rounds.items():
        if path == real:
            return name
    return derive_name(results, rounds)


def trainer_identity(predictions: Path, prefix: str) -> tuple[Path, layout.ModelFile] | None:
    """(results tree, ModelFile) of a prediction ntuple that sits in a results tree
    (`<results>/<channel>/<kind>/<prefix><signal>/{fold-<k>,pilot}/trees/<model>.root`, or the
    first layout's `.../fold-<k>/predictions.root`), so that `--predictions` publishes where
    `--results-dir` does; None for a file elsewhere."""
    real = Path(predictions).resolve()
    parts = real.parts
    if real.name == layout.PREDICTIONS_FILE and len(parts) >= 6:
        channel, kind, model_dir, fold_name = parts[-5:-1]
        m = re.fullmatch(r"fold-(\d+)", fold_name)
        signal, _, background = model_dir.partition("_vs_")
        if m and kind in layout.KINDS and (kind == "multiclass") == (not background):
            return real.parents[4], layout.ModelFile(kind, channel, signal, int(m.group(1)), predictions, None, background or None)
        return None
    if real.suffix != ".root" or len(parts) < 7 or parts[-2] != "trees":
        return None
    channel, kind, signal_dir, fold_name = parts[-6:-2]
    m = re.fullmatch(r"fold-(\d+)", fold_name)
    model = real.name[: -len(".root")]
    if kind not in layout.KINDS or not (m or fold_name == layout.PILOT) or not (prefix and signal_dir.startswith(prefix)):
        return None
    background = layout.model_background(model)
    if (kind == "binary") != (background is not None):
        return None
    fold = int(m.group(1)) if m else None
    return real.parents[5], layout.ModelFile(kind, channel, signal_dir[len(prefix):], fold, predictions, model, background)
