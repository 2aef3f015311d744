"""The files of `pnetviz diff`: diff_models.csv (every matched model), diff_unmatched.csv (the
models of one round only), diff_models.tex (a table for a 16 cm text width), diff.json (all of
it, with the conventions), the figures (rounds.diffplots: difference maps, ROC and rejection
overlays; PNG/PDF and plots.root) and index.html (rounds.diffsite). Every name is escaped for
its target (pnetviz.escape)."""

from __future__ import annotations

import math
from pathlib import Path

from pnetviz import escape
from pnetviz.rounds import difflimits
from pnetviz.rounds.diff import BOUNDED, DIFF_FIELDS, RATIO_ERROR, UNMATCHED_FIELDS, Diff, bound_of, bounded_cells
from pnetviz.metrics.foldtests import RATIO_CONVENTION
from pnetviz.output.report import dumps

CONVENTION = ("delta = round B - round A, per fold, averaged over the folds both rounds have; its error and p-value "
              "from the event-paired Poisson bootstrap where both rounds hold the same test events in every common fold "
              "of a binary model (matched by event_id, else by position: the same number of test events with identical "
              "true_label, weight and observer sequences; error_method, pairing), else from the corrected resampled "
              "t-test over those folds (Nadeau-Bengio, k - 1 degrees of freedom; "
              f"{RATIO_CONVENTION}); p_value_corrected: that fold test's p-value, p_value_naive_t: the naive paired t "
              "over the folds (no correction, for reference); p_holm: Holm's adjustment over every matched model with a test; rejection: "
              "1/mean(eps_b) over the folds at the fixed signal efficiency, rejection_ratio = B/A; " + RATIO_ERROR)  # fmt: skip


FIP2_CONVENTION = ("delta_fip2 = FIP2 (test ROC's convex hull) of B - A per fold, averaged; error, p-value: the same "
                   "corrected fold test (error_method); delta_fip2_p_holm: Holm over the models with FIP2 in every "
                   "common fold")  # fmt: skip


def number(value: object, digits: int = 4) -> str:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        return "--"
    return f"{value:.{digits}f}"


def p_text(value: object) -> str:
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        return "--"
    return f"{value:.2g}" if value >= 1e-3 else f"{value:.1e}"


def tex(name: object) -> str:
    """A name as LaTeX text: its bytes that are not UTF-8 as the text \\xNN (valid_text), escaped."""
    return escape.latex(valid_text(str(name)))


def latex_table(diff: Diff) -> str:
    """A booktabs table of the matched models (variants numbered, named below the table)."""
    variants = sorted({r["variant"] for r in diff.rows})
    number_of = {v: i + 1 for i, v in enumerate(variants)}
    lines = ["\\begin{table}[htbp]", "\\centering", "\\footnotesize", "\\setlength{\\tabcolsep}{3pt}",
             "\\begin{tabular}{@{}lllllrllrrr@{}}", "\\toprule",
             "Channel & Signal & Kind & Pair & Var. & $k$ & AUC A & AUC B & $\\Delta$AUC & $p_\\mathrm{Holm}$ & "
             "$R_{0.5}$ B/A \\\\", "\\midrule"]  # fmt: skip
    for r in diff.rows:
        delta = f"${number(r['delta_auc'])} \\pm {number(r['delta_auc_standard_error'])}$"
        if r["delta_auc"] is not None and r["delta_auc_standard_error"] is None:
            delta = f"${number(r['delta_auc'])}$"
        mark = "$^{*}$" if r["significant"] else ""
        cells = [tex(r["channel"]), tex(r["signal"]), tex(r["kind"]), tex(r["pair"]),
                 f"V{number_of[r['variant']]}", str(len(r["folds"].split())), number(r["auc_a_mean"]),
                 number(r["auc_b_mean"]), delta, p_text(r["p_holm"]) + mark,
                 f"${bound_of(r, 'rejection_ratio_0.5')}$" * bool(bound_of(r, "rejection_ratio_0.5")) + number(r["rejection_ratio_0.5"], 2)]  # fmt: skip
        lines.append(" & ".join(cells) + " \\\\")
    if not diff.rows:
        lines.append("\\multicolumn{11}{c}{no model of round A matches one of round B} \\\\")
    names = "; ".join(f"V{number_of[v]}: \\texttt{{{tex(v) or '(none)'}}}" for v in variants)
    paired = sum(r["error_method"].startswith("event-paired") for r in diff.rows)
    error = ("the corrected resampled $t$-test over the folds (Nadeau--Bengio)" if not paired else
             f"the event-paired bootstrap over the same test events ({paired} models, diff\\_models.csv: error\\_method), "
             "else the corrected resampled $t$-test over the folds (Nadeau--Bengio)")  # fmt: skip
    caption = ("Round B vs round A: test AUC per model, mean over the $k$ folds both rounds have; $\\Delta$AUC = B $-$ A "
               f"with the error of {error}, $p$-value "
               f"Holm-adjusted over the {len(diff.rows)} matched models ($^{{*}}$: below {diff.alpha:g}); $R_{{0.5}}$: "
               "ratio of the background rejections at a signal efficiency of 0.5 ($>$, $<$: a bound where one round's "
               "rejection is a lower limit, no background passing in any fold; -- where both are).")  # fmt: skip
    lines += ["\\bottomrule", "\\end{tabular}", f"\\caption{{{caption}}}", "\\label{tab:pnetviz-diff}", "\\end{table}"]
    if variants:
        lines += ["\\begingroup\\footnotesize\\raggedright\\noindent Model variants: " + names.replace("-", "-\\allowbreak ")
                  + ".\\par\\endgroup"]  # fmt: skip
    unmatched = len(diff.unmatched)
    if unmatched:
        lines.append(f"\\noindent{{\\footnotesize {unmatched} models of one round only (diff\\_unmatched.csv).\\par}}")
    return "\n".join(lines) + "\n"


def files(diff: Diff) -> dict[str, str]:
    """name -> text of every file of the diff."""
    data = {"round_a": str(diff.a), "round_b": str(diff.b), "alpha": diff.alpha, "convention": CONVENTION,
            "fip2_convention": FIP2_CONVENTION,
            "models": diff.rows, "unmatched": diff.unmatched, "limits": diff.limits,
            "limits_convention": difflimits.limitsboard.RATIO_CONVENTION}  # fmt: skip
    return {"diff_models.csv": escape.csv_table([bounded_cells(r) for r in diff.rows], DIFF_FIELDS),
            "diff_unmatched.csv": escape.csv_table(diff.unmatched, UNMATCHED_FIELDS),
            "diff_limits.csv": escape.csv_table(diff.limits, difflimits.FIELDS),
            "diff_models.tex": latex_table(diff) + difflimits.latex_table(diff.limits),
            "diff.json": dumps(data, allow_nan=False) + "\n"}  # fmt: skip


REPORT_FIELDS = ("folds", "auc_a_mean", "auc_b_mean", "delta_auc", "delta_auc_standard_error", "p_holm", "significant",
                 "pairing", "delta_fip2", "delta_fip2_standard_error", "delta_fip2_p_holm")  # fmt: skip


def report_of(diff: Diff) -> dict:
    """summary_report.json (and .txt) of the diff: the counts, the significant models, and per
    matched model its numbers (diff_models.csv's main columns; a rejection that is a lower limit,
    a ratio that is a bound, as "> X" / "< X")."""
    def name(r: dict) -> str:
        return f"{r['channel']}/{r['signal']}/{r['kind']}/{r['pair']}/{r['variant']}"

    models = {}
    for r in diff.rows:
        cells = bounded_cells(r)
        models[name(r)] = {k: r.get(k) for k in REPORT_FIELDS} | {k: cells.get(k) for k in BOUNDED}
    return {"round_a": str(diff.a), "round_b": str(diff.b), "models": len(diff.rows), "unmatched": len(diff.unmatched),
            "significant": [name(r) for r in diff.rows if r["significant"]], "convention": CONVENTION, "compared": models}  # fmt: skip


def valid_text(text: str) -> str:
    """`text` as valid UTF-8: a byte of a name that is not UTF-8 (a surrogate, as Python keeps it
    from a directory name and JSON hands it back from a campaign summary) as \\xNN, a lone
    surrogate as \\uNNNN; escaped text is left as it is."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate that stands for no byte (JSON "\\ud800")
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def write(directory: Path, diff: Diff, formats, style, names: tuple[str, str]) -> list[Path]:
    """Write the diff's files, figures and page into `directory` (a staging directory)."""
    from pnetviz.rounds import diffplots, diffsite  # noqa: PLC0415
    from pnetviz.output.publish import write_set  # noqa: PLC0415

    diffplots.mark_fip2(diff)
    maps = [spec.name for spec in diffplots.map_specs(diff)]

    def figures() -> list:
        return diffplots.overlay_figures(diff, names) + diffplots.map_figures(diff)

    written = write_set(directory, formats, style, figures, report_of(diff), "pnetviz diff", {})
    for name, text in {**files(diff), diffsite.PAGE: diffsite.page(diff, names, maps, "png" in formats)}.items():
        (Path(directory) / name).write_text(valid_text(text), encoding="utf-8")
        written.append(Path(directory) / name)
    return written
