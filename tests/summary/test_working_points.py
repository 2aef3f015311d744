"""The campaign's working-point table from the fold sets' working_points.json: fold means by hand,
rejection over folds (a lower limit where no background passes), CSV cells, LaTeX that compiles."""

from __future__ import annotations

import csv
import io
import json
import math

import pytest

from conftest import compile_latex

from pnetviz.summary.summary import working_point_files
from pnetviz.summary.workingpoints import working_point_rows
from pnetviz.metrics import hep


def write_fold(directory, kind, fold, pairs):
    directory.mkdir(parents=True)
    (directory / "working_points.json").write_text(json.dumps({"format": 1, "kind": kind, "fold": fold, "pairs": pairs}))
    return directory


def point(target, threshold, eps_s, eps_b, n_eff_b=50.0):
    split = {"eps_s": eps_s, "eps_b": eps_b, "effective_events": {"signal": 40.0, "background": n_eff_b}}
    return {"target_eps_s": target, "threshold": threshold, "train": split, "test": split}


@pytest.fixture
def jobs(tmp_path):
    b0 = write_fold(tmp_path / "b" / "fold-0", "binary", 0, {"signal vs ttZ": {"wp_from": "train", "points": [
        point(0.5, 0.90, 0.52, 0.02), point(0.9, 0.40, 0.91, 0.0)]}})  # fmt: skip
    b1 = write_fold(tmp_path / "b" / "fold-1", "binary", 1, {"signal vs ttZ": {"wp_from": "train", "points": [
        point(0.5, 0.94, 0.48, 0.04), point(0.9, 0.50, 0.89, 0.0)]}})  # fmt: skip
    summary = write_fold(tmp_path / "b" / "folds", "fold summary", None, {"x": {}})  # not a fold: ignored
    mc = write_fold(tmp_path / "m" / "fold-0", "multiclass", 0, {"signal vs ttX": {"wp_from": "train", "points": [
        point(0.5, 0.8, 0.5, 0.1)]}, "signal vs diboson": {"wp_from": "train", "points": [point(0.5, 0.7, 0.5, 0.2)]}})  # fmt: skip
    base = {"channel": "Run3Mu", "signal": "MHc130_MA90", "pair": None}
    return [{**base, "kind": "binary", "model": "PN-nNodes64-binary-ttZ", "status": "done", "outputs": [str(b0), str(b1), str(summary)]},
            {**base, "kind": "multiclass", "model": "PN-nNodes64-3grp-nonprompt-diboson-ttX", "status": "up to date", "outputs": [str(mc)]},
            {**base, "kind": "multiclass", "model": "PN-broken", "status": "failed", "outputs": [str(mc)]}]  # fmt: skip


def test_rows_are_fold_means_with_rejection_over_folds(jobs):
    rows = {(r["kind"], r["pair"], r["target_eps_s"]): r for r in working_point_rows(jobs)}
    assert set(rows) == {("binary", "ttZ", 0.5), ("binary", "ttZ", 0.9), ("multiclass", "ttX", 0.5), ("multiclass", "diboson", 0.5)}
    r = rows[("binary", "ttZ", 0.5)]
    assert r["folds"] == "0;1" and r["thresholds"] == "0.9;0.94" and (r["m_hc"], r["m_a"]) == (130, 90)
    assert r["threshold_mean"] == pytest.approx(0.92) and r["threshold_std"] == pytest.approx(0.04 / 2**0.5)
    assert r["rejection_test"] == pytest.approx(1 / 0.03) and r["rejection_test_limit"] is False
    s = abs(math.log(0.04 / 0.02)) / 2**0.5  # std of ln(eps_b) over the two folds
    assert (r["rejection_test_lower"], r["rejection_test_upper"]) == pytest.approx((math.exp(-s) / 0.03, math.exp(s) / 0.03))
    limit = rows[("binary", "ttZ", 0.9)]
    assert limit["rejection_test_limit"] is True and limit["rejection_test"] == pytest.approx(1 / hep.eps_b_limit(100.0))


def test_csv_and_latex(jobs, tmp_path):
    files = working_point_files(working_point_rows(jobs))
    table = list(csv.DictReader(io.StringIO(files["campaign_working_points.csv"])))
    assert len(table) == 4
    lim = next(r for r in table if r["target_eps_s"] == "0.9")
    assert lim["rejection_test"].startswith("> ")
    tex = files["campaign_working_points.tex"]
    assert tex.count(r"\begin{table}") == 1 and r"$\varepsilon_s = 0.9$" in tex and "$>" in tex
    compile_latex(tex, tmp_path)


def test_a_lower_limit_is_raised_to_a_measured_rejection_at_a_larger_target(tmp_path):
    """eps_s 0.5: no background passes in either fold (a lower limit, 1/eps_b_limit(100) = 33.9);
    eps_s 0.9: 1/mean(0.01, 0.02) = 66.7 measured: the limit at 0.5 reads > 66.7."""
    folds = [write_fold(tmp_path / "b" / f"fold-{k}", "binary", k, {"signal vs ttZ": {"wp_from": "train", "points": [
        point(0.5, 0.9, 0.5, 0.0), point(0.9, 0.4, 0.9, eps_b)]}}) for k, eps_b in ((0, 0.01), (1, 0.02))]  # fmt: skip
    job = {"channel": "Run3Mu", "signal": "MHc130_MA90", "pair": None, "kind": "binary", "model": "PN-binary-ttZ",
           "status": "done", "outputs": [str(f) for f in folds]}  # fmt: skip
    rows = {r["target_eps_s"]: r for r in working_point_rows([job])}
    assert 1 / hep.eps_b_limit(100.0) == pytest.approx(33.88, abs=0.01)
    assert rows[0.9]["rejection_test"] == pytest.approx(1 / 0.015) and not rows[0.9]["rejection_test_limit"]
    assert rows[0.5]["rejection_test_limit"] and rows[0.5]["rejection_test"] == pytest.approx(1 / 0.015)
