"""Read a binary prediction ntuple in chunks into per-split score summaries (issue 55, item 4).

Memory is bounded by the chunk (a few columns of `chunk` entries) and the summaries (a row per
distinct float32 score per split), not by the number of events: the path for ntuples too large
to hold. Each chunk is an entry range of the tree read by RDataFrame; its events are added to
their split's metrics.summaries.ScoreSummary, and the summaries are exact under any cut into
chunks (integer sums), so the result does not depend on `chunk`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

from pnetviz.errors import InputError
from pnetviz.metrics import summaries as sm
from pnetviz.metrics.hep import mode_weights
from pnetviz.rootenv import root

CHUNK = 1_000_000  # entries per read: ~15 MB of the five columns, ~80 MB while a chunk is summarised
COLUMNS = {"score": "score_signal", "label": "true_label", "weight": "weight"}
SPLITS = ("train", "test")


def entries(path: Path, tree: str = "Events") -> int:
    ROOT = root()
    f = ROOT.TFile.Open(str(path))
    if not f or f.IsZombie():
        raise InputError(f"{path}: not a readable ROOT file; give the prediction ntuple's path.")
    t = f.Get(tree)
    if not t:
        raise InputError(f"{path}: no tree '{tree}'; give the tree's name with --tree.")
    n = int(t.GetEntries())
    f.Close()
    return n


def chunks(path: Path, names: list[str], tree: str = "Events", chunk: int = CHUNK) -> Iterator[dict[str, np.ndarray]]:
    """The columns `names` of consecutive entry ranges of `chunk` entries."""
    ROOT = root()
    n = entries(path, tree)
    for lo in range(0, n, chunk):
        frame = ROOT.RDataFrame(tree, str(path)).Range(lo, min(lo + chunk, n))
        yield {k: np.asarray(v) for k, v in frame.AsNumpy(names).items()}


def binary_summaries(path: Path, tree: str = "Events", chunk: int = CHUNK, weight_mode: str = "abs",
                     columns: dict[str, str] | None = None) -> dict[str, sm.ScoreSummary]:  # fmt: skip
    """Per split (train, test) the summary of its events: signal = label 0, weights after the
    weight mode (metrics.hep.mode_weights), as the in-memory binary evaluation uses them."""
    names = {**COLUMNS, **(columns or {})}
    masks = [f"{s}_mask" for s in SPLITS]
    out = {s: sm.ScoreSummary.empty() for s in SPLITS}
    for part in chunks(path, [names["score"], names["label"], names["weight"], *masks], tree, chunk):
        label, weight = part[names["label"]], part[names["weight"]]
        for split, mask in zip(SPLITS, masks, strict=True):
            m = part[mask].astype(bool)
            out[split] = out[split].add(part[names["score"]][m], label[m] == 0, mode_weights(weight[m], weight_mode),
                                        f"{path}: {names['weight']}")  # fmt: skip
    return out
