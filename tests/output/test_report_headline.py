"""summary_report.txt leads with the answer (issue 40 item 3): the first 15 lines of a binary and
a multi-class evaluation (per fold and the folds/ summary) hold the test AUC +- its error, equal to
summary_report.json's values PDG-rounded, then the rejection, KS p, FIP2 and binned sensitivity."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import load_script
from pnetviz.cli.common import run
from pnetviz.demo.trainertree import write_trainer_fold
from pnetviz.metrics.rounding import pm
from pnetviz.output.headline import headline

SIGNAL = "MHc130_MA90"
AUC = re.compile(r"^  (?P<pair>.+?): AUC (?P<value>[0-9.]+) ± (?P<error>[0-9.]+)")


@pytest.fixture(scope="module")
def sets(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("tree") / "results"
    for fold in (0, 1):
        write_trainer_fold(base, "Run1E2Mu", SIGNAL, fold, events=1200)
    out = tmp_path_factory.mktemp("plots")
    common = ["--results-dir", str(base), "--signal", SIGNAL, "--fold", "all", "--formats", "none", "--bootstrap", "20", "-q"]
    assert run(load_script("visualizeBinary").main, [*common, "--background", "ttZ", "--output", str(out / "b")]) == 0
    assert run(load_script("visualizeMultiClass").main, [*common, "--output", str(out / "m")]) == 0
    assert run(load_script("visualizeComparison").main, [*common, "--plots-dir", str(out / "c")]) == 0
    compared = next((out / "c").glob("results/Run1E2Mu/comparison/*/*/folds")).parent
    return {"binary": out / "b", "multiclass": out / "m", "comparison": compared}


def _head(directory: Path) -> tuple[list[str], dict]:
    lines = (directory / "summary_report.txt").read_text().splitlines()[:15]
    return lines, json.loads((directory / "summary_report.json").read_text())


def _aucs(lines: list[str]) -> dict[str, tuple[str, str]]:
    return {m["pair"]: (m["value"], m["error"]) for m in map(AUC.match, lines) if m}


def _agrees(shown: tuple[str, str], value: float, error: float) -> None:
    """`shown` (value, error) is the report's value +- error PDG-rounded: the value to the
    error's last decimal, the error to one or two significant digits."""
    text, err = shown
    decimals = len(text.split(".")[1]) if "." in text else 0
    assert len(err.split(".")[1] if "." in err else "") == decimals
    assert float(text) == pytest.approx(value, abs=0.5 * 10**-decimals + 1e-12)
    assert float(err) == pytest.approx(error, rel=0.26)
    assert 1 <= len(err.replace(".", "").lstrip("0")) <= 2
    assert f"{text} ± {err}" == pm(value, error)


@pytest.mark.parametrize("fold", [0, 1])
def test_binary_fold_report_leads_with_the_test_auc(sets, fold):
    lines, report = _head(sets["binary"] / f"fold-{fold}")
    assert lines[2] == "headline (test split):"
    test = report["hep_metrics"]["test"]
    _agrees(_aucs(lines)[f"{SIGNAL} vs ttZ"], test["auc"], test["auc_error"])
    head = "\n".join(lines)
    assert report["model"]["model_name"] in head and f"fold: {fold}" in head
    assert "rejection (train-chosen cuts)" in head and "for eps_s 0.5" in head and "KS p (train vs test)" in head and "FIP2" in head
    assert f"K = {report['binning']['chosen_k']}" in head
    assert lines.index("details:") < 12


def test_multiclass_fold_report_leads_with_every_pair(sets):
    lines, report = _head(sets["multiclass"] / "fold-0")
    aucs = _aucs(lines)
    assert set(aucs) == {f"signal vs {b}" for b in report["hep_metrics"]}
    for pair, shown in aucs.items():
        background = pair.removeprefix("signal vs ")
        test = report["hep_metrics"][background]["test"]
        assert test["auc"] == report["auc"][background]["test"]
        _agrees(shown, test["auc"], test["auc_error"])


@pytest.mark.parametrize("kind", ["binary", "multiclass"])
def test_fold_summary_leads_with_mean_auc(sets, kind):
    lines, report = _head(sets[kind] / "folds")
    assert lines[3].startswith("  folds: 0, 1")
    aucs = _aucs(lines)
    assert set(aucs) == set(report["pairs"])
    for pair, shown in aucs.items():
        test = report["pairs"][pair]["test"]
        _agrees(shown, test["mean"]["auc"], test["std"]["auc"])


COMPARED = re.compile(r"^  (?P<pair>\w+): AUC binary (?P<b>[0-9.]+ ± [0-9.]+), multi-class (?P<m>[0-9.]+ ± [0-9.]+)$")


@pytest.mark.parametrize("where", ["fold-0", "folds"])
def test_comparison_report_leads_with_both_aucs_and_their_difference(sets, where):
    """A binary vs multi-class set (one fold and folds/) opens with both test AUCs per background
    and the difference multi-class minus binary, as summary_report.json holds them."""
    lines, report = _head(sets["comparison"] / where)
    assert lines[2] == "headline (test split):"
    shown = {m["pair"]: (m["b"], m["m"], lines[i + 1]) for i, m in enumerate(map(COMPARED.match, lines)) if m}
    assert set(shown) == set(report["pairs"]) == {"nonprompt", "diboson", "ttZ"}
    for name, (binary, multi, difference) in shown.items():
        pair = report["pairs"][name]
        if where == "fold-0":
            auc, diff = pair["auc"], pair["difference"]
            assert (binary, multi) == (pm(auc["binary"]["value"], auc["binary"]["error"]),
                                       pm(auc["multiclass"]["value"], auc["multiclass"]["error"]))  # fmt: skip
            assert difference.startswith(f"    multi-class minus binary {pm(diff['multiclass_minus_binary'], diff['error'], sign=True)}")
        else:
            stats = pair["difference_statistics"]
            assert binary == pm(pair["auc_binary"]["mean"], pair["auc_binary"]["std"])
            assert multi == pm(pair["auc_multiclass"]["mean"], pair["auc_multiclass"]["std"])
            assert f"{pm(stats['mean'], stats['standard_error'], sign=True)} (standard error), p = " in difference


def test_other_reports_have_no_headline():
    assert headline({"kind": "ga", "pairs": []}) == []
    assert headline({"rows": []}) == []


def test_campaign_report_leads_with_jobs_and_every_comparison():
    """The round's summary_report.txt opens with its jobs by status and, per channel, signal point
    (mass-grid order) and background, both mean test AUCs and their difference with p_holm."""
    def row(signal, m_hc, m_a, background, diff):
        return {"channel": "Run3Mu", "signal": signal, "m_hc": m_hc, "m_a": m_a, "variant": "", "background": background,
                "auc_test_binary_mean": 0.9312, "auc_test_binary_std": 0.0041, "auc_test_multiclass_mean": 0.9312 + diff,
                "auc_test_multiclass_std": 0.0052, "auc_diff_mean": diff, "auc_diff_standard_error": 0.0013,
                "auc_diff_p_holm": 0.0123}  # fmt: skip

    report = {"jobs": {"done": 12, "up to date": 3, "other options": 0, "no ntuple": 0, "failed": 1},
              "binary_vs_multiclass": [row("MHc160_MA85", 160, 85, "ttZ", 0.0042), row("MHc100_MA95", 100, 95, "ttZ", -0.002)],
              "failed": [], "families": {}}  # fmt: skip
    lines = headline(report)
    assert lines[:2] == ["headline (test split):", "  jobs: 12 done, 3 up to date, 1 failed"]
    assert lines[2] == ("  Run3Mu MHc100_MA95 vs ttZ: AUC binary 0.931 ± 0.004, multi-class 0.929 ± 0.005; "
                        "multi-class minus binary -0.0020 ± 0.0013 (p_holm 0.012)")  # fmt: skip
    assert lines[3].startswith("  Run3Mu MHc160_MA85 vs ttZ: AUC binary 0.931 ± 0.004, multi-class 0.935 ± 0.005; "
                               "multi-class minus binary +0.0042 ± 0.0013")  # fmt: skip
    assert lines[-2:] == ["", "details:"]
