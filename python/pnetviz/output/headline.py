"""The headline of a summary_report.txt: the answer first (model, fold(s), test AUC +- error,
rejection at the working points, KS p, FIP2, the binned sensitivity), then the details.

Reads the report's plain data (output.report.plain) of a binary or multi-class evaluation of one
fold, or of a fold summary (`pairs` with means and standard deviations over folds), and of a
binary vs multi-class comparison (one fold or its folds/ summary), and of a campaign (its jobs and
every binary vs multi-class comparison of the round); any other report (GA) has no headline. Values are PDG-rounded (metrics.rounding);
a missing entry is left out, never guessed.
"""

from __future__ import annotations

from pnetviz.escape import text_line
from pnetviz.metrics.rounding import asymmetric, pm

HEADER = "headline (test split):"
HALF = 0.5  # a rejection error above this fraction of the rejection: shown as the range of 1/(eps_b +- error)


def headline(report: dict) -> list[str]:
    """The headline lines of `report` (with a last empty line and a 'details:' line), or []."""
    if report.get("kind") in ("binary", "multiclass"):
        lines = _one_fold(report)
    elif isinstance(report.get("jobs"), dict) and isinstance(report.get("binary_vs_multiclass"), list):
        lines = _campaign(report)
    elif report.get("kind") == "comparison" and isinstance(report.get("pairs"), dict):
        lines = _comparison_fold(report)
    elif isinstance(report.get("pairs"), dict) and "folds" in report and _compared(report["pairs"]):
        lines = _comparison_folds(report)
    elif isinstance(report.get("pairs"), dict) and "folds" in report:
        lines = _fold_summary(report)
    else:
        return []
    return [HEADER, *lines, "", "details:"] if lines else []


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _g(value, digits: int = 2) -> str:
    """A value without an error (a p-value, a FIP) to `digits` significant digits."""
    return f"{value:.{digits}g}" if _number(value) else "n/a"


def _one_fold(report: dict) -> list[str]:
    model = (report.get("model") or {}).get("model_name")
    lines = [f"  model: {text_line(model)}"] if model else []
    fold = report.get("fold")
    lines.append(f"  fold: {'pilot' if report.get('pilot') else 'n/a' if fold is None else text_line(fold)}")
    hep, wps, binning = report.get("hep_metrics") or {}, report.get("working_points") or {}, report.get("binning") or {}
    if report["kind"] == "binary":
        pairs = [(f"{report.get('signal')} vs {report.get('background')}", hep, wps, binning)]
    else:
        bins = binning.get("pairs") or {}
        pairs = [(f"signal vs {b}", hep[b], wps.get(b) or {}, bins.get(f"signal vs {b}") or {})
                 for b in hep if isinstance(hep[b], dict) and "test" in hep[b]]  # fmt: skip
    for name, metrics, points, fit in pairs:
        lines += _pair_lines(name, metrics, points, fit)
    if report["kind"] == "multiclass":  # a binning without its own pair (--fit-score signal: signal vs all)
        shown = {f"signal vs {b}" for b in hep}
        lines += [f"  {text_line(name)}: {_binned(fit)}" for name, fit in (binning.get("pairs") or {}).items()
                  if name not in shown and isinstance(fit, dict) and _number(fit.get("value"))]  # fmt: skip
    return lines


def _pair_lines(name: str, metrics: dict, points: dict, fit: dict) -> list[str]:
    """Two lines of one signal-vs-background pair of a one-fold report."""
    test = metrics.get("test") or {}
    first = f"  {text_line(name)}: AUC {pm(test.get('auc'), test.get('auc_error'))}"
    rejections = [rejection_text(p) for p in points.get("points") or [] if isinstance(p.get("test"), dict)]
    if rejections:
        first += f"; rejection ({text_line(points.get('wp_from', 'train'))}-chosen cuts) " + ", ".join(rejections)
    second = []
    ks = metrics.get("overtraining") or {}
    if "ks_signal" in ks:
        second.append(f"KS p (train vs test) signal {_g(ks['ks_signal'].get('p_value'))}, "
                      f"background {_g((ks.get('ks_background') or {}).get('p_value'))}")  # fmt: skip
    if _number(test.get("fip2_hull")):
        second.append(f"FIP2 {_g(test['fip2_hull'], 3)}")
    if _number(fit.get("value")):
        second.append(_binned(fit))
    return [first, *(["    " + "; ".join(second)] if second else [])]


def _binned(fit: dict) -> str:
    """The binned sensitivity at the chosen number of bins, as the report's `binning` holds it."""
    return (f"binned sensitivity {_g(fit['value'], 3)} ({text_line(fit.get('objective', ''))}, "
            f"K = {text_line(fit.get('chosen_k'))}, {text_line(fit.get('file', 'binning.json'))})")  # fmt: skip


def rejection_text(point: dict) -> str:
    """'148 ± 20 for eps_s 0.5', '> 148 (95% CL) for eps_s 0.5' (a lower limit, raised to the measured
    rejections at larger eps_s), or, where the symmetric error is half the value or more (1/eps_b is
    then far from symmetric), the range of 1/(eps_b ± its error): '10 +15 -4 for eps_s 0.9',
    '20 (1 sigma: > 9.1) for eps_s 0.9' (no upper edge where the error reaches eps_b)."""
    test, target = point["test"], _g(point.get("target_eps_s"))
    value, error = test.get("rejection"), test.get("rejection_error")
    if test.get("rejection_lower_limit"):
        return f"> {_g(value, 3)} (95% CL) for eps_s {target}"
    eps_b, eps_error = test.get("eps_b"), test.get("eps_b_error")
    if _number(value) and _number(error) and error >= HALF * value and _number(eps_b) and _number(eps_error) and eps_b > 0:
        low = 1 / (eps_b + eps_error)
        if eps_b > eps_error:
            return f"{asymmetric(value, 1 / (eps_b - eps_error) - value, value - low, fallback='.3g')} for eps_s {target}"
        return f"{_g(value, 2)} (1 sigma: > {_g(low, 2)}) for eps_s {target}"
    return f"{pm(value, error, fallback='.3g')} for eps_s {target}"


def _fold_summary(report: dict) -> list[str]:
    folds = ", ".join(map(text_line, report.get("folds") or []))
    lines = [f"  folds: {folds} (mean ± sample std over folds)"]
    missing = report.get("missing_folds") or []
    if missing:
        lines[0] += f"; missing: {', '.join(map(text_line, missing))}"
    for name, pair in report["pairs"].items():
        test = pair.get("test") or {}
        mean, std = test.get("mean") or {}, test.get("std") or {}
        first = f"  {text_line(name)}: AUC {pm(mean.get('auc'), std.get('auc'))}"
        points = (report.get("working_points") or {}).get(name) or {}
        rejections = [_fold_rejection(p) for p in points.values() if isinstance(p, dict) and "test" in p]
        if rejections:  # the working points' rejection (docs/statistics.md: two rejections over folds, two names)
            first += "; rejection (train-chosen cuts) " + ", ".join(rejections)
        lines.append(first)
        if _number(mean.get("fip2_hull")):
            lines.append(f"    FIP2 {pm(mean['fip2_hull'], std.get('fip2_hull'), fallback='.3g')}")
    return lines


def _fold_rejection(point: dict) -> str:
    """'300 +1160 -240 for eps_s 0.5' (the report's interval over folds) or '> 300 for eps_s 0.5'."""
    rejection, target = (point.get("test") or {}).get("rejection") or {}, _g(point.get("target_eps_s"))
    value, lower, upper = rejection.get("value"), rejection.get("lower"), rejection.get("upper")
    if rejection.get("lower_limit"):
        return f"> {_g(value, 3)} (95% CL) for eps_s {target}"
    if _number(value) and _number(lower) and _number(upper):
        return f"{asymmetric(value, upper - value, value - lower, fallback='.3g')} for eps_s {target}"
    return f"{_g(value, 3)} for eps_s {target}"


def _compared(pairs: dict) -> bool:
    """Whether a fold summary's pairs are binary vs multi-class comparisons."""
    return any(isinstance(p, dict) and "auc_binary" in p for p in pairs.values())


def _comparison_fold(report: dict) -> list[str]:
    """Per background: both test AUCs and their difference (multi-class minus binary) of one fold."""
    lines = [f"  multi-class model: {text_line(report.get('multiclass_model'))}", f"  fold: {text_line(report.get('fold'))}"]
    for name, pair in report["pairs"].items():
        if not isinstance(pair, dict):
            continue
        auc, diff = pair.get("auc") or {}, pair.get("difference") or {}
        binary, multi = auc.get("binary") or {}, auc.get("multiclass") or {}
        lines.append(f"  {text_line(name)}: AUC binary {pm(binary.get('value'), binary.get('error'))}, "
                     f"multi-class {pm(multi.get('value'), multi.get('error'))}")  # fmt: skip
        verdict = (pair.get("dominance") or {}).get("verdict")
        lines.append(f"    multi-class minus binary {pm(diff.get('multiclass_minus_binary'), diff.get('error'), sign=True)}"
                     + (f"; {text_line(verdict)}" if verdict else ""))  # fmt: skip
    return lines


def _comparison_folds(report: dict) -> list[str]:
    """Per background: both mean test AUCs over folds and the difference with its p-value."""
    lines = [f"  folds: {', '.join(map(text_line, report.get('folds') or []))} (mean ± sample std over folds)"]
    for name, pair in report["pairs"].items():
        if not isinstance(pair, dict):
            continue
        binary, multi = pair.get("auc_binary") or {}, pair.get("auc_multiclass") or {}
        stats = pair.get("difference_statistics") or {}
        lines.append(f"  {text_line(name)}: AUC binary {pm(binary.get('mean'), binary.get('std'))}, "
                     f"multi-class {pm(multi.get('mean'), multi.get('std'))}")  # fmt: skip
        lines.append(f"    multi-class minus binary {pm(stats.get('mean'), stats.get('standard_error'), sign=True)} "
                     f"(standard error), p = {_g(stats.get('p_value'))}")  # fmt: skip
    return lines


def _campaign(report: dict) -> list[str]:
    """The round's jobs by status, then per (channel, signal point, background) the binary and
    multi-class mean test AUC over folds and their difference with its Holm-adjusted p."""
    jobs = report["jobs"]
    lines = ["  jobs: " + ", ".join(f"{n} {text_line(status)}" for status, n in jobs.items() if n or status == "failed")]
    rows = sorted((r for r in report["binary_vs_multiclass"] if isinstance(r, dict)), key=_grid_order)
    for row in rows:
        name = " ".join(text_line(row.get(k)) for k in ("channel", "signal") if row.get(k))
        variant = f" [{text_line(row['variant'])}]" if row.get("variant") else ""
        lines.append(f"  {name} vs {text_line(row.get('background'))}{variant}: AUC binary "
                     f"{pm(row.get('auc_test_binary_mean'), row.get('auc_test_binary_std'))}, multi-class "
                     f"{pm(row.get('auc_test_multiclass_mean'), row.get('auc_test_multiclass_std'))}; multi-class minus binary "
                     f"{pm(row.get('auc_diff_mean'), row.get('auc_diff_standard_error'), sign=True)} (p_holm {_g(row.get('auc_diff_p_holm'))})")  # fmt: skip
    return lines


def _grid_order(row: dict) -> tuple:
    """Channel, then the mass grid in numbers (m(H+), m(A)), then signal, background, variant."""
    masses = tuple(row[k] if _number(row.get(k)) else float("inf") for k in ("m_hc", "m_a"))
    return (str(row.get("channel", "")), *masses, *(str(row.get(k, "")) for k in ("signal", "background", "variant")))
