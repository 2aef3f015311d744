#!/usr/bin/env python3
"""The peer pipeline of issue 55 for a multi-class model: what a physicist writes instead of pnetviz.

Usage (in the peer venv: uproot, scikit-learn, numpy, matplotlib, mplhep; see benchmarks/peer.py):
    python benchmarks/peer_multiclass.py TREE.root OUTDIR
Reads the test split with uproot (every class score, the label, |weight|), and per background
class: the likelihood-ratio score s / (s + b) of signal (label 0) against it, the weighted ROC and
AUC with scikit-learn, the score histograms with numpy, and ROC, rejection and score figures as
PNG and PDF (mplhep's CMS style): the binary peer's three figures for each signal-background pair.
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
from peer_pipeline import write_figures  # noqa: E402 - the binary peer's three figures, beside this script
from sklearn.metrics import roc_auc_score, roc_curve  # noqa: E402


def main() -> None:
    tree, out = uproot.open(sys.argv[1])["Events"], Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    classes = [name[len("score_"):] for name in tree.keys() if name.startswith("score_")]
    events = tree.arrays([f"score_{c}" for c in classes] + ["true_label", "weight", "test_mask"], library="np")
    test = events["test_mask"]
    label, weight = events["true_label"][test], np.abs(events["weight"][test])  # |w|: pnetviz's default weight mode
    plt.style.use(hep.style.CMS)
    edges = np.linspace(0, 1, 51)
    for i, bkg in enumerate(classes[1:], start=1):
        pair = (label == 0) | (label == i)
        s, b = events["score_signal"][test][pair], events[f"score_{bkg}"][test][pair]
        score, w, signal = s / (s + b + 1e-10), weight[pair], label[pair] == 0
        fpr, tpr, _ = roc_curve(signal, score, sample_weight=w)
        auc = roc_auc_score(signal, score, sample_weight=w)
        h_sig, _ = np.histogram(score[signal], bins=edges, weights=w[signal], density=True)
        h_bkg, _ = np.histogram(score[~signal], bins=edges, weights=w[~signal], density=True)
        write_figures(out, fpr, tpr, auc, (h_sig, h_bkg), edges, background=bkg, score_title=f"Signal vs {bkg} score",
                      suffix=f"_{bkg}")  # fmt: skip
        print(f"signal vs {bkg}: AUC {auc:.6f}")


if __name__ == "__main__":
    main()
