#!/usr/bin/env python3
"""The usual way, reimplemented faithfully as a baseline: AsNumpy read + scikit-learn
roc_curve/roc_auc_score per (background, split) on the likelihood-ratio score + numpy
histograms (LR scores per pair, class scores per true class), no plots.

Usage: python benchmarks/baseline_sklearn.py FILE [--classes signal,nonprompt,diboson,ttZ]
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np

warnings.filterwarnings("ignore", category=UserWarning, module="ROOT")


def main() -> None:
    import ROOT  # noqa: PLC0415
    from sklearn.metrics import roc_auc_score, roc_curve  # noqa: PLC0415

    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--classes", default="signal,nonprompt,diboson,ttZ")
    args = parser.parse_args()
    classes = args.classes.split(",")
    cols = ["true_label", "weight", "train_mask", "test_mask", *(f"score_{c}" for c in classes)]
    data = ROOT.RDataFrame("Events", args.file).AsNumpy(cols)
    label, w = data["true_label"], np.abs(data["weight"])
    for i, bkg in enumerate(classes[1:], start=1):
        lr = data["score_signal"] / (data["score_signal"] + data[f"score_{bkg}"] + 1e-10)
        for split in ("train", "test"):
            m = data[f"{split}_mask"].astype(bool) & np.isin(label, (0, i))
            y = label[m] == 0
            roc_curve(y, lr[m], sample_weight=w[m])
            auc = roc_auc_score(y, lr[m], sample_weight=w[m])
            for cls in (True, False):
                np.histogram(lr[m][y == cls], bins=50, range=(0, 1), weights=w[m][y == cls])
            print(f"{bkg} {split} AUC {auc:.6f}")
    for c in classes:
        for k in range(len(classes)):
            sel = label == k
            np.histogram(data[f"score_{c}"][sel], bins=50, range=(0, 1), weights=w[sel])


if __name__ == "__main__":
    main()
