"""`pnetviz multiclass --score weighted-lr` on a 4-class toy ntuple: every weighted pair's AUC
against an independent numpy computation, the weights in the report and on the figures, and the
option's refusals (one line, exit 2)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import contract_columns, load_script, write_ntuple
from pnetviz.cli.common import run
from pnetviz.errors import InputError
from pathlib import Path

from pnetviz.io.ntuple import read_predictions

CLASSES = ("signal", "nonprompt", "diboson", "ttZ")
YIELDS = {"signal": 5.0, "nonprompt": 400.0, "diboson": 100.0, "ttZ": 50.0}
BASE = ["--classes", ",".join(CLASSES), "--formats", "none", "--bootstrap", "2", "--binning", "none", "-q"]


def sorted_auc(score: np.ndarray, is_signal: np.ndarray, w: np.ndarray) -> float:
    """Weighted AUC by one sort, ties as half (the trapezoid)."""
    order = np.argsort(-score, kind="stable")
    s, y, w = score[order], is_signal[order], w[order]
    starts = np.r_[0, np.flatnonzero(np.diff(s)) + 1]
    ws = np.add.reduceat(np.where(y, w, 0.0), starts)
    wb = np.add.reduceat(np.where(y, 0.0, w), starts)
    return float(np.sum(ws * (wb.sum() - np.cumsum(wb) + 0.5 * wb)) / (ws.sum() * wb.sum()))


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    d = tmp_path_factory.mktemp("wlr")
    path = write_ntuple(d / "toy.root", contract_columns(n=3000, seed=11))
    return path, d


@pytest.mark.slow
@pytest.mark.parametrize("yields", [YIELDS, None])
def test_weighted_auc_equals_numpy(toy, yields):
    path, d = toy
    out = d / ("yields" if yields else "totals")
    argv = ["--predictions", str(path), "--output", str(out), "--score", "weighted-lr", *BASE]
    argv += ["--expected-yields", ",".join(f"{c}={v:g}" for c, v in yields.items())] if yields else []
    assert run(load_script("visualizeMultiClass").main, argv) == 0
    report = json.loads((out / "summary_report.json").read_text())
    section = report["weighted_lr"]
    preds = read_predictions(path, classes=CLASSES)
    w = np.abs(preds.weight)  # --weights abs
    totals = np.bincount(preds.label, w)[1:]
    raw = np.array([yields[c] for c in CLASSES[1:]]) if yields else totals
    weights = raw / raw.sum()
    assert section["source"] == ("expected-yields" if yields else "ntuple class totals")
    np.testing.assert_allclose(list(section["weights"].values()), weights, rtol=1e-14)
    s = [preds.scores[c].astype(np.float64) for c in CLASSES]
    score = s[0] / (s[0] + weights[0] * s[1] + weights[1] * s[2] + weights[2] * s[3])
    # signal vs all: each background class's weights scaled so that its share of the background is w_i
    share = np.r_[1.0, weights * totals.sum() / totals] if yields else np.ones(4)
    for split in ("train", "test"):
        m = preds.masks[split]
        expected = sorted_auc(score[m], preds.label[m] == 0, (w * share[preds.label])[m])
        assert section["pairs"]["all"][split] == pytest.approx(expected, abs=1e-12)
        assert section["hep_metrics"]["all"][split]["auc"] == pytest.approx(expected, abs=1e-12)
        for i, bkg in enumerate(CLASSES[1:], start=1):
            p = m & np.isin(preds.label, [0, i])
            assert section["pairs"][bkg][split] == pytest.approx(sorted_auc(score[p], preds.label[p] == 0, w[p]), abs=1e-12)
    if yields:  # the weighted pair's yields are the expected ones: S and the sum of the backgrounds'
        assert section["hep_metrics"]["all"]["yields"] == {**section["hep_metrics"]["all"]["yields"], "kind": "expected",
                                                           "signal": 5.0, "background": 550.0}  # fmt: skip
    captions = report["figure_captions"]
    line = "w: Nonprompt 0.727, Diboson 0.182, ttZ 0.0909 (expected yields)" if yields else "(ntuple totals)"
    for stem in ("roc_curve", "rejection_curve", "score_distribution", "cut_scan"):
        for pair in ("all", *CLASSES[1:]):
            assert line in captions[f"weighted_lr_signal_vs_{pair}_{stem}"]
    wp = json.loads((out / "working_points.json").read_text())
    assert {f"signal vs weighted_lr_{p}" for p in ("all", *CLASSES[1:])} <= set(wp["pairs"])


def test_without_the_option_no_weighted_score(toy):
    path, d = toy
    out = d / "plain"
    assert run(load_script("visualizeMultiClass").main, ["--predictions", str(path), "--output", str(out), *BASE]) == 0
    assert "weighted_lr" not in json.loads((out / "summary_report.json").read_text())


@pytest.mark.parametrize(("yields", "said"), [
    ("signal=5,nonprompt=400,diboson=100", "no yield for ttZ"),
    ("signal=5,nonprompt=400,diboson=0,ttZ=50", "'diboson' must be a positive number"),
    ("signal=5,nonprompt=400,diboson=-3,ttZ=50", "'diboson' must be a positive number"),
])  # fmt: skip
def test_bad_weights_one_line_exit_2(toy, capsys, yields, said):
    path, d = toy
    out = d / "refused"
    argv = ["--predictions", str(path), "--output", str(out), "--score", "weighted-lr", "--expected-yields", yields, *BASE]
    assert run(load_script("visualizeMultiClass").main, argv) == 2
    err = capsys.readouterr().err.strip()
    assert said in err and err.count("\n") == 0 and err.startswith("pnetviz: error:")
    assert not out.exists()  # nothing published


def test_negative_class_total_refused(tmp_path, capsys):
    cols = contract_columns(n=800, seed=2)
    w = np.abs(cols["weight"]) + 0.1
    cols["weight"] = np.where(cols["true_label"] == 2, -w, w)  # diboson: signed weights summing below 0
    path = write_ntuple(tmp_path / "negative.root", cols)
    argv = ["--predictions", str(path), "--output", str(tmp_path / "o"), "--score", "weighted-lr", "--weights", "signed", *BASE]
    assert run(load_script("visualizeMultiClass").main, argv) == 2
    err = capsys.readouterr().err.strip()
    assert "diboson = -" in err and "--expected-yields" in err and err.count("\n") == 0
    assert not (tmp_path / "o").exists()


@pytest.mark.slow
def test_campaign_rows_and_comparison_records(toy):
    """The campaign reads the weighted pairs as more multi-class rows (pair weighted_lr_<all|class>,
    the report's numbers), labelled on its figures as the class's weighted LR."""
    from pnetviz.campaign.plan import Job  # noqa: PLC0415
    from pnetviz.summary.rows import job_rows  # noqa: PLC0415
    from pnetviz.summary.summary import pair_label  # noqa: PLC0415

    path, d = toy
    out = d / "campaign-rows"
    argv = ["--predictions", str(path), "--output", str(out), "--score", "weighted-lr", *BASE]
    assert run(load_script("visualizeMultiClass").main, argv) == 0
    job = Job("multiclass", "Run3Mu", "MHc130_MA90", "m", None, (0,), "multiclass", (), (path,), (out,))
    rows, info = job_rows(job)
    report = json.loads((out / "summary_report.json").read_text())["weighted_lr"]
    by_pair = {r["pair"]: r for r in rows}
    assert set(by_pair) == {*CLASSES[1:], *(f"weighted_lr_{p}" for p in ("all", *CLASSES[1:]))}
    for name in ("all", *CLASSES[1:]):
        row = by_pair[f"weighted_lr_{name}"]
        assert row["auc_test"] == report["pairs"][name]["test"] and row["auc_train"] == report["pairs"][name]["train"]
        used = report["pairs"][name]["events_used"]["test"]
        assert row["events_test_signal"] == used["signal"] and row["events_test_background"] == sum(used.values()) - used["signal"]
    assert pair_label("weighted_lr_all") == "all backgrounds, weighted LR"
    assert pair_label("weighted_lr_ttZ") == "t#bar{t}Z, weighted LR" and pair_label("ttZ") == "t#bar{t}Z"


@pytest.mark.slow
def test_compare_against_the_weighted_lr(tmp_path_factory):
    """pnetviz compare --score weighted-lr: per binary background the weighted LR's AUC on the
    multi-class test events of the pair (numpy), its difference to the binary model's AUC (paired:
    the demo's ntuples hold the same events), the weights of --expected-yields, the figures."""
    from conftest import make_demo  # noqa: PLC0415
    from pnetviz.demo.toys import DemoConfig  # noqa: PLC0415

    results = make_demo(tmp_path_factory, DemoConfig(events=1500, folds=1))
    out = tmp_path_factory.mktemp("cmp")
    yields = "signal=2,nonprompt=300,diboson=60,ttZ=40"
    argv = ["--results-dir", str(results), "--fold", "0", "--output", str(out), "--formats", "png", "--bootstrap", "20",
            "--score", "weighted-lr", "--expected-yields", yields, "-q"]  # fmt: skip
    assert run(load_script("visualizeComparison").main, argv) == 0
    report = json.loads((out / "summary_report.json").read_text())
    mc = read_predictions(Path(report["multiclass_input"]))
    w = np.array([300.0, 60.0, 40.0]) / 400.0
    s = [mc.scores[c].astype(np.float64) for c in CLASSES]
    score = s[0] / (s[0] + w[0] * s[1] + w[1] * s[2] + w[2] * s[3])
    for i, bkg in enumerate(CLASSES[1:], start=1):
        section = report["pairs"][bkg]["weighted_lr"]
        assert section["source"] == "expected-yields"
        np.testing.assert_allclose(list(section["weights"].values()), w, rtol=1e-14)
        m = mc.masks["test"] & np.isin(mc.label, [0, i])
        expected = sorted_auc(score[m], mc.label[m] == 0, np.abs(mc.weight[m]))
        assert section["auc"]["multiclass"]["value"] == pytest.approx(expected, abs=1e-12)
        binary = report["pairs"][bkg]["auc"]["binary"]["value"]
        assert section["auc"]["binary"]["value"] == binary
        assert section["difference"]["multiclass_minus_binary"] == pytest.approx(expected - binary, abs=1e-12)
        assert section["difference"]["method"].startswith("paired")
        for stem in ("roc", "rejection"):
            assert (out / f"weighted_lr_signal_vs_{bkg}_{stem}_comparison.png").stat().st_size > 1000
            caption = report["figure_captions"][f"weighted_lr_signal_vs_{bkg}_{stem}_comparison"]
            assert "w: Nonprompt 0.75, Diboson 0.15, ttZ 0.1 (expected yields)" in caption


@pytest.mark.slow
def test_the_api_takes_it_from_the_option_table(toy):
    """evaluate_multiclass(score="weighted-lr", expected_yields={...}): the same section as the command."""
    from pnetviz.api.evaluate import evaluate_multiclass  # noqa: PLC0415

    path, d = toy
    out = d / "api"
    evaluate_multiclass(path, classes=list(CLASSES), output=out, formats="none", bootstrap=2, binning="none",
                        score="weighted-lr", expected_yields=YIELDS)  # fmt: skip
    section = json.loads((out / "summary_report.json").read_text())["weighted_lr"]
    assert section["source"] == "expected-yields" and section["normalised_from"] == {c: YIELDS[c] for c in CLASSES[1:]}
    with pytest.raises(InputError, match="weighted"):
        evaluate_multiclass(path, classes=list(CLASSES), output=d / "api2", score="weighted")


@pytest.mark.slow
def test_fold_summary_of_the_weighted_pairs(tmp_path_factory):
    """Several folds: folds/ holds each weighted pair's mean curves, its AUC the mean of the folds'
    reports, its figures' context the weights of --expected-yields."""
    from conftest import make_demo  # noqa: PLC0415
    from pnetviz.demo.toys import DemoConfig  # noqa: PLC0415

    results = make_demo(tmp_path_factory, DemoConfig(events=1200, folds=2))
    out = tmp_path_factory.mktemp("folds")
    argv = ["--results-dir", str(results), "--fold", "all", "--output", str(out), "--formats", "none", "--bootstrap", "2",
            "--binning", "none", "--score", "weighted-lr", "--expected-yields", "signal=2,nonprompt=300,diboson=60,ttZ=40", "-q"]  # fmt: skip
    assert run(load_script("visualizeMultiClass").main, argv) == 0
    summary = json.loads((out / "folds" / "summary_report.json").read_text())
    folds = [json.loads((out / f"fold-{k}" / "summary_report.json").read_text())["weighted_lr"] for k in range(2)]
    signal = summary["pairs"]  # pair name -> split -> aggregate
    key = next(k for k in signal if k.endswith("vs all backgrounds (weighted LR)"))
    assert signal[key]["test"]["mean"]["auc"] == pytest.approx(np.mean([f["pairs"]["all"]["test"] for f in folds]), abs=1e-12)
    caption = summary["figure_captions"]["weighted_lr_signal_vs_all_roc_curve_folds"]
    assert "vs all backgrounds, weighted LR" in caption and "w: Nonprompt 0.75, Diboson 0.15, ttZ 0.1 (expected yields)" in caption


@pytest.mark.slow
def test_out_of_fold_pools_the_weighted_pairs(tmp_path_factory):
    """The weighted pairs enter the out-of-fold evaluation: signal vs all backgrounds pooled over the
    folds' test events, each background class's weights times its share factor, AUC against the
    sort-based numpy AUC of the pooled events read from the ntuples."""
    from conftest import make_demo  # noqa: PLC0415
    from pnetviz.demo.toys import DemoConfig  # noqa: PLC0415

    results = make_demo(tmp_path_factory, DemoConfig(events=1200, folds=2))
    out = tmp_path_factory.mktemp("oof")
    argv = ["--results-dir", str(results), "--fold", "all", "--output", str(out), "--formats", "none", "--bootstrap", "2",
            "--binning", "none", "--score", "weighted-lr", "-q"]  # fmt: skip
    assert run(load_script("visualizeMultiClass").main, argv) == 0
    pooled = json.loads((out / "folds" / "out_of_fold.json").read_text())["pairs"]
    key = next(k for k in pooled if k.endswith("vs all backgrounds (weighted LR)"))
    files = sorted(p for p in results.rglob("*.root") if "multiclass" in p.parts)
    assert [p.parent.name for p in files] == ["fold-0", "fold-1"]  # the multi-class model's ntuple per fold
    scores, is_signal, weights = [], [], []
    for k, path in enumerate(files):
        section = json.loads((out / f"fold-{k}" / "summary_report.json").read_text())["weighted_lr"]
        preds = read_predictions(path, classes=CLASSES)
        w = np.abs(preds.weight)
        totals = np.bincount(preds.label, w, minlength=4)[1:]
        share = np.r_[1.0, np.array(list(section["weights"].values())) * totals.sum() / totals]
        s = [preds.scores[c].astype(np.float64) for c in CLASSES]
        v = list(section["weights"].values())
        score = s[0] / (s[0] + v[0] * s[1] + v[1] * s[2] + v[2] * s[3])
        m = preds.masks["test"]
        scores.append(score[m]), is_signal.append(preds.label[m] == 0), weights.append((w * share[preds.label])[m])
    expected = sorted_auc(np.concatenate(scores), np.concatenate(is_signal), np.concatenate(weights))
    assert pooled[key]["events"] == sum(len(s) for s in scores)
    assert pooled[key]["auc"] == pytest.approx(expected, abs=1e-12)
    assert pooled[key]["prefix"] == "weighted_lr_signal_vs_all_"
    assert any(k.endswith("vs ttZ (weighted LR)") for k in pooled)
