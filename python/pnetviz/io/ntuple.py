"""Reading and validating prediction ntuples (the contract documented in docs/inputs.md).

A prediction ntuple is a ROOT file with a TTree (default ``Events``) holding per event:
``true_label`` (integer: index into the class list, 0 = signal), ``score_<class>`` (float or
double), ``weight`` (float or double, may be negative), ``train_mask`` and ``test_mask``
(bool or integer), optionally ``valid_mask`` and boolean subset branches such as ``has_bjet``.
Every column is read in one pass over the tree by the compiled reader in
`macros/column_reader.h` (4x faster than RDataFrame AsNumpy here; see benchmarks/README.md);
every problem becomes an InputError naming the file and branch. Another group's names and
expressions (`--column NAME=EXPR`) are laid over the tree by `pnetviz.io.columns`.

Damaged files: before ROOT opens a ntuple, `check_structure` reads its bookkeeping in pure
Python (`pnetviz.io.structure`: header, keys, the tree's and StreamerInfo's records and checksums);
before the event loop the baskets of the branches to read are checked against the tree. Damage
found is one InputError. A file the check cannot fully verify (records without a checksum:
written uncompressed or with zstd) is read in a guarded child process (`pnetviz.io.guard`), so
that a crash or hang inside ROOT is one InputError too; verified files are read in-process.
Cost, measured on a healthy 1e6-event ntuple (10 branches, 1009 baskets, 23 MB, 2-core VM):
file check 0.3 ms, basket tables 0.7 ms, basket headers 9 ms; read_predictions 355 -> 366 ms
(+3%) with the file in the page cache, 366 -> 398 ms (+8%) after dropping the caches (headers
read in file order: 25-36 ms). A guarded read costs a child start-up, 1.2-1.5 s per call.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pnetviz.errors import InputError, PnetvizWarning
from pnetviz.io import columns as mapped
from pnetviz.io import native
from pnetviz.io.branches import (BOOL_TYPES, DTYPES, FLOAT_TYPES, INT_TYPES, PROGRESS_MIN_ENTRIES,  # noqa: F401 - callers use ntuple.*
                                 _cpp_error, _dtype, _read_columns, _reblock, read_columns)
from pnetviz.io.treefile import REMADE, _basket_tables, _implicit_threads, branch_types, check_structure  # noqa: F401 - here too

DEFAULT_CLASSES = ("signal", "nonprompt", "diboson", "ttZ")
SPLITS = ("train", "test", "valid")


@dataclass
class Predictions:
    """Columns of one prediction ntuple as numpy arrays (one entry per event)."""

    path: Path
    classes: tuple[str, ...]
    label: np.ndarray  # integer class index (the branch's integer dtype; bool as uint8)
    scores: dict[str, np.ndarray]  # class name -> score array (float32 or float64)
    weight: np.ndarray  # float64 (float32 as stored with read_predictions' narrow), signed
    masks: dict[str, np.ndarray]  # split name -> bool; "valid" only when present
    subsets: dict[str, np.ndarray] = field(default_factory=dict)  # subset branch -> bool
    event_id: np.ndarray | None = None  # optional integer branch `event_id`, pairs events across ntuples
    extra: dict[str, np.ndarray] = field(default_factory=dict)  # further float branches asked for (variations)

    @property
    def n_events(self) -> int:
        return int(self.label.size)


MAX_WEIGHT, MIN_WEIGHT = 1e100, 1e-100  # |w| outside (squares over- or underflow float64): rejected  # progress bar from this many entries


def classes_from_branches(path: Path, tree: str = "Events", columns: tuple[tuple[str, str], ...] = ()) -> tuple[str, ...]:
    """Class names from the ``score_*`` branches in the tree's order (the trainer writes them in
    class order), then the mapped ``score_*`` columns (--column) in their order, ``signal`` first."""
    found = [*branch_types(Path(path), tree), *(name for name, _ in columns)]
    names = list(dict.fromkeys(b[len("score_"):] for b in found if b.startswith("score_") and "__" not in b))
    if "signal" not in names:
        raise InputError(f"{path}: no branch 'score_signal'; score branches found: "
                         f"{', '.join('score_' + n for n in names) or 'none'}. Fix: the ntuple contract is in docs/inputs.md.")  # fmt: skip
    return ("signal", *(n for n in names if n != "signal"))


def _require(path: Path, types: dict[str, str], branch: str, allowed: set[str], what: str) -> None:
    if branch not in types:
        raise InputError(
            f"{path}: branch '{branch}' is missing; branches found: {', '.join(sorted(types))}. "
            f"Fix: {what}"
        )
    if types[branch] not in allowed:
        raise InputError(
            f"{path}: branch '{branch}' has type {types[branch]}, expected one of "
            f"{', '.join(sorted(allowed & {'int', 'bool', 'float', 'double', 'Int_t', 'Float_t', 'Double_t', 'Bool_t'}))}. "
            "Fix: write it with a supported type."
        )


def read_predictions(
    path: Path | str,
    classes: Sequence[str] = DEFAULT_CLASSES,
    score_classes: Sequence[str] | None = None,
    tree: str = "Events",
    subsets: Sequence[str] = (),
    progress: bool = False,
    with_event_id: bool = False,
    optional_subsets: Sequence[str] = (),
    binary: bool = False,
    extra: Sequence[str] = (),
    columns: tuple[tuple[str, str], ...] = (),
    observe: Sequence[str] = (),
    mass: str | None = None,
    narrow: bool = False,
) -> Predictions:
    """Read and validate one prediction ntuple.

    classes: class names in label order (label i <-> classes[i]; classes[0] is the signal).
    score_classes: which ``score_<class>`` branches to read (default: all classes; a binary
    model has only ``score_signal``). subsets: extra boolean branches to read. progress: show a
    progress bar for files of at least PROGRESS_MIN_ENTRIES entries. with_event_id: also read the
    optional ``event_id`` branch (to pair events across ntuples). optional_subsets: subset
    branches read only if the tree has them (has_bjet). binary: the file must hold a binary model
    (one background score branch at most, whatever its name, e.g. the trainer's ``score_bg1``).
    extra: further float branches (systematic variations), as float64 in ``Predictions.extra``.
    columns: where contract columns come from (`pnetviz.io.columns`: --column NAME=EXPR).
    observe: observer branches (--observe), float, read into ``Predictions.extra`` as well.
    mass: the limits' mass observable (--mass-column: a float branch or mapped column), into ``extra``.
    narrow: a float32 weight column stays float32 (4 bytes an event, not a float64 copy), for a
    caller that widens what it sums (the values are the same; float32 sums would not be), and the
    labels, once validated, are uint8 (1 byte an event; the same class indices).
    """
    path = Path(path)
    classes = tuple(classes)
    score_classes = tuple(classes if score_classes is None else score_classes)
    types = branch_types(path, tree)
    entries = int(types.pop(""))
    branches = dict(types)
    types = mapped.view_types(path, tree, types, columns, not columns or check_structure(path, tree).verified)
    hint = ("map it from your branches with --column NAME=EXPR or --columns FILE (docs/inputs.md, 'Your own ntuple')"
            + ("." if binary else "; class names are set with --classes."))  # fmt: skip
    _require(path, types, "true_label", INT_TYPES | {"Bool_t", "bool"}, hint)
    _require(path, types, "weight", FLOAT_TYPES, hint)
    for name in score_classes:
        _require(path, types, f"score_{name}", FLOAT_TYPES, hint)
    for split in ("train", "test"):
        _require(path, types, f"{split}_mask", BOOL_TYPES, hint)
    has_valid = "valid_mask" in types
    if has_valid:
        _require(path, types, "valid_mask", BOOL_TYPES, hint)
    subsets = [name for name in subsets if name not in optional_subsets or name in types]
    for name in subsets:
        _require(path, types, name, BOOL_TYPES, "choose an existing boolean branch for --subset.")
    for name in extra:
        _require(path, types, name, FLOAT_TYPES, "write every variation branch as float or double.")
    for name in observe:
        _require(path, types, name, FLOAT_TYPES, f"--observe names float branches of tree '{tree}'; choose from those.")
    if mass:
        _require(path, types, mass, FLOAT_TYPES, "--mass-column names a float branch of tree "
                 f"'{tree}' or a column mapped with --column NAME=EXPR; choose one of those.")  # fmt: skip
    extra = [*extra, *(name for name in (*observe, *([mass] if mass else [])) if name not in extra)]
    other_scores = [b for b in types if b.startswith("score_") and b != "score_signal" and "__" not in b]
    if binary and len(other_scores) > 1:
        raise InputError(f"{path}: {len(other_scores)} background score branches ({', '.join(other_scores)}): this is "
                         "a multi-class model. Fix: evaluate it with pnetviz multiclass.")  # fmt: skip

    columns_map, columns = columns, ["true_label", "weight", *(f"score_{c}" for c in score_classes), "train_mask", "test_mask"]
    columns += ["valid_mask"] * has_valid + list(subsets)
    has_id = with_event_id and types.get("event_id") in INT_TYPES
    columns += ["event_id"] * has_id + list(extra)
    data = mapped.read_view(path, tree, columns_map, {c: types[c] for c in dict.fromkeys(columns)}, branches, entries,
                            progress, block=[f"score_{c}" for c in score_classes])  # fmt: skip
    preds = Predictions(
        path=path,
        classes=classes,
        label=data["true_label"].view(np.uint8) if data["true_label"].dtype == np.bool_ else data["true_label"],
        scores={c: data[f"score_{c}"] for c in score_classes},
        weight=data["weight"] if narrow and data["weight"].dtype == np.float32 else data["weight"].astype(np.float64, copy=False),
        masks={s: _as_bool(data[f"{s}_mask"]) for s in SPLITS if f"{s}_mask" in data},
        subsets={name: _as_bool(data[name]) for name in subsets},
        event_id=data["event_id"].astype(np.int64, copy=False) if has_id else None,
        extra={name: data[name].astype(np.float64, copy=False) for name in extra},
    )
    validate(preds)
    if narrow and preds.label.dtype.itemsize > 1 and len(classes) <= 256:  # validated: every label in [0, classes)
        preds.label = preds.label.astype(np.uint8)
    return preds


def _as_bool(values: np.ndarray) -> np.ndarray:
    return values if values.dtype == np.bool_ else values != 0


def _class_sums(preds: Predictions, w: np.ndarray, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """Events and sum of `w` per class by numpy; InputError for labels outside the class list."""
    inside = not preds.label.size or (preds.label.min() >= 0 and preds.label.max() < n_classes)
    outside = None if inside else (preds.label < 0) | (preds.label >= n_classes)
    if outside is not None and np.any(outside):
        found = ", ".join(str(v) for v in np.unique(preds.label[outside])[:10])
        raise InputError(
            f"{preds.path}: branch 'true_label' has values {found} outside the class list "
            f"{list(preds.classes)} (labels 0..{n_classes - 1}). Fix: pass the full list with --classes."
        )
    labels = preds.label.astype(np.intp, copy=False)  # bincount would cast it for each of its two calls
    return np.bincount(labels, minlength=n_classes), np.bincount(labels, weights=w, minlength=n_classes)


def validate(preds: Predictions) -> None:
    """Content checks: finite values, labels in the class list, every class populated."""
    path = preds.path
    ranges = {}  # column -> (min, max): both finite exactly when every value is (NaN and inf reach them)
    for name, values in [("weight", preds.weight), *((f"score_{c}", s) for c, s in preds.scores.items()),
                         *preds.extra.items()]:  # fmt: skip
        ranges[name] = (values.min(), values.max()) if values.size else (0.0, 0.0)
        if np.isfinite(ranges[name]).all():  # two reductions, no mask (1e7 events: 5 such columns)
            continue
        bad = ~np.isfinite(values)
        if np.any(bad):
            raise InputError(
                f"{path}: branch '{name}' has {int(bad.sum())} NaN/inf values "
                f"(first at entry {int(np.argmax(bad))}). Fix: repair the inference output."
            )
    low, high = (float(v) for v in ranges["weight"])  # compared with the limits in float64 (a float32 column's too)
    # all weights in [MIN_WEIGHT, MAX_WEIGHT] (the usual case): none extreme, |w| is w (no masks, no copy)
    w = preds.weight if MIN_WEIGHT <= low and high <= MAX_WEIGHT else np.abs(preds.weight)
    # float32 (narrow) holds no value beyond the limits: |w| < 3.5e38, nonzero |w| > 1e-45
    extreme = None if w is preds.weight or w.dtype == np.float32 else (w > MAX_WEIGHT) | ((w > 0) & (w < MIN_WEIGHT))
    if extreme is not None and np.any(extreme):
        raise InputError(
            f"{path}: branch 'weight' has {int(extreme.sum())} values beyond 1e+-100 in magnitude (first at entry "
            f"{int(np.argmax(extreme))}: {preds.weight[np.argmax(extreme)]:.3g}); their squares leave double precision "
            "(errors, effective event counts). Fix: rescale the weights."
        )
    for c, s in preds.scores.items():
        if ranges[f"score_{c}"][0] >= 0 and ranges[f"score_{c}"][1] <= 1:  # the reductions above, no masks
            continue
        below, above = int(np.count_nonzero(s < 0)), int(np.count_nonzero(s > 1))
        if below or above:
            warnings.warn(
                f"{path}: 'score_{c}' has {below} values below 0 and {above} above 1 (not a probability?): curves "
                "and AUCs use the exact values; in the 50-bin score histograms on [0, 1] they are counted in the "
                "first and the last bin (no event is lost from the normalisation).",
                PnetvizWarning,
                stacklevel=2,
            )
    n_classes = len(preds.classes)
    # events and |weight| per class in one pass, no copies (the library; numpy's bincount needs the
    # labels as intp: an 80 MB copy and 0.1 s at 1e7 events); a mask and fancy index per class cost 0.4 s
    wide = preds.weight.astype(np.float64, copy=False)  # a float32 column (narrow) widened for the kernel
    table = native.class_sums(preds.label, wide, n_classes)
    del wide
    if table is not None and not table[2]:
        counts, sums = table[0], table[1]
    else:
        counts, sums = _class_sums(preds, w, n_classes)
    for index, name in enumerate(preds.classes):
        if not counts[index]:
            raise InputError(
                f"{path}: class '{name}' (true_label == {index}) has no events. "
                "Fix: check --classes and the ntuple."
            )
        if sums[index] == 0:
            raise InputError(f"{path}: class '{name}' has zero total weight. Fix: check the 'weight' branch.")
