#!/usr/bin/env python3
"""A binary prediction ntuple of N events written by RDataFrame in C++ (memory flat, so 1e8 events
fit on any machine; ~12 bytes per event on disk): continuous float32 scores (the sigmoid of a
Gaussian at +-1.2: a network's unrounded output, nearly one float32 value per event), true_label
0 = signal (42%), float32 lognormal weights, train/valid/test masks 57/23/20%.

Usage: .venv/bin/python benchmarks/make_big_ntuple.py OUT.root N [SEED]
Issue 55: the 1e7 and 1e8 ntuples of the streamed-evaluation table in benchmarks/README.md
(placed in a demo tree's trees/ directory, so that `pnetviz binary --predictions` finds its JSON).
"""

from __future__ import annotations

import os
import sys

import ROOT


def main() -> None:
    out, n = sys.argv[1], int(float(sys.argv[2]))
    ROOT.gRandom.SetSeed(int(sys.argv[3]) if len(sys.argv) > 3 else 55)
    frame = (ROOT.RDataFrame(n)
             .Define("true_label", "int(gRandom->Rndm() >= 0.42)")
             .Define("score_signal", "float(1.0 / (1.0 + std::exp(-(gRandom->Gaus(true_label == 0 ? 1.2 : -1.2, 1.0)))))")
             .Define("score_bg1", "float(1.0f - score_signal)")
             .Define("u", "gRandom->Rndm()")
             .Define("train_mask", "u < 0.57").Define("valid_mask", "u >= 0.57 && u < 0.8").Define("test_mask", "u >= 0.8")
             .Define("weight", "float(0.03 * std::exp(0.3 * gRandom->Gaus(0, 1)))"))  # fmt: skip
    scratch = out + ".tmp"
    frame.Snapshot("Events", scratch, ["score_signal", "score_bg1", "true_label", "train_mask", "valid_mask", "test_mask", "weight"])
    os.replace(scratch, out)


if __name__ == "__main__":
    main()
