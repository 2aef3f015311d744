"""A multi-class fold set's reports: summary_report.json (per pair, per class, confusion and
decisions), the per-class classification report and its text (jobs.multiclass writes them)."""

from __future__ import annotations

import math

import numpy as np

from pnetviz.jobs import decisions
from pnetviz.metrics.calibration import prevalence_note
from pnetviz.metrics.evaluate import Confusion, gather, yields
from pnetviz.io.history import TrainingHistory
from pnetviz.io.ntuple import Predictions
from pnetviz.jobs.multijob import Decisions, Evaluation, MultiClassJob, one_vs_rest_auc


def confusion_report(c: Confusion) -> dict:
    return {"labels": list(c.labels), "counts": c.counts, "weighted": c.weighted, "normalised": c.normalised}


def build_report(job: MultiClassJob, preds: Predictions, ev: Evaluation, history: TrainingHistory | None,
                 notes: list[str]) -> dict:  # fmt: skip
    per_split = {}
    for s, sel in ev.selections.items():  # the split's events once (weight[sel & class k] = its weights of class k)
        label, weight = gather(sel, preds.label, preds.weight)
        per_split[s] = {job.names[k]: yields(weight[label == k]) for k in range(len(job.classes))}
    keep = preds.subsets[job.subset] if job.subset else None
    auc = {}
    for i, (background, results) in enumerate(ev.pairs.items(), start=1):
        auc[background] = {
            **{s: r.curve.auc for s, r in results.items()},
            "events_used": {
                s: {job.names[0]: int(r.sample.is_signal.sum()), background: int((~r.sample.is_signal).sum())}
                for s, r in results.items()
            },
            "selection": f"true_label in {{0, {i}}}" + (f" and {job.subset}" if job.subset else "") + ", per split mask",
            "score": f"P({job.classes[0]}) / (P({job.classes[0]}) + P({background}) + 1e-10)",
        }
    report = {
        "kind": "multiclass",
        "classes": list(job.classes),
        "labels": dict(zip(job.names, job.display)),
        "signal": job.signal,
        "channel": job.channel,
        **job.report_identity(),
        "input": str(preds.path),
        "history": str(history.path) if history else None,
        "subset": job.subset,
        "weight_mode": job.hep.weight_mode,
        "signal_scale": job.hep.signal_scale,
        "events": {s: {c: v["events"] for c, v in d.items()} for s, d in per_split.items()},
        "sum_weights": {s: {c: v["sum_weights"] for c, v in d.items()} for s, d in per_split.items()},
        "yields": per_split,
        "negative_weight_fraction": {
            job.names[k]: yields(gather(ev.class_masks[k] if keep is None else keep & ev.class_masks[k],
                                        preds.weight)[0])["negative_weight_fraction"]
            for k in range(len(job.classes))
        },
        "auc": auc,
        "average_precision": {b: {s: r.average_precision for s, r in res.items()} for b, res in ev.pairs.items()},
        "per_class": {
            s: {job.names[k]: {"precision": m.precision[k], "recall": m.recall[k], "f1": m.f1[k]}
                for k in range(len(job.classes))}
            for s, m in ev.metrics.items()
        },  # fmt: skip
        "confusion_matrix": {
            "prediction": "argmax of the class scores; weights after the weight mode",
            "overall": {s: confusion_report(m.confusion) for s, m in ev.metrics.items()},
            "one_vs_rest": {
                job.names[k]: {s: confusion_report(ev.one_vs_rest[s][k]) for s in ev.metrics}
                for k in range(len(job.classes))
            },  # fmt: skip
        },
    }
    report["hep_metrics"] = ev.hep
    report["one_vs_rest_auc"] = auc = {job.names[k]: {} for k in range(len(job.classes))}
    for s, sel in ev.selections.items():  # each split's labels and weights taken once, not once a class
        label, used, *scores = gather(sel, preds.label, ev.used, *(preds.scores[c] for c in job.classes))
        for k in range(len(job.classes)):
            auc[job.names[k]][s] = one_vs_rest_auc(scores[k], label == k, used)
    if ev.subset_comparisons:
        report["bjet_performance"] = {b: {"branch": c.branch, "split": "test", **c.report}
                                      for b, c in ev.subset_comparisons.items()}  # fmt: skip
    if history is not None:
        report["training"] = history.report()
    report["notes"] = notes
    return report


def decision_report(job: MultiClassJob, ev: Evaluation, decided: Decisions) -> dict:
    """The report sections working_points and cut_scan (per background pair, LR score),
    calibration (per class score) and pairwise_auc (test matrix and class order)."""
    return {
        "working_points": {b: {**d.meta, "points": d.points} for b, d in decided.pairs.items()},
        "cut_scan": {b: decisions.scan_section(d, ev.pairs[b]["test"], ev.hep[b]) for b, d in decided.pairs.items()},
        "calibration": {c: {"score": f"score_{c}", "bins": "equal bins of [0, 1]", **{s: r.report() for s, r in per.items()},
                            **({"prevalence_note": prevalence_note(per)} if prevalence_note(per) else {})}
                        for c, per in decided.calibration.items()},
        "pairwise_auc": {"classes": list(job.classes), "matrix": decided.pairwise, "split": "test",
                         "entry": "matrix[i][j] = AUC of class i (positive) vs class j on the events of classes i and j; "
                                  "diagonal undefined (null)",
                         "score": "P_i / (P_i + P_j + 1e-10)", "weights": f"{job.hep.weight_mode} (--weights)"},
    }  # fmt: skip


REPORT_COLUMNS = ("precision", "recall", "f1-score", "support")


def classification_report(job: MultiClassJob, ev: Evaluation, split: str = "test") -> dict:
    """scikit-learn's classification_report(output_dict=True) of the argmax prediction, weighted
    (weights after the weight mode; support = summed weights of the true class), per class plus
    accuracy, macro and support-weighted averages; event counts alongside."""
    m, tables = ev.metrics[split], ev.tables[split]
    support = tables.confusion.sum(axis=1)
    out = {"split": split, "weights": f"{job.hep.weight_mode} (weights after the weight mode)"}
    for k, name in enumerate(job.classes):
        out[name] = {"precision": m.precision[k], "recall": m.recall[k], "f1-score": m.f1[k], "support": support[k],
                     "events": int(tables.counts[k].sum())}  # fmt: skip
    total = support.sum()
    out["accuracy"] = float(np.trace(tables.confusion) / total) if total else math.nan
    rows = np.stack([m.precision, m.recall, m.f1])
    out["macro avg"] = {**dict(zip(REPORT_COLUMNS, rows.mean(axis=1))), "support": total}
    weighted = rows @ support / total if total else np.full(3, math.nan)
    out["weighted avg"] = {**dict(zip(REPORT_COLUMNS, weighted)), "support": total}
    return out


def classification_text(report: dict, title: str) -> str:
    """The report laid out as scikit-learn prints it."""
    rows = [k for k, v in report.items() if isinstance(v, dict)]
    width = max(len(r) for r in [*rows, "weighted avg"])
    lines = [title, "", " " * width + "".join(f"{c:>12}" for c in REPORT_COLUMNS), ""]
    for name in rows:
        if name in ("macro avg", "weighted avg"):
            continue
        r = report[name]
        lines.append(f"{name:>{width}}" + "".join(f"{r[c]:>12.4f}" for c in REPORT_COLUMNS[:3]) + f"{r['support']:>12.4g}")
    lines.append("")
    lines.append(f"{'accuracy':>{width}}" + " " * 24 + f"{report['accuracy']:>12.4f}" + f"{report['macro avg']['support']:>12.4g}")
    for name in ("macro avg", "weighted avg"):
        r = report[name]
        lines.append(f"{name:>{width}}" + "".join(f"{r[c]:>12.4f}" for c in REPORT_COLUMNS[:3]) + f"{r['support']:>12.4g}")
    lines.append(f"\n{report['split']} events; weights: {report['weights']}; support = summed weights of the true class.")
    return "\n".join(lines) + "\n"

