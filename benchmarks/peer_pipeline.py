#!/usr/bin/env python3
"""The peer pipeline of issue 55: what a physicist writes instead of pnetviz for one binary model.

Usage (in the peer venv: uproot, scikit-learn, numpy, matplotlib, mplhep; see benchmarks/peer.py):
    python benchmarks/peer_pipeline.py TREE.root OUTDIR
Reads the test split with uproot, computes the weighted ROC and AUC with scikit-learn, the score
histograms with numpy, and writes ROC, rejection and score figures as PNG and PDF.
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import mplhep as hep  # noqa: E402
import numpy as np  # noqa: E402
import uproot  # noqa: E402
from sklearn.metrics import roc_auc_score, roc_curve  # noqa: E402


def write_figures(out: Path, fpr, tpr, auc: float, hists: tuple, edges, background: str = "Background",
                  score_title: str = "Score", suffix: str = "") -> None:
    """ROC, rejection and score figures of one signal-background pair as PNG and PDF
    (`suffix` after each name: the multi-class peer's pairs)."""
    figures = {}
    fig, ax = plt.subplots()
    ax.plot(fpr, tpr, label=f"AUC = {auc:.4f}")
    ax.set(xlabel=f"{background} efficiency", ylabel="Signal efficiency")
    ax.legend()
    figures["roc"] = fig
    fig, ax = plt.subplots()
    keep = fpr > 0
    ax.plot(tpr[keep], 1 / fpr[keep])
    ax.set(xlabel="Signal efficiency", ylabel=f"{background} rejection", yscale="log")
    figures["rejection"] = fig
    fig, ax = plt.subplots()
    hep.histplot(list(hists), edges, label=["Signal", background], ax=ax)
    ax.set(xlabel=score_title, ylabel="Normalised")
    ax.legend()
    hep.cms.label("Private", ax=ax, data=False)
    figures["scores"] = fig
    for name, fig in figures.items():
        for ext in ("png", "pdf"):
            fig.savefig(out / f"{name}{suffix}.{ext}")
        plt.close(fig)


def main() -> None:
    tree, out = sys.argv[1], Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    events = uproot.open(tree)["Events"].arrays(["score_signal", "true_label", "weight", "test_mask"], library="np")
    test = events["test_mask"]
    score, weight = events["score_signal"][test], events["weight"][test]
    signal = events["true_label"][test] == 0
    fpr, tpr, _ = roc_curve(signal, score, sample_weight=weight)
    auc = roc_auc_score(signal, score, sample_weight=weight)
    edges = np.linspace(0, 1, 51)
    h_sig, _ = np.histogram(score[signal], bins=edges, weights=weight[signal], density=True)
    h_bkg, _ = np.histogram(score[~signal], bins=edges, weights=weight[~signal], density=True)
    plt.style.use(hep.style.CMS)
    write_figures(out, fpr, tpr, auc, (h_sig, h_bkg), edges)
    print(f"AUC {auc:.6f}")


if __name__ == "__main__":
    main()
