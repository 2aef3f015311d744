"""The campaign's LaTeX tables, ready to \\input into a note: one `table` float per channel (and
per hyperparameter variant), with caption, label and units, sized for a 16 cm text width
(\\footnotesize, tight column separation; checked by compiling in the tests). Every name from
disk goes through escape.latex."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from pnetviz.escape import latex
from pnetviz.io import trainer

# Class and channel names with a physics label in LaTeX; any other name is printed literally.
LATEX_LABELS = {
    "nonprompt": "Nonprompt", "diboson": "Diboson", "ttX": r"$t\bar{t}X$", "ttZ": r"$t\bar{t}Z$", "ttW": r"$t\bar{t}W$",
    "conversion": "Conversion", "others": "Others",
}  # fmt: skip
MASS = re.compile(r"MHc(\d+)_MA(\d+)")
PREAMBLE = "% Needs \\usepackage{booktabs}. One table float per channel; \\input this file.\n"


def label_tex(name: str) -> str:
    return LATEX_LABELS.get(name) or latex(name)


def channel_tex(name: str) -> str:
    """Run1E2Mu -> $1e2\\mu$; other names literally."""
    label = trainer.channel_label(name)
    return "$" + label.replace("#mu", r"\mu") + "$" if label != name else latex(name)


def _pm(mean: float, std: float | None) -> str:
    if mean is None or not math.isfinite(mean):
        return "--"
    return f"${mean:.3f} \\pm {std:.3f}$" if std is not None and math.isfinite(std) else f"${mean:.3f}$"


def _label_key(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-") or "x"


def _folds(sel: Sequence[dict]) -> str:
    counts = sorted({n for c in sel for n in (c.get("n_folds_binary"), c.get("n_folds_multiclass")) if n})
    if not counts:
        return "the folds"
    return f"{counts[0]} folds" if len(counts) == 1 else f"{counts[0]}--{counts[-1]} folds"


def channel_table(channel: str, tag: str, sel: Sequence[dict], unpaired: Sequence[str]) -> str:
    columns = sorted({(c["background"], c["multiclass_class"]) for c in sel})
    signals = sorted({c["signal"] for c in sel}, key=lambda s: tuple(map(int, MASS.fullmatch(s).groups())) if MASS.fullmatch(s) else (0, 0))
    head = " & ".join(rf"\multicolumn{{2}}{{c}}{{{label_tex(b)}" + (f" / {label_tex(m)}" if m != b else "") + "}"
                      for b, m in columns)  # fmt: skip
    rules = " ".join(rf"\cmidrule(lr){{{3 + 2 * i}-{4 + 2 * i}}}" for i in range(len(columns)))
    variant = f" (model variant {latex(tag)})" if tag else ""
    caption = (f"Test AUC in the {channel_tex(channel)} channel{variant}: mean $\\pm$ sample standard deviation over "
               f"{_folds(sel)}, for the binary model (B) and the multi-class likelihood ratio "
               "$P(s)/(P(s)+P(b_i))$ (MC) against each background (binary / multi-class class). "
               "Masses in GeV; the AUC has no unit.")  # fmt: skip
    lines = [r"\begin{table}[htbp]", r"\centering", r"\footnotesize", r"\setlength{\tabcolsep}{3pt}",
             rf"\caption{{{caption}}}", rf"\label{{tab:pnetviz-auc-{_label_key(channel)}{'-' + _label_key(tag) if tag else ''}}}",
             r"\begin{tabular}{rr" + "cc" * len(columns) + "}", r"\toprule", rf" & & {head} \\", rules,
             r"$m_{H^\pm}$ & $m_A$ & " + " & ".join(["B & MC"] * len(columns)) + r" \\", r"\midrule"]  # fmt: skip
    for signal in signals:
        cells = []
        for b, m in columns:
            c = next((x for x in sel if (x["signal"], x["background"], x["multiclass_class"]) == (signal, b, m)), None)
            cells += [_pm(c["auc_test_binary_mean"], c["auc_test_binary_std"]) if c else "--",
                      _pm(c["auc_test_multiclass_mean"], c["auc_test_multiclass_std"]) if c else "--"]  # fmt: skip
        mass = MASS.fullmatch(signal)
        name = f"{mass.group(1)} & {mass.group(2)}" if mass else rf"\multicolumn{{2}}{{l}}{{{latex(signal)}}}"
        lines.append(f"{name} & " + " & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    if unpaired:
        lines.append(r"\par\smallskip\raggedright Not compared (no partner model): " + "; ".join(unpaired) + ".")
    lines += [r"\end{table}", ""]
    return "\n".join(lines)


def latex_tables(compared: Sequence[dict], aggregates: Sequence[dict]) -> str:
    """One table float per (channel, hyperparameter tag) of the binary-vs-multi-class comparisons;
    models and pairs without a partner are listed under their channel's table."""
    from pnetviz.io.layout import hyper_tag  # noqa: PLC0415

    paired = {(c["channel"], c["signal"], "binary", c["binary_model"], c["background"]) for c in compared}
    paired |= {(c["channel"], c["signal"], "multiclass", c["multiclass_model"], c["multiclass_class"]) for c in compared}
    lonely: dict[tuple[str, str], set[str]] = {}
    for a in aggregates:
        if (a["channel"], a["signal"], a["kind"], a["model"], a["pair"]) not in paired:
            what = f"binary vs {label_tex(a['pair'])}" if a["kind"] == "binary" else f"multi-class {label_tex(a['pair'])}"
            lonely.setdefault((a["channel"], hyper_tag(a["model"])), set()).add(f"{what} ({latex(a['signal'])})")
    keys = sorted({(c["channel"], c["tag"]) for c in compared} | set(lonely))
    blocks = [channel_table(ch, tag, [c for c in compared if (c["channel"], c["tag"]) == (ch, tag)], sorted(lonely.get((ch, tag), ())))
              for ch, tag in keys]  # fmt: skip
    return PREAMBLE + "\n".join(blocks)
