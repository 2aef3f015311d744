"""Which data bins `pnetviz datamc` hides (docs/datamc.md, "Blinding"): pure rules on arrays.

A region (channel) is blind when its name matches one of the patterns (shell-style, default the
analysis' signal-region channels SR* and the trainer's channel names Run*; control regions such as
WZ* and ZG* are not). In a blind region a data bin is masked when
  * the expected signal over the square root of the expected background in it exceeds the
    sensitivity threshold (s / sqrt(b) > threshold; a bin with signal and no background too), or
  * any of it lies at or above the loosest working point's threshold (its upper edge above it):
    the events a cut-based selection would keep,
and every bin is masked when the region has no signal sample to compute these from. `--unblind`
lifts the mask (recorded in datamc.json, on the figures and in the report).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence

import numpy as np

DEFAULT_PATTERNS = ("SR*", "Run*")
DEFAULT_SENSITIVITY = 0.1
RULE = ("in a blind region (channel matching the patterns) a data bin is masked where the expected s/sqrt(b) exceeds "
        "the threshold or where the bin reaches the loosest working point's threshold (its upper edge above it); every "
        "bin when the region has no signal sample")  # fmt: skip


def is_blind(channel: str, patterns: Sequence[str]) -> bool:
    """Whether the channel's name matches one of the shell-style patterns (case-sensitive)."""
    return any(fnmatch.fnmatchcase(channel, p) for p in patterns)


def mask(edges: np.ndarray, signal: np.ndarray | None, background: np.ndarray, loosest: float | None,
         threshold: float = DEFAULT_SENSITIVITY) -> np.ndarray:  # fmt: skip
    """The masked bins of a blind region: s/sqrt(b) > threshold or upper edge > loosest (None:
    no working point); all bins when `signal` is None."""
    n = len(edges) - 1
    if signal is None:
        return np.ones(n, dtype=bool)
    s, b = np.asarray(signal, float), np.asarray(background, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        sensitive = np.where(b > 0, s / np.sqrt(np.where(b > 0, b, 1.0)) > threshold, s > 0)
    above = np.asarray(edges[1:], float) > loosest if loosest is not None else np.zeros(n, dtype=bool)
    return sensitive | above
