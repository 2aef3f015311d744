"""Read a binary prediction ntuple in chunks into per-split score summaries (issue 55, item 4).

Memory is bounded by the chunk (a few columns of `chunk` entries) and the summaries (a row per
distinct float32 score per split), not by the number of events: the path for ntuples too large
to hold. Each chunk is an entry range of the tree read by RDataFrame; its events are added to
their split's metrics.summaries.ScoreSummary, and the summaries are exact under any cut into
chunks (integer sums), so the result does not depend on `chunk`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pnetviz.errors import InputError
from pnetviz.io.rootnames import root_path
from pnetviz.metrics import summaries as sm
from pnetviz.metrics.hep import mode_weights
from pnetviz.rootenv import quiet_root, root

CHUNK = 1_000_000  # entries per read: ~15 MB of the five columns, ~80 MB while a chunk is summarised
COLUMNS = {"score": "score_signal", "label": "true_label", "weight": "weight"}
SPLITS = ("train", "test")
EXACT_ENTRIES = 2**24  # up to this many entries the keys are the exact float32 scores
COARSE_DROP_BITS = 7  # above: 23 - 7 = 16 mantissa bits per key


def key_bits(entries_: int) -> int:
    """Mantissa bits dropped from the keys of an ntuple of `entries_` entries (the module's rule)."""
    return 0 if entries_ <= EXACT_ENTRIES else COARSE_DROP_BITS


def entries(path: Path, tree: str = "Events") -> int:
    """The entries of `tree` in the ntuple `path` (opened under a name ROOT takes literally:
    io.rootnames.root_path, so '#', '?', '$' or '|' in a directory name are only characters)."""
    ROOT = root()
    with root_path(Path(path)) as name, quiet_root():
        f = ROOT.TFile.Open(name, "READ")
        if not f or f.IsZombie():
            raise InputError(f"{path}: not a readable ROOT file; give the prediction ntuple's path.")
        try:
            t = f.Get(tree)
            if not t:
                raise InputError(f"{path}: no tree '{tree}'; give the tree's name with --tree.")
            return int(t.GetEntries())
        finally:
            f.Close()


def chunks(path: Path, names: list[str], tree: str = "Events", chunk: int = CHUNK,
           n: int | None = None) -> Iterator[dict[str, np.ndarray]]:  # fmt: skip
    """The columns `names` of consecutive entry ranges of `chunk` entries (`n`: the tree's entries)."""
    ROOT = root()
    n = entries(path, tree) if n is None else n
    with root_path(Path(path)) as name:
        for lo in range(0, n, chunk):
            frame = ROOT.RDataFrame(tree, name).Range(lo, min(lo + chunk, n))
            yield {k: np.asarray(v) for k, v in frame.AsNumpy(names).items()}


@dataclass(frozen=True)
class Streamed:
    """A binary ntuple read in chunks: per split (train, test) its summary, the signal and background
    weight totals of every event (all splits: the in-memory evaluation's yield normalisation), the
    tree's entries and the keys' dropped mantissa bits."""

    summaries: dict[str, sm.ScoreSummary]
    totals: tuple[float, float]
    entries: int
    drop_bits: int


def read_binary(path: Path, tree: str = "Events", chunk: int = CHUNK, weight_mode: str = "abs",
                columns: dict[str, str] | None = None, drop_bits: int | None = None) -> Streamed:  # fmt: skip
    """Per split (train, test) the summary of its events: signal = label 0, weights after the
    weight mode (metrics.hep.mode_weights), as the in-memory binary evaluation uses them;
    `drop_bits` None: the module's rule (key_bits of the tree's entries)."""
    names = {**COLUMNS, **(columns or {})}
    masks = [f"{s}_mask" for s in SPLITS]
    n = entries(path, tree)
    bits = key_bits(n) if drop_bits is None else drop_bits
    out = {s: sm.ScoreSummary.empty(bits) for s in SPLITS}
    totals = [0.0, 0.0]
    for part in chunks(path, [names["score"], names["label"], names["weight"], *masks], tree, chunk, n):
        signal = part[names["label"]] == 0
        used = mode_weights(part[names["weight"]], weight_mode)
        totals[0] += float(np.sum(used[signal], dtype=np.float64))
        totals[1] += float(np.sum(used[~signal], dtype=np.float64))
        for split, mask in zip(SPLITS, masks, strict=True):
            m = part[mask].astype(bool)
            out[split] = out[split].add(part[names["score"]][m], signal[m], used[m], f"{path}: {names['weight']}")
        del part, signal, used
    return Streamed(out, (totals[0], totals[1]), n, bits)


def binary_summaries(path: Path, tree: str = "Events", chunk: int = CHUNK, weight_mode: str = "abs",
                     columns: dict[str, str] | None = None, drop_bits: int | None = None) -> dict[str, sm.ScoreSummary]:  # fmt: skip
    """read_binary's summaries alone."""
    return read_binary(path, tree, chunk, weight_mode, columns, drop_bits).summaries
