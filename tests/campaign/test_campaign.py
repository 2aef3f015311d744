"""visualizeCampaign.py on a trainer-faithful tree: Dask (a LocalCluster the test starts, reached
through --scheduler), same outputs as the single scripts, failure isolation, resume after kill -9,
and the summary (CSV, LaTeX, maps)."""

from __future__ import annotations

import csv
import re
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import REPO, compile_latex, load_script
from pnetviz.cli.common import run
from pnetviz.demo.ga import write_demo_run
from pnetviz.output.atomic import MARKER
from pnetviz.rootenv import root
from pnetviz.demo.trainertree import write_trainer_fold

CHANNELS, SIGNALS, FOLDS = ("Run1E2Mu", "Run3Mu"), ("MHc100_MA95", "MHc160_MA85"), (0, 1)
COMMON = ["--formats", "png", "--bootstrap", "20", "-q"]
SCRIPT = str(REPO / "python" / "visualizeCampaign.py")
pytestmark = pytest.mark.slow  # every test reads a campaign tree of 8 folds; most a finished campaign


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    base = tmp_path_factory.mktemp("campaign") / "results"
    for channel in CHANNELS:
        for signal in SIGNALS:
            for fold in FOLDS:
                write_trainer_fold(base, channel, signal, fold, events=1500)
    write_demo_run(base, CHANNELS[0], SIGNALS[0], events=600)  # a GA search beside the folds (--kinds ga)
    return base


@pytest.fixture(scope="module")
def scheduler():
    """A LocalCluster of two single-process workers, as a user's cluster would be."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None) as cluster:
        yield cluster.scheduler_address


@pytest.fixture(scope="module")
def done(tree, scheduler, tmp_path_factory):
    out = tmp_path_factory.mktemp("plots")
    argv = ["--results-dir", str(tree), "--plots-dir", str(out), "--scheduler", scheduler, *COMMON]
    assert run(load_script("visualizeCampaign").main, argv) == 0
    return out


def test_readme_output_paths_are_where_the_campaign_writes(done):
    """Every trainer-layout output path README.md and the guide's pages on evaluations, campaigns,
    the web report and the output tree state (plots/<...>/...) exists in a campaign's tree."""
    pages = ["README.md", *(f"docs/{p}.md" for p in ("evaluating", "campaigns", "web-report", "output-tree", "notebooks"))]
    text = "\n".join((REPO / page).read_text() for page in pages)
    stated = set(re.findall(r"`plots/([^`]*)`", text))
    first_layout = {s for s in stated if s.startswith(("<channel>/", "<channel>"))}  # tests/jobs cover those
    checked = 0
    for path in sorted(stated - first_layout):
        pattern = re.sub(r"<results dir name>", "results", path)
        pattern = re.sub(r"<[^>]*>", "*", pattern).replace("...", "**")
        if not pattern.strip("/"):
            continue
        assert list(done.glob(pattern.rstrip("/"))), f"README path plots/{path} not in the campaign output"
        checked += 1
    assert checked >= 4



def test_round_summary_leads_with_its_answer(done):
    """campaign/summary_report.txt (the front page's one file to read) opens with the jobs and a
    binary vs multi-class line per comparison of campaign_binary_vs_multiclass.csv."""
    lines = (done / "campaign" / "summary_report.txt").read_text().splitlines()
    assert lines[2] == "headline (test split):" and lines[3].startswith("  jobs: ") and "failed" in lines[3]
    compared = list(csv.DictReader((done / "campaign" / "campaign_binary_vs_multiclass.csv").open()))
    shown = [line for line in lines[: lines.index("details:")] if ": AUC binary " in line]
    assert compared and len(shown) == len(compared)

def test_binary_vs_multiclass_paired_statistics_over_folds(done):
    from scipy import stats

    campaign = done / "campaign"
    rows = list(csv.DictReader((campaign / "campaign_summary.csv").open()))
    compared = list(csv.DictReader((campaign / "campaign_binary_vs_multiclass.csv").open()))
    assert len(compared) == 2 * 2 * 3  # channels x signals x binary backgrounds
    for c in compared:
        def aucs(kind: str, pair: str) -> dict:
            return {r["fold"]: float(r["auc_test"]) for r in rows if (r["channel"], r["signal"], r["kind"], r["pair"]) ==
                    (c["channel"], c["signal"], kind, pair)}  # fmt: skip

        b, m = aucs("binary", c["background"]), aucs("multiclass", c["multiclass_class"])
        folds = sorted(b)
        ref = stats.ttest_rel([m[f] for f in folds], [b[f] for f in folds])
        assert int(c["auc_diff_folds"]) == 2
        d = np.array([m[f] - b[f] for f in folds])
        assert float(c["auc_diff_mean"]) == pytest.approx(d.mean(), rel=1e-12)
        assert float(c["auc_diff_t_naive"]) == pytest.approx(ref.statistic, rel=1e-9)
        assert float(c["auc_diff_p_naive_t"]) == pytest.approx(ref.pvalue, rel=1e-7)
        # corrected resampled t: n_test/n_train from the rows' event counts of both models and folds
        sel = [r for r in rows if (r["channel"], r["signal"]) == (c["channel"], c["signal"]) and
               (r["kind"], r["pair"]) in (("binary", c["background"]), ("multiclass", c["multiclass_class"]))]  # fmt: skip
        ratio = np.mean([(float(r["events_test_signal"]) + float(r["events_test_background"])) /
                         (float(r["events_train_signal"]) + float(r["events_train_background"])) for r in sel])  # fmt: skip
        assert float(c["auc_diff_test_train_ratio"]) == pytest.approx(ratio, rel=1e-12) and 0.05 < ratio < 2
        t = d.mean() / (np.std(d, ddof=1) * np.sqrt(1 / 2 + ratio))
        assert float(c["auc_diff_t"]) == pytest.approx(t, rel=1e-9)
        assert float(c["auc_diff_p_value"]) == pytest.approx(2 * stats.t.sf(abs(t), 1), rel=1e-7)
        assert float(c["auc_diff_combined_error_unpaired"]) > 0 and "auc_diff_combined_error" not in c
    p_values = [float(c["auc_diff_p_value"]) for c in compared]
    holm = [float(c["auc_diff_p_holm"]) for c in compared]
    order = np.argsort(p_values)
    assert holm[order[0]] == pytest.approx(min(1.0, len(p_values) * p_values[order[0]]), rel=1e-9)  # Holm over all 12
    assert [float(c["auc_diff_q_bh"]) for c in compared] == pytest.approx(list(stats.false_discovery_control(p_values)))


def test_latex_tables_compile_within_a_16cm_text_width(done, tmp_path):
    tex = (done / "campaign" / "campaign_summary.tex").read_text()
    assert tex.count(r"\begin{table}") == 2 and tex.count(r"\caption{") == 2 and tex.count(r"\label{tab:") == 2
    assert r"$1e2\mu$" in tex and r"$3\mu$" in tex and "Masses in GeV" in tex and "over 2 folds" in tex
    compile_latex(tex, tmp_path)


def test_dry_run_lists_every_job(tree, capsys, tmp_path):
    plots = ["--plots-dir", str(tmp_path / "plots")]  # not ./plots: a demo run there is another round
    assert run(load_script("visualizeCampaign").main, ["--results-dir", str(tree), "--dry-run", *plots]) == 0
    out = capsys.readouterr().out
    assert "[pnetviz campaign] 21 jobs" in out  # 2 channels x 2 signals x (3 binary + 1 multi-class + 1 comparison) + 1 GA run
    assert out.count("pnetviz binary ") == 12 and out.count("pnetviz compare ") == 4 and out.count("pnetviz ga ") == 1
    argv = ["--results-dir", str(tree), "--dry-run", "--channels", "Run3Mu", "--signals", "MHc160_MA85", "--kinds", "binary", *plots]
    assert run(load_script("visualizeCampaign").main, argv) == 0
    assert "[pnetviz campaign] 3 jobs" in capsys.readouterr().out


def test_outputs_match_the_single_scripts(tree, done, tmp_path):
    model = "ParticleNet-nNodes128-Adam-initLR0p0010-decay0p00010-StepLR-weighted_ce-binary-ttZ"
    job_dir = done / "results" / "Run3Mu" / "binary" / "MHc160_MA85" / model
    alone = tmp_path / "alone"
    argv = ["--results-dir", str(tree), "--channel", "Run3Mu", "--signal", "MHc160_MA85", "--background", "ttZ",
            "--fold", "0,1", "--plots-dir", str(alone), *COMMON]  # fmt: skip
    assert run(load_script("visualizeBinary").main, argv) == 0
    for sub in ("fold-0", "fold-1", "folds"):
        campaign_report = json.loads((job_dir / sub / "summary_report.json").read_text())
        single = json.loads((alone / "results" / "Run3Mu" / "binary" / "MHc160_MA85" / model / sub / "summary_report.json").read_text())
        assert campaign_report == single, sub
    for kind in ("multiclass", "comparison"):
        assert list((done / "results" / "Run1E2Mu" / kind / "MHc100_MA95").glob("*/fold-1/summary_report.json"))


def test_csv_equals_each_report_and_maps_have_a_cell_per_point(done):
    campaign = done / "campaign"
    rows = list(csv.DictReader((campaign / "campaign_summary.csv").open()))
    assert len(rows) == 2 * 2 * 2 * (3 + 3)  # channels x signals x folds x (3 binary + 3 multi-class pairs)
    for row in rows:
        kind_dir = done / "results" / row["channel"] / row["kind"] / row["signal"]
        report_path = next(kind_dir.glob(f"*{'-binary-' + row['pair'] if row['kind'] == 'binary' else '-3grp-*'}/fold-{row['fold']}/summary_report.json"))
        report = json.loads(report_path.read_text())
        metrics = report["hep_metrics"] if row["kind"] == "binary" else report["hep_metrics"][row["pair"]]
        assert float(row["auc_test"]) == metrics["test"]["auc"]
        assert float(row["auc_train"]) == metrics["train"]["auc"]
    means = list(csv.DictReader((campaign / "campaign_summary_folds_mean.csv").open()))
    assert len(means) == len(rows) // 2  # two folds each
    for m in means:
        values = [float(r["auc_test"]) for r in rows
                  if all(r[k] == m[k] for k in ("channel", "signal", "kind", "model", "pair"))]  # fmt: skip
        assert float(m["auc_test_mean"]) == pytest.approx(np.mean(values), rel=1e-12)
        assert float(m["auc_test_std"]) == pytest.approx(np.std(values, ddof=1), rel=1e-12)
    tex = (campaign / "campaign_summary.tex").read_text()
    assert r"\toprule" in tex and "160 & 85 & " in tex and "B & MC" in tex
    f = root().TFile.Open(str(campaign / "campaign.root"))
    try:
        h = f.Get("maps/map_auc_test_binary_Run1E2Mu_ttZ_vs_ttX")
        cells = [(i, j) for i in range(1, h.GetNbinsX() + 1) for j in range(1, h.GetNbinsY() + 1)]
        filled = [c for c in cells if h.GetBinContent(*c) >= h.GetMinimum()]  # painted by COLZ1 drawn alone
        assert len(filled) == len(SIGNALS) and h.GetXaxis().GetBinLabel(1) == "100" and h.GetOption() == "COLZ1"
        assert all((h.GetBinContent(*c), h.GetBinError(*c)) == (0.0, 0.0) for c in cells if c not in filled)  # empty
        assert h.Integral() == pytest.approx(sum(h.GetBinContent(*c) for c in filled))
    finally:
        f.Close()
    assert (campaign / "map_auc_test_difference_Run3Mu_nonprompt.png").stat().st_size > 1000
    assert (campaign / "auc_vs_mA_multiclass_Run1E2Mu_ttX.png").exists()


def test_broken_ntuple_fails_only_its_job_and_resume(tree, done, scheduler, tmp_path, capsys):
    broken = tmp_path / "results"
    subprocess.run(["cp", "-a", str(tree), str(broken)], check=True)
    bad = next((broken / "Run3Mu" / "binary" / "TTToHcToWAToMuMu-MHc100_MA95" / "fold-1" / "trees").glob("*-binary-diboson.root"))
    bad.write_bytes(b"not a ROOT file")
    out = tmp_path / "plots"
    argv = ["--results-dir", str(broken), "--plots-dir", str(out), "--scheduler", scheduler, "--kinds", "binary",
            "--images", "none", *COMMON]  # fmt: skip
    assert run(load_script("visualizeCampaign").main, argv) == 2
    err = capsys.readouterr().err
    assert "1 of 12 jobs failed" in err and "Run3Mu/MHc100_MA95/binary/diboson" in err and "not a readable ROOT file" in err
    assert len(list(out.glob("results/*/binary/*/*/folds/" + MARKER))) == 11
    # again: the 11 good jobs are up to date, only the broken one runs (and fails again)
    argv[argv.index("-q")] = "--dry-run"
    assert run(load_script("visualizeCampaign").main, argv) == 0
    assert capsys.readouterr().out.count("(up to date)") == 11


def _fold_summaries(out: Path) -> int:
    """Published fold summaries (their set markers) under out/results, counted while a campaign
    writes: os.walk passes over a staging directory removed during the walk (Path.glob raises)."""
    return sum(MARKER in files for root_dir, _, files in os.walk(out / "results") if Path(root_dir).name == "folds")


def test_kill_9_then_rerun_does_only_the_rest(tree, tmp_path, capsys):
    out = tmp_path / "plots"
    # one channel's 10 jobs, --images none: the subject is the fold summaries and their markers
    cmd = [sys.executable, SCRIPT, "--results-dir", str(tree), "--plots-dir", str(out), "--channels", "Run3Mu", "--workers", "1",
           "--images", "none", *COMMON]  # fmt: skip
    proc = subprocess.Popen(cmd, start_new_session=True, stderr=subprocess.DEVNULL)
    deadline = time.time() + 240
    while _fold_summaries(out) < 3 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)  # the campaign and its workers
    proc.wait()
    finished = _fold_summaries(out)
    assert 3 <= finished < 10
    # the dry run and the rerun in this process (the killed campaign was the subprocess)
    assert run(load_script("visualizeCampaign").main, [*cmd[2:-1], "--dry-run"]) == 0
    listing = capsys.readouterr().out
    assert listing.count("(up to date)") >= finished - 1  # a set published at the kill may lack its sibling folds
    code = run(load_script("visualizeCampaign").main, cmd[2:])
    assert code == 0, capsys.readouterr().err
    assert len(list(out.glob("results/**/folds/" + MARKER))) == 10  # 2 signals x (3 binary + multi-class + comparison)
    assert not list(out.rglob("*.pnetviz-stage-*")) and not list(out.rglob("*.pnetviz-old-*"))


def test_every_model_and_pair_has_its_binning_for_the_fit(done):
    """The round's binning for the fit (issue 39): binning.json, its two figures and the datacard
    TH1s (one per process, named by it, and data_obs) in every fold set of every binary model and
    for every multi-class pair; the campaign's table (a row per model and pair), maps and web section."""
    summary = json.loads((done / "campaign" / "campaign_summary.json").read_text())
    pairs = set()
    for job in summary["jobs"]:
        if job["kind"] not in ("binary", "multiclass"):
            continue
        assert job["status"] == "done", job["job"]
        for out in (Path(p) for p in job["outputs"] if Path(p).name.startswith("fold-")):
            report = json.loads((out / "summary_report.json").read_text())
            backgrounds = [job["pair"]] if job["kind"] == "binary" else report["classes"][1:]
            f = root().TFile.Open(str(out / "plots.root"))
            for bkg in backgrounds:
                stem, directory = ("", "fit_binning") if job["kind"] == "binary" else (f"signal_vs_{bkg}_", f"fit_binning_signal_vs_{bkg}")
                assert (out / f"{stem}binning.json").is_file(), out  # the figures: canvases in plots.root (images on demand)
                for name in (f"{stem}binning_objective", f"{stem}binning_histograms"):
                    assert f.Get(f"canvases/{name}"), (out, name)
                assert json.loads((out / f"{stem}binning.json").read_text())["pair"] == f"signal vs {bkg}"
                assert {k.GetName() for k in f.Get(directory).GetListOfKeys()} == {"signal", bkg, "data_obs"}
                pairs.add((job["kind"], job["channel"], job["signal"], bkg))
            f.Close()
    assert len(pairs) == len(CHANNELS) * len(SIGNALS) * 6  # 3 binary models, 3 multi-class pairs
    with open(done / "campaign" / "campaign_fit_binning.csv") as f:
        rows = {(r["kind"], r["channel"], r["signal"], r["pair"]) for r in csv.DictReader(f)}
    assert rows == pairs
    assert list((done / "campaign").glob("map_fit_binning_binary_*.png")) and (done / "campaign" / "campaign_fit_binning.tex").is_file()
    assert 'id="fit-binning"' in (done / "campaign" / "site" / "index.html").read_text()
