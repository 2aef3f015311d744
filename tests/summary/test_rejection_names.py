"""Two rejections over folds, one name each, one value per name on every surface (issue 54,
docs/statistics.md): on the demo round, per binary model,

- "rejection at eps_s 0.5" (1/mean over folds of the test eps_b on each fold's ROC at eps_s = 0.5):
  the model page's "Mean over folds", the leaderboard and campaign_summary_folds_mean.csv
  (rejection_0.5_mean), folds/summary_report.json (pairs' test mean rejection_0.5) and `pnetviz
  diff` (rejection_a_0.5 of the round against itself) hold the same number;
- "rejection (train-chosen cuts) ... for eps_s 0.5" (the working points): the fold summary's
  headline and campaign_working_points.csv (rejection_test at target 0.5) hold the same number,
  and neither surface uses the other's name."""

from __future__ import annotations

import csv
import json
import re

import pytest

from pnetviz.metrics.rounding import asymmetric
from pnetviz.rounds import diff
from pnetviz.web import parts

pytestmark = pytest.mark.slow  # the demo round


def _csv(path) -> list[dict]:
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def _float(cell: str) -> float:
    return float(cell.removeprefix("> "))


def test_each_rejection_has_one_value_per_name_on_every_surface(demo_round):
    campaign = demo_round.plots / "campaign"
    board = {(r["signal"], r["pair"], r["model"]): r for r in _csv(campaign / "campaign_leaderboard.csv") if r["kind"] == "binary"}
    means = {(r["signal"], r["pair"], r["model"]): r for r in _csv(campaign / "campaign_summary_folds_mean.csv") if r["kind"] == "binary"}
    cuts = {(r["signal"], r["pair"], r["model"]): r for r in _csv(campaign / "campaign_working_points.csv")
            if r["kind"] == "binary" and float(r["target_eps_s"]) == 0.5}  # fmt: skip
    same = {(r["signal"], r["pair"], r["model_a"]): r for r in diff.compare(campaign, campaign).rows if r["kind"] == "binary"}
    assert board and set(board) == set(means) == set(cuts) == set(same)
    for (signal, pair, model), row in board.items():
        roc = _float(row["rejection_0.5_mean"])
        assert _float(means[(signal, pair, model)]["rejection_0.5_mean"]) == pytest.approx(roc, rel=1e-12)
        assert same[(signal, pair, model)]["rejection_a_0.5"] == pytest.approx(roc, rel=1e-12)
        folds = next(demo_round.plots.glob(f"results/*/binary/{signal}/{model}/folds"))
        report = json.loads((folds / "summary_report.json").read_text())
        [pair_name] = report["pairs"]
        assert report["pairs"][pair_name]["test"]["mean"]["rejection_0.5"] == pytest.approx(roc, rel=1e-9)
        page = next((campaign / "site").glob(f"*/{signal}/binary/{model}.html")).read_text()
        shown = re.search(r"Mean over folds</h2>.*?Rejection at &epsilon;<sub>s</sub> = 0\.5.*?<tr><td>[^<]*</td><td>.*?</td><td>(.*?)</td>",
                          page, re.S).group(1)  # fmt: skip
        number = {k: _float(v) for k, v in row.items() if k.startswith("rejection_0.5_") and v}
        assert shown == parts._rejection_html(number | {"rejection_0.5_limit": row["rejection_0.5_mean"].startswith(">")}, "rejection_0.5")
        cut = cuts[(signal, pair, model)]
        headline = (folds / "summary_report.txt").read_text().split("details:")[0]
        printed = re.search(r"rejection \(train-chosen cuts\) (.+?) for eps_s 0\.5", headline).group(1)
        value, lower, upper = (_float(cut[k]) for k in ("rejection_test", "rejection_test_lower", "rejection_test_upper")) \
            if cut["rejection_test_lower"] else (_float(cut["rejection_test"]), None, None)  # fmt: skip
        if lower is None:  # a lower limit
            assert cut["rejection_test"].startswith("> ") and printed == f"> {value:.3g} (95% CL)"
        else:
            assert printed == asymmetric(value, upper - value, value - lower, fallback=".3g")
        assert "at eps_s" not in headline  # the ROC's name is not the cuts'
        assert "train-chosen" not in page.split("Mean over folds")[1].split("</table>")[0]
