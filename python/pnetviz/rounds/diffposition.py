"""Test events paired by position (issue 51, item 6): two rounds trained on the same dataset and
folds evaluate the same test events, in the same order, but the trainer's ntuples hold no
`event_id`. A fold's test events of round A and round B are taken as the same events, entry by
entry, when both ntuples hold

- the same number of test events (`test_mask`),
- the same `true_label` sequence and the same `weight` sequence (the stored values, bit for bit),
- the same values of every observer branch both ntuples hold (a float branch that is not a model
  output: not `score_*`, not the contract's `weight`),

in entry order. Anything else (another order, one event more, one weight rounded differently) is
not the same events: `same_events` names the first difference, and `pnetviz diff` falls back to the
corrected fold test for that model (rounds.diffevents).

Two independent productions agree on all of this by chance only with vanishing probability: a
single swapped pair of a signal and a background event already breaks the label sequence.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pnetviz.errors import InputError
from pnetviz.io.branches import FLOAT_TYPES
from pnetviz.io.ntuple import read_predictions
from pnetviz.io.treefile import branch_types
from pnetviz.metrics.hep import mode_weights

CONTRACT = ("true_label", "weight", "train_mask", "test_mask", "valid_mask", "event_id")


def observers(path: Path, tree: str = "Events") -> set[str]:
    """The observer branches of an ntuple: float branches that are neither a score nor a contract
    column (m_mumu, pt_lead of the demo)."""
    types = branch_types(Path(path), tree)
    return {name for name, kind in types.items()
            if name and kind in FLOAT_TYPES and not name.startswith("score_") and name not in CONTRACT}  # fmt: skip


def test_split(path: Path, observed: tuple[str, ...]):
    """(scores, labels, stored weights, {observer: values}) of the test events in entry order; the
    reason (InputError's first line) for a file that cannot be read as a binary model."""
    try:
        preds = read_predictions(path, classes=("signal", "background"), score_classes=("signal",), binary=True,
                                 observe=observed)  # fmt: skip
    except InputError as error:
        return str(error).splitlines()[0] if str(error) else "unreadable"
    test = preds.masks["test"]
    return (preds.scores["signal"][test], preds.label[test], preds.weight[test],
            {name: preds.extra[name][test] for name in observed})  # fmt: skip


def first_difference(a: np.ndarray, b: np.ndarray) -> int | None:
    """The first test event (0-based) where two equally long sequences differ (observers are
    finite: read_predictions refuses NaN and inf)."""
    where = np.flatnonzero(a != b)
    return int(where[0]) if where.size else None


def same_events(path_a: Path, path_b: Path, modes: tuple[str, str]):
    """((scores, is signal, weights of its mode) of A, the same of B), aligned entry by entry, when
    the two ntuples' test splits are the same events by position; else the reason, one phrase."""
    try:
        observed = tuple(sorted(observers(path_a) & observers(path_b)))
    except InputError as error:
        return str(error).splitlines()[0] if str(error) else "an ntuple cannot be read"
    sides = [test_split(path_a, observed), test_split(path_b, observed)]
    for side, got in zip("AB", sides, strict=True):
        if isinstance(got, str):
            with_observers = f" with the observers {', '.join(observed)}" if observed else ""
            return f"round {side}'s ntuple is not read as a binary model{with_observers} ({got})"
    (sa, la, wa, oa), (sb, lb, wb, ob) = sides
    if la.size != lb.size:
        return f"{la.size} test events in round A, {lb.size} in round B"
    for what, x, y in (("true_label", la, lb), ("weight", wa, wb), *((f"observer {n}", oa[n], ob[n]) for n in observed)):
        at = first_difference(np.asarray(x), np.asarray(y))
        if at is not None:
            return f"{what} differs at test event {at} of {la.size}"
    return ((sa, la == 0, mode_weights(wa, modes[0])), (sb, lb == 0, mode_weights(wb, modes[1])))
