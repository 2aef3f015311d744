"""`pnetviz compare --observe`: each pair's two discriminants (the binary model's score, the
multi-class likelihood ratio) against the observers, on the events each ROC curve uses; numbers
equal a numpy recomputation, the figures are in plots.root and pass the linter."""

from __future__ import annotations

import argparse
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from conftest import REPO, make_demo
from pnetviz.cli import compare
from pnetviz.cli.common import EXIT_USER_ERROR, run
from pnetviz.demo.toys import DemoConfig
from pnetviz.io.ntuple import read_predictions
from pnetviz.metrics.hep import mode_weights
from pnetviz.rootenv import root

CFG = DemoConfig(events=3000, folds=1)
BACKGROUNDS = ("nonprompt", "diboson", "ttZ")


@pytest.fixture(scope="module")
def compared(tmp_path_factory) -> Path:
    results = make_demo(tmp_path_factory, CFG)
    out = tmp_path_factory.mktemp("cmp") / "out"
    argv = ["--results-dir", str(results), "--fold", "0", "--output", str(out), "--formats", "none", "--bootstrap", "10",
            "-q", "--observe", "m_mumu,pt_lead"]  # fmt: skip
    assert run(compare.main, argv) == 0
    return out


def recomputed_eps_s(x: np.ndarray, s: np.ndarray, sig: np.ndarray, w: np.ndarray, cut: float) -> list:
    """VarVsEff's per-bin signal efficiency, from scratch: 8 quantile bins of x, events with s >= cut."""
    edges = np.unique(np.quantile(x, np.linspace(0, 1, 9)))
    index = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, edges.size - 2)
    out = []
    for i in range(edges.size - 1):
        sel = (index == i) & sig
        out.append(w[sel & (s >= cut)].sum() / w[sel].sum() if sel.any() else None)
    return out


def test_both_models_per_pair_equal_a_numpy_recomputation(compared):
    report = json.loads((compared / "summary_report.json").read_text())
    mc = read_predictions(Path(report["multiclass_input"]), observe=("m_mumu",))
    for i, bkg in enumerate(BACKGROUNDS, start=1):
        section = report["pairs"][bkg]["observers"]
        assert set(section) == {"doc", "binary", "multiclass"} and set(section["binary"]) >= {"m_mumu", "pt_lead"}
        b = read_predictions(Path(report["pairs"][bkg]["binary_input"]), classes=("signal", bkg),
                             score_classes=("signal",), observe=("m_mumu",))  # fmt: skip
        t = b.masks["test"]
        m = mc.masks["test"] & np.isin(mc.label, [0, i])
        ps, pb = mc.scores["signal"].astype(np.float64), mc.scores[bkg].astype(np.float64)
        lr = ps / (ps + pb + 1e-10)  # in float64, as the comparison scores it
        sides = {"binary": (b.extra["m_mumu"][t], b.scores["signal"][t], b.label[t] == 0, b.weight[t]),
                 "multiclass": (mc.extra["m_mumu"][m], lr[m], mc.label[m] == 0, mc.weight[m])}  # fmt: skip
        for model, (x, s, sig, w) in sides.items():
            v = section[model]["m_mumu"]["var_vs_eff"]
            used = mode_weights(w, report["weight_mode"])
            cut = v["threshold"]
            # the highest cut keeping 70% of the signal weight: the first score, going down, where it is reached
            order = np.argsort(-s[sig], kind="stable")
            reached = np.cumsum(used[sig][order]) >= 0.7 * used[sig].sum() * (1 - 1e-12)
            assert cut == float(s[sig][order][np.argmax(reached)]), (bkg, model)
            np.testing.assert_allclose(v["edges"], np.unique(np.quantile(x.astype(float), np.linspace(0, 1, 9))))
            expected = recomputed_eps_s(x.astype(float), s, sig, used, cut)
            assert len(v["eps_s"]) == len(expected) >= 6, (bkg, model)
            for got, want in zip(v["eps_s"], expected, strict=True):
                assert got == (pytest.approx(want, rel=1e-12) if want is not None else None), (bkg, model)
        # two different discriminants on two event sets: their working points differ
        assert section["binary"]["m_mumu"]["var_vs_eff"]["threshold"] != section["multiclass"]["m_mumu"]["var_vs_eff"]["threshold"]
    stored = json.loads((compared / "fold_results.json").read_text())["pairs"]["ttZ"]
    assert "observers" not in stored  # the fold summary's stored results are unchanged


def _figlint():
    spec = importlib.util.spec_from_file_location("figlint", REPO / "tests" / "draw" / "figlint.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_plots_root_holds_each_models_figures_and_they_pass_the_linter(compared):
    report = json.loads((compared / "summary_report.json").read_text())
    tfile = root().TFile.Open(str(compared / "plots.root"))
    try:
        for model in ("binary", "multiclass"):
            for name in ("signal_efficiency", "rejection", "sculpting"):
                assert tfile.Get(f"canvases/signal_vs_ttZ_{model}_observer_pt_lead_{name}"), (model, name)
            graph = tfile.Get(f"signal_vs_ttZ/{model}/observers/m_mumu/eps_s")
            ys = np.frombuffer(graph.GetY(), count=graph.GetN()).copy()
            eps = report["pairs"]["ttZ"]["observers"][model]["m_mumu"]["var_vs_eff"]["eps_s"]
            np.testing.assert_allclose(ys, [e for e in eps if e is not None])
    finally:
        tfile.Close()
    figlint = _figlint()
    records = [r for r in figlint.lint_records([compared / "plots.root"], jobs=1) if "observer" in r["canvas"]]
    assert not records, figlint.summarize(records)


def test_missing_observer_is_one_line_exit_2(tmp_path_factory, capfd):
    results = make_demo(tmp_path_factory, CFG)
    out = tmp_path_factory.mktemp("cmp2") / "out"
    argv = ["--results-dir", str(results), "--fold", "0", "--output", str(out), "--formats", "none", "-q",
            "--observe", "m_ee"]  # fmt: skip
    assert run(compare.main, argv) == EXIT_USER_ERROR
    err = capfd.readouterr().err.strip()
    assert err.count("\n") == 0 and "branch 'm_ee' is missing" in err and "--observe" in err
    assert not out.exists()


def test_help_and_campaign_pass_observe_to_compare(tmp_path):
    from pnetviz.cli import campaign, common  # noqa: PLC0415

    text = compare.parser("pnetviz compare").format_help()
    assert "--observe BRANCH,..." in text and "compare: both models of every pair" in " ".join(text.split())
    args = campaign.parse_args(["--results-dir", str(tmp_path), "--observe", "m_mumu"], None)
    parsed = argparse.Namespace(**vars(compare.parser().parse_args(common.passthrough(args, "compare"))))
    assert parsed.observe == "m_mumu"
