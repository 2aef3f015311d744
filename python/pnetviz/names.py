"""One name per quantity, and the figure names and meanings, as data.

`QUANTITIES` holds each quantity's one name in every target: ROOT's TLatex (axis titles, legend
entries, stored object titles), LaTeX (tables for a note), HTML (the web report) and plain text
(CSV headers, JSON, text reports). Plots, tables, the web report and ROOT titles take their names
from here (`name("rejection")`, `name("rejection", "latex")`), so "Background rejection
1/#varepsilon_{b}" has one form (no #kern after the "/": ROOT's PNG shows a space there that its
PDF does not, and a kern that closes it in the PNG runs the glyphs together in the PDF, the
figure a note uses) and the signal score is always P(signal).

`FIGURES` lists every figure a pnetviz run writes: its file name (with the placeholders of the
names that vary), what it shows, and which command writes it. `docs/figure-table.md` is made from
it (`python -m pnetviz.names docs/figure-table.md`; tests/test_quantity_names.py checks it is up to date).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Name:
    """A quantity's name in each target: TLatex, LaTeX (math in $...$), HTML and plain text."""

    root: str
    latex: str
    html: str
    text: str


QUANTITIES: dict[str, Name] = {
    "p_signal": Name("P(signal)", r"$P(\mathrm{signal})$", "P(signal)", "P(signal)"),
    "lr_score": Name("LR score", "LR score", "LR score", "LR score"),
    "signal_efficiency": Name("Signal efficiency (TPR)", r"Signal efficiency $\varepsilon_s$",
                              "Signal efficiency &epsilon;<sub>s</sub>", "Signal efficiency (TPR)"),
    "background_efficiency": Name("Background efficiency (FPR)", r"Background efficiency $\varepsilon_b$",
                                  "Background efficiency &epsilon;<sub>b</sub>", "Background efficiency (FPR)"),
    "rejection": Name("Background rejection 1/#varepsilon_{b}", r"Background rejection $1/\varepsilon_b$",
                      "Background rejection 1/&epsilon;<sub>b</sub>", "Background rejection 1/eps_b"),
    "binary": Name("Binary", "Binary", "Binary", "Binary"),
    "multiclass": Name("Multi-class", "Multi-class", "Multi-class", "Multi-class"),
    "train": Name("Train", "Train", "Train", "Train"),
    "test": Name("Test", "Test", "Test", "Test"),
    "mhc": Name("m(H^{#pm}) [GeV]", r"$m_{H^\pm}$ [GeV]", "m(H<sup>&plusmn;</sup>) [GeV]", "m(H+-) [GeV]"),
    "ma": Name("m(A) [GeV]", r"$m_{A}$ [GeV]", "m(A) [GeV]", "m(A) [GeV]"),
}  # fmt: skip

TARGETS = ("root", "latex", "html", "text")


def name(quantity: str, target: str = "root") -> str:
    """The one name of `quantity` (a QUANTITIES key) in `target` (one of TARGETS)."""
    return getattr(QUANTITIES[quantity], target)


def symbol(quantity: str, target: str = "root") -> str:
    """A mass's symbol without its unit: m(H^{#pm}), $m_{A}$ (for "m(A) = 90 GeV")."""
    return name(quantity, target).removesuffix(" [GeV]")


def signal_point(mhc: int, ma: int) -> str:
    """A signal point in TLatex, from the masses' one names: m(H^{#pm}) = 130 GeV, m(A) = 90 GeV."""
    return f"{symbol('mhc')} = {mhc} GeV, {symbol('ma')} = {ma} GeV"


@dataclass(frozen=True)
class FigureEntry:
    """One figure file: its name (<...> the parts that vary), what it shows, who writes it."""

    name: str
    meaning: str
    written_by: str


_B, _M, _C, _F, _CAMP, _GA = ("pnetviz binary", "pnetviz multiclass", "pnetviz compare", "fold summary (--fold all)",
                              "pnetviz campaign (campaign/)", "pnetviz ga")  # fmt: skip

FIGURES: tuple[FigureEntry, ...] = (
    FigureEntry("rejection_curve", "Background rejection 1/eps_b vs signal efficiency (log y), train and test: "
                "the HEP view of the ROC; beyond the last background MC event a 95% CL lower limit (dotted, greyed)", _B),
    FigureEntry("roc_curve", "ROC on linear axes (signal vs background efficiency), train and test, AUC in the legend", _B),
    FigureEntry("roc_curve_logx, signal_vs_<bkg>_roc_curve_logx", "The ROC with the background efficiency on a log "
                "axis (the tight cuts), from the decade below its smallest non-zero value", f"{_B}, {_M} (per pair)"),
    FigureEntry("precision_recall_curve", "Precision (weighted purity) vs recall, train and test", _B),
    FigureEntry("score_distributions", "P(signal) of signal and background, train (lines) and test (points), "
                "each working-point cut labelled with its target eps_s", _B),
    FigureEntry("cut_scan", "eps_s, eps_b, purity and significances vs the cut on P(signal) (test); the optimum "
                "only where the passing background has enough events (--cut-scan-min-events), the rest greyed", _B),
    FigureEntry("calibration", "Observed signal fraction vs mean P(signal) per bin, train (line) and test (points)", _B),
    FigureEntry("confusion_matrix, confusion_matrix_counts", "Confusion matrix at P(signal) = 0.5 (test): fractions "
                "per true class, and weighted counts", _B),
    FigureEntry("roc_curve_bjet_comparison", "ROC of all events, with and without a b jet (test), ratio to all events", _B),
    FigureEntry("score_distributions_bjet_comparison", "P(signal) of events with and without a b jet, and all events (test)", _B),
    FigureEntry("roc_curve_<branch>_comparison, score_distributions_<branch>_comparison",
                "The same for the boolean branch of --compare-subset", _B),
    FigureEntry("roc_curve_profiled, rejection_curve_profiled, signal_vs_<bkg>_roc_curve_profiled, "
                "signal_vs_<bkg>_rejection_curve_profiled", "Nominal and profiled curve under --syst, the "
                "nuisance envelope as a band, ratio to nominal", f"{_B}, {_M} (per pair)"),
    FigureEntry("binning_histograms, binning_objective, signal_vs_<bkg>_binning_histograms, signal_vs_<bkg>_binning_objective",
                "The fit binning of the score (--fit-binning) and its "
                "objective vs the number of bins", f"{_B}, {_M} (per pair)"),
    FigureEntry("training_loss, training_accuracy, training_epoch_time, training_memory",
                "Training history (train and validation) from the trainer's performance JSON", f"{_B}, {_M}"),
    FigureEntry("training_curves, training_metrics", "The specification's combined names: loss over accuracy, "
                "epoch time over memory (one epoch axis; the split figures stay)", f"{_B}, {_M}"),
    FigureEntry("signal_vs_<bkg>_rejection_curve", "Background rejection vs signal efficiency of the multi-class "
                "model's LR score of one pair (the HEP view of its ROC), lower limit beyond the last background event", _M),
    FigureEntry("signal_vs_<bkg>_roc_curve", "ROC of the LR score P(signal)/(P(signal)+P(bkg)) of one pair, linear axes", _M),
    FigureEntry("signal_vs_<bkg>_lr_score_distribution", "LR score of signal and background, train and test, "
                "working-point cuts labelled", _M),
    FigureEntry("signal_vs_<bkg>_psignal_distribution, signal_vs_<bkg>_p<bkg>_distribution",
                "P(signal) and P(bkg) of the pair's events", _M),
    FigureEntry("signal_vs_<bkg>_cut_scan", "Cut scan of the pair's LR score (as cut_scan)", _M),
    FigureEntry("signal_vs_<bkg>_roc_bjet_comparison, signal_vs_<bkg>_lr_score_bjet_comparison",
                "b-jet comparison of the pair (as the binary one)", _M),
    FigureEntry("<class>_score_distribution, <class>_calibration, <class>_confusion_matrix, <class>_confusion_matrix_counts",
                "Per class: P(class) of every class, its calibration, its one-vs-rest confusion matrix", _M),
    FigureEntry("overall_confusion_matrix, overall_confusion_matrix_counts, pairwise_auc, precision_by_class, recall_by_class, f1_score_by_class",
                "Multi-class confusion matrix (argmax), AUC of every class pair, per-class metrics", _M),
    FigureEntry("signal_vs_<bkg>_rejection_comparison", "Binary vs multi-class: background rejection vs signal "
                "efficiency (log y), the default comparison figure, ratio to binary", _C),
    FigureEntry("signal_vs_<bkg>_roc_comparison", "Binary vs multi-class ROC on linear axes, AUC difference, ratio to binary", _C),
    FigureEntry("roc_curve_folds, rejection_curve_folds, signal_vs_<bkg>_roc_curve_folds, signal_vs_<bkg>_rejection_curve_folds",
                "Mean over folds with a +-1 sigma band, train and test (or binary and multi-class), ratio panel", _F),
    FigureEntry("out_of_fold_roc_curve, out_of_fold_rejection_curve, out_of_fold_score_distributions, "
                "out_of_fold_binning_objective, out_of_fold_binning_histograms (signal_vs_<bkg>_ prefixed per multi-class pair)",
                "Out of fold: every fold's test split pooled (each event scored by the model that did not train on it): "
                "ROC, rejection, score distributions with the working points, the one binning for the fit and its templates", _F),
    FigureEntry("signal_vs_<bkg>_auc_by_fold, training_loss_folds", "Test AUC per fold of binary and multi-class; "
                "training loss of every fold", _F),
    FigureEntry("overlay_roc_curve_folds, overlay_rejection_curve_folds", "Fold means of several models overlaid "
                "(the web report's overlay, pnetviz.api)", "pnetviz.api overlay"),
    FigureEntry("map_*, auc_vs_mA_*", "Campaign maps over the mass grid m(H+-) x m(A) and AUC vs m(A)", _CAMP),
    FigureEntry("ga_fitness, ga_ks_<tag>, ga_lr_roc_<tag>", "GA search: fitness of every model, train-vs-test KS "
                "grid, LR ROC of the best models", _GA),
    FigureEntry("datamc_<channel>_<score>", "Data against the stacked simulation of an analysis' samples in one region "
                "and score: MC stat. (+) syst. band, Garwood data intervals, ratio panel, chi2 verdict; blinded bins left "
                "out", "pnetviz datamc"),
    FigureEntry("closure_<node>", "Deployment closure: one output node's score, each process of the samples (points) "
                "against its class in the trainer's test predictions of the deployed model (lines), normalised to unit "
                "area", "pnetviz datamc --closure"),
)  # fmt: skip


def figure_entry(stem: str) -> FigureEntry | None:
    """The FIGURES entry naming the figure file `stem` (a <placeholder> or * matches any text)."""
    for entry in FIGURES:
        for pattern in entry.name.split(", "):
            parts = re.split(r"<[^<>]+>|\*", pattern)
            if re.fullmatch(".+?".join(re.escape(p) for p in parts), stem):
                return entry
    return None


def figure_table_markdown() -> str:
    """docs/figure-table.md: the FIGURES table in Markdown, and the quantity names it uses."""
    lines = ["# Figures and names", "",
             "Generated from `python/pnetviz/names.py` (`python -m pnetviz.names docs/figure-table.md`); do not edit.", "",
             "## Figures", "", "| figure | meaning | written by |", "|---|---|---|"]  # fmt: skip
    lines += [f"| `{f.name.replace(', ', '`, `')}` | {f.meaning} | {f.written_by} |" for f in FIGURES]
    lines += ["", "## One name per quantity", "", "| quantity | plots (ROOT TLatex) | tables (LaTeX) | CSV and text |",
              "|---|---|---|---|"]  # fmt: skip
    lines += [f"| {key} | `{n.root}` | `{n.latex}` | {n.text} |" for key, n in QUANTITIES.items()]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    """Write the figure table to the path given (docs/figure-table.md)."""
    if len(argv) != 1:
        raise SystemExit("usage: python -m pnetviz.names docs/figure-table.md")
    Path(argv[0]).write_text(figure_table_markdown(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
