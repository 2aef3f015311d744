#!/usr/bin/env python3
"""CPU of the read and of the out-of-fold events store of a binary evaluation (issue 55, the io
part): in one process, ROOT's import, `treefile.entries` (the first look at the file), the read
and validation of the ntuple as `pnetviz binary` asks for it, and `out_of_fold_events.npz` of its
test and valid splits; each part's process time. Run it under another checkout's
PYTHONPATH to compare (benchmarks/README.md). Usage:

    python benchmarks/bench_io.py NTUPLE [--output DIR]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ntuple", type=Path)
    parser.add_argument("--output", type=Path, default=None, help="where the npz goes (default: a temporary directory)")
    args = parser.parse_args()
    times, start = {}, time.process_time()

    def lap(name: str) -> None:
        nonlocal start
        now = time.process_time()
        times[name] = now - start
        start = now

    from pnetviz.rootenv import root  # noqa: PLC0415

    root()
    lap("import ROOT")
    from pnetviz.io import ntuple, treefile  # noqa: PLC0415
    from pnetviz.jobs import outoffold  # noqa: PLC0415
    from pnetviz.metrics import outoffold as oof  # noqa: PLC0415
    import numpy as np  # noqa: PLC0415

    treefile.entries(args.ntuple, "Events")
    lap("entries")
    preds = ntuple.read_predictions(args.ntuple, classes=("signal", "ttZ"), score_classes=("signal",), binary=True,
                                    subsets=("has_bjet",), optional_subsets=("has_bjet",))  # fmt: skip
    lap("read_predictions")
    splits = {}
    for name in ("test", "valid"):
        sel = preds.masks[name]
        splits[name] = oof.Split(preds.scores["signal"][sel], preds.label[sel] == 0, np.abs(preds.weight[sel]))
    lap("(splits)")
    with tempfile.TemporaryDirectory() as scratch:
        out = args.output or Path(scratch)
        outoffold.store(out, {"S vs ttZ": {"prefix": "", "background": "ttZ",
                                           "pair": oof.FoldPair(splits["test"], splits["valid"], "valid")}})  # fmt: skip
        lap("store")
        size = (out / outoffold.EVENTS_FILE).stat().st_size
    print(" ".join(f"{k}={v:.3f}" for k, v in times.items()) + f" npz={size / 1e6:.1f}MB events={preds.n_events}")


if __name__ == "__main__":
    main()
