"""`pnetviz diff` pairs two rounds event by event without `event_id` (issue 51, item 6): a tiny demo
round (`pnetviz demo --events 300`, 34 test events per fold) copied, one binary model's signal scores
lowered by 0.2 in the copy's ntuples (written with ROOT here). Both rounds hold the same test events
in the same order, so every binary model is paired by position: the shifted one is significant after
Holm's adjustment (its corrected fold test alone, p ~ 0.09 before Holm, would not find it), the others
are not, and the errors equal an independent Poisson bootstrap (scikit-learn's weighted AUC). A copy
whose ntuple of one fold lists its events in reverse order falls back to the corrected fold test and
says why."""

from __future__ import annotations

import csv
import json
import math
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import roc_auc_score

from conftest import load_script, write_ntuple
from pnetviz.cli.common import run
from pnetviz.cli.commands import run_command
from pnetviz.rootenv import root
from pnetviz.rounds.diff import ERROR_METHOD
from pnetviz.rounds.diffevents import METHOD_POSITION, NOT_PAIRED, REPLICAS, SEED

pytestmark = pytest.mark.slow  # a demo and three campaigns

CHANNEL, SIGNAL = "Run3Mu", "MHc130_MA90"
SHIFTED, REORDERED = "nonprompt", "ttZ"  # binary models: signal scores - 0.2; fold 1's entries reversed
CAMPAIGN = ["--workers", "0", "--kinds", "binary,multiclass", "--bootstrap", "0", "--formats", "none", "--images", "none",
            "--no-bjet-comparison", "-q"]  # fmt: skip


def binary_ntuples(results: Path, pair: str, fold: str = "*") -> list[Path]:
    return sorted((results / CHANNEL / "binary").glob(f"*{SIGNAL}/fold-{fold}/trees/*-binary-{pair}.root"))


def shift_signal_scores(ntuple: Path, delta: float) -> None:
    """score_signal - delta (at least 0) for every signal event, score_bg1 = 1 - score_signal."""
    tmp = ntuple.with_name(ntuple.name + ".tmp.root")
    df = root().RDataFrame("Events", str(ntuple))
    df = df.Redefine("score_signal", f"true_label == 0 ? std::max(0.f, score_signal - {delta}f) : score_signal")
    df.Redefine("score_bg1", "1.f - score_signal").Snapshot("Events", str(tmp))
    os.replace(tmp, ntuple)


def reverse_entries(ntuple: Path) -> None:
    """The same events, every branch, in reverse entry order."""
    columns = root().RDataFrame("Events", str(ntuple)).AsNumpy()
    tmp = ntuple.with_name(ntuple.name + ".tmp.root")
    write_ntuple(tmp, {name: values[::-1] for name, values in columns.items()})
    os.replace(tmp, ntuple)


@pytest.fixture(scope="module")
def rounds(tmp_path_factory) -> dict[str, Path]:
    top = tmp_path_factory.mktemp("pairs")
    argv = ["--output", str(top / "a" / "results"), "--events", "300", "--signals", SIGNAL, "--channels", CHANNEL, "--no-ga"]
    assert run_command("demo", argv) == 0
    for name in ("shifted", "reordered"):
        shutil.copytree(top / "a" / "results", top / name / "results")
    for ntuple in binary_ntuples(top / "shifted" / "results", SHIFTED):
        shift_signal_scores(ntuple, 0.2)
    (ntuple,) = binary_ntuples(top / "reordered" / "results", REORDERED, "1")
    reverse_entries(ntuple)
    out = {}
    for name in ("a", "shifted", "reordered"):
        argv = ["--results-dir", str(top / name / "results"), "--plots-dir", str(top / name / "plots"), *CAMPAIGN]
        assert run(load_script("visualizeCampaign").main, argv) == 0
        out[name] = top / name / "plots"
    return out


def diff(a: Path, b: Path, out: Path) -> dict:
    assert run_command("diff", [str(a), str(b), "--output", str(out), "--formats", "none", "-q"]) == 0
    return json.loads((out / "diff.json").read_text())


def split_events(results: Path, pair: str, fold: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    (path,) = binary_ntuples(results, pair, str(fold))
    cols = root().RDataFrame("Events", str(path)).Filter("test_mask").AsNumpy(["score_signal", "true_label", "weight"])
    return cols["score_signal"].astype(float), cols["true_label"] == 0, np.abs(cols["weight"].astype(float))


def bootstrap_error(a: Path, b: Path, pair: str, folds: list[int]) -> float:
    """sqrt(sum over folds of var(AUC_B - AUC_A) over Poisson(1) replicas) / k, the replicas drawn
    as pnetviz draws them (numpy's generator seeded SEED + fold, one draw per replica)."""
    variances = []
    for fold in folds:
        (sa, ya, wa), (sb, yb, wb) = split_events(a, pair, fold), split_events(b, pair, fold)
        assert np.array_equal(ya, yb) and np.array_equal(wa, wb)
        rng = np.random.default_rng(SEED + fold)
        deltas = []
        for _ in range(REPLICAS):
            counts = rng.poisson(1.0, sa.size)
            deltas.append(roc_auc_score(yb, sb, sample_weight=wb * counts) - roc_auc_score(ya, sa, sample_weight=wa * counts))
        variances.append(np.var(deltas, ddof=1))
    return math.sqrt(sum(variances)) / len(folds)


def fold_aucs(plots: Path, pair: str, kind: str = "binary") -> dict[int, dict]:
    rows = json.loads((plots / "campaign" / "campaign_summary.json").read_text())["rows"]
    return {r["fold"]: r for r in rows if r["pair"] == pair and r["kind"] == kind and isinstance(r["fold"], int)}


def test_the_shifted_model_is_paired_by_position_and_alone_significant(rounds, tmp_path):
    out = tmp_path / "d"
    result = diff(rounds["a"], rounds["shifted"], out)
    models = {(m["kind"], m["pair"]): m for m in result["models"]}
    assert len(models) == 6
    assert {key for key, m in models.items() if m["significant"]} == {("binary", SHIFTED)}
    for (kind, pair), m in models.items():
        if kind == "binary":
            assert m["error_method"] == METHOD_POSITION == "event-paired (by position)"
            assert m["pairing"] == "event-paired by position in folds 0 1 2 3 4"
        else:
            assert m["error_method"] == ERROR_METHOD and m["pairing"].startswith(f"{NOT_PAIRED}: a multi-class pair")
        if pair != SHIFTED:
            assert m["delta_auc"] == 0.0 and m["p_value"] == 1.0 and m["p_holm"] == 1.0
    shifted = models[("binary", SHIFTED)]
    se = bootstrap_error(rounds["a"].parent / "results", rounds["shifted"].parent / "results", SHIFTED, list(range(5)))
    assert shifted["delta_auc_standard_error"] == pytest.approx(se, rel=1e-9)
    z = shifted["delta_auc"] / se
    assert shifted["p_value"] == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-9)
    assert shifted["p_holm"] == pytest.approx(6 * shifted["p_value"], rel=1e-12) and shifted["p_holm"] < 0.05
    # beside it, the fold tests over the five per-fold AUC differences (campaign rows): both recomputed
    ra, rb = fold_aucs(rounds["a"], SHIFTED), fold_aucs(rounds["shifted"], SHIFTED)
    d = np.array([rb[f]["auc_test"] - ra[f]["auc_test"] for f in range(5)])
    assert shifted["delta_auc"] == pytest.approx(d.mean(), rel=1e-12) and -0.15 < d.mean() < -0.05
    ratio = np.mean([sum(r[f][f"events_test_{c}"] for c in ("signal", "background"))
                     / sum(r[f][f"events_train_{c}"] for c in ("signal", "background")) for f in range(5) for r in (ra, rb)])  # fmt: skip
    corrected = 2 * stats.t.sf(abs(d.mean()) / (d.std(ddof=1) * math.sqrt(1 / 5 + ratio)), 4)
    assert shifted["p_value_corrected"] == pytest.approx(corrected, rel=1e-9)
    assert shifted["p_value_naive_t"] == pytest.approx(stats.ttest_rel([rb[f]["auc_test"] for f in range(5)],
                                                                       [ra[f]["auc_test"] for f in range(5)]).pvalue, rel=1e-9)  # fmt: skip
    assert 6 * shifted["p_value_corrected"] > 0.05  # the corrected fold test alone: not significant after Holm
    with open(out / "diff_models.csv", newline="") as f:
        rows = {(r["kind"], r["pair"]): r for r in csv.DictReader(f)}
    assert rows[("binary", SHIFTED)]["error_method"] == "event-paired (by position)"
    assert float(rows[("binary", SHIFTED)]["p_value_naive_t"]) == pytest.approx(shifted["p_value_naive_t"], rel=1e-12)
    assert "event-paired bootstrap over the same test events (3 models" in (out / "diff_models.tex").read_text()


def test_a_round_whose_labels_differ_in_order_falls_back_and_says_so(rounds, tmp_path):
    result = diff(rounds["a"], rounds["reordered"], tmp_path / "d")
    models = {(m["kind"], m["pair"]): m for m in result["models"]}
    reordered = models[("binary", REORDERED)]
    assert reordered["error_method"] == ERROR_METHOD
    assert re.fullmatch(f"{NOT_PAIRED}: fold 1: true_label differs at test event [0-9]+ of [0-9]+", reordered["pairing"])
    assert reordered["p_value"] == reordered["p_value_corrected"] and not reordered["significant"]
    assert abs(reordered["delta_auc"]) < 1e-12  # the same events: the same AUC in every fold
    assert {m["error_method"] for (kind, pair), m in models.items() if kind == "binary" and pair != REORDERED} == {METHOD_POSITION}
    assert not any(m["significant"] for m in models.values())
