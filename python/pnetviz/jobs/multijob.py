"""One fold of a multi-class model and what its evaluation holds: the job and its classes (the
trainer's JSON or the ntuple's branches), the argmax class tables and per-class metrics, the
likelihood-ratio samples of each background pair, the evaluation and decision records
(jobs.multiclass evaluates, jobs.multifigures and jobs.multireport draw and report them)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from pnetviz.names import name as quantity
from pnetviz.jobs import decisions, subsets
from pnetviz.metrics.calibration import Reliability
from pnetviz.metrics.evaluate import CALIBRATION_BINS, N_BINS, BinarySample, Confusion, SplitResult, lr_score, row_normalise
from pnetviz.jobs.driver import FoldJob
from pnetviz.errors import InputError
from pnetviz.io.ntuple import Predictions, classes_from_branches
from pnetviz.metrics.roc import SingleClassError, binary_clf_curve
from pnetviz.io.kernels import kernels


@dataclass(frozen=True, kw_only=True)
class MultiClassJob(FoldJob):
    """One fold of a multi-class model; `classes` (branch names) in label order, signal first.
    None: from the trainer's JSON (background_info), else from the ntuple's score_* branches."""

    classes: tuple[str, ...] | None = None
    fit_score: str = "lr"  # --fit-score: the score binned for the fit (jobs.multibins)
    score: str = "lr"  # --score: lr = the pairwise LR scores; weighted-lr = also the weighted LR (jobs.multiweighted)

    @property
    def names(self) -> tuple[str, ...]:
        """Class names, the keys of the report (as in classification_report.json and the ROOT
        file): the branch names, class 0 first; the signal point is the report's `signal` field."""
        return tuple(self.classes)

    @property
    def display(self) -> tuple[str, ...]:
        """Class labels for plots: the signal point, then --labels or the physics defaults (t#bar{t}X)."""
        first = self.label_overrides.get(self.classes[0], "Signal")
        return (first, *(self.label(c) for c in self.classes[1:]))

    def p_of(self, k: int) -> str:
        """The score of class k on a plot: P(signal) (names.QUANTITIES, unless --labels renames the
        signal), P(t#bar{t}X), ..."""
        if k == 0 and self.classes[0] not in self.label_overrides:
            return quantity("p_signal")
        return f"P({self.display[k]})"


def resolve_classes(job: MultiClassJob) -> MultiClassJob:
    """The job with its class list: --classes, else the trainer's background_info, else the ntuple's
    score_* branches in order. Where the trainer's JSON and the ntuple both say, they must agree
    (names, order, number): the order decides which true_label is which class, so a silent choice
    between two contradicting sources gives wrong AUCs."""
    if job.classes is not None:
        return job
    from_branches = classes_from_branches(job.predictions, job.tree, job.columns)
    from_json = job.info.classes()
    if from_json is not None:
        check_class_sources(job, from_json, from_branches)
    classes = from_json or from_branches
    declared = declared_class_count(job.info)
    if declared is not None and declared != len(classes):
        raise InputError(f"{job.info.performance or job.predictions}: num_classes is {declared} but the classes are "
                         f"{', '.join(classes)} ({len(classes)}). Fix: pass --classes in the ntuple's label order.")  # fmt: skip
    return replace(job, classes=classes)


def check_class_sources(job: MultiClassJob, from_json: tuple[str, ...], from_branches: tuple[str, ...]) -> None:
    """InputError naming both sources unless the trainer's JSON and the ntuple's score branches
    list the same classes in the same order."""
    if from_json == from_branches:
        return
    what = "in another order" if sorted(from_json) == sorted(from_branches) else "other classes"
    raise InputError(f"{job.info.performance or 'the trainer JSON'}: background_info gives the classes as "
                     f"{', '.join(from_json)}, but {job.predictions} has score branches for {what}: "
                     f"{', '.join(from_branches)}. Fix: pass --classes with the class names in true_label order "
                     "(0 = signal).")  # fmt: skip


def declared_class_count(info) -> int | None:
    """num_classes from the trainer's training_config or model_info JSON, if it says."""
    config = info.meta.get("training_config") if isinstance(info.meta, dict) else None
    for source in (config if isinstance(config, dict) else {}, info.info if isinstance(info.info, dict) else {}):
        n = source.get("num_classes")
        if isinstance(n, int) and not isinstance(n, bool):
            return n
    return None


def file_tag(name: str) -> str:
    """Class name as used in output file names: as written (signal_vs_ttX_roc_curve)."""
    return name


@dataclass(frozen=True)
class ClassTables:
    """One split's argmax confusion and class-score histograms (`macros/class_tables.h`)."""

    confusion: np.ndarray  # k x k, rows = true class, columns = argmax class: summed weights used
    counts: np.ndarray  # k x k, events with non-zero weight used
    hist: np.ndarray  # k (score of class c) x k (true class t) x N_BINS: summed weights on [0, 1]
    hist_w2: np.ndarray  # same, summed squared weights
    events: np.ndarray  # k: events of each true class in the split (histogram entries)


def score_matrix(preds: Predictions) -> np.ndarray:
    """The class scores as one C-contiguous (k, n) array: the reader's block, else a float64 copy."""
    rows = [preds.scores[c] for c in preds.classes]
    block = rows[0].base
    if (isinstance(block, np.ndarray) and block.shape == (len(rows), preds.n_events) and block.flags.c_contiguous
            and all(r.ctypes.data == b.ctypes.data for r, b in zip(rows, block))):  # fmt: skip
        return block
    return np.stack([np.asarray(r, dtype=np.float64) for r in rows])


def class_tables(scores: np.ndarray, label: np.ndarray, used: np.ndarray, sel: np.ndarray) -> ClassTables:
    """Argmax confusion and the N_BINS-bin histograms of every class score for every true class,
    over the events with `sel`, in one C++ pass. `used`: weights after the weight mode."""
    k, n = scores.shape
    kernel = kernels().class_tables_f32 if scores.dtype == np.float32 else kernels().class_tables_f64
    confusion, counts = np.empty((k, k)), np.empty((k, k))
    hist, hist_w2 = np.empty((k, k, N_BINS)), np.empty((k, k, N_BINS))
    kernel(scores, n, k, np.ascontiguousarray(label, dtype=np.int32), np.ascontiguousarray(used, dtype=np.float64),
           np.ascontiguousarray(sel).view(np.uint8), N_BINS, confusion, counts, hist, hist_w2)  # fmt: skip
    return ClassTables(confusion, counts, hist, hist_w2, np.bincount(label[sel], minlength=k))


def class_reliability(scores: np.ndarray, label: np.ndarray, used: np.ndarray, sel: np.ndarray,
                      bins: int = CALIBRATION_BINS) -> np.ndarray:  # fmt: skip
    """Per class (first axis) calibration.reliability_sums of P(class) against label == class over
    the events with `sel`, the same doubles, in one C++ pass over the split (no per-class copies).
    `scores`: score_matrix's (k, n) block; `used`: weights after the weight mode."""
    k, n = scores.shape
    kernel = kernels().class_reliability_f32 if scores.dtype == np.float32 else kernels().class_reliability_f64
    out = np.empty((k, 6, bins))
    kernel(scores, n, k, np.ascontiguousarray(label, dtype=np.int32), np.ascontiguousarray(used, dtype=np.float64),
           np.ascontiguousarray(sel).view(np.uint8), bins, out)  # fmt: skip
    return out


@dataclass(frozen=True)
class ClassMetrics:
    """Weighted argmax metrics of one split (weights after the weight mode)."""

    confusion: Confusion  # N x N
    precision: np.ndarray
    recall: np.ndarray
    f1: np.ndarray


def class_metrics(tables: ClassTables, labels: tuple[str, ...]) -> ClassMetrics:
    """Confusion matrix and per-class precision, recall, F1 of the argmax prediction."""
    weighted, n = tables.confusion, len(labels)
    tp, predicted, true = np.diag(weighted), weighted.sum(axis=0), weighted.sum(axis=1)
    precision = np.divide(tp, predicted, out=np.zeros(n), where=predicted != 0)
    recall = np.divide(tp, true, out=np.zeros(n), where=true != 0)
    denom = precision + recall
    f1 = np.divide(2 * precision * recall, denom, out=np.zeros(n), where=denom != 0)
    confusion = Confusion(labels, tables.counts, weighted, row_normalise(weighted))
    return ClassMetrics(confusion, precision, recall, f1)


def one_vs_rest(confusion: Confusion, index: int) -> Confusion:
    """2x2 confusion of class `index` against all others (argmax prediction), from the k x k one;
    row/column 0 = the class."""

    def collapse(matrix: np.ndarray) -> np.ndarray:
        tp, true, predicted = matrix[index, index], matrix[index].sum(), matrix[:, index].sum()
        return np.array([[tp, true - tp], [predicted - tp, matrix.sum() - true - predicted + tp]])

    weighted = collapse(confusion.weighted)
    return Confusion((confusion.labels[index], "rest"), collapse(confusion.counts), weighted, row_normalise(weighted))


def check_lr(preds: Predictions, lr: np.ndarray, events: np.ndarray, background: str) -> None:
    """InputError naming the events whose likelihood-ratio denominator P(s) + P(b) + 1e-10 is 0."""
    bad = ~np.isfinite(lr)
    if np.any(bad):
        entries = ", ".join(str(e) for e in events[bad][:5])
        raise InputError(f"{preds.path}: {int(bad.sum())} events have P(signal) + P({background}) + 1e-10 = 0, so their "
                         f"likelihood ratio is undefined (entries {entries}). Fix: scores must be probabilities "
                         "(non-negative).")  # fmt: skip


def pair_samples(preds: Predictions, used: np.ndarray, selections: dict[str, np.ndarray],
                 class_masks: list[np.ndarray], index: int) -> dict[str, BinarySample]:  # fmt: skip
    """Signal vs class `index` per split: LR scores of the events with true_label in {0, index}."""
    in_pair = class_masks[0] | class_masks[index]
    p_signal, p_background = preds.scores[preds.classes[0]], preds.scores[preds.classes[index]]
    out = {}
    for split, sel in selections.items():
        events = np.flatnonzero(sel & in_pair)
        lr = lr_score(p_signal[events], p_background[events])
        check_lr(preds, lr, events, preds.classes[index])
        out[split] = BinarySample(scores=lr,
                                  is_signal=class_masks[0][events], weights=preds.weight[events], used=used[events])  # fmt: skip
    return out


def one_vs_rest_auc(scores: np.ndarray, is_class: np.ndarray, used: np.ndarray) -> float | None:
    """The AUC of one class against the rest; None where the split lacks the class (or the rest)."""
    try:
        return binary_clf_curve(scores, is_class, used).auc
    except SingleClassError:
        return None


@dataclass(frozen=True)
class Evaluation:
    pairs: dict[str, dict[str, SplitResult]]  # background -> split -> result
    tables: dict[str, ClassTables]  # split -> argmax confusion and class-score histograms
    metrics: dict[str, ClassMetrics]  # split -> argmax metrics
    selections: dict[str, np.ndarray]  # split -> event mask (split & subset)
    hep: dict[str, dict]  # background -> pairmetrics.pair_metrics
    one_vs_rest: dict[str, list[Confusion]]  # split -> per class
    class_masks: list[np.ndarray]  # true_label == k, computed once
    used: np.ndarray  # weights after the weight mode, all events
    subset_comparisons: dict[str, subsets.SubsetComparison]  # background -> has_bjet comparison (if made)
    skipped: dict[str, str] = field(default_factory=dict)  # background -> why its pair was not evaluated (a class absent)
    weighted: object = None  # jobs.multiweighted.WeightedEvaluation (--score weighted-lr), else None


def context_lines(job: MultiClassJob, what: str = "multi-class") -> list[str]:
    return job.context(what)


@dataclass(frozen=True)
class Decisions:
    """Working points and cut scans per background pair, calibration per class, the pairwise AUC matrix."""

    pairs: dict[str, decisions.PairDecisions]  # background -> working points and test cut scan
    calibration: dict[str, dict[str, Reliability]]  # class -> split -> reliability of P(class)
    pairwise: np.ndarray  # k x k test AUC of class i (positive) vs class j

