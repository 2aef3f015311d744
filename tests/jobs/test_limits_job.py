"""folds/limits.json on a small demo round (3 folds of 1500 events, one signal point) with the mass
column and the demo's weight systematic: a binary model, every multi-class LR pair and the
weighted-LR scores get the three strategies, chosen on the validation splits, with per-fold
numbers and their spread; the templates the fit receives hold the pooled test events (score-fit:
the pooled yields of out_of_fold.json; cut-and-mass: the events an independent reading of the
ntuples finds above the cut inside the window); the mass column works through a --column mapping;
a bad --mass-column is one line, exit 2. The fit itself (limits.model) is replaced by a double
that records the models (its own tests are in tests/limits/)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pnetviz.cli.commands import run_command
from pnetviz.limits import model as fitmodel
from pnetviz.limits import strategies as st
from pnetviz.rootenv import root

pytestmark = pytest.mark.slow  # a demo round of four evaluations

SIGNAL, CHANNEL = "MHc130_MA90", "Run3Mu"
FAST = ["--bootstrap", "0", "--formats", "png", "--images", "site", "-q"]


class Recorder:
    """A fit double: the models it was given (in order) and a significance from the closed form."""

    def __init__(self):
        self.models = []

    def expected(self, model):
        self.models.append(model)
        z2 = sum(float((st.asimov_z(c.signal.contents, sum(b.contents for b in c.backgrounds)) ** 2).sum()) for c in model.channels)
        n = len(self.models)
        return fitmodel.Expected(z2**0.5, fitmodel.Limit(1.0 + n, 0.5, 0.7, 1.4 + n, 2.0 + n), ("mu",), None, ())

    @staticmethod
    def write(model, directory, stem):
        (Path(directory) / f"{stem}.txt").write_text(f"channels {len(model.channels)}\n")
        return {"datacard": f"{stem}.txt"}


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    base = tmp_path_factory.mktemp("limits")
    results, plots = base / "results", base / "plots"
    assert run_command("demo", ["--output", str(results), "--signals", SIGNAL, "--channels", CHANNEL, "--folds", "3",
                                "--events", "1500", "--no-ga"]) == 0  # fmt: skip
    common = ["--results-dir", str(results), "--channel", CHANNEL, "--signal", SIGNAL, "--fold", "all", *FAST]
    recorded = {}
    with pytest.MonkeyPatch.context() as mp:
        for name, argv in {"binary": ["binary", "--background", "ttZ", "--mass-column", "m_mumu", "--syst", "all"],
                           "multiclass": ["multiclass", "--mass-column", "m_mumu", "--score", "weighted-lr"],
                           "mapped": ["binary", "--background", "ttZ", "--column", "mass=m_mumu", "--mass-column", "mass",
                                      "--syst", "all"]}.items():  # fmt: skip
            rec = Recorder()
            mp.setattr(fitmodel, "expected", rec.expected)
            mp.setattr(fitmodel, "write_outputs", rec.write)
            mp.setattr(fitmodel, "build", None)  # the doubles fit and write alone
            assert run_command(argv[0], [*common, *argv[1:], "--plots-dir", str(plots / name)]) == 0
            recorded[name] = rec
    return base, plots, recorded


def folds_of(plots: Path, kind: str) -> Path:
    (found,) = [p for p in plots.rglob("folds") if f"/{kind}/" in str(p)]
    return found


def test_binary_limits_json(demo):
    _, plots, recorded = demo
    folds = folds_of(plots / "binary", "binary")
    doc = json.loads((folds / "limits.json").read_text())
    assert (doc["schema"], doc["kind"], doc["channel"], doc["signal"], doc["mass_column"]) == (1, "binary", CHANNEL, SIGNAL, "m_mumu")
    (pair,) = doc["pairs"]
    assert doc["strategies"] == pair["strategies"] and doc["pair"] == pair["pair"] == "signal_vs_ttZ"
    assert [s["name"] for s in pair["strategies"]] == list(st.NAMES)
    for s in pair["strategies"]:
        assert s["error"] is None and s["chosen_on"] == "valid" and s["nuisances"] == ["mu"]
        assert [f["fold"] for f in s["per_fold"]] == [0, 1, 2]
        medians = [f["expected_limit"]["median"] for f in s["per_fold"]]
        assert s["fold_spread"]["expected_limit_median_std"] == pytest.approx(np.std(medians, ddof=1), rel=1e-12)
        assert (folds / s["datacard"]).is_file() and s["datacard"] == f"limits/signal_vs_ttZ_{s['name'].replace('-', '_')}.txt"
    marker = json.loads((folds / ".pnetviz-set.json").read_text())
    assert marker["nested_files"] == sorted(s["datacard"] for s in pair["strategies"])
    assert "limits.json" in marker["files"]
    # the models the fit was given: 3 strategies x (pooled + 3 folds), in that order
    models = recorded["binary"].models
    assert len(models) == 12
    score_fit = models[0]
    (ch,) = score_fit.channels
    oof = json.loads((folds / "out_of_fold.json").read_text())["pairs"][pair["name"]]
    assert ch.signal.contents.sum() == pytest.approx(oof["yields"]["signal"], rel=1e-9)
    assert ch.backgrounds[0].contents.sum() == pytest.approx(oof["yields"]["background"], rel=1e-9)
    assert ch.edges.tolist() == pytest.approx(oof["binning"]["edges"])
    up, down = ch.backgrounds[0].shape_systs["bkgShape"]  # the demo's weight__bkgShapeUp/Down
    assert not np.allclose(up, ch.backgrounds[0].contents) and not np.allclose(down, ch.backgrounds[0].contents)
    # a fold's model: that fold's test events scaled to the pooled yields
    (fold_ch,) = models[1].channels
    assert fold_ch.signal.contents.sum() == pytest.approx(oof["yields"]["signal"], rel=1e-9)
    assert pair["strategies"][0]["expected_significance"] == pytest.approx(
        float(np.sqrt((st.asimov_z(ch.signal.contents, ch.backgrounds[0].contents) ** 2).sum())), rel=1e-12)


def ntuple_arrays(path: str) -> dict[str, np.ndarray]:
    frame = root().RDataFrame("Events", path)
    return {k: np.asarray(v) for k, v in frame.AsNumpy(["score_signal", "true_label", "weight", "test_mask", "m_mumu"]).items()}


def test_cut_and_mass_templates_against_the_ntuples(demo):
    _, plots, recorded = demo
    folds = folds_of(plots / "binary", "binary")
    (pair,) = json.loads((folds / "limits.json").read_text())["pairs"]
    choices = pair["strategies"][1]["choices"]
    lo, hi = choices["window"]
    signal = 0.0
    for fold in sorted(folds.parent.glob("fold-*")):
        a = ntuple_arrays(json.loads((fold / "summary_report.json").read_text())["input"])
        keep = a["test_mask"].astype(bool) & (a["score_signal"] >= choices["threshold"]) & (a["m_mumu"] >= lo) & (a["m_mumu"] < hi)
        signal += np.abs(a["weight"][keep & (a["true_label"] == 0)].astype(float)).sum()
    (ch,) = recorded["binary"].models[4].channels  # cut-and-mass, pooled
    assert ch.signal.contents.sum() == pytest.approx(signal, rel=1e-6)
    assert lo < 90.0 < hi and ch.edges[0] == pytest.approx(lo) and ch.edges[-1] == pytest.approx(hi)


def test_mass_column_through_a_mapping(demo):
    _, plots, _ = demo
    direct = json.loads((folds_of(plots / "binary", "binary") / "limits.json").read_text())["strategies"]
    mapped = json.loads((folds_of(plots / "mapped", "binary") / "limits.json").read_text())["strategies"]
    assert [s["choices"] for s in mapped] == [s["choices"] for s in direct]
    assert [s["expected_significance"] for s in mapped] == pytest.approx([s["expected_significance"] for s in direct], rel=1e-12)


def test_multiclass_pairs_and_weighted_lr(demo):
    _, plots, _ = demo
    doc = json.loads((folds_of(plots / "multiclass", "multiclass") / "limits.json").read_text())
    assert doc["kind"] == "multiclass" and "strategies" not in doc
    kinds = [p["kind"] for p in doc["pairs"]]
    assert kinds.count("multiclass-pair") == 3 and kinds.count("weighted-lr") == 4
    assert "weighted_lr_signal_vs_all" in [p["pair"] for p in doc["pairs"]]
    for p in doc["pairs"]:
        assert [s["name"] for s in p["strategies"]] == list(st.NAMES)
        assert all(s["chosen_on"] == "valid" and len(s["per_fold"]) == 3 for s in p["strategies"])
        assert p["strategies"][0]["error"] is None


def test_bad_mass_column_is_one_line(demo, capsys, tmp_path):
    base, _, _ = demo
    common = ["--results-dir", str(base / "results"), "--channel", CHANNEL, "--signal", SIGNAL, "--background", "ttZ",
              "--fold", "all", *FAST, "--plots-dir", str(tmp_path / "p")]  # fmt: skip
    capsys.readouterr()
    assert run_command("binary", [*common, "--mass-column", "no_such_mass"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'no_such_mass' is missing" in err[0] and "--mass-column" in err[0]
    assert run_command("binary", [*common, "--mass-column", " "]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--mass-column" in err[0]
    assert run_command("binary", [*common, "--mass-column", "m_mumu", "--mass-window", "wide"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--mass-window 'wide'" in err[0]


def test_a_rerun_of_one_fold_updates_the_limits(demo, monkeypatch, capsys):
    """--fold 1 alone reuses the recorded --mass-column and pools the stored events of the others."""
    base, plots, _ = demo
    folds = folds_of(plots / "binary", "binary")
    before = json.loads((folds / "limits.json").read_text())
    rec = Recorder()
    monkeypatch.setattr(fitmodel, "expected", rec.expected)
    monkeypatch.setattr(fitmodel, "write_outputs", rec.write)
    monkeypatch.setattr(fitmodel, "build", None)
    argv = ["--results-dir", str(base / "results"), "--channel", CHANNEL, "--signal", SIGNAL, "--background", "ttZ",
            "--fold", "1", *FAST, "--plots-dir", str(plots / "binary")]  # fmt: skip
    assert run_command("binary", argv) == 0
    after = json.loads((folds / "limits.json").read_text())
    assert [s["choices"] for s in after["strategies"]] == [s["choices"] for s in before["strategies"]]
    assert all(s["error"] is None and len(s["per_fold"]) == 3 for s in after["strategies"])
    assert len(rec.models) == 12


def test_real_fits_write_valid_datacards(demo, tmp_path):
    """The binary model with the real fit and writer (limits.model): numbers for every strategy,
    pooled and per fold, and each datacard passes the validator, its files listed in the marker."""
    from pnetviz.limits.validate import validate_datacard  # noqa: PLC0415

    base, _, _ = demo
    argv = ["--results-dir", str(base / "results"), "--channel", CHANNEL, "--signal", SIGNAL, "--background", "ttZ",
            "--fold", "all", *FAST, "--mass-column", "m_mumu", "--syst", "all", "--plots-dir", str(tmp_path)]  # fmt: skip
    assert run_command("binary", argv) == 0
    folds = folds_of(tmp_path, "binary")
    doc = json.loads((folds / "limits.json").read_text())
    listed = json.loads((folds / ".pnetviz-set.json").read_text())["nested_files"]
    for s in doc["strategies"]:
        assert s["error"] is None, s["error"]
        assert s["expected_significance"] > 0 and 0 < s["expected_limit"]["m2"] < s["expected_limit"]["median"] < s["expected_limit"]["p2"]
        assert any(n.startswith("alpha_") for n in s["nuisances"])  # the weight systematic
        assert all(f["expected_significance"] is not None for f in s["per_fold"])
        assert s["fold_spread"]["expected_limit_median_std"] > 0
        files = [s[k] for k in ("datacard", "shapes", "hs3", "pyhf")]
        assert all((folds / f).is_file() for f in files) and set(files) <= set(listed)
        assert validate_datacard(folds / s["datacard"]) == []
