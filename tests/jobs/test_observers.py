"""--observe (issue 36 item 2): observer branches read from the ntuple give the VarVsEff figures
and the sculpting check in the report and in plots.root; the demo's ntuples carry two observers;
a missing observer is one line, exit 2; the campaign passes --observe on."""

from __future__ import annotations

import argparse
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.distance import jensenshannon

from conftest import REPO, write_ntuple
from pnetviz.cli import binary, multiclass
from pnetviz.cli.common import EXIT_USER_ERROR, run
from pnetviz.demo.trainertree import ModelSpec, write_trainer_fold
from pnetviz.rootenv import root

N = 3000


def _figlint():
    """tests/draw/figlint.py, loaded from its path (tests/draw is not on this module's path)."""
    spec = importlib.util.spec_from_file_location("figlint", REPO / "tests" / "draw" / "figlint.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def columns(seed: int = 2) -> dict[str, np.ndarray]:
    """A binary ntuple with a mass-like observer that the background's score sculpts, and a pT."""
    rng = np.random.default_rng(seed)
    sig = rng.random(N) < 0.4
    score = np.clip(rng.normal(np.where(sig, 0.68, 0.38), 0.17), 0, 1).astype(np.float32)
    mass = np.where(sig, rng.normal(90, 6, N), 15 + rng.exponential(40, N) + 50 * score).astype(np.float32)
    test = rng.random(N) < 0.5
    return {"true_label": np.where(sig, 0, 1).astype(np.int32), "score_signal": score, "weight": rng.uniform(0.5, 1.5, N),
            "train_mask": ~test, "test_mask": test, "m_mumu": mass, "pt_lead": rng.exponential(40, N)}  # fmt: skip


def evaluate(path: Path, out: Path, *extra: str) -> int:
    return run(binary.main, ["--predictions", str(path), "--output", str(out), "--formats", "none", "--bootstrap", "10",
                             "-q", "--channel", "Run3Mu", "--signal", "MHc130_MA90", *extra])  # fmt: skip


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory) -> tuple[dict, Path]:
    tmp = tmp_path_factory.mktemp("observe")
    cols = columns()
    path = write_ntuple(tmp / "ntuple.root", cols)
    assert evaluate(path, tmp / "out", "--observe", "m_mumu,pt_lead") == 0
    return cols, tmp / "out"


def test_report_numbers_equal_a_numpy_recomputation(evaluated):
    cols, out = evaluated
    section = json.loads((out / "summary_report.json").read_text())["observers"]
    test, sig = cols["test_mask"], cols["true_label"] == 0
    x, s, w, y = cols["m_mumu"][test].astype(float), cols["score_signal"][test], cols["weight"][test], sig[test]
    v = section["m_mumu"]["var_vs_eff"]
    cut = v["threshold"]
    assert w[y & (s >= cut)].sum() / w[y].sum() >= 0.7 > w[y & (s > cut)].sum() / w[y].sum()
    edges = np.unique(np.quantile(x, np.linspace(0, 1, 9)))
    np.testing.assert_allclose(v["edges"], edges)
    index = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, edges.size - 2)
    for i in range(edges.size - 1):
        sel_s, sel_b = (index == i) & y, (index == i) & ~y
        passing_b = w[sel_b & (s >= cut)].sum()
        assert v["eps_s"][i] == (pytest.approx(w[sel_s & (s >= cut)].sum() / w[sel_s].sum(), rel=1e-12) if sel_s.any() else None)
        assert v["rejection"][i] == (pytest.approx(w[sel_b].sum() / passing_b, rel=1e-12) if passing_b > 0 else None)
    sc = section["m_mumu"]["sculpting"]
    assert [c["eps_s"] for c in sc["cuts"]] == [0.5, 0.7, 0.9]
    for c in sc["cuts"]:
        assert c["jsd"] == pytest.approx(jensenshannon(c["shape"], sc["inclusive"], base=2) ** 2, abs=1e-12)
    assert sc["cuts"][0]["jsd"] > sc["cuts"][2]["jsd"] > 0.01  # the score sculpts the mass: visible
    assert set(section) >= {"m_mumu", "pt_lead"}


@pytest.mark.slow
def test_plots_root_holds_the_figures_and_they_pass_the_linter(evaluated):
    cols, out = evaluated
    section = json.loads((out / "summary_report.json").read_text())["observers"]["pt_lead"]["var_vs_eff"]
    tfile = root().TFile.Open(str(out / "plots.root"))
    try:
        graph = tfile.Get("observers/pt_lead/eps_s")
        ys = np.frombuffer(graph.GetY(), count=graph.GetN()).copy()
        np.testing.assert_allclose(ys, [e for e in section["eps_s"] if e is not None])
        for name in ("signal_efficiency", "rejection", "sculpting"):
            assert tfile.Get(f"canvases/observer_m_mumu_{name}"), name
        assert tfile.Get("observers/m_mumu/passing_eps_s_90").GetXaxis().GetTitle() == "m_{#mu#mu} [GeV]"
    finally:
        tfile.Close()
    figlint = _figlint()
    # every rule, the frame rule too (legend and context inside the frame where the data leave room)
    records = [r for r in figlint.lint_records([out / "plots.root"], jobs=1) if "observer" in r["canvas"]]
    assert not records, figlint.summarize(records)


def test_missing_observer_is_one_line_exit_2(tmp_path, capfd):
    path = write_ntuple(tmp_path / "ntuple.root", columns())
    assert evaluate(path, tmp_path / "out", "--observe", "m_mumu,m_ee") == EXIT_USER_ERROR
    err = capfd.readouterr().err.strip()
    assert err.count("\n") == 0 and f"{path}: branch 'm_ee' is missing" in err and "--observe" in err
    assert not (tmp_path / "out").exists()


def test_bad_observe_list_is_one_line_exit_2(tmp_path, capfd):
    path = write_ntuple(tmp_path / "ntuple.root", columns())
    assert evaluate(path, tmp_path / "out", "--observe", "m_mumu,,x-y") == EXIT_USER_ERROR
    assert "is not a branch name" in capfd.readouterr().err


def test_demo_multiclass_ntuple_carries_observers(tmp_path):
    base = tmp_path / "results"
    write_trainer_fold(base, "Run3Mu", "MHc130_MA90", 0, models=(ModelSpec("grouped"),), events=1500)
    out = tmp_path / "mc"
    argv = ["--results-dir", str(base), "--channel", "Run3Mu", "--signal", "MHc130_MA90", "--fold", "0", "--output", str(out),
            "--formats", "none", "--bootstrap", "10", "-q", "--observe", "m_mumu,pt_lead"]  # fmt: skip
    assert run(multiclass.main, argv) == 0
    section = json.loads(next(out.rglob("summary_report.json")).read_text())["observers"]
    jsd = [c["jsd"] for c in section["m_mumu"]["sculpting"]["cuts"]]
    assert jsd[0] > jsd[2] > 0.005  # the demo's background mass is sculpted by the score


def test_campaign_passes_observe_on(tmp_path):
    from pnetviz.cli import campaign, common  # noqa: PLC0415

    args = campaign.parse_args(["--results-dir", str(tmp_path), "--observe", "m_mumu,pt_lead"], None)
    for kind, sub in (("binary", binary), ("multiclass", multiclass)):
        parsed = argparse.Namespace(**vars(sub.parser().parse_args(common.passthrough(args, kind))))
        assert parsed.observe == "m_mumu,pt_lead"


def test_an_observer_can_be_a_mapped_column(tmp_path):
    cols = columns()
    cols["mass_dimuon"] = cols.pop("m_mumu")
    path = write_ntuple(tmp_path / "ntuple.root", cols)
    assert evaluate(path, tmp_path / "out", "--observe", "m_mumu", "--column", "m_mumu=mass_dimuon") == 0
    section = json.loads((tmp_path / "out" / "summary_report.json").read_text())["observers"]["m_mumu"]
    x = cols["mass_dimuon"][cols["test_mask"]].astype(float)
    np.testing.assert_allclose(section["var_vs_eff"]["edges"], np.unique(np.quantile(x, np.linspace(0, 1, 9))))
