"""The binning for the fit in the binary and multi-class output sets of a small demo (issue 39):
binning.json per binary model and signal_vs_<class>_binning.json per multi-class pair, each equal
to a direct call of metrics.fitbinning on the pair's scores read back from the ntuple; the TH1s in
plots.root equal the test yields in the chosen edges; --fit-score signal bins P(signal), per
pair and against all backgrounds under the per-class MC guard."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from conftest import load_script, make_demo
from pnetviz.cli.common import run
from pnetviz.demo.toys import DemoConfig
from pnetviz.io.ntuple import read_predictions
from pnetviz.metrics import binning as bn
from pnetviz.metrics.evaluate import lr_score
from pnetviz.metrics.fitbinning import Events, pair_binning
from pnetviz.rootenv import root

CFG = DemoConfig(events=2000, folds=1)


@pytest.fixture(scope="module")
def sets(tmp_path_factory):
    demo = make_demo(tmp_path_factory, CFG)
    out = tmp_path_factory.mktemp("fitbins")
    common = ["--results-dir", str(demo), "--fold", "0", "--formats", "none", "--bootstrap", "0", "-q"]
    assert run(load_script("visualizeBinary").main, [*common, "--background", "diboson", "--output", str(out / "binary")]) == 0
    assert run(load_script("visualizeMultiClass").main, [*common, "--output", str(out / "lr")]) == 0
    assert run(load_script("visualizeMultiClass").main, [*common, "--fit-score", "signal", "--output", str(out / "signal")]) == 0
    assert run(load_script("visualizeBinary").main, [*common, "--background", "diboson", "--binning", "none", "--output",
                                                     str(out / "none")]) == 0  # fmt: skip
    return out


def split_events(scores, is_signal, w, masks, metrics) -> list[Events]:
    """Train and test Events of one pair, scaled to the report's yields (as jobs.fitbins does)."""
    out = []
    for split in ("train", "test"):
        m = masks[split]
        y = is_signal[m]
        scale = (metrics[split]["signal_yield"] / w[m][y].sum(), metrics[split]["background_yield"] / w[m][~y].sum())
        out.append(Events(scores[m], y, w[m], scale))
    return out


def assert_same(doc: dict, direct: dict) -> None:
    assert doc["chosen_k"] == direct["chosen_k"] and doc["fine_bins"] == direct["fine_bins"]
    assert len(doc["by_k"]) == len(direct["by_k"]) > 3
    for row, ref in zip(doc["by_k"], direct["by_k"]):
        assert row["k"] == ref["k"] and row["edges"] == pytest.approx(ref["edges"], abs=0)
        assert row["train"] == pytest.approx(ref["train"], rel=1e-12) and row["test"] == pytest.approx(ref["test"], rel=1e-12)
    assert doc["unbinned_limit"] == pytest.approx(direct["unbinned_limit"], rel=1e-12)


def stored_contents(path: Path, key: str) -> np.ndarray:
    f = root().TFile.Open(str(path))
    try:
        h = f.Get(key)
        assert h, key
        return np.array([h.GetBinContent(i) for i in range(1, h.GetNbinsX() + 1)])
    finally:
        f.Close()


def test_binary_binning_json_equals_a_direct_call(sets):
    d = sets / "binary"
    report = json.loads((d / "summary_report.json").read_text())
    doc = json.loads((d / "binning.json").read_text())
    assert doc["kind"] == "binary" and doc["pair"] == "signal vs diboson" and report["binning"]["file"] == "binning.json"
    preds = read_predictions(Path(report["input"]), classes=("signal", "diboson"), score_classes=("signal",))
    train, test = split_events(preds.scores["signal"], preds.label == 0, np.abs(preds.weight), preds.masks, report["hep_metrics"])
    assert_same(doc, pair_binning(train, test))


def test_multiclass_pair_binning_equals_a_direct_call_on_the_lr_scores(sets):
    d = sets / "lr"
    report = json.loads((d / "summary_report.json").read_text())
    classes = report["classes"]
    preds = read_predictions(Path(report["input"]), classes=tuple(classes))
    w = np.abs(preds.weight)
    assert report["binning"]["fit_score"] == "lr" and not (d / "signal_vs_all_binning.json").exists()
    for i, background in enumerate(classes[1:], start=1):
        doc = json.loads((d / f"signal_vs_{background}_binning.json").read_text())
        assert doc["kind"] == "multiclass" and doc["pair"] == f"signal vs {background}"
        assert doc["score"] == f"P(signal) / (P(signal) + P({background}) + 1e-10)"
        assert doc["constraints"]["min_class_events"] == 1.0 and "1 MC event" in doc["class_guard"]
        pair = (preds.label == 0) | (preds.label == i)
        lr = lr_score(preds.scores["signal"][pair], preds.scores[background][pair])
        masks = {s: preds.masks[s][pair] for s in ("train", "test")}
        train, test = split_events(lr, preds.label[pair] == 0, w[pair], masks, report["hep_metrics"][background])
        assert_same(doc, pair_binning(train, test, constraints=bn.Constraints(min_class_events=1.0)))
        # the TH1s: the test yields in the chosen edges, as a datacard takes them
        edges = np.asarray(next(r for r in doc["by_k"] if r["k"] == doc["chosen_k"])["edges"])
        f = test.fill(edges)
        assert stored_contents(d / "plots.root", f"fit_binning_signal_vs_{background}/{background}") == pytest.approx(f.b, rel=1e-12)
        assert stored_contents(d / "plots.root", f"fit_binning_signal_vs_{background}/signal") == pytest.approx(f.s, rel=1e-12)
        assert report["binning"]["pairs"][f"signal vs {background}"]["value"] == doc["value"]


def test_fit_score_signal_bins_psignal_and_all_backgrounds_under_the_class_guard(sets):
    d = sets / "signal"
    report = json.loads((d / "summary_report.json").read_text())
    classes = report["classes"]
    preds = read_predictions(Path(report["input"]), classes=tuple(classes))
    w = np.abs(preds.weight)
    background = classes[1]
    doc = json.loads((d / f"signal_vs_{background}_binning.json").read_text())
    assert doc["score"] == "P(signal)"
    pair = (preds.label == 0) | (preds.label == 1)
    masks = {s: preds.masks[s][pair] for s in ("train", "test")}
    train, test = split_events(preds.scores["signal"][pair], preds.label[pair] == 0, w[pair], masks, report["hep_metrics"][background])
    assert_same(doc, pair_binning(train, test, constraints=bn.Constraints(min_class_events=1.0)))
    combined = json.loads((d / "signal_vs_all_binning.json").read_text())
    assert combined["processes"] == classes and combined["score"] == "P(signal)"
    train_mask = preds.masks["train"]
    for row in combined["by_k"]:  # every background class has an MC event in every bin of the train split
        idx = bn.bin_index(np.asarray(row["edges"]), preds.scores["signal"][train_mask])
        for k in range(1, len(classes)):
            counts = np.bincount(idx[preds.label[train_mask] == k], minlength=row["k"])
            assert counts.min() >= 1, (row["k"], classes[k])
    for c in classes:
        assert stored_contents(d / "plots.root", f"fit_binning_signal_vs_all/{c}").sum() > 0


def directory_keys(path: Path, directory: str) -> set[str]:
    f = root().TFile.Open(str(path))
    try:
        return {k.GetName() for k in f.Get(directory).GetListOfKeys()}
    finally:
        f.Close()


def test_every_fit_directory_is_a_combine_shapes_input_with_data_obs(sets):
    """Each fit_binning directory holds one TH1 per process, named by the process, and data_obs =
    the background sum (the background-only Asimov observation), so that a datacard's
    `shapes * * plots.root <directory>/$PROCESS` finds every histogram it asks for."""
    binary = sets / "binary" / "plots.root"
    assert directory_keys(binary, "fit_binning") == {"signal", "diboson", "data_obs"}
    assert stored_contents(binary, "fit_binning/data_obs") == pytest.approx(stored_contents(binary, "fit_binning/diboson"), rel=1e-15)
    classes = json.loads((sets / "signal" / "summary_report.json").read_text())["classes"]
    for background in classes[1:]:
        lr = sets / "lr" / "plots.root"
        assert directory_keys(lr, f"fit_binning_signal_vs_{background}") == {"signal", background, "data_obs"}
    combined = sets / "signal" / "plots.root"
    assert directory_keys(combined, "fit_binning_signal_vs_all") == {*classes, "data_obs"}
    total = sum(stored_contents(combined, f"fit_binning_signal_vs_all/{c}") for c in classes[1:])
    assert stored_contents(combined, "fit_binning_signal_vs_all/data_obs") == pytest.approx(total, rel=1e-12)


def test_binning_none_writes_no_binning_and_the_rest_as_with_it(sets):
    """--binning none: no binning.json, no binning figure or fit_binning directory, the report's
    entry null; every other number as with the binning."""
    none, full = (json.loads((sets / d / "summary_report.json").read_text()) for d in ("none", "binary"))
    assert none["binning"] is None and full["binning"]["file"] == "binning.json"
    assert not list((sets / "none").glob("*binning*"))
    f = root().TFile.Open(str(sets / "none" / "plots.root"))
    try:
        assert not f.Get("fit_binning") and not f.Get("binning")
    finally:
        f.Close()
    assert none["hep_metrics"] == full["hep_metrics"]


def stored_titles(path: Path) -> dict[str, str]:
    """Key path -> title of every TH1 and TGraph of a plots.root outside canvases/."""
    f = root().TFile.Open(str(path))
    out = {}

    def walk(d, prefix: str) -> None:
        for k in d.GetListOfKeys():
            obj = k.ReadObj()
            if obj.InheritsFrom("TDirectory"):
                if k.GetName() != "canvases":
                    walk(obj, f"{prefix}{k.GetName()}/")
            elif obj.InheritsFrom("TH1") or obj.InheritsFrom("TGraph"):
                out[prefix + k.GetName()] = obj.GetTitle()

    try:
        walk(f, "")
    finally:
        f.Close()
    return out


def test_data_obs_has_its_own_title_and_no_stored_title_is_cut(sets):
    """data_obs says what it is (it carried the first background's title, a Clone's); a stored
    histogram's title is whole (it was cut to 79 characters with '...': the confusion matrix's
    'each true-class row sums to 1, ...' lost its end)."""
    from pnetviz.jobs.fitbins import OBSERVED_TITLE

    titles = stored_titles(sets / "binary" / "plots.root")
    assert titles["fit_binning/data_obs"] == f"{OBSERVED_TITLE}, binning histograms"
    assert not titles["fit_binning/diboson"].startswith(OBSERVED_TITLE)
    assert [k for k, t in titles.items() if t.endswith("...")] == []
    assert max(len(t) for t in titles.values()) > 79, titles  # long ones exist, and are whole
    lr_titles = stored_titles(sets / "lr" / "plots.root")
    observed = {k: t for k, t in lr_titles.items() if k.endswith("/data_obs")}
    assert observed and all(t.startswith(OBSERVED_TITLE) for t in observed.values()), observed
