"""The rejections of a summary_report.txt headline (issue 54): the working points' rejection is
named "rejection (train-chosen cuts) ... for eps_s X" in one fold's and in the fold summary's
headline (the ROC's rejection at eps_s X has another name: docs/statistics.md); a symmetric error
as large as the rejection is replaced by the range of 1/(eps_b +- its error); a lower limit is
raised to a measured rejection at a larger eps_s (metrics.workingpoints.raise_limits)."""

from __future__ import annotations

import pytest

from pnetviz.metrics import workingpoints
from pnetviz.output.headline import headline


def split(eps_b: float, eps_b_error: float, limit: bool = False, rejection: float | None = None) -> dict:
    value = rejection if rejection is not None else 1 / eps_b
    return {"eps_s": 0.5, "eps_b": eps_b, "eps_b_error": eps_b_error, "rejection": value,
            "rejection_error": None if limit else eps_b_error / eps_b**2, "rejection_lower_limit": limit}  # fmt: skip


def one_fold(points: list[dict]) -> dict:
    return {"kind": "binary", "fold": 2, "signal": "MHc130_MA90", "background": "ttZ",
            "hep_metrics": {"test": {"auc": 0.9, "auc_error": 0.02}}, "working_points": {"wp_from": "train", "points": points}}  # fmt: skip


def test_a_symmetric_error_of_half_the_rejection_or_more_becomes_a_range():
    """eps_b = 0.05 +- 0.01: R = 20 +- 4 (kept); 0.05 +- 0.06: 1/(0.05 + 0.06) = 9.1, no upper edge
    (0.05 - 0.06 < 0); 0.1 +- 0.06: R = 10 +- 6 reads 1/0.16 = 6.25 to 1/0.04 = 25, i.e. 10 +15 -3.75,
    rounded on the smaller side (PDG: 3.75 to one digit)."""
    points = [{"target_eps_s": 0.5, "test": split(0.05, 0.01)}, {"target_eps_s": 0.7, "test": split(0.05, 0.06)},
              {"target_eps_s": 0.9, "test": split(0.1, 0.06)}]  # fmt: skip
    line = next(x for x in headline(one_fold(points)) if "AUC" in x)
    assert line.endswith("rejection (train-chosen cuts) 20 ± 4 for eps_s 0.5, 20 (1 sigma: > 9.1) for eps_s 0.7, "
                         "10 +15 -4 for eps_s 0.9")  # fmt: skip


def test_working_point_lower_limits_are_raised_to_a_larger_targets_measured_rejection():
    points = [{"target_eps_s": 0.5, "threshold": 0.9, "test": split(0.0, 0.0, True, 2.6)},
              {"target_eps_s": 0.7, "threshold": 0.8, "test": split(0.0, 0.0, True, 2.6)},
              {"target_eps_s": 0.9, "threshold": 0.5, "test": split(1 / 19, 0.01)}]  # fmt: skip
    workingpoints.raise_limits(points, ["test"])
    assert [p["test"]["rejection"] for p in points] == pytest.approx([19.0, 19.0, 19.0])
    line = next(x for x in headline(one_fold(points)) if "AUC" in x)
    assert "> 19 (95% CL) for eps_s 0.5, > 19 (95% CL) for eps_s 0.7" in line


def test_the_fold_summary_names_the_working_points_rejection():
    report = {"folds": [0, 1], "pairs": {"MHc130_MA90 vs ttZ": {"test": {"mean": {"auc": 0.93}, "std": {"auc": 0.01}}}},
              "working_points": {"MHc130_MA90 vs ttZ": {"0.5": {"target_eps_s": 0.5, "test": {"rejection": {
                  "value": 77.6, "lower": 30.7, "upper": 196.2, "lower_limit": False}}}}}}  # fmt: skip
    line = next(x for x in headline(report) if "AUC" in x)
    assert line.endswith("rejection (train-chosen cuts) 80 +120 -50 for eps_s 0.5")  # 77.6 +118.6 -46.9, PDG-rounded
