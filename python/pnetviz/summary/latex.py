"""The campaign's LaTeX tables, ready to \\input into a note: one `table` float per channel (and
per hyperparameter variant), with caption, label and units, sized for a 16 cm text width
(\\footnotesize, tight column separation; checked by compiling in the tests). Every name from
disk goes through escape.latex."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from pnetviz.escape import latex
from pnetviz.names import symbol
from pnetviz.io import trainer
from pnetviz.io.layout import hyper_tag, signal_masses
from pnetviz.metrics.multiplicity import family_size
from pnetviz.metrics.rounding import pm

# Class and channel names with a physics label in LaTeX; any other name is printed literally.
LATEX_LABELS = {
    "nonprompt": "Nonprompt", "diboson": "Diboson", "ttX": r"$t\bar{t}X$", "ttZ": r"$t\bar{t}Z$", "ttW": r"$t\bar{t}W$",
    "conversion": "Conversion", "others": "Others",
}  # fmt: skip


def _mass_key(signal: str) -> tuple[int, int]:
    """Sort key of a signal point: its masses (other names first)."""
    return signal_masses(signal) or (0, 0)


def _mass_cells(signal: str) -> str:
    """The m(H+) & m(A) cells of a signal point (its name over both columns when it has no masses)."""
    mass = signal_masses(signal)
    return f"{mass[0]} & {mass[1]}" if mass else rf"\multicolumn{{2}}{{l}}{{{latex(signal)}}}"
PREAMBLE = "% Needs \\usepackage{booktabs}. One table float per channel; \\input this file.\n"


def label_tex(name: str) -> str:
    return LATEX_LABELS.get(name) or latex(name)


def channel_tex(name: str) -> str:
    """Run1E2Mu -> $1e2\\mu$; other names literally, through escape.latex (channel_label gives
    TLatex look-alikes of any other name, never LaTeX)."""
    if not trainer.CHANNEL.fullmatch(name):
        return latex(name)
    return "$" + trainer.channel_label(name).replace("#mu", r"\mu") + "$"


def _pm(mean: float, std: float | None, sign: bool = False) -> str:
    """$mean \\pm std$ rounded by the PDG rule (metrics.rounding); -- without a value."""
    return pm(mean, std, "latex", ".3f", sign) or "--"


def interval_digits(value: float, lower: float | None, upper: float | None) -> tuple[str, str, str] | None:
    """(value, +up, -down) strings of an asymmetric interval [lower, upper] around `value` (a
    rejection over folds, folds.Rejection): the smaller nonzero side to 2 significant digits, the
    value and the other side to the same decimal place (one function, to be swapped for the
    shared formatter). None when the interval is missing or not finite."""
    if not all(isinstance(v, (int, float)) and math.isfinite(v) for v in (value, lower, upper)):
        return None
    up, down = upper - value, value - lower
    sides = [e for e in (up, down) if e > 0]
    scale = min(sides) if sides else abs(value)
    decimals = max(0, 1 - math.floor(math.log10(scale))) if scale > 0 else 0
    return f"{value:.{decimals}f}", f"{up:.{decimals}f}", f"{down:.{decimals}f}"


def interval_tex(value: float, lower: float | None, upper: float | None, limit: bool = False) -> str:
    """$R^{+u}_{-d}$ (interval_digits), $>R$ for a lower limit, $R$ without interval, -- without value."""
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        return "--"
    if limit:
        return f"$>{value:.3g}$"
    parts = interval_digits(value, lower, upper)
    return f"${parts[0]}^{{+{parts[1]}}}_{{-{parts[2]}}}$" if parts else f"${value:.3g}$"


def _label_key(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-") or "x"


def _folds(sel: Sequence[dict]) -> str:
    counts = sorted({n for c in sel for n in (c.get("n_folds_binary"), c.get("n_folds_multiclass")) if n})
    if not counts:
        return "the folds"
    return f"{counts[0]} folds" if len(counts) == 1 else f"{counts[0]}--{counts[-1]} folds"


def channel_table(channel: str, tag: str, sel: Sequence[dict], unpaired: Sequence[str]) -> str:
    columns = sorted({(c["background"], c["multiclass_class"]) for c in sel})
    signals = sorted({c["signal"] for c in sel}, key=_mass_key)
    head = " & ".join(rf"\multicolumn{{2}}{{c}}{{{label_tex(b)}" + (f" / {label_tex(m)}" if m != b else "") + "}"
                      for b, m in columns)  # fmt: skip
    rules = " ".join(rf"\cmidrule(lr){{{3 + 2 * i}-{4 + 2 * i}}}" for i in range(len(columns)))
    short = next((c.get("variant") for c in sel if c.get("variant")), None) or tag  # the short variant name (nNodes64)
    variant = f" (model variant {latex(short)})" if tag else ""
    caption = (f"Test AUC in the {channel_tex(channel)} channel{variant}: mean $\\pm$ sample standard deviation over "
               f"{_folds(sel)}, for the binary model (B) and the multi-class likelihood ratio "
               "$P(s)/(P(s)+P(b_i))$ (MC) against each background (binary / multi-class class). "
               "Masses in GeV; the AUC has no unit.")  # fmt: skip
    lines = [r"\begin{table}[htbp]", r"\centering", r"\footnotesize", r"\setlength{\tabcolsep}{3pt}",
             rf"\caption{{{caption}}}", rf"\label{{tab:pnetviz-auc-{_label_key(channel)}{'-' + _label_key(short) if tag else ''}}}",
             r"\begin{tabular}{rr" + "cc" * len(columns) + "}", r"\toprule", rf" & & {head} \\", rules,
             f"{symbol('mhc', 'latex')} & {symbol('ma', 'latex')} & " + " & ".join(["B & MC"] * len(columns)) + r" \\", r"\midrule"]  # fmt: skip
    for signal in signals:
        cells = []
        for b, m in columns:
            c = next((x for x in sel if (x["signal"], x["background"], x["multiclass_class"]) == (signal, b, m)), None)
            cells += [_pm(c["auc_test_binary_mean"], c["auc_test_binary_std"]) if c else "--",
                      _pm(c["auc_test_multiclass_mean"], c["auc_test_multiclass_std"]) if c else "--"]  # fmt: skip
        name = _mass_cells(signal)
        lines.append(f"{name} & " + " & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    if unpaired:
        lines.append(r"\par\smallskip\raggedright Not compared (no partner model): " + "; ".join(unpaired) + ".")
    lines += [r"\end{table}", ""]
    return "\n".join(lines)


def latex_tables(compared: Sequence[dict], aggregates: Sequence[dict]) -> str:
    """One table float per (channel, hyperparameter tag) of the binary-vs-multi-class comparisons;
    models and pairs without a partner are listed under their channel's table."""

    paired = {(c["channel"], c["signal"], "binary", c["binary_model"], c["background"]) for c in compared}
    paired |= {(c["channel"], c["signal"], "multiclass", c["multiclass_model"], c["multiclass_class"]) for c in compared}
    lonely: dict[tuple[str, str], set[str]] = {}
    for a in aggregates:
        if (a["channel"], a["signal"], a["kind"], a["model"], a["pair"]) not in paired:
            what = f"binary vs {label_tex(a['pair'])}" if a["kind"] == "binary" else f"multi-class {label_tex(a['pair'])}"
            lonely.setdefault((a["channel"], hyper_tag(a["model"])), set()).add(f"{what} ({latex(a['signal'])})")
    keys = sorted({(c["channel"], c["tag"]) for c in compared} | set(lonely))
    variants = {hyper_tag(a["model"]): a.get("variant") or "" for a in aggregates}
    blocks = []
    for ch, tag in keys:
        sel = [c for c in compared if (c["channel"], c["tag"]) == (ch, tag)]
        unpaired = sorted(lonely.get((ch, tag), ()))
        blocks.append(channel_table(ch, tag, sel, unpaired) if sel else
                      no_pair_text(ch, variants.get(tag, ""), unpaired))  # fmt: skip
    return PREAMBLE + "\n".join(blocks)


def no_pair_text(channel: str, short: str, unpaired: Sequence[str]) -> str:
    """The line that stands for the table of a (channel, variant) without one binary/multi-class
    pair (a binary-only round, a multi-class model with other hyperparameters): no `tabular`
    without data columns, which LaTeX cannot compile. `short`: the short variant name ("" if one)."""
    variant = f" (model variant {latex(short)})" if short else ""
    return (r"\par\noindent{\raggedright No binary/multi-class pair to compare in the "
            f"{channel_tex(channel)} channel{variant}; models without a partner model: " + "; ".join(unpaired) + ".\\par}\n")


def _rejection_tex(row: dict) -> str:
    return interval_tex(row.get("rejection_test"), row.get("rejection_test_lower"), row.get("rejection_test_upper"),
                        bool(row.get("rejection_test_limit")))


def working_point_tables(rows: Sequence[dict]) -> str:
    """One table float per (channel, hyperparameter tag) of the working points
    (summary.workingpoints rows): per signal point, model (B binary, MC multi-class likelihood
    ratio) and background, the threshold (mean $\\pm$ std over folds) and the test rejection at
    each target signal efficiency."""

    blocks = []
    for channel, tag in sorted({(r["channel"], hyper_tag(r["model"])) for r in rows}):
        sel = [r for r in rows if (r["channel"], hyper_tag(r["model"])) == (channel, tag)]
        targets = sorted({r["target_eps_s"] for r in sel})
        keys = sorted({(r["signal"], r["kind"], r["pair"]) for r in sel},
                      key=lambda k: (_mass_key(k[0]), k))  # fmt: skip
        wp_from = sorted({r["wp_from"] for r in sel})
        variant = f" (model variant {latex(tag)})" if tag else ""
        caption = (f"Working points in the {channel_tex(channel)} channel{variant}: the cut on the score "
                   f"(binary: $P(s)$; MC: $P(s)/(P(s)+P(b_i))$) reaching each weighted signal efficiency "
                   f"$\\varepsilon_s$ on the {'/'.join(latex(w) for w in wp_from)} split, mean $\\pm$ sample standard "
                   "deviation over folds, and the test background rejection $1/\\langle\\varepsilon_b\\rangle$ "
                   "with its fold interval $R e^{\\pm s}$, $s$ the standard deviation of $\\ln\\varepsilon_b$ over "
                   "folds ($>$: lower limit at 95\\% CL). Masses in GeV.")  # fmt: skip
        head = " & ".join(rf"\multicolumn{{2}}{{c}}{{$\varepsilon_s = {t:g}$}}" for t in targets)
        rules = " ".join(rf"\cmidrule(lr){{{5 + 2 * i}-{6 + 2 * i}}}" for i in range(len(targets)))
        lines = [r"\begin{table}[htbp]", r"\centering", r"\footnotesize", r"\setlength{\tabcolsep}{3pt}",
                 rf"\caption{{{caption}}}",
                 rf"\label{{tab:pnetviz-wp-{_label_key(channel)}{'-' + _label_key(tag) if tag else ''}}}",
                 r"\begin{tabular}{rrll" + "cc" * len(targets) + "}", r"\toprule", rf" & & & & {head} \\", rules,
                 f"{symbol('mhc', 'latex')} & {symbol('ma', 'latex')} & & Bkg. & " + " & ".join(["Cut & $R_b$"] * len(targets)) + r" \\",
                 r"\midrule"]  # fmt: skip
        for signal, kind, pair in keys:
            cells = []
            for t in targets:
                r = next((x for x in sel if (x["signal"], x["kind"], x["pair"], x["target_eps_s"]) == (signal, kind, pair, t)), None)
                cells += [_pm(r["threshold_mean"], r["threshold_std"]) if r else "--", _rejection_tex(r) if r else "--"]
            name = _mass_cells(signal)
            lines.append(f"{name} & {'B' if kind == 'binary' else 'MC'} & {label_tex(pair)} & " + " & ".join(cells) + r" \\")
        lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}", ""]
        blocks.append("\n".join(lines))
    return PREAMBLE + "\n".join(blocks)


def _p_value(value) -> str:
    if value is None or isinstance(value, str):
        return "n/a" if value else ""
    return f"${value:.2g}$" if value >= 0.01 else "$<0.01$"


def _rejection(entry: dict, key: str) -> str:
    return interval_tex(entry.get(f"{key}_mean"), entry.get(f"{key}_lower"), entry.get(f"{key}_upper"),
                        bool(entry.get(f"{key}_limit")))


def leaderboard_tables(entries: Sequence[dict]) -> str:
    """The leaderboard (summary.leaderboard: ranked, best first) as one table float per (channel,
    background): per signal point every model and variant with its mean test AUC +- standard
    error, the difference to the best with its paired p-value, and the rejections at eps_s = 0.5
    and 0.9. Every name goes through escape.latex."""
    blocks = ["% Needs \\usepackage{booktabs}. The campaign leaderboard: one table float per channel and background.\n"]
    family = family_size([e.get("diff_to_best_p_value") for e in entries])
    for channel, background in sorted({(e["channel"], e["background"]) for e in entries}):
        sel = [e for e in entries if (e["channel"], e["background"]) == (channel, background)]
        caption = (f"Models ranked by mean test AUC over the folds all of them share, {channel_tex(channel)} channel, "
                   f"signal against {label_tex(background)}: binary models (B) and multi-class likelihood ratios (MC, "
                   "of the class holding the background), each variant named by the hyperparameters that differ. AUC: "
                   "mean $\\pm$ standard error over folds; $\\Delta$AUC: best minus this model over those folds, with "
                   "the two-sided $p$-value of the corrected resampled $t$ test (Nadeau-Bengio; n/a: fewer than two "
                   f"common folds) and $p_\\mathrm{{Holm}}$, Holm-adjusted over the {family} comparisons with the best "
                   "of this campaign's leaderboard (every channel, signal point and background); rank 1=: the best and "
                   "every model compatible with it ($p_\\mathrm{Holm} > 0.05$); $R$: rejection "
                   "$1/\\langle\\varepsilon_b\\rangle$ at signal efficiency 0.5 and 0.9 with its fold interval $R e^{\\pm s}$, $s$ "
                   "the standard deviation of $\\ln\\varepsilon_b$ over folds ($>$: lower limit). Masses in GeV.")  # fmt: skip
        lines = [r"\begin{table}[htbp]", r"\centering", r"\footnotesize", r"\setlength{\tabcolsep}{2pt}",
                 rf"\caption{{{caption}}}", rf"\label{{tab:pnetviz-leaderboard-{_label_key(channel)}-{_label_key(background)}}}",
                 r"\begin{tabular}{rrrllccccrr}", r"\toprule",
                 f"{symbol('mhc', 'latex')} & {symbol('ma', 'latex')} & " r"Rank & Model & Variant & AUC & $\Delta$AUC & $p$ & $p_\mathrm{Holm}$ & $R_{0.5}$ & $R_{0.9}$ \\",
                 r"\midrule"]  # fmt: skip
        previous = None
        for e in sel:
            if e["signal"] == previous:
                where = " & "
            else:
                if previous is not None:
                    lines.append(r"\midrule")
                where = _mass_cells(e["signal"])
            previous = e["signal"]
            model = "B" if e["kind"] == "binary" else f"MC ({label_tex(e['pair'])})"
            se = e.get("auc_test_standard_error")
            auc = _pm(e["auc_test_mean"], se if isinstance(se, float) and math.isfinite(se) else None)
            best = e.get("position", e["rank"]) == 1
            diff = "--" if best else _pm(e.get("diff_to_best_mean"), e.get("diff_to_best_standard_error"), sign=True)
            p_value = "--" if best else _p_value(e.get("diff_to_best_p_value"))
            p_holm = "--" if best else _p_value(e.get("diff_to_best_p_holm"))
            lines.append(f"{where} & {e['rank']} & {model} & {latex(e['variant']) or '--'} & {auc} & {diff} & {p_value} & {p_holm} & "
                         f"{_rejection(e, 'rejection_0.5')} & {_rejection(e, 'rejection_0.9')} " + r"\\")  # fmt: skip
        lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}", ""]
        blocks.append("\n".join(lines))
    return "\n".join(blocks)
