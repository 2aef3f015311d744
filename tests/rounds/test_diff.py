"""`pnetviz diff A B` (issue 35, item 3) on demo rounds: `pnetviz demo --seed 1`, `--seed 2` (with one
more signal point: unmatched models) and round 1 with one model's signal scores shifted (a known
improvement). The shifted model is significant after Holm's adjustment, the others are not; every
number equals a recomputation from the rounds' campaign reports (the copy holds round 1's test
events in their order: its errors are event-paired, checked by tests/rounds/test_diff_by_position.py);
the LaTeX table compiles."""

from __future__ import annotations

import csv
import json
import math
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from pnetviz.draw.matrices import cell_content
from scipy import stats

from conftest import compile_latex, load_script
from pnetviz.cli.common import run
from pnetviz.cli.commands import run_command
from pnetviz.metrics import hep
from pnetviz.rootenv import root

pytestmark = pytest.mark.slow  # three demo rounds and their campaigns

CHANNEL, SIGNAL, SECOND, OTHER = "Run3Mu", "MHc130_MA90", "MHc160_MA85", "MHc100_MA95"
SHIFTED = "nonprompt"  # the binary model whose signal scores are shifted
CAMPAIGN = ["--workers", "0", "--kinds", "binary", "--bootstrap", "0", "--formats", "png", "--no-bjet-comparison", "-q"]


def demo(results: Path, seed: int, signals: str) -> None:
    argv = ["--output", str(results), "--seed", str(seed), "--signals", signals, "--channels", CHANNEL, "--folds", "5",
            "--events", "2000", "--no-ga"]  # fmt: skip
    assert run_command("demo", argv) == 0


def campaign(results: Path, plots: Path) -> Path:
    assert run(load_script("visualizeCampaign").main, ["--results-dir", str(results), "--plots-dir", str(plots), *CAMPAIGN]) == 0
    return plots


def shift_signal_scores(ntuple: Path, delta: float) -> None:
    """score_signal - delta (at least 0) for every signal event (a retraining whose signal scores
    all moved towards the background: AUC much lower in every fold, by about the same amount),
    score_bg1 = 1 - score_signal."""
    ROOT = root()
    tmp = ntuple.with_name(ntuple.name + ".tmp.root")
    df = ROOT.RDataFrame("Events", str(ntuple))
    shifted = f"std::max(0.f, score_signal - {delta}f)"
    df = df.Redefine("score_signal", f"true_label == 0 ? {shifted} : score_signal")
    df.Redefine("score_bg1", "1.f - score_signal").Snapshot("Events", str(tmp))
    os.replace(tmp, ntuple)


@pytest.fixture(scope="module")
def rounds(tmp_path_factory) -> dict[str, Path]:
    top = tmp_path_factory.mktemp("diff")
    demo(top / "s1" / "results", 1, f"{SIGNAL},{SECOND}")  # two signal points: difference maps
    demo(top / "s2" / "results", 2, f"{SIGNAL},{SECOND},{OTHER}")
    shutil.copytree(top / "s1" / "results", top / "shifted" / "results")
    for ntuple in (top / "shifted" / "results" / CHANNEL / "binary").glob(f"*{SIGNAL}/fold-*/trees/*-binary-{SHIFTED}.root"):
        shift_signal_scores(ntuple, 0.5)
    return {name: campaign(top / name / "results", top / name / "plots") for name in ("s1", "s2", "shifted")}


def diff(a: Path, b: Path, out: Path, *extra: str) -> dict:
    assert run_command("diff", [str(a), str(b), "--output", str(out), "--formats", "png", "-q", *extra]) == 0
    return json.loads((out / "diff.json").read_text())


def fold_rows(plots: Path) -> dict[tuple, dict[int, dict]]:
    rows = json.loads((plots / "campaign" / "campaign_summary.json").read_text())["rows"]
    out: dict[tuple, dict[int, dict]] = {}
    for r in rows:
        out.setdefault((r["signal"], r["pair"]), {})[r["fold"]] = r
    return out


def side_rejection(rows: dict[int, dict], folds: list[int]) -> tuple[float, bool]:
    """R(0.5) = 1/mean(eps_b) over the folds; where no background passes, the 95% CL lower limit
    from the summed N_eff, raised to a measured R(0.9) above it."""
    n_eff = sum(rows[f]["n_eff_test_background"] for f in folds)
    at = {e: np.mean([rows[f][f"eps_b_{e}"] for f in folds]) for e in ("0.5", "0.9")}
    value = {e: (1 / m, False) if m > 0 else (1 / hep.eps_b_limit(n_eff), True) for e, m in at.items()}
    (r05, limit), (r09, limit09) = value["0.5"], value["0.9"]
    return (max(r05, r09) if limit and not limit09 else r05), limit


def recompute(a: Path, b: Path) -> dict[tuple, dict]:
    """delta AUC, its corrected error, p, Holm's p and the rejections, from the reports' rows."""
    ra, rb = fold_rows(a), fold_rows(b)
    out = {}
    for key in sorted(set(ra) & set(rb)):
        folds = sorted(set(ra[key]) & set(rb[key]))
        d = np.array([rb[key][f]["auc_test"] - ra[key][f]["auc_test"] for f in folds])
        ratios = [sum(r[f"events_test_{c}"] for c in ("signal", "background"))
                  / sum(r[f"events_train_{c}"] for c in ("signal", "background"))
                  for f in folds for r in (ra[key][f], rb[key][f])]  # fmt: skip
        se = d.std(ddof=1) * math.sqrt(1 / len(d) + np.mean(ratios))
        p = 1.0 if np.all(d == 0) else 2 * stats.t.sf(abs(d.mean() / se), len(d) - 1)
        naive = 1.0 if np.all(d == 0) else stats.ttest_rel([rb[key][f]["auc_test"] for f in folds],
                                                           [ra[key][f]["auc_test"] for f in folds]).pvalue  # fmt: skip
        (rej_a, limit_a), (rej_b, limit_b) = (side_rejection(side[key], folds) for side in (ra, rb))
        rej = [rej_a, rej_b]
        dfip = np.array([rb[key][f]["fip2"] - ra[key][f]["fip2"] for f in folds])
        out[key] = {"delta_auc": d.mean(), "delta_auc_standard_error": se if p < 1 else 0.0, "p_value": p,
                    "p_value_corrected": p, "p_value_naive_t": naive,
                    "rejection_a_0.5": rej[0], "rejection_b_0.5": rej[1], "rejection_ratio_0.5": None if limit_a and limit_b else rej[1] / rej[0],
                    "delta_fip2": dfip.mean(),
                    "delta_fip2_standard_error": dfip.std(ddof=1) * math.sqrt(1 / len(d) + np.mean(ratios))}  # fmt: skip
    order = sorted(out, key=lambda k: out[k]["p_value"])  # Holm: step-down over the family
    running = 0.0
    for i, key in enumerate(order):
        running = max(running, min(1.0, (len(order) - i) * out[key]["p_value"]))
        out[key]["p_holm"] = running
    return out


EVENT_PAIRED = ("delta_auc_standard_error", "p_value", "p_holm")  # the bootstrap's, where the rounds hold the same events


def check_numbers(result: dict, expected: dict[tuple, dict], skip: tuple[str, ...] = ()) -> None:
    got = {(m["signal"], m["pair"]): m for m in result["models"]}
    assert set(got) == set(expected)
    for key, values in expected.items():
        for name, value in values.items():
            if name in skip:
                continue
            if value is None:
                assert got[key][name] is None, (key, name)
            else:
                assert got[key][name] == pytest.approx(value, rel=1e-9, abs=1e-12), (key, name)


def test_the_shifted_model_is_significant_and_the_others_are_not(rounds, tmp_path):
    result = diff(rounds["s1"], rounds["shifted"], tmp_path / "d")
    significant = {m["pair"] for m in result["models"] if m["significant"]}
    assert significant == {SHIFTED}
    shifted = next(m for m in result["models"] if m["pair"] == SHIFTED)
    assert -0.9 < shifted["delta_auc"] < -0.2 and shifted["p_holm"] < 0.05
    assert all(m["p_holm"] == 1.0 and m["delta_auc"] == 0.0 for m in result["models"] if m["pair"] != SHIFTED)
    # a copy of round 1: the same test events in the same order, paired by position (tests/rounds/test_diff_by_position.py)
    assert {m["error_method"] for m in result["models"]} == {"event-paired (by position)"}
    check_numbers(result, recompute(rounds["s1"], rounds["shifted"]), skip=EVENT_PAIRED)
    assert result["unmatched"] == []


def test_two_seeds_differ_by_chance_only_and_unmatched_models_are_listed(rounds, tmp_path):
    out = tmp_path / "d"
    result = diff(rounds["s1"], rounds["s2"], out)
    check_numbers(result, recompute(rounds["s1"], rounds["s2"]))
    assert not any(m["significant"] for m in result["models"])
    assert all(m["pairing"].startswith("not event-paired, the corrected fold test: fold 0: ") for m in result["models"])
    assert len(result["models"]) == 6
    unmatched = result["unmatched"]
    assert {(u["round"], u["signal"], u["pair"]) for u in unmatched} == {("B", OTHER, p) for p in ("diboson", "nonprompt", "ttZ")}
    with open(out / "diff_unmatched.csv", newline="") as f:
        assert len(list(csv.DictReader(f))) == 3
    with open(out / "diff_models.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [float(r["delta_auc"]) for r in rows] == pytest.approx([m["delta_auc"] for m in result["models"]])


def test_maps_overlays_and_the_page_exist_hold_the_numbers_and_pass_the_linter(rounds, tmp_path):
    out = tmp_path / "d"
    result = diff(rounds["s1"], rounds["shifted"], out)
    pairs = ("diboson", SHIFTED, "ttZ")
    for what in ("auc", "fip2"):
        assert all((out / f"diff_map_{what}_binary_{CHANNEL}_{p}.png").is_file() for p in pairs)
    for m in result["models"]:  # readable names: <channel>_<kind>_<signal>_vs_<pair>_
        assert all((out / f"{CHANNEL}_binary_{m['signal']}_vs_{m['pair']}_{c}_curve_folds.png").is_file() for c in ("roc", "rejection"))
    assert not list(out.glob("model0*"))
    report = json.loads((out / "summary_report.json").read_text())
    assert len(report["compared"]) == len(result["models"]) == 6
    text = (out / "summary_report.txt").read_text()
    assert all(repr(m["delta_auc"])[:8] in text or f"{m['delta_auc']:.6g}" in text for m in result["models"])
    ROOT = root()
    f = ROOT.TFile.Open(str(out / "plots.root"))
    xs, ys = sorted({m["m_hc"] for m in result["models"]}), sorted({m["m_a"] for m in result["models"]})
    for m in result["models"]:
        hist = f.Get(f"maps/diff_map_auc_binary_{CHANNEL}_{m['pair']}")
        cell = hist.GetBin(xs.index(m["m_hc"]) + 1, ys.index(m["m_a"]) + 1)
        assert hist.GetBinContent(cell) == cell_content(m["delta_auc"])  # stored to 4 significant digits (the cell text)
        assert hist.GetBinError(cell) == pytest.approx(m["delta_auc_standard_error"], abs=1e-12)
    f.Close()
    page = (out / "index.html").read_text()
    assert page.count('<tr class="sig">') == 1 and page.count("_roc_curve_folds.png") == 12  # link and image per model
    assert "<h2>Models of one round only</h2><p>none" in page
    figlint = load_figlint()
    records = figlint.settled(figlint.lint_records([out / "plots.root"], jobs=1))
    assert not records, figlint.summarize(records)


def load_figlint():
    """tests/draw/figlint.py, loaded from its path (tests/draw is not on this module's path)."""
    import importlib.util  # noqa: PLC0415

    spec = importlib.util.spec_from_file_location("figlint", Path(__file__).parents[1] / "draw" / "figlint.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_latex_table_compiles_at_16_cm(rounds, tmp_path):
    out = tmp_path / "d"
    diff(rounds["s1"], rounds["shifted"], out)
    tex = (out / "diff_models.tex").read_text()
    assert "$^{*}$" in tex and tex.count("\\\\") >= 4
    compile_latex(tex, tmp_path)


def test_a_renamed_variant_is_matched_with_rename(rounds, tmp_path):
    result = diff(rounds["s1"], rounds["shifted"], tmp_path / "d", "--rename", "nNodes128=nNodes128")
    assert len(result["models"]) == 6


def test_a_directory_without_a_campaign_summary_is_one_line(tmp_path, capsys):
    assert run_command("diff", [str(tmp_path), str(tmp_path), "--output", str(tmp_path / "d")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no campaign summary" in err[0] and "Fix:" in err[0]
    assert not (tmp_path / "d").exists()


def add_event_ids(results: Path) -> None:
    """event_id = the entry number in every binary ntuple (the trainer writes none): a copied
    round then holds the same test events as its original."""
    ROOT = root()
    for ntuple in results.glob("*/binary/*/fold-*/trees/*.root"):
        tmp = ntuple.with_name(ntuple.name + ".tmp.root")
        ROOT.RDataFrame("Events", str(ntuple)).Define("event_id", "(ULong64_t)rdfentry_").Snapshot("Events", str(tmp))
        os.replace(tmp, ntuple)


def weighted_auc(scores: np.ndarray, is_signal: np.ndarray, w: np.ndarray) -> float:
    """P(s_signal > s_background) + half the ties, weighted: an independent recomputation."""
    bs, bw = scores[~is_signal], w[~is_signal]
    order = np.argsort(bs)
    bs, cum = bs[order], np.r_[0.0, np.cumsum(bw[order])]
    below = cum[np.searchsorted(bs, scores[is_signal], side="left")]
    tied = cum[np.searchsorted(bs, scores[is_signal], side="right")] - below
    return float(np.sum(w[is_signal] * (below + 0.5 * tied)) / (w[is_signal].sum() * bw.sum()))


def test_test_events_held_by_both_rounds_give_event_paired_errors(rounds, tmp_path):
    """Last in this module: it adds event_id to the s1 and shifted ntuples the reports point to."""
    from pnetviz.rounds.diffevents import METHOD, REPLICAS, SEED  # noqa: PLC0415

    top = rounds["s1"].parent.parent
    for name in ("s1", "shifted"):
        add_event_ids(top / name / "results")
    result = diff(rounds["s1"], rounds["shifted"], tmp_path / "d")
    assert {m["error_method"] for m in result["models"]} == {METHOD}
    assert {m["pair"] for m in result["models"] if m["significant"]} == {SHIFTED}
    ROOT = root()
    for m in result["models"]:
        variances = []
        for fold in map(int, m["folds"].split()):
            sides = []
            for name in ("s1", "shifted"):
                (path,) = (top / name / "results" / CHANNEL / "binary").glob(f"*{m['signal']}/fold-{fold}/trees/*-binary-{m['pair']}.root")
                cols = ROOT.RDataFrame("Events", str(path)).Filter("test_mask").AsNumpy(["score_signal", "true_label", "weight"])
                sides.append((cols["score_signal"].astype(float), cols["true_label"] == 0, np.abs(cols["weight"].astype(float))))
            rng = np.random.default_rng(SEED + fold)
            deltas = []
            for _ in range(REPLICAS):
                counts = rng.poisson(1.0, sides[0][0].size)
                deltas.append(weighted_auc(sides[1][0], sides[1][1], sides[1][2] * counts)
                              - weighted_auc(sides[0][0], sides[0][1], sides[0][2] * counts))  # fmt: skip
            variances.append(np.var(deltas, ddof=1))
        se = math.sqrt(sum(variances)) / len(variances)
        assert m["delta_auc_standard_error"] == pytest.approx(se, rel=1e-6, abs=1e-12)
        p = 1.0 if m["delta_auc"] == 0 else 2 * stats.norm.sf(abs(m["delta_auc"]) / se)
        assert m["p_value"] == pytest.approx(p, rel=1e-6, abs=1e-300)
